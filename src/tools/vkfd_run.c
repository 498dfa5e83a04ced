// SPDX-License-Identifier: MIT
/*
 * vkfd-run: run an unmodified ROCm program as a vkfd guest.
 *
 *   vkfd-run [options] -- PROGRAM [ARGS]
 *
 * Default: start a private vkfd-server (a separate host process on kfdsim),
 * run PROGRAM with the preload shim talking to it, stop the server.
 * --native: PROGRAM runs on kfdsim in its own process (no virtualization).
 * --connect SOCKET: use an existing host.
 *
 * Exit status and stdio are PROGRAM's; vkfd-run's own failures exit 125
 * (126: PROGRAM not executable, 127: not found), like env(1).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "vkfd_config.h"

#define EXIT_RUN_FAILED         125
#define SERVER_READY_TIMEOUT_MS 20000

enum run_mode { MODE_SERVER, MODE_NATIVE, MODE_CONNECT };

struct run_opts {
	enum run_mode mode;
	const char *socket;
	const char *gpus;
	const char *target;
	const char *vram_mb;
	int verbose;
	char **argv; /* PROGRAM [ARGS] */
};

static int verbose;

#define vlog(...)                                                                                  \
	do {                                                                                       \
		if (verbose)                                                                       \
			fprintf(stderr, "vkfd-run: " __VA_ARGS__);                                 \
	} while (0)

static void usage(FILE *f)
{
	fprintf(f, "usage: vkfd-run [options] -- PROGRAM [ARGS]\n"
		   "  --native          run PROGRAM on kfdsim in its own process (no host)\n"
		   "  --connect SOCKET  use the running host listening on SOCKET\n"
		   "  (default)         start a private vkfd-server for PROGRAM\n"
		   "  --gpus N          simulated GPUs (1..8)\n"
		   "  --target gfxXXX   simulated GPU target (e.g. gfx90a, gfx1030)\n"
		   "  --vram-mb M       simulated VRAM per GPU in MiB\n"
		   "  -v                say what is run; twice: also shim debug log (VKFD_DEBUG)\n"
		   "environment: VKFD_PRELOAD (shim path), VKFD_SERVER (server path)\n");
}

static bool valid_uint(const char *s, unsigned long lo, unsigned long hi)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return false;
	errno = 0;
	v = strtoul(s, &end, 10);
	return !errno && !*end && v >= lo && v <= hi;
}

static bool valid_target(const char *s)
{
	size_t n = strlen(s);

	if (n < 4 || n > 15 || strncmp(s, "gfx", 3) != 0)
		return false;
	for (size_t i = 3; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

static int parse_args(int argc, char **argv, struct run_opts *o)
{
	static const struct option longopts[] = {
	    {"native", no_argument, NULL, 'n'},        {"connect", required_argument, NULL, 'c'},
	    {"gpus", required_argument, NULL, 'g'},    {"target", required_argument, NULL, 't'},
	    {"vram-mb", required_argument, NULL, 'm'}, {"verbose", no_argument, NULL, 'v'},
	    {"help", no_argument, NULL, 'h'},          {NULL, 0, NULL, 0},
	};
	int c;

	memset(o, 0, sizeof(*o));
	/* '+': stop at PROGRAM so its own options are left alone. */
	while ((c = getopt_long(argc, argv, "+vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'n':
			o->mode = MODE_NATIVE;
			break;
		case 'c':
			o->mode = MODE_CONNECT;
			o->socket = optarg;
			break;
		case 'g':
			if (!valid_uint(optarg, 1, 8))
				goto bad;
			o->gpus = optarg;
			break;
		case 't':
			if (!valid_target(optarg))
				goto bad;
			o->target = optarg;
			break;
		case 'm':
			if (!valid_uint(optarg, 1, 1UL << 24))
				goto bad;
			o->vram_mb = optarg;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "vkfd-run: no PROGRAM given\n");
		usage(stderr);
		return -1;
	}
	if (o->mode == MODE_CONNECT && !*o->socket) {
		fprintf(stderr, "vkfd-run: --connect needs a socket path\n");
		return -1;
	}
	o->argv = argv + optind;
	return 0;
bad:
	fprintf(stderr, "vkfd-run: bad value '%s' for --%s\n", optarg,
		longopts[c == 'g'   ? 2
			 : c == 't' ? 3
				    : 4]
		    .name);
	return -1;
}

/* Directory of /proc/self/exe, for the build-tree layout. */
static bool self_dir(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);
	char *slash;

	if (n <= 0)
		return false;
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (!slash)
		return false;
	*slash = '\0';
	return true;
}

/* env var, else <exe dir>/<build_rel>, else <installed>. */
static bool find_file(const char *env, const char *build_rel, const char *installed, int amode,
		      char *out, size_t len)
{
	const char *e = getenv(env);
	char dir[PATH_MAX];
	int n;

	if (e && *e) {
		n = snprintf(out, len, "%s", e);
		return n > 0 && (size_t)n < len && access(out, amode) == 0;
	}
	if (self_dir(dir, sizeof(dir))) {
		n = snprintf(out, len, "%s/%s", dir, build_rel);
		if (n > 0 && (size_t)n < len && access(out, amode) == 0)
			return true;
	}
	n = snprintf(out, len, "%s", installed);
	return n > 0 && (size_t)n < len && access(out, amode) == 0;
}

/* LD_PRELOAD for PROGRAM: the sanitizer runtime must come first when the
 * shim itself is instrumented; an existing LD_PRELOAD is kept after ours. */
static int set_preload(const char *shim)
{
	const char *old = getenv("LD_PRELOAD");
	const char *runtime = "";
	char *val;
	int ret;

#ifdef VKFD_SANITIZER_RUNTIME
	runtime = VKFD_SANITIZER_RUNTIME ":";
#endif
	if (old && *old)
		ret = asprintf(&val, "%s%s:%s", runtime, shim, old);
	else
		ret = asprintf(&val, "%s%s", runtime, shim);
	if (ret < 0)
		return -1;
	ret = setenv("LD_PRELOAD", val, 1);
	vlog("LD_PRELOAD=%s\n", val);
	free(val);
	return ret;
}

static int set_sim_env(const struct run_opts *o)
{
	if (o->gpus && setenv("VKFDSIM_GPUS", o->gpus, 1))
		return -1;
	if (o->target && setenv("VKFDSIM_TARGET", o->target, 1))
		return -1;
	if (o->vram_mb && setenv("VKFDSIM_VRAM_MB", o->vram_mb, 1))
		return -1;
	return 0;
}

static void exec_program(char **argv)
{
	execvp(argv[0], argv);
	fprintf(stderr, "vkfd-run: cannot run %s: %s\n", argv[0], strerror(errno));
	_exit(errno == ENOENT ? 127 : 126);
}

static int status_to_exit(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return EXIT_RUN_FAILED;
}

struct server {
	pid_t pid;
	char dir[PATH_MAX];
	char socket[PATH_MAX + 16];
};

static void server_stop(struct server *s)
{
	int status;

	if (s->pid > 0) {
		kill(s->pid, SIGTERM);
		while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR)
			;
		vlog("vkfd-server exited with status %d\n", status_to_exit(status));
		s->pid = 0;
	}
	if (s->socket[0])
		unlink(s->socket);
	if (s->dir[0])
		rmdir(s->dir);
}

static int server_start(const struct run_opts *o, struct server *s)
{
	char path[PATH_MAX], fdarg[16];
	const char *args[16];
	const char *tmp = getenv("TMPDIR");
	struct pollfd pfd;
	int pipefd[2], n, na = 0, ret;
	char byte;

	memset(s, 0, sizeof(*s));
	if (!find_file("VKFD_SERVER", "../server/vkfd-server", VKFD_BINDIR "/vkfd-server", X_OK,
		       path, sizeof(path))) {
		fprintf(stderr,
			"vkfd-run: vkfd-server not found (VKFD_SERVER, the build tree next to "
			"vkfd-run, %s); use --native or --connect\n",
			VKFD_BINDIR);
		return -1;
	}
	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(s->dir, sizeof(s->dir), "%s/vkfd-run-XXXXXX", tmp);
	if (n < 0 || (size_t)n >= sizeof(s->dir) - 16 || !mkdtemp(s->dir)) {
		fprintf(stderr, "vkfd-run: cannot create a socket directory in %s\n", tmp);
		s->dir[0] = '\0';
		return -1;
	}
	snprintf(s->socket, sizeof(s->socket), "%s/vkfd.sock", s->dir);
	if (pipe2(pipefd, O_CLOEXEC) < 0) {
		perror("vkfd-run: pipe");
		return -1;
	}
	args[na++] = path;
	args[na++] = "--socket";
	args[na++] = s->socket;
	args[na++] = "--ready-fd";
	args[na++] = fdarg;
	if (o->gpus) {
		args[na++] = "--gpus";
		args[na++] = o->gpus;
	}
	if (o->target) {
		args[na++] = "--target";
		args[na++] = o->target;
	}
	if (o->vram_mb) {
		args[na++] = "--vram-mb";
		args[na++] = o->vram_mb;
	}
	args[na] = NULL;
	snprintf(fdarg, sizeof(fdarg), "%d", pipefd[1]);
	vlog("starting %s --socket %s\n", path, s->socket);

	s->pid = fork();
	if (s->pid < 0) {
		perror("vkfd-run: fork");
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (s->pid == 0) {
		/* A killed vkfd-run must not leave its private server behind;
		 * terminal signals (^C) are PROGRAM's, the server is stopped by
		 * vkfd-run after PROGRAM is gone. */
		prctl(PR_SET_PDEATHSIG, SIGTERM);
		setpgid(0, 0);
		if (getppid() == 1)
			_exit(EXIT_RUN_FAILED);
		/* Only the write end crosses exec. */
		fcntl(pipefd[1], F_SETFD, 0);
		execv(path, (char *const *)args);
		fprintf(stderr, "vkfd-run: cannot run %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	close(pipefd[1]);
	pfd.fd = pipefd[0];
	pfd.events = POLLIN;
	do {
		ret = poll(&pfd, 1, SERVER_READY_TIMEOUT_MS);
	} while (ret < 0 && errno == EINTR);
	n = ret > 0 ? (int)read(pipefd[0], &byte, 1) : -1;
	close(pipefd[0]);
	if (n != 1) {
		fprintf(stderr, "vkfd-run: vkfd-server did not become ready (%s)\n",
			ret == 0 ? "timeout" : "it exited or closed its ready fd");
		server_stop(s);
		return -1;
	}
	vlog("vkfd-server %d ready\n", (int)s->pid);
	return 0;
}

/* Run PROGRAM as a child (the server must be stopped after it). */
static int run_child(char **argv)
{
	struct sigaction ign, old_int, old_quit;
	pid_t pid;
	int status;

	pid = fork();
	if (pid < 0) {
		perror("vkfd-run: fork");
		return EXIT_RUN_FAILED;
	}
	if (pid == 0)
		exec_program(argv);
	/* Like a shell: ^C goes to PROGRAM; we wait and clean up. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("vkfd-run: waitpid");
			return EXIT_RUN_FAILED;
		}
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	return status_to_exit(status);
}

int main(int argc, char **argv)
{
	char shim[PATH_MAX];
	struct run_opts o;
	struct server srv;
	int rc;

	if (parse_args(argc, argv, &o))
		return EXIT_RUN_FAILED;
	verbose = o.verbose;
	if (!find_file("VKFD_PRELOAD", "../guest/shim/libvkfd-preload.so",
		       VKFD_LIBDIR "/libvkfd-preload.so", R_OK, shim, sizeof(shim))) {
		fprintf(stderr,
			"vkfd-run: libvkfd-preload.so not found (VKFD_PRELOAD, the build tree "
			"next to vkfd-run, %s)\n",
			VKFD_LIBDIR);
		return EXIT_RUN_FAILED;
	}
	/* The private server is a host process: it must not get the shim, so it
	 * is started before the environment is changed for PROGRAM. */
	if (o.mode == MODE_SERVER && server_start(&o, &srv))
		return EXIT_RUN_FAILED;
	if (set_preload(shim) || (o.verbose > 1 && setenv("VKFD_DEBUG", "debug", 1))) {
		perror("vkfd-run: setenv");
		if (o.mode == MODE_SERVER)
			server_stop(&srv);
		return EXIT_RUN_FAILED;
	}

	switch (o.mode) {
	case MODE_NATIVE:
		if (setenv("VKFD_BACKEND", "native", 1) || set_sim_env(&o)) {
			perror("vkfd-run: setenv");
			return EXIT_RUN_FAILED;
		}
		vlog("exec %s (native kfdsim)\n", o.argv[0]);
		exec_program(o.argv);
		break;
	case MODE_CONNECT:
		if (o.gpus || o.target || o.vram_mb)
			fprintf(stderr, "vkfd-run: --gpus/--target/--vram-mb are the host's "
					"business with --connect; ignored\n");
		if (setenv("VKFD_BACKEND", "vkfd", 1) || setenv("VKFD_SOCKET", o.socket, 1)) {
			perror("vkfd-run: setenv");
			return EXIT_RUN_FAILED;
		}
		vlog("exec %s (host at %s)\n", o.argv[0], o.socket);
		exec_program(o.argv);
		break;
	case MODE_SERVER:
		if (setenv("VKFD_BACKEND", "vkfd", 1) || setenv("VKFD_SOCKET", srv.socket, 1)) {
			perror("vkfd-run: setenv");
			server_stop(&srv);
			return EXIT_RUN_FAILED;
		}
		rc = run_child(o.argv);
		server_stop(&srv);
		return rc;
	}
	return EXIT_RUN_FAILED;
}
