// SPDX-License-Identifier: MIT
/*
 * vkfd-server: listens on a Unix socket and forks one worker process per
 * accepted vtest client (one KFD process per guest). The parent never parses
 * client bytes, so no client can take it down.
 */
#include "server_log.h"
#include "vtest_worker.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_MAX_CLIENTS 64
#define MAX_CLIENTS_LIMIT   4096

struct server {
	const char *socket_path;
	int ready_fd;
	unsigned max_clients;
	struct vtest_worker_opts wopts;
	int listen_fd;
	int sig_fd;
	pid_t *workers;
	unsigned nworkers;
	bool stopping; /* workers killed on purpose: not worth a warning */
	pid_t parent;
};

static void usage(FILE *f)
{
	fprintf(f, "usage: vkfd-server --socket PATH [--ready-fd N] [--gpus N] [--target T]\n"
		   "                   [--vram-mb M] [--device sim|real|auto] [--max-clients N]\n");
}

static bool parse_uint(const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	unsigned long v;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v > max)
		return false;
	*out = v;
	return true;
}

static int parse_args(struct server *s, int argc, char **argv)
{
	static const struct option opts[] = {
	    {"socket", required_argument, NULL, 's'},
	    {"ready-fd", required_argument, NULL, 'r'},
	    {"gpus", required_argument, NULL, 'g'},
	    {"target", required_argument, NULL, 't'},
	    {"vram-mb", required_argument, NULL, 'v'},
	    {"device", required_argument, NULL, 'd'},
	    {"max-clients", required_argument, NULL, 'm'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	unsigned long v;
	int c;

	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (c) {
		case 's':
			s->socket_path = optarg;
			break;
		case 'r':
			if (!parse_uint(optarg, INT_MAX, &v))
				goto bad;
			s->ready_fd = (int)v;
			break;
		case 'g':
			if (!parse_uint(optarg, 64, &v) || v == 0)
				goto bad;
			setenv("VKFDSIM_GPUS", optarg, 1);
			break;
		case 't':
			setenv("VKFDSIM_TARGET", optarg, 1);
			break;
		case 'v':
			if (!parse_uint(optarg, 1ul << 24, &v) || v == 0)
				goto bad;
			setenv("VKFDSIM_VRAM_MB", optarg, 1);
			break;
		case 'd':
			if (!strcmp(optarg, "sim"))
				s->wopts.device = VKFD_DEVICE_SIM;
			else if (!strcmp(optarg, "real"))
				s->wopts.device = VKFD_DEVICE_REAL;
			else if (!strcmp(optarg, "auto"))
				s->wopts.device = VKFD_DEVICE_AUTO;
			else
				goto bad;
			break;
		case 'm':
			if (!parse_uint(optarg, MAX_CLIENTS_LIMIT, &v) || v == 0)
				goto bad;
			s->max_clients = (unsigned)v;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind != argc || !s->socket_path) {
		usage(stderr);
		return -1;
	}
	return 0;
bad:
	fprintf(stderr, "vkfd-server: bad option value '%s'\n", optarg);
	usage(stderr);
	return -1;
}

static bool fill_addr(struct sockaddr_un *addr, const char *path)
{
	memset(addr, 0, sizeof(*addr));
	addr->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(addr->sun_path))
		return false;
	strcpy(addr->sun_path, path);
	return true;
}

/* Someone accepts connections on path. */
static bool listener_alive(const struct sockaddr_un *addr)
{
	int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	bool live = probe >= 0 && connect(probe, (const struct sockaddr *)addr, sizeof(*addr)) == 0;

	if (probe >= 0)
		close(probe);
	return live;
}

/*
 * The socket appears at path only once it listens: it is bound and set
 * listening under a temporary name in the same directory, then renamed
 * over path. A client that sees the file can connect at once (with bind
 * then listen on path itself, a client starting in between was refused:
 * the death checks in tests/virgl failed that way on a loaded machine).
 * A leftover socket file nobody listens on is replaced; a live one is not.
 */
static int make_listener(const char *path)
{
	struct sockaddr_un addr, tmp;
	char tmp_path[sizeof(tmp.sun_path)];
	int fd, n;

	if (!fill_addr(&addr, path)) {
		srv_err("socket path too long: %s", path);
		return -ENAMETOOLONG;
	}
	if (listener_alive(&addr)) {
		srv_err("%s: another server is listening", path);
		return -EADDRINUSE;
	}
	n = snprintf(tmp_path, sizeof(tmp_path), "%s.%d.tmp", path, (int)getpid());
	if (n < 0 || (size_t)n >= sizeof(tmp_path) || !fill_addr(&tmp, tmp_path)) {
		srv_err("socket path too long for its temporary name: %s", path);
		return -ENAMETOOLONG;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	unlink(tmp_path);
	if (bind(fd, (struct sockaddr *)&tmp, sizeof(tmp)) < 0)
		goto fail_errno;
	if (listen(fd, 16) < 0 || rename(tmp_path, path) < 0) {
		int e = -errno;

		unlink(tmp_path);
		errno = -e;
		goto fail_errno;
	}
	return fd;
fail_errno:;
	int e = -errno;

	srv_err("cannot listen on %s: %s", path, strerror(-e));
	close(fd);
	return e;
}

static void add_worker(struct server *s, pid_t pid)
{
	s->workers[s->nworkers++] = pid;
}

static void reap(struct server *s)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		for (unsigned i = 0; i < s->nworkers; i++) {
			if (s->workers[i] != pid)
				continue;
			s->workers[i] = s->workers[--s->nworkers];
			break;
		}
		/* a worker killed before it could clean up */
		vtest_share_forget(s->wopts.share, pid);
		if (WIFSIGNALED(status) && !s->stopping)
			srv_warn("worker %d killed by signal %d", (int)pid, WTERMSIG(status));
		else if (WIFSIGNALED(status))
			srv_info("worker %d stopped by signal %d", (int)pid, WTERMSIG(status));
		else
			srv_info("worker %d exited with %d", (int)pid, WEXITSTATUS(status));
	}
}

static void accept_one(struct server *s)
{
	int c = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);

	if (c < 0) {
		if (errno != EINTR && errno != EAGAIN)
			srv_warn("accept: %s", strerror(errno));
		return;
	}
	if (s->nworkers >= s->max_clients) {
		srv_warn("client refused: %u clients already", s->nworkers);
		close(c);
		return;
	}
	s->parent = getpid();
	pid_t pid = fork();

	if (pid < 0) {
		srv_err("fork: %s", strerror(errno));
		close(c);
		return;
	}
	if (pid == 0) {
		sigset_t all;

		/* A server that is gone (even by SIGKILL) takes its workers
		 * with it; check for a parent that died before prctl. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		if (getppid() != s->parent)
			_exit(1);

		close(s->listen_fd);
		close(s->sig_fd);
		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		signal(SIGCHLD, SIG_DFL);
		sigemptyset(&all);
		sigprocmask(SIG_SETMASK, &all, NULL);
		_exit(vtest_worker_run(c, &s->wopts));
	}
	close(c);
	add_worker(s, pid);
	srv_info("client accepted by worker %d", (int)pid);
}

static void stop_workers(struct server *s)
{
	struct timespec start, now;

	s->stopping = true;
	for (unsigned i = 0; i < s->nworkers; i++)
		kill(s->workers[i], SIGTERM);
	clock_gettime(CLOCK_MONOTONIC, &start);
	while (s->nworkers) {
		reap(s);
		if (!s->nworkers)
			break;
		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec - start.tv_sec >= 3) {
			for (unsigned i = 0; i < s->nworkers; i++)
				kill(s->workers[i], SIGKILL);
			while (s->nworkers && waitpid(-1, NULL, 0) > 0)
				reap(s);
			break;
		}
		usleep(10000);
	}
}

int main(int argc, char **argv)
{
	struct server s;
	sigset_t set;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	s.ready_fd = -1;
	s.max_clients = DEFAULT_MAX_CLIENTS;
	s.wopts.device = VKFD_DEVICE_SIM;
	srv_log_init();
	if (parse_args(&s, argc, argv))
		return 2;
	s.workers = calloc(s.max_clients, sizeof(pid_t));
	if (!s.workers)
		return 1;
	/* before any fork: common to this server's workers only */
	s.wopts.share = vtest_share_create();
	if (!s.wopts.share) {
		srv_err("share table: %s", strerror(errno));
		return 1;
	}

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGCHLD);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	s.sig_fd = signalfd(-1, &set, SFD_CLOEXEC);
	if (s.sig_fd < 0) {
		srv_err("signalfd: %s", strerror(errno));
		return 1;
	}
	s.listen_fd = make_listener(s.socket_path);
	if (s.listen_fd < 0)
		return 1;
	srv_info("listening on %s", s.socket_path);
	if (s.ready_fd >= 0) {
		char byte = 1;

		if (write(s.ready_fd, &byte, 1) != 1)
			srv_warn("ready fd %d: %s", s.ready_fd, strerror(errno));
		close(s.ready_fd);
	}

	for (bool run = true; run;) {
		struct pollfd p[2] = {
		    {.fd = s.listen_fd, .events = POLLIN},
		    {.fd = s.sig_fd, .events = POLLIN},
		};

		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			srv_err("poll: %s", strerror(errno));
			rc = 1;
			break;
		}
		if (p[1].revents & POLLIN) {
			struct signalfd_siginfo si;

			if (read(s.sig_fd, &si, sizeof(si)) == sizeof(si)) {
				if (si.ssi_signo == SIGCHLD)
					reap(&s);
				else
					run = false;
			}
		}
		if (run && (p[0].revents & POLLIN))
			accept_one(&s);
	}
	srv_info("shutting down (%u workers)", s.nworkers);
	stop_workers(&s);
	close(s.listen_fd);
	unlink(s.socket_path);
	close(s.sig_fd);
	free(s.workers);
	vtest_share_destroy(s.wopts.share);
	return rc;
}
