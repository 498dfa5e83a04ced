/* SPDX-License-Identifier: MIT */
/*
 * vkfd protocol codec. See vkfd_codec.h for the contract and
 * docs/protocol.md for the wire format.
 */
#include "vkfd_codec.h"

#include <errno.h>
#include <string.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static inline uint64_t align8(uint64_t v)
{
	return (v + 7u) & ~(uint64_t)7u;
}

#define CMD(id, nm, req, rsp, is_sync, var)                                                        \
	[id] = {.name = nm,                                                                        \
		.req_size = sizeof(req),                                                           \
		.rsp_size = rsp,                                                                   \
		.sync = is_sync,                                                                   \
		.variable = var}
#define SYNC(id, nm, req, rsp) CMD(id, nm, req, sizeof(rsp), true, false)
#define ASYNC(id, nm, req)     CMD(id, nm, req, 0, false, false)

/* clang-format off */
static const struct vkfd_cmd_info cmd_table[VKFD_CMD_COUNT_] = {
	SYNC(VKFD_CMD_HELLO, "HELLO", struct vkfd_req_hello, struct vkfd_rsp_hello),
	SYNC(VKFD_CMD_GET_VERSION, "GET_VERSION", struct vkfd_req_get_version,
	     struct vkfd_rsp_get_version),
	CMD(VKFD_CMD_GET_TOPOLOGY, "GET_TOPOLOGY", struct vkfd_req_get_topology,
	    sizeof(struct vkfd_rsp_get_topology), true, true),
	SYNC(VKFD_CMD_GET_PROCESS_APERTURES, "GET_PROCESS_APERTURES",
	     struct vkfd_req_get_process_apertures, struct vkfd_rsp_get_process_apertures),
	SYNC(VKFD_CMD_ACQUIRE_VM, "ACQUIRE_VM", struct vkfd_req_gpu, struct vkfd_rsp_empty),
	SYNC(VKFD_CMD_SET_MEMORY_POLICY, "SET_MEMORY_POLICY", struct vkfd_req_set_memory_policy,
	     struct vkfd_rsp_empty),
	SYNC(VKFD_CMD_SET_SCRATCH_BACKING_VA, "SET_SCRATCH_BACKING_VA",
	     struct vkfd_req_set_scratch_backing_va, struct vkfd_rsp_empty),
	SYNC(VKFD_CMD_SET_TRAP_HANDLER, "SET_TRAP_HANDLER", struct vkfd_req_set_trap_handler,
	     struct vkfd_rsp_empty),
	SYNC(VKFD_CMD_SET_XNACK_MODE, "SET_XNACK_MODE", struct vkfd_req_set_xnack_mode,
	     struct vkfd_rsp_set_xnack_mode),
	SYNC(VKFD_CMD_GET_CLOCK_COUNTERS, "GET_CLOCK_COUNTERS", struct vkfd_req_gpu,
	     struct vkfd_rsp_get_clock_counters),
	SYNC(VKFD_CMD_AVAILABLE_MEMORY, "AVAILABLE_MEMORY", struct vkfd_req_gpu,
	     struct vkfd_rsp_available_memory),
	SYNC(VKFD_CMD_RUNTIME_ENABLE, "RUNTIME_ENABLE", struct vkfd_req_runtime_enable,
	     struct vkfd_rsp_runtime_enable),
	SYNC(VKFD_CMD_GET_TILE_CONFIG, "GET_TILE_CONFIG", struct vkfd_req_get_tile_config,
	     struct vkfd_rsp_get_tile_config),
	CMD(VKFD_CMD_AMDGPU_QUERY, "AMDGPU_QUERY", struct vkfd_req_amdgpu_query,
	    sizeof(struct vkfd_rsp_amdgpu_query), true, true),
	SYNC(VKFD_CMD_ALLOC_MEMORY, "ALLOC_MEMORY", struct vkfd_req_alloc_memory,
	     struct vkfd_rsp_alloc_memory),
	ASYNC(VKFD_CMD_FREE_MEMORY, "FREE_MEMORY", struct vkfd_req_handle),
	CMD(VKFD_CMD_MAP_MEMORY, "MAP_MEMORY", struct vkfd_req_map_memory,
	    sizeof(struct vkfd_rsp_map_memory), true, true),
	CMD(VKFD_CMD_UNMAP_MEMORY, "UNMAP_MEMORY", struct vkfd_req_map_memory,
	    sizeof(struct vkfd_rsp_map_memory), true, true),
	CMD(VKFD_CMD_UNMAP_MEMORY_ASYNC, "UNMAP_MEMORY_ASYNC", struct vkfd_req_map_memory, 0,
	    false, true),
	ASYNC(VKFD_CMD_BIND_BLOB, "BIND_BLOB", struct vkfd_req_bind_blob),
	SYNC(VKFD_CMD_IMPORT_RESOURCE, "IMPORT_RESOURCE", struct vkfd_req_import_resource,
	     struct vkfd_rsp_import_resource),
	SYNC(VKFD_CMD_GET_RESOURCE_INFO, "GET_RESOURCE_INFO", struct vkfd_req_get_resource_info,
	     struct vkfd_rsp_get_resource_info),
	ASYNC(VKFD_CMD_ALLOC_MEMORY_ASYNC, "ALLOC_MEMORY_ASYNC", struct vkfd_req_alloc_memory),
	CMD(VKFD_CMD_MAP_MEMORY_ASYNC, "MAP_MEMORY_ASYNC", struct vkfd_req_map_memory, 0, false,
	    true),
	SYNC(VKFD_CMD_CREATE_ARENA, "CREATE_ARENA", struct vkfd_req_create_arena,
	     struct vkfd_rsp_empty),
	SYNC(VKFD_CMD_DESTROY_ARENA, "DESTROY_ARENA", struct vkfd_req_destroy_arena,
	     struct vkfd_rsp_empty),
	SYNC(VKFD_CMD_ALLOC_USERPTR_PIECES, "ALLOC_USERPTR_PIECES",
	     struct vkfd_req_alloc_userptr_pieces, struct vkfd_rsp_alloc_memory),
	SYNC(VKFD_CMD_CREATE_QUEUE, "CREATE_QUEUE", struct vkfd_req_create_queue,
	     struct vkfd_rsp_create_queue),
	SYNC(VKFD_CMD_DESTROY_QUEUE, "DESTROY_QUEUE", struct vkfd_req_handle,
	     struct vkfd_rsp_empty),
	SYNC(VKFD_CMD_UPDATE_QUEUE, "UPDATE_QUEUE", struct vkfd_req_update_queue,
	     struct vkfd_rsp_empty),
	CMD(VKFD_CMD_SET_CU_MASK, "SET_CU_MASK", struct vkfd_req_set_cu_mask,
	    sizeof(struct vkfd_rsp_empty), true, true),
	SYNC(VKFD_CMD_ALLOC_QUEUE_GWS, "ALLOC_QUEUE_GWS", struct vkfd_req_alloc_queue_gws,
	     struct vkfd_rsp_alloc_queue_gws),
	ASYNC(VKFD_CMD_DOORBELL_NOTIFY, "DOORBELL_NOTIFY", struct vkfd_req_handle),
	ASYNC(VKFD_CMD_HDP_FLUSH, "HDP_FLUSH", struct vkfd_req_gpu),
	SYNC(VKFD_CMD_CREATE_EVENT, "CREATE_EVENT", struct vkfd_req_create_event,
	     struct vkfd_rsp_create_event),
	SYNC(VKFD_CMD_DESTROY_EVENT, "DESTROY_EVENT", struct vkfd_req_event,
	     struct vkfd_rsp_empty),
	SYNC(VKFD_CMD_SET_EVENT, "SET_EVENT", struct vkfd_req_event, struct vkfd_rsp_empty),
	SYNC(VKFD_CMD_RESET_EVENT, "RESET_EVENT", struct vkfd_req_event, struct vkfd_rsp_empty),
	CMD(VKFD_CMD_WAIT_EVENTS, "WAIT_EVENTS", struct vkfd_req_wait_events,
	    sizeof(struct vkfd_rsp_wait_events), true, true),
	ASYNC(VKFD_CMD_DESTROY_EVENT_ASYNC, "DESTROY_EVENT_ASYNC", struct vkfd_req_event),
	ASYNC(VKFD_CMD_SET_EVENT_ASYNC, "SET_EVENT_ASYNC", struct vkfd_req_event),
	ASYNC(VKFD_CMD_RESET_EVENT_ASYNC, "RESET_EVENT_ASYNC", struct vkfd_req_event),
};
/* clang-format on */

const struct vkfd_cmd_info *vkfd_cmd_info(uint32_t cmd)
{
	if (cmd >= ARRAY_SIZE(cmd_table) || !cmd_table[cmd].name)
		return NULL;
	return &cmd_table[cmd];
}

bool vkfd_cmd_is_known(uint32_t cmd)
{
	return vkfd_cmd_info(cmd) != NULL;
}

bool vkfd_cmd_is_sync(uint32_t cmd)
{
	const struct vkfd_cmd_info *ci = vkfd_cmd_info(cmd);

	return ci && ci->sync;
}

const char *vkfd_cmd_name(uint32_t cmd)
{
	const struct vkfd_cmd_info *ci = vkfd_cmd_info(cmd);

	return ci ? ci->name : "UNKNOWN";
}

uint32_t vkfd_cmd_req_size(uint32_t cmd)
{
	const struct vkfd_cmd_info *ci = vkfd_cmd_info(cmd);

	return ci ? ci->req_size : 0;
}

/* Read a u32 field at `off` of a request of `len` bytes, zero beyond len
 * (the zero-extension rule applied to a single field). */
static uint32_t req_u32(const void *req, size_t len, size_t off)
{
	uint32_t v = 0;

	if (off + sizeof(v) <= len)
		memcpy(&v, (const uint8_t *)req + off, sizeof(v));
	return v;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
	return a < b ? a : b;
}

uint32_t vkfd_rsp_size(uint32_t cmd, const void *req, size_t len)
{
	const struct vkfd_cmd_info *ci = vkfd_cmd_info(cmd);
	uint32_t n;

	if (!ci)
		return sizeof(struct vkfd_rsp_hdr);
	if (!ci->sync)
		return 0;

	switch (cmd) {
	case VKFD_CMD_GET_TOPOLOGY:
		n = req_u32(req, len, offsetof(struct vkfd_req_get_topology, max_len));
		n = min_u32(n, VKFD_TOPOLOGY_MAX_CHUNK);
		return (uint32_t)align8(sizeof(struct vkfd_rsp_get_topology) + n);
	case VKFD_CMD_AMDGPU_QUERY:
		n = req_u32(req, len, offsetof(struct vkfd_req_amdgpu_query, out_size));
		n = min_u32(n, VKFD_MAX_AMDGPU_QUERY);
		return (uint32_t)align8(sizeof(struct vkfd_rsp_amdgpu_query) + n);
	case VKFD_CMD_WAIT_EVENTS:
		n = req_u32(req, len, offsetof(struct vkfd_req_wait_events, num_events));
		n = min_u32(n, VKFD_MAX_WAIT_EVENTS);
		return VKFD_RSP_WAIT_EVENTS_LEN(n);
	default:
		return ci->rsp_size;
	}
}

bool vkfd_rsp_slot_ok(uint32_t rsp_off, uint32_t rsp_size, uint32_t area_size)
{
	if (rsp_off % VKFD_ALIGN)
		return false;
	return (uint64_t)rsp_off + rsp_size <= area_size;
}

/* ------------------------------------------------------------------ */

void vkfd_builder_init(struct vkfd_builder *b, void *buf, size_t cap, uint32_t next_seqno)
{
	memset(b, 0, sizeof(*b));
	b->buf = buf;
	b->cap = cap < VKFD_MAX_BATCH_SIZE ? cap : VKFD_MAX_BATCH_SIZE;
	b->seqno = next_seqno;
}

void vkfd_builder_reset(struct vkfd_builder *b)
{
	b->len = 0;
	b->count = 0;
}

int vkfd_builder_add(struct vkfd_builder *b, uint32_t cmd, void *req, uint32_t len,
		     uint32_t rsp_off, uint32_t *seqno_out)
{
	struct vkfd_req_hdr *hdr = req;
	uint64_t wire_len = align8(len);

	if (!b->buf || !req || cmd == 0 || len < sizeof(*hdr) || wire_len > VKFD_MAX_REQ_SIZE)
		return -EINVAL;
	if (wire_len > b->cap - b->len)
		return -ENOSPC;

	hdr->cmd = cmd;
	hdr->len = (uint32_t)wire_len;
	hdr->seqno = b->seqno;
	hdr->rsp_off = rsp_off;
	memcpy(b->buf + b->len, req, len);
	memset(b->buf + b->len + len, 0, wire_len - len);
	b->len += wire_len;
	b->count++;
	if (seqno_out)
		*seqno_out = b->seqno;
	b->seqno++;
	return 0;
}

/* ------------------------------------------------------------------ */

static const char *const frame_error_str[VKFD_FRAME_ERROR_COUNT_] = {
    [VKFD_FRAME_OK] = "ok",
    [VKFD_FRAME_BATCH_TOO_LARGE] = "batch larger than VKFD_MAX_BATCH_SIZE",
    [VKFD_FRAME_TRUNCATED_HDR] = "truncated request header",
    [VKFD_FRAME_ZERO_LEN] = "request length is zero",
    [VKFD_FRAME_SHORT_LEN] = "request length below header size",
    [VKFD_FRAME_UNALIGNED_LEN] = "request length not a multiple of 8",
    [VKFD_FRAME_TOO_LARGE] = "request larger than VKFD_MAX_REQ_SIZE",
    [VKFD_FRAME_OVERRUN] = "request overruns the batch",
    [VKFD_FRAME_RSP_UNALIGNED] = "response offset not a multiple of 8",
    [VKFD_FRAME_RSP_OUT_OF_AREA] = "response slot outside the response area",
};

const char *vkfd_frame_error_str(enum vkfd_frame_error e)
{
	if ((unsigned)e >= ARRAY_SIZE(frame_error_str))
		return "unknown framing error";
	return frame_error_str[e];
}

void vkfd_iter_init(struct vkfd_iter *it, const void *buf, size_t size, uint32_t rsp_area_size)
{
	memset(it, 0, sizeof(*it));
	it->buf = buf;
	it->size = size;
	it->rsp_area_size = rsp_area_size;
	if (size > VKFD_MAX_BATCH_SIZE || (!buf && size)) {
		it->error = VKFD_FRAME_BATCH_TOO_LARGE;
		it->error_off = 0;
	}
}

static int iter_fail(struct vkfd_iter *it, enum vkfd_frame_error e)
{
	it->error = e;
	it->error_off = it->off;
	return -EINVAL;
}

int vkfd_iter_next(struct vkfd_iter *it, struct vkfd_cmd_view *v)
{
	struct vkfd_req_hdr hdr;
	const struct vkfd_cmd_info *ci;
	size_t left;
	uint32_t rsp_size;

	memset(v, 0, sizeof(*v));
	if (it->error != VKFD_FRAME_OK)
		return -EINVAL;
	if (it->off == it->size)
		return 0;

	left = it->size - it->off;
	if (left < sizeof(hdr))
		return iter_fail(it, VKFD_FRAME_TRUNCATED_HDR);
	memcpy(&hdr, it->buf + it->off, sizeof(hdr));

	if (hdr.len == 0)
		return iter_fail(it, VKFD_FRAME_ZERO_LEN);
	if (hdr.len < sizeof(hdr))
		return iter_fail(it, VKFD_FRAME_SHORT_LEN);
	if (hdr.len % VKFD_ALIGN)
		return iter_fail(it, VKFD_FRAME_UNALIGNED_LEN);
	if (hdr.len > VKFD_MAX_REQ_SIZE)
		return iter_fail(it, VKFD_FRAME_TOO_LARGE);
	if (hdr.len > left)
		return iter_fail(it, VKFD_FRAME_OVERRUN);

	ci = vkfd_cmd_info(hdr.cmd);
	rsp_size = vkfd_rsp_size(hdr.cmd, it->buf + it->off, hdr.len);
	if (ci && ci->sync) {
		if (hdr.rsp_off % VKFD_ALIGN)
			return iter_fail(it, VKFD_FRAME_RSP_UNALIGNED);
		if (!vkfd_rsp_slot_ok(hdr.rsp_off, rsp_size, it->rsp_area_size))
			return iter_fail(it, VKFD_FRAME_RSP_OUT_OF_AREA);
	}

	v->hdr = hdr;
	v->data = it->buf + it->off;
	v->rsp_size = rsp_size;
	v->known = ci != NULL;
	v->sync = ci && ci->sync;
	v->offset = it->off;
	it->off += hdr.len;
	return 1;
}

int vkfd_batch_check(const void *buf, size_t size, uint32_t rsp_area_size,
		     enum vkfd_frame_error *err, size_t *err_off)
{
	struct vkfd_iter it;
	struct vkfd_cmd_view v;
	int n = 0, r;

	vkfd_iter_init(&it, buf, size, rsp_area_size);
	while ((r = vkfd_iter_next(&it, &v)) > 0)
		n++;
	if (err)
		*err = it.error;
	if (err_off)
		*err_off = it.error_off;
	return r < 0 ? r : n;
}

/* ------------------------------------------------------------------ */

size_t vkfd_req_copy(void *dst, size_t dst_size, const void *src, size_t src_len)
{
	size_t n = src_len < dst_size ? src_len : dst_size;

	if (n)
		memcpy(dst, src, n);
	if (n < dst_size)
		memset((uint8_t *)dst + n, 0, dst_size - n);
	return n;
}

int vkfd_cmd_decode(const struct vkfd_cmd_view *v, void *dst, size_t dst_size)
{
	if (dst_size < sizeof(struct vkfd_req_hdr) || !v->data)
		return -EINVAL;
	vkfd_req_copy(dst, dst_size, v->data, v->hdr.len);
	return 0;
}

/* ------------------------------------------------------------------ */

static bool path_char_ok(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '.' || c == '-' || c == '/';
}

bool vkfd_topo_path_ok(const char *path, size_t len)
{
	size_t i, comp_start = 0;

	if (!path || len == 0 || len > VKFD_TOPOLOGY_MAX_PATH)
		return false;
	for (i = 0; i <= len; i++) {
		size_t comp_len;

		if (i < len && path[i] != '/') {
			if (!path_char_ok(path[i]))
				return false;
			continue;
		}
		/* end of a component at i */
		comp_len = i - comp_start;
		if (comp_len == 0)
			return false; /* leading, trailing or double '/' */
		if (comp_len == 1 && path[comp_start] == '.')
			return false;
		if (comp_len == 2 && path[comp_start] == '.' && path[comp_start + 1] == '.')
			return false;
		comp_start = i + 1;
	}
	return true;
}

size_t vkfd_topo_record_size(size_t path_len, size_t data_len)
{
	return (size_t)align8(sizeof(struct vkfd_topo_record) + (uint64_t)path_len + data_len);
}

int vkfd_topo_put(void *buf, size_t cap, size_t *off, const char *path, size_t path_len,
		  const void *data, size_t data_len)
{
	struct vkfd_topo_record rec;
	uint8_t *p;
	size_t rs, used;

	if (!buf || !off || *off % VKFD_ALIGN || *off > cap)
		return -EINVAL;
	if (!vkfd_topo_path_ok(path, path_len) || data_len > VKFD_TOPOLOGY_MAX_FILE ||
	    (data_len && !data))
		return -EINVAL;
	rs = vkfd_topo_record_size(path_len, data_len);
	if (rs > cap - *off)
		return -ENOSPC;

	p = (uint8_t *)buf + *off;
	rec.path_len = (uint32_t)path_len;
	rec.data_len = (uint32_t)data_len;
	memcpy(p, &rec, sizeof(rec));
	memcpy(p + sizeof(rec), path, path_len);
	if (data_len)
		memcpy(p + sizeof(rec) + path_len, data, data_len);
	used = sizeof(rec) + path_len + data_len;
	memset(p + used, 0, rs - used);
	*off += rs;
	return 0;
}

int vkfd_topo_next(const void *buf, size_t size, size_t *off, struct vkfd_topo_entry *e)
{
	const uint8_t *p = buf;
	struct vkfd_topo_record rec;
	size_t left, rs, used, i;

	memset(e, 0, sizeof(*e));
	if (!off || *off > size || *off % VKFD_ALIGN || (!buf && size))
		return -EINVAL;
	if (*off == size)
		return 0;
	left = size - *off;
	if (left < sizeof(rec))
		return -EINVAL;
	memcpy(&rec, p + *off, sizeof(rec));
	if (rec.data_len > VKFD_TOPOLOGY_MAX_FILE ||
	    !vkfd_topo_path_ok((const char *)p + *off + sizeof(rec),
			       rec.path_len <= left - sizeof(rec) ? rec.path_len : 0))
		return -EINVAL;
	rs = vkfd_topo_record_size(rec.path_len, rec.data_len);
	if (rs > left)
		return -EINVAL;
	/* padding must be zero so that a record has exactly one encoding */
	used = sizeof(rec) + rec.path_len + rec.data_len;
	for (i = used; i < rs; i++)
		if (p[*off + i])
			return -EINVAL;

	e->path = (const char *)p + *off + sizeof(rec);
	e->path_len = rec.path_len;
	e->data = p + *off + sizeof(rec) + rec.path_len;
	e->data_len = rec.data_len;
	*off += rs;
	return 1;
}

/* ------------------------------------------------------------------ */

void vkfd_capset_init(struct vkfd_capset *c)
{
	memset(c, 0, sizeof(*c));
	c->wire_format = VKFD_WIRE_FORMAT;
	c->version_min = VKFD_PROTO_VERSION_MIN;
	c->version_max = VKFD_PROTO_VERSION_MAX;
	c->context_type = VKFD_CONTEXT_TYPE_AMDKFD;
	c->shmem_size = VKFD_SHMEM_SIZE;
	c->num_rings = VKFD_NUM_RINGS;
	c->max_batch_size = VKFD_MAX_BATCH_SIZE;
}

int vkfd_version_negotiate(uint32_t a_min, uint32_t a_max, uint32_t b_min, uint32_t b_max,
			   uint32_t *out)
{
	uint32_t lo = a_min > b_min ? a_min : b_min;
	uint32_t hi = a_max < b_max ? a_max : b_max;

	if (a_min > a_max || b_min > b_max || lo > hi || hi == 0)
		return -EPROTONOSUPPORT;
	if (out)
		*out = hi;
	return 0;
}

int vkfd_capset_check(const struct vkfd_capset *c, size_t size)
{
	if (!c || size < sizeof(*c))
		return -EINVAL;
	if (c->wire_format != VKFD_WIRE_FORMAT || c->context_type != VKFD_CONTEXT_TYPE_AMDKFD)
		return -EPROTONOSUPPORT;
	if (vkfd_version_negotiate(c->version_min, c->version_max, VKFD_PROTO_VERSION_MIN,
				   VKFD_PROTO_VERSION_MAX, NULL))
		return -EPROTONOSUPPORT;
	if (c->shmem_size != VKFD_SHMEM_SIZE || c->num_rings == 0 ||
	    c->num_rings > VKFD_NUM_RINGS || c->max_batch_size < VKFD_MAX_REQ_SIZE)
		return -EINVAL;
	return 0;
}

int vkfd_shmem_init(void *shmem, size_t size, uint32_t version, uint32_t flags)
{
	struct vkfd_shmem_hdr *h = shmem;

	if (!shmem || size < VKFD_SHMEM_SIZE)
		return -EINVAL;
	memset(shmem, 0, VKFD_SHMEM_SIZE);
	h->version = version;
	h->size = VKFD_SHMEM_SIZE;
	h->flags = flags;
	h->rsp_off = VKFD_SHMEM_RSP_OFF;
	h->rsp_size = VKFD_RSP_AREA_SIZE;
	h->event_off = VKFD_SHMEM_EVENT_OFF;
	h->event_count = VKFD_SHMEM_EVENT_COUNT;
	/* magic last: a guest that sees it sees the rest of the header */
	vkfd_store_release_u32(&h->magic, VKFD_SHMEM_MAGIC);
	return 0;
}

int vkfd_shmem_check(const void *shmem, size_t size)
{
	const struct vkfd_shmem_hdr *h = shmem;

	if (!shmem || size < VKFD_SHMEM_SIZE)
		return -EINVAL;
	if (vkfd_load_acquire_u32(&h->magic) != VKFD_SHMEM_MAGIC)
		return -EINVAL;
	if (h->size != VKFD_SHMEM_SIZE || h->rsp_off != VKFD_SHMEM_RSP_OFF ||
	    h->rsp_size != VKFD_RSP_AREA_SIZE || h->event_off != VKFD_SHMEM_EVENT_OFF ||
	    h->event_count != VKFD_SHMEM_EVENT_COUNT)
		return -EINVAL;
	if (h->version < VKFD_PROTO_VERSION_MIN || h->version > VKFD_PROTO_VERSION_MAX)
		return -EINVAL;
	return 0;
}

int vkfd_rsp_write(void *shmem, uint32_t rsp_off, void *rsp, uint32_t rsp_len, uint32_t seqno)
{
	struct vkfd_rsp_hdr *h = rsp;
	uint8_t *slot;

	if (!shmem || !rsp || rsp_len < sizeof(*h) ||
	    !vkfd_rsp_slot_ok(rsp_off, rsp_len, VKFD_RSP_AREA_SIZE))
		return -EINVAL;
	slot = vkfd_shmem_rsp(shmem, rsp_off);
	h->len = rsp_len;
	h->seqno = seqno;
	h->reserved = 0;
	/* Everything except the seqno word, then the seqno with release: a
	 * guest that acquires the new seqno sees the whole response. */
	memcpy(slot, h, offsetof(struct vkfd_rsp_hdr, seqno));
	memcpy(slot + offsetof(struct vkfd_rsp_hdr, reserved),
	       (const uint8_t *)rsp + offsetof(struct vkfd_rsp_hdr, reserved),
	       rsp_len - offsetof(struct vkfd_rsp_hdr, reserved));
	vkfd_store_release_u32((uint32_t *)(slot + offsetof(struct vkfd_rsp_hdr, seqno)), seqno);
	return 0;
}

bool vkfd_event_hint_unchanged(const void *shmem, const uint32_t *ids, const uint64_t *last_seen,
			       uint32_t n)
{
	const struct vkfd_shmem_hdr *h = shmem;
	const struct vkfd_event_state *ev;

	if (!shmem || !ids || !last_seen || n == 0 || n > VKFD_MAX_WAIT_EVENTS)
		return false;
	if (!(vkfd_load_acquire_u32(&h->flags) & VKFD_SHMEM_FLAG_EVENT_HINTS))
		return false;
	ev = (const struct vkfd_event_state *)((const uint8_t *)shmem + VKFD_SHMEM_EVENT_OFF);
	for (uint32_t i = 0; i < n; i++) {
		if (ids[i] >= VKFD_SHMEM_EVENT_COUNT)
			return false; /* non-signal ids are not hinted */
		if (vkfd_load_acquire_u64(&ev[ids[i]].age) != last_seen[i])
			return false;
	}
	return true;
}
