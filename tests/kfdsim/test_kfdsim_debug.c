// SPDX-License-Identifier: MIT
/* kfdsim conformance: AMDKFD_IOC_DBG_TRAP (KFD 1.13) and its handshake
 * with RUNTIME_ENABLE: the kernel's errnos for each op, the sequence
 * ROCr's GPU core dump issues (libhsakmt hsaKmtDbgEnable,
 * hsaKmtDbgGetDeviceData, hsaKmtDbgGetQueueData with suspension,
 * hsaKmtDbgDisable), exception raising and the debugger notification. */
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>

#include "kfd_dbg_trap.h"
#include "sim_fixture.h"

#define GTT_W (KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE)

struct qbufs {
	uint64_t ring, rptr, wptr;
};

static void map_bo(struct fx *f, uint64_t va, uint64_t size)
{
	uint64_t off = 0, h;
	uint32_t ids[1] = {f->gpu_id[0]};

	assert_int_equal(fx_alloc(f, 0, GTT_W, va, size, &h, &off), 0);
	assert_int_equal(fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, ids, 1, NULL), 0);
}

static void make_bufs(struct fx *f, struct qbufs *b)
{
	uint64_t va = fx_va(f, 65536 + 4096);

	map_bo(f, va, 65536);
	map_bo(f, va + 65536, 4096);
	b->ring = va;
	b->rptr = va + 65536 + 0x80;
	b->wptr = va + 65536 + 0x38;
}

/* An SDMA queue on GPU 0 with an empty ring (the engine stays idle). */
static uint32_t create_q(struct fx *f, const struct qbufs *b)
{
	struct vkfd_kfd_create_queue_args q = {0};

	q.base.ring_base_address = b->ring;
	q.base.ring_size = 65536;
	q.base.read_pointer_address = b->rptr;
	q.base.write_pointer_address = b->wptr;
	q.base.gpu_id = f->gpu_id[0];
	q.base.queue_type = KFD_IOC_QUEUE_TYPE_SDMA;
	q.base.queue_percentage = 100;
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_CREATE_QUEUE, &q.base), 0);
	return q.base.queue_id;
}

static int destroy_q(struct fx *f, uint32_t id)
{
	struct kfd_ioctl_destroy_queue_args d = {.queue_id = id};

	return fx_ioctl(f, AMDKFD_IOC_DESTROY_QUEUE, &d);
}

static int runtime(struct fx *f, bool on)
{
	struct vkfd_kfd_runtime_enable_args re = {
	    .mode_mask = on ? KFD_RUNTIME_ENABLE_MODE_ENABLE_MASK : 0, .r_debug = 0x1234000};

	return fx_ioctl(f, VKFD_KFD_IOC_RUNTIME_ENABLE, &re);
}

static int dbg(struct fx *f, struct vkfd_kfd_dbg_trap_args *a, uint32_t op)
{
	a->pid = (uint32_t)getpid();
	a->op = op;
	return fx_ioctl(f, VKFD_KFD_IOC_DBG_TRAP, a);
}

static int dbg_enable(struct fx *f, int fd, uint64_t mask, struct vkfd_kfd_runtime_info *ri)
{
	struct vkfd_kfd_dbg_trap_args a = {0};
	int r;

	a.enable.dbg_fd = (uint32_t)fd;
	a.enable.exception_mask = mask;
	a.enable.rinfo_ptr = (uintptr_t)ri;
	a.enable.rinfo_size = ri ? sizeof(*ri) : 0;
	r = dbg(f, &a, VKFD_DBG_TRAP_ENABLE);
	if (!r)
		assert_int_equal(a.enable.rinfo_size, sizeof(*ri));
	return r;
}

static int suspend_resume(struct fx *f, bool suspend, uint32_t *ids, uint32_t n, uint64_t clear)
{
	struct vkfd_kfd_dbg_trap_args a = {0};

	if (suspend) {
		a.suspend_queues.queue_array_ptr = (uintptr_t)ids;
		a.suspend_queues.num_queues = n;
		a.suspend_queues.exception_mask = clear;
		return dbg(f, &a, VKFD_DBG_TRAP_SUSPEND_QUEUES);
	}
	a.resume_queues.queue_array_ptr = (uintptr_t)ids;
	a.resume_queues.num_queues = n;
	return dbg(f, &a, VKFD_DBG_TRAP_RESUME_QUEUES);
}

static void test_gates(void **state)
{
	struct kfdsim_config cfg;
	struct vkfd_kfd_dbg_trap_args a = {0};
	struct vkfd_kfd_runtime_info ri;
	struct fx *f;
	int p[2];

	(void)state;
	kfdsim_config_default(&cfg);
	cfg.kfd_minor = 12;
	f = fx_new(&cfg, true);
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_ENABLE), -ENOTTY); /* 1.13 */
	fx_free(f);

	f = fx_new(NULL, true);
	assert_int_equal(pipe(p), 0);
	/* a pid with no KFD process here (pid 0, or any other process) */
	a.pid = 0;
	a.op = VKFD_DBG_TRAP_ENABLE;
	assert_int_equal(fx_ioctl(f, VKFD_KFD_IOC_DBG_TRAP, &a), -ESRCH);
	a.pid = (uint32_t)getppid();
	assert_int_equal(fx_ioctl(f, VKFD_KFD_IOC_DBG_TRAP, &a), -ESRCH);
	/* every op but ENABLE needs an enabled session */
	for (uint32_t op = VKFD_DBG_TRAP_DISABLE; op <= VKFD_DBG_TRAP_GET_DEVICE_SNAPSHOT; op++) {
		memset(&a, 0, sizeof(a));
		assert_int_equal(dbg(f, &a, op), -EINVAL);
	}
	/* the notification fd must be open */
	assert_int_equal(dbg_enable(f, -1, 0, &ri), -EBADF);
	assert_int_equal(dbg_enable(f, 1000, 0, &ri), -EBADF);
	memset(&ri, 0xa5, sizeof(ri));
	assert_int_equal(dbg_enable(f, p[1], 0, &ri), 0);
	assert_int_equal(ri.runtime_state, VKFD_DEBUG_RUNTIME_STATE_DISABLED);
	assert_int_equal(ri.r_debug, 0);
	assert_int_equal(ri.ttmp_setup, 0);
	assert_int_equal(dbg_enable(f, p[1], 0, &ri), -EALREADY);
	/* hardware ops need RUNTIME_ENABLE first */
	for (uint32_t op = VKFD_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE; op <= VKFD_DBG_TRAP_SET_FLAGS;
	     op++) {
		memset(&a, 0, sizeof(a));
		assert_int_equal(dbg(f, &a, op), -EPERM);
	}
	memset(&a, 0, sizeof(a));
	assert_int_equal(dbg(f, &a, 15), -EINVAL);
	/* the fd given at enable is kept: closing ours does not end it */
	close(p[1]);
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_DISABLE), 0);
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_DISABLE), -EINVAL);
	close(p[0]);
	fx_free(f);
}

/* ROCr's GPU core dump, the ioctls libhsakmt issues for it. */
static void test_core_dump_sequence(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct vkfd_kfd_dbg_trap_args a = {0};
	struct vkfd_kfd_runtime_info ri;
	struct vkfd_kfd_dbg_device_info_entry dev[FX_MAX_GPUS + 1];
	struct vkfd_kfd_queue_snapshot_entry qs[4];
	struct kfd_process_device_apertures ap[FX_MAX_GPUS];
	struct kfd_ioctl_get_process_apertures_new_args pa = {
	    .kfd_process_device_apertures_ptr = (uintptr_t)ap, .num_of_nodes = FX_MAX_GPUS};
	struct qbufs b;
	uint32_t q0, q1, ids[3];

	(void)state;
	assert_int_equal(runtime(f, true), 0);
	make_bufs(f, &b);
	q0 = create_q(f, &b);
	q1 = create_q(f, &b);
	/* RUNTIME_ENABLE once queues exist: -EBUSY (enabled) */
	assert_int_equal(runtime(f, true), -EBUSY);

	/* hsaKmtDbgEnable: its own kfd fd as dbg_fd */
	assert_int_equal(dbg_enable(f, f->kfd, 0, &ri), 0);
	assert_int_equal(ri.runtime_state, VKFD_DEBUG_RUNTIME_STATE_ENABLED);
	assert_int_equal(ri.r_debug, 0x1234000);

	/* hsaKmtDbgGetDeviceData: UINT32_MAX entries asked for */
	memset(dev, 0xa5, sizeof(dev));
	a.device_snapshot.snapshot_buf_ptr = (uintptr_t)dev;
	a.device_snapshot.num_devices = UINT32_MAX;
	a.device_snapshot.entry_size = sizeof(dev[0]);
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_GET_DEVICE_SNAPSHOT), 0);
	assert_int_equal(a.device_snapshot.num_devices, f->ngpus);
	assert_int_equal(a.device_snapshot.entry_size, 120);
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &pa), 0);
	assert_int_equal(dev[0].gpu_id, f->gpu_id[0]);
	assert_int_equal(dev[0].vendor_id, 0x1002);
	assert_int_equal(dev[0].device_id, 0x740f);         /* MI210 */
	assert_int_equal(dev[0].gfx_target_version, 90010); /* gfx90a */
	assert_int_equal(dev[0].num_xcc, 1);
	assert_int_equal(dev[0].exception_status, 0);
	assert_true(dev[0].gpuvm_base == ap[0].gpuvm_base && dev[0].lds_base == ap[0].lds_base);
	assert_int_equal(dev[0].simd_count, 104 * 4);
	assert_int_equal(dev[f->ngpus].gpu_id, 0xa5a5a5a5); /* nothing past the count */
	/* a NULL buffer or zero entries: -EINVAL */
	a.device_snapshot.snapshot_buf_ptr = 0;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_GET_DEVICE_SNAPSHOT), -EINVAL);
	/* a shorter entry size is honoured and used as the stride */
	memset(dev, 0xa5, sizeof(dev));
	a.device_snapshot.snapshot_buf_ptr = (uintptr_t)dev;
	a.device_snapshot.num_devices = 1;
	a.device_snapshot.entry_size = 8;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_GET_DEVICE_SNAPSHOT), 0);
	assert_int_equal(a.device_snapshot.entry_size, 8);
	assert_int_equal(dev[0].exception_status, 0);
	assert_int_equal(dev[0].lds_base, 0xa5a5a5a5a5a5a5a5ULL);

	/* hsaKmtDbgGetQueueData: count first, then the entries */
	memset(&a, 0, sizeof(a));
	a.queue_snapshot.entry_size = sizeof(qs[0]);
	a.queue_snapshot.exception_mask = VKFD_EC_MASK(VKFD_EC_QUEUE_NEW);
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_GET_QUEUE_SNAPSHOT), 0);
	assert_int_equal(a.queue_snapshot.num_queues, 2);
	memset(qs, 0xa5, sizeof(qs));
	a.queue_snapshot.snapshot_buf_ptr = (uintptr_t)qs;
	a.queue_snapshot.num_queues = 1; /* room for one: no overflow, count 2 */
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_GET_QUEUE_SNAPSHOT), 0);
	assert_int_equal(a.queue_snapshot.num_queues, 2);
	assert_int_equal(qs[1].queue_id, 0xa5a5a5a5);
	a.queue_snapshot.num_queues = 4;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_GET_QUEUE_SNAPSHOT), 0);
	assert_int_equal(a.queue_snapshot.num_queues, 2);
	assert_int_equal(a.queue_snapshot.entry_size, 64);
	assert_int_equal(qs[0].queue_id, q0);
	assert_int_equal(qs[1].queue_id, q1);
	assert_int_equal(qs[0].gpu_id, f->gpu_id[0]);
	assert_int_equal(qs[0].queue_type, KFD_IOC_QUEUE_TYPE_SDMA);
	assert_int_equal(qs[0].ring_base_address, b.ring);
	assert_int_equal(qs[0].read_pointer_address, b.rptr);
	assert_int_equal(qs[0].write_pointer_address, b.wptr);
	assert_int_equal(qs[0].ring_size, 65536);
	assert_int_equal(qs[0].ctx_save_restore_address, 0); /* CWSR off */
	a.queue_snapshot.entry_size = 0;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_GET_QUEUE_SNAPSHOT), -EINVAL);

	/* suspend both (and an unknown id), snapshot again, resume */
	ids[0] = q0;
	ids[1] = q1;
	ids[2] = 77;
	assert_int_equal(suspend_resume(f, true, ids, 3, VKFD_EC_MASK(VKFD_EC_QUEUE_NEW)), 2);
	assert_int_equal(ids[0], q0);
	assert_int_equal(ids[1], q1);
	assert_int_equal(ids[2], 77 | VKFD_DBG_QUEUE_INVALID_MASK);
	ids[2] = 77;
	/* already suspended: counted again, as suspend_single_queue does */
	assert_int_equal(suspend_resume(f, true, ids, 1, 0), 1);
	assert_int_equal(ids[0], q0);
	assert_int_equal(suspend_resume(f, false, ids, 2, 0), 2);
	assert_int_equal(suspend_resume(f, false, ids, 1, 0), 0);
	assert_int_equal(ids[0], q0 | VKFD_DBG_QUEUE_INVALID_MASK);
	assert_int_equal(suspend_resume(f, true, NULL, 1, 0), -EFAULT);

	/* hsaKmtDbgDisable */
	memset(&a, 0, sizeof(a));
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_DISABLE), 0);
	assert_int_equal(destroy_q(f, q0), 0);
	assert_int_equal(destroy_q(f, q1), 0);
	fx_free(f);
}

/* Exceptions: a queue created while debugging raises EC_QUEUE_NEW, the
 * debugger's fd gets a byte, QUERY_DEBUG_EVENT reports and clears it;
 * a new queue cannot be suspended until the debugger has seen it. */
static void test_exceptions_and_notify(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct vkfd_kfd_dbg_trap_args a = {0};
	struct vkfd_kfd_runtime_info ri, info;
	struct qbufs b;
	uint32_t q, ids[1];
	char c;
	int p[2];

	(void)state;
	assert_int_equal(pipe2(p, O_NONBLOCK), 0);
	assert_int_equal(runtime(f, true), 0);
	make_bufs(f, &b);
	assert_int_equal(dbg_enable(f, p[1], VKFD_EC_MASK(VKFD_EC_QUEUE_NEW), &ri), 0);
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_QUERY_DEBUG_EVENT), -EAGAIN);
	assert_int_equal(read(p[0], &c, 1), -1); /* nothing raised yet */
	q = create_q(f, &b);
	assert_int_equal(read(p[0], &c, 1), 1);
	assert_int_equal(c, '.');
	ids[0] = q;
	assert_int_equal(suspend_resume(f, true, ids, 1, 0), 0);
	assert_int_equal(ids[0], q | VKFD_DBG_QUEUE_INVALID_MASK);
	/* the clear mask does not make a new queue suspendable */
	ids[0] = q;
	assert_int_equal(suspend_resume(f, true, ids, 1, VKFD_EC_MASK(VKFD_EC_QUEUE_NEW)), 0);
	assert_int_equal(ids[0], q | VKFD_DBG_QUEUE_INVALID_MASK);
	/* report without clearing, then clear */
	memset(&a, 0, sizeof(a));
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_QUERY_DEBUG_EVENT), 0);
	assert_int_equal(a.query_debug_event.exception_mask, VKFD_EC_MASK(VKFD_EC_QUEUE_NEW));
	assert_int_equal(a.query_debug_event.queue_id, q);
	assert_int_equal(a.query_debug_event.gpu_id, f->gpu_id[0]);
	/* exception info of that queue exception: no payload */
	memset(&a, 0, sizeof(a));
	a.query_exception_info.source_id = q;
	a.query_exception_info.exception_code = VKFD_EC_QUEUE_NEW;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_QUERY_EXCEPTION_INFO), 0);
	assert_int_equal(a.query_exception_info.info_size, 0);
	a.query_exception_info.source_id = 99;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_QUERY_EXCEPTION_INFO), -EINVAL);
	a.query_exception_info.exception_code = 0;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_QUERY_EXCEPTION_INFO), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.query_debug_event.exception_mask = VKFD_EC_MASK(VKFD_EC_QUEUE_NEW);
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_QUERY_DEBUG_EVENT), 0);
	memset(&a, 0, sizeof(a));
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_QUERY_DEBUG_EVENT), -EAGAIN);
	/* seen: now it can be suspended */
	ids[0] = q;
	assert_int_equal(suspend_resume(f, true, ids, 1, 0), 1);
	assert_int_equal(suspend_resume(f, false, ids, 1, 0), 1);
	/* not enabled for the debugger: raised, but not notified or reported */
	memset(&a, 0, sizeof(a));
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_EXCEPTIONS_ENABLED), 0);
	q = create_q(f, &b);
	assert_int_equal(read(p[0], &c, 1), -1);
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_QUERY_DEBUG_EVENT), -EAGAIN);
	/* runtime info of the process exception EC_PROCESS_RUNTIME: none
	 * raised (the runtime was enabled before the debugger came) */
	memset(&a, 0, sizeof(a));
	a.query_exception_info.info_ptr = (uintptr_t)&info;
	a.query_exception_info.info_size = sizeof(info);
	a.query_exception_info.exception_code = VKFD_EC_PROCESS_RUNTIME;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_QUERY_EXCEPTION_INFO), -ENODATA);
	/* SEND_RUNTIME_EVENT: unknown GPU for a memory violation, unknown
	 * queue for a queue exception */
	memset(&a, 0, sizeof(a));
	a.send_runtime_event.exception_mask = VKFD_EC_MASK(VKFD_EC_DEVICE_MEMORY_VIOLATION);
	a.send_runtime_event.gpu_id = 1;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SEND_RUNTIME_EVENT), -ENODEV);
	a.send_runtime_event.exception_mask = VKFD_EC_MASK(1);
	a.send_runtime_event.queue_id = 99;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SEND_RUNTIME_EVENT), -EINVAL);
	a.send_runtime_event.queue_id = q;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SEND_RUNTIME_EVENT), 0);
	memset(&a, 0, sizeof(a));
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_DISABLE), 0);
	close(p[0]);
	close(p[1]);
	fx_free(f);
}

static void test_hw_ops(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct vkfd_kfd_dbg_trap_args a = {0};
	struct vkfd_kfd_runtime_info ri;

	(void)state;
	assert_int_equal(runtime(f, true), 0);
	assert_int_equal(dbg_enable(f, f->kfd, 0, &ri), 0);
	/* address watch: 4 ids per GPU, then -ENOMEM */
	for (uint32_t i = 0; i < 4; i++) {
		memset(&a, 0, sizeof(a));
		a.set_node_address_watch.gpu_id = f->gpu_id[0];
		a.set_node_address_watch.address = 0x100000 + i * 64;
		a.set_node_address_watch.mode = VKFD_DBG_TRAP_ADDRESS_WATCH_MODE_ALL;
		assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH), 0);
		assert_int_equal(a.set_node_address_watch.id, i);
	}
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH), -ENOMEM);
	a.set_node_address_watch.gpu_id = 1;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH), -ENODEV);
	memset(&a, 0, sizeof(a));
	a.clear_node_address_watch.gpu_id = f->gpu_id[0];
	a.clear_node_address_watch.id = 2;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH), 0);
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH), -EINVAL);
	a.clear_node_address_watch.id = 4;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_CLEAR_NODE_ADDRESS_WATCH), -EINVAL);
	memset(&a, 0, sizeof(a));
	a.set_node_address_watch.gpu_id = f->gpu_id[0];
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH), 0);
	assert_int_equal(a.set_node_address_watch.id, 2); /* the freed id again */
	/* wave launch mode: normal, halt, debug */
	memset(&a, 0, sizeof(a));
	a.launch_mode.launch_mode = 2;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_WAVE_LAUNCH_MODE), -EINVAL);
	a.launch_mode.launch_mode = VKFD_DBG_TRAP_WAVE_LAUNCH_MODE_HALT;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_WAVE_LAUNCH_MODE), 0);
	/* flags: single memory op needs the precise-memory capability,
	 * which GC 9.4.2 (gfx90a) reports; the previous flags come back */
	memset(&a, 0, sizeof(a));
	a.set_flags.flags = VKFD_DBG_TRAP_FLAG_SINGLE_MEM_OP;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_FLAGS), 0);
	assert_int_equal(a.set_flags.flags, 0);
	a.set_flags.flags = 0;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_FLAGS), 0);
	assert_int_equal(a.set_flags.flags, VKFD_DBG_TRAP_FLAG_SINGLE_MEM_OP);
	a.set_flags.flags = 0x80; /* unknown flag */
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_FLAGS), -EINVAL);
	/* GC 10.3 (gfx1030) has no precise memory: -EACCES, flags kept */
	{
		struct kfdsim_config cfg;
		struct fx *g;

		kfdsim_config_default(&cfg);
		snprintf(cfg.target, sizeof(cfg.target), "gfx1030");
		g = fx_new(&cfg, true);
		assert_int_equal(runtime(g, true), 0);
		assert_int_equal(dbg_enable(g, g->kfd, 0, &ri), 0);
		memset(&a, 0, sizeof(a));
		a.set_flags.flags = VKFD_DBG_TRAP_FLAG_SINGLE_MEM_OP;
		assert_int_equal(dbg(g, &a, VKFD_DBG_TRAP_SET_FLAGS), -EACCES);
		assert_int_equal(a.set_flags.flags, 0);
		fx_free(g);
	}
	/* trap override: OR/REPLACE only; unsupported bits -EACCES */
	memset(&a, 0, sizeof(a));
	a.launch_override.override_mode = 2;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE), -EINVAL);
	a.launch_override.override_mode = VKFD_DBG_TRAP_OVERRIDE_OR;
	a.launch_override.enable_mask = 1u << 30; /* trap on wave start */
	a.launch_override.support_request_mask = 1u << 30;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE), -EACCES);
	a.launch_override.enable_mask = 0x80; /* address watch */
	a.launch_override.support_request_mask = 0x80;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE), 0);
	assert_int_equal(a.launch_override.enable_mask, 0); /* previous */
	a.launch_override.enable_mask = 0;
	a.launch_override.support_request_mask = 0x80;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_WAVE_LAUNCH_OVERRIDE), 0);
	assert_int_equal(a.launch_override.enable_mask, 0x80);
	/* runtime disable ends the hardware state: watch ids free again */
	assert_int_equal(runtime(f, false), 0);
	memset(&a, 0, sizeof(a));
	a.set_node_address_watch.gpu_id = f->gpu_id[0];
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH), -EPERM);
	/* (a debugged process's RUNTIME_ENABLE would wait for the debugger:
	 * end the session first) */
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_DISABLE), 0);
	assert_int_equal(runtime(f, true), 0);
	assert_int_equal(dbg_enable(f, f->kfd, 0, &ri), 0);
	memset(&a, 0, sizeof(a));
	a.set_node_address_watch.gpu_id = f->gpu_id[0];
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SET_NODE_ADDRESS_WATCH), 0);
	assert_int_equal(a.set_node_address_watch.id, 0);
	fx_free(f);
}

struct bg {
	struct fx *f;
	uint32_t qid;
	int r;
	bool done;
};

static void *bg_runtime_enable(void *arg)
{
	struct bg *b = arg;

	b->r = runtime(b->f, true);
	__atomic_store_n(&b->done, true, __ATOMIC_RELEASE);
	return NULL;
}

static void *bg_destroy(void *arg)
{
	struct bg *b = arg;

	b->r = destroy_q(b->f, b->qid);
	__atomic_store_n(&b->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* A debugged process's RUNTIME_ENABLE raises EC_PROCESS_RUNTIME and waits
 * for the debugger's SEND_RUNTIME_EVENT; RUNTIME_ENABLE with queues is
 * -EEXIST; DESTROY_QUEUE of a suspended queue waits for its resume. */
static void test_runtime_handshake(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct vkfd_kfd_dbg_trap_args a = {0};
	struct vkfd_kfd_runtime_info ri, info;
	struct bg b = {.f = f};
	struct vkfd_kfd_queue_snapshot_entry qs;
	struct qbufs qb;
	pthread_t t;
	uint32_t ids[1];

	(void)state;
	assert_int_equal(dbg_enable(f, f->kfd, VKFD_EC_MASK(VKFD_EC_PROCESS_RUNTIME), &ri), 0);
	assert_int_equal(pthread_create(&t, NULL, bg_runtime_enable, &b), 0);
	/* the debugger sees EC_PROCESS_RUNTIME once the runtime asks */
	do {
		memset(&a, 0, sizeof(a));
		sched_yield();
	} while (dbg(f, &a, VKFD_DBG_TRAP_QUERY_DEBUG_EVENT) == -EAGAIN);
	assert_int_equal(a.query_debug_event.exception_mask, VKFD_EC_MASK(VKFD_EC_PROCESS_RUNTIME));
	assert_false(__atomic_load_n(&b.done, __ATOMIC_ACQUIRE)); /* still waiting */
	memset(&a, 0, sizeof(a));
	a.query_exception_info.info_ptr = (uintptr_t)&info;
	a.query_exception_info.info_size = sizeof(info);
	a.query_exception_info.exception_code = VKFD_EC_PROCESS_RUNTIME;
	a.query_exception_info.clear_exception = 1;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_QUERY_EXCEPTION_INFO), 0);
	assert_int_equal(a.query_exception_info.info_size, sizeof(info));
	assert_int_equal(info.runtime_state, VKFD_DEBUG_RUNTIME_STATE_ENABLED);
	assert_int_equal(info.r_debug, 0x1234000);
	memset(&a, 0, sizeof(a));
	a.send_runtime_event.exception_mask = VKFD_EC_MASK(VKFD_EC_PROCESS_RUNTIME);
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_SEND_RUNTIME_EVENT), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(b.r, 0);

	/* a suspended queue's destruction waits for the resume */
	make_bufs(f, &qb);
	b.qid = create_q(f, &qb);
	b.done = false;
	ids[0] = b.qid;
	/* new while debugging: seen through a snapshot that clears
	 * EC_QUEUE_NEW (libhsakmt's order) before it can be suspended */
	assert_int_equal(suspend_resume(f, true, ids, 1, 0), 0);
	ids[0] = b.qid;
	memset(&a, 0, sizeof(a));
	a.queue_snapshot.entry_size = sizeof(struct vkfd_kfd_queue_snapshot_entry);
	a.queue_snapshot.exception_mask = VKFD_EC_MASK(VKFD_EC_QUEUE_NEW);
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_GET_QUEUE_SNAPSHOT), 0);
	assert_int_equal(a.queue_snapshot.num_queues, 1);
	/* a count-only call copies no entry and so clears nothing */
	assert_int_equal(suspend_resume(f, true, ids, 1, 0), 0);
	ids[0] = b.qid;
	a.queue_snapshot.snapshot_buf_ptr = (uintptr_t)&qs;
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_GET_QUEUE_SNAPSHOT), 0);
	assert_int_equal(qs.exception_status, VKFD_EC_MASK(VKFD_EC_QUEUE_NEW));
	assert_int_equal(suspend_resume(f, true, ids, 1, 0), 1);
	assert_int_equal(pthread_create(&t, NULL, bg_destroy, &b), 0);
	sched_yield();
	assert_false(__atomic_load_n(&b.done, __ATOMIC_ACQUIRE));
	assert_int_equal(suspend_resume(f, false, ids, 1, 0), 1);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(b.r, 0);
	assert_int_equal(destroy_q(f, b.qid), -EINVAL);

	/* a debugger that leaves lets a waiting RUNTIME_ENABLE go */
	assert_int_equal(runtime(f, false), 0);
	b.done = false;
	assert_int_equal(pthread_create(&t, NULL, bg_runtime_enable, &b), 0);
	do {
		memset(&a, 0, sizeof(a));
		sched_yield();
	} while (dbg(f, &a, VKFD_DBG_TRAP_QUERY_DEBUG_EVENT) == -EAGAIN);
	memset(&a, 0, sizeof(a));
	assert_int_equal(dbg(f, &a, VKFD_DBG_TRAP_DISABLE), 0);
	assert_int_equal(pthread_join(t, NULL), 0);
	assert_int_equal(b.r, 0);

	/* RUNTIME_ENABLE once the process has queues */
	b.qid = create_q(f, &qb);
	assert_int_equal(runtime(f, false), 0);
	assert_int_equal(runtime(f, true), -EEXIST);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gates),
	    cmocka_unit_test(test_core_dump_sequence),
	    cmocka_unit_test(test_exceptions_and_notify),
	    cmocka_unit_test(test_hw_ops),
	    cmocka_unit_test(test_runtime_handshake),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
