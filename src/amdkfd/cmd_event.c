// SPDX-License-Identifier: MIT
/*
 * Event commands. Event ids stay the kernel's (the guest computes event-page
 * slots from them) but every id is checked against this context's table.
 * WAIT_EVENTS runs on a wait thread that issues exactly the guest's
 * arguments, writes the response and publishes event ages to the shared
 * event table (a hint for zero-timeout polls); once the pool has released
 * that thread, the ring's fence retires.
 */
#include "host_cmd.h"
#include "host_log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define EVENT_PAGE_BYTES (VKFD_SIGNAL_EVENT_SLOTS * 8ull)

static int event_pos(struct vkfd_host_context *ctx, uint32_t id, bool *found)
{
	uint32_t lo = 0, hi = ctx->n_events;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ctx->events[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < ctx->n_events && ctx->events[lo].id == id;
	return (int)lo;
}

static struct host_event *host_event_find(struct vkfd_host_context *ctx, uint32_t id)
{
	bool found;
	int i = event_pos(ctx, id, &found);

	return found ? &ctx->events[i] : NULL;
}

static int event_add(struct vkfd_host_context *ctx, uint32_t id, uint32_t type)
{
	bool found;
	int i = event_pos(ctx, id, &found);

	if (found)
		return -EEXIST;
	if (ctx->n_events == ctx->cap_events) {
		uint32_t ncap = ctx->cap_events ? ctx->cap_events * 2 : 32;
		struct host_event *n = realloc(ctx->events, ncap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		ctx->events = n;
		ctx->cap_events = ncap;
	}
	memmove(&ctx->events[i + 1], &ctx->events[i],
		(ctx->n_events - (uint32_t)i) * sizeof(*ctx->events));
	ctx->events[i] = (struct host_event){.id = id, .type = type};
	ctx->n_events++;
	return 0;
}

static void event_del(struct vkfd_host_context *ctx, uint32_t id)
{
	bool found;
	int i = event_pos(ctx, id, &found);

	if (!found)
		return;
	memmove(&ctx->events[i], &ctx->events[i + 1],
		(ctx->n_events - (uint32_t)i - 1) * sizeof(*ctx->events));
	ctx->n_events--;
}

static uint32_t max_events(void)
{
	return host_g.cfg.quota.max_events ? host_g.cfg.quota.max_events : HOST_DEFAULT_MAX_EVENTS;
}

int cmd_create_event(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	struct vkfd_rsp_create_event *rsp = (void *)c->rsp;
	struct kfd_ioctl_create_event_args a;
	const struct vkfd_req_create_event *r = CMD_REQ(c, struct vkfd_req_create_event);
	struct host_bo *page = NULL;
	bool signal;
	int ret;

	if (r->event_type > KFD_IOC_EVENT_MEMORY || r->auto_reset > 1)
		return -EINVAL;
	signal =
	    r->event_type == KFD_IOC_EVENT_SIGNAL || r->event_type == KFD_IOC_EVENT_DEBUG_EVENT;
	if (r->event_page) {
		page = obj_table_get(&ctx->bos, r->event_page);
		/* the kernel writes the whole page through its own mapping of the
		 * BO's memory: the memory, not the VA span, must hold it */
		/* an arena BO is user memory to KFD, which cannot kmap it */
		if (!page || page->kind != BO_MEMORY || page->arena || page->alias ||
		    !(page->flags & KFD_IOC_ALLOC_MEM_FLAGS_GTT) ||
		    host_bo_backing_bytes(page) < EVENT_PAGE_BYTES)
			return -EINVAL;
		if (ctx->have_event_page) {
			if (!page->event_page)
				return -EINVAL; /* a different page than the one set */
			page = NULL;            /* same page again: KFD must not see it twice */
		}
	} else if (signal && !ctx->have_event_page) {
		/* KFD would allocate a private page the guest cannot see and
		 * then reject the guest's own page: never let that happen */
		return -EINVAL;
	}
	if (ctx->n_events >= max_events())
		return -ENOMEM;
	memset(&a, 0, sizeof(a));
	a.event_page_offset = page ? page->kfd_handle : 0;
	a.event_type = r->event_type;
	a.auto_reset = r->auto_reset;
	a.node_id = 0; /* guest and host node numbers differ */
	ret = host_kfd_ioctl(ctx, AMDKFD_IOC_CREATE_EVENT, &a);
	if (ret)
		return ret;
	ret = event_add(ctx, a.event_id, r->event_type);
	if (ret) {
		struct kfd_ioctl_destroy_event_args d = {.event_id = a.event_id};

		host_kfd_ioctl(ctx, AMDKFD_IOC_DESTROY_EVENT, &d);
		return ret;
	}
	if (page) {
		ctx->have_event_page = true;
		page->event_page = true;
	}
	rsp->event_id = a.event_id;
	rsp->event_slot_index = a.event_slot_index;
	rsp->event_trigger_data = a.event_trigger_data;
	c->rsp_len = sizeof(*rsp);
	return 0;
}

/* Earlier waits on the event are with KFD before it changes (wait_order.h).
 * A wait thread normally registers within microseconds; one starved for a
 * whole second (an overloaded host) is logged and not waited for. */
#define WAIT_SETTLE_MS 1000

static void settle_waits(struct vkfd_host_context *ctx, uint32_t event_id)
{
	if (wait_order_settle(&ctx->wait_order, event_id, WAIT_SETTLE_MS))
		vkfd_warn("event %u changed before an earlier wait registered", event_id);
}

int cmd_destroy_event(struct cmd_ctx *c)
{
	struct kfd_ioctl_destroy_event_args a;
	const struct vkfd_req_event *r = CMD_REQ(c, struct vkfd_req_event);
	int ret;

	if (!host_event_find(c->ctx, r->event_id))
		return -EINVAL;
	settle_waits(c->ctx, r->event_id);
	memset(&a, 0, sizeof(a));
	a.event_id = r->event_id;
	ret = host_kfd_ioctl(c->ctx, AMDKFD_IOC_DESTROY_EVENT, &a);
	if (!ret)
		event_del(c->ctx, r->event_id);
	return ret;
}

static void publish_age(struct vkfd_host_context *ctx, uint32_t id, uint64_t age);

static int set_reset(struct cmd_ctx *c, unsigned long req)
{
	const struct host_event *ev;
	struct kfd_ioctl_set_event_args a;
	const struct vkfd_req_event *r = CMD_REQ(c, struct vkfd_req_event);
	int ret;

	ev = host_event_find(c->ctx, r->event_id);
	if (!ev || ev->type != KFD_IOC_EVENT_SIGNAL)
		return -EINVAL;
	settle_waits(c->ctx, r->event_id);
	memset(&a, 0, sizeof(a));
	a.event_id = r->event_id;
	ret = host_kfd_ioctl(c->ctx, req, &a);
	/* SET bumps the kernel's age by one; the table holds at most the real
	 * age, so +1 never overtakes it (0 = no hint yet, leave it) */
	if (!ret && req == AMDKFD_IOC_SET_EVENT && r->event_id < VKFD_SHMEM_EVENT_COUNT) {
		uint64_t cur =
		    vkfd_load_acquire_u64(&vkfd_shmem_events(c->ctx->shmem.map)[r->event_id].age);

		if (cur)
			publish_age(c->ctx, r->event_id, cur + 1);
	}
	return ret;
}

int cmd_set_event(struct cmd_ctx *c)
{
	return set_reset(c, AMDKFD_IOC_SET_EVENT);
}

int cmd_reset_event(struct cmd_ctx *c)
{
	return set_reset(c, AMDKFD_IOC_RESET_EVENT);
}

struct wait_job {
	struct vkfd_host_context *ctx;
	uint32_t ring;
	uint64_t k;
	struct vkfd_cmd_view view; /* header copy for the reply; data unused */
	uint32_t num, wait_for_all, timeout;
	uint32_t types[VKFD_MAX_WAIT_EVENTS];
	struct vkfd_kfd_event_data ev[VKFD_MAX_WAIT_EVENTS];
	struct wait_order_entry order; /* listed until KFD registered it */
};

static void publish_age(struct vkfd_host_context *ctx, uint32_t id, uint64_t age)
{
	uint64_t *slot, cur;

	/* entry 0 is event 0's, like any other (docs/protocol.md 5.3) */
	if (!age || id >= VKFD_SHMEM_EVENT_COUNT)
		return;
	slot = &vkfd_shmem_events(ctx->shmem.map)[id].age;
	cur = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	/* ages only grow: a late, older result must not move the hint back */
	while (cur < age && !__atomic_compare_exchange_n(slot, &cur, age, false, __ATOMIC_RELEASE,
							 __ATOMIC_ACQUIRE))
		;
}

/* The guest's answer from KFD's result: ret and a->wait_result, the event
 * data in j->ev. */
static void wait_job_reply(struct wait_job *j, int ret, const struct kfd_ioctl_wait_events_args *a)
{
	struct vkfd_host_context *ctx = j->ctx;
	uint8_t buf[sizeof(struct vkfd_rsp_wait_events)];
	struct vkfd_rsp_wait_events *rsp = (void *)buf;
	bool ages = host_device_can(VKFD_DEVICE_CAP_EVENT_AGES);

	memset(buf, 0, sizeof(buf));
	rsp->hdr.ret = ret;
	rsp->wait_result = a->wait_result;
	rsp->num_events = j->num;
	for (uint32_t i = 0; i < j->num; i++) {
		const struct vkfd_kfd_event_data *e = &j->ev[i];
		struct vkfd_event_data *o = &rsp->events[i];

		o->event_id = e->event_id;
		if (j->types[i] == KFD_IOC_EVENT_MEMORY) {
			const struct kfd_hsa_memory_exception_data *m = &e->memory_exception_data;

			o->kind = VKFD_EVENT_DATA_MEMORY;
			o->va = m->va;
			o->gpu_id = m->gpu_id;
			o->error_type = m->ErrorType;
			o->not_present = m->failure.NotPresent;
			o->read_only = m->failure.ReadOnly;
			o->no_execute = m->failure.NoExecute;
			o->imprecise = m->failure.imprecise;
		} else if (j->types[i] == KFD_IOC_EVENT_HW_EXCEPTION) {
			const struct kfd_hsa_hw_exception_data *h = &e->hw_exception_data;

			o->kind = VKFD_EVENT_DATA_HW;
			o->gpu_id = h->gpu_id;
			o->reset_type = h->reset_type;
			o->reset_cause = h->reset_cause;
			o->memory_lost = h->memory_lost;
		} else if (j->types[i] == KFD_IOC_EVENT_SIGNAL && ages) {
			o->event_age = e->last_event_age;
			publish_age(ctx, e->event_id, e->last_event_age);
		}
	}
	host_reply(ctx, &j->view, buf, VKFD_RSP_WAIT_EVENTS_LEN(j->num));
}

static void wait_job_run(void *arg)
{
	struct wait_job *j = arg;
	struct vkfd_host_context *ctx = j->ctx;
	struct kfd_ioctl_wait_events_args a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.events_ptr = (uint64_t)(uintptr_t)j->ev;
	a.num_events = j->num;
	a.wait_for_all = j->wait_for_all;
	a.timeout = j->timeout;
	ret = host_kfd_wait_events(ctx, &a, wait_order_registered, &j->order);
	/* interrupted by a host signal: KFD wrote back the remaining time */
	while (ret == -EINTR && !__atomic_load_n(&ctx->stopping, __ATOMIC_ACQUIRE))
		ret = host_kfd_wait_events(ctx, &a, wait_order_registered, &j->order);
	wait_order_registered(&j->order); /* unlisted before the job is freed */

	if (!__atomic_load_n(&ctx->stopping, __ATOMIC_ACQUIRE))
		wait_job_reply(j, ret, &a);
}

/*
 * A wait that KFD answers without blocking is answered here, on the
 * executor, with no hand-off to a wait thread (one thread wake-up less per
 * wait on work that is already done: the model-load storm's waits, ROCr's
 * waits after its spin). KFD is asked the same question with a zero
 * timeout; that answer is final when it is not TIMEOUT or when the guest
 * asked for a zero timeout itself. A TIMEOUT left no trace to undo only if
 * no event was consumed: KFD activates (and auto-resets) each signalled
 * event as it registers the waiter, so a wait-for-all over several events
 * can consume some and still time out; those waits go to a wait thread
 * directly. The event data are tried on a copy so that a TIMEOUT leaves
 * j->ev as the guest sent it (KFD may write ages back).
 */
static bool wait_job_try_now(struct wait_job *j)
{
	struct kfd_ioctl_wait_events_args a;
	struct vkfd_kfd_event_data ev[VKFD_MAX_WAIT_EVENTS];
	int ret;

	if (j->wait_for_all && j->num > 1)
		return false;
	memcpy(ev, j->ev, j->num * sizeof(ev[0]));
	memset(&a, 0, sizeof(a));
	a.events_ptr = (uint64_t)(uintptr_t)ev;
	a.num_events = j->num;
	a.wait_for_all = j->wait_for_all;
	a.timeout = 0;
	ret = host_kfd_ioctl(j->ctx, AMDKFD_IOC_WAIT_EVENTS, &a);
	if (j->timeout != 0 && ret == -EINTR)
		return false;
	if (j->timeout != 0 && !ret && a.wait_result == KFD_IOC_WAIT_RESULT_TIMEOUT)
		return false;
	memcpy(j->ev, ev, j->num * sizeof(ev[0]));
	wait_job_reply(j, ret, &a);
	return true;
}

/*
 * Runs after the pool released this wait's thread slot: only then may the
 * ring's fence retire, because the guest reuses the ring (and expects a
 * free wait slot) as soon as it sees that fence.
 */
static void wait_job_done(void *arg)
{
	struct wait_job *j = arg;
	struct vkfd_host_context *ctx = j->ctx;

	host_ring_wait_release_thread(ctx);
	host_ring_wait_finished(ctx, j->ring, j->k);
	free(j);
}

int cmd_wait_events(struct cmd_ctx *c)
{
	struct vkfd_host_context *ctx = c->ctx;
	const struct vkfd_req_wait_events *r = CMD_REQ(c, struct vkfd_req_wait_events);
	struct wait_job *j = NULL;
	uint64_t k = 0;
	int ret = 0;

	/* the slot was sized from num_events clamped to the limit (8.3) */
	c->rsp_len = VKFD_RSP_WAIT_EVENTS_LEN(
	    r->num_events <= VKFD_MAX_WAIT_EVENTS ? r->num_events : VKFD_MAX_WAIT_EVENTS);
	if (r->ring_idx == 0 || r->ring_idx >= VKFD_NUM_RINGS)
		return -EINVAL; /* not counted on any ring by submit_cmd either */
	k = host_ring_wait_next(ctx, r->ring_idx);

	if (r->num_events < 1 || r->num_events > VKFD_MAX_WAIT_EVENTS || r->wait_for_all > 1 ||
	    VKFD_REQ_WAIT_EVENTS_LEN(r->num_events) > c->v->hdr.len) {
		ret = -EINVAL;
		goto reject;
	}
	j = calloc(1, sizeof(*j));
	if (!j) {
		ret = -ENOMEM;
		goto reject;
	}
	for (uint32_t i = 0; i < r->num_events; i++) {
		const struct host_event *ev = host_event_find(ctx, r->events[i].event_id);

		if (!ev) {
			ret = -EINVAL;
			goto reject;
		}
		j->types[i] = ev->type;
		j->ev[i].event_id = ev->id;
		if (ev->type == KFD_IOC_EVENT_SIGNAL)
			j->ev[i].last_event_age = r->events[i].last_event_age;
	}
	j->ctx = ctx;
	j->ring = r->ring_idx;
	j->k = k;
	j->view = *c->v;
	j->view.data = NULL;
	j->num = r->num_events;
	j->wait_for_all = r->wait_for_all;
	j->timeout = r->timeout_ms;

	ret = host_ring_wait_activate(ctx, r->ring_idx, k);
	if (ret)
		goto reject; /* -EBUSY: one pending wait per ring */
	/* a guest that waits most likely waits for work behind a doorbell
	 * the relay has not forwarded yet (it backs off when idle) */
	if (!ctx->relay_lazy)
		doorbell_relay_poke(ctx->relay);
	if (!__atomic_load_n(&ctx->wait_always_thread, __ATOMIC_RELAXED) && wait_job_try_now(j)) {
		/* as wait_job_done, after the answer */
		host_ring_wait_release_thread(ctx);
		host_ring_wait_finished(ctx, j->ring, j->k);
		free(j);
		c->deferred = true;
		return 0;
	}
	{
		uint32_t ids[VKFD_MAX_WAIT_EVENTS];

		for (uint32_t i = 0; i < j->num; i++)
			ids[i] = j->ev[i].event_id;
		wait_order_add(&ctx->wait_order, &j->order, ids, j->num);
	}
	ret = wait_pool_submit_done(ctx->waits, wait_job_run, wait_job_done, j);
	if (ret) {
		wait_order_registered(&j->order);
		host_ring_wait_release_thread(ctx);
		/* -EBUSY: the wait-thread quota is used up. k is the ring's
		 * in-flight index: finishing it releases the ring. */
		goto reject;
	}
	c->deferred = true;
	return 0;
reject:
	free(j);
	/* answer before the ring's fence can retire */
	((struct vkfd_rsp_hdr *)c->rsp)->ret = ret;
	host_reply(ctx, c->v, c->rsp, c->rsp_len);
	c->deferred = true;
	host_ring_wait_finished(ctx, r->ring_idx, k);
	return ret;
}

void host_events_cancel(struct vkfd_host_context *ctx)
{
	/* KFD completes every wait on a destroyed event with FAIL, which
	 * unblocks the wait threads on the real device and on kfdsim alike */
	for (uint32_t i = 0; i < ctx->n_events; i++) {
		struct kfd_ioctl_destroy_event_args a;

		memset(&a, 0, sizeof(a));
		a.event_id = ctx->events[i].id;
		host_kfd_ioctl(ctx, AMDKFD_IOC_DESTROY_EVENT, &a);
	}
	ctx->n_events = 0;
}
