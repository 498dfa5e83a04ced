// SPDX-License-Identifier: MIT
#include "server_harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *server_bin = "vkfd-server";
static unsigned counter;

void harness_set_server_bin(const char *path)
{
	server_bin = path;
}

int harness_start(struct test_server *s, const char *const *extra)
{
	int p[2];
	char fdbuf[16];
	const char *argv[32];
	int n = 0;

	if (!s->keep_path) {
		snprintf(s->sock, sizeof(s->sock), "/tmp/vkfd-test-%d-%u.sock", (int)getpid(),
			 counter++);
		unlink(s->sock);
	}
	if (pipe2(p, O_CLOEXEC))
		return -1;
	argv[n++] = server_bin;
	argv[n++] = "--socket";
	argv[n++] = s->sock;
	argv[n++] = "--ready-fd";
	snprintf(fdbuf, sizeof(fdbuf), "%d", p[1]);
	argv[n++] = fdbuf;
	for (; extra && *extra && n < 30; extra++)
		argv[n++] = *extra;
	argv[n] = NULL;
	s->pid = fork();
	if (s->pid < 0)
		return -1;
	if (s->pid == 0) {
		/* the ready fd must survive exec */
		fcntl(p[1], F_SETFD, 0);
		/* in sanitizer builds, undefined behaviour in a worker ends
		 * it, so the test talking to it fails instead of a log line */
		setenv("UBSAN_OPTIONS", "halt_on_error=1:print_stacktrace=1", 0);
		close(p[0]);
		execv(server_bin, (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	struct pollfd pf = {.fd = p[0], .events = POLLIN};
	char byte;
	int ok = poll(&pf, 1, 10000) == 1 && read(p[0], &byte, 1) == 1;

	/* the server closes its end right after the byte: wait for that, so
	 * fd counts taken from now on are the server's steady state */
	if (ok)
		ok = poll(&pf, 1, 10000) == 1 && read(p[0], &byte, 1) == 0;
	close(p[0]);
	if (!ok) {
		kill(s->pid, SIGKILL);
		waitpid(s->pid, NULL, 0);
		return -1;
	}
	return 0;
}

int harness_stop(struct test_server *s)
{
	int status;

	if (s->pid <= 0)
		return -1;
	kill(s->pid, SIGTERM);
	for (int i = 0; i < 1000; i++) {
		pid_t r = waitpid(s->pid, &status, WNOHANG);

		if (r == s->pid) {
			s->pid = 0;
			return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
		}
		usleep(10000);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, NULL, 0);
	s->pid = 0;
	return -1;
}

int harness_fd_count(pid_t pid)
{
	char path[64];
	DIR *d;
	struct dirent *de;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)pid);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

int harness_children(pid_t pid, pid_t *first)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int n = 0;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		char path[300], buf[512];
		int child = atoi(de->d_name);

		if (child <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		FILE *f = fopen(path, "r");

		if (!f)
			continue;
		size_t len = fread(buf, 1, sizeof(buf) - 1, f);

		fclose(f);
		buf[len] = '\0';
		/* pid (comm) state ppid ...; comm may hold spaces */
		char *rp = strrchr(buf, ')');
		char state;
		int ppid;

		if (!rp || sscanf(rp + 1, " %c %d", &state, &ppid) != 2)
			continue;
		/* zombies count: the server must reap its workers */
		if (ppid == pid) {
			if (first && n == 0)
				*first = child;
			n++;
		}
	}
	closedir(d);
	return n;
}

bool harness_settle(pid_t pid, int want_fds, int ms)
{
	for (int i = 0; i <= ms / 10; i++) {
		if (harness_fd_count(pid) == want_fds && harness_children(pid, NULL) == 0)
			return true;
		usleep(10000);
	}
	return false;
}
