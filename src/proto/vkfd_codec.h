/* SPDX-License-Identifier: MIT */
/*
 * vkfd protocol codec, used by both sides: a batch builder (guest), a
 * framing-checking batch iterator (host), zero-extension of requests,
 * topology record (de)serialization and shared-memory accessors with the
 * memory ordering docs/protocol.md prescribes.
 *
 * No function here allocates, blocks or reads outside the buffers it is
 * given. All functions returning int return 0 / a count, or -errno.
 */
#ifndef VKFD_CODEC_H
#define VKFD_CODEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "vkfd_protocol.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ */
/* Command table                                                       */
/* ------------------------------------------------------------------ */

struct vkfd_cmd_info {
	const char *name;  /* "ALLOC_MEMORY" */
	uint32_t req_size; /* sizeof the request struct this side knows */
	uint32_t rsp_size; /* sizeof the fixed response part; 0 = async */
	bool sync;         /* has a response */
	bool variable;     /* request and/or response length depends on a count */
};

/* NULL for a command this side does not know. */
const struct vkfd_cmd_info *vkfd_cmd_info(uint32_t cmd);
bool vkfd_cmd_is_known(uint32_t cmd);
bool vkfd_cmd_is_sync(uint32_t cmd);
/* "UNKNOWN" for unknown commands; never NULL. */
const char *vkfd_cmd_name(uint32_t cmd);
/* Size of the request struct this side knows, 0 if unknown. */
uint32_t vkfd_cmd_req_size(uint32_t cmd);

/* Bytes of response slot a request needs: the most the host may write for
 * it, computed from the request (read as if zero-extended; counts above
 * their limit are clamped). 0 for async commands; sizeof(struct
 * vkfd_rsp_hdr) for unknown commands. `req` holds `len` bytes. */
uint32_t vkfd_rsp_size(uint32_t cmd, const void *req, size_t len);

/* True if a response of rsp_size bytes at rsp_off lies inside a response
 * area of area_size bytes and rsp_off is 8-byte aligned. */
bool vkfd_rsp_slot_ok(uint32_t rsp_off, uint32_t rsp_size, uint32_t area_size);

/* ------------------------------------------------------------------ */
/* Builder (guest side)                                                */
/* ------------------------------------------------------------------ */

struct vkfd_builder {
	uint8_t *buf;
	size_t cap;     /* min(buffer size, VKFD_MAX_BATCH_SIZE) */
	size_t len;     /* bytes used */
	uint32_t seqno; /* seqno the next request gets */
	uint32_t count; /* requests in the batch */
};

void vkfd_builder_init(struct vkfd_builder *b, void *buf, size_t cap, uint32_t next_seqno);
/* Start a new batch in the same buffer; seqnos keep increasing. */
void vkfd_builder_reset(struct vkfd_builder *b);

/* Append a request. `req` points at a request struct whose first member is
 * struct vkfd_req_hdr; `len` is the number of bytes of it to send (>= 16,
 * <= VKFD_MAX_REQ_SIZE; rounded up to 8 with zero padding). The header's
 * cmd, len, seqno and rsp_off are set (also in *req). On success returns
 * 0 and stores the seqno in *seqno_out (if not NULL). -EINVAL: bad len or
 * cmd 0; -ENOSPC: the batch is full (nothing appended). */
int vkfd_builder_add(struct vkfd_builder *b, uint32_t cmd, void *req, uint32_t len,
		     uint32_t rsp_off, uint32_t *seqno_out);

/* ------------------------------------------------------------------ */
/* Iterator (host side)                                                */
/* ------------------------------------------------------------------ */

enum vkfd_frame_error {
	VKFD_FRAME_OK = 0,
	VKFD_FRAME_BATCH_TOO_LARGE, /* batch > VKFD_MAX_BATCH_SIZE */
	VKFD_FRAME_TRUNCATED_HDR,   /* fewer than 16 bytes left */
	VKFD_FRAME_ZERO_LEN,        /* len == 0 */
	VKFD_FRAME_SHORT_LEN,       /* len < sizeof(struct vkfd_req_hdr) */
	VKFD_FRAME_UNALIGNED_LEN,   /* len % 8 != 0 */
	VKFD_FRAME_TOO_LARGE,       /* len > VKFD_MAX_REQ_SIZE */
	VKFD_FRAME_OVERRUN,         /* len > bytes left in the batch */
	VKFD_FRAME_RSP_UNALIGNED,   /* sync request, rsp_off % 8 != 0 */
	VKFD_FRAME_RSP_OUT_OF_AREA, /* sync request, slot outside the area */
	VKFD_FRAME_ERROR_COUNT_,
};
const char *vkfd_frame_error_str(enum vkfd_frame_error e);

/* One framed request. `data` points into the batch (len bytes, the header
 * included); it is not necessarily 8-byte aligned: decode with
 * vkfd_req_copy() / vkfd_cmd_decode(). */
struct vkfd_cmd_view {
	struct vkfd_req_hdr hdr; /* copy of the header */
	const uint8_t *data;
	uint32_t rsp_size; /* vkfd_rsp_size() of this request */
	bool known;
	bool sync;
	size_t offset; /* of the request in the batch */
};

struct vkfd_iter {
	const uint8_t *buf;
	size_t size;
	size_t off;
	uint32_t rsp_area_size;
	enum vkfd_frame_error error; /* sticky */
	size_t error_off;
};

void vkfd_iter_init(struct vkfd_iter *it, const void *buf, size_t size, uint32_t rsp_area_size);
/* 1: *v holds the next request; 0: end of batch; -EINVAL: framing error
 * (it->error, it->error_off say what and where; every later call returns
 * -EINVAL too). Unknown commands are framed like any other; their
 * rsp_off is not checked (the host answers them only if
 * vkfd_rsp_slot_ok()). */
int vkfd_iter_next(struct vkfd_iter *it, struct vkfd_cmd_view *v);

/* Check the framing of a whole batch without executing anything. Returns
 * the number of requests or -EINVAL (*err / *err_off if not NULL). */
int vkfd_batch_check(const void *buf, size_t size, uint32_t rsp_area_size,
		     enum vkfd_frame_error *err, size_t *err_off);

/* ------------------------------------------------------------------ */
/* Version skew                                                        */
/* ------------------------------------------------------------------ */

/* Copy a received request of src_len bytes into a private struct of
 * dst_size bytes: a shorter request is zero-extended, a longer one's tail
 * is ignored. Returns the number of bytes copied from src. */
size_t vkfd_req_copy(void *dst, size_t dst_size, const void *src, size_t src_len);

/* Decode a view into `dst` (dst_size bytes, normally sizeof the request
 * struct for v->hdr.cmd). Returns 0, or -EINVAL if dst_size is smaller
 * than the header. */
int vkfd_cmd_decode(const struct vkfd_cmd_view *v, void *dst, size_t dst_size);

/* ------------------------------------------------------------------ */
/* Topology export records                                             */
/* ------------------------------------------------------------------ */

/* Relative path rules: 1..VKFD_TOPOLOGY_MAX_PATH bytes of [A-Za-z0-9_.-/],
 * no leading or trailing '/', no empty, "." or ".." component. */
bool vkfd_topo_path_ok(const char *path, size_t len);
size_t vkfd_topo_record_size(size_t path_len, size_t data_len);
/* Append a record at *off (multiple of 8) in buf[cap]; advances *off.
 * -EINVAL: bad path or data_len; -ENOSPC: does not fit. */
int vkfd_topo_put(void *buf, size_t cap, size_t *off, const char *path, size_t path_len,
		  const void *data, size_t data_len);

struct vkfd_topo_entry {
	const char *path; /* not NUL-terminated */
	uint32_t path_len;
	const uint8_t *data;
	uint32_t data_len;
};
/* Read the record at *off of buf[size]; advances *off. 1: *e filled;
 * 0: end (*off == size); -EINVAL: malformed (bounds, path, padding). */
int vkfd_topo_next(const void *buf, size_t size, size_t *off, struct vkfd_topo_entry *e);

/* ------------------------------------------------------------------ */
/* Capset, negotiation, shared memory                                  */
/* ------------------------------------------------------------------ */

/* Fill a capset with this build's constants; host-specific fields
 * (features, kfd version, num_gpus) are left 0 for the caller. */
void vkfd_capset_init(struct vkfd_capset *c);
/* Guest-side sanity check of a received capset of `size` bytes (shorter
 * capsets are zero-extended first by the caller or rejected here).
 * 0 or -EINVAL / -EPROTONOSUPPORT. */
int vkfd_capset_check(const struct vkfd_capset *c, size_t size);
/* Highest version in both ranges, or -EPROTONOSUPPORT. */
int vkfd_version_negotiate(uint32_t a_min, uint32_t a_max, uint32_t b_min, uint32_t b_max,
			   uint32_t *out);

/* Host: zero the shmem and write its header (VKFD_SHMEM_SIZE bytes). */
int vkfd_shmem_init(void *shmem, size_t size, uint32_t version, uint32_t flags);
/* Guest: validate a mapped shmem header. 0 or -EINVAL. */
int vkfd_shmem_check(const void *shmem, size_t size);

static inline struct vkfd_shmem_hdr *vkfd_shmem_hdr(void *shmem)
{
	return (struct vkfd_shmem_hdr *)shmem;
}
static inline void *vkfd_shmem_rsp(void *shmem, uint32_t rsp_off)
{
	return (uint8_t *)shmem + VKFD_SHMEM_RSP_OFF + rsp_off;
}
static inline struct vkfd_event_state *vkfd_shmem_events(void *shmem)
{
	return (struct vkfd_event_state *)((uint8_t *)shmem + VKFD_SHMEM_EVENT_OFF);
}

/* True once `seqno` has been processed, with 32-bit wrap-around. Only
 * meaningful once the header has left its initial 0 for a value near
 * seqno: prefer vkfd_seqno_processed(). */
static inline bool vkfd_seqno_passed(uint32_t processed, uint32_t seqno)
{
	return (int32_t)(processed - seqno) >= 0;
}

/*
 * Has the request `seqno` been processed, for any starting seqno? All
 * distances are taken from `base`, a seqno the guest knows is processed
 * (at the start: its first seqno - 1), up to `issued`, the last seqno it
 * sent. The header reads 0 until the host finishes a request: a header
 * value outside [base, issued] has not moved for this guest yet (a guest
 * that started in the upper half of u32 would otherwise see its first
 * requests as done). A seqno at or before base is processed. Holds while
 * fewer than 2^32 requests lie between base and issued.
 */
static inline bool vkfd_seqno_processed(uint32_t processed, uint32_t seqno, uint32_t base,
					uint32_t issued)
{
	uint32_t dp = processed - base, ds = seqno - base, di = issued - base;

	if (ds == 0 || ds > di)
		return true;
	return dp <= di && dp >= ds;
}

/* Memory ordering of the shared words (docs/protocol.md, "Ordering"). */
static inline void vkfd_store_release_u32(uint32_t *p, uint32_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}
static inline uint32_t vkfd_load_acquire_u32(const uint32_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
static inline void vkfd_store_release_u64(uint64_t *p, uint64_t v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}
static inline uint64_t vkfd_load_acquire_u64(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* Guest: the event-state hint rule (docs/protocol.md 5.3). True if a
 * zero-timeout wait on events ids[0..n) may be answered TIMEOUT without a
 * round trip: the host keeps the table (VKFD_SHMEM_FLAG_EVENT_HINTS), n is
 * 1..VKFD_MAX_WAIT_EVENTS, every id is a signal slot (1..4095) and every
 * table age equals last_seen[i], the age the guest last got from the host.
 * Never says more than "nothing new": it cannot report a signal. */
bool vkfd_event_hint_unchanged(const void *shmem, const uint32_t *ids, const uint64_t *last_seen,
			       uint32_t n);

/* Host: copy a fully built response into its slot: everything but
 * hdr.seqno first, then hdr.seqno with release. `rsp` is rsp_len bytes
 * starting with struct vkfd_rsp_hdr (hdr.len is set to rsp_len here).
 * -EINVAL if the slot is not vkfd_rsp_slot_ok(). */
int vkfd_rsp_write(void *shmem, uint32_t rsp_off, void *rsp, uint32_t rsp_len, uint32_t seqno);

#ifdef __cplusplus
}
#endif
#endif
