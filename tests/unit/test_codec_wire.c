/* SPDX-License-Identifier: MIT */
/*
 * Codec tests of what arrives from the other side: every framing error,
 * random batches, version skew (zero-extension, tail ignore), the topology
 * record format, response slots, shared-memory helpers, event hints and
 * the capset.
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

/* ---- malformed batches ---- */

static void put_hdr(uint8_t *p, uint32_t cmd, uint32_t len, uint32_t seqno, uint32_t rsp_off)
{
	struct vkfd_req_hdr h = {cmd, len, seqno, rsp_off};

	memcpy(p, &h, sizeof(h));
}

/* One good FREE_MEMORY, then a bad request at offset 24. */
static void expect_frame_error(uint8_t *buf, size_t size, enum vkfd_frame_error want)
{
	struct vkfd_iter it;
	struct vkfd_cmd_view v;
	enum vkfd_frame_error err = VKFD_FRAME_OK;
	size_t err_off = 0;

	vkfd_iter_init(&it, buf, size, VKFD_RSP_AREA_SIZE);
	assert_int_equal(vkfd_iter_next(&it, &v), 1);
	assert_int_equal(v.hdr.cmd, VKFD_CMD_FREE_MEMORY);
	assert_int_equal(vkfd_iter_next(&it, &v), -EINVAL);
	assert_int_equal(it.error, want);
	assert_int_equal(it.error_off, 24);
	assert_null(v.data);
	/* sticky */
	assert_int_equal(vkfd_iter_next(&it, &v), -EINVAL);
	assert_int_equal(vkfd_batch_check(buf, size, VKFD_RSP_AREA_SIZE, &err, &err_off), -EINVAL);
	assert_int_equal(err, want);
	assert_int_equal(err_off, 24);
	assert_string_not_equal(vkfd_frame_error_str(want), "ok");
}

static void test_malformed_batches(void **state)
{
	uint8_t buf[256];

	(void)state;
	memset(buf, 0, sizeof(buf));
	put_hdr(buf, VKFD_CMD_FREE_MEMORY, 24, 1, 0);

	/* truncated header: 8 bytes after the first request */
	expect_frame_error(buf, 32, VKFD_FRAME_TRUNCATED_HDR);

	put_hdr(buf + 24, VKFD_CMD_FREE_MEMORY, 0, 2, 0);
	expect_frame_error(buf, 64, VKFD_FRAME_ZERO_LEN);

	put_hdr(buf + 24, VKFD_CMD_FREE_MEMORY, 8, 2, 0);
	expect_frame_error(buf, 64, VKFD_FRAME_SHORT_LEN);

	put_hdr(buf + 24, VKFD_CMD_FREE_MEMORY, 28, 2, 0);
	expect_frame_error(buf, 64, VKFD_FRAME_UNALIGNED_LEN);

	put_hdr(buf + 24, VKFD_CMD_FREE_MEMORY, VKFD_MAX_REQ_SIZE + 8, 2, 0);
	expect_frame_error(buf, 64, VKFD_FRAME_TOO_LARGE);

	/* len larger than what is left (40 bytes left, len 48) */
	put_hdr(buf + 24, VKFD_CMD_FREE_MEMORY, 48, 2, 0);
	expect_frame_error(buf, 64, VKFD_FRAME_OVERRUN);
	/* ... also with a len that would wrap a 32-bit offset computation */
	put_hdr(buf + 24, VKFD_CMD_FREE_MEMORY, 0xfffffff8u, 2, 0);
	expect_frame_error(buf, 64, VKFD_FRAME_TOO_LARGE);

	/* misaligned rsp_off on a sync command */
	put_hdr(buf + 24, VKFD_CMD_GET_VERSION, 16, 2, 4);
	expect_frame_error(buf, 40, VKFD_FRAME_RSP_UNALIGNED);

	/* response slot past the end of the area */
	put_hdr(buf + 24, VKFD_CMD_GET_VERSION, 16, 2, VKFD_RSP_AREA_SIZE - 16);
	expect_frame_error(buf, 40, VKFD_FRAME_RSP_OUT_OF_AREA);
	put_hdr(buf + 24, VKFD_CMD_GET_VERSION, 16, 2, 0xfffffff8u);
	expect_frame_error(buf, 40, VKFD_FRAME_RSP_OUT_OF_AREA);
	/* the last slot that fits is accepted */
	put_hdr(buf + 24, VKFD_CMD_GET_VERSION, 16, 2, VKFD_RSP_AREA_SIZE - 24);
	assert_int_equal(vkfd_batch_check(buf, 40, VKFD_RSP_AREA_SIZE, NULL, NULL), 2);

	/* variable response: a WAIT for 64 events needs 4120 bytes */
	struct vkfd_req_wait_events w = {0};
	w.hdr.cmd = VKFD_CMD_WAIT_EVENTS;
	w.hdr.len = 32;
	w.hdr.rsp_off = VKFD_RSP_AREA_SIZE - 4096;
	w.num_events = 64;
	memcpy(buf + 24, &w, 32);
	expect_frame_error(buf, 56, VKFD_FRAME_RSP_OUT_OF_AREA);
	/* count above the limit is clamped for the slot size, not an error here */
	w.num_events = 1000;
	w.hdr.rsp_off = VKFD_RSP_AREA_SIZE - VKFD_RSP_WAIT_EVENTS_LEN(64);
	memcpy(buf + 24, &w, 32);
	assert_int_equal(vkfd_batch_check(buf, 56, VKFD_RSP_AREA_SIZE, NULL, NULL), 2);

	/* async commands: rsp_off is ignored */
	put_hdr(buf + 24, VKFD_CMD_FREE_MEMORY, 24, 2, 3);
	assert_int_equal(vkfd_batch_check(buf, 48, VKFD_RSP_AREA_SIZE, NULL, NULL), 2);

	/* batch too large and NULL buffer */
	struct vkfd_iter it;
	struct vkfd_cmd_view v;
	vkfd_iter_init(&it, buf, VKFD_MAX_BATCH_SIZE + 8, VKFD_RSP_AREA_SIZE);
	assert_int_equal(vkfd_iter_next(&it, &v), -EINVAL);
	assert_int_equal(it.error, VKFD_FRAME_BATCH_TOO_LARGE);
	vkfd_iter_init(&it, NULL, 16, VKFD_RSP_AREA_SIZE);
	assert_int_equal(vkfd_iter_next(&it, &v), -EINVAL);
	/* empty batch */
	assert_int_equal(vkfd_batch_check(buf, 0, VKFD_RSP_AREA_SIZE, NULL, NULL), 0);
	/* truncated header as the very first request */
	vkfd_iter_init(&it, buf, 12, VKFD_RSP_AREA_SIZE);
	assert_int_equal(vkfd_iter_next(&it, &v), -EINVAL);
	assert_int_equal(it.error, VKFD_FRAME_TRUNCATED_HDR);
	assert_int_equal(it.error_off, 0);
}

static void test_unknown_command_continues(void **state)
{
	uint8_t buf[128] = {0};
	struct vkfd_iter it;
	struct vkfd_cmd_view v;

	(void)state;
	/* unknown command with a body, unaligned rsp_off (not checked) */
	put_hdr(buf, 0x7e, 40, 1, 3);
	put_hdr(buf + 40, VKFD_CMD_GET_VERSION, 16, 2, 0);
	vkfd_iter_init(&it, buf, 56, VKFD_RSP_AREA_SIZE);
	assert_int_equal(vkfd_iter_next(&it, &v), 1);
	assert_false(v.known);
	assert_false(v.sync);
	assert_int_equal(v.rsp_size, sizeof(struct vkfd_rsp_hdr));
	assert_false(vkfd_rsp_slot_ok(v.hdr.rsp_off, v.rsp_size, VKFD_RSP_AREA_SIZE));
	assert_int_equal(vkfd_iter_next(&it, &v), 1);
	assert_int_equal(v.hdr.cmd, VKFD_CMD_GET_VERSION);
	assert_int_equal(v.offset, 40);
	assert_int_equal(vkfd_iter_next(&it, &v), 0);
}

/* Random batches: the iterator must never report a request outside the
 * buffer (ASan catches any read past it). */
static void test_random_batches(void **state)
{
	uint32_t x = 12345;

	(void)state;
	for (int iter = 0; iter < 3000; iter++) {
		size_t size;
		uint8_t *buf;
		struct vkfd_iter it;
		struct vkfd_cmd_view v;
		int r;

		x = x * 1103515245u + 12345u;
		size = (x >> 8) % 512;
		buf = malloc(size ? size : 1);
		assert_non_null(buf);
		for (size_t i = 0; i < size; i++) {
			x = x * 1103515245u + 12345u;
			buf[i] = (uint8_t)(x >> 16);
		}
		/* bias toward plausible headers */
		for (size_t o = 0; o + 16 <= size; o += 24) {
			uint32_t len = 16 + 8 * ((x >> (o % 13)) % 4);

			memcpy(buf + o + 4, &len, 4);
		}
		vkfd_iter_init(&it, buf, size, VKFD_RSP_AREA_SIZE);
		while ((r = vkfd_iter_next(&it, &v)) == 1) {
			assert_true(v.data >= buf);
			assert_true(v.data + v.hdr.len <= buf + size);
			assert_int_equal(v.hdr.len % 8, 0);
			if (v.sync)
				assert_true(vkfd_rsp_slot_ok(v.hdr.rsp_off, v.rsp_size,
							     VKFD_RSP_AREA_SIZE));
			union any_req dec;
			vkfd_cmd_decode(&v, &dec, sizeof(dec));
		}
		assert_true(r == 0 || r == -EINVAL);
		free(buf);
	}
}

/* ---- version skew ---- */

static void test_zero_extension_and_tail(void **state)
{
	uint8_t buf[256] = {0};
	struct vkfd_iter it;
	struct vkfd_cmd_view v;
	struct vkfd_req_alloc_memory a;

	(void)state;
	/* an older peer's ALLOC with only va (len 24): size/gpu/flags read 0 */
	put_hdr(buf, VKFD_CMD_ALLOC_MEMORY, 24, 1, 0);
	uint64_t va = 0x123456789000ull;
	memcpy(buf + 16, &va, 8);
	/* a newer peer's ALLOC with 16 extra bytes of unknown fields */
	struct vkfd_req_alloc_memory full = {0};
	full.hdr.cmd = VKFD_CMD_ALLOC_MEMORY;
	full.hdr.len = 56;
	full.hdr.seqno = 2;
	full.hdr.rsp_off = 64;
	full.va = 0x2000;
	full.size = 0x3000;
	full.gpu_id = 9;
	full.flags = 4;
	memcpy(buf + 24, &full, sizeof(full));
	memset(buf + 24 + sizeof(full), 0xcc, 16);
	put_hdr(buf + 80, VKFD_CMD_GET_VERSION, 16, 3, 128);

	vkfd_iter_init(&it, buf, 96, VKFD_RSP_AREA_SIZE);
	assert_int_equal(vkfd_iter_next(&it, &v), 1);
	memset(&a, 0x77, sizeof(a));
	assert_int_equal(vkfd_cmd_decode(&v, &a, sizeof(a)), 0);
	assert_true(a.va == va);
	assert_true(a.size == 0);
	assert_int_equal(a.gpu_id, 0);
	assert_int_equal(a.flags, 0);

	assert_int_equal(vkfd_iter_next(&it, &v), 1);
	assert_int_equal(v.hdr.len, 56);
	memset(&a, 0x77, sizeof(a));
	vkfd_cmd_decode(&v, &a, sizeof(a));
	assert_true(a.va == 0x2000 && a.size == 0x3000);
	assert_int_equal(a.gpu_id, 9);
	assert_int_equal(a.flags, 4);

	/* the tail did not disturb framing */
	assert_int_equal(vkfd_iter_next(&it, &v), 1);
	assert_int_equal(v.hdr.cmd, VKFD_CMD_GET_VERSION);
	assert_int_equal(vkfd_iter_next(&it, &v), 0);

	/* vkfd_req_copy itself */
	uint8_t dst[16], src[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	memset(dst, 0xff, sizeof(dst));
	assert_int_equal(vkfd_req_copy(dst, sizeof(dst), src, 8), 8);
	assert_memory_equal(dst, "\1\2\3\4\5\6\7\10\0\0\0\0\0\0\0\0", 16);
	memset(dst, 0xff, sizeof(dst));
	assert_int_equal(vkfd_req_copy(dst, 4, src, 8), 4);
	assert_memory_equal(dst, "\1\2\3\4\xff", 5);

	/* response size of a short variable request: missing count reads 0 */
	struct vkfd_req_hdr h = {VKFD_CMD_WAIT_EVENTS, 16, 0, 0};
	assert_int_equal(vkfd_rsp_size(VKFD_CMD_WAIT_EVENTS, &h, sizeof(h)),
			 VKFD_RSP_WAIT_EVENTS_LEN(0));
	/* decode refuses a destination smaller than a header */
	v.data = buf;
	v.hdr.len = 16;
	assert_int_equal(vkfd_cmd_decode(&v, dst, 8), -EINVAL);
}

/* ---- topology records ---- */

static void test_topology_records(void **state)
{
	uint8_t buf[512];
	size_t off = 0;
	struct vkfd_topo_entry e;
	static const char props[] = "cpu_cores_count 0\nsimd_count 440\n";

	(void)state;
	memset(buf, 0xab, sizeof(buf));
	assert_int_equal(vkfd_topo_put(buf, sizeof(buf), &off, "nodes/0/gpu_id", 14, "4660\n", 5),
			 0);
	assert_int_equal(off, 32); /* 8 + 14 + 5 = 27 -> 32 */
	assert_int_equal(vkfd_topo_put(buf, sizeof(buf), &off, "nodes/0/properties", 18, props,
				       sizeof(props) - 1),
			 0);
	assert_int_equal(vkfd_topo_put(buf, sizeof(buf), &off, "generation_id", 13, NULL, 0), 0);
	size_t total = off;

	off = 0;
	assert_int_equal(vkfd_topo_next(buf, total, &off, &e), 1);
	assert_int_equal(e.path_len, 14);
	assert_memory_equal(e.path, "nodes/0/gpu_id", 14);
	assert_int_equal(e.data_len, 5);
	assert_memory_equal(e.data, "4660\n", 5);
	assert_int_equal(vkfd_topo_next(buf, total, &off, &e), 1);
	assert_memory_equal(e.data, props, sizeof(props) - 1);
	assert_int_equal(vkfd_topo_next(buf, total, &off, &e), 1);
	assert_int_equal(e.data_len, 0);
	assert_int_equal(vkfd_topo_next(buf, total, &off, &e), 0);
	assert_int_equal(off, total);

	/* writer refusals */
	off = 0;
	assert_int_equal(vkfd_topo_put(buf, sizeof(buf), &off, "/abs", 4, "x", 1), -EINVAL);
	assert_int_equal(vkfd_topo_put(buf, sizeof(buf), &off, "a/../b", 6, "x", 1), -EINVAL);
	assert_int_equal(vkfd_topo_put(buf, sizeof(buf), &off, "a//b", 4, "x", 1), -EINVAL);
	assert_int_equal(vkfd_topo_put(buf, sizeof(buf), &off, "a/", 2, "x", 1), -EINVAL);
	assert_int_equal(vkfd_topo_put(buf, sizeof(buf), &off, "a\0b", 3, "x", 1), -EINVAL);
	assert_int_equal(vkfd_topo_put(buf, sizeof(buf), &off, "", 0, "x", 1), -EINVAL);
	assert_int_equal(
	    vkfd_topo_put(buf, sizeof(buf), &off, "ok", 2, props, VKFD_TOPOLOGY_MAX_FILE + 1),
	    -EINVAL);
	assert_int_equal(vkfd_topo_put(buf, 16, &off, "nodes/0/gpu_id", 14, "1", 1), -ENOSPC);
	off = 4;
	assert_int_equal(vkfd_topo_put(buf, sizeof(buf), &off, "ok", 2, "1", 1), -EINVAL);
	assert_true(vkfd_topo_path_ok("nodes/1/mem_banks/0/properties", 30));
	assert_true(vkfd_topo_path_ok("a.b", 3));
	assert_false(vkfd_topo_path_ok(".", 1));
	assert_false(vkfd_topo_path_ok("a/./b", 5));
	assert_false(vkfd_topo_path_ok("a b", 3));

	/* reader refusals on crafted input */
	uint8_t bad[64];
	struct vkfd_topo_record rec;

	memset(bad, 0, sizeof(bad));
	rec.path_len = 2;
	rec.data_len = 1;
	memcpy(bad, &rec, 8);
	memcpy(bad + 8, "ok1", 3);
	off = 0;
	assert_int_equal(vkfd_topo_next(bad, 16, &off, &e), 1);
	bad[12] = 1; /* non-zero padding */
	off = 0;
	assert_int_equal(vkfd_topo_next(bad, 16, &off, &e), -EINVAL);
	bad[12] = 0;
	rec.data_len = 100; /* overruns */
	memcpy(bad, &rec, 8);
	off = 0;
	assert_int_equal(vkfd_topo_next(bad, 16, &off, &e), -EINVAL);
	rec.path_len = 0xffffffffu; /* path longer than the buffer */
	rec.data_len = 0;
	memcpy(bad, &rec, 8);
	off = 0;
	assert_int_equal(vkfd_topo_next(bad, 16, &off, &e), -EINVAL);
	rec.path_len = 2;
	rec.data_len = 0xfffffff0u;
	memcpy(bad, &rec, 8);
	off = 0;
	assert_int_equal(vkfd_topo_next(bad, 64, &off, &e), -EINVAL);
	rec.path_len = 2;
	rec.data_len = 0;
	memcpy(bad, &rec, 8);
	memcpy(bad + 8, "..", 2);
	off = 0;
	assert_int_equal(vkfd_topo_next(bad, 16, &off, &e), -EINVAL);
	off = 0;
	assert_int_equal(vkfd_topo_next(bad, 4, &off, &e), -EINVAL); /* truncated record */
	off = 20;
	assert_int_equal(vkfd_topo_next(bad, 16, &off, &e), -EINVAL); /* offset past end */
}

/* ---- response slots, shmem, capset ---- */

static void test_rsp_write_and_shmem(void **state)
{
	uint8_t *shm = aligned_alloc(4096, VKFD_SHMEM_SIZE);
	struct vkfd_rsp_alloc_memory rsp;

	(void)state;
	assert_non_null(shm);
	memset(shm, 0x55, VKFD_SHMEM_SIZE);
	assert_int_equal(vkfd_shmem_check(shm, VKFD_SHMEM_SIZE), -EINVAL);
	assert_int_equal(vkfd_shmem_init(shm, VKFD_SHMEM_SIZE - 1, 1, 0), -EINVAL);
	assert_int_equal(vkfd_shmem_init(shm, VKFD_SHMEM_SIZE, 1, VKFD_SHMEM_FLAG_EVENT_HINTS), 0);
	assert_int_equal(vkfd_shmem_check(shm, VKFD_SHMEM_SIZE), 0);
	assert_int_equal(vkfd_shmem_check(shm, VKFD_SHMEM_SIZE - 8), -EINVAL);

	struct vkfd_shmem_hdr *h = vkfd_shmem_hdr(shm);
	assert_int_equal(h->magic, VKFD_SHMEM_MAGIC);
	assert_memory_equal(&h->magic, "KFD1", 4);
	assert_int_equal(h->rsp_off, VKFD_SHMEM_RSP_OFF);
	assert_int_equal(h->rsp_size, VKFD_RSP_AREA_SIZE);
	assert_int_equal(h->event_count, 4096);
	assert_int_equal(h->flags, VKFD_SHMEM_FLAG_EVENT_HINTS);
	/* everything else zeroed */
	for (size_t i = sizeof(*h); i < VKFD_SHMEM_SIZE; i++)
		if (shm[i])
			fail_msg("shmem byte %zu not zero", i);
	assert_true(VKFD_SHMEM_EVENT_OFF + 8 * VKFD_SHMEM_EVENT_COUNT <= VKFD_SHMEM_RSP_OFF);

	/* a corrupted header is refused */
	h->rsp_size = 12;
	assert_int_equal(vkfd_shmem_check(shm, VKFD_SHMEM_SIZE), -EINVAL);
	h->rsp_size = VKFD_RSP_AREA_SIZE;
	h->version = 99;
	assert_int_equal(vkfd_shmem_check(shm, VKFD_SHMEM_SIZE), -EINVAL);
	h->version = 1;

	memset(&rsp, 0, sizeof(rsp));
	rsp.hdr.ret = -12;
	rsp.hdr.reserved = 77;
	rsp.handle = VKFD_HANDLE(5, 9);
	rsp.blob_size = 8192;
	rsp.map_info = VKFD_MAP_WC;
	assert_int_equal(vkfd_rsp_write(shm, 1024, &rsp, sizeof(rsp), 4242), 0);
	struct vkfd_rsp_alloc_memory got;
	memcpy(&got, vkfd_shmem_rsp(shm, 1024), sizeof(got));
	assert_int_equal(got.hdr.ret, -12);
	assert_int_equal(got.hdr.len, sizeof(rsp));
	assert_int_equal(got.hdr.seqno, 4242);
	assert_int_equal(got.hdr.reserved, 0);
	assert_true(got.handle == VKFD_HANDLE(5, 9));
	assert_true(got.blob_size == 8192);
	assert_int_equal(got.map_info, VKFD_MAP_WC);
	assert_int_equal(shm[VKFD_SHMEM_RSP_OFF + 1024 + sizeof(rsp)], 0);
	assert_int_equal(shm[VKFD_SHMEM_RSP_OFF + 1023], 0);

	/* slots that do not fit or are misaligned are refused */
	assert_int_equal(vkfd_rsp_write(shm, 4, &rsp, sizeof(rsp), 1), -EINVAL);
	assert_int_equal(vkfd_rsp_write(shm, VKFD_RSP_AREA_SIZE - 32, &rsp, sizeof(rsp), 1),
			 -EINVAL);
	assert_int_equal(vkfd_rsp_write(shm, 0, &rsp, 8, 1), -EINVAL);
	assert_int_equal(vkfd_rsp_write(shm, VKFD_RSP_AREA_SIZE - 40, &rsp, sizeof(rsp), 7), 0);
	assert_true(vkfd_rsp_slot_ok(0, VKFD_RSP_AREA_SIZE, VKFD_RSP_AREA_SIZE));
	assert_false(vkfd_rsp_slot_ok(8, VKFD_RSP_AREA_SIZE, VKFD_RSP_AREA_SIZE));
	assert_false(vkfd_rsp_slot_ok(0xfffffff8u, 16, VKFD_RSP_AREA_SIZE));

	/* ordered accessors and seqno wrap */
	vkfd_store_release_u32(&h->seqno, 0xffffffffu);
	assert_true(vkfd_seqno_passed(vkfd_load_acquire_u32(&h->seqno), 0xfffffff0u));
	assert_false(vkfd_seqno_passed(vkfd_load_acquire_u32(&h->seqno), 3));
	assert_true(vkfd_seqno_passed(2, 0xffffffffu));
	/* any start: a guest starting at 0x90000000 sees the header's initial 0
	 * as "nothing yet", not as "everything" */
	assert_false(vkfd_seqno_processed(0, 0x90000000u, 0x8fffffffu, 0x90000003u));
	assert_false(vkfd_seqno_processed(0, 0x90000003u, 0x8fffffffu, 0x90000003u));
	assert_true(vkfd_seqno_processed(0x90000001u, 0x90000000u, 0x8fffffffu, 0x90000003u));
	assert_true(vkfd_seqno_processed(0x90000001u, 0x90000001u, 0x8fffffffu, 0x90000003u));
	assert_false(vkfd_seqno_processed(0x90000001u, 0x90000002u, 0x8fffffffu, 0x90000003u));
	/* a guest starting at 1: 0 is base itself */
	assert_false(vkfd_seqno_processed(0, 1, 0, 1));
	assert_true(vkfd_seqno_processed(1, 1, 0, 1));
	/* across the wrap */
	assert_true(vkfd_seqno_processed(2, 0xffffffffu, 0xfffffffeu, 5));
	assert_true(vkfd_seqno_processed(2, 2, 0xfffffffeu, 5));
	assert_false(vkfd_seqno_processed(2, 3, 0xfffffffeu, 5));
	/* at or before base: processed whatever the header says */
	assert_true(vkfd_seqno_processed(0, 0x90000000u, 0x90000000u, 0x90000003u));
	assert_true(vkfd_seqno_processed(0, 0x8ffffff0u, 0x90000000u, 0x90000003u));
	struct vkfd_event_state *ev = vkfd_shmem_events(shm);
	vkfd_store_release_u64(&ev[4095].age, 17);
	assert_true(vkfd_load_acquire_u64(&ev[4095].age) == 17);
	assert_true((uint8_t *)&ev[4095] + 8 <= shm + VKFD_SHMEM_RSP_OFF);
	free(shm);
}

static void test_event_hints(void **state)
{
	uint8_t *shm = aligned_alloc(4096, VKFD_SHMEM_SIZE);
	struct vkfd_event_state *ev;
	uint32_t ids[3] = {1, 4095, 17};
	uint64_t seen[3] = {0, 0, 0};

	(void)state;
	assert_non_null(shm);
	/* flag clear: the table must not be used */
	assert_int_equal(vkfd_shmem_init(shm, VKFD_SHMEM_SIZE, 1, 0), 0);
	assert_false(vkfd_event_hint_unchanged(shm, ids, seen, 3));

	assert_int_equal(vkfd_shmem_init(shm, VKFD_SHMEM_SIZE, 1, VKFD_SHMEM_FLAG_EVENT_HINTS), 0);
	ev = vkfd_shmem_events(shm);
	assert_true(vkfd_event_hint_unchanged(shm, ids, seen, 3));
	/* the host saw event 4095 fire: ask the host */
	vkfd_store_release_u64(&ev[4095].age, 5);
	assert_false(vkfd_event_hint_unchanged(shm, ids, seen, 3));
	assert_true(vkfd_event_hint_unchanged(shm, ids, seen, 1));
	/* after the guest learnt age 5 from a WAIT response, unchanged again */
	seen[1] = 5;
	assert_true(vkfd_event_hint_unchanged(shm, ids, seen, 3));
	/* non-signal ids, out-of-table ids and bad counts are never hinted;
	 * entry 0 belongs to signal event 0 like any other */
	uint32_t mem_ev = VKFD_EVENT_ID_NONSIGNAL_BASE, zero = 0, big = 4096;
	assert_false(vkfd_event_hint_unchanged(shm, &mem_ev, seen, 1));
	assert_true(vkfd_event_hint_unchanged(shm, &zero, seen, 1));
	vkfd_store_release_u64(&ev[0].age, 3);
	assert_false(vkfd_event_hint_unchanged(shm, &zero, seen, 1));
	assert_false(vkfd_event_hint_unchanged(shm, &big, seen, 1));
	assert_false(vkfd_event_hint_unchanged(shm, ids, seen, 0));
	assert_false(vkfd_event_hint_unchanged(shm, ids, seen, VKFD_MAX_WAIT_EVENTS + 1));
	assert_false(vkfd_event_hint_unchanged(NULL, ids, seen, 1));
	free(shm);
}

static void test_capset_and_versions(void **state)
{
	struct vkfd_capset c;
	uint32_t v = 0;

	(void)state;
	vkfd_capset_init(&c);
	assert_int_equal(c.wire_format, VKFD_WIRE_FORMAT);
	assert_int_equal(c.num_rings, 64);
	assert_int_equal(c.shmem_size, VKFD_SHMEM_SIZE);
	assert_int_equal(vkfd_capset_check(&c, sizeof(c)), 0);
	assert_int_equal(vkfd_capset_check(&c, sizeof(c) - 8), -EINVAL);
	c.wire_format = 2;
	assert_int_equal(vkfd_capset_check(&c, sizeof(c)), -EPROTONOSUPPORT);
	vkfd_capset_init(&c);
	c.version_min = 2;
	c.version_max = 5;
	assert_int_equal(vkfd_capset_check(&c, sizeof(c)), -EPROTONOSUPPORT);
	vkfd_capset_init(&c);
	c.num_rings = 65;
	assert_int_equal(vkfd_capset_check(&c, sizeof(c)), -EINVAL);

	assert_int_equal(vkfd_version_negotiate(1, 3, 2, 5, &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(vkfd_version_negotiate(1, 1, 1, 1, &v), 0);
	assert_int_equal(v, 1);
	assert_int_equal(vkfd_version_negotiate(1, 1, 2, 2, &v), -EPROTONOSUPPORT);
	assert_int_equal(vkfd_version_negotiate(3, 1, 1, 5, &v), -EPROTONOSUPPORT);
	assert_int_equal(vkfd_version_negotiate(0, 0, 0, 0, &v), -EPROTONOSUPPORT);
	/* the host API advertises the same capset id */
	assert_int_equal(VKFD_CAPSET_ID, VIRTIO_GPU_CAPSET_AMDKFD);
	assert_int_equal(VIRTIO_GPU_CAPSET_AMDKFD, 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_malformed_batches),
	    cmocka_unit_test(test_unknown_command_continues),
	    cmocka_unit_test(test_random_batches),
	    cmocka_unit_test(test_zero_extension_and_tail),
	    cmocka_unit_test(test_topology_records),
	    cmocka_unit_test(test_rsp_write_and_shmem),
	    cmocka_unit_test(test_event_hints),
	    cmocka_unit_test(test_capset_and_versions),
	};

	return cmocka_run_group_tests_name("vkfd_codec_wire", tests, NULL, NULL);
}
