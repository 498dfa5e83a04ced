// SPDX-License-Identifier: MIT
/* vkfd-server's timeline syncs: values, waits, limits. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>

#include <cmocka.h>

#include "vtest_sync.h"
#include "vtest_wire.h"

static int fcntl_closed(int fd)
{
	return fcntl(fd, F_GETFD) == -1 && errno == EBADF;
}

static bool readable(int fd)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, 0) == 1;
}

static void triple(uint32_t *t, uint32_t id, uint64_t v)
{
	t[0] = id;
	t[1] = (uint32_t)v;
	t[2] = (uint32_t)(v >> 32);
}

static void test_values(void **state)
{
	struct vsync_table *t = vsync_table_create();
	uint32_t a, b;
	uint64_t v;

	(void)state;
	assert_non_null(t);
	assert_int_equal(vsync_create(t, 5, &a), 0);
	assert_int_equal(vsync_create(t, 1ull << 40, &b), 0);
	assert_int_not_equal(a, b);
	assert_int_equal(vsync_read(t, a, &v), 0);
	assert_int_equal(v, 5);
	assert_int_equal(vsync_read(t, b, &v), 0);
	assert_int_equal(v, 1ull << 40);
	/* SYNC_WRITE may lower, signal only raises */
	assert_int_equal(vsync_write(t, a, 3), 0);
	assert_int_equal(vsync_read(t, a, &v), 0);
	assert_int_equal(v, 3);
	vsync_signal(t, a, 2);
	assert_int_equal(vsync_read(t, a, &v), 0);
	assert_int_equal(v, 3);
	vsync_signal(t, a, 9);
	assert_int_equal(vsync_read(t, a, &v), 0);
	assert_int_equal(v, 9);
	assert_int_equal(vsync_unref(t, a), 0);
	assert_int_equal(vsync_read(t, a, &v), -ENOENT);
	assert_int_equal(vsync_unref(t, a), -ENOENT);
	assert_int_equal(vsync_write(t, a, 1), -ENOENT);
	vsync_signal(t, a, 100); /* gone: ignored, no crash */
	/* ids are never reused */
	uint32_t c;

	assert_int_equal(vsync_create(t, 0, &c), 0);
	assert_int_not_equal(c, a);
	vsync_table_destroy(t);
}

static void test_wait_all_any(void **state)
{
	struct vsync_table *t = vsync_table_create();
	uint32_t a, b, tr[6];
	bool keep;
	int fd;

	(void)state;
	assert_int_equal(vsync_create(t, 0, &a), 0);
	assert_int_equal(vsync_create(t, 0, &b), 0);
	triple(tr, a, 1);
	triple(tr + 3, b, 2);

	fd = vsync_wait(t, 0, -1, tr, 2, &keep);
	assert_true(fd >= 0);
	assert_true(keep);
	assert_false(readable(fd));
	assert_int_equal(vsync_pending_waits(t), 1);
	vsync_signal(t, a, 1);
	assert_false(readable(fd)); /* all: b still 0 */
	vsync_signal(t, b, 2);
	assert_true(readable(fd));
	assert_int_equal(vsync_pending_waits(t), 0); /* fired and dropped */
	close(fd);                                   /* the table closed its copy */

	assert_int_equal(vsync_write(t, a, 0), 0);
	assert_int_equal(vsync_write(t, b, 0), 0);
	fd = vsync_wait(t, VTW_SYNC_WAIT_FLAG_ANY, -1, tr, 2, &keep);
	assert_true(fd >= 0 && keep);
	assert_int_equal(vsync_write(t, b, 7), 0);
	assert_true(readable(fd));
	close(fd);

	/* already satisfied: readable at once, caller owns the fd */
	fd = vsync_wait(t, 0, -1, tr + 3, 1, &keep);
	assert_true(fd >= 0);
	assert_false(keep);
	assert_true(readable(fd));
	close(fd);
	vsync_table_destroy(t);
}

static void test_wait_errors(void **state)
{
	struct vsync_table *t = vsync_table_create();
	uint32_t a, tr[3];
	bool keep;
	int fd;

	(void)state;
	assert_int_equal(vsync_create(t, 0, &a), 0);
	triple(tr, a + 100, 1);
	assert_int_equal(vsync_wait(t, 0, -1, tr, 1, &keep), -ENOENT);
	triple(tr, a, 1);
	assert_int_equal(vsync_wait(t, 0, -1, tr, 0, &keep), -EINVAL);
	assert_int_equal(vsync_wait(t, 0, -1, tr, VSYNC_MAX_WAIT_ENTRIES + 1, &keep), -EINVAL);
	assert_int_equal(vsync_wait(t, 0x80, -1, tr, 1, &keep), -EINVAL);
	/* timeout 0 and not ready: an unsignalled fd, nothing kept */
	fd = vsync_wait(t, 0, 0, tr, 1, &keep);
	assert_true(fd >= 0);
	assert_false(keep);
	assert_false(readable(fd));
	close(fd);
	assert_int_equal(vsync_pending_waits(t), 0);
	vsync_table_destroy(t);
}

static void test_limits(void **state)
{
	struct vsync_table *t = vsync_table_create();
	uint32_t id = 0, tr[3];
	bool keep;
	int fds[VSYNC_MAX_WAITS];

	(void)state;
	for (unsigned i = 0; i < VSYNC_MAX_SYNCS; i++)
		assert_int_equal(vsync_create(t, 0, &id), 0);
	assert_int_equal(vsync_create(t, 0, &id), -ENOSPC);
	triple(tr, id, 1);
	for (unsigned i = 0; i < VSYNC_MAX_WAITS; i++) {
		fds[i] = vsync_wait(t, 0, -1, tr, 1, &keep);
		assert_true(fds[i] >= 0 && keep);
	}
	assert_int_equal(vsync_wait(t, 0, -1, tr, 1, &keep), -ENOSPC);
	/* destroy closes every kept eventfd */
	vsync_table_destroy(t);
	for (unsigned i = 0; i < VSYNC_MAX_WAITS; i++)
		assert_int_equal(fcntl_closed(fds[i]), 1);
}

static void test_expired_waits_dropped(void **state)
{
	struct vsync_table *t = vsync_table_create();
	uint32_t id, tr[3];
	bool keep;
	int fd;

	(void)state;
	assert_int_equal(vsync_create(t, 0, &id), 0);
	triple(tr, id, 1);
	fd = vsync_wait(t, 0, 1, tr, 1, &keep);
	assert_true(fd >= 0 && keep);
	usleep(5000);
	vsync_signal(t, id, 0);                     /* no change: no sweep */
	assert_int_equal(vsync_write(t, id, 0), 0); /* sweeps */
	assert_int_equal(vsync_pending_waits(t), 0);
	vsync_table_destroy(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_wait_all_any),
	    cmocka_unit_test(test_wait_errors),
	    cmocka_unit_test(test_limits),
	    cmocka_unit_test(test_expired_waits_dropped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
