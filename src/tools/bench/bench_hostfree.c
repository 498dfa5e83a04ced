// SPDX-License-Identifier: MIT
/*
 * vkfd-bench "hostfree": large system memory through the thunk (issue #19
 * item 1). `vkfd-run [--native] -- hsa_e2e hostmem MIB ROUNDS` allocates
 * MIB MiB from ROCr's system pool (libhsakmt: a USERPTR BO at GPU VA ==
 * CPU VA), writes and checks a word in every page and frees it, ROUNDS
 * times; the program prints the summed wall time of each phase, which is
 * what this scenario reports (process start-up excluded). Primary figure:
 * alloc + touch + free in ms. MIB from VKFD_BENCH_HOSTFREE_MIB (default
 * 256), ROUNDS = min(iterations, 5); hsa_e2e from VKFD_BENCH_HSA_E2E or
 * the build tree.
 */
#include "bench.h"
#include "bench_server.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ROUNDS 5u

struct hostfree_times {
	double alloc_ms, touch_ms, free_ms;
};

/* Run argv with stdout on /dev/null and stderr into a pipe; parse the
 * program's summary line. 0, or -1 with why set. */
static int run_hostmem(char *const argv[], struct hostfree_times *t, char *why, size_t wlen)
{
	char buf[4096], *line;
	size_t used = 0;
	int pfd[2], status = 0, found = 0;
	pid_t pid;

	if (pipe(pfd)) {
		snprintf(why, wlen, "pipe: %s", strerror(errno));
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		if (devnull >= 0)
			dup2(devnull, STDOUT_FILENO);
		dup2(pfd[1], STDERR_FILENO);
		close(pfd[0]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		snprintf(why, wlen, "fork: %s", strerror(errno));
		return -1;
	}
	/* keep the tail: the summary is the program's last stderr line but
	 * one run may log more than the buffer holds */
	for (;;) {
		ssize_t n = read(pfd[0], buf + used, sizeof(buf) - 1 - used);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		used += (size_t)n;
		buf[used] = '\0';
		for (char *nl; (nl = strchr(buf, '\n'));) {
			*nl = '\0';
			line = strstr(buf, "hsa_e2e: hostmem ");
			if (line && sscanf(line,
					   "hsa_e2e: hostmem %*u MiB x %*u: alloc %lf ms, touch "
					   "%lf ms, free %lf ms",
					   &t->alloc_ms, &t->touch_ms, &t->free_ms) == 3)
				found = 1;
			used -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, used + 1);
		}
		if (used == sizeof(buf) - 1)
			used = 0; /* an overlong line: not ours */
	}
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		snprintf(why, wlen, "hsa_e2e hostmem %s %d",
			 WIFSIGNALED(status) ? "killed by signal" : "exited with status",
			 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
		return -1;
	}
	if (!found) {
		snprintf(why, wlen, "hsa_e2e printed no hostmem summary");
		return -1;
	}
	return 0;
}

static void hostfree_path(const char *run, const char *hsa_e2e, bool native, unsigned int mib,
			  unsigned int rounds, struct bench_cell *c)
{
	char smib[16], srounds[16], why[BENCH_REASON_LEN];
	char *argv[] = {(char *)run,
			native ? "--native" : "--",
			native ? "--" : (char *)hsa_e2e,
			native ? (char *)hsa_e2e : "hostmem",
			native ? "hostmem" : smib,
			native ? smib : srounds,
			native ? srounds : NULL,
			NULL};
	struct hostfree_times t;

	snprintf(smib, sizeof(smib), "%u", mib);
	snprintf(srounds, sizeof(srounds), "%u", rounds);
	if (run_hostmem(argv, &t, why, sizeof(why))) {
		bench_cell_na(c, "%s", why);
		return;
	}
	c->ran = true;
	c->primary = t.alloc_ms + t.touch_ms + t.free_ms;
	bench_cell_metric(c, "total_ms", c->primary);
	bench_cell_metric(c, "alloc_ms", t.alloc_ms);
	bench_cell_metric(c, "touch_ms", t.touch_ms);
	bench_cell_metric(c, "free_ms", t.free_ms);
	bench_cell_metric(c, "free_ms_per_round", t.free_ms / rounds);
}

void bench_hostfree(const struct bench_opts *o, struct bench_scenario_result *out)
{
	char run[PATH_MAX], hsa_e2e[PATH_MAX];
	const char *env = getenv("VKFD_BENCH_HOSTFREE_MIB");
	unsigned int rounds = o->iterations < MAX_ROUNDS ? o->iterations : MAX_ROUNDS;
	unsigned long mib = env && *env ? strtoul(env, NULL, 0) : 256;
	const char *why = NULL;

	out->name = "hostfree";
	out->primary_name = "total_ms";
	out->higher_is_better = false;
	if (!rounds)
		rounds = 1;
	if (mib == 0 || mib > (1ul << 20))
		mib = 256;
	if (!bench_find_program("VKFD_RUN", "../vkfd-run", "vkfd-run", run, sizeof(run)))
		why = "vkfd-run not found (VKFD_RUN, build tree, bindir)";
	else if (!bench_find_program("VKFD_BENCH_HSA_E2E", "../../../tests/e2e/hsa_e2e", "hsa_e2e",
				     hsa_e2e, sizeof(hsa_e2e)))
		why = "hsa_e2e not found (VKFD_BENCH_HSA_E2E, build tree; needs ROCr headers)";
	snprintf(out->note, sizeof(out->note),
		 "hsa_e2e hostmem: %lu MiB of system memory allocated, touched, checked and "
		 "freed %u times; phases summed; direct: vkfd-run has no in-process host mode",
		 mib, rounds);
	for (unsigned p = 0; p < BENCH_PATH_COUNT; p++) {
		if (!o->paths[p])
			continue;
		if (why)
			bench_cell_na(&out->cell[p], "%s", why);
		else if (p == BENCH_DIRECT)
			bench_cell_na(&out->cell[p], "vkfd-run has no in-process host mode");
	}
	if (why)
		return;
	bench_unpin();
	if (o->paths[BENCH_NATIVE])
		hostfree_path(run, hsa_e2e, true, (unsigned int)mib, rounds,
			      &out->cell[BENCH_NATIVE]);
	if (o->paths[BENCH_VTEST])
		hostfree_path(run, hsa_e2e, false, (unsigned int)mib, rounds,
			      &out->cell[BENCH_VTEST]);
	bench_pin(0);
}
