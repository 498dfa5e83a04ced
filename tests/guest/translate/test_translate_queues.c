// SPDX-License-Identifier: MIT
/*
 * Translation tests of the shim's vkfd backend: KFD ioctls libhsakmt
 * issues, driven through shim_backend_vkfd against an in-process host
 * context on kfdsim (direct transport), checking what is written back and
 * the errno of each bad argument.
 * This program: events, event ages, waits, SMI events and queues.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "translate_harness.h"

/* The first signal event carries the event page (a GTT BO). */
static uint64_t event_page_handle;

static void test_events(void **state)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	struct kfd_ioctl_create_event_args ce;
	struct kfd_ioctl_set_event_args ei;
	struct vkfd_kfd_event_data ed[2];
	struct kfd_ioctl_wait_events_args w;
	size_t psz = KFD_SIGNAL_EVENT_LIMIT * 8;
	uint64_t va = va_reserve(psz);
	uint32_t sig;

	(void)state;
	/* as libhsakmt allocates it (hsakmt_allocate_exec_aligned_memory_gpu:
	 * ExecuteAccess), which keeps it out of the shim's arenas */
	assert_int_equal(alloc_bo(va, psz, GTT_FLAGS | KFD_IOC_ALLOC_MEM_FLAGS_EXECUTABLE, &a), 0);
	event_page_handle = a.handle;
	assert_ptr_equal(B.mmap((void *)(uintptr_t)va, psz, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_FIXED, rfd, (off_t)a.mmap_offset),
			 (void *)(uintptr_t)va);
	/* an unknown page handle */
	memset(&ce, 0, sizeof(ce));
	ce.event_page_offset = a.handle + 12345;
	ce.event_type = KFD_IOC_EVENT_SIGNAL;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_EVENT), sizeof(ce), &ce), -EINVAL);
	memset(&ce, 0, sizeof(ce));
	ce.event_page_offset = a.handle;
	ce.event_type = KFD_IOC_EVENT_SIGNAL;
	ce.auto_reset = 1;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_EVENT), sizeof(ce), &ce), 0);
	sig = ce.event_id;
	/* the kernel allocates signal slots from 0, like idr_alloc */
	if (sig >= KFD_SIGNAL_EVENT_LIMIT)
		fail_msg("signal event id %#x slot %u", sig, ce.event_slot_index);
	assert_int_equal(ce.event_slot_index, sig);
	assert_true(ce.event_page_offset != 0); /* libhsakmt needs > 0 */
	/* the event page cannot be freed while it is in use */
	assert_int_equal(free_bo(a.handle), -EPERM);

	/* poll: not signalled */
	memset(ed, 0, sizeof(ed));
	ed[0].event_id = sig;
	memset(&w, 0, sizeof(w));
	w.events_ptr = (uintptr_t)ed;
	w.num_events = 1;
	w.timeout = 0;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(w), &w), 0);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_TIMEOUT);
	/* repeated polls stay TIMEOUT (answered locally when hinted) */
	for (int i = 0; i < 100; i++) {
		w.wait_result = 77;
		assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(w), &w), 0);
		assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_TIMEOUT);
	}
	/* set: the next poll must see it, never a stale TIMEOUT */
	ei.event_id = sig;
	ei.pad = 0;
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_SET_EVENT), sizeof(ei), &ei), 0);
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(w), &w), 0);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
	/* auto-reset: consumed */
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(w), &w), 0);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_TIMEOUT);
	/* a blocking wait with a timeout lasts at least that long */
	{
		struct timespec t0, t1;
		long ms;

		w.timeout = 30;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(w), &w), 0);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_TIMEOUT);
		assert_true(ms >= 29);
		w.timeout = 0;
	}
	/* bad arguments */
	w.num_events = 0;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(w), &w), -EINVAL);
	w.num_events = 65;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(w), &w), -EINVAL);
	w.num_events = 1;
	w.events_ptr = 24;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(w), &w), -EFAULT);
	w.events_ptr = (uintptr_t)ed;
	ed[0].event_id = 4000;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(w), &w), -EINVAL);
	/* reset, destroy */
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_RESET_EVENT), sizeof(ei), &ei), 0);
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_DESTROY_EVENT), sizeof(ei), &ei),
			 0);
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_DESTROY_EVENT), sizeof(ei), &ei),
			 -EINVAL);
	/* set/reset of a destroyed or never created event */
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_SET_EVENT), sizeof(ei), &ei),
			 -EINVAL);
	ei.event_id = 4095;
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_RESET_EVENT), sizeof(ei), &ei),
			 -EINVAL);
	/* a memory-exception event has a non-signal id and cannot be set */
	memset(&ce, 0, sizeof(ce));
	ce.event_type = KFD_IOC_EVENT_MEMORY;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_EVENT), sizeof(ce), &ce), 0);
	assert_true(ce.event_id >= 0x40000000u);
	ei.event_id = ce.event_id;
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_SET_EVENT), sizeof(ei), &ei),
			 -EINVAL);
	ed[0].event_id = ce.event_id;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(w), &w), 0);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_TIMEOUT);
}

/* KFD >= 1.14 event ages: a wait with last_event_age different from the
 * event's age completes at once and the new age is written back. */
static void test_event_ages(void **state)
{
	struct kfd_ioctl_create_event_args ce;
	struct kfd_ioctl_set_event_args ei;
	struct vkfd_kfd_event_data ed;
	struct kfd_ioctl_wait_events_args w;
	struct kfd_ioctl_get_version_args v;
	uint64_t age;

	(void)state;
	assert_int_equal(kio(kfd, _IOC_READ, _IOC_NR(AMDKFD_IOC_GET_VERSION), sizeof(v), &v), 0);
	if (v.minor_version < 14)
		skip();
	memset(&ce, 0, sizeof(ce));
	ce.event_type = KFD_IOC_EVENT_SIGNAL;
	ce.event_page_offset = event_page_handle;
	ce.auto_reset = 1;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_EVENT), sizeof(ce), &ce), 0);
	ei.event_id = ce.event_id;
	ei.pad = 0;
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_SET_EVENT), sizeof(ei), &ei), 0);
	memset(&ed, 0, sizeof(ed));
	ed.event_id = ce.event_id;
	age = 1; /* the age a fresh event starts with */
	ed.last_event_age = age;
	memset(&w, 0, sizeof(w));
	w.events_ptr = (uintptr_t)&ed;
	w.num_events = 1;
	w.timeout = 1000;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(w), &w), 0);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
	age = ed.last_event_age;
	assert_true(age > 1);
	/* with the current age and nothing new: a poll times out */
	w.timeout = 0;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(w), &w), 0);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_TIMEOUT);
	/* a stale age completes at once (the set happened meanwhile) */
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_SET_EVENT), sizeof(ei), &ei), 0);
	w.timeout = 1000;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(w), &w), 0);
	assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
	{
		uint64_t age2;

		age2 = ed.last_event_age;
		assert_true(age2 > age);
	}
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_DESTROY_EVENT), sizeof(ei), &ei),
			 0);
}

/* A blocking WAIT_EVENTS on one thread must not hold up other calls of the
 * same process (ROCr's event thread waits while the main thread works). */
struct waiter_arg {
	uint32_t event_id;
	volatile int done;
	int r;
	uint32_t result;
};

static void *waiter_main(void *p)
{
	struct waiter_arg *w = p;
	struct vkfd_kfd_event_data ed;
	struct kfd_ioctl_wait_events_args wa;

	memset(&ed, 0, sizeof(ed));
	ed.event_id = w->event_id;
	memset(&wa, 0, sizeof(wa));
	wa.events_ptr = (uintptr_t)&ed;
	wa.num_events = 1;
	wa.timeout = 5000;
	w->r = kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(wa), &wa);
	w->result = wa.wait_result;
	__atomic_store_n(&w->done, 1, __ATOMIC_RELEASE);
	return NULL;
}

static void test_wait_does_not_block_others(void **state)
{
	struct kfd_ioctl_create_event_args ce;
	struct kfd_ioctl_set_event_args ei;
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	struct waiter_arg w;
	struct kfd_ioctl_get_version_args v;
	pthread_t th;
	uint64_t va = va_reserve(16 * PAGE);

	(void)state;
	memset(&ce, 0, sizeof(ce));
	ce.event_type = KFD_IOC_EVENT_SIGNAL;
	ce.event_page_offset = event_page_handle;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_EVENT), sizeof(ce), &ce), 0);
	memset(&w, 0, sizeof(w));
	w.event_id = ce.event_id;
	assert_int_equal(pthread_create(&th, NULL, waiter_main, &w), 0);
	usleep(100000); /* let the wait reach the host */
	/* sync calls, an allocation and a free while the wait is pending */
	assert_int_equal(kio(kfd, _IOC_READ, _IOC_NR(AMDKFD_IOC_GET_VERSION), sizeof(v), &v), 0);
	assert_int_equal(alloc_bo(va, 16 * PAGE, GTT_FLAGS, &a), 0);
	assert_ptr_equal(B.mmap((void *)(uintptr_t)va, 16 * PAGE, PROT_READ | PROT_WRITE,
				MAP_SHARED | MAP_FIXED, rfd, (off_t)a.mmap_offset),
			 (void *)(uintptr_t)va);
	assert_int_equal(free_bo(a.handle), 0);
	/* a USERPTR conversion creates a blob: also not held up */
	{
		unsigned char *u = mmap(NULL, 4 * PAGE, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		assert_true(u != MAP_FAILED);
		u[1] = 9;
		assert_int_equal(alloc_bo((uintptr_t)u, 4 * PAGE,
					  KFD_IOC_ALLOC_MEM_FLAGS_USERPTR | (1u << 31), &a),
				 0);
		assert_int_equal(u[1], 9);
		assert_int_equal(free_bo(a.handle), 0);
		munmap(u, 4 * PAGE);
	}
	assert_int_equal(__atomic_load_n(&w.done, __ATOMIC_ACQUIRE), 0);
	/* then wake the waiter */
	ei.event_id = ce.event_id;
	ei.pad = 0;
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_SET_EVENT), sizeof(ei), &ei), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(w.r, 0);
	assert_int_equal(w.result, KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_DESTROY_EVENT), sizeof(ei), &ei),
			 0);
	munmap((void *)(uintptr_t)va, 16 * PAGE);
}

static struct bk_conn *kfd_conn(void)
{
	struct bk_conn *c;

	bk_table_lock();
	c = bk_file_get_locked(kfd)->conn;
	bk_table_unlock();
	return c;
}

/* SET_EVENT is sent at once only while a thread of this process waits on
 * the host (backend_vkfd_events.c); otherwise it rides with the next
 * request, ahead of it: a WAIT_EVENTS after it still sees the event set. */
static void test_set_event_flush_rule(void **state)
{
	struct bk_conn *c = kfd_conn();
	struct kfd_ioctl_create_event_args ce;
	struct kfd_ioctl_set_event_args ei;
	struct kfd_ioctl_wait_events_args wa;
	struct vkfd_kfd_event_data ed;
	struct waiter_arg w;
	uint64_t s0;
	pthread_t th;

	(void)state;
	memset(&ce, 0, sizeof(ce));
	ce.event_type = KFD_IOC_EVENT_SIGNAL;
	ce.event_page_offset = event_page_handle;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_EVENT), sizeof(ce), &ce), 0);
	memset(&ei, 0, sizeof(ei));
	ei.event_id = ce.event_id;

	/* nobody waits: queued, not submitted. The library's ~1 ms flusher
	 * may submit it between the two counts on a loaded machine, so one
	 * try in 20 that submitted nothing shows it; a SET flushed at once
	 * would submit in every try. */
	{
		bool queued = false;

		for (int i = 0; i < 20 && !queued; i++) {
			s0 = vkfd_guest_submit_count(c->g);
			assert_int_equal(
			    kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_SET_EVENT), sizeof(ei), &ei),
			    0);
			queued = vkfd_guest_submit_count(c->g) == s0;
		}
		assert_true(queued);
	}
	/* a poll after it sees it (it goes out ahead of the wait) */
	memset(&ed, 0, sizeof(ed));
	ed.event_id = ce.event_id;
	memset(&wa, 0, sizeof(wa));
	wa.events_ptr = (uintptr_t)&ed;
	wa.num_events = 1;
	wa.timeout = 0;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(wa), &wa), 0);
	assert_int_equal(wa.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);

	/* a thread blocked on the host: the SET is sent at once (the RESET
	 * rides ahead of the waiter's WAIT_EVENTS) */
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_RESET_EVENT), sizeof(ei), &ei), 0);
	memset(&w, 0, sizeof(w));
	w.event_id = ce.event_id;
	assert_int_equal(pthread_create(&th, NULL, waiter_main, &w), 0);
	for (int i = 0; i < 5000 && !__atomic_load_n(&c->n_host_waits, __ATOMIC_SEQ_CST); i++)
		usleep(1000);
	assert_int_equal(__atomic_load_n(&c->n_host_waits, __ATOMIC_SEQ_CST), 1);
	s0 = vkfd_guest_submit_count(c->g);
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_SET_EVENT), sizeof(ei), &ei), 0);
	assert_true(vkfd_guest_submit_count(c->g) > s0);
	assert_int_equal(pthread_join(th, NULL), 0);
	assert_int_equal(w.r, 0);
	assert_int_equal(w.result, KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_int_equal(kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_DESTROY_EVENT), sizeof(ei), &ei),
			 0);
}

/* SMI_EVENTS (KFD 1.3), answered in the guest: a client fd that takes
 * the event mask and gives records without waiting; the host's events
 * never reach it. */
static void test_smi_events(void **state)
{
	struct {
		uint32_t gpuid, anon_fd;
	} a = {gpu_id, 0};
	uint64_t mask = 1; /* VMFAULT */
	char buf[128];
	struct pollfd pfd;
	int fd;

	(void)state;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_SMI_EVENTS), sizeof(a), &a), 0);
	fd = (int)a.anon_fd;
	assert_true(fd > 2);
	assert_int_equal(write(fd, &mask, sizeof(mask)), (ssize_t)sizeof(mask));
	assert_int_equal(read(fd, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EAGAIN);
	pfd = (struct pollfd){.fd = fd, .events = POLLIN};
	assert_int_equal(poll(&pfd, 1, 0), 0);
	a.gpuid = gpu_id + 1;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_SMI_EVENTS), sizeof(a), &a), -EINVAL);

	/* a VM fault of this process: an SDMA copy from an unmapped VA; the
	 * memory event's data reaches the guest and the client's record is
	 * "1 pid:comm" */
	{
		struct kfd_ioctl_alloc_memory_of_gpu_args ring, ptrs, db;
		struct vkfd_kfd_create_queue_args q;
		struct kfd_ioctl_create_event_args ce;
		struct vkfd_kfd_event_data ed;
		struct kfd_ioctl_wait_events_args w;
		uint32_t ids[1] = {gpu_id}, ns = 0, *pk;
		uint64_t rva = va_reserve(16 * PAGE), pva = va_reserve(PAGE);
		uint64_t dva = va_reserve(2 * PAGE), wp = 28;
		char comm[17] = {0}, want[64];
		void *m;
		int n;

		prctl(PR_GET_NAME, comm);
		snprintf(want, sizeof(want), "1 %x:%s\n", (unsigned)getpid(), comm);
		memset(&ce, 0, sizeof(ce));
		ce.event_type = KFD_IOC_EVENT_MEMORY;
		assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_EVENT), sizeof(ce), &ce),
				 0);
		assert_int_equal(alloc_bo(rva, 16 * PAGE, GTT_FLAGS, &ring), 0);
		assert_int_equal(alloc_bo(pva, PAGE, GTT_FLAGS, &ptrs), 0);
		assert_int_equal(
		    map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), ring.handle, ids, 1, &ns), 0);
		ns = 0;
		assert_int_equal(
		    map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), ptrs.handle, ids, 1, &ns), 0);
		assert_ptr_equal(B.mmap((void *)(uintptr_t)rva, 16 * PAGE, PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_FIXED, rfd, (off_t)ring.mmap_offset),
				 (void *)(uintptr_t)rva);
		assert_ptr_equal(B.mmap((void *)(uintptr_t)pva, PAGE, PROT_READ | PROT_WRITE,
					MAP_SHARED | MAP_FIXED, rfd, (off_t)ptrs.mmap_offset),
				 (void *)(uintptr_t)pva);
		memset(&q, 0, sizeof(q));
		q.base.ring_base_address = rva;
		q.base.ring_size = 16 * PAGE;
		q.base.write_pointer_address = pva;
		q.base.read_pointer_address = pva + 64;
		q.base.gpu_id = gpu_id;
		q.base.queue_type = 1; /* SDMA */
		q.base.queue_percentage = 100;
		assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_QUEUE), 96, &q), 0);
		/* COPY_LINEAR of 16 bytes from an unmapped VA */
		pk = (uint32_t *)(uintptr_t)rva;
		pk[0] = 1;  /* op COPY, sub-op LINEAR */
		pk[1] = 15; /* bytes - 1 */
		pk[2] = 0;
		pk[3] = 0x10000000u; /* src: nothing mapped there */
		pk[4] = 0x7f;
		pk[5] = (uint32_t)(rva + 8 * PAGE);
		pk[6] = (uint32_t)((rva + 8 * PAGE) >> 32);
		__atomic_store_n((uint64_t *)(uintptr_t)pva, wp, __ATOMIC_RELEASE);
		assert_int_equal(
		    alloc_bo(dva, 2 * PAGE,
			     KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL | (1u << 31) | (1u << 26), &db),
		    0);
		m = B.mmap((void *)(uintptr_t)dva, 2 * PAGE, PROT_READ | PROT_WRITE,
			   MAP_SHARED | MAP_FIXED, kfd,
			   (off_t)(q.base.doorbell_offset & ~(uint64_t)(2 * PAGE - 1)));
		assert_ptr_equal(m, (void *)(uintptr_t)dva);
		memcpy((char *)m + (q.base.doorbell_offset & (2 * PAGE - 1)), &wp, 8);
		memset(&ed, 0, sizeof(ed));
		ed.event_id = ce.event_id;
		memset(&w, 0, sizeof(w));
		w.events_ptr = (uintptr_t)&ed;
		w.num_events = 1;
		w.timeout = 10000;
		assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_WAIT_EVENTS), sizeof(w), &w), 0);
		assert_int_equal(w.wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
		n = (int)read(fd, buf, sizeof(buf) - 1);
		assert_int_equal(n, (int)strlen(want));
		buf[n] = 0;
		assert_string_equal(buf, want);
	}
	close(fd);
}

static void test_create_queue_sizes(void **state)
{
	/* KFD 1.17 rules: rptr and wptr each in a one-page mapping, the ring
	 * mapping exactly the ring size, EOP exactly the node's EOP size */
	struct kfd_ioctl_alloc_memory_of_gpu_args ring, wp, rp, eop, ctx, db;
	struct vkfd_kfd_create_queue_args q;
	uint32_t ids[1] = {gpu_id}, ns;
	uint64_t rva = va_reserve(16 * PAGE), wva = va_reserve(PAGE);
	uint64_t pva = va_reserve(PAGE), eva = va_reserve(PAGE);
	uint64_t cva = va_reserve(64 * PAGE), dva = va_reserve(2 * PAGE);
	uint64_t ev = 0;
	void *m;

	(void)state;
	assert_int_equal(alloc_bo(rva, 16 * PAGE, GTT_FLAGS, &ring), 0);
	assert_int_equal(alloc_bo(wva, PAGE, GTT_FLAGS, &wp), 0);
	assert_int_equal(alloc_bo(pva, PAGE, GTT_FLAGS, &rp), 0);
	assert_int_equal(alloc_bo(eva, PAGE, GTT_FLAGS, &eop), 0);
	assert_int_equal(alloc_bo(cva, 64 * PAGE, GTT_FLAGS, &ctx), 0);
	{
		uint64_t hs[5] = {ring.handle, wp.handle, rp.handle, eop.handle, ctx.handle};

		for (int i = 0; i < 5; i++) {
			ns = 0;
			assert_int_equal(
			    map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), hs[i], ids, 1, &ns), 0);
		}
	}
	for (int pass = 0; pass < 2; pass++) {
		/* KFD <= 1.16 callers pass 88 bytes, 1.17 callers 96 */
		uint32_t size = pass ? 96 : sizeof(struct kfd_ioctl_create_queue_args);

		memset(&q, 0, sizeof(q));
		q.base.ring_base_address = rva;
		q.base.ring_size = 16 * PAGE;
		q.base.write_pointer_address = wva;
		q.base.read_pointer_address = pva;
		q.base.eop_buffer_address = eva;
		q.base.eop_buffer_size = PAGE;
		q.base.ctx_save_restore_address = cva;
		q.base.ctx_save_restore_size = 32 * PAGE;
		q.base.ctl_stack_size = PAGE;
		q.base.gpu_id = gpu_id;
		q.base.queue_type = 2; /* COMPUTE_AQL */
		q.base.queue_percentage = 100;
		q.base.queue_priority = 7;
		q.sdma_engine_id = 0xdeadbeef; /* beyond 88 bytes: unread */
		assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_QUEUE), size, &q), 0);
		assert_int_equal(q.base.doorbell_offset & VKFD_KFD_MMAP_TYPE_MASK,
				 VKFD_KFD_MMAP_TYPE_DOORBELL);
		assert_int_equal((q.base.doorbell_offset & VKFD_KFD_MMAP_GPU_ID_MASK) >>
				     VKFD_KFD_MMAP_GPU_ID_SHIFT,
				 gpu_id & 0xffff);
		/* a tail past what the caller declared is never written */
		if (!pass)
			assert_int_equal(q.sdma_engine_id, 0xdeadbeef);
		{
			struct kfd_ioctl_destroy_queue_args d = {q.base.queue_id, 0};

			assert_int_equal(
			    kio(kfd, RW, _IOC_NR(AMDKFD_IOC_DESTROY_QUEUE), sizeof(d), &d), 0);
			assert_int_equal(
			    kio(kfd, RW, _IOC_NR(AMDKFD_IOC_DESTROY_QUEUE), sizeof(d), &d),
			    -EINVAL);
		}
	}
	/* SDMA by engine id (KFD 1.17): the id reaches the KFD, whose answer
	 * comes back (kfdsim's gfx90a has engines 0-4) */
	q.base.queue_type = 4; /* SDMA_BY_ENG_ID */
	q.sdma_engine_id = 5;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_QUEUE), 96, &q), -EINVAL);
	q.sdma_engine_id = 2;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_QUEUE), 96, &q), 0);
	{
		struct kfd_ioctl_destroy_queue_args d = {q.base.queue_id, 0};

		assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_DESTROY_QUEUE), sizeof(d), &d), 0);
	}
	q.base.queue_type = 2;
	/* a ring outside any mapped BO */
	q.base.ring_base_address = va_reserve(16 * PAGE);
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_QUEUE), 96, &q), -EFAULT);
	q.base.ring_base_address = rva;
	q.base.queue_percentage = 101;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_QUEUE), 96, &q), -EINVAL);
	q.base.queue_percentage = 100;
	assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_CREATE_QUEUE), 96, &q), 0);
	/* the doorbell slice: ALLOC(DOORBELL) and mmap on the kfd fd */
	assert_int_equal(alloc_bo(dva, 2 * PAGE,
				  KFD_IOC_ALLOC_MEM_FLAGS_DOORBELL | (1u << 31) | (1u << 26), &db),
			 0);
	m = B.mmap((void *)(uintptr_t)dva, 2 * PAGE, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		   kfd, (off_t)(q.base.doorbell_offset & ~(uint64_t)(2 * PAGE - 1)));
	assert_ptr_equal(m, (void *)(uintptr_t)dva);
	/* the doorbell slice cannot be registered as user memory; it stays
	 * the doorbell mapping */
	{
		struct kfd_ioctl_alloc_memory_of_gpu_args u;
		uint64_t gva = va_reserve(2 * PAGE);

		assert_int_equal(alloc_userptr(gva, dva, 2 * PAGE, &u), -EFAULT);
		munmap((void *)(uintptr_t)gva, 2 * PAGE);
	}
	/* ring the doorbell as ROCr does: a plain store */
	memcpy((char *)m + (q.base.doorbell_offset & (2 * PAGE - 1)), &ev, 8);
	/* with a queue, an asynchronous MAP is sent at once, a submit without
	 * a reply: the relay holds the doorbell ROCr stores next (a copy into
	 * what it just mapped) until the host has run the MAP */
	{
		struct bk_conn *c = kfd_conn();
		struct kfd_ioctl_alloc_memory_of_gpu_args v;
		uint64_t vva = va_reserve(4 * PAGE), s0, n0;

		assert_int_equal(alloc_bo(vva, 4 * PAGE, VRAM_FLAGS, &v), 0);
		assert_int_equal(vkfd_guest_flush(c->g), 0);
		n0 = vkfd_guest_submit_count(c->g);
		s0 = __atomic_load_n(&c->n_sync, __ATOMIC_RELAXED);
		ns = 0;
		assert_int_equal(
		    map_bo(_IOC_NR(AMDKFD_IOC_MAP_MEMORY_TO_GPU), v.handle, ids, 1, &ns), 0);
		if (c->features & VKFD_FEAT_ASYNC_MAP) {
			assert_int_equal(__atomic_load_n(&c->n_sync, __ATOMIC_RELAXED), s0);
			assert_int_equal(vkfd_guest_submit_count(c->g), n0 + 1);
		}
		assert_int_equal(free_bo(v.handle), 0);
		munmap((void *)(uintptr_t)vva, 4 * PAGE);
	}
	{
		struct kfd_ioctl_update_queue_args u = {rva, q.base.queue_id, 16 * PAGE, 50, 3};
		struct kfd_ioctl_destroy_queue_args d = {q.base.queue_id, 0};
		uint32_t mask[2] = {0xffffffffu, 0x1};
		struct kfd_ioctl_set_cu_mask_args cm = {q.base.queue_id, 64, (uintptr_t)mask};

		assert_int_equal(
		    kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_UPDATE_QUEUE), sizeof(u), &u), 0);
		assert_int_equal(
		    kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_SET_CU_MASK), sizeof(cm), &cm), 0);
		cm.num_cu_mask = 33;
		assert_int_equal(
		    kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_SET_CU_MASK), sizeof(cm), &cm),
		    -EINVAL);
		cm.num_cu_mask = 64;
		cm.cu_mask_ptr = 8;
		assert_int_equal(
		    kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_SET_CU_MASK), sizeof(cm), &cm),
		    -EFAULT);
		u.queue_id = 999;
		assert_int_equal(
		    kio(kfd, _IOC_WRITE, _IOC_NR(AMDKFD_IOC_UPDATE_QUEUE), sizeof(u), &u), -EINVAL);
		assert_int_equal(kio(kfd, RW, _IOC_NR(AMDKFD_IOC_DESTROY_QUEUE), sizeof(d), &d), 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_events),
	    cmocka_unit_test(test_event_ages),
	    cmocka_unit_test(test_wait_does_not_block_others),
	    cmocka_unit_test(test_set_event_flush_rule),
	    cmocka_unit_test(test_create_queue_sizes),
	    cmocka_unit_test(test_smi_events),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
