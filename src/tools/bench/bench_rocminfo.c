// SPDX-License-Identifier: MIT
/*
 * vkfd-bench "rocminfo": whole-program wall time of an unmodified ROCm
 * program, `vkfd-run -- rocminfo` (private vkfd-server, the vtest path)
 * against `vkfd-run --native -- rocminfo` (kfdsim inside rocminfo). The
 * time runs from fork to the child's exit, output discarded. vkfd-run has
 * no in-process host mode, so the direct path does not apply.
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

#define MAX_RUNS 5u

static bool find_in_path(const char *name, char *out, size_t len)
{
	const char *path = getenv("PATH");
	char *dup, *save = NULL;
	bool found = false;

	if (!path || !*path)
		path = "/usr/bin:/bin";
	dup = strdup(path);
	if (!dup)
		return false;
	for (char *dir = strtok_r(dup, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		int n = snprintf(out, len, "%s/%s", *dir ? dir : ".", name);

		found = n > 0 && (size_t)n < len && access(out, X_OK) == 0;
	}
	free(dup);
	return found;
}

/* Run argv with stdout and stderr on /dev/null; wall time in ns, or 0 and
 * *status. */
static uint64_t run_timed(char *const argv[], int *status)
{
	uint64_t t0 = bench_now_ns();
	pid_t pid = fork();

	if (pid == 0) {
		int devnull = open("/dev/null", O_WRONLY);

		if (devnull >= 0) {
			dup2(devnull, STDOUT_FILENO);
			if (!getenv("VKFD_BENCH_SHOW_ROCMINFO"))
				dup2(devnull, STDERR_FILENO);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid < 0) {
		*status = -1;
		return 0;
	}
	while (waitpid(pid, status, 0) < 0 && errno == EINTR)
		;
	return bench_now_ns() - t0;
}

static void rocminfo_path(const char *run, const char *rocminfo, bool native, unsigned runs,
			  struct bench_cell *c)
{
	char *argv[] = {(char *)run, native ? "--native" : "--", native ? "--" : (char *)rocminfo,
			native ? (char *)rocminfo : NULL, NULL};
	uint64_t s[MAX_RUNS];
	uint64_t *copy;
	int status = 0;

	for (unsigned i = 0; i < runs; i++) {
		s[i] = run_timed(argv, &status);
		if (!s[i] || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			if (s[i] && WIFSIGNALED(status))
				bench_cell_na(c, "vkfd-run%s -- rocminfo killed by signal %d",
					      native ? " --native" : "", WTERMSIG(status));
			else
				bench_cell_na(c, "vkfd-run%s -- rocminfo exited with status %d",
					      native ? " --native" : "",
					      s[i] && WIFEXITED(status) ? WEXITSTATUS(status) : -1);
			return;
		}
	}
	copy = malloc(runs * sizeof(*copy));
	if (!copy) {
		bench_cell_na(c, "out of memory");
		return;
	}
	memcpy(copy, s, runs * sizeof(*copy));
	bench_cell_samples(c, copy, runs);
	/* a whole program: report milliseconds, primary = median */
	c->nm = 0;
	c->primary = bench_cell_pct_us(c, 50) / 1000.0;
	bench_cell_metric(c, "median_ms", c->primary);
	bench_cell_metric(c, "min_ms", c->samples_us[0] / 1000.0);
	bench_cell_metric(c, "max_ms", c->samples_us[c->nsamples - 1] / 1000.0);
	bench_cell_metric(c, "runs", (double)runs);
}

void bench_rocminfo(const struct bench_opts *o, struct bench_scenario_result *out)
{
	char run[PATH_MAX], rocminfo[PATH_MAX];
	unsigned runs = o->iterations < MAX_RUNS ? o->iterations : MAX_RUNS;
	const char *why = NULL;

	out->name = "rocminfo";
	out->primary_name = "median_ms";
	out->higher_is_better = false;
	if (!runs)
		runs = 1;
	if (!bench_find_program("VKFD_RUN", "../vkfd-run", "vkfd-run", run, sizeof(run)))
		why = "vkfd-run not found (VKFD_RUN, build tree, bindir)";
	else if (!find_in_path("rocminfo", rocminfo, sizeof(rocminfo)))
		why = "rocminfo is not installed (skipped)";
	snprintf(out->note, sizeof(out->note),
		 "wall time of vkfd-run [--native] -- rocminfo, median of %u runs; direct: "
		 "vkfd-run has no in-process host mode",
		 runs);
	for (unsigned p = 0; p < BENCH_PATH_COUNT; p++) {
		if (!o->paths[p])
			continue;
		if (why)
			bench_cell_na(&out->cell[p], "%s", why);
		else if (p == BENCH_DIRECT)
			bench_cell_na(&out->cell[p], "vkfd-run has no in-process host mode");
		else if (p == BENCH_VIRTGPU)
			bench_cell_na(&out->cell[p], "in a VM, run rocminfo with the preload shim");
	}
	if (why)
		return;
	/* rocminfo and its host get both CPUs, as an application would */
	bench_unpin();
	if (o->paths[BENCH_NATIVE])
		rocminfo_path(run, rocminfo, true, runs, &out->cell[BENCH_NATIVE]);
	if (o->paths[BENCH_VTEST])
		rocminfo_path(run, rocminfo, false, runs, &out->cell[BENCH_VTEST]);
	bench_pin(0);
}
