/* SPDX-License-Identifier: MIT */
/*
 * The engines inside kfdsim, driven the way ROCr drives a GPU: USERPTR
 * memory for the AQL ring, amd_queue_t-style pointers and signals, a GTT
 * event page, a doorbell mapped from the kfd fd, WAIT_EVENTS for
 * completion. Checks that the core and the engines agree on the contract
 * (sim_engine.h), complementing the fake-environment tests.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>
#include <linux/kfd_ioctl.h>

#include "aql_packets.h"
#include "kfdsim_test_hooks.h"
#include "vkfd/kfdsim.h"

#define RING_SIZE 4096u
#define BUF_SIZE  (1u << 20)
/* Offsets in the host buffer. Rings and pointer pages are separate
 * USERPTR BOs of exactly their size (6.12's queue buffer rule); the rest
 * is one BO. */
#define OFF_RING        0x0
#define OFF_WPTR        0x1038 /* amd_queue_t write_dispatch_id offset */
#define OFF_RPTR        0x2080 /* amd_queue_t read_dispatch_id offset */
#define OFF_SIG         0x3000
#define OFF_KOBJ        0x4000
#define OFF_KARG        0x5000
#define OFF_DATA        0x10000
#define OFF_SDMA_RING   0x20000
#define OFF_SDMA_RPTR   0x21000
#define OFF_SDMA_WPTR   0x22000
#define OFF_REST        0x23000
#define EVENT_PAGE_SIZE (4096u * 8u)
/* The header's (1 << 31) overflows int (UBSan); same bits, unsigned. */
#define FLAG_WRITABLE   (1u << 31)
#define FLAG_EXECUTABLE (1u << 30)

struct world {
	struct kfdsim *sim;
	const struct vkfd_device_ops *ops;
	int kfd, rfd;
	uint32_t gpu_id;
	uint8_t *buf;     /* USERPTR: GPU VA == this pointer */
	uint8_t *reserve; /* PROT_NONE VA for the event page */
	uint64_t *slots;  /* event page, CPU view */
	uint64_t ev_page_va;
	uint32_t event_id;
	uint32_t mem_event_id;
	volatile uint64_t *doorbell;
	void *db_map;
	uint64_t db_page; /* its mmap offset */
	uint32_t queue_id;
	uint64_t next;
};

static int kio(struct world *w, unsigned long req, void *arg)
{
	return w->ops->ioctl(w->sim, w->kfd, req, arg);
}

static uint64_t va(struct world *w, uint64_t off)
{
	return (uint64_t)(uintptr_t)(w->buf + off);
}

static void map_to_gpu(struct world *w, uint64_t handle)
{
	struct kfd_ioctl_map_memory_to_gpu_args m = {
	    .handle = handle,
	    .device_ids_array_ptr = (uintptr_t)&w->gpu_id,
	    .n_devices = 1,
	};

	assert_int_equal(kio(w, AMDKFD_IOC_MAP_MEMORY_TO_GPU, &m), 0);
	assert_int_equal(m.n_success, 1);
}

static void userptr(struct world *w, uint64_t off, uint64_t size)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args al;

	memset(&al, 0, sizeof(al));
	al.va_addr = va(w, off);
	al.size = size;
	al.gpu_id = w->gpu_id;
	al.mmap_offset = va(w, off);
	al.flags = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | FLAG_WRITABLE | FLAG_EXECUTABLE;
	assert_int_equal(kio(w, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &al), 0);
	map_to_gpu(w, al.handle);
}

/* The world's AQL queue over its ring, read and write pointers. */
static void create_queue(struct world *w, struct kfd_ioctl_create_queue_args *cq)
{
	memset(cq, 0, sizeof(*cq));
	cq->ring_base_address = va(w, OFF_RING);
	cq->ring_size = RING_SIZE;
	cq->write_pointer_address = va(w, OFF_WPTR);
	cq->read_pointer_address = va(w, OFF_RPTR);
	cq->gpu_id = w->gpu_id;
	cq->queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
	cq->queue_percentage = 100;
	cq->queue_priority = 7;
	assert_int_equal(kio(w, AMDKFD_IOC_CREATE_QUEUE, cq), 0);
	w->queue_id = cq->queue_id;
}

static int setup_target(void **state, const char *target)
{
	struct world *w = calloc(1, sizeof(*w));
	struct kfdsim_config cfg;
	struct kfd_process_device_apertures ap[KFDSIM_MAX_GPUS];
	struct kfd_ioctl_get_process_apertures_new_args apa = {
	    .kfd_process_device_apertures_ptr = (uintptr_t)ap,
	    .num_of_nodes = KFDSIM_MAX_GPUS,
	};
	struct kfd_ioctl_acquire_vm_args acq;
	struct kfd_ioctl_alloc_memory_of_gpu_args al;
	struct kfd_ioctl_create_event_args ev;
	struct kfd_ioctl_create_queue_args cq;
	uint64_t db_page;
	void *p;

	assert_non_null(w);
	kfdsim_config_default(&cfg);
	snprintf(cfg.target, sizeof(cfg.target), "%s", target);
	w->sim = kfdsim_create(&cfg);
	assert_non_null(w->sim);
	w->ops = kfdsim_device_ops();
	w->kfd = w->ops->open_kfd(w->sim);
	assert_true(w->kfd >= 0);
	assert_int_equal(kio(w, AMDKFD_IOC_GET_PROCESS_APERTURES_NEW, &apa), 0);
	assert_true(apa.num_of_nodes >= 1);
	w->gpu_id = ap[0].gpu_id;
	w->rfd = w->ops->open_render(w->sim, kfdsim_render_minor(w->sim, 0));
	assert_true(w->rfd >= 0);
	acq = (struct kfd_ioctl_acquire_vm_args){.drm_fd = (uint32_t)w->rfd, .gpu_id = w->gpu_id};
	assert_int_equal(kio(w, AMDKFD_IOC_ACQUIRE_VM, &acq), 0);

	/* ring, pointers, signals, kernels, data: one USERPTR buffer */
	w->buf = aligned_alloc(4096, BUF_SIZE);
	assert_non_null(w->buf);
	memset(w->buf, 0, BUF_SIZE);
	userptr(w, OFF_RING, RING_SIZE);
	userptr(w, OFF_WPTR & ~0xfffull, 4096);
	userptr(w, OFF_RPTR & ~0xfffull, 4096);
	userptr(w, OFF_SIG, OFF_SDMA_RING - OFF_SIG);
	userptr(w, OFF_SDMA_RING, 4096);
	userptr(w, OFF_SDMA_RPTR, 4096);
	userptr(w, OFF_SDMA_WPTR, 4096);
	userptr(w, OFF_REST, BUF_SIZE - OFF_REST);

	/* event page: a GTT BO mapped for the CPU at its GPU VA */
	w->reserve =
	    mmap(NULL, 4u << 20, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	assert_true(w->reserve != MAP_FAILED);
	w->ev_page_va = ((uintptr_t)w->reserve + (2u << 20) - 1) & ~((uint64_t)(2u << 20) - 1);
	memset(&al, 0, sizeof(al));
	al.va_addr = w->ev_page_va;
	al.size = EVENT_PAGE_SIZE;
	al.gpu_id = w->gpu_id;
	al.flags = KFD_IOC_ALLOC_MEM_FLAGS_GTT | FLAG_WRITABLE;
	assert_int_equal(kio(w, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &al), 0);
	p = w->ops->mmap(w->sim, (void *)(uintptr_t)w->ev_page_va, EVENT_PAGE_SIZE,
			 PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, w->rfd,
			 (off_t)al.mmap_offset);
	assert_true(p == (void *)(uintptr_t)w->ev_page_va);
	w->slots = p;
	map_to_gpu(w, al.handle);

	memset(&ev, 0, sizeof(ev));
	ev.event_page_offset = al.handle;
	ev.event_type = KFD_IOC_EVENT_SIGNAL;
	ev.auto_reset = 1;
	assert_int_equal(kio(w, AMDKFD_IOC_CREATE_EVENT, &ev), 0);
	w->event_id = ev.event_id;
	assert_true(w->event_id < 4096);
	memset(&ev, 0, sizeof(ev));
	ev.event_type = KFD_IOC_EVENT_MEMORY;
	assert_int_equal(kio(w, AMDKFD_IOC_CREATE_EVENT, &ev), 0);
	w->mem_event_id = ev.event_id;

	/* builtin descriptors */
	for (uint32_t id = 1; id <= 5; id++) {
		memcpy(w->buf + OFF_KOBJ + 64 * id, KFDSIM_KERNEL_MAGIC, 8);
		memcpy(w->buf + OFF_KOBJ + 64 * id + 8, &id, 4);
	}
	for (uint64_t i = 0; i < RING_SIZE; i += 64) {
		uint16_t h = AQL_TYPE_INVALID;

		memcpy(w->buf + OFF_RING + i, &h, 2);
	}

	create_queue(w, &cq);

	/* the doorbell slice through the kfd fd, as libhsakmt maps it */
	db_page = cq.doorbell_offset & ~(uint64_t)(8192 - 1);
	w->db_page = db_page;
	w->db_map = w->ops->mmap(w->sim, NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, w->kfd,
				 (off_t)db_page);
	assert_true(w->db_map != MAP_FAILED);
	w->doorbell = (volatile uint64_t *)((uint8_t *)w->db_map + (cq.doorbell_offset & 8191));
	*state = w;
	return 0;
}

static int setup(void **state)
{
	return setup_target(state, "gfx90a");
}

static int setup_gfx1030(void **state)
{
	return setup_target(state, "gfx1030");
}

static int teardown(void **state)
{
	struct world *w = *state;
	struct kfd_ioctl_destroy_queue_args dq = {.queue_id = w->queue_id};

	assert_int_equal(kio(w, AMDKFD_IOC_DESTROY_QUEUE, &dq), 0);
	w->ops->munmap(w->sim, w->db_map, 8192);
	w->ops->close(w->sim, w->kfd);
	w->ops->close(w->sim, w->rfd);
	kfdsim_destroy(w->sim);
	munmap(w->reserve, 4u << 20);
	free(w->buf);
	free(w);
	return 0;
}

static void submit(struct world *w, const void *pkt)
{
	uint8_t *slot = w->buf + OFF_RING + (w->next % (RING_SIZE / 64)) * 64;
	uint16_t header;

	memcpy(slot + 2, (const uint8_t *)pkt + 2, 62);
	memcpy(&header, pkt, 2);
	__atomic_store_n((uint16_t *)slot, header, __ATOMIC_RELEASE);
	w->next++;
	__atomic_store_n((uint64_t *)(w->buf + OFF_WPTR), w->next, __ATOMIC_RELEASE);
	/* ROCr rings the doorbell with the packet index; no kick: the engine
	 * must notice by itself */
	*w->doorbell = w->next - 1;
}

static void dispatch(struct world *w, uint32_t builtin, uint64_t kernarg, uint64_t signal)
{
	struct aql_dispatch_packet p;

	memset(&p, 0, sizeof(p));
	p.header = AQL_TYPE_KERNEL_DISPATCH | AQL_HEADER_BARRIER;
	p.setup = 1;
	p.workgroup_size[0] = p.workgroup_size[1] = p.workgroup_size[2] = 1;
	p.grid_size[0] = p.grid_size[1] = p.grid_size[2] = 1;
	p.kernel_object = va(w, OFF_KOBJ + 64 * builtin);
	p.kernarg_address = kernarg;
	p.completion_signal = signal;
	submit(w, &p);
}

static int wait_event(struct world *w, uint32_t id, uint32_t timeout_ms, struct kfd_event_data *out)
{
	struct kfd_event_data d;
	struct kfd_ioctl_wait_events_args a;
	int r;

	memset(&d, 0, sizeof(d));
	d.event_id = id;
	memset(&a, 0, sizeof(a));
	a.events_ptr = (uintptr_t)&d;
	a.num_events = 1;
	a.wait_for_all = 0;
	a.timeout = timeout_ms;
	r = kio(w, AMDKFD_IOC_WAIT_EVENTS, &a);
	if (out)
		*out = d;
	return r ? r : (int)a.wait_result;
}

static void test_dispatch_signals_event(void **state)
{
	struct world *w = *state;
	struct aql_amd_signal *sig = (void *)(w->buf + OFF_SIG);
	uint32_t *data = (void *)(w->buf + OFF_DATA);
	uint64_t dst = va(w, OFF_DATA);
	uint32_t value = 0xabcd1234, count = 100;

	sig->kind = 1;
	sig->value = 1;
	sig->event_mailbox_ptr = w->ev_page_va + 8ull * w->event_id;
	sig->event_id = w->event_id;
	memcpy(w->buf + OFF_KARG, &dst, 8);
	memcpy(w->buf + OFF_KARG + 8, &value, 4);
	memcpy(w->buf + OFF_KARG + 12, &count, 4);
	dispatch(w, KFDSIM_BUILTIN_FILL_U32, va(w, OFF_KARG), va(w, OFF_SIG));

	assert_int_equal(wait_event(w, w->event_id, 5000, NULL), KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_int_equal(__atomic_load_n(&sig->value, __ATOMIC_ACQUIRE), 0);
	for (uint32_t i = 0; i < count; i++)
		assert_int_equal(data[i], value);
	assert_int_equal(data[count], 0);
	assert_true(sig->end_ts >= sig->start_ts && sig->start_ts != 0);

	/* the read index follows (published after the signal) */
	for (int i = 0;
	     i < 5000 && __atomic_load_n((uint64_t *)(w->buf + OFF_RPTR), __ATOMIC_ACQUIRE) != 1;
	     i++)
		usleep(1000);
	assert_int_equal(*(uint64_t *)(w->buf + OFF_RPTR), 1);
}

/*
 * The host's doorbell relay rings through the device seam's ring_doorbell.
 * With the engines' idle poll off (test hook) only the wake-up that
 * ring_doorbell adds can start the packet: if it were lost the wait below
 * would end without the event.
 */
static void test_ring_doorbell_wakes_engine(void **state)
{
	struct world *w = *state;
	struct aql_amd_signal *sig = (void *)(w->buf + OFF_SIG);
	uint32_t *data = (void *)(w->buf + OFF_DATA);
	uint64_t dst = va(w, OFF_DATA);
	uint32_t value = 0x5eed0001, count = 16;
	struct aql_dispatch_packet p;
	uint8_t *slot;

	assert_non_null(w->ops->ring_doorbell);
	kfdsim_test_engine_idle_poll(false);
	for (uint32_t round = 0; round < 3; round++) {
		sig->kind = 1;
		sig->value = 1;
		sig->event_mailbox_ptr = w->ev_page_va + 8ull * w->event_id;
		sig->event_id = w->event_id;
		memcpy(w->buf + OFF_KARG, &dst, 8);
		value++;
		memcpy(w->buf + OFF_KARG + 8, &value, 4);
		memcpy(w->buf + OFF_KARG + 12, &count, 4);

		memset(&p, 0, sizeof(p));
		p.header = AQL_TYPE_KERNEL_DISPATCH | AQL_HEADER_BARRIER;
		p.setup = 1;
		p.workgroup_size[0] = p.workgroup_size[1] = p.workgroup_size[2] = 1;
		p.grid_size[0] = p.grid_size[1] = p.grid_size[2] = 1;
		p.kernel_object = va(w, OFF_KOBJ + 64 * KFDSIM_BUILTIN_FILL_U32);
		p.kernarg_address = va(w, OFF_KARG);
		p.completion_signal = va(w, OFF_SIG);
		slot = w->buf + OFF_RING + (w->next % (RING_SIZE / 64)) * 64;
		memcpy(slot + 2, (const uint8_t *)&p + 2, 62);
		__atomic_store_n((uint16_t *)slot, p.header, __ATOMIC_RELEASE);
		w->next++;
		__atomic_store_n((uint64_t *)(w->buf + OFF_WPTR), w->next, __ATOMIC_RELEASE);
		/* as the relay rings it: the slot through the seam */
		w->ops->ring_doorbell(w->sim, w->kfd, w->gpu_id,
				      (uint32_t)((uintptr_t)w->doorbell - (uintptr_t)w->db_map),
				      w->doorbell, w->next - 1);

		assert_int_equal(wait_event(w, w->event_id, 30000, NULL),
				 KFD_IOC_WAIT_RESULT_COMPLETE);
		assert_int_equal(__atomic_load_n(&sig->value, __ATOMIC_ACQUIRE), 0);
		for (uint32_t i = 0; i < count; i++)
			assert_int_equal(data[i], value);
	}
	kfdsim_test_engine_idle_poll(true);
}

/* Rings through the seam in a loop until told to stop, as the host's
 * relay does while the guest destroys queues and closes its fd. */
struct ringer {
	struct world *w;
	int fd;
	uint32_t offset;
	volatile uint64_t *slot;
	int stop;
};

static void *ring_loop(void *arg)
{
	struct ringer *r = arg;

	while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE))
		r->w->ops->ring_doorbell(r->w->sim, r->fd, r->w->gpu_id, r->offset, r->slot,
					 UINT64_MAX); /* an AQL doorbell's "nothing ready" */
	return NULL;
}

static void stop_ringer(struct ringer *r, pthread_t t)
{
	__atomic_store_n(&r->stop, 1, __ATOMIC_RELEASE);
	assert_int_equal(pthread_join(t, NULL), 0);
}

/*
 * ring_doorbell finds the queue per doorbell without kfdsim's global
 * lock. Rings racing queue destroys and creates (and a kfd fd's close)
 * must never reach a queue or process being freed (TSan and ASan builds
 * see it), and the doorbell must name the queue made last: a dispatch
 * rung through the seam, with the engines' idle poll off, then runs.
 */
static void test_ring_doorbell_races_destroy(void **state)
{
	struct world *w = *state;
	struct ringer r = {.w = w, .fd = w->kfd, .slot = w->doorbell};
	struct ringer other = {.w = w};
	uint64_t other_slot = 0;
	pthread_t t, t2;

	r.offset = (uint32_t)((uintptr_t)w->doorbell - (uintptr_t)w->db_map);
	assert_int_equal(pthread_create(&t, NULL, ring_loop, &r), 0);
	for (int round = 0; round < 50; round++) {
		struct kfd_ioctl_destroy_queue_args dq = {.queue_id = w->queue_id};
		struct kfd_ioctl_create_queue_args cq;

		assert_int_equal(kio(w, AMDKFD_IOC_DESTROY_QUEUE, &dq), 0);
		create_queue(w, &cq);
		/* the lowest free index: the one the ringer rings */
		assert_int_equal(cq.doorbell_offset & 8191, r.offset);
	}
	/* another process's fd, closed while rung */
	other.fd = w->ops->open_kfd(w->sim);
	assert_true(other.fd >= 0);
	other.offset = r.offset;
	other.slot = &other_slot;
	assert_int_equal(pthread_create(&t2, NULL, ring_loop, &other), 0);
	usleep(1000);
	assert_int_equal(w->ops->close(w->sim, other.fd), 0);
	stop_ringer(&other, t2);
	stop_ringer(&r, t);
	/* the queue made last starts over at packet 0 */
	w->next = 0;
	__atomic_store_n((uint64_t *)(w->buf + OFF_WPTR), 0, __ATOMIC_RELEASE);
	__atomic_store_n((uint64_t *)(w->buf + OFF_RPTR), 0, __ATOMIC_RELEASE);
	test_ring_doorbell_wakes_engine(state);
}

static void test_fault_raises_memory_event(void **state)
{
	struct world *w = *state;
	struct kfd_event_data d;
	/* an address in the PROT_NONE reservation that no BO covers */
	uint64_t bad = w->ev_page_va + (1u << 20) + 0x123;

	memcpy(w->buf + OFF_KARG, &bad, 8);
	dispatch(w, KFDSIM_BUILTIN_FAULT, va(w, OFF_KARG), 0);
	assert_int_equal(wait_event(w, w->mem_event_id, 5000, &d), KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_int_equal(d.memory_exception_data.gpu_id, w->gpu_id);
	assert_int_equal(d.memory_exception_data.va, bad & ~4095ull);
	assert_int_equal(d.memory_exception_data.failure.NotPresent, 1);
}

/* ROCr's BlitSdmaV4 sequence for a copy with an interrupt signal: copy,
 * atomic decrement of the signal, fence of the event id into the mailbox,
 * trap with the event id; every packet padded to 32 bytes. */
static void test_sdma_copy_signals_event(void **state)
{
	struct world *w = *state;
	struct kfd_ioctl_create_queue_args cq;
	struct kfd_ioctl_destroy_queue_args dq;
	struct aql_amd_signal *sig = (void *)(w->buf + OFF_SIG + 64);
	uint64_t ring = va(w, OFF_SDMA_RING), src = va(w, OFF_DATA);
	uint64_t dst = va(w, OFF_DATA + 0x8000);
	uint64_t value_va = va(w, OFF_SIG + 64 + 8);
	uint64_t mailbox = w->ev_page_va + 8ull * w->event_id;
	uint32_t pk[32] = {
	    /* COPY_LINEAR 4000 bytes */
	    1,
	    4000 - 1,
	    0,
	    (uint32_t)src,
	    (uint32_t)(src >> 32),
	    (uint32_t)dst,
	    (uint32_t)(dst >> 32),
	    0,
	    /* ATOMIC ADD64 -1 */
	    10u | 47u << 25,
	    (uint32_t)value_va,
	    (uint32_t)(value_va >> 32),
	    0xffffffff,
	    0xffffffff,
	    0,
	    0,
	    0,
	    /* FENCE event id -> mailbox */
	    5,
	    (uint32_t)mailbox,
	    (uint32_t)(mailbox >> 32),
	    w->event_id,
	    0,
	    0,
	    0,
	    0,
	    /* TRAP */
	    6,
	    w->event_id,
	    0,
	    0,
	    0,
	    0,
	    0,
	    0,
	};
	void *db_map;
	volatile uint64_t *db;

	for (int i = 0; i < 4000; i++)
		w->buf[OFF_DATA + i] = (uint8_t)(i * 31 + 7);
	sig->kind = 1;
	sig->value = 1;
	memset(&cq, 0, sizeof(cq));
	cq.ring_base_address = ring;
	cq.ring_size = 4096;
	cq.read_pointer_address = va(w, OFF_SDMA_RPTR);
	cq.write_pointer_address = va(w, OFF_SDMA_WPTR);
	cq.gpu_id = w->gpu_id;
	cq.queue_type = KFD_IOC_QUEUE_TYPE_SDMA;
	cq.queue_percentage = 100;
	cq.queue_priority = 15;
	assert_int_equal(kio(w, AMDKFD_IOC_CREATE_QUEUE, &cq), 0);
	db_map = w->ops->mmap(w->sim, NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, w->kfd,
			      (off_t)(cq.doorbell_offset & ~(uint64_t)8191));
	assert_true(db_map != MAP_FAILED);
	db = (volatile uint64_t *)((uint8_t *)db_map + (cq.doorbell_offset & 8191));

	memcpy(w->buf + OFF_SDMA_RING, pk, sizeof(pk));
	__atomic_store_n((uint64_t *)(w->buf + OFF_SDMA_WPTR), (uint64_t)sizeof(pk),
			 __ATOMIC_RELEASE);
	*db = sizeof(pk);

	assert_int_equal(wait_event(w, w->event_id, 5000, NULL), KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_int_equal(__atomic_load_n(&sig->value, __ATOMIC_ACQUIRE), 0);
	assert_memory_equal(w->buf + OFF_DATA + 0x8000, w->buf + OFF_DATA, 4000);
	assert_int_equal(w->buf[OFF_DATA + 0x8000 + 4000], 0);

	w->ops->munmap(w->sim, db_map, 8192);
	dq = (struct kfd_ioctl_destroy_queue_args){.queue_id = cq.queue_id};
	assert_int_equal(kio(w, AMDKFD_IOC_DESTROY_QUEUE, &dq), 0);
}

/* ---- an eviction racing an engine restart and a destroy ---- */

/* The race test's queues: a faulting queue F and a queue B whose ring
 * UPDATE_QUEUE keeps moving between two rings. Each page its own USERPTR
 * BO of exactly its size (6.12's queue buffer rule). */
enum { PG_F_RING, PG_F_PTRS, PG_B_RING1, PG_B_RING2, PG_B_PTRS, RACE_PAGES };
#define RACE_ROUNDS    150
#define RACE_BUDGET_NS 3000000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t hva(const void *p)
{
	return (uint64_t)(uintptr_t)p;
}

static void ring_invalidate(uint8_t *ring)
{
	for (uint64_t i = 0; i < RING_SIZE; i += 64) {
		uint16_t h = AQL_TYPE_INVALID;

		memcpy(ring + i, &h, 2);
	}
}

/* An AQL queue; *db (if db) is its doorbell in the world's doorbell map. */
static uint32_t make_queue(struct world *w, uint8_t *ring, uint8_t *ptrs, volatile uint64_t **db)
{
	struct kfd_ioctl_create_queue_args cq;

	ring_invalidate(ring);
	memset(ptrs, 0, 16);
	memset(&cq, 0, sizeof(cq));
	cq.ring_base_address = hva(ring);
	cq.ring_size = RING_SIZE;
	cq.write_pointer_address = hva(ptrs);
	cq.read_pointer_address = hva(ptrs + 8);
	cq.gpu_id = w->gpu_id;
	cq.queue_type = KFD_IOC_QUEUE_TYPE_COMPUTE_AQL;
	cq.queue_percentage = 100;
	assert_int_equal(kio(w, AMDKFD_IOC_CREATE_QUEUE, &cq), 0);
	if (db) {
		/* every queue of the process on this GPU: one doorbell slice */
		assert_int_equal(cq.doorbell_offset & ~(uint64_t)8191, w->db_page);
		*db = (volatile uint64_t *)((uint8_t *)w->db_map + (cq.doorbell_offset & 8191));
	}
	return cq.queue_id;
}

struct restarter {
	struct world *w;
	uint8_t *rings[2];
	uint32_t queue_id;
	unsigned restarts;
	int last; /* the UPDATE_QUEUE result that ended the loop */
};

/* UPDATE_QUEUE with a new ring, over and over (each one stops and starts
 * the queue's engine), until the queue is gone. */
static void *restart_loop(void *arg)
{
	struct restarter *r = arg;
	int ret;

	do {
		struct kfd_ioctl_update_queue_args u;

		memset(&u, 0, sizeof(u));
		u.queue_id = r->queue_id;
		u.ring_base_address = hva(r->rings[r->restarts % 2]);
		u.ring_size = RING_SIZE;
		u.queue_percentage = 100;
		ret = kio(r->w, AMDKFD_IOC_UPDATE_QUEUE, &u);
		r->restarts++;
	} while (ret == 0);
	r->last = ret;
	return NULL;
}

/* A VM fault on F evicts every queue of the process, B included, from F's
 * engine thread, while another thread restarts B's engine and the test
 * then destroys B under it. The eviction must never use an engine that
 * the restart has stopped (TSan/ASan), the fault must be reported once
 * per round, and a destroyed queue answers like amdkfd: UPDATE_QUEUE
 * -EFAULT, DESTROY_QUEUE -EINVAL. */
static void test_eviction_races_restart_and_destroy(void **state)
{
	struct world *w = *state;
	uint8_t *pg = aligned_alloc(4096, RACE_PAGES * 4096);
	uint64_t handles[RACE_PAGES];
	uint64_t t0 = mono_ns();
	unsigned round;

	assert_non_null(pg);
	memset(pg, 0, RACE_PAGES * 4096);
	for (unsigned i = 0; i < RACE_PAGES; i++) {
		struct kfd_ioctl_alloc_memory_of_gpu_args al;

		memset(&al, 0, sizeof(al));
		al.va_addr = hva(pg + 4096 * i);
		al.size = 4096;
		al.gpu_id = w->gpu_id;
		al.mmap_offset = al.va_addr;
		al.flags = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | FLAG_WRITABLE;
		assert_int_equal(kio(w, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &al), 0);
		map_to_gpu(w, al.handle);
		handles[i] = al.handle;
	}
	ring_invalidate(pg + 4096 * PG_B_RING1);
	ring_invalidate(pg + 4096 * PG_B_RING2);
	for (round = 0; round < RACE_ROUNDS && mono_ns() - t0 < RACE_BUDGET_NS; round++) {
		/* a fresh address per round tells this fault from the last */
		uint64_t bad = w->ev_page_va + (1u << 20) + 4096ull * (round % 200);
		struct restarter r = {.w = w,
				      .rings = {pg + 4096 * PG_B_RING1, pg + 4096 * PG_B_RING2}};
		uint8_t *f_ring = pg + 4096 * PG_F_RING, *f_ptrs = pg + 4096 * PG_F_PTRS;
		struct kfd_ioctl_destroy_queue_args dq;
		struct kfd_ioctl_update_queue_args u;
		struct aql_dispatch_packet p;
		struct kfd_event_data d;
		uint32_t fq;
		pthread_t th;
		bool seen = false;

		volatile uint64_t *f_db;

		fq = make_queue(w, f_ring, f_ptrs, &f_db);
		r.queue_id = make_queue(w, r.rings[0], pg + 4096 * PG_B_PTRS, NULL);
		assert_int_equal(pthread_create(&th, NULL, restart_loop, &r), 0);

		memcpy(w->buf + OFF_KARG + 0x100, &bad, 8);
		memset(&p, 0, sizeof(p));
		p.header = AQL_TYPE_KERNEL_DISPATCH | AQL_HEADER_BARRIER;
		p.setup = 1;
		p.workgroup_size[0] = p.workgroup_size[1] = p.workgroup_size[2] = 1;
		p.grid_size[0] = p.grid_size[1] = p.grid_size[2] = 1;
		p.kernel_object = va(w, OFF_KOBJ + 64 * KFDSIM_BUILTIN_FAULT);
		p.kernarg_address = va(w, OFF_KARG + 0x100);
		memcpy(f_ring + 2, (const uint8_t *)&p + 2, 62);
		__atomic_store_n((uint16_t *)f_ring, p.header, __ATOMIC_RELEASE);
		__atomic_store_n((uint64_t *)f_ptrs, 1, __ATOMIC_RELEASE);
		*f_db = 0; /* packet 0 is ready: the engine works up to the doorbell */

		/* the event may still hold the last round's fault: poll */
		for (int ms = 0; ms < 10000 && !seen; ms++) {
			assert_int_equal(wait_event(w, w->mem_event_id, 5000, &d),
					 KFD_IOC_WAIT_RESULT_COMPLETE);
			seen = d.memory_exception_data.va == (bad & ~4095ull);
			if (!seen)
				usleep(1000);
		}
		assert_true(seen);

		/* destroy B while it is being restarted, then F */
		dq = (struct kfd_ioctl_destroy_queue_args){.queue_id = r.queue_id};
		assert_int_equal(kio(w, AMDKFD_IOC_DESTROY_QUEUE, &dq), 0);
		assert_int_equal(pthread_join(th, NULL), 0);
		assert_int_equal(r.last, -EFAULT);
		assert_int_equal(kio(w, AMDKFD_IOC_DESTROY_QUEUE, &dq), -EINVAL);
		memset(&u, 0, sizeof(u));
		u.queue_id = r.queue_id;
		u.queue_percentage = 100;
		assert_int_equal(kio(w, AMDKFD_IOC_UPDATE_QUEUE, &u), -EFAULT);
		dq = (struct kfd_ioctl_destroy_queue_args){.queue_id = fq};
		assert_int_equal(kio(w, AMDKFD_IOC_DESTROY_QUEUE, &dq), 0);
	}
	for (unsigned i = 0; i < RACE_PAGES; i++) {
		struct kfd_ioctl_unmap_memory_from_gpu_args um = {
		    .handle = handles[i],
		    .device_ids_array_ptr = (uintptr_t)&w->gpu_id,
		    .n_devices = 1,
		};
		struct kfd_ioctl_free_memory_of_gpu_args fr = {.handle = handles[i]};

		assert_int_equal(kio(w, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, &um), 0);
		assert_int_equal(kio(w, AMDKFD_IOC_FREE_MEMORY_OF_GPU, &fr), 0);
	}
	free(pg);
	printf("# %u rounds\n", round);
	assert_true(round > 0);
}

/* An SDMA queue on the world's GPU whose ring is OFF_SDMA_RING. */
struct sdma_q {
	uint32_t id;
	void *db_map;
	volatile uint64_t *db;
};

static void sdma_open(struct world *w, struct sdma_q *q)
{
	struct kfd_ioctl_create_queue_args cq;

	memset(&cq, 0, sizeof(cq));
	cq.ring_base_address = va(w, OFF_SDMA_RING);
	cq.ring_size = 4096;
	cq.read_pointer_address = va(w, OFF_SDMA_RPTR);
	cq.write_pointer_address = va(w, OFF_SDMA_WPTR);
	cq.gpu_id = w->gpu_id;
	cq.queue_type = KFD_IOC_QUEUE_TYPE_SDMA;
	cq.queue_percentage = 100;
	cq.queue_priority = 15;
	assert_int_equal(kio(w, AMDKFD_IOC_CREATE_QUEUE, &cq), 0);
	q->id = cq.queue_id;
	q->db_map = w->ops->mmap(w->sim, NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, w->kfd,
				 (off_t)(cq.doorbell_offset & ~(uint64_t)8191));
	assert_true(q->db_map != MAP_FAILED);
	q->db = (volatile uint64_t *)((uint8_t *)q->db_map + (cq.doorbell_offset & 8191));
}

static void sdma_submit(struct world *w, struct sdma_q *q, const uint32_t *pk, size_t bytes)
{
	memcpy(w->buf + OFF_SDMA_RING, pk, bytes);
	__atomic_store_n((uint64_t *)(w->buf + OFF_SDMA_WPTR), (uint64_t)bytes, __ATOMIC_RELEASE);
	*q->db = bytes;
}

static void sdma_close(struct world *w, struct sdma_q *q)
{
	struct kfd_ioctl_destroy_queue_args dq = {.queue_id = q->id};

	w->ops->munmap(w->sim, q->db_map, 8192);
	assert_int_equal(kio(w, AMDKFD_IOC_DESTROY_QUEUE, &dq), 0);
}

/* One COPY_LINEAR of 4 MiB + 100 bytes (past a 22-bit count) followed by
 * a fence, as ROCr 6.x emits it on gfx90a (SDMA 4.4) and gfx1030 (SDMA
 * 5.2): the whole range arrives. kfdsim used to read 22 bits and copy
 * only the low 100 bytes' worth. */
static void test_sdma_wide_count_copies_everything(void **state)
{
	struct world *w = *state;
	const uint64_t n = (4u << 20) + 100u, big = 16u << 20;
	uint8_t *mem = aligned_alloc(4096, big);
	uint64_t src, dst, fence = va(w, OFF_DATA);
	struct kfd_ioctl_alloc_memory_of_gpu_args al;
	struct sdma_q q;
	uint32_t pk[16] = {0};

	assert_non_null(mem);
	memset(mem, 0, big);
	for (uint64_t i = 0; i < n; i++)
		mem[i] = (uint8_t)(i * 131 + (i >> 13));
	memset(&al, 0, sizeof(al));
	al.va_addr = (uintptr_t)mem;
	al.size = big;
	al.gpu_id = w->gpu_id;
	al.mmap_offset = (uintptr_t)mem;
	al.flags = KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | FLAG_WRITABLE;
	assert_int_equal(kio(w, AMDKFD_IOC_ALLOC_MEMORY_OF_GPU, &al), 0);
	map_to_gpu(w, al.handle);
	src = (uintptr_t)mem;
	dst = src + (8u << 20);
	pk[0] = 1; /* COPY_LINEAR */
	pk[1] = (uint32_t)(n - 1);
	pk[3] = (uint32_t)src;
	pk[4] = (uint32_t)(src >> 32);
	pk[5] = (uint32_t)dst;
	pk[6] = (uint32_t)(dst >> 32);
	pk[8] = 5; /* FENCE */
	pk[9] = (uint32_t)fence;
	pk[10] = (uint32_t)(fence >> 32);
	pk[11] = 0x600d;
	sdma_open(w, &q);
	sdma_submit(w, &q, pk, sizeof(pk));
	for (int i = 0; i < 20000 && __atomic_load_n((uint32_t *)(w->buf + OFF_DATA),
						     __ATOMIC_ACQUIRE) != 0x600d;
	     i++)
		usleep(1000);
	assert_int_equal(*(uint32_t *)(w->buf + OFF_DATA), 0x600d);
	assert_memory_equal(mem + (8u << 20), mem, n);
	assert_int_equal(mem[(8u << 20) + n], 0);
	sdma_close(w, &q);
	free(mem);
}

/* A count wider than the engine reads is refused: the process gets the
 * HW-exception (GPU reset after an SDMA hang) event, nothing is copied. */
static void test_sdma_bad_count_raises_hw_exception(void **state)
{
	struct world *w = *state;
	struct kfd_ioctl_create_event_args ev;
	struct kfd_event_data d;
	uint64_t src = va(w, OFF_DATA), dst = va(w, OFF_DATA + 0x8000);
	struct sdma_q q;
	uint32_t pk[8] = {1,
			  1u << 31 | 99u,
			  0,
			  (uint32_t)src,
			  (uint32_t)(src >> 32),
			  (uint32_t)dst,
			  (uint32_t)(dst >> 32),
			  0};

	memset(w->buf + OFF_DATA, 0x5c, 100);
	memset(&ev, 0, sizeof(ev));
	ev.event_type = KFD_IOC_EVENT_HW_EXCEPTION;
	assert_int_equal(kio(w, AMDKFD_IOC_CREATE_EVENT, &ev), 0);
	sdma_open(w, &q);
	sdma_submit(w, &q, pk, sizeof(pk));
	assert_int_equal(wait_event(w, ev.event_id, 5000, &d), KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_int_equal(d.hw_exception_data.gpu_id, w->gpu_id);
	assert_int_equal(d.hw_exception_data.reset_cause, KFD_HW_EXCEPTION_GPU_HANG);
	assert_int_equal(w->buf[OFF_DATA + 0x8000], 0);
	assert_int_equal(*(uint64_t *)(w->buf + OFF_SDMA_RPTR), 0);
	sdma_close(w, &q);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_dispatch_signals_event, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ring_doorbell_wakes_engine, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_ring_doorbell_races_destroy, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_fault_raises_memory_event, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sdma_copy_signals_event, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_eviction_races_restart_and_destroy, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_sdma_wide_count_copies_everything, setup,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_sdma_wide_count_copies_everything, setup_gfx1030,
					    teardown),
	    cmocka_unit_test_setup_teardown(test_sdma_bad_count_raises_hw_exception, setup,
					    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
