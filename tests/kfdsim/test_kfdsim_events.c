// SPDX-License-Identifier: MIT
/* kfdsim conformance: events (kfd_events.c): ids, signal page, set/reset,
 * auto-reset, ages, WAIT_EVENTS results and timing, interrupt and fault
 * paths, GPU reset. */
#include <pthread.h>

#include "sim_fixture.h"
#include "sim_priv.h"

static int create_event(struct fx *f, uint32_t type, bool auto_reset, uint64_t page,
			struct kfd_ioctl_create_event_args *out)
{
	memset(out, 0, sizeof(*out));
	out->event_type = type;
	out->auto_reset = auto_reset;
	out->event_page_offset = page;
	return fx_ioctl(f, AMDKFD_IOC_CREATE_EVENT, out);
}

static int ev_op(struct fx *f, unsigned long req, uint32_t id)
{
	struct kfd_ioctl_set_event_args a = {.event_id = id};

	return fx_ioctl(f, req, &a);
}

static int wait1(struct fx *f, uint32_t id, uint32_t timeout, uint64_t *age, uint32_t *result)
{
	struct kfd_event_data d;
	struct kfd_ioctl_wait_events_args w = {
	    .events_ptr = (uintptr_t)&d, .num_events = 1, .timeout = timeout};
	int r;

	memset(&d, 0, sizeof(d));
	d.event_id = id;
	if (age)
		memcpy(&d, age, sizeof(*age));
	r = fx_ioctl(f, AMDKFD_IOC_WAIT_EVENTS, &w);
	if (age)
		memcpy(age, &d, sizeof(*age));
	*result = w.wait_result;
	return r;
}

static struct sim_process *proc_of(struct fx *f)
{
	/* white box: the process behind the fixture's kfd fd */
	return f->sim->files[f->kfd]->proc;
}

static void test_event_ids(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_create_event_args a;

	(void)state;
	assert_int_equal(create_event(f, KFD_IOC_EVENT_MEMORY, false, 0, &a), 0);
	assert_int_equal(a.event_id, 0x40000000);
	assert_int_equal(a.event_trigger_data, 0x40000000);
	assert_int_equal(a.event_page_offset, 0);
	assert_int_equal(create_event(f, KFD_IOC_EVENT_HW_EXCEPTION, false, 0, &a), 0);
	assert_int_equal(a.event_id, 0x40000001);
	/* signal ids are slot numbers, allocated from 0 like idr_alloc */
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, true, 0, &a), 0);
	assert_int_equal(a.event_id, 0);
	assert_int_equal(a.event_slot_index, 0);
	assert_int_equal(a.event_trigger_data, 0);
	assert_int_equal(a.event_page_offset, 2ULL << 62);
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, true, 0, &a), 0);
	assert_int_equal(a.event_id, 1);
	/* lowest free id is reused */
	assert_int_equal(ev_op(f, AMDKFD_IOC_DESTROY_EVENT, 0), 0);
	assert_int_equal(create_event(f, KFD_IOC_EVENT_DEBUG_EVENT, false, 0, &a), 0);
	assert_int_equal(a.event_id, 0);
	assert_int_equal(ev_op(f, AMDKFD_IOC_DESTROY_EVENT, 0x40000000), 0);
	assert_int_equal(ev_op(f, AMDKFD_IOC_DESTROY_EVENT, 0x40000000), -EINVAL);
	assert_int_equal(ev_op(f, AMDKFD_IOC_DESTROY_EVENT, 77), -EINVAL);
	fx_free(f);
}

static void test_kernel_page_slots(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_create_event_args a;
	uint64_t *page;
	unsigned n = 0;

	(void)state;
	/* without a user page the kernel allocates one; 256 slots until mapped */
	while (create_event(f, KFD_IOC_EVENT_SIGNAL, false, 0, &a) == 0)
		n++;
	assert_int_equal(n, 256);
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, false, 0, &a), -ENOSPC);
	/* mapping it: at most 32 KiB; the whole page makes 4096 slots usable */
	assert_true(f->ops->mmap(f->sim, NULL, 65536, PROT_READ, MAP_SHARED, f->kfd,
				 (off_t)(2ULL << 62)) == MAP_FAILED);
	page = f->ops->mmap(f->sim, NULL, 32768, PROT_READ | PROT_WRITE, MAP_SHARED, f->kfd,
			    (off_t)(2ULL << 62));
	assert_true(page != MAP_FAILED);
	assert_int_equal(page[5], UINT64_MAX);
	assert_int_equal(page[4095], UINT64_MAX);
	while (create_event(f, KFD_IOC_EVENT_SIGNAL, false, 0, &a) == 0)
		n++;
	assert_int_equal(n, 4096);
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, false, 0, &a), -ENOSPC);
	/* non-signal events do not use slots */
	assert_int_equal(create_event(f, KFD_IOC_EVENT_MEMORY, false, 0, &a), 0);
	f->ops->munmap(f->sim, page, 32768);
	fx_free(f);
}

static void test_user_event_page(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_create_event_args a;
	uint64_t h, off = 0, hv, *slots;
	uint64_t va = fx_va(f, 32768);

	(void)state;
	assert_int_equal(fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE,
				  fx_va(f, 32768), 32768, &hv, NULL),
			 0);
	/* the page must be a GTT BO of this process */
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, false, hv, &a), -EINVAL);
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, false, hv + 99, &a), -EINVAL);
	assert_int_equal(fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE, va,
				  32768, &h, &off),
			 0);
	slots = f->ops->mmap(f->sim, NULL, 32768, PROT_READ | PROT_WRITE, MAP_SHARED, f->rfd[0],
			     (off_t)off);
	assert_true(slots != MAP_FAILED);
	slots[9] = 0;
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, false, h, &a), 0);
	/* the whole page was reset to unsignaled */
	assert_int_equal(slots[9], UINT64_MAX);
	assert_int_equal(a.event_id, 0);
	/* a second page: -EINVAL; the page BO cannot be freed */
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, false, h, &a), -EINVAL);
	assert_int_equal(fx_free_bo(f, h), -EPERM);
	f->ops->munmap(f->sim, slots, 32768);
	fx_free(f);
}

static void test_set_reset_rules(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_create_event_args m, s;
	uint32_t res;

	(void)state;
	assert_int_equal(create_event(f, KFD_IOC_EVENT_MEMORY, false, 0, &m), 0);
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, false, 0, &s), 0);
	/* only SIGNAL events can be set or reset from the CPU */
	assert_int_equal(ev_op(f, AMDKFD_IOC_SET_EVENT, m.event_id), -EINVAL);
	assert_int_equal(ev_op(f, AMDKFD_IOC_RESET_EVENT, m.event_id), -EINVAL);
	assert_int_equal(ev_op(f, AMDKFD_IOC_SET_EVENT, 4000), -EINVAL);
	/* manual reset: stays signaled until RESET */
	assert_int_equal(wait1(f, s.event_id, 0, NULL, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_TIMEOUT);
	assert_int_equal(ev_op(f, AMDKFD_IOC_SET_EVENT, s.event_id), 0);
	assert_int_equal(wait1(f, s.event_id, 0, NULL, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_int_equal(wait1(f, s.event_id, 0, NULL, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_int_equal(ev_op(f, AMDKFD_IOC_RESET_EVENT, s.event_id), 0);
	assert_int_equal(wait1(f, s.event_id, 0, NULL, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_TIMEOUT);
	fx_free(f);
}

static void test_auto_reset_consumed(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_create_event_args s;
	uint32_t res;

	(void)state;
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, true, 0, &s), 0);
	assert_int_equal(ev_op(f, AMDKFD_IOC_SET_EVENT, s.event_id), 0);
	assert_int_equal(wait1(f, s.event_id, 0, NULL, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_COMPLETE);
	/* the first waiter consumed it */
	assert_int_equal(wait1(f, s.event_id, 0, NULL, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_TIMEOUT);
	fx_free(f);
}

static void test_wait_any_all(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_create_event_args a, b;
	struct kfd_event_data d[2];
	struct kfd_ioctl_wait_events_args w = {.events_ptr = (uintptr_t)d, .num_events = 2};

	(void)state;
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, false, 0, &a), 0);
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, false, 0, &b), 0);
	memset(d, 0, sizeof(d));
	d[0].event_id = a.event_id;
	d[1].event_id = b.event_id;
	assert_int_equal(ev_op(f, AMDKFD_IOC_SET_EVENT, b.event_id), 0);
	w.wait_for_all = 0;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_WAIT_EVENTS, &w), 0);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
	w.wait_for_all = 1;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_WAIT_EVENTS, &w), 0);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_TIMEOUT);
	assert_int_equal(ev_op(f, AMDKFD_IOC_SET_EVENT, a.event_id), 0);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_WAIT_EVENTS, &w), 0);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
	/* an unknown id fails the whole wait */
	d[1].event_id = 999;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_WAIT_EVENTS, &w), -EINVAL);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_FAIL);
	/* a bad pointer */
	w.events_ptr = 24;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_WAIT_EVENTS, &w), -EFAULT);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_FAIL);
	/* no events at all: nothing to wait for */
	w.num_events = 0;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_WAIT_EVENTS, &w), 0);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
	fx_free(f);
}

static void test_wait_timeout_lower_bound(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_create_event_args s;
	uint64_t t0;
	uint32_t res;

	(void)state;
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, false, 0, &s), 0);
	t0 = fx_now_ns();
	assert_int_equal(wait1(f, s.event_id, 50, NULL, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_TIMEOUT);
	assert_true(fx_now_ns() - t0 >= 50000000ULL);
	fx_free(f);
}

struct bg {
	struct fx *f;
	uint32_t id;
	unsigned long req;
	unsigned delay_ms;
	bool after_waiter; /* first wait until a waiter blocks on signal event `id` */
};

/* White box: a WAIT_EVENTS is registered on signal event `id`. */
static bool has_waiter(struct fx *f, uint32_t id)
{
	struct sim_process *p = proc_of(f);
	bool r;

	pthread_mutex_lock(&p->ev_lock);
	r = id < KFD_SIGNAL_EVENT_LIMIT && p->sig[id] && p->sig[id]->waiters;
	pthread_mutex_unlock(&p->ev_lock);
	return r;
}

static void *bg_op(void *arg)
{
	struct bg *b = arg;

	usleep(b->delay_ms * 1000);
	/* a slow machine must not let the op overtake the wait it is for */
	for (int i = 0; b->after_waiter && !has_waiter(b->f, b->id) && i < 10000; i++)
		usleep(1000);
	ev_op(b->f, b->req, b->id);
	return NULL;
}

static void test_wait_woken_by_set(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_create_event_args s;
	struct bg b;
	pthread_t t;
	uint64_t t0;
	uint32_t res;

	(void)state;
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, true, 0, &s), 0);
	b = (struct bg){.f = f, .id = s.event_id, .req = AMDKFD_IOC_SET_EVENT, .delay_ms = 20};
	t0 = fx_now_ns();
	pthread_create(&t, NULL, bg_op, &b);
	assert_int_equal(wait1(f, s.event_id, 0xffffffffu, NULL, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_true(fx_now_ns() - t0 >= 20000000ULL);
	pthread_join(t, NULL);
	/* the set woke a waiter: an auto-reset event is not left signaled */
	assert_int_equal(wait1(f, s.event_id, 0, NULL, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_TIMEOUT);
	fx_free(f);
}

static void test_wait_destroyed(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_create_event_args s;
	struct bg b;
	pthread_t t;
	uint32_t res;

	(void)state;
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, false, 0, &s), 0);
	b = (struct bg){.f = f,
			.id = s.event_id,
			.req = AMDKFD_IOC_DESTROY_EVENT,
			.delay_ms = 20,
			.after_waiter = true};
	pthread_create(&t, NULL, bg_op, &b);
	assert_int_equal(wait1(f, s.event_id, 5000, NULL, &res), -EIO);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_FAIL);
	pthread_join(t, NULL);
	fx_free(f);
}

/* Destroying an event whose waiter was already satisfied at registration
 * (wait for all: one event signalled, one not) fails the wait at once and
 * leaves nothing pointing at the freed event (the stateful fuzzer found a
 * use after free here under ASan). */
struct destroy_first {
	struct fx *f;
	uint32_t destroy_id, waited_id;
};

static void *destroy_when_waiting(void *arg)
{
	struct destroy_first *d = arg;

	for (int i = 0; !has_waiter(d->f, d->waited_id) && i < 10000; i++)
		usleep(1000);
	ev_op(d->f, AMDKFD_IOC_DESTROY_EVENT, d->destroy_id);
	return NULL;
}

static void test_wait_all_destroyed_signalled(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_create_event_args a, b;
	struct kfd_event_data d[2];
	struct kfd_ioctl_wait_events_args w = {
	    .events_ptr = (uintptr_t)d, .num_events = 2, .wait_for_all = 1, .timeout = 0xffffffffu};
	struct destroy_first df;
	pthread_t t;

	(void)state;
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, false, 0, &a), 0);
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, false, 0, &b), 0);
	assert_int_equal(ev_op(f, AMDKFD_IOC_SET_EVENT, a.event_id), 0);
	memset(d, 0, sizeof(d));
	d[0].event_id = a.event_id;
	d[1].event_id = b.event_id;
	df = (struct destroy_first){.f = f, .destroy_id = a.event_id, .waited_id = b.event_id};
	pthread_create(&t, NULL, destroy_when_waiting, &df);
	/* no timeout: before the fix the wait never ended (or, timed, read
	 * the freed event) */
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_WAIT_EVENTS, &w), -EIO);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_FAIL);
	pthread_join(t, NULL);
	/* b is still there and usable */
	assert_int_equal(ev_op(f, AMDKFD_IOC_SET_EVENT, b.event_id), 0);
	fx_free(f);
}

static void test_event_age(void **state)
{
	struct kfdsim_config cfg;
	struct kfd_ioctl_create_event_args s;
	struct fx *f = fx_new(NULL, true);
	uint64_t age;
	uint32_t res;

	(void)state;
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, true, 0, &s), 0);
	/* a new event has age 1: waiting with age 1 does not complete */
	age = 1;
	assert_int_equal(wait1(f, s.event_id, 0, &age, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_TIMEOUT);
	assert_int_equal(ev_op(f, AMDKFD_IOC_SET_EVENT, s.event_id), 0);
	assert_int_equal(ev_op(f, AMDKFD_IOC_RESET_EVENT, s.event_id), 0);
	/* reset, but the age moved on: completes and reports age 2 */
	age = 1;
	assert_int_equal(wait1(f, s.event_id, 0, &age, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_int_equal(age, 2);
	assert_int_equal(wait1(f, s.event_id, 0, &age, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_TIMEOUT);
	fx_free(f);

	/* before KFD 1.14 the field is ignored and not written */
	kfdsim_config_default(&cfg);
	cfg.kfd_minor = 13;
	f = fx_new(&cfg, true);
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, true, 0, &s), 0);
	age = 5;
	assert_int_equal(wait1(f, s.event_id, 0, &age, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_TIMEOUT);
	assert_int_equal(ev_op(f, AMDKFD_IOC_SET_EVENT, s.event_id), 0);
	assert_int_equal(wait1(f, s.event_id, 0, &age, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_int_equal(age, 5);
	fx_free(f);
}

static void test_interrupt_path(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_create_event_args a, b;
	struct sim_process *p = proc_of(f);
	uint64_t *page;
	uint32_t res;

	(void)state;
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, true, 0, &a), 0);
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, true, 0, &b), 0);
	page = f->ops->mmap(f->sim, NULL, 32768, PROT_READ | PROT_WRITE, MAP_SHARED, f->kfd,
			    (off_t)(2ULL << 62));
	assert_true(page != MAP_FAILED);
	/* an interrupt for a slot that was not written does nothing */
	p->pdd[0].env.interrupt(p->pdd[0].env.ctx, b.event_id);
	assert_int_equal(wait1(f, b.event_id, 0, NULL, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_TIMEOUT);
	/* the GPU writes the mailbox slot, then interrupts */
	page[b.event_id] = 0;
	p->pdd[0].env.interrupt(p->pdd[0].env.ctx, b.event_id);
	assert_int_equal(page[b.event_id], UINT64_MAX);
	assert_int_equal(wait1(f, b.event_id, 0, NULL, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_COMPLETE);
	/* a wrong id: the page is scanned for written slots */
	page[a.event_id] = 7;
	p->pdd[0].env.interrupt(p->pdd[0].env.ctx, 3000);
	assert_int_equal(page[a.event_id], UINT64_MAX);
	assert_int_equal(wait1(f, a.event_id, 0, NULL, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_COMPLETE);
	/* partial ids: 4 valid bits select slots id, id+16, ... */
	page[b.event_id] = 1;
	sim_events_interrupt(p, b.event_id & 0xf, 4);
	assert_int_equal(wait1(f, b.event_id, 0, NULL, &res), 0);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_COMPLETE);
	f->ops->munmap(f->sim, page, 32768);
	fx_free(f);
}

static void test_vm_fault_and_translate(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct sim_process *p = proc_of(f);
	struct sim_gpu_env *env = &p->pdd[0].env;
	struct kfd_ioctl_create_event_args m;
	struct kfd_event_data d;
	struct kfd_ioctl_wait_events_args w = {.events_ptr = (uintptr_t)&d, .num_events = 1};
	uint64_t va = fx_va(f, 1 << 20), h, off = 0, hr, haql;
	uint32_t ids[1] = {f->gpu_id[0]};
	uint8_t *cpu, *gpu;

	(void)state;
	assert_int_equal(fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE, va,
				  8192, &h, &off),
			 0);
	assert_null(env->translate(env->ctx, va, 8, false)); /* not mapped yet */
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, ids, 1, NULL), 0);
	cpu = f->ops->mmap(f->sim, NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, f->rfd[0],
			   (off_t)off);
	assert_true(cpu != MAP_FAILED);
	cpu[4100] = 0x77;
	gpu = env->translate(env->ctx, va + 4100, 1, true);
	assert_non_null(gpu);
	assert_int_equal(*gpu, 0x77);
	/* a range leaving the mapping */
	assert_null(env->translate(env->ctx, va + 8000, 400, false));
	/* read-only mapping: no write translation */
	assert_int_equal(fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_VRAM, va + 65536, 4096, &hr, NULL),
			 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, hr, ids, 1, NULL), 0);
	assert_non_null(env->translate(env->ctx, va + 65536, 8, false));
	assert_null(env->translate(env->ctx, va + 65536, 8, true));
	/* AQL memory: the second half aliases the first */
	assert_int_equal(fx_alloc(f, 0,
				  KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE |
				      KFD_IOC_ALLOC_MEM_FLAGS_AQL_QUEUE_MEM,
				  va + 131072, 65536, &haql, NULL),
			 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, haql, ids, 1, NULL), 0);
	*(uint8_t *)env->translate(env->ctx, va + 131072 + 10, 1, true) = 0x99;
	assert_int_equal(*(uint8_t *)env->translate(env->ctx, va + 131072 + 32768 + 10, 1, false),
			 0x99);

	/* a VM fault fills every MEMORY event */
	memset(&m, 0, sizeof(m));
	m.event_type = KFD_IOC_EVENT_MEMORY;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_CREATE_EVENT, &m), 0);
	env->vm_fault(env->ctx, va + 65536 + 20, true);
	memset(&d, 0, sizeof(d));
	d.event_id = m.event_id;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_WAIT_EVENTS, &w), 0);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_int_equal(d.memory_exception_data.va, va + 65536);
	assert_int_equal(d.memory_exception_data.gpu_id, f->gpu_id[0]);
	assert_int_equal(d.memory_exception_data.failure.ReadOnly, 1);
	assert_int_equal(d.memory_exception_data.failure.NotPresent, 0);
	env->vm_fault(env->ctx, 0x1234567, false);
	memset(&d, 0, sizeof(d));
	d.event_id = m.event_id;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_WAIT_EVENTS, &w), 0);
	assert_int_equal(d.memory_exception_data.va, 0x1234000);
	assert_int_equal(d.memory_exception_data.failure.NotPresent, 1);
	f->ops->munmap(f->sim, cpu, 8192);
	fx_free(f);
}

static void test_gpu_reset(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_create_event_args hw;
	struct kfd_event_data d;
	struct kfd_ioctl_wait_events_args w = {.events_ptr = (uintptr_t)&d, .num_events = 1};

	(void)state;
	memset(&hw, 0, sizeof(hw));
	hw.event_type = KFD_IOC_EVENT_HW_EXCEPTION;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_CREATE_EVENT, &hw), 0);
	memset(&d, 0, sizeof(d));
	d.event_id = hw.event_id;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_WAIT_EVENTS, &w), 0);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_TIMEOUT);
	kfdsim_inject_gpu_reset(f->sim, 0);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_WAIT_EVENTS, &w), 0);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_int_equal(d.hw_exception_data.gpu_id, f->gpu_id[0]);
	assert_int_equal(d.hw_exception_data.memory_lost, 1);
	assert_int_equal(d.hw_exception_data.reset_type, KFD_HW_EXCEPTION_WHOLE_GPU_RESET);
	fx_free(f);
}

static void *close_later(void *arg)
{
	struct fx *f = arg;

	usleep(100000);
	f->ops->close(f->sim, f->kfd);
	return NULL;
}

static void test_close_cancels_waits(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct kfd_ioctl_create_event_args s;
	pthread_t t;
	uint32_t res;

	(void)state;
	assert_int_equal(create_event(f, KFD_IOC_EVENT_SIGNAL, false, 0, &s), 0);
	pthread_create(&t, NULL, close_later, f);
	/* an infinite wait ends when the fd is closed */
	assert_int_equal(wait1(f, s.event_id, 0xffffffffu, NULL, &res), -EIO);
	assert_int_equal(res, KFD_IOC_WAIT_RESULT_FAIL);
	pthread_join(t, NULL);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_event_ids),
	    cmocka_unit_test(test_kernel_page_slots),
	    cmocka_unit_test(test_user_event_page),
	    cmocka_unit_test(test_set_reset_rules),
	    cmocka_unit_test(test_auto_reset_consumed),
	    cmocka_unit_test(test_wait_any_all),
	    cmocka_unit_test(test_wait_timeout_lower_bound),
	    cmocka_unit_test(test_wait_woken_by_set),
	    cmocka_unit_test(test_wait_destroyed),
	    cmocka_unit_test(test_wait_all_destroyed_signalled),
	    cmocka_unit_test(test_event_age),
	    cmocka_unit_test(test_interrupt_path),
	    cmocka_unit_test(test_vm_fault_and_translate),
	    cmocka_unit_test(test_gpu_reset),
	    cmocka_unit_test(test_close_cancels_waits),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
