// SPDX-License-Identifier: MIT
/*
 * vkfd-bench: measures the virtual paths (direct, vtest) against native
 * kfdsim and against the transport's own limit. See docs/performance.md.
 *
 *   vkfd-bench [--iterations N] [--scenario a,b] [--paths native,direct,vtest]
 *              [--json] [--pin] [--trace FILE]
 */
#include "bench.h"
#include "bench_hosttime.h"
#include "bench_server.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef VKFD_BENCH_TRACE_INSTALLED
#define VKFD_BENCH_TRACE_INSTALLED "/usr/local/share/vkfd/model_load.trace"
#endif

#define DEFAULT_ITERATIONS 1000u
#define MAX_ITERATIONS     1000000u

struct scenario {
	const char *name;
	void (*run)(const struct bench_opts *o, struct bench_scenario_result *out);
};

static const struct scenario scenarios[] = {
    {"storm", bench_storm},   {"sync", bench_sync},         {"fence", bench_fence},
    {"decode", bench_decode}, {"dispatch", bench_dispatch}, {"rocminfo", bench_rocminfo},
    {"isa", bench_isa},       {"hostfree", bench_hostfree},
};
#define N_SCENARIOS (sizeof(scenarios) / sizeof(scenarios[0]))

static void usage(FILE *f)
{
	fprintf(f,
		"usage: vkfd-bench [options]\n"
		"  --iterations N     samples per latency scenario (default %u); decode sends\n"
		"                     1000*N commands, rocminfo runs min(N,5) times\n"
		"  --scenario LIST    comma-separated: storm,sync,fence,decode,dispatch,\n"
		"                     rocminfo,isa,hostfree (default: all)\n"
		"  --paths LIST       comma-separated: native,direct,vtest,virtgpu (default:\n"
		"                     native,direct,vtest; virtgpu runs inside a VM)\n"
		"  --json             machine-readable output (one result per line)\n"
		"  --pin              pin the guest side to the first CPU and the host side\n"
		"                     (server, in-process host threads, kfdsim engines) to\n"
		"                     the second (default: not pinned, see docs/performance.md)\n"
		"  --trace FILE       storm trace (default: model_load.trace next to the\n"
		"                     executable, then %s)\n"
		"environment: VKFD_SERVER, VKFD_RUN, VKFD_BENCH_HSA_E2E (program paths),\n"
		"  VKFD_BENCH_TRACE, VKFD_BENCH_HOSTFREE_MIB (hostfree's size, default 256)\n",
		DEFAULT_ITERATIONS, VKFD_BENCH_TRACE_INSTALLED);
}

/* Parse a comma list against names[]; sets sel[i]. */
static int parse_list(const char *arg, const char *const *names, unsigned n, bool *sel)
{
	char *dup = strdup(arg), *save = NULL;
	int r = 0;

	if (!dup)
		return -ENOMEM;
	memset(sel, 0, n * sizeof(*sel));
	for (char *tok = strtok_r(dup, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		unsigned i;

		for (i = 0; i < n; i++)
			if (!strcmp(tok, names[i]))
				break;
		if (i == n) {
			fprintf(stderr, "vkfd-bench: unknown name '%s'\n", tok);
			r = -EINVAL;
			break;
		}
		sel[i] = true;
	}
	free(dup);
	return r;
}

static bool find_trace(char *out, size_t len)
{
	const char *e = getenv("VKFD_BENCH_TRACE");
	char exe[PATH_MAX];
	ssize_t n;
	char *slash;
	int w;

	if (e && *e) {
		w = snprintf(out, len, "%s", e);
		return w > 0 && (size_t)w < len;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		slash = strrchr(exe, '/');
		if (slash) {
			*slash = '\0';
			w = snprintf(out, len, "%s/model_load.trace", exe);
			if (w > 0 && (size_t)w < len && access(out, R_OK) == 0)
				return true;
		}
	}
	w = snprintf(out, len, "%s", VKFD_BENCH_TRACE_INSTALLED);
	return w > 0 && (size_t)w < len;
}

static void on_signal(int sig)
{
	/* the private server must not outlive us */
	bench_server_stop();
	bench_host_stats_fini();
	signal(sig, SIG_DFL);
	raise(sig);
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
	    {"iterations", required_argument, NULL, 'i'},
	    {"scenario", required_argument, NULL, 's'},
	    {"paths", required_argument, NULL, 'p'},
	    {"json", no_argument, NULL, 'j'},
	    {"pin", no_argument, NULL, 'P'},
	    {"trace", required_argument, NULL, 't'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *path_names[BENCH_PATH_COUNT], *scen_names[N_SCENARIOS];
	struct bench_scenario_result results[N_SCENARIOS];
	bool want[N_SCENARIOS];
	char trace[PATH_MAX];
	struct bench_opts o;
	unsigned nres = 0;
	char *end;
	int c;

	memset(&o, 0, sizeof(o));
	memset(results, 0, sizeof(results));
	o.iterations = DEFAULT_ITERATIONS;
	for (unsigned p = 0; p < BENCH_PATH_COUNT; p++) {
		/* virtgpu needs a virtio-gpu device: only when asked for */
		o.paths[p] = p != BENCH_VIRTGPU;
		path_names[p] = bench_path_name((enum bench_path)p);
	}
	for (unsigned s = 0; s < N_SCENARIOS; s++) {
		want[s] = true;
		scen_names[s] = scenarios[s].name;
	}
	trace[0] = '\0';
	while ((c = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (c) {
		case 'i': {
			unsigned long v;

			errno = 0;
			v = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || v == 0 || v > MAX_ITERATIONS) {
				fprintf(stderr, "vkfd-bench: --iterations wants 1..%u\n",
					MAX_ITERATIONS);
				return 2;
			}
			o.iterations = (unsigned)v;
			break;
		}
		case 's':
			if (parse_list(optarg, scen_names, N_SCENARIOS, want))
				return 2;
			break;
		case 'p':
			if (parse_list(optarg, path_names, BENCH_PATH_COUNT, o.paths))
				return 2;
			break;
		case 'j':
			o.json = true;
			break;
		case 'P':
			break;
		case 't':
			snprintf(trace, sizeof(trace), "%s", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "vkfd-bench: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}
	if (!trace[0] && !find_trace(trace, sizeof(trace))) {
		fprintf(stderr, "vkfd-bench: trace path too long\n");
		return 2;
	}
	o.trace = trace;
	bench_loadavg(o.load_start, sizeof(o.load_start));
	signal(SIGPIPE, SIG_IGN);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	bench_pin_set(o.pin);
	bench_pin(0);
	/* before any host context or server exists: they read it at teardown */
	if (bench_host_stats_init())
		fprintf(stderr, "vkfd-bench: no statistics directory: host times not reported\n");

	for (unsigned s = 0; s < N_SCENARIOS; s++) {
		if (!want[s])
			continue;
		fprintf(stderr, "vkfd-bench: %s...\n", scenarios[s].name);
		scenarios[s].run(&o, &results[nres]);
		bench_server_restart();
		if (!results[nres].name)
			results[nres].name = scenarios[s].name;
		nres++;
	}
	bench_server_stop();
	bench_host_stats_fini();
	if (o.json)
		bench_report_json(&o, results, nres);
	else
		bench_report_table(&o, results, nres);
	for (unsigned s = 0; s < nres; s++) {
		for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
			bench_cell_free(&results[s].cell[p]);
		bench_cell_free(&results[s].ref);
	}
	return 0;
}
