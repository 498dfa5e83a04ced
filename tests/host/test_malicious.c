// SPDX-License-Identifier: MIT
/*
 * A malicious guest: every command truncated, oversized and filled with
 * garbage; every framing violation. Each must be answered (errno in the
 * response, or the context lost for framing), never crash or leak, and
 * leave a second context unaffected. Targeted hostile cases (stale and
 * foreign handles, double free, overlapping VA, blob mismatches, second
 * shmem, queue addresses, destroyed events, rings 0 and 64) live in the
 * per-area suites.
 */
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "host_harness.h"
#include "host_internal.h"
#include "kfdsim_test_hooks.h"
#include "vkfd/kfdsim.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so a failure reproduces */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

struct pair {
	struct harness a, b;
};

static int setup(void **state)
{
	static struct pair p;

	/* the real device has one KFD process per host process: no B there,
	 * and the abused context A itself must stay alive */
	if (h_lib_init(0, NULL) || h_open(&p.a, 1) || (!h_real_device() && h_open(&p.b, 2)))
		return -1;
	*state = &p;
	return 0;
}

static int teardown(void **state)
{
	struct pair *p = *state;

	h_close(&p->a);
	if (p->b.ctx)
		h_close(&p->b);
	h_lib_fini();
	return 0;
}

static void check_b_alive(struct harness *b)
{
	struct vkfd_req_get_version gv;
	struct vkfd_rsp_get_version rsp;

	memset(&gv, 0, sizeof(gv));
	assert_int_equal(h_call(b, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), &rsp, sizeof(rsp)), 0);
	assert_int_equal(rsp.major, 1);
}

/* Sync requests get a response; the context is not lost. */
static void send_and_check(struct harness *h, uint32_t cmd, void *req, uint32_t len)
{
	uint32_t off, s;
	struct vkfd_rsp_hdr *rh;

	/* never block a ring forever: waits in these tests use timeout 0 */
	if (cmd == VKFD_CMD_WAIT_EVENTS && len >= 32)
		((struct vkfd_req_wait_events *)req)->timeout_ms = 0;
	s = h_add(h, cmd, req, len, &off);
	assert_true(s != 0);
	assert_int_equal(h_flush(h), 0);
	assert_int_equal(h_wait_seqno(h, s), 0);
	if (vkfd_cmd_is_sync(cmd) && cmd != VKFD_CMD_WAIT_EVENTS) {
		rh = h_rsp(h, off);
		assert_int_equal(vkfd_load_acquire_u32(&rh->seqno), s);
		assert_true(rh->ret <= 0 && rh->ret > -4096);
		assert_true(rh->len >= sizeof(*rh) && rh->len <= vkfd_rsp_size(cmd, req, len));
	}
	assert_int_equal(((struct vkfd_shmem_hdr *)h->shmem)->async_error, 0);
}

static void test_truncated_commands(void **state)
{
	struct pair *p = *state;
	uint8_t req[16];

	/* only the header: every field zero-extended */
	for (uint32_t cmd = 1; cmd < VKFD_CMD_COUNT_; cmd++) {
		memset(req, 0, sizeof(req));
		send_and_check(&p->a, cmd, req, sizeof(req));
	}
	check_b_alive(p->b.ctx ? &p->b : &p->a);
}

static void test_oversized_commands(void **state)
{
	struct pair *p = *state;
	static uint8_t req[VKFD_MAX_REQ_SIZE];

	/* the tail beyond the known struct is ignored */
	for (uint32_t cmd = 1; cmd < VKFD_CMD_COUNT_; cmd++) {
		memset(req, 0xa5, sizeof(req));
		memset(req, 0, 16 + 8);
		send_and_check(&p->a, cmd, req, sizeof(req));
	}
	check_b_alive(p->b.ctx ? &p->b : &p->a);
}

static void test_unknown_commands(void **state)
{
	struct pair *p = *state;
	uint8_t req[24];
	uint32_t ids[] = {0x0f, 0x1d, 0x27, 0x38, 0x80, 0x82, 0xffff, 0x80000000u};

	for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
		struct vkfd_rsp_hdr *rh;
		uint32_t off, s;

		memset(req, 0, sizeof(req));
		s = h_add(&p->a, ids[i], req, sizeof(req), &off);
		assert_int_equal(h_flush(&p->a), 0);
		assert_int_equal(h_wait_seqno(&p->a, s), 0);
		rh = h_rsp(&p->a, off);
		assert_int_equal(rh->seqno, s);
		assert_int_equal(rh->ret, -ENOTTY);
		assert_int_equal(rh->len, 16);
	}
}

static void test_garbage_fields(void **state)
{
	struct pair *p = *state;
	uint64_t base = kfdsim_bytes_allocated(host_g.sim);
	static uint8_t req[VKFD_MAX_REQ_SIZE];

	(void)base;
	for (int iter = 0; iter < 3000; iter++) {
		uint32_t cmd = 1 + (uint32_t)(rnd() % (VKFD_CMD_COUNT_ - 1));
		uint32_t known = vkfd_cmd_req_size(cmd);
		uint32_t len;

		if (!known)
			continue;
		len = 16 + (uint32_t)(rnd() % (known + 64 - 16 + 1));
		len = (len + 7) & ~7u;
		if (len > VKFD_MAX_REQ_SIZE)
			len = VKFD_MAX_REQ_SIZE;
		for (uint32_t i = 0; i < len; i += 8) {
			uint64_t v = rnd();

			/* sometimes plausible values: small numbers, real gpu id */
			switch (rnd() % 4) {
			case 0:
				v &= 0xff;
				break;
			case 1:
				v = p->a.gpu_id | ((uint64_t)p->a.gpu_id << 32);
				break;
			default:
				break;
			}
			memcpy(req + i, &v, 8);
		}
		send_and_check(&p->a, cmd, req, len);
	}
	check_b_alive(p->b.ctx ? &p->b : &p->a);
}

/* The real device has one KFD process per host process: there A steps
 * aside while a test runs contexts of its own, and comes back after. */
static void a_step_aside(struct pair *p)
{
	if (h_real_device()) {
		h_close(&p->a);
		p->a.shmem_fd = -1;
	}
}

static void a_come_back(struct pair *p)
{
	if (h_real_device())
		assert_int_equal(h_open(&p->a, 1), 0);
}

static void test_framing_violations(void **state)
{
	struct pair *p = *state;
	/* each entry: header fields of a one-request batch of `size` bytes */
	struct {
		uint32_t cmd, len, rsp_off;
		size_t size;
	} cases[] = {
	    {VKFD_CMD_GET_VERSION, 0, 0, 16},  /* zero len */
	    {VKFD_CMD_GET_VERSION, 8, 0, 16},  /* short */
	    {VKFD_CMD_GET_VERSION, 20, 0, 24}, /* unaligned */
	    {VKFD_CMD_GET_VERSION, 64, 0, 32}, /* overrun */
	    {VKFD_CMD_GET_VERSION, VKFD_MAX_REQ_SIZE + 8, 0, VKFD_MAX_REQ_SIZE + 8},
	    {VKFD_CMD_GET_VERSION, 16, 4, 16},                      /* rsp unaligned */
	    {VKFD_CMD_GET_VERSION, 16, VKFD_RSP_AREA_SIZE - 8, 16}, /* rsp outside */
	    {VKFD_CMD_GET_VERSION, 16, 0, 8},                       /* truncated hdr */
	};

	a_step_aside(p);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		static uint8_t buf[VKFD_MAX_REQ_SIZE + 16];
		struct vkfd_req_hdr *hdr = (void *)buf;
		struct harness v;

		assert_int_equal(h_open(&v, 100 + (uint32_t)i), 0);
		memset(buf, 0, sizeof(buf));
		hdr->cmd = cases[i].cmd;
		hdr->len = cases[i].len;
		hdr->seqno = 5;
		hdr->rsp_off = cases[i].rsp_off;
		assert_int_equal(vkfd_host_context_submit_cmd(v.ctx, buf, cases[i].size), -EINVAL);
		assert_int_equal(((struct vkfd_shmem_hdr *)v.shmem)->async_error,
				 VKFD_ASYNC_ERR_PROTOCOL);
		assert_int_equal(vkfd_host_context_submit_cmd(v.ctx, buf, 16), -EIO);
		h_close(&v);
	}
	/* a batch above the limit */
	{
		struct harness v;
		uint8_t *big = calloc(1, VKFD_MAX_BATCH_SIZE + 8);

		assert_int_equal(h_open(&v, 200), 0);
		assert_int_equal(vkfd_host_context_submit_cmd(v.ctx, big, VKFD_MAX_BATCH_SIZE + 8),
				 -EINVAL);
		assert_int_equal(((struct vkfd_shmem_hdr *)v.shmem)->async_error,
				 VKFD_ASYNC_ERR_PROTOCOL);
		free(big);
		h_close(&v);
	}
	a_come_back(p);
	check_b_alive(p->b.ctx ? &p->b : &p->a);
}

static void test_no_leak_after_abuse(void **state)
{
	struct pair *p = *state;
	uint64_t base;
	struct harness v;
	int fds;

	a_step_aside(p);
	base = kfdsim_bytes_allocated(host_g.sim);
	fds = h_fd_count();
	assert_int_equal(h_open(&v, 300), 0);
	for (int iter = 0; iter < 1500; iter++) {
		static uint8_t req[512];
		uint32_t cmd = 1 + (uint32_t)(rnd() % (VKFD_CMD_COUNT_ - 1));

		for (size_t i = 0; i < sizeof(req); i += 8) {
			uint64_t x = rnd() % 3 ? rnd() & 0xffff : v.gpu_id;

			memcpy(req + i, &x, 8);
		}
		send_and_check(&v, cmd, req, 16 + 8 * (uint32_t)(rnd() % 60));
	}
	h_close(&v);
	if (!h_real_device())
		assert_int_equal(kfdsim_bytes_allocated(host_g.sim), base);
	assert_int_equal(h_fd_count(), fds);
	a_come_back(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_truncated_commands), cmocka_unit_test(test_oversized_commands),
	    cmocka_unit_test(test_unknown_commands),   cmocka_unit_test(test_garbage_fields),
	    cmocka_unit_test(test_framing_violations), cmocka_unit_test(test_no_leak_after_abuse),
	};

	setenv("VKFD_DEBUG", "none", 0);
	return cmocka_run_group_tests(tests, setup, teardown);
}
