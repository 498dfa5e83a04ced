// SPDX-License-Identifier: MIT
/*
 * vkfd backend: events and waits. CREATE/DESTROY/SET/RESET_EVENT,
 * WAIT_EVENTS with the zero-timeout polls answered from the shared event
 * table when that is safe (docs/guest-vkfd-backend.md, "Events"), and the
 * SMI event clients fed by the VM faults those waits report.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "backend_vkfd_internal.h"

int bk_ioctl_create_event(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_create_event_args *a = arg;
	struct vkfd_req_create_event req;
	struct vkfd_rsp_create_event rsp;
	struct bk_bo *page = NULL;
	int r;

	(void)usize;
	memset(&req, 0, sizeof(req));
	if (a->event_page_offset) {
		/* dGPU: the handle of the guest's event-page BO */
		bk_table_lock();
		page = bk_bo_find_locked(c, a->event_page_offset);
		bk_table_unlock();
		if (!page)
			return -EINVAL;
		req.event_page = a->event_page_offset;
	}
	req.event_type = a->event_type;
	req.auto_reset = a->auto_reset ? 1 : 0;
	req.node_id = a->node_id;
	r = bk_call(c, VKFD_CMD_CREATE_EVENT, &req, sizeof(req), &rsp, sizeof(rsp));
	if (r)
		return r;
	if (page) {
		bk_table_lock();
		page = bk_bo_find_locked(c, req.event_page);
		if (page)
			page->event_page = true;
		bk_table_unlock();
	}
	a->event_id = rsp.event_id;
	a->event_slot_index = rsp.event_slot_index;
	a->event_trigger_data = rsp.event_trigger_data;
	if (a->event_type == KFD_IOC_EVENT_SIGNAL || a->event_type == KFD_IOC_EVENT_DEBUG_EVENT)
		a->event_page_offset = VKFD_KFD_MMAP_TYPE_EVENTS;
	if (rsp.event_id < KFD_SIGNAL_EVENT_LIMIT) {
		bk_ev_lock(c);
		memset(&c->ev[rsp.event_id], 0, sizeof(c->ev[0]));
		c->ev[rsp.event_id].exists = true;
		c->ev[rsp.event_id].type = (uint8_t)a->event_type;
		bk_ev_unlock(c);
	}
	return 0;
}

static void bk_ev_touch(struct bk_conn *c, uint32_t id)
{
	if (id < KFD_SIGNAL_EVENT_LIMIT) {
		bk_ev_lock(c);
		c->ev[id].quiet = false;
		bk_ev_unlock(c);
	}
}

/* DESTROY, SET and RESET_EVENT: the same one-id argument. */
static int bk_event_cmd(struct bk_conn *c, uint32_t event_id, uint32_t cmd)
{
	struct vkfd_req_event req;
	struct vkfd_rsp_empty rsp;
	uint32_t acmd = 0;
	int r;

	memset(&req, 0, sizeof(req));
	req.event_id = event_id;
	bk_ev_touch(c, event_id);
	if (cmd != VKFD_CMD_DESTROY_EVENT) {
		/* ROCr sets an event on every store to an interrupt signal:
		 * SET/RESET are valid exactly for this process's signal
		 * events (the kernel's rule), which we know, so they go out
		 * asynchronously, batched with the next call. */
		bool sig;

		if (event_id >= KFD_SIGNAL_EVENT_LIMIT)
			return -EINVAL;
		bk_ev_lock(c);
		sig = c->ev[event_id].exists && c->ev[event_id].type == KFD_IOC_EVENT_SIGNAL;
		bk_ev_unlock(c);
		if (!sig)
			return -EINVAL;
		acmd = cmd == VKFD_CMD_SET_EVENT ? VKFD_CMD_SET_EVENT_ASYNC
						 : VKFD_CMD_RESET_EVENT_ASYNC;
		r = bk_call_async(c, acmd, &req, sizeof(req));
		/* Sent now only when a thread of this process is blocked in a
		 * WAIT_EVENTS on the host, which this SET may end; else it
		 * rides with the next request (or the ~1 ms flush). Nothing
		 * else can observe it earlier: KFD events belong to one
		 * process; a WAIT_EVENTS started later is a synchronous call
		 * whose batch carries this SET ahead of it (stream order);
		 * a zero-timeout poll is not answered locally for an event
		 * touched above (bk_ev_touch). The counter is raised before
		 * the waiter's batch is built and read here after this SET
		 * was queued (both seq_cst): a waiter this load misses builds
		 * its batch after the SET was queued, so carries it. */
		if (!r &&
		    (c->set_flush_always || __atomic_load_n(&c->n_host_waits, __ATOMIC_SEQ_CST)) &&
		    vkfd_guest_flush(c->g))
			r = -EIO;
		return r;
	}
	r = bk_call(c, cmd, &req, sizeof(req), &rsp, sizeof(rsp));
	if (!r && event_id < KFD_SIGNAL_EVENT_LIMIT) {
		bk_ev_lock(c);
		c->ev[event_id].exists = false;
		bk_ev_unlock(c);
	}
	return r;
}

int bk_ioctl_destroy_event(struct bk_conn *c, void *arg, uint32_t usize)
{
	const struct kfd_ioctl_destroy_event_args *a = arg;

	(void)usize;
	return bk_event_cmd(c, a->event_id, VKFD_CMD_DESTROY_EVENT);
}

int bk_ioctl_set_event(struct bk_conn *c, void *arg, uint32_t usize)
{
	const struct kfd_ioctl_set_event_args *a = arg;

	(void)usize;
	return bk_event_cmd(c, a->event_id, VKFD_CMD_SET_EVENT);
}

int bk_ioctl_reset_event(struct bk_conn *c, void *arg, uint32_t usize)
{
	const struct kfd_ioctl_reset_event_args *a = arg;

	(void)usize;
	return bk_event_cmd(c, a->event_id, VKFD_CMD_RESET_EVENT);
}

/* The host keeps the table current only while it sets the flag. */
static bool bk_hints_on(struct bk_conn *c)
{
	size_t size = 0;
	const volatile struct vkfd_shmem_hdr *h = vkfd_guest_shmem(c->g, &size);

	if (!h || size < sizeof(*h))
		return false;
	return __atomic_load_n(&h->flags, __ATOMIC_ACQUIRE) & VKFD_SHMEM_FLAG_EVENT_HINTS;
}

/* Zero-timeout poll answered from the shmem event-state table: only
 * TIMEOUT is ever answered locally, and only when the host's last real
 * answer for every event was TIMEOUT and the table has not moved since
 * (so the host has learnt of no signal), and the guest's own
 * last_event_age (KFD >= 1.14) matches the last age the host reported. */
static bool bk_wait_local(struct bk_conn *c, const struct kfd_ioctl_wait_events_args *a,
			  const struct vkfd_kfd_event_data *ev)
{
	const volatile uint64_t *table;
	uint32_t count = 0;
	bool ok = true;

	if (a->timeout != 0 || a->num_events == 0)
		return false;
	if (!(c->features & VKFD_FEAT_EVENT_HINTS) || !bk_hints_on(c))
		return false;
	table = (const volatile uint64_t *)vkfd_guest_event_table(c->g, &count);
	if (!table)
		return false;
	bk_ev_lock(c);
	if (c->local_answers >= VKFD_EVENT_HINT_MAX_LOCAL) {
		ok = false;
	} else {
		for (uint32_t i = 0; ok && i < a->num_events; i++) {
			uint32_t id = ev[i].event_id;
			uint64_t last, cur;

			last = ev[i].last_event_age;
			/* slot 0 too: the kernel hands it out (idr from 0)
			 * and the host keeps its entry; a TIMEOUT is never a
			 * false signal, and staleness is bounded below */
			if (id >= KFD_SIGNAL_EVENT_LIMIT || id >= count) {
				ok = false;
				break;
			}
			cur = __atomic_load_n(&table[id], __ATOMIC_ACQUIRE);
			/* unchanged since the host said TIMEOUT: either the
			 * table value we saw before asking, or the age the
			 * host returned (which it also stores there) */
			if (!c->ev[id].quiet ||
			    (cur != c->ev[id].table_seen &&
			     (!c->ev[id].age || cur != c->ev[id].age)) ||
			    (last && last != c->ev[id].age))
				ok = false;
		}
	}
	if (ok)
		c->local_answers++;
	else
		c->local_answers = 0;
	bk_ev_unlock(c);
	return ok;
}

static void bk_smi_vmfault_locked(struct bk_conn *c, uint32_t gpu_id);

int bk_ioctl_wait_events(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_wait_events_args *a = arg;
	struct vkfd_kfd_event_data ev[VKFD_MAX_WAIT_EVENTS];
	struct vkfd_req_wait_events *req = NULL;
	struct vkfd_rsp_wait_events *rsp = NULL;
	const volatile uint64_t *table;
	uint64_t snap[VKFD_MAX_WAIT_EVENTS];
	uint32_t n = a->num_events, count = 0;
	int r;

	(void)usize;
	if (n == 0 || n > VKFD_MAX_WAIT_EVENTS)
		return -EINVAL;
	r = bk_read_user(ev, a->events_ptr, n * sizeof(ev[0]));
	if (r)
		return r;
	if (bk_wait_local(c, a, ev)) {
		if (bk_debug > 0)
			bk_log("wait: answered locally (TIMEOUT)");
		a->wait_result = KFD_IOC_WAIT_RESULT_TIMEOUT;
		return 0;
	}
	req = calloc(1, sizeof(*req));
	rsp = calloc(1, sizeof(*rsp));
	if (!req || !rsp) {
		r = -ENOMEM;
		goto out;
	}
	/* table snapshot before the host looks: a signal after it moves the
	 * table, one before it makes the host answer COMPLETE */
	table = (const volatile uint64_t *)vkfd_guest_event_table(c->g, &count);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = ev[i].event_id;

		req->events[i].event_id = id;
		req->events[i].last_event_age = ev[i].last_event_age;
		snap[i] = table && id < count ? __atomic_load_n(&table[id], __ATOMIC_ACQUIRE) : 0;
	}
	req->num_events = n;
	req->wait_for_all = a->wait_for_all ? 1 : 0;
	req->timeout_ms = a->timeout;
	req->hdr.cmd = VKFD_CMD_WAIT_EVENTS;
	req->hdr.len = VKFD_REQ_WAIT_EVENTS_LEN(n);
	bk_stats_count(&bk_stats.waits);
	__atomic_fetch_add(&c->n_host_waits, 1, __ATOMIC_SEQ_CST);
	r = vkfd_guest_call_wait(c->g, req, req->hdr.len, rsp, VKFD_RSP_WAIT_EVENTS_LEN(n));
	__atomic_fetch_sub(&c->n_host_waits, 1, __ATOMIC_SEQ_CST);
	if (r) {
		r = bk_transport_err(r);
		goto out;
	}
	r = bk_errno(rsp->hdr.ret);
	if (r)
		goto out;
	a->wait_result = rsp->wait_result;
	bk_ev_lock(c);
	for (uint32_t i = 0; i < n; i++) {
		uint32_t id = ev[i].event_id;
		const struct vkfd_event_data *d = &rsp->events[i];

		if (id < KFD_SIGNAL_EVENT_LIMIT) {
			c->ev[id].quiet = rsp->wait_result == KFD_IOC_WAIT_RESULT_TIMEOUT;
			c->ev[id].table_seen = snap[i];
			if (d->event_age)
				c->ev[id].age = d->event_age;
		}
		if (rsp->wait_result != KFD_IOC_WAIT_RESULT_COMPLETE || i >= rsp->num_events ||
		    d->event_id != id)
			continue;
		/* the kernel copies data back only for fired events */
		if (d->kind == VKFD_EVENT_DATA_MEMORY) {
			struct kfd_hsa_memory_exception_data *m = &ev[i].memory_exception_data;

			memset(m, 0, sizeof(*m));
			m->failure.NotPresent = d->not_present;
			m->failure.ReadOnly = d->read_only;
			m->failure.NoExecute = d->no_execute;
			m->failure.imprecise = d->imprecise;
			m->va = d->va;
			m->gpu_id = d->gpu_id;
			m->ErrorType = d->error_type;
			bk_smi_vmfault_locked(c, d->gpu_id);
		} else if (d->kind == VKFD_EVENT_DATA_HW) {
			struct kfd_hsa_hw_exception_data *hw = &ev[i].hw_exception_data;

			memset(hw, 0, sizeof(*hw));
			hw->reset_type = d->reset_type;
			hw->reset_cause = d->reset_cause;
			hw->memory_lost = d->memory_lost;
			hw->gpu_id = d->gpu_id;
		} else if (ev[i].last_event_age && d->event_age) {
			ev[i].last_event_age = d->event_age;
		}
	}
	bk_ev_unlock(c);
	if (rsp->wait_result == KFD_IOC_WAIT_RESULT_COMPLETE)
		r = bk_write_user(a->events_ptr, ev, n * sizeof(ev[0]));
out:
	free(req);
	free(rsp);
	return r;
}

/* SMI_EVENTS (KFD 1.3), answered in the guest: the host's SMI events
 * describe the host's KFD processes and are never forwarded. The client
 * fd is one end of a non-blocking stream socketpair (as kfdsim's, see
 * docs/kfdsim.md): the application writes its 8-byte event mask and reads
 * text records without waiting. The records are the VM faults of this
 * process, which reach the guest with the memory exception data of
 * WAIT_EVENTS (ROCr's event thread waits on them): "1 pid:comm". Faults
 * of other processes and host-side events (throttling, resets) are not
 * seen (docs/kfd-uapi.md). */
int bk_ioctl_smi_events(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_smi_events_args *a = arg;
	struct bk_smi *s;
	int gi, sv[2];

	(void)usize;
	bk_table_lock();
	gi = bk_gpu_index_locked(a->gpuid);
	bk_table_unlock();
	if (gi < 0)
		return -EINVAL;
	s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		free(s);
		return -errno;
	}
	fcntl(sv[0], F_SETFL, O_NONBLOCK | O_RDWR);
	fcntl(sv[1], F_SETFL, O_NONBLOCK);
	s->fd = sv[1];
	s->gpu_id = a->gpuid;
	bk_ev_lock(c);
	s->next = c->smi;
	c->smi = s;
	bk_ev_unlock(c);
	a->anon_fd = (uint32_t)sv[0];
	return 0;
}

/* A VM fault on gpu_id: one record to each client of that GPU that asked
 * for VMFAULT; clients that closed their fd are dropped. ev_lock held. */
static void bk_smi_vmfault_locked(struct bk_conn *c, uint32_t gpu_id)
{
	char comm[17] = {0}, msg[96];
	struct bk_smi **pp = &c->smi;
	int len;

	BK_ASSERT_EV_LOCKED(c);
	if (!c->smi)
		return;
	prctl(PR_GET_NAME, comm);
	len = snprintf(msg, sizeof(msg), "1 %x:%s\n", (unsigned)getpid(), comm);
	if (len < 0 || len >= (int)sizeof(msg))
		len = (int)sizeof(msg) - 1;
	while (*pp) {
		struct bk_smi *s = *pp;
		uint64_t buf[16];
		ssize_t n;

		while ((n = recv(s->fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
			if (n >= (ssize_t)sizeof(uint64_t))
				s->events = buf[n / 8 - 1];
		if (n == 0) { /* the application closed its end */
			*pp = s->next;
			close(s->fd);
			free(s);
			continue;
		}
		if (s->gpu_id == gpu_id && (s->events & 1u))
			(void)send(s->fd, msg, (size_t)len, MSG_DONTWAIT | MSG_NOSIGNAL);
		pp = &s->next;
	}
}
