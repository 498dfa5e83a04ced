// SPDX-License-Identifier: MIT
#include "vtest_io.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Room for a handful of fds: more than that are truncated (and closed by the
 * kernel), which is what we want for a hostile peer. */
#define VTIO_MAX_FDS 8

static int wait_readable(int sock, int timeout_ms)
{
	struct pollfd p = {.fd = sock, .events = POLLIN};
	int r;

	if (timeout_ms < 0)
		return 0;
	do
		r = poll(&p, 1, timeout_ms);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	if (r == 0)
		return -ETIMEDOUT;
	return 0;
}

/* Close every fd carried by msg; return how many. */
static unsigned drop_fds(struct msghdr *msg, int *keep)
{
	unsigned n = 0;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t cnt = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		const unsigned char *data = CMSG_DATA(c);

		for (size_t i = 0; i < cnt; i++) {
			int fd;

			memcpy(&fd, data + i * sizeof(int), sizeof(int));
			if (keep && *keep < 0) {
				*keep = fd;
				continue;
			}
			close(fd);
			n++;
		}
	}
	return n;
}

static ssize_t recv_some(int sock, void *buf, size_t len, int *keep, unsigned *stray)
{
	union {
		char buf[CMSG_SPACE(VTIO_MAX_FDS * sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = {.iov_base = buf, .iov_len = len};
	struct msghdr msg = {
	    .msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = ctl.buf,
	    .msg_controllen = sizeof(ctl.buf),
	};
	ssize_t r;

	memset(ctl.buf, 0, sizeof(ctl.buf));
	do
		r = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	unsigned n = drop_fds(&msg, keep);

	if (stray)
		*stray += n;
	return r;
}

int vtio_read_full(int sock, void *buf, size_t len, int timeout_ms, unsigned *stray_fds)
{
	uint8_t *p = buf;

	while (len) {
		int w = wait_readable(sock, timeout_ms);

		if (w)
			return w;
		ssize_t r = recv_some(sock, p, len, NULL, stray_fds);

		if (r < 0)
			return (int)r;
		if (r == 0)
			return -EPIPE;
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

int vtio_write_full(int sock, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len) {
		ssize_t r = send(sock, p, len, MSG_NOSIGNAL);

		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += r;
		len -= (size_t)r;
	}
	return 0;
}

int vtio_send_fd(int sock, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	char byte = 0;
	struct iovec iov = {.iov_base = &byte, .iov_len = 1};
	struct msghdr msg = {
	    .msg_iov = &iov,
	    .msg_iovlen = 1,
	    .msg_control = ctl.buf,
	    .msg_controllen = sizeof(ctl.buf),
	};
	ssize_t r;

	memset(ctl.buf, 0, sizeof(ctl.buf));
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	do
		r = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r == 1 ? 0 : -EIO;
}

int vtio_recv_fd(int sock, int timeout_ms)
{
	char byte;
	int fd = -1;
	int w = wait_readable(sock, timeout_ms);

	if (w)
		return w;
	ssize_t r = recv_some(sock, &byte, 1, &fd, NULL);

	if (r < 0)
		return (int)r;
	if (r == 0) {
		if (fd >= 0)
			close(fd);
		return -EPIPE;
	}
	if (fd < 0)
		return -EBADMSG;
	return fd;
}
