// SPDX-License-Identifier: MIT
/*
 * AMDKFD_IOC_DBG_TRAP (KFD 1.13), the debugger API, as kfd_chardev.c and
 * kfd_debug.c answer it, and the RUNTIME_ENABLE side of the handshake.
 *
 * Targets: the kernel looks the pid up among its KFD processes. All of a
 * kfdsim's processes live in the calling OS process, and a process cannot
 * ptrace itself, so the only process a caller can debug is its own: the
 * pid must be getpid() (the kernel's "target == p" case, which needs no
 * ptrace rights). Any other pid has no KFD process in this kfdsim: -ESRCH,
 * the kernel's answer for a pid without one. So one kfdsim process (one
 * host context) never reaches another's queues or devices.
 *
 * Hardware state kfdsim models: debug enablement, the exception masks and
 * raised exceptions per queue, device and process, queue suspension (a
 * suspended queue's engine is parked), address watch ids (4 per device, as
 * the topology's watch-point count says), wave launch mode and trap
 * override (recorded; the engines run no shader traps), and the debug
 * flags. Notifications are the kernel's: one byte written to the dbg_fd
 * given at enable when an enabled exception is raised.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kfd_dbg_trap.h"
#include "sim_priv.h"

#define SIM_MAX_WATCH_POINTS    4u /* HSA_CAP_WATCH_POINTS_TOTALBITS = 2 */
#define HSA_CAP_PRECISE_MEM_OPS 0x00040000u
/* gfx9/gfx10 trap override support (validate_trap_override_request). */
#define SIM_TRAP_MASK_SUPPORTED 0x1ffu

/* Notify the debugger: one byte to its fd, as kfd_dbg_ev_raise writes one.
 * A full pipe already holds an unread notification; a regular file (like
 * kfdsim's own memfd-backed /dev/kfd) is not written, as the kernel's
 * /dev/kfd has no write method. Called with p->lock held. */
static void notify_debugger(struct sim_process *p)
{
	struct pollfd pfd = {.fd = p->dbg_ev_fd, .events = POLLOUT};
	struct stat st;
	ssize_t w;

	if (p->dbg_ev_fd < 0 || fstat(p->dbg_ev_fd, &st) || S_ISREG(st.st_mode))
		return;
	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLOUT)) {
		w = write(p->dbg_ev_fd, ".", 1);
		(void)w; /* an eventfd refuses 1-byte writes, as in the kernel */
	}
}

/* Raise exceptions on a queue (queue_id valid), a device (pdd) or the
 * process; notify when the debugger enabled one of them. p->lock held. */
static void raise_locked(struct sim_process *p, uint64_t mask, struct sim_pdd *pdd, uint32_t qid)
{
	if (mask & VKFD_EC_MASK_QUEUE) {
		pthread_mutex_lock(&p->q_lock);
		if (qid < SIM_MAX_QUEUES && p->queues[qid])
			p->queues[qid]->exception_status |= mask & VKFD_EC_MASK_QUEUE;
		pthread_mutex_unlock(&p->q_lock);
	}
	if (pdd)
		pdd->exception_status |= mask & VKFD_EC_MASK_DEVICE;
	p->exception_status |= mask & VKFD_EC_MASK_PROCESS;
	if (p->exception_enable_mask & mask)
		notify_debugger(p);
}

void sim_debug_queue_new(struct sim_process *p, uint32_t qid)
{
	if (p->debug_trap_enabled)
		raise_locked(p, VKFD_EC_MASK(VKFD_EC_QUEUE_NEW), NULL, qid);
}

static struct sim_queue *queue_by_id(struct sim_process *p, uint32_t qid)
{
	return qid < SIM_MAX_QUEUES ? p->queues[qid] : NULL;
}

/* Suspend or resume one queue: 0, or the status bits to report. */
static uint32_t set_suspended(struct sim_process *p, uint32_t qid, bool suspend,
			      uint64_t clear_mask)
{
	struct sim_queue *q = queue_by_id(p, qid);

	if (!q)
		return VKFD_DBG_QUEUE_INVALID_MASK;
	if (suspend) {
		/* suspend_single_queue: an already suspended queue counts; a
		 * queue still flagged EC_QUEUE_NEW is skipped (the clear mask
		 * applies only to queues that were suspended) */
		if (!q->suspended && (q->exception_status & VKFD_EC_MASK(VKFD_EC_QUEUE_NEW)))
			return VKFD_DBG_QUEUE_INVALID_MASK;
		pthread_mutex_lock(&p->q_lock);
		q->exception_status &= ~clear_mask;
		q->suspended = true;
		pthread_mutex_unlock(&p->q_lock);
	} else {
		if (!q->suspended)
			return VKFD_DBG_QUEUE_INVALID_MASK;
		pthread_mutex_lock(&p->q_lock);
		q->suspended = false;
		pthread_mutex_unlock(&p->q_lock);
	}
	sim_queue_refresh_active(q);
	return 0;
}

/* Both ops: read the id array, act on each id, write the statuses back
 * into the same array; the count of queues acted on is the return. */
static int suspend_resume(struct sim_process *p, uint64_t ptr, uint32_t n, bool suspend,
			  uint64_t clear_mask)
{
	uint32_t *ids;
	int done = 0;

	/* the kernel duplicates the array (memdup_user): a bad pointer is
	 * -EFAULT, an array it cannot allocate -ENOMEM */
	if (n > (1u << 20))
		return -ENOMEM;
	if (!n)
		return 0;
	ids = calloc(n, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	if (sim_copy_from_user(ids, ptr, n * sizeof(*ids))) {
		free(ids);
		return -EFAULT;
	}
	for (uint32_t i = 0; i < n; i++) {
		uint32_t st = set_suspended(p, ids[i], suspend, clear_mask);

		if (!st)
			done++;
		ids[i] |= st;
	}
	if (!suspend)
		pthread_cond_broadcast(&p->dbg_cv); /* destroy waits for resumes */
	if (sim_copy_to_user(ptr, ids, n * sizeof(*ids)))
		done = -EFAULT;
	free(ids);
	return done;
}

static void resume_all(struct sim_process *p)
{
	for (uint32_t i = 0; i < SIM_MAX_QUEUES; i++)
		if (p->queues[i] && p->queues[i]->suspended)
			set_suspended(p, i, false, 0);
	pthread_cond_broadcast(&p->dbg_cv);
}

/* kfd_dbg_trap_deactivate: hardware debug state back to normal. */
static void deactivate(struct sim_process *p)
{
	for (unsigned i = 0; i < p->sim->ngpus; i++)
		p->pdd[i].watch_ids = 0;
	p->launch_mode = VKFD_DBG_TRAP_WAVE_LAUNCH_MODE_NORMAL;
	p->trap_override_mask = 0;
	p->dbg_flags = 0;
	resume_all(p);
}

static int op_enable(struct sim_process *p, struct vkfd_kfd_dbg_trap_args *a)
{
	struct vkfd_kfd_runtime_info ri = {0};
	uint32_t size = a->enable.rinfo_size < sizeof(ri) ? a->enable.rinfo_size : sizeof(ri);
	int fd;

	if (p->debug_trap_enabled)
		return -EALREADY;
	/* the kernel's pre-checks (a pre-SOC15 GPU, GWS without debugger GWS
	 * support) never fail on gfx90a and gfx1030 */
	if ((int32_t)a->enable.dbg_fd < 0 || fcntl((int)a->enable.dbg_fd, F_GETFD) < 0)
		return -EBADF;
	fd = fcntl((int)a->enable.dbg_fd, F_DUPFD_CLOEXEC, 0); /* fget: keep it */
	if (fd < 0)
		return -EBADF;
	p->dbg_ev_fd = fd;
	p->debug_trap_enabled = true;
	ri.r_debug = p->r_debug;
	ri.runtime_state = p->runtime_enabled ? VKFD_DEBUG_RUNTIME_STATE_ENABLED
					      : VKFD_DEBUG_RUNTIME_STATE_DISABLED;
	ri.ttmp_setup = p->ttmp_setup;
	if (sim_copy_to_user(a->enable.rinfo_ptr, &ri, size)) {
		/* the session stays enabled; only the hardware is deactivated */
		deactivate(p);
		a->enable.rinfo_size = sizeof(ri);
		return -EFAULT;
	}
	a->enable.rinfo_size = sizeof(ri);
	p->exception_enable_mask = a->enable.exception_mask;
	return 0;
}

static void clear_exceptions(struct sim_process *p)
{
	p->exception_status = 0;
	for (unsigned i = 0; i < p->sim->ngpus; i++)
		p->pdd[i].exception_status = 0;
	pthread_mutex_lock(&p->q_lock);
	for (uint32_t i = 0; i < SIM_MAX_QUEUES; i++)
		if (p->queues[i])
			p->queues[i]->exception_status = 0;
	pthread_mutex_unlock(&p->q_lock);
}

static int op_disable(struct sim_process *p)
{
	deactivate(p);
	/* a RUNTIME_ENABLE still waiting for this debugger is let go */
	p->runtime_unblock = true;
	pthread_cond_broadcast(&p->dbg_cv);
	if (p->dbg_ev_fd >= 0)
		close(p->dbg_ev_fd);
	p->dbg_ev_fd = -1;
	p->debug_trap_enabled = false;
	p->exception_enable_mask = 0;
	clear_exceptions(p);
	return 0;
}

static int op_send_runtime_event(struct sim_process *p, struct vkfd_kfd_dbg_trap_args *a)
{
	uint64_t mask = a->send_runtime_event.exception_mask;

	if (mask & VKFD_EC_MASK(VKFD_EC_DEVICE_MEMORY_VIOLATION)) {
		if (!sim_pdd_by_id(p, a->send_runtime_event.gpu_id))
			return -ENODEV;
		mask &= ~VKFD_EC_MASK(VKFD_EC_DEVICE_MEMORY_VIOLATION);
	}
	if (mask & VKFD_EC_MASK(VKFD_EC_PROCESS_RUNTIME)) {
		p->runtime_unblock = true; /* the pending RUNTIME_ENABLE returns */
		pthread_cond_broadcast(&p->dbg_cv);
		mask &= ~VKFD_EC_MASK(VKFD_EC_PROCESS_RUNTIME);
	}
	/* other exceptions go to the runtime through the queue's context save
	 * area header; kfdsim's queues have none (CWSR off), so only the queue
	 * is checked */
	if (mask && !queue_by_id(p, a->send_runtime_event.queue_id))
		return -EINVAL;
	return 0;
}

static int op_query_debug_event(struct sim_process *p, struct vkfd_kfd_dbg_trap_args *a)
{
	uint64_t clear = a->query_debug_event.exception_mask;
	uint64_t st = 0;
	uint32_t qid = 0, gpu = 0;

	pthread_mutex_lock(&p->q_lock);
	for (uint32_t i = 0; i < SIM_MAX_QUEUES && !st; i++) {
		struct sim_queue *q = p->queues[i];

		if (!q || !(q->exception_status & p->exception_enable_mask))
			continue;
		st = q->exception_status;
		qid = q->id;
		gpu = q->pdd->gpu->gpu_id;
		q->exception_status &= ~clear;
	}
	pthread_mutex_unlock(&p->q_lock);
	for (unsigned i = 0; i < p->sim->ngpus && !st; i++) {
		struct sim_pdd *pdd = &p->pdd[i];

		if (!(pdd->exception_status & p->exception_enable_mask))
			continue;
		st = pdd->exception_status;
		gpu = pdd->gpu->gpu_id;
		pdd->exception_status &= ~clear;
	}
	if (!st && (p->exception_status & p->exception_enable_mask)) {
		st = p->exception_status;
		p->exception_status &= ~clear;
	}
	a->query_debug_event.exception_mask = st;
	a->query_debug_event.queue_id = qid;
	a->query_debug_event.gpu_id = gpu;
	return st ? 0 : -EAGAIN;
}

static int op_query_exception_info(struct sim_process *p, struct vkfd_kfd_dbg_trap_args *a)
{
	uint32_t ec = a->query_exception_info.exception_code;
	uint64_t bit;
	uint32_t size = 0;
	int r = 0;

	if (ec == 0 || ec >= VKFD_EC_MAX)
		return -EINVAL;
	bit = VKFD_EC_MASK(ec);
	if (bit & VKFD_EC_MASK_QUEUE) {
		struct sim_queue *q = queue_by_id(p, a->query_exception_info.source_id);

		if (!q)
			return -EINVAL;
		if (!(q->exception_status & bit))
			return -ENODATA;
		if (a->query_exception_info.clear_exception)
			q->exception_status &= ~bit;
	} else if (bit & VKFD_EC_MASK_DEVICE) {
		struct sim_pdd *pdd = sim_pdd_by_id(p, a->query_exception_info.source_id);

		if (!pdd)
			return -EINVAL;
		if (!(pdd->exception_status & bit))
			return -ENODATA;
		/* no memory-violation payload is kept: kfdsim raises none */
		if (a->query_exception_info.clear_exception)
			pdd->exception_status &= ~bit;
	} else {
		struct vkfd_kfd_runtime_info ri = {
		    .r_debug = p->r_debug,
		    .runtime_state = p->runtime_enabled ? VKFD_DEBUG_RUNTIME_STATE_ENABLED
							: VKFD_DEBUG_RUNTIME_STATE_DISABLED,
		    .ttmp_setup = p->ttmp_setup,
		};

		if (!(p->exception_status & bit))
			return -ENODATA;
		if (bit == VKFD_EC_MASK(VKFD_EC_PROCESS_RUNTIME)) {
			size = a->query_exception_info.info_size < sizeof(ri)
				   ? a->query_exception_info.info_size
				   : (uint32_t)sizeof(ri);
			if (sim_copy_to_user(a->query_exception_info.info_ptr, &ri, size))
				r = -EFAULT;
			size = sizeof(ri);
		}
		if (!r && a->query_exception_info.clear_exception)
			p->exception_status &= ~bit;
	}
	a->query_exception_info.info_size = size;
	return r;
}

static int op_queue_snapshot(struct sim_process *p, struct vkfd_kfd_dbg_trap_args *a)
{
	uint32_t stride = a->queue_snapshot.entry_size, room = a->queue_snapshot.num_queues;
	uint32_t copy, n = 0;
	uint64_t buf = a->queue_snapshot.snapshot_buf_ptr;
	int r = 0;

	a->queue_snapshot.num_queues = 0;
	if (!stride)
		return -EINVAL;
	copy = stride < sizeof(struct vkfd_kfd_queue_snapshot_entry)
		   ? stride
		   : (uint32_t)sizeof(struct vkfd_kfd_queue_snapshot_entry);
	a->queue_snapshot.entry_size = copy;
	for (uint32_t i = 0; i < SIM_MAX_QUEUES; i++) {
		struct sim_queue *q = p->queues[i];
		struct vkfd_kfd_queue_snapshot_entry e = {0};

		if (!q)
			continue;
		if (n < room) {
			pthread_mutex_lock(&p->q_lock);
			e.exception_status = q->exception_status;
			q->exception_status &= ~a->queue_snapshot.exception_mask;
			pthread_mutex_unlock(&p->q_lock);
			e.ring_base_address = q->ring;
			e.write_pointer_address = q->wptr;
			e.read_pointer_address = q->rptr;
			e.queue_id = q->id;
			e.gpu_id = q->pdd->gpu->gpu_id;
			e.ring_size = (uint32_t)q->ring_size;
			e.queue_type = q->type;
			/* no context save area: CWSR is off */
			if (sim_copy_to_user(buf + (uint64_t)n * stride, &e, copy)) {
				r = -EFAULT;
				break;
			}
		}
		n++;
	}
	a->queue_snapshot.num_queues = n;
	return r;
}

static int op_device_snapshot(struct sim_process *p, struct vkfd_kfd_dbg_trap_args *a)
{
	uint32_t stride = a->device_snapshot.entry_size;
	uint32_t n = a->device_snapshot.num_devices;
	uint32_t copy;
	uint64_t buf = a->device_snapshot.snapshot_buf_ptr;
	struct kfd_process_device_apertures ap;

	if (!buf || !n || !stride)
		return -EINVAL;
	if (n > p->sim->ngpus)
		n = p->sim->ngpus;
	a->device_snapshot.num_devices = p->sim->ngpus;
	copy = stride < sizeof(struct vkfd_kfd_dbg_device_info_entry)
		   ? stride
		   : (uint32_t)sizeof(struct vkfd_kfd_dbg_device_info_entry);
	a->device_snapshot.entry_size = copy;
	for (uint32_t i = 0; i < n; i++) {
		struct sim_pdd *pdd = &p->pdd[i];
		const struct sim_target *t = pdd->gpu->t;
		struct vkfd_kfd_dbg_device_info_entry e = {0};

		sim_fill_apertures(p, pdd, &ap);
		e.exception_status = pdd->exception_status;
		e.lds_base = ap.lds_base;
		e.lds_limit = ap.lds_limit;
		e.scratch_base = ap.scratch_base;
		e.scratch_limit = ap.scratch_limit;
		e.gpuvm_base = ap.gpuvm_base;
		e.gpuvm_limit = ap.gpuvm_limit;
		e.gpu_id = pdd->gpu->gpu_id;
		e.location_id = pdd->gpu->location_id;
		e.vendor_id = 0x1002;
		e.device_id = t->device_id;
		e.revision_id = 0;
		e.subsystem_vendor_id = 0;
		e.subsystem_device_id = 0;
		e.fw_version = t->fw_version;
		e.gfx_target_version = t->gfx_target_version;
		e.simd_count = t->cu_count * t->simd_per_cu;
		e.max_waves_per_simd = t->max_waves_per_simd;
		e.array_count = t->array_count;
		e.simd_arrays_per_engine = t->simd_arrays_per_engine;
		e.num_xcc = 1;
		e.capability = sim_topology_capability(t, p->sim->cfg.kfd_minor);
		e.debug_prop = (uint32_t)sim_topology_debug_prop(t, p->sim->cfg.kfd_minor);
		pdd->exception_status &= ~a->device_snapshot.exception_mask;
		if (sim_copy_to_user(buf + (uint64_t)i * stride, &e, copy))
			return -EFAULT;
	}
	return 0;
}

static int op_set_watch(struct sim_process *p, struct sim_pdd *pdd,
			struct vkfd_kfd_dbg_trap_args *a)
{
	(void)p;
	if (a->set_node_address_watch.mode > VKFD_DBG_TRAP_ADDRESS_WATCH_MODE_ALL)
		return -EINVAL;
	for (uint32_t id = 0; id < SIM_MAX_WATCH_POINTS; id++) {
		if (pdd->watch_ids & (1u << id))
			continue;
		pdd->watch_ids |= 1u << id;
		pdd->watch_addr[id] = a->set_node_address_watch.address;
		a->set_node_address_watch.id = id;
		return 0;
	}
	return -ENOMEM;
}

static int op_clear_watch(struct sim_pdd *pdd, uint32_t id)
{
	if (id >= SIM_MAX_WATCH_POINTS || !(pdd->watch_ids & (1u << id)))
		return -EINVAL;
	pdd->watch_ids &= ~(1u << id);
	pdd->watch_addr[id] = 0;
	return 0;
}

static int op_launch_override(struct sim_process *p, struct vkfd_kfd_dbg_trap_args *a)
{
	uint32_t mode = a->launch_override.override_mode;
	uint32_t want = a->launch_override.enable_mask;
	uint32_t req = a->launch_override.support_request_mask;
	uint32_t prev = p->trap_override_mask;

	if (mode != VKFD_DBG_TRAP_OVERRIDE_OR && mode != VKFD_DBG_TRAP_OVERRIDE_REPLACE)
		return -EINVAL;
	a->launch_override.support_request_mask = SIM_TRAP_MASK_SUPPORTED;
	if (want & ~SIM_TRAP_MASK_SUPPORTED)
		return -EACCES;
	p->trap_override_mask =
	    mode == VKFD_DBG_TRAP_OVERRIDE_OR ? prev | (want & req) : (prev & ~req) | (want & req);
	a->launch_override.enable_mask = prev;
	return 0;
}

static int op_launch_mode(struct sim_process *p, uint32_t mode)
{
	if (mode != VKFD_DBG_TRAP_WAVE_LAUNCH_MODE_NORMAL &&
	    mode != VKFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT &&
	    mode != VKFD_DBG_TRAP_WAVE_LAUNCH_MODE_DEBUG)
		return -EINVAL;
	p->launch_mode = mode;
	return 0;
}

static int op_set_flags(struct sim_process *p, struct vkfd_kfd_dbg_trap_args *a)
{
	uint32_t prev = p->dbg_flags;

	if (a->set_flags.flags & ~VKFD_DBG_TRAP_FLAG_SINGLE_MEM_OP) {
		a->set_flags.flags = prev;
		return -EINVAL;
	}
	for (unsigned i = 0; i < p->sim->ngpus; i++) {
		uint32_t caps = sim_topology_capability(p->pdd[i].gpu->t, p->sim->cfg.kfd_minor);

		if ((a->set_flags.flags & VKFD_DBG_TRAP_FLAG_SINGLE_MEM_OP) &&
		    !(caps & HSA_CAP_PRECISE_MEM_OPS)) {
			a->set_flags.flags = prev;
			return -EACCES;
		}
	}
	p->dbg_flags = a->set_flags.flags;
	a->set_flags.flags = prev;
	return 0;
}

static bool is_hw_op(uint32_t op)
{
	return (op >= VKFD_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE &&
		op <= VKFD_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH) ||
	       op == VKFD_DBG_TRAP_SET_FLAGS;
}

int sim_ioctl_dbg_trap(struct sim_process *p, void *args)
{
	struct vkfd_kfd_dbg_trap_args *a = args;
	struct sim_pdd *pdd = NULL;
	int r;

	if (p->secondary)
		return -EOPNOTSUPP;
	/* the only KFD process this caller can reach (see the top) */
	if (a->pid != (uint32_t)getpid())
		return -ESRCH;
	pthread_mutex_lock(&p->lock);
	if (a->op != VKFD_DBG_TRAP_ENABLE && !p->debug_trap_enabled) {
		r = -EINVAL;
		goto out;
	}
	if (is_hw_op(a->op) && !p->runtime_enabled) {
		r = -EPERM;
		goto out;
	}
	if (a->op == VKFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH ||
	    a->op == VKFD_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH) {
		pdd = sim_pdd_by_id(p, a->op == VKFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH
					   ? a->set_node_address_watch.gpu_id
					   : a->clear_node_address_watch.gpu_id);
		if (!pdd) {
			r = -ENODEV;
			goto out;
		}
	}
	switch (a->op) {
	case VKFD_DBG_TRAP_ENABLE:
		r = op_enable(p, a);
		break;
	case VKFD_DBG_TRAP_DISABLE:
		r = op_disable(p);
		break;
	case VKFD_DBG_TRAP_SEND_RUNTIME_EVENT:
		r = op_send_runtime_event(p, a);
		break;
	case VKFD_DBG_TRAP_SET_EXCEPTIONS_ENABLED:
		p->exception_enable_mask = a->set_exceptions_enabled.exception_mask;
		r = 0;
		break;
	case VKFD_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE:
		r = op_launch_override(p, a);
		break;
	case VKFD_DBG_TRAP_SET_WAVE_LAUNCH_MODE:
		r = op_launch_mode(p, a->launch_mode.launch_mode);
		break;
	case VKFD_DBG_TRAP_SUSPEND_QUEUES:
		r = suspend_resume(p, a->suspend_queues.queue_array_ptr,
				   a->suspend_queues.num_queues, true,
				   a->suspend_queues.exception_mask);
		break;
	case VKFD_DBG_TRAP_RESUME_QUEUES:
		r = suspend_resume(p, a->resume_queues.queue_array_ptr, a->resume_queues.num_queues,
				   false, 0);
		break;
	case VKFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH:
		r = op_set_watch(p, pdd, a);
		break;
	case VKFD_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH:
		r = op_clear_watch(pdd, a->clear_node_address_watch.id);
		break;
	case VKFD_DBG_TRAP_SET_FLAGS:
		r = op_set_flags(p, a);
		break;
	case VKFD_DBG_TRAP_QUERY_DEBUG_EVENT:
		r = op_query_debug_event(p, a);
		break;
	case VKFD_DBG_TRAP_QUERY_EXCEPTION_INFO:
		r = op_query_exception_info(p, a);
		break;
	case VKFD_DBG_TRAP_GET_QUEUE_SNAPSHOT:
		r = op_queue_snapshot(p, a);
		break;
	case VKFD_DBG_TRAP_GET_DEVICE_SNAPSHOT:
		r = op_device_snapshot(p, a);
		break;
	default:
		r = -EINVAL;
	}
out:
	pthread_mutex_unlock(&p->lock);
	return r;
}

/* RUNTIME_ENABLE (kfd_chardev.c runtime_enable/runtime_disable): -EBUSY
 * when already enabled, -EEXIST once the process has queues; a process
 * being debugged raises EC_PROCESS_RUNTIME and waits until the debugger
 * answers with SEND_RUNTIME_EVENT(EC_PROCESS_RUNTIME) (or the fd closes). */
int sim_ioctl_runtime_enable(struct sim_process *p, void *args)
{
	struct vkfd_kfd_runtime_enable_args *a = args;
	int ret = 0;

	pthread_mutex_lock(&p->lock);
	if (!(a->mode_mask & KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK)) {
		if (p->runtime_enabled) {
			__atomic_store_n(&p->runtime_enabled, false, __ATOMIC_RELEASE);
			p->r_debug = 0;
			p->ttmp_setup = false;
			if (p->debug_trap_enabled)
				deactivate(p);
		}
		goto out;
	}
	if (p->runtime_enabled) {
		ret = -EBUSY;
		goto out;
	}
	if (p->nqueues) {
		ret = -EEXIST;
		goto out;
	}
	__atomic_store_n(&p->runtime_enabled, true, __ATOMIC_RELEASE);
	p->r_debug = a->r_debug;
	p->ttmp_setup = !!(a->mode_mask & KFD_RUNTIME_ENABLE_MODE_TTMP_SAVE_MASK);
	if (p->debug_trap_enabled) {
		p->runtime_unblock = false;
		raise_locked(p, VKFD_EC_MASK(VKFD_EC_PROCESS_RUNTIME), NULL, 0);
		while (!p->runtime_unblock && !p->closed)
			pthread_cond_wait(&p->dbg_cv, &p->lock);
		if (!p->runtime_unblock)
			ret = -EINTR;
	}
out:
	pthread_mutex_unlock(&p->lock);
	return ret;
}

void sim_debug_release(struct sim_process *p)
{
	if (p->dbg_ev_fd >= 0)
		close(p->dbg_ev_fd);
	p->dbg_ev_fd = -1;
}
