// SPDX-License-Identifier: MIT
/* Stream I/O shared by vkfd-server and the vtest transport. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "vtest_io.h"

static int open_fds(void)
{
	int n = 0;

	for (int fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) != -1)
			n++;
	return n;
}

static void pair(int sv[2])
{
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
}

static void test_roundtrip(void **state)
{
	int sv[2];
	uint8_t out[100000], in[100000];

	(void)state;
	pair(sv);
	for (size_t i = 0; i < sizeof(out); i++)
		out[i] = (uint8_t)(i * 7);
	/* larger than the socket buffer: the writer must be concurrent */
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		close(sv[1]);
		_exit(vtio_write_full(sv[0], out, sizeof(out)) ? 1 : 0);
	}
	assert_int_equal(vtio_read_full(sv[1], in, sizeof(in), 5000, NULL), 0);
	assert_memory_equal(in, out, sizeof(in));
	close(sv[0]);
	close(sv[1]);
}

static void test_short_read_is_epipe(void **state)
{
	int sv[2];
	uint8_t buf[16];

	(void)state;
	pair(sv);
	assert_int_equal(vtio_write_full(sv[0], "abcd", 4), 0);
	close(sv[0]);
	assert_int_equal(vtio_read_full(sv[1], buf, sizeof(buf), 1000, NULL), -EPIPE);
	close(sv[1]);
}

static void test_timeout(void **state)
{
	int sv[2];
	uint8_t buf[4];
	struct timespec a, b;

	(void)state;
	pair(sv);
	clock_gettime(CLOCK_MONOTONIC, &a);
	assert_int_equal(vtio_read_full(sv[1], buf, sizeof(buf), 50, NULL), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &b);
	long ms = (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;

	assert_true(ms >= 45);
	close(sv[0]);
	close(sv[1]);
}

static void test_write_to_closed_peer(void **state)
{
	int sv[2];

	(void)state;
	pair(sv);
	close(sv[1]);
	/* no SIGPIPE kills the test */
	assert_int_equal(vtio_write_full(sv[0], "x", 1), -EPIPE);
	close(sv[0]);
}

static void test_fd_passing(void **state)
{
	int sv[2], p[2], fd;
	char c = 0;

	(void)state;
	pair(sv);
	assert_int_equal(pipe(p), 0);
	assert_int_equal(vtio_send_fd(sv[0], p[1]), 0);
	fd = vtio_recv_fd(sv[1], 1000);
	assert_true(fd >= 0);
	assert_int_not_equal(fd, p[1]);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(write(fd, "z", 1), 1);
	assert_int_equal(read(p[0], &c, 1), 1);
	assert_int_equal(c, 'z');
	close(fd);
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}

static void test_recv_fd_without_fd(void **state)
{
	int sv[2];

	(void)state;
	pair(sv);
	assert_int_equal(vtio_write_full(sv[0], "x", 1), 0);
	assert_int_equal(vtio_recv_fd(sv[1], 1000), -EBADMSG);
	close(sv[0]);
	assert_int_equal(vtio_recv_fd(sv[1], 1000), -EPIPE);
	close(sv[1]);
}

static void test_stray_fds_closed(void **state)
{
	int sv[2], p[2];
	uint8_t buf[5];
	unsigned stray = 0;

	(void)state;
	pair(sv);
	assert_int_equal(pipe(p), 0);
	int before = open_fds();

	/* a hostile peer attaches an fd to ordinary data */
	assert_int_equal(vtio_send_fd(sv[0], p[0]), 0);
	assert_int_equal(vtio_write_full(sv[0], "abcd", 4), 0);
	assert_int_equal(vtio_read_full(sv[1], buf, 5, 1000, &stray), 0);
	assert_int_equal(stray, 1);
	assert_int_equal(open_fds(), before);
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_roundtrip),        cmocka_unit_test(test_short_read_is_epipe),
	    cmocka_unit_test(test_timeout),          cmocka_unit_test(test_write_to_closed_peer),
	    cmocka_unit_test(test_fd_passing),       cmocka_unit_test(test_recv_fd_without_fd),
	    cmocka_unit_test(test_stray_fds_closed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
