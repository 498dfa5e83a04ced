/* SPDX-License-Identifier: MIT */
/* Spawning a real vkfd-server for tests, and looking at it from outside. */
#ifndef VKFD_TEST_SERVER_HARNESS_H
#define VKFD_TEST_SERVER_HARNESS_H

#include <stdbool.h>
#include <sys/types.h>

struct test_server {
	pid_t pid;
	char sock[108];
	bool keep_path; /* start on sock as set by the caller, no cleanup */
};

/* Path of the vkfd-server binary: argv[1] of the test, set by meson. */
void harness_set_server_bin(const char *path);
/* Start vkfd-server on a fresh temp socket (or on s->sock if keep_path)
 * with extra args (NULL-terminated list), wait for its ready byte. 0 or -1. */
int harness_start(struct test_server *s, const char *const *extra);
/* SIGTERM, reap; returns the exit status (or -1 if it had to be killed). */
int harness_stop(struct test_server *s);
/* Open fds of a process (/proc/<pid>/fd entries), -1 on error. */
int harness_fd_count(pid_t pid);
/* Number of child processes of pid, zombies included. */
int harness_children(pid_t pid, pid_t *first);
/* Wait up to ms for fd count == want and no children; true on success. */
bool harness_settle(pid_t pid, int want_fds, int ms);

#endif
