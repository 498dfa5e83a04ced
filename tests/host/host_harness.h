/* SPDX-License-Identifier: MIT */
/*
 * Test harness: a guest's view of one host context over the public host
 * API, with batches built by the protocol codec. Runs on the in-process
 * kfdsim, or with VKFD_TEST_DEVICE=real on the real device backend (its
 * /dev/kfd then comes from the LD_PRELOAD shim's kfdsim; see
 * docs/testing.md).
 */
#ifndef VKFD_HOST_HARNESS_H
#define VKFD_HOST_HARNESS_H

#include <stdbool.h>
#include <stdint.h>

#include "vkfd/host.h"
#include "vkfd_codec.h"
#include "vkfd_protocol.h"

struct harness {
	struct vkfd_host_context *ctx;
	uint32_t ctx_id;
	void *shmem;
	int shmem_fd;
	uint32_t seqno;    /* the context's first request seqno */
	bool add_failed;   /* the last h_add did not fit (seqno 0 is valid) */
	uint32_t rsp_next; /* next free response offset */
	uint32_t gpu_id;
	struct vkfd_aperture ap;
	uint8_t *batch;
	struct vkfd_builder b;
	uint64_t next_va;
	uint64_t next_fence;
	uint64_t next_blob; /* blob id h_bo_make binds next */
};

/* VKFD_TEST_DEVICE=real: the host runs on VKFD_DEVICE_REAL. */
bool h_real_device(void);
/* The device h_lib_init asks for (VKFD_DEVICE_REAL or VKFD_DEVICE_SIM). */
enum vkfd_host_device h_device(void);
/* Value for VKFD_DEVICE that keeps the library on h_device(). */
const char *h_device_env(void);

/* In a cmocka test: skip it on the real device, saying why (it needs the
 * in-process kfdsim's hooks, or more than one KFD process per host
 * process, which neither real amdkfd without AMDKFD_IOC_CREATE_PROCESS
 * nor the shim's kfdsim offers). */
#define H_SIM_ONLY(why)                                                                            \
	do {                                                                                       \
		if (h_real_device()) {                                                             \
			print_message("skipped on the real device: %s\n", why);                    \
			skip();                                                                    \
		}                                                                                  \
	} while (0)

/* Library init on h_device() with POLL fences; quota may be NULL. */
int h_lib_init(uint32_t flags, const struct vkfd_host_quota *quota);
void h_lib_fini(void);
/* Retired fences seen by the callback (all contexts). */
bool h_fence_retired(uint32_t ctx_id, uint32_t ring, uint64_t fence_id);
int h_fence_count(uint32_t ctx_id, uint32_t ring, uint64_t fence_id);

/* cmocka group set-up and teardown: h_lib_init(0, NULL) and h_lib_fini. */
int h_setup_lib(void **state);
int h_teardown_lib(void **state);
/* The same with context 1 opened (h_open); *state is its struct harness. */
int h_setup_lib_ctx(void **state);
int h_teardown_lib_ctx(void **state);

/* Create a context, its shared memory, HELLO, ACQUIRE_VM on GPU 0. */
int h_open(struct harness *h, uint32_t ctx_id);
/* First request seqno of contexts opened from now on (default 1000). */
extern uint32_t h_first_seqno;
/* Create a context without shared memory. */
int h_open_bare(struct harness *h, uint32_t ctx_id);
void h_close(struct harness *h);

/* Append a request (len bytes of req); returns its seqno; *rsp_off gets the
 * response slot offset (sync commands). */
uint32_t h_add(struct harness *h, uint32_t cmd, void *req, uint32_t len, uint32_t *rsp_off);
/* Submit what was added; returns submit_cmd's result. */
int h_flush(struct harness *h);
/* Wait (up to 5 s) until the header seqno passed s. */
int h_wait_seqno(struct harness *h, uint32_t s);
/* Wait (up to ms) until the response slot at rsp_off carries seqno s. */
int h_wait_slot(struct harness *h, uint32_t rsp_off, uint32_t s, int ms);
/* The response slot at rsp_off. */
void *h_rsp(struct harness *h, uint32_t rsp_off);
/* One sync request: add, flush, wait, copy up to rsp_len bytes; returns
 * the response's ret (or a negative harness error: -ETIMEDOUT, -EIO). */
int h_call(struct harness *h, uint32_t cmd, void *req, uint32_t len, void *rsp, uint32_t rsp_len);
/* One async request, flushed, then wait until processed. */
int h_async(struct harness *h, uint32_t cmd, void *req, uint32_t len);

/* Conveniences (return the response's ret). */
int h_alloc(struct harness *h, uint64_t va, uint64_t size, uint32_t flags, uint64_t *handle,
	    struct vkfd_rsp_alloc_memory *out);
int h_map(struct harness *h, uint64_t handle);
int h_unmap(struct harness *h, uint64_t handle);
void h_free(struct harness *h, uint64_t handle);
/* Fresh GPU VA range inside the aperture. */
uint64_t h_va(struct harness *h, uint64_t size);
/* Alloc + map GTT memory; returns the handle (test fails on error). */
uint64_t h_gtt(struct harness *h, uint64_t size, uint64_t *va);
void h_bind(struct harness *h, uint64_t handle, uint64_t blob_id);

/* A BO as a guest makes one: allocated at a fresh VA, mapped on the GPU
 * (not a DOORBELL BO), bound to a fresh blob id, exported and CPU-mapped. */
struct h_bo {
	uint64_t handle, va, size;
	void *cpu;          /* the blob, mapped */
	int fd;             /* the blob's fd */
	uint32_t blob_info; /* struct vkfd_blob's info (VKFD_BLOB_INFO_*) */
};
/* 0, or the failing step's negative errno (-EIO for a failed mmap). */
int h_bo_make(struct harness *h, struct h_bo *b, uint64_t size, uint32_t flags);
void h_bo_drop(struct h_bo *b);
int h_create_event(struct harness *h, uint64_t page, uint32_t type, uint32_t auto_reset,
		   uint32_t *id);

/* HELLO again (protocol 1.x) asking for `features`; *granted gets what
 * the host granted. Returns the response's ret. */
int h_hello(struct harness *h, uint64_t features, uint64_t *granted);
/* CREATE_QUEUE on h's GPU: a 4 KiB ring at ring, the write and read
 * pointers at wptr and rptr, 100 %, the given priority. Returns the
 * response's ret; *rsp gets the response. */
int h_create_queue(struct harness *h, uint32_t type, uint64_t ring, uint64_t wptr, uint64_t rptr,
		   uint32_t priority, struct vkfd_rsp_create_queue *rsp);
/* Append a WAIT_EVENTS on one event to ring `ring` (h_add: its seqno). */
uint32_t h_add_wait_event(struct harness *h, uint32_t ring, uint32_t event_id, uint32_t timeout_ms,
			  uint32_t *rsp_off);
/* DESTROY_QUEUE of a queue handle; the response's ret. */
int h_destroy_queue(struct harness *h, uint64_t queue);

/* Poll *p every millisecond (up to ms) until it equals want; returns the
 * last value seen, for the caller to compare. */
uint64_t h_wait_u64(const volatile uint64_t *p, uint64_t want, int ms);
uint32_t h_wait_u32(const volatile uint32_t *p, uint32_t want, int ms);

struct doorbell_relay;
/* Let a doorbell relay make three more complete passes (up to ms); false
 * if it did not. With a slot held the relay backs off to
 * RELAY_POLL_MAX_US, as long as kfdsim's longest idle sleep (1 ms), so
 * after three passes an engine that looked at its write pointer in
 * memory would have run. */
bool h_relay_settle(struct doorbell_relay *r, int ms);
/* The host's real doorbell `index` of h's GPU 0 (kfdsim's slot, where
 * the relay rings), or NULL if the host mapped none. Taking the relay's
 * lock on the way orders the relay's writes before the caller's reads:
 * the shared memory is mapped at two addresses, so TSan cannot pair the
 * seqno's release and acquire. */
volatile uint64_t *h_real_doorbell(struct harness *h, uint32_t index);

/* Count of open fds of this process. */
int h_fd_count(void);

#endif
