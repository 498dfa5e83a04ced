// SPDX-License-Identifier: MIT
/*
 * User queues: CREATE/DESTROY/UPDATE_QUEUE, SET_CU_MASK, ALLOC_QUEUE_GWS
 * with the argument checks of kfd_chardev.c (set_queue_properties_from_user)
 * and the queue/doorbell bookkeeping of kfd_process_queue_manager.c. AQL and
 * SDMA queues get an engine that watches the queue's doorbell slot.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_priv.h"

/* SOC15 reserves doorbells whose index matches 0x0E0 under mask 0x1E0 for
 * SDMA; CP queues take the others. */
#define SDMA_DB_MASK 0x1e0u
#define SDMA_DB_VAL  0x0e0u

static bool access_ok(uint64_t addr, uint64_t size)
{
	return addr + size >= addr && addr + size <= SIM_TASK_SIZE;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* kfd_queue_buffer_get. Exact (6.12): the page of `va` must start a GPU
 * mapping and, when the expected size is a page or more, the mapping must be
 * exactly that long. Default: [va, va + expected) must lie in one mapping.
 * Either way the BO gets a queue reference (UNMAP refuses it meanwhile). */
static int buffer_get(struct sim_pdd *pdd, uint64_t va, uint64_t expected, struct sim_bo **out)
{
	uint64_t page = va & ~(SIM_PAGE_SIZE - 1);
	uint64_t pages = expected / SIM_PAGE_SIZE;
	struct sim_mapping *m;
	bool ok;
	int r = -EINVAL;

	*out = NULL;
	if (!expected)
		return 0;
	pthread_rwlock_rdlock(&pdd->vm_lock);
	m = sim_mapping_find(pdd, page);
	/* amdgpu_vm_bo_lookup_mapping finds BOs, never SVM pages */
	if (m && m->svm)
		ok = false;
	else if (pdd->proc->sim->exact_queue_buffers)
		ok = m && m->start == page && (!pages || m->end == page + pages * SIM_PAGE_SIZE);
	else
		ok = m && va >= m->start && va + expected >= va && va + expected <= m->end;
	if (ok) {
		*out = m->bo;
		r = 0;
	}
	pthread_rwlock_unlock(&pdd->vm_lock);
	return r;
}

static void buffers_put(struct sim_queue *q)
{
	for (unsigned i = 0; i < 4; i++) {
		if (q->bufs[i])
			q->bufs[i]->queue_refs[q->pdd->gpu->index]--;
		q->bufs[i] = NULL;
	}
}

/* kfd_queue_acquire_buffers (6.12): wptr and rptr each a one-page mapping,
 * the ring a mapping of the ring size, the EOP buffer (compute queues,
 * when given) of the node's EOP size. CWSR sizes are not checked. Without
 * VKFDSIM_QUEUE_BUFFERS=exact only containment in a mapping is checked
 * (pointers: 8 bytes). */
static int acquire_buffers(struct sim_pdd *pdd, const struct kfd_ioctl_create_queue_args *a,
			   struct sim_queue *q)
{
	bool compute = a->queue_type == KFD_IOC_QUEUE_TYPE_COMPUTE ||
		       a->queue_type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;

	uint64_t ptr_size = pdd->proc->sim->exact_queue_buffers ? SIM_PAGE_SIZE : sizeof(uint64_t);
	int r;

	r = buffer_get(pdd, a->write_pointer_address, ptr_size, &q->bufs[0]);
	if (!r)
		r = buffer_get(pdd, a->read_pointer_address, ptr_size, &q->bufs[1]);
	if (!r)
		r = buffer_get(pdd, a->ring_base_address, a->ring_size, &q->bufs[2]);
	if (!r && compute && a->eop_buffer_address) {
		if (a->eop_buffer_size != SIM_EOP_BUFFER_SIZE)
			r = -EINVAL;
		else
			r = buffer_get(pdd, a->eop_buffer_address, a->eop_buffer_size, &q->bufs[3]);
	}
	if (r) {
		memset(q->bufs, 0, sizeof(q->bufs));
		return r;
	}
	for (unsigned i = 0; i < 4; i++)
		if (q->bufs[i])
			q->bufs[i]->queue_refs[pdd->gpu->index]++;
	return 0;
}

static bool checks_buffers(struct sim_process *p)
{
	return p->sim->cfg.kfd_minor >= 17;
}

_Static_assert(SIM_MAX_QUEUES < UINT16_MAX, "pdd->doorbell_qid holds a queue id + 1");

static int doorbell_alloc(struct sim_pdd *pdd, bool sdma)
{
	for (unsigned i = 0; i < SIM_DOORBELLS; i++) {
		bool reserved = (i & SDMA_DB_MASK) == SDMA_DB_VAL;

		if (reserved != sdma || (pdd->doorbell_used[i / 8] & (1u << (i % 8))))
			continue;
		pdd->doorbell_used[i / 8] |= (uint8_t)(1u << (i % 8));
		return (int)i;
	}
	return -EBUSY;
}

static void doorbell_free(struct sim_pdd *pdd, unsigned i)
{
	pdd->doorbell_used[i / 8] &= (uint8_t) ~(1u << (i % 8));
}

static bool queue_active(const struct sim_queue *q)
{
	return q->ring_size > 0 && q->ring != 0 && q->percent > 0 && !q->evicted && !q->suspended;
}

#ifdef KFDSIM_HAVE_ENGINES
static int engine_start(struct sim_queue *q)
{
	struct sim_engine_queue *eng;
	struct sim_queue_desc d;
	bool active;

	if (q->type == KFD_IOC_QUEUE_TYPE_COMPUTE)
		return 0; /* PM4 queues have no engine */
	memset(&d, 0, sizeof(d));
	d.type = q->type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL ? SIM_QUEUE_COMPUTE_AQL : SIM_QUEUE_SDMA;
	d.queue_id = q->id;
	d.ring_va = q->ring;
	d.ring_size = q->ring_size;
	d.rptr_va = q->rptr;
	d.wptr_va = q->wptr;
	d.doorbell = (volatile uint64_t *)(q->pdd->doorbells->host + q->doorbell_id * 8u);
	d.doorbell_index = q->doorbell_id;
	if (d.type == SIM_QUEUE_SDMA &&
	    !sim_sdma_format_for_ip(q->pdd->gpu->t->sdma_ip_major, q->pdd->gpu->t->sdma_ip_minor,
				    &d.sdma))
		return -EINVAL; /* a target without a modelled SDMA version */
	eng = sim_engine_queue_start(&d, &q->pdd->env);
	if (!eng)
		return -ENOMEM;
	/* q->eng and q->evicted under q_lock: an eviction reads both */
	pthread_mutex_lock(&q->pdd->proc->q_lock);
	q->eng = eng;
	active = queue_active(q);
	pthread_mutex_unlock(&q->pdd->proc->q_lock);
	if (!active)
		sim_engine_queue_set_active(eng, false);
	return 0;
}

/* Evictions in flight use q->eng (they hold evict_refs): wait for them,
 * take the engine out of the queue, then stop it. */
static void engine_stop(struct sim_queue *q)
{
	struct sim_process *p = q->pdd->proc;
	struct sim_engine_queue *eng;

	pthread_mutex_lock(&p->q_lock);
	while (q->evict_refs)
		pthread_cond_wait(&p->q_cv, &p->q_lock);
	eng = q->eng;
	q->eng = NULL;
	pthread_mutex_unlock(&p->q_lock);
	if (eng)
		sim_engine_queue_stop(eng);
}

static void engine_set_active(struct sim_queue *q, bool on)
{
	if (q->eng)
		sim_engine_queue_set_active(q->eng, on);
}
#else
static int engine_start(struct sim_queue *q)
{
	(void)q;
	return 0;
}

static void engine_stop(struct sim_queue *q)
{
	(void)q;
}

static void engine_set_active(struct sim_queue *q, bool on)
{
	(void)q;
	(void)on;
}
#endif

/* The queue is already out of p->queues; wait for evictions that still
 * hold it, then stop its engine. */
static void queue_free(struct sim_process *p, struct sim_queue *q)
{
	struct kfdsim *sim = p->sim;

	pthread_mutex_lock(&p->q_lock);
	while (q->evict_refs)
		pthread_cond_wait(&p->q_cv, &p->q_lock);
	pthread_mutex_unlock(&p->q_lock);
	engine_stop(q);
	buffers_put(q);
	doorbell_free(q->pdd, q->doorbell_id);
	if (q->has_sdma_slot)
		sim_sdma_slot_put(sim, q->pdd->gpu, &q->sdma_slot);
	if (q->gws)
		q->pdd->gws_assigned = false;
	free(q);
}

int sim_ioctl_create_queue(struct sim_process *p, void *args)
{
	struct vkfd_kfd_create_queue_args *ca = args;
	struct kfd_ioctl_create_queue_args *a = &ca->base;
	struct kfdsim *sim = p->sim;
	struct sim_pdd *pdd;
	struct sim_queue *q = NULL;
	struct sim_sdma_slot slot = {0};
	bool sdma_counted = false;
	unsigned qid;
	int r, db = -1;

	/* set_queue_properties_from_user */
	if ((a->queue_percentage & 0xff) > KFD_MAX_QUEUE_PERCENTAGE)
		return -EINVAL;
	if (a->queue_priority > KFD_MAX_QUEUE_PRIORITY)
		return -EINVAL;
	if (a->ring_base_address && !access_ok(a->ring_base_address, sizeof(uint64_t)))
		return -EFAULT;
	if (a->ring_size && !is_pow2(a->ring_size))
		return -EINVAL;
	if (a->ring_size < KFD_MIN_QUEUE_RING_SIZE)
		a->ring_size = KFD_MIN_QUEUE_RING_SIZE;
	if (!access_ok(a->read_pointer_address, sizeof(uint32_t)) ||
	    !access_ok(a->write_pointer_address, sizeof(uint32_t)))
		return -EFAULT;
	if (a->eop_buffer_address && !access_ok(a->eop_buffer_address, sizeof(uint32_t)))
		return -EFAULT;
	if (a->ctx_save_restore_address &&
	    !access_ok(a->ctx_save_restore_address, sizeof(uint32_t)))
		return -EFAULT;
	if (a->queue_type != KFD_IOC_QUEUE_TYPE_COMPUTE &&
	    a->queue_type != KFD_IOC_QUEUE_TYPE_COMPUTE_AQL &&
	    a->queue_type != KFD_IOC_QUEUE_TYPE_SDMA &&
	    a->queue_type != KFD_IOC_QUEUE_TYPE_SDMA_XGMI &&
	    !(a->queue_type == KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID && sim->cfg.kfd_minor >= 17))
		return -VKFD_KFD_ENOTSUPP;

	pthread_mutex_lock(&p->lock);
	pdd = sim_pdd_by_id(p, a->gpu_id);
	if (!pdd) {
		r = -EINVAL;
		goto out;
	}
	if (sim_pdd_bind(pdd)) {
		r = -ESRCH;
		goto out;
	}
	/* kfd_ioctl_create_queue: the engine id names an ordinary or an xGMI
	 * SDMA engine of this GPU */
	if (a->queue_type == KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID &&
	    ca->sdma_engine_id >= pdd->gpu->t->num_sdma + pdd->gpu->t->num_sdma_xgmi) {
		r = -EINVAL;
		goto out;
	}
	r = sim_doorbells_get(pdd);
	if (r)
		goto out;
	for (qid = 0; qid < SIM_MAX_QUEUES; qid++)
		if (!p->queues[qid])
			break;
	if (qid == SIM_MAX_QUEUES) {
		r = -ENOMEM;
		goto out;
	}
	if (a->queue_type == KFD_IOC_QUEUE_TYPE_SDMA ||
	    a->queue_type == KFD_IOC_QUEUE_TYPE_SDMA_XGMI ||
	    a->queue_type == KFD_IOC_QUEUE_TYPE_SDMA_BY_ENG_ID) {
		r = sim_sdma_slot_get(sim, pdd->gpu, a->queue_type, ca->sdma_engine_id, &slot);
		if (r)
			goto out;
		sdma_counted = true;
	}
	db = doorbell_alloc(pdd, sdma_counted);
	if (db < 0) {
		r = db;
		goto out;
	}
	q = calloc(1, sizeof(*q));
	if (!q) {
		r = -ENOMEM;
		goto out;
	}
	q->pdd = pdd;
	if (checks_buffers(p)) {
		r = acquire_buffers(pdd, a, q);
		if (r)
			goto out;
	}
	q->id = qid;
	q->pdd = pdd;
	/* a queue by engine id becomes a queue of its engine's class */
	q->type = !sdma_counted ? a->queue_type
		  : slot.xgmi   ? KFD_IOC_QUEUE_TYPE_SDMA_XGMI
				: KFD_IOC_QUEUE_TYPE_SDMA;
	q->has_sdma_slot = sdma_counted;
	q->sdma_slot = slot;
	q->ring = a->ring_base_address;
	q->ring_size = a->ring_size;
	q->rptr = a->read_pointer_address;
	q->wptr = a->write_pointer_address;
	q->percent = a->queue_percentage & 0xff;
	q->priority = a->queue_priority;
	q->doorbell_id = (unsigned)db;
	/* a fresh queue has rung nothing: the AQL doorbell holds the index of
	 * the last packet ready, so "none" is all ones (sim_engine.h) */
	__atomic_store_n((uint64_t *)(pdd->doorbells->host + (size_t)db * 8u),
			 q->type == KFD_IOC_QUEUE_TYPE_COMPUTE_AQL ? UINT64_MAX : 0,
			 __ATOMIC_RELEASE);
	r = engine_start(q);
	if (r)
		goto out;
	pthread_mutex_lock(&p->q_lock);
	p->queues[qid] = q;
	p->nqueues++;
	pdd->doorbell_qid[db] = (uint16_t)(qid + 1);
	pthread_mutex_unlock(&p->q_lock);
	sim_debug_queue_new(p, qid);
	a->queue_id = qid;
	a->doorbell_offset =
	    VKFD_KFD_MMAP_TYPE_DOORBELL | VKFD_KFD_MMAP_GPU_ID(a->gpu_id) | (uint64_t)db * 8u;
	q = NULL;
	db = -1;
	sdma_counted = false;
out:
	if (q) {
		buffers_put(q);
		free(q);
	}
	if (db >= 0)
		doorbell_free(pdd, (unsigned)db);
	if (sdma_counted)
		sim_sdma_slot_put(sim, pdd->gpu, &slot);
	pthread_mutex_unlock(&p->lock);
	return r;
}

static struct sim_queue *queue_get(struct sim_process *p, uint32_t id)
{
	return id < SIM_MAX_QUEUES ? p->queues[id] : NULL;
}

int sim_ioctl_destroy_queue(struct sim_process *p, void *args)
{
	struct kfd_ioctl_destroy_queue_args *a = args;
	struct sim_queue *q;

	pthread_mutex_lock(&p->lock);
	q = queue_get(p, a->queue_id);
	/* a queue the debugger suspended is destroyed once it is resumed */
	while (q && q->suspended) {
		pthread_cond_wait(&p->dbg_cv, &p->lock);
		q = queue_get(p, a->queue_id);
	}
	if (!q) {
		pthread_mutex_unlock(&p->lock);
		return -EINVAL;
	}
	pthread_mutex_lock(&p->q_lock);
	p->queues[q->id] = NULL;
	p->nqueues--;
	q->pdd->doorbell_qid[q->doorbell_id] = 0;
	pthread_mutex_unlock(&p->q_lock);
	queue_free(p, q);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

int sim_ioctl_update_queue(struct sim_process *p, void *args)
{
	struct kfd_ioctl_update_queue_args *a = args;
	struct sim_queue *q;
	int r = 0;

	if ((a->queue_percentage & 0xff) > KFD_MAX_QUEUE_PERCENTAGE)
		return -EINVAL;
	if (a->queue_priority > KFD_MAX_QUEUE_PRIORITY)
		return -EINVAL;
	if (a->ring_base_address && !access_ok(a->ring_base_address, sizeof(uint64_t)))
		return -EFAULT;
	if (a->ring_size && !is_pow2(a->ring_size))
		return -EINVAL;
	pthread_mutex_lock(&p->lock);
	q = queue_get(p, a->queue_id);
	if (!q) {
		r = -EFAULT; /* pqm_update_queue_properties */
		goto out;
	}
	if (!a->ring_size || !a->ring_base_address) {
		/* a NULL ring disables the queue (QUEUE_IS_ACTIVE is false) and
		 * keeps it, its engine and its ring's reference: not an error.
		 * The engine stops reading the ring before the ring changes. */
		engine_set_active(q, false);
		pthread_mutex_lock(&p->q_lock);
		q->ring = a->ring_base_address;
		q->ring_size = a->ring_size;
		q->percent = a->queue_percentage & 0xff;
		q->priority = a->queue_priority;
		pthread_mutex_unlock(&p->q_lock);
		goto out;
	}
	if (checks_buffers(p) && a->ring_size) {
		struct sim_bo *ring_bo;

		/* the new ring must be mapped; its BO now holds the reference */
		r = buffer_get(q->pdd, a->ring_base_address, a->ring_size, &ring_bo);
		if (r)
			goto out;
		if (q->bufs[2])
			q->bufs[2]->queue_refs[q->pdd->gpu->index]--;
		q->bufs[2] = ring_bo;
		if (ring_bo)
			ring_bo->queue_refs[q->pdd->gpu->index]++;
	}
	if (q->ring != a->ring_base_address || q->ring_size != a->ring_size) {
		/* a new ring: restart the engine on it */
		pthread_mutex_lock(&p->q_lock);
		q->ring = a->ring_base_address;
		q->ring_size = a->ring_size;
		q->percent = a->queue_percentage & 0xff;
		q->priority = a->queue_priority;
		pthread_mutex_unlock(&p->q_lock);
		engine_stop(q);
		r = engine_start(q);
		goto out;
	}
	pthread_mutex_lock(&p->q_lock);
	q->percent = a->queue_percentage & 0xff;
	q->priority = a->queue_priority;
	/* Decided and applied under q_lock, where an eviction marks the
	 * queue before deactivating it: an activation never lands after an
	 * eviction. Safe to wait here: engine threads take q_lock only in
	 * callbacks, where they count as parked. */
	engine_set_active(q, queue_active(q));
	pthread_mutex_unlock(&p->q_lock);
out:
	pthread_mutex_unlock(&p->lock);
	return r;
}

int sim_ioctl_set_cu_mask(struct sim_process *p, void *args)
{
	struct kfd_ioctl_set_cu_mask_args *a = args;
	uint32_t count = a->num_cu_mask;
	uint32_t *mask;
	struct sim_queue *q;
	int r = 0;

	if (count % 32)
		return -EINVAL;
	if (count == 0)
		return -EINVAL;
	if (count > SIM_MAX_CU_MASK_BITS)
		count = SIM_MAX_CU_MASK_BITS; /* extra bits are dropped */
	mask = calloc(count / 32, sizeof(uint32_t));
	if (!mask)
		return -ENOMEM;
	if (sim_copy_from_user(mask, a->cu_mask_ptr, count / 32 * sizeof(uint32_t))) {
		free(mask);
		return -EFAULT;
	}
	pthread_mutex_lock(&p->lock);
	q = queue_get(p, a->queue_id);
	if (!q)
		r = -EFAULT; /* pqm_update_mqd */
	else
		q->cu_mask_count = count;
	pthread_mutex_unlock(&p->lock);
	free(mask);
	return r;
}

int sim_ioctl_alloc_queue_gws(struct sim_process *p, void *args)
{
	struct kfd_ioctl_alloc_queue_gws_args *a = args;
	struct sim_queue *q;
	int r = 0;

	pthread_mutex_lock(&p->lock);
	q = queue_get(p, a->queue_id);
	if (!q) {
		r = -EINVAL;
		goto out;
	}
	if (!q->pdd->gpu->t->num_gws) {
		r = -ENODEV;
		goto out;
	}
	/* pqm_set_gws: one GWS queue per process and device */
	if (a->num_gws) {
		if (q->pdd->gws_assigned) {
			r = -EBUSY;
			goto out;
		}
		q->pdd->gws_assigned = true;
		q->gws = true;
	} else {
		if (!q->pdd->gws_assigned) {
			r = -EINVAL;
			goto out;
		}
		q->pdd->gws_assigned = false;
		q->gws = false;
	}
	a->first_gws = 0;
out:
	pthread_mutex_unlock(&p->lock);
	return r;
}

void sim_queue_refresh_active(struct sim_queue *q)
{
	engine_set_active(q, queue_active(q));
}

void sim_queues_doorbell_rung(struct sim_process *p, uint32_t gpu_id, unsigned doorbell_id)
{
	struct sim_pdd *pdd = sim_pdd_by_id(p, gpu_id); /* p->pdd is fixed */
	unsigned qid1;

	if (!pdd || doorbell_id >= SIM_DOORBELLS)
		return;
	/* under q_lock a queue in the table keeps its engine (engine_stop
	 * runs after the queue left the table and its doorbell index) */
	pthread_mutex_lock(&p->q_lock);
	qid1 = pdd->doorbell_qid[doorbell_id];
#ifdef KFDSIM_HAVE_ENGINES
	if (qid1 && p->queues[qid1 - 1] && p->queues[qid1 - 1]->eng)
		sim_engine_queue_kick(p->queues[qid1 - 1]->eng);
#else
	(void)qid1;
#endif
	pthread_mutex_unlock(&p->q_lock);
}

unsigned sim_pdd_queue_count(struct sim_pdd *pdd)
{
	struct sim_process *p = pdd->proc;
	unsigned n = 0;

	pthread_mutex_lock(&p->q_lock);
	for (unsigned i = 0; i < SIM_MAX_QUEUES; i++)
		if (p->queues[i] && p->queues[i]->pdd == pdd)
			n++;
	pthread_mutex_unlock(&p->q_lock);
	return n;
}

/* VM fault, queue error or GPU reset: the process's queues on that GPU stop.
 * Called from engine threads too: deactivating another queue waits for its
 * engine to park, so that happens outside q_lock (its engine may be about to
 * run this same function). */
void sim_queues_evict(struct sim_process *p, struct sim_pdd *pdd)
{
	struct sim_queue **list;
	unsigned n = 0;

	list = calloc(SIM_MAX_QUEUES, sizeof(*list));
	pthread_mutex_lock(&p->q_lock);
	for (unsigned i = 0; i < SIM_MAX_QUEUES; i++) {
		struct sim_queue *q = p->queues[i];

		if (!q || q->pdd != pdd || q->evicted)
			continue;
		q->evicted = true;
		if (list && q->eng) {
			/* keeps q->eng: engine_stop() waits for the ref */
			q->evict_refs++;
			list[n++] = q;
		}
	}
	pthread_mutex_unlock(&p->q_lock);
	for (unsigned i = 0; i < n; i++)
		engine_set_active(list[i], false);
	pthread_mutex_lock(&p->q_lock);
	for (unsigned i = 0; i < n; i++)
		list[i]->evict_refs--;
	pthread_cond_broadcast(&p->q_cv);
	pthread_mutex_unlock(&p->q_lock);
	free(list);
}

void sim_queues_release(struct sim_process *p)
{
	for (unsigned i = 0; i < SIM_MAX_QUEUES; i++) {
		struct sim_queue *q;

		pthread_mutex_lock(&p->q_lock);
		q = p->queues[i];
		p->queues[i] = NULL;
		if (q) {
			p->nqueues--;
			q->pdd->doorbell_qid[q->doorbell_id] = 0;
		}
		pthread_mutex_unlock(&p->q_lock);
		if (q)
			queue_free(p, q);
	}
}

/* kfd_ioctl_get_queue_wave_state -> pqm_get_wave_state: an unknown queue
 * is -EFAULT; otherwise the device queue manager's get_wave_state, which
 * answers -EINVAL when CWSR is disabled (kfdsim models the kernel with
 * cwsr_enable=0: it never saves wave state). */
int sim_ioctl_get_queue_wave_state(struct sim_process *p, void *args)
{
	struct kfd_ioctl_get_queue_wave_state_args *a = args;
	int r;

	pthread_mutex_lock(&p->lock);
	r = queue_get(p, a->queue_id) ? -EINVAL : -EFAULT;
	pthread_mutex_unlock(&p->lock);
	return r;
}
