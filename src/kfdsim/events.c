// SPDX-License-Identifier: MIT
/*
 * Events, modelled on kfd_events.c: a signal page of 64-bit slots, signal
 * event ids equal to their slot, other event ids from 0x40000000, set/reset
 * and auto-reset semantics, event ages (KFD 1.14), WAIT_EVENTS and the
 * interrupt path used by the engines.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sim_priv.h"

static struct sim_event *event_lookup(struct sim_process *p, uint32_t id)
{
	size_t lo = 0, hi = p->nother;

	if (id < KFD_SIGNAL_EVENT_LIMIT)
		return p->sig[id];
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->other[mid]->id == id)
			return p->other[mid];
		if (p->other[mid]->id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static unsigned slot_limit(struct sim_process *p)
{
	uint64_t n = p->signal_mapped / 8;

	return n < KFD_SIGNAL_EVENT_LIMIT ? (unsigned)n : KFD_SIGNAL_EVENT_LIMIT;
}

static uint64_t slot_read(struct sim_process *p, unsigned id)
{
	return __atomic_load_n(&p->slots[id], __ATOMIC_ACQUIRE);
}

/* set_event(): auto-reset events stay unsignaled when they wake a waiter. */
static void set_event(struct sim_process *p, struct sim_event *ev)
{
	ev->signaled = !ev->auto_reset || !ev->waiters;
	if (!++ev->age)
		ev->age = 2; /* never wrap back to the reserved ages 0 and 1 */
	for (struct sim_waiter *w = ev->waiters; w; w = w->next)
		w->activated = true;
	pthread_cond_broadcast(&p->ev_cv);
}

bool sim_event_page_is(struct sim_process *p, uint64_t handle)
{
	bool r;

	pthread_mutex_lock(&p->ev_lock);
	r = p->slots && p->signal_handle && p->signal_handle == handle;
	pthread_mutex_unlock(&p->ev_lock);
	return r;
}

/* kfd_kmap_event_page: user space hands over a GTT BO as the signal page. */
static int kmap_event_page(struct sim_process *p, uint64_t handle)
{
	struct sim_pdd *pdd;
	struct sim_bo *bo;
	int r = 0;

	pthread_mutex_lock(&p->lock);
	pthread_mutex_lock(&p->ev_lock);
	if (p->slots) {
		r = -EINVAL; /* event page is already set */
		goto out;
	}
	pdd = sim_pdd_by_id(p, KFDSIM_HANDLE_GPU_ID(handle));
	if (!pdd) {
		r = -EINVAL;
		goto out;
	}
	r = sim_pdd_bind(pdd);
	if (r)
		goto out;
	bo = sim_bo_lookup(pdd, handle);
	if (!bo || !(bo->flags & KFD_IOC_ALLOC_MEM_FLAGS_GTT) || !bo->backing) {
		r = -EINVAL;
		goto out;
	}
	p->slots = (uint64_t *)bo->backing->host;
	p->signal_mapped = bo->alloc_size;
	p->signal_handle = handle;
	memset(p->slots, 0xff,
	       bo->alloc_size < KFD_SIGNAL_EVENT_LIMIT * 8 ? bo->alloc_size
							   : KFD_SIGNAL_EVENT_LIMIT * 8);
out:
	pthread_mutex_unlock(&p->ev_lock);
	pthread_mutex_unlock(&p->lock);
	return r;
}

static int create_signal_event(struct sim_process *p, struct sim_event *ev)
{
	unsigned limit, id;

	if (!p->slots) {
		p->signal_own =
		    sim_backing_new(p->sim, "kfdsim-events", KFD_SIGNAL_EVENT_LIMIT * 8);
		if (!p->signal_own)
			return -ENOMEM;
		p->slots = (uint64_t *)p->signal_own->host;
		memset(p->slots, 0xff, KFD_SIGNAL_EVENT_LIMIT * 8);
		/* the oldest user mode expects 256 slots */
		p->signal_mapped = 256 * 8;
	}
	limit = slot_limit(p);
	if (p->sig_count >= limit)
		return -ENOSPC;
	for (id = 0; id < limit; id++)
		if (!p->sig[id])
			break;
	if (id == limit)
		return -ENOSPC;
	ev->id = id;
	__atomic_store_n(&p->slots[id], KFDSIM_UNSIGNALED_EVENT_SLOT, __ATOMIC_RELEASE);
	p->sig[id] = ev;
	p->sig_count++;
	return 0;
}

static int create_other_event(struct sim_process *p, struct sim_event *ev)
{
	uint32_t id = KFDSIM_FIRST_NONSIGNAL_EVENT_ID;
	size_t i;

	if (p->nother >= SIM_MAX_OTHER_EVENTS)
		return -ENOMEM;
	/* lowest free id, like idr_alloc */
	for (i = 0; i < p->nother && p->other[i]->id == id; i++)
		id++;
	if (p->nother == p->other_cap) {
		size_t cap = p->other_cap ? p->other_cap * 2 : 16;
		struct sim_event **n = realloc(p->other, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->other = n;
		p->other_cap = cap;
	}
	memmove(&p->other[i + 1], &p->other[i], (p->nother - i) * sizeof(p->other[0]));
	p->other[i] = ev;
	p->nother++;
	ev->id = id;
	return 0;
}

int sim_ioctl_create_event(struct sim_process *p, void *args)
{
	struct kfd_ioctl_create_event_args *a = args;
	struct sim_event *ev;
	int r;

	if (a->event_page_offset) {
		r = kmap_event_page(p, a->event_page_offset);
		if (r)
			return r;
	}
	ev = calloc(1, sizeof(*ev));
	if (!ev)
		return -ENOMEM;
	ev->type = a->event_type;
	ev->auto_reset = a->auto_reset != 0;
	pthread_mutex_lock(&p->ev_lock);
	a->event_page_offset = 0;
	if (ev->type == KFD_IOC_EVENT_SIGNAL || ev->type == KFD_IOC_EVENT_DEBUG_EVENT) {
		r = create_signal_event(p, ev);
		if (!r) {
			a->event_page_offset = VKFD_KFD_MMAP_TYPE_EVENTS;
			a->event_slot_index = ev->id;
		}
	} else {
		r = create_other_event(p, ev);
	}
	if (!r) {
		a->event_id = ev->id;
		a->event_trigger_data = ev->id;
		ev->age = 1;
	}
	pthread_mutex_unlock(&p->ev_lock);
	if (r)
		free(ev);
	return r;
}

/* The waits that name ev fail from now on; ev_lock held. */
static void event_orphan_waiters(struct sim_event *ev)
{
	for (struct sim_waiter *w = ev->all_waiters; w; w = w->next_all)
		w->ev = NULL;
	ev->waiters = NULL;
	ev->all_waiters = NULL;
}

static void event_unlink(struct sim_process *p, struct sim_event *ev)
{
	event_orphan_waiters(ev);
	if (ev->id < KFD_SIGNAL_EVENT_LIMIT) {
		p->sig[ev->id] = NULL;
		p->sig_count--;
	} else {
		for (size_t i = 0; i < p->nother; i++) {
			if (p->other[i] == ev) {
				memmove(&p->other[i], &p->other[i + 1],
					(p->nother - i - 1) * sizeof(p->other[0]));
				p->nother--;
				break;
			}
		}
	}
}

int sim_ioctl_destroy_event(struct sim_process *p, void *args)
{
	struct kfd_ioctl_destroy_event_args *a = args;
	struct sim_event *ev;

	pthread_mutex_lock(&p->ev_lock);
	ev = event_lookup(p, a->event_id);
	if (!ev) {
		pthread_mutex_unlock(&p->ev_lock);
		return -EINVAL;
	}
	event_unlink(p, ev);
	pthread_cond_broadcast(&p->ev_cv);
	pthread_mutex_unlock(&p->ev_lock);
	free(ev);
	return 0;
}

int sim_ioctl_set_event(struct sim_process *p, void *args)
{
	struct kfd_ioctl_set_event_args *a = args;
	struct sim_event *ev;
	int r = 0;

	pthread_mutex_lock(&p->ev_lock);
	ev = event_lookup(p, a->event_id);
	if (!ev || ev->type != KFD_IOC_EVENT_SIGNAL)
		r = -EINVAL;
	else
		set_event(p, ev);
	pthread_mutex_unlock(&p->ev_lock);
	return r;
}

int sim_ioctl_reset_event(struct sim_process *p, void *args)
{
	struct kfd_ioctl_reset_event_args *a = args;
	struct sim_event *ev;
	int r = 0;

	pthread_mutex_lock(&p->ev_lock);
	ev = event_lookup(p, a->event_id);
	if (!ev || ev->type != KFD_IOC_EVENT_SIGNAL)
		r = -EINVAL;
	else
		ev->signaled = false;
	pthread_mutex_unlock(&p->ev_lock);
	return r;
}

static uint32_t test_condition(struct sim_waiter *w, uint32_t n, bool all)
{
	uint32_t activated = 0;

	for (uint32_t i = 0; i < n; i++) {
		if (!w[i].ev)
			return KFD_IOC_WAIT_RESULT_FAIL;
		if (w[i].activated) {
			if (!all)
				return KFD_IOC_WAIT_RESULT_COMPLETE;
			activated++;
		}
	}
	return activated == n ? KFD_IOC_WAIT_RESULT_COMPLETE : KFD_IOC_WAIT_RESULT_TIMEOUT;
}

/* copy_signaled_event_data: exception data and new ages of the events that
 * fired go back to user space. */
static int fill_signaled(struct sim_waiter *w, uint32_t n, struct kfd_event_data *d)
{
	for (uint32_t i = 0; i < n; i++) {
		struct sim_event *ev = w[i].ev;

		if (!ev)
			return -EINVAL;
		if (!w[i].activated)
			continue;
		if (ev->type == KFD_IOC_EVENT_MEMORY)
			d[i].memory_exception_data = ev->mem_data;
		else if (ev->type == KFD_IOC_EVENT_HW_EXCEPTION)
			d[i].hw_exception_data = ev->hw_data;
		else if (ev->type == KFD_IOC_EVENT_SIGNAL && w[i].age_enabled)
			memcpy(&d[i], &ev->age, sizeof(ev->age));
	}
	return 0;
}

static void unregister_waiters(struct sim_waiter *w, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		struct sim_event *ev = w[i].ev;

		if (!ev)
			continue;
		for (struct sim_waiter **pp = &ev->waiters; *pp; pp = &(*pp)->next) {
			if (*pp == &w[i]) {
				*pp = w[i].next;
				break;
			}
		}
		for (struct sim_waiter **pp = &ev->all_waiters; *pp; pp = &(*pp)->next_all) {
			if (*pp == &w[i]) {
				*pp = w[i].next_all;
				break;
			}
		}
	}
}

/* per thread: a wait thread runs one WAIT_EVENTS at a time */
static _Thread_local void (*registered_fn)(void *);
static _Thread_local void *registered_arg;

void sim_events_hook_registered(void (*fn)(void *), void *arg)
{
	registered_fn = fn;
	registered_arg = arg;
}

void sim_events_registered_now(void)
{
	void (*fn)(void *) = registered_fn;

	registered_fn = NULL;
	if (fn)
		fn(registered_arg);
}

int sim_ioctl_wait_events(struct sim_process *p, void *args)
{
	struct kfd_ioctl_wait_events_args *a = args;
	bool ages = p->sim->cfg.kfd_minor >= KFDSIM_EVENT_AGE_MINOR;
	uint32_t n = a->num_events, inited = 0;
	uint32_t result = KFD_IOC_WAIT_RESULT_FAIL;
	struct kfd_event_data *data = NULL;
	struct sim_waiter *w = NULL;
	struct timespec deadline;
	bool copy_back = false;
	int r = 0;

	if (n > SIM_MAX_WAIT_EVENTS) {
		r = -ENOMEM;
		goto out;
	}
	w = calloc(n ? n : 1, sizeof(*w));
	data = calloc(n ? n : 1, sizeof(*data));
	if (!w || !data) {
		r = -ENOMEM;
		goto out;
	}
	if (sim_copy_from_user(data, a->events_ptr, (size_t)n * sizeof(*data))) {
		r = -EFAULT;
		goto out;
	}
	clock_gettime(CLOCK_MONOTONIC, &deadline);
	if (a->timeout != KFDSIM_EVENT_TIMEOUT_INFINITE) {
		deadline.tv_sec += a->timeout / 1000;
		deadline.tv_nsec += (long)(a->timeout % 1000) * 1000000L;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
	}

	pthread_mutex_lock(&p->ev_lock);
	for (; inited < n; inited++) {
		struct sim_waiter *wi = &w[inited];
		struct sim_event *ev = event_lookup(p, data[inited].event_id);
		uint64_t last_age;

		if (!ev || p->closed) {
			r = -EINVAL;
			break;
		}
		/* waiters consume an auto-reset signal when they register */
		wi->ev = ev;
		wi->activated = ev->signaled;
		ev->signaled = ev->signaled && !ev->auto_reset;
		memcpy(&last_age, &data[inited], sizeof(last_age));
		if (ages && ev->type == KFD_IOC_EVENT_SIGNAL && last_age) {
			wi->age_enabled = true;
			if (ev->age != last_age)
				wi->activated = true;
		}
		if (!wi->activated) {
			wi->next = ev->waiters;
			ev->waiters = wi;
		}
		wi->next_all = ev->all_waiters;
		ev->all_waiters = wi;
	}
	/* a SET from now on finds these waiters */
	sim_events_registered_now();
	if (!r) {
		bool asleep = false;

		for (;;) {
			struct timespec now;

			result = test_condition(w, n, a->wait_for_all != 0);
			if (result != KFD_IOC_WAIT_RESULT_TIMEOUT ||
			    a->timeout == KFDSIM_EVENT_TIMEOUT_IMMEDIATE)
				break;
			/* counted under ev_lock, before the first sleep: a
			 * test that sees it can destroy or signal the event
			 * knowing this wait has registered */
			if (!asleep) {
				asleep = true;
				atomic_fetch_add(&p->sim->blocked_waits, 1);
			}
			if (a->timeout == KFDSIM_EVENT_TIMEOUT_INFINITE) {
				pthread_cond_wait(&p->ev_cv, &p->ev_lock);
				continue;
			}
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec > deadline.tv_sec ||
			    (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec))
				break;
			pthread_cond_timedwait(&p->ev_cv, &p->ev_lock, &deadline);
		}
		if (asleep)
			atomic_fetch_sub(&p->sim->blocked_waits, 1);
		if (result == KFD_IOC_WAIT_RESULT_COMPLETE) {
			r = fill_signaled(w, n, data);
			copy_back = !r;
		}
	}
	unregister_waiters(w, inited);
	pthread_mutex_unlock(&p->ev_lock);
	if (copy_back && sim_copy_to_user(a->events_ptr, data, (size_t)n * sizeof(*data)))
		r = -EFAULT;
out:
	free(w);
	free(data);
	if (r)
		result = KFD_IOC_WAIT_RESULT_FAIL;
	else if (result == KFD_IOC_WAIT_RESULT_FAIL)
		r = -EIO;
	a->wait_result = result;
	return r;
}

static void set_from_interrupt(struct sim_process *p, struct sim_event *ev)
{
	if (!ev || (ev->type != KFD_IOC_EVENT_SIGNAL && ev->type != KFD_IOC_EVENT_DEBUG_EVENT))
		return;
	__atomic_store_n(&p->slots[ev->id], KFDSIM_UNSIGNALED_EVENT_SLOT, __ATOMIC_RELEASE);
	set_event(p, ev);
}

/* kfd_signal_event_interrupt: look up by (partial) id first, else scan. */
void sim_events_interrupt(struct sim_process *p, uint32_t id, unsigned valid_bits)
{
	struct sim_event *ev = NULL;
	unsigned limit;

	pthread_mutex_lock(&p->ev_lock);
	if (!p->slots) {
		pthread_mutex_unlock(&p->ev_lock);
		return;
	}
	limit = slot_limit(p);
	if (valid_bits) {
		if (valid_bits > 31 || (1u << valid_bits) >= KFD_SIGNAL_EVENT_LIMIT) {
			if (id < limit && slot_read(p, id) != KFDSIM_UNSIGNALED_EVENT_SLOT)
				ev = p->sig[id];
		} else {
			for (uint32_t i = id; i < limit && !ev; i += 1u << valid_bits)
				if (slot_read(p, i) != KFDSIM_UNSIGNALED_EVENT_SLOT)
					ev = p->sig[i];
		}
	}
	if (ev) {
		set_from_interrupt(p, ev);
	} else {
		for (unsigned i = 0; i < limit; i++)
			if (p->sig[i] && slot_read(p, i) != KFDSIM_UNSIGNALED_EVENT_SLOT)
				set_from_interrupt(p, p->sig[i]);
	}
	pthread_mutex_unlock(&p->ev_lock);
}

/* kfd_signal_vm_fault_event: every MEMORY event gets the fault data. */
void sim_events_vm_fault(struct sim_process *p, struct sim_gpu *gpu, uint64_t va, bool present,
			 bool write)
{
	struct kfd_hsa_memory_exception_data d;

	memset(&d, 0, sizeof(d));
	d.gpu_id = gpu->gpu_id;
	d.va = va & ~(SIM_PAGE_SIZE - 1);
	d.failure.NotPresent = present ? 0 : 1;
	d.failure.ReadOnly = present && write ? 1 : 0;
	pthread_mutex_lock(&p->ev_lock);
	for (size_t i = 0; i < p->nother; i++) {
		if (p->other[i]->type == KFD_IOC_EVENT_MEMORY) {
			p->other[i]->mem_data = d;
			set_event(p, p->other[i]);
		}
	}
	pthread_mutex_unlock(&p->ev_lock);
	sim_smi_vmfault(p->sim, gpu);
}

/* kfd_signal_reset_event / kfd_signal_hw_exception_event */
void sim_events_hw_exception(struct sim_process *p, struct sim_gpu *gpu, bool reset)
{
	pthread_mutex_lock(&p->ev_lock);
	for (size_t i = 0; i < p->nother; i++) {
		struct sim_event *ev = p->other[i];

		if (ev->type != KFD_IOC_EVENT_HW_EXCEPTION)
			continue;
		if (reset) {
			memset(&ev->hw_data, 0, sizeof(ev->hw_data));
			ev->hw_data.reset_type = KFD_HW_EXCEPTION_WHOLE_GPU_RESET;
			ev->hw_data.reset_cause = KFD_HW_EXCEPTION_GPU_HANG;
			ev->hw_data.memory_lost = 1;
			ev->hw_data.gpu_id = gpu->gpu_id;
		}
		set_event(p, ev);
	}
	pthread_mutex_unlock(&p->ev_lock);
}

void sim_events_cancel_waits(struct sim_process *p)
{
	pthread_mutex_lock(&p->ev_lock);
	for (unsigned i = 0; i < KFD_SIGNAL_EVENT_LIMIT; i++)
		if (p->sig[i])
			event_orphan_waiters(p->sig[i]);
	for (size_t i = 0; i < p->nother; i++)
		event_orphan_waiters(p->other[i]);
	pthread_cond_broadcast(&p->ev_cv);
	pthread_mutex_unlock(&p->ev_lock);
}

void sim_events_release(struct sim_process *p)
{
	for (unsigned i = 0; i < KFD_SIGNAL_EVENT_LIMIT; i++) {
		free(p->sig[i]);
		p->sig[i] = NULL;
	}
	for (size_t i = 0; i < p->nother; i++)
		free(p->other[i]);
	free(p->other);
	p->other = NULL;
	p->nother = 0;
	p->slots = NULL;
	sim_backing_put(p->signal_own, NULL);
	p->signal_own = NULL;
}
