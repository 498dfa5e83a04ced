// SPDX-License-Identifier: MIT
/*
 * libFuzzer harness for vkfd-server's per-client worker: the input is the
 * raw byte stream a hostile vtest client sends (headers, payloads, batches),
 * served by vtest_worker_run() over a socketpair on kfdsim. A reader thread
 * plays the client's receiving side: it drains replies and closes every fd
 * the worker passes, so a leak or a stall in the worker shows up as a
 * LeakSanitizer report or a libFuzzer timeout, never as back-pressure.
 *
 * Each input is a whole client session: the worker brings the host library
 * up at CONTEXT_INIT and down when the stream ends, so teardown with
 * whatever the input left behind runs every time.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server_log.h"
#include "vtest_worker.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct client_feed {
	int sock;
	const uint8_t *data;
	size_t size;
};

static void *client_write(void *arg)
{
	struct client_feed *f = arg;
	size_t done = 0;

	while (done < f->size) {
		ssize_t n = send(f->sock, f->data + done, f->size - done, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break; /* the worker dropped us: the rest is never read */
		done += (size_t)n;
	}
	shutdown(f->sock, SHUT_WR);
	return NULL;
}

/* Reads replies until the worker closes its end; fds are closed at once. */
static void client_drain(int sock)
{
	for (;;) {
		uint8_t buf[4096];
		union {
			struct cmsghdr h;
			uint8_t b[CMSG_SPACE(sizeof(int) * 8)];
		} ctl;
		struct iovec iov = {.iov_base = buf, .iov_len = sizeof(buf)};
		struct msghdr m = {
		    .msg_iov = &iov,
		    .msg_iovlen = 1,
		    .msg_control = ctl.b,
		    .msg_controllen = sizeof(ctl.b),
		};
		ssize_t n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);

		if (n < 0 && errno == EINTR)
			continue;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
			if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
				continue;
			size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < nfd; i++) {
				int fd;

				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
				close(fd);
			}
		}
		if (n <= 0)
			return;
	}
}

static void *client_read(void *arg)
{
	client_drain(*(int *)arg);
	return NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int log_ready;
	/* as vkfd-server: one share table for every worker (input) */
	static struct vtest_share *share;
	struct vtest_worker_opts opts = {.device = VKFD_DEVICE_SIM};
	struct client_feed feed;
	pthread_t writer, reader;
	int sv[2];

	if (!log_ready) {
		setenv("VKFD_DEBUG", "none", 0);
		srv_log_init();
		share = vtest_share_create();
		log_ready = 1;
	}
	opts.share = share;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv))
		return 0;
	feed.sock = sv[0];
	feed.data = data;
	feed.size = size;
	if (pthread_create(&writer, NULL, client_write, &feed)) {
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	if (pthread_create(&reader, NULL, client_read, &sv[0])) {
		shutdown(sv[0], SHUT_RDWR); /* the writer stops at once */
		pthread_join(writer, NULL);
		close(sv[0]);
		close(sv[1]);
		return 0;
	}
	vtest_worker_run(sv[1], &opts); /* closes sv[1] */
	pthread_join(writer, NULL);
	pthread_join(reader, NULL);
	close(sv[0]);
	return 0;
}
