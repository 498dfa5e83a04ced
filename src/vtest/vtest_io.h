/* SPDX-License-Identifier: MIT */
/*
 * Blocking stream I/O on the vtest Unix socket, shared by vkfd-server and
 * the guest library's vtest transport.
 */
#ifndef VKFD_VTEST_IO_H
#define VKFD_VTEST_IO_H

#include <stddef.h>

/* Read exactly len bytes. timeout_ms < 0 waits forever, else bounds the wait
 * for each chunk. Any file descriptors that arrive with the data are closed
 * and counted in *stray_fds (may be NULL). 0, -EPIPE on end of stream
 * (also mid-message), -ETIMEDOUT, or -errno. */
int vtio_read_full(int sock, void *buf, size_t len, int timeout_ms, unsigned *stray_fds);
/* Write exactly len bytes (no SIGPIPE). 0 or -errno (-EPIPE: peer gone). */
int vtio_write_full(int sock, const void *buf, size_t len);
/* Send one fd in a one-byte message. 0 or -errno. */
int vtio_send_fd(int sock, int fd);
/* Receive the one-byte message carrying exactly one fd (O_CLOEXEC). Extra
 * fds are closed. fd or -errno (-EBADMSG: no fd in the message). */
int vtio_recv_fd(int sock, int timeout_ms);

#endif
