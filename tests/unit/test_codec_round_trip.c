/* SPDX-License-Identifier: MIT */
/*
 * Codec tests: the command table, build -> iterate -> decode round trips
 * of every command, and the builder's limits.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_codec_common.h"

static uint8_t pattern_byte(uint32_t cmd, size_t i)
{
	return (uint8_t)(cmd * 31u + i * 7u + 1u);
}

/* Fill a request body (after the header) with a per-command pattern. */
static void fill_pattern(void *req, size_t len, uint32_t cmd)
{
	uint8_t *p = req;

	for (size_t i = sizeof(struct vkfd_req_hdr); i < len; i++)
		p[i] = pattern_byte(cmd, i);
}

/* Request length used for a command in the round trip: the full struct,
 * or for variable ones a length that leaves the count valid. */
static uint32_t set_counts(uint32_t cmd, union any_req *r, unsigned variant)
{
	uint32_t n;

	switch (cmd) {
	case VKFD_CMD_MAP_MEMORY:
	case VKFD_CMD_UNMAP_MEMORY:
	case VKFD_CMD_UNMAP_MEMORY_ASYNC:
	case VKFD_CMD_MAP_MEMORY_ASYNC: {
		struct vkfd_req_map_memory *m = (void *)r;

		n = variant ? VKFD_MAX_MAP_DEVICES : 3;
		m->n_devices = n;
		m->n_success = 0;
		return VKFD_REQ_MAP_MEMORY_LEN(n);
	}
	case VKFD_CMD_SET_CU_MASK: {
		struct vkfd_req_set_cu_mask *m = (void *)r;

		n = variant ? VKFD_MAX_CU_MASK_BITS : 64;
		m->num_cu_mask = n;
		return VKFD_REQ_SET_CU_MASK_LEN(n);
	}
	case VKFD_CMD_WAIT_EVENTS: {
		struct vkfd_req_wait_events *w = (void *)r;

		n = variant ? VKFD_MAX_WAIT_EVENTS : 2;
		w->num_events = n;
		w->ring_idx = 5;
		return VKFD_REQ_WAIT_EVENTS_LEN(n);
	}
	case VKFD_CMD_GET_TOPOLOGY: {
		struct vkfd_req_get_topology *t = (void *)r;

		t->max_len = variant ? VKFD_TOPOLOGY_MAX_CHUNK : 4096;
		return sizeof(*t);
	}
	case VKFD_CMD_AMDGPU_QUERY: {
		struct vkfd_req_amdgpu_query *q = (void *)r;

		q->out_size = variant ? VKFD_MAX_AMDGPU_QUERY : 13;
		return sizeof(*q);
	}
	default:
		return vkfd_cmd_req_size(cmd);
	}
}

/* Response size computed independently of vkfd_rsp_size(). */
static uint32_t expected_rsp_size(uint32_t cmd, const union any_req *r)
{
	switch (cmd) {
	case VKFD_CMD_GET_TOPOLOGY:
		return (uint32_t)((32 + ((const struct vkfd_req_get_topology *)r)->max_len + 7) &
				  ~7u);
	case VKFD_CMD_AMDGPU_QUERY:
		return (uint32_t)((24 + ((const struct vkfd_req_amdgpu_query *)r)->out_size + 7) &
				  ~7u);
	case VKFD_CMD_WAIT_EVENTS:
		return 24 + 64 * ((const struct vkfd_req_wait_events *)r)->num_events;
	case VKFD_CMD_SET_CU_MASK:
	case VKFD_CMD_CREATE_ARENA:
	case VKFD_CMD_DESTROY_ARENA:
	case VKFD_CMD_ACQUIRE_VM:
	case VKFD_CMD_SET_MEMORY_POLICY:
	case VKFD_CMD_SET_SCRATCH_BACKING_VA:
	case VKFD_CMD_SET_TRAP_HANDLER:
	case VKFD_CMD_DESTROY_QUEUE:
	case VKFD_CMD_UPDATE_QUEUE:
	case VKFD_CMD_DESTROY_EVENT:
	case VKFD_CMD_SET_EVENT:
	case VKFD_CMD_RESET_EVENT:
		return 16;
	case VKFD_CMD_HELLO:
		return sizeof(struct vkfd_rsp_hello);
	case VKFD_CMD_GET_VERSION:
		return sizeof(struct vkfd_rsp_get_version);
	case VKFD_CMD_GET_PROCESS_APERTURES:
		return sizeof(struct vkfd_rsp_get_process_apertures);
	case VKFD_CMD_SET_XNACK_MODE:
		return sizeof(struct vkfd_rsp_set_xnack_mode);
	case VKFD_CMD_GET_CLOCK_COUNTERS:
		return sizeof(struct vkfd_rsp_get_clock_counters);
	case VKFD_CMD_AVAILABLE_MEMORY:
		return sizeof(struct vkfd_rsp_available_memory);
	case VKFD_CMD_RUNTIME_ENABLE:
		return sizeof(struct vkfd_rsp_runtime_enable);
	case VKFD_CMD_GET_TILE_CONFIG:
		return sizeof(struct vkfd_rsp_get_tile_config);
	case VKFD_CMD_ALLOC_MEMORY:
	case VKFD_CMD_ALLOC_USERPTR_PIECES:
		return sizeof(struct vkfd_rsp_alloc_memory);
	case VKFD_CMD_MAP_MEMORY:
	case VKFD_CMD_UNMAP_MEMORY:
		return sizeof(struct vkfd_rsp_map_memory);
	case VKFD_CMD_IMPORT_RESOURCE:
		return sizeof(struct vkfd_rsp_import_resource);
	case VKFD_CMD_GET_RESOURCE_INFO:
		return sizeof(struct vkfd_rsp_get_resource_info);
	case VKFD_CMD_CREATE_QUEUE:
		return sizeof(struct vkfd_rsp_create_queue);
	case VKFD_CMD_ALLOC_QUEUE_GWS:
		return sizeof(struct vkfd_rsp_alloc_queue_gws);
	case VKFD_CMD_CREATE_EVENT:
		return sizeof(struct vkfd_rsp_create_event);
	default:
		return 0; /* async */
	}
}

static const uint32_t async_cmds[] = {
    VKFD_CMD_FREE_MEMORY,      VKFD_CMD_UNMAP_MEMORY_ASYNC, VKFD_CMD_BIND_BLOB,
    VKFD_CMD_DOORBELL_NOTIFY,  VKFD_CMD_HDP_FLUSH,          VKFD_CMD_DESTROY_EVENT_ASYNC,
    VKFD_CMD_SET_EVENT_ASYNC,  VKFD_CMD_RESET_EVENT_ASYNC,  VKFD_CMD_ALLOC_MEMORY_ASYNC,
    VKFD_CMD_MAP_MEMORY_ASYNC,
};

static bool is_async(uint32_t cmd)
{
	for (size_t i = 0; i < sizeof(async_cmds) / sizeof(async_cmds[0]); i++)
		if (async_cmds[i] == cmd)
			return true;
	return false;
}

static void test_cmd_table(void **state)
{
	unsigned known = 0;

	(void)state;
	assert_null(vkfd_cmd_info(0));
	assert_false(vkfd_cmd_is_known(0));
	assert_false(vkfd_cmd_is_known(VKFD_CMD_COUNT_));
	assert_false(vkfd_cmd_is_known(0xffffffffu));
	assert_string_equal(vkfd_cmd_name(0x7777), "UNKNOWN");
	assert_int_equal(vkfd_cmd_req_size(0x7777), 0);
	assert_string_equal(vkfd_cmd_name(VKFD_CMD_ALLOC_MEMORY), "ALLOC_MEMORY");
	assert_int_equal(vkfd_cmd_req_size(VKFD_CMD_CREATE_QUEUE), 96);

	for (uint32_t c = 1; c < VKFD_CMD_COUNT_; c++) {
		const struct vkfd_cmd_info *ci = vkfd_cmd_info(c);

		if (!ci)
			continue;
		known++;
		assert_true(ci->req_size >= sizeof(struct vkfd_req_hdr));
		assert_true(ci->req_size <= VKFD_MAX_REQ_SIZE);
		assert_int_equal(ci->req_size % 8, 0);
		assert_int_equal(ci->sync, !is_async(c));
		assert_int_equal(ci->sync, ci->rsp_size != 0);
	}
	/* 37 commands in protocol version 1.0; 1.1 adds ALLOC_MEMORY_ASYNC
	 * (VKFD_FEAT_ASYNC_ALLOC), CREATE_ARENA, DESTROY_ARENA
	 * (VKFD_FEAT_ARENAS), ALLOC_USERPTR_PIECES (VKFD_FEAT_USERPTR_PIECES)
	 * and MAP_MEMORY_ASYNC (VKFD_FEAT_ASYNC_MAP) */
	assert_int_equal(known, 42);
}

/* Build every known command (twice: small and maximal counts) into one or
 * more batches, iterate them, and decode each one back. */
static void round_trip_variant(unsigned variant)
{
	uint8_t *batch = calloc(1, BATCH_BYTES);
	struct vkfd_builder b;
	uint32_t rsp_off = 0;
	uint32_t seqnos[VKFD_CMD_COUNT_] = {0};
	uint32_t lens[VKFD_CMD_COUNT_] = {0};
	union any_req reqs[VKFD_CMD_COUNT_];
	unsigned built = 0, seen = 0;

	assert_non_null(batch);
	vkfd_builder_init(&b, batch, BATCH_BYTES, 1000);

	for (uint32_t c = 1; c < VKFD_CMD_COUNT_; c++) {
		union any_req *r = &reqs[c];
		uint32_t len, this_rsp = 0;

		memset(r, 0, sizeof(*r));
		if (!vkfd_cmd_is_known(c))
			continue;
		fill_pattern(r, vkfd_cmd_req_size(c), c);
		len = set_counts(c, r, variant);
		if (vkfd_cmd_is_sync(c)) {
			this_rsp = rsp_off;
			rsp_off += expected_rsp_size(c, r);
			assert_true(rsp_off <= VKFD_RSP_AREA_SIZE);
		}
		assert_int_equal(vkfd_builder_add(&b, c, r, len, this_rsp, &seqnos[c]), 0);
		lens[c] = len;
		built++;
	}
	assert_int_equal(b.count, built);
	assert_int_equal(b.seqno, 1000 + built);

	struct vkfd_iter it;
	struct vkfd_cmd_view v;
	uint32_t expect_seq = 1000;
	int r;

	vkfd_iter_init(&it, batch, b.len, VKFD_RSP_AREA_SIZE);
	while ((r = vkfd_iter_next(&it, &v)) == 1) {
		uint32_t c = v.hdr.cmd;
		union any_req dec;

		assert_true(vkfd_cmd_is_known(c));
		assert_int_equal(v.hdr.seqno, expect_seq);
		assert_int_equal(seqnos[c], expect_seq);
		expect_seq++;
		assert_int_equal(v.hdr.len, (lens[c] + 7) & ~7u);
		assert_true(v.known);
		assert_int_equal(v.sync, vkfd_cmd_is_sync(c));
		assert_int_equal(v.rsp_size, expected_rsp_size(c, &reqs[c]));

		memset(&dec, 0xa5, sizeof(dec));
		assert_int_equal(vkfd_cmd_decode(&v, &dec, vkfd_cmd_req_size(c)), 0);
		/* header as built */
		assert_int_equal(dec.hdr.cmd, c);
		assert_int_equal(dec.hdr.seqno, v.hdr.seqno);
		/* body: the bytes sent, then zeroes up to the known size */
		for (size_t i = sizeof(struct vkfd_req_hdr); i < vkfd_cmd_req_size(c); i++) {
			uint8_t want = i < lens[c] ? reqs[c].bytes[i] : 0;

			if (dec.bytes[i] != want)
				fail_msg("cmd %s byte %zu: got %u want %u", vkfd_cmd_name(c), i,
					 dec.bytes[i], want);
		}
		seen++;
	}
	assert_int_equal(r, 0);
	assert_int_equal(it.error, VKFD_FRAME_OK);
	assert_int_equal(seen, built);
	assert_int_equal(vkfd_batch_check(batch, b.len, VKFD_RSP_AREA_SIZE, NULL, NULL),
			 (int)built);
	free(batch);
}

static void test_round_trip_all_commands(void **state)
{
	(void)state;
	round_trip_variant(0);
	round_trip_variant(1);
}

/* Typed round trips of a few commands: fields come back with their values. */
static void test_round_trip_typed(void **state)
{
	uint8_t batch[4096];
	struct vkfd_builder b;
	struct vkfd_req_alloc_memory alloc = {0};
	struct vkfd_req_map_memory map = {0};
	struct vkfd_req_wait_events wait = {0};
	struct vkfd_req_create_queue cq = {0};
	struct vkfd_req_bind_blob bind = {0};

	(void)state;
	alloc.va = 0x7f0000200000ull;
	alloc.size = 2ull << 20;
	alloc.gpu_id = 0x1234;
	alloc.flags = 0x80000002u;
	map.handle = VKFD_HANDLE(7, 3);
	map.n_devices = 2;
	map.device_ids[0] = 0x1234;
	map.device_ids[1] = 0x5678;
	wait.ring_idx = 63;
	wait.num_events = 1;
	wait.timeout_ms = 0xffffffffu;
	wait.events[0].event_id = 4095;
	wait.events[0].last_event_age = 99;
	cq.ring_base_address = 0x10000;
	cq.ring_size = 4096;
	cq.queue_type = 2;
	cq.sdma_engine_id = 3;
	bind.handle = VKFD_HANDLE(1, 1);
	bind.blob_id = 42;

	vkfd_builder_init(&b, batch, sizeof(batch), 0xfffffffeu);
	assert_int_equal(
	    vkfd_builder_add(&b, VKFD_CMD_ALLOC_MEMORY, &alloc, sizeof(alloc), 0, NULL), 0);
	assert_int_equal(
	    vkfd_builder_add(&b, VKFD_CMD_MAP_MEMORY, &map, VKFD_REQ_MAP_MEMORY_LEN(2), 64, NULL),
	    0);
	assert_int_equal(vkfd_builder_add(&b, VKFD_CMD_WAIT_EVENTS, &wait,
					  VKFD_REQ_WAIT_EVENTS_LEN(1), 128, NULL),
			 0);
	assert_int_equal(vkfd_builder_add(&b, VKFD_CMD_CREATE_QUEUE, &cq, sizeof(cq), 256, NULL),
			 0);
	assert_int_equal(vkfd_builder_add(&b, VKFD_CMD_BIND_BLOB, &bind, sizeof(bind), 0, NULL), 0);
	/* seqnos wrap around */
	assert_int_equal(b.seqno, 3);
	assert_int_equal(map.hdr.len, 40);
	assert_int_equal(wait.hdr.len, 48);

	struct vkfd_iter it;
	struct vkfd_cmd_view v;
	struct vkfd_req_alloc_memory a2;
	struct vkfd_req_map_memory m2;
	struct vkfd_req_wait_events w2;
	struct vkfd_req_create_queue q2;
	struct vkfd_req_bind_blob b2;

	vkfd_iter_init(&it, batch, b.len, VKFD_RSP_AREA_SIZE);
	assert_int_equal(vkfd_iter_next(&it, &v), 1);
	assert_int_equal(v.hdr.seqno, 0xfffffffeu);
	vkfd_cmd_decode(&v, &a2, sizeof(a2));
	assert_true(a2.va == alloc.va && a2.size == alloc.size);
	assert_int_equal(a2.gpu_id, 0x1234);
	assert_int_equal(a2.flags, 0x80000002u);

	assert_int_equal(vkfd_iter_next(&it, &v), 1);
	memset(&m2, 0xff, sizeof(m2));
	vkfd_cmd_decode(&v, &m2, sizeof(m2));
	assert_true(m2.handle == VKFD_HANDLE(7, 3));
	assert_int_equal(VKFD_HANDLE_INDEX(m2.handle), 7);
	assert_int_equal(VKFD_HANDLE_GEN(m2.handle), 3);
	assert_int_equal(m2.n_devices, 2);
	assert_int_equal(m2.device_ids[1], 0x5678);
	assert_int_equal(m2.device_ids[2], 0); /* not sent: zero-extended */
	assert_int_equal(v.rsp_size, sizeof(struct vkfd_rsp_map_memory));

	assert_int_equal(vkfd_iter_next(&it, &v), 1);
	vkfd_cmd_decode(&v, &w2, sizeof(w2));
	assert_int_equal(w2.ring_idx, 63);
	assert_int_equal(w2.events[0].event_id, 4095);
	assert_true(w2.events[0].last_event_age == 99);
	assert_int_equal(w2.events[1].event_id, 0);
	assert_int_equal(v.rsp_size, VKFD_RSP_WAIT_EVENTS_LEN(1));

	assert_int_equal(vkfd_iter_next(&it, &v), 1);
	vkfd_cmd_decode(&v, &q2, sizeof(q2));
	assert_int_equal(q2.sdma_engine_id, 3);
	assert_int_equal(q2.queue_type, 2);

	assert_int_equal(vkfd_iter_next(&it, &v), 1);
	assert_false(v.sync);
	assert_int_equal(v.rsp_size, 0);
	vkfd_cmd_decode(&v, &b2, sizeof(b2));
	assert_true(b2.blob_id == 42);
	assert_int_equal(v.hdr.seqno, 2);

	assert_int_equal(vkfd_iter_next(&it, &v), 0);
	assert_int_equal(vkfd_iter_next(&it, &v), 0);
}

static void test_builder_limits(void **state)
{
	uint8_t buf[64];
	struct vkfd_builder b;
	struct vkfd_req_handle h = {0};
	union any_req big;
	uint32_t seq = 0;

	(void)state;
	memset(buf, 0xee, sizeof(buf));
	vkfd_builder_init(&b, buf, sizeof(buf), 10);
	/* invalid lengths and cmd 0 */
	assert_int_equal(vkfd_builder_add(&b, VKFD_CMD_FREE_MEMORY, &h, 8, 0, NULL), -EINVAL);
	assert_int_equal(vkfd_builder_add(&b, 0, &h, sizeof(h), 0, NULL), -EINVAL);
	memset(&big, 0, sizeof(big));
	assert_int_equal(vkfd_builder_add(&b, 0x40, &big, VKFD_MAX_REQ_SIZE + 1, 0, NULL), -EINVAL);
	assert_int_equal(b.len, 0);

	/* 24 + 24 fit, the third does not */
	assert_int_equal(vkfd_builder_add(&b, VKFD_CMD_FREE_MEMORY, &h, sizeof(h), 0, &seq), 0);
	assert_int_equal(seq, 10);
	assert_int_equal(vkfd_builder_add(&b, VKFD_CMD_FREE_MEMORY, &h, sizeof(h), 0, &seq), 0);
	assert_int_equal(seq, 11);
	assert_int_equal(vkfd_builder_add(&b, VKFD_CMD_FREE_MEMORY, &h, sizeof(h), 0, &seq),
			 -ENOSPC);
	assert_int_equal(seq, 11);
	assert_int_equal(b.len, 48);
	assert_int_equal(b.count, 2);
	assert_int_equal(buf[48], 0xee); /* nothing written past the batch */

	/* an odd length is padded with zeroes */
	vkfd_builder_reset(&b);
	assert_int_equal(b.seqno, 12);
	memset(&big, 0x5a, 20);
	assert_int_equal(vkfd_builder_add(&b, 0x70, &big, 20, 0, NULL), 0);
	assert_int_equal(b.len, 24);
	assert_memory_equal(buf + 16, "\x5a\x5a\x5a\x5a\0\0\0\0", 8);

	/* capacity is clamped to the protocol's batch limit */
	uint8_t *huge = malloc(VKFD_MAX_BATCH_SIZE * 2);
	assert_non_null(huge);
	vkfd_builder_init(&b, huge, VKFD_MAX_BATCH_SIZE * 2, 0);
	assert_int_equal(b.cap, VKFD_MAX_BATCH_SIZE);
	while (vkfd_builder_add(&b, VKFD_CMD_FREE_MEMORY, &h, sizeof(h), 0, NULL) == 0)
		;
	assert_true(b.len <= VKFD_MAX_BATCH_SIZE);
	assert_true(b.len + sizeof(h) > VKFD_MAX_BATCH_SIZE);
	assert_int_equal(vkfd_batch_check(huge, b.len, VKFD_RSP_AREA_SIZE, NULL, NULL),
			 (int)b.count);
	free(huge);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cmd_table),
	    cmocka_unit_test(test_round_trip_all_commands),
	    cmocka_unit_test(test_round_trip_typed),
	    cmocka_unit_test(test_builder_limits),
	};

	return cmocka_run_group_tests_name("vkfd_codec_round_trip", tests, NULL, NULL);
}
