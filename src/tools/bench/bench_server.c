// SPDX-License-Identifier: MIT
/*
 * vkfd-bench: finding the other vkfd programs (vkfd-server, vkfd-run) and
 * running one private vkfd-server for the vtest path.
 *
 * Lookup order: an environment variable, then the build tree relative to
 * this executable (src/tools/bench/vkfd-bench), then the installed bindir.
 */
#include "bench_server.h"
#include "bench.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef VKFD_BINDIR
#define VKFD_BINDIR "/usr/local/bin"
#endif

#define READY_TIMEOUT_MS 20000

bool bench_find_program(const char *env, const char *build_rel, const char *name, char *out,
			size_t len)
{
	const char *e = getenv(env);
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;
	int w;

	if (e && *e) {
		w = snprintf(out, len, "%s", e);
		return w > 0 && (size_t)w < len && access(out, X_OK) == 0;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			w = snprintf(out, len, "%s/%s", exe, build_rel);
			if (w > 0 && (size_t)w < len && access(out, X_OK) == 0)
				return true;
		}
	}
	w = snprintf(out, len, "%s/%s", VKFD_BINDIR, name);
	return w > 0 && (size_t)w < len && access(out, X_OK) == 0;
}

static struct {
	bool tried;
	bool ok;
	pid_t pid;
	char dir[PATH_MAX];
	char sock[PATH_MAX + 16];
	char why[BENCH_REASON_LEN];
} srv;

void bench_server_stop(void)
{
	int status;

	if (srv.pid > 0) {
		kill(srv.pid, SIGTERM);
		while (waitpid(srv.pid, &status, 0) < 0 && errno == EINTR)
			;
		srv.pid = 0;
	}
	if (srv.sock[0])
		unlink(srv.sock);
	if (srv.dir[0])
		rmdir(srv.dir);
	srv.sock[0] = '\0';
	srv.dir[0] = '\0';
	srv.ok = false;
}

static int start(void)
{
	char path[PATH_MAX], fdarg[16];
	const char *tmp = getenv("TMPDIR");
	struct pollfd pfd;
	int pipefd[2], n, ret;
	char byte;

	if (!bench_find_program("VKFD_SERVER", "../../server/vkfd-server", "vkfd-server", path,
				sizeof(path))) {
		snprintf(srv.why, sizeof(srv.why),
			 "vkfd-server not found (VKFD_SERVER, build tree, %s)", VKFD_BINDIR);
		return -1;
	}
	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(srv.dir, sizeof(srv.dir), "%s/vkfd-bench-XXXXXX", tmp);
	if (n < 0 || (size_t)n >= sizeof(srv.dir) - 16 || !mkdtemp(srv.dir)) {
		snprintf(srv.why, sizeof(srv.why), "cannot create a socket directory in %s", tmp);
		srv.dir[0] = '\0';
		return -1;
	}
	snprintf(srv.sock, sizeof(srv.sock), "%s/vkfd.sock", srv.dir);
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		snprintf(srv.why, sizeof(srv.why), "pipe: %s", strerror(errno));
		return -1;
	}
	snprintf(fdarg, sizeof(fdarg), "%d", pipefd[1]);
	/* the host side runs on the second CPU, the guest on the first */
	bench_pin(1);
	srv.pid = fork();
	if (srv.pid == 0) {
		const char *args[] = {path, "--socket", srv.sock, "--ready-fd", fdarg, NULL};
		int devnull = open("/dev/null", O_WRONLY);

		fcntl(pipefd[1], F_SETFD, 0);
		/* keep the benchmark's own output clean */
		if (devnull >= 0 && !getenv("VKFD_BENCH_SERVER_LOG"))
			dup2(devnull, STDOUT_FILENO);
		execv(path, (char *const *)args);
		_exit(127);
	}
	bench_pin(0);
	if (srv.pid < 0) {
		snprintf(srv.why, sizeof(srv.why), "fork: %s", strerror(errno));
		close(pipefd[0]);
		close(pipefd[1]);
		srv.pid = 0;
		return -1;
	}
	close(pipefd[1]);
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	do {
		ret = poll(&pfd, 1, READY_TIMEOUT_MS);
	} while (ret < 0 && errno == EINTR);
	n = ret > 0 ? (int)read(pipefd[0], &byte, 1) : -1;
	close(pipefd[0]);
	if (n != 1) {
		snprintf(srv.why, sizeof(srv.why), "vkfd-server did not become ready (%s)",
			 ret == 0 ? "timeout" : "it exited");
		return -1;
	}
	return 0;
}

void bench_server_restart(void)
{
	bench_server_stop();
	srv.tried = false;
	srv.why[0] = '\0';
}

const char *bench_server_socket(char *why, size_t why_len)
{
	if (srv.ok && srv.pid > 0 && waitpid(srv.pid, NULL, WNOHANG) != 0) {
		/* it died between scenarios: say so, do not restart silently */
		srv.pid = 0;
		bench_server_stop();
		snprintf(srv.why, sizeof(srv.why), "vkfd-server exited during the run");
		srv.tried = true;
	}
	if (!srv.tried) {
		srv.tried = true;
		srv.ok = start() == 0;
		if (!srv.ok)
			bench_server_stop();
	}
	if (!srv.ok) {
		snprintf(why, why_len, "%s", srv.why);
		return NULL;
	}
	return srv.sock;
}
