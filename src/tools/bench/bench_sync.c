// SPDX-License-Identifier: MIT
/*
 * vkfd-bench "sync": latency of one synchronous command
 * (GET_CLOCK_COUNTERS) per path, next to a raw Unix-socket ping-pong
 * between two processes with the same request and response sizes (24 and
 * 48 bytes), measured in the same run: the transport's own limit.
 *
 * t0: just before the call is issued; t1: when it has returned with the
 * response copied out.
 */
#include "bench.h"
#include "bench_dev.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vkfd_protocol.h"

#define WARMUP 20u

static void sync_path(enum bench_path p, unsigned iters, struct bench_cell *c)
{
	char why[BENCH_REASON_LEN];
	struct bench_dev *d = bench_dev_open(p, why, sizeof(why));
	uint64_t *s, clk;
	int r = 0;

	if (!d) {
		bench_cell_na(c, "%s", why);
		return;
	}
	s = calloc(iters, sizeof(*s));
	if (!s) {
		bench_cell_na(c, "out of memory");
		bench_dev_close(d);
		return;
	}
	for (unsigned i = 0; i < WARMUP && !r; i++)
		r = bench_dev_clock(d, &clk);
	for (unsigned i = 0; i < iters && !r; i++) {
		uint64_t t0 = bench_now_ns();

		r = bench_dev_clock(d, &clk);
		s[i] = bench_now_ns() - t0;
	}
	if (r) {
		bench_cell_na(c, "GET_CLOCK_COUNTERS: %s", strerror(-r));
		free(s);
	} else {
		bench_cell_samples(c, s, iters);
	}
	bench_dev_close(d);
}

static int full_io(int fd, void *buf, size_t len, bool wr)
{
	uint8_t *b = buf;

	while (len) {
		ssize_t n = wr ? send(fd, b, len, MSG_NOSIGNAL) : recv(fd, b, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EPIPE;
		b += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Two processes on a socketpair: 24-byte request, 48-byte response. */
static void socket_pingpong(unsigned iters, struct bench_cell *c)
{
	uint8_t req[sizeof(struct vkfd_req_gpu)];
	uint8_t rsp[sizeof(struct vkfd_rsp_get_clock_counters)];
	unsigned total = iters + WARMUP;
	uint64_t *s = calloc(iters, sizeof(*s));
	int sv[2], r = 0, status;
	pid_t pid;

	if (!s) {
		bench_cell_na(c, "out of memory");
		return;
	}
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		bench_cell_na(c, "socketpair: %s", strerror(errno));
		free(s);
		return;
	}
	memset(req, 0x11, sizeof(req));
	memset(rsp, 0x22, sizeof(rsp));
	bench_pin(1);
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		for (unsigned i = 0; i < total; i++) {
			if (full_io(sv[1], req, sizeof(req), false) ||
			    full_io(sv[1], rsp, sizeof(rsp), true))
				_exit(1);
		}
		_exit(0);
	}
	bench_pin(0);
	close(sv[1]);
	if (pid < 0) {
		bench_cell_na(c, "fork: %s", strerror(errno));
		close(sv[0]);
		free(s);
		return;
	}
	for (unsigned i = 0; i < total && !r; i++) {
		uint64_t t0 = bench_now_ns();

		r = full_io(sv[0], req, sizeof(req), true);
		if (!r)
			r = full_io(sv[0], rsp, sizeof(rsp), false);
		if (i >= WARMUP)
			s[i - WARMUP] = bench_now_ns() - t0;
	}
	close(sv[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (r) {
		bench_cell_na(c, "socket ping-pong: %s", strerror(-r));
		free(s);
		return;
	}
	bench_cell_samples(c, s, iters);
}

void bench_sync(const struct bench_opts *o, struct bench_scenario_result *out)
{
	out->name = "sync";
	out->primary_name = "p50_us";
	out->higher_is_better = false;
	out->has_ref = true;
	out->ref_name = "socket";
	snprintf(out->note, sizeof(out->note),
		 "GET_CLOCK_COUNTERS, %u calls per path; socket = raw Unix-socket ping-pong "
		 "(24 B request, 48 B response) between two processes",
		 o->iterations);
	for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
		if (o->paths[p])
			sync_path((enum bench_path)p, o->iterations, &out->cell[p]);
	socket_pingpong(o->iterations, &out->ref);
	if (!out->ref.ran)
		return;
	for (unsigned p = 0; p < BENCH_PATH_COUNT; p++) {
		struct bench_cell *c = &out->cell[p];

		if (!o->paths[p] || !c->ran)
			continue;
		bench_cell_metric(c, "p50_vs_socket",
				  bench_cell_pct_us(c, 50) / bench_cell_pct_us(&out->ref, 50));
		bench_cell_metric(c, "p99_vs_socket",
				  bench_cell_pct_us(c, 99) / bench_cell_pct_us(&out->ref, 99));
	}
}
