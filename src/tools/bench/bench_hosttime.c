// SPDX-License-Identifier: MIT
/*
 * vkfd-bench: collects the statistics files host contexts write at their
 * destruction (VKFD_HOST_STATS_DIR, see include/vkfd/host.h) and turns the
 * merged histograms into host_* metrics. Percentiles come from histogram
 * buckets at most 1/8 of their lower bound wide, reported as the bucket's
 * upper bound (the true value is at most 12.5 % lower); the maximum is
 * exact.
 */
#include "bench_hosttime.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <vkfd/host.h>

#define COLLECT_TIMEOUT_NS 5000000000ull

static char stats_dir[PATH_MAX];

struct merged {
	struct vkfd_host_cmd_stats cmd[VKFD_HOST_STATS_CMDS];
	char name[VKFD_HOST_STATS_CMDS][40];
};

int bench_host_stats_init(void)
{
	const char *tmp = getenv("TMPDIR");
	int n;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	n = snprintf(stats_dir, sizeof(stats_dir), "%s/vkfd-bench-stats-XXXXXX", tmp);
	if (n < 0 || (size_t)n >= sizeof(stats_dir) || !mkdtemp(stats_dir)) {
		stats_dir[0] = '\0';
		return -errno ? -errno : -ENAMETOOLONG;
	}
	if (setenv("VKFD_HOST_STATS_DIR", stats_dir, 1)) {
		rmdir(stats_dir);
		stats_dir[0] = '\0';
		return -ENOMEM;
	}
	return 0;
}

/* Calls fn on every complete statistics file; returns how many there are. */
static unsigned for_each_file(void (*fn)(const char *path, void *arg), void *arg)
{
	char path[PATH_MAX + 256];
	struct dirent *e;
	unsigned n = 0;
	DIR *d;

	if (!stats_dir[0])
		return 0;
	d = opendir(stats_dir);
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		if (strncmp(e->d_name, "host-stats-", 11))
			continue;
		n++;
		if (fn) {
			snprintf(path, sizeof(path), "%s/%s", stats_dir, e->d_name);
			fn(path, arg);
		}
	}
	closedir(d);
	return n;
}

static void remove_file(const char *path, void *arg)
{
	(void)arg;
	unlink(path);
}

void bench_host_stats_reset(void)
{
	for_each_file(remove_file, NULL);
}

void bench_host_stats_fini(void)
{
	char path[PATH_MAX + 256];
	struct dirent *e;
	DIR *d;

	if (!stats_dir[0])
		return;
	d = opendir(stats_dir);
	if (d) {
		while ((e = readdir(d))) {
			if (e->d_name[0] == '.' &&
			    (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
				continue;
			snprintf(path, sizeof(path), "%s/%s", stats_dir, e->d_name);
			unlink(path);
		}
		closedir(d);
	}
	rmdir(stats_dir);
	stats_dir[0] = '\0';
	unsetenv("VKFD_HOST_STATS_DIR");
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* One line: "cmd N NAME count C sum_ns S max_ns M hist B:K ..." */
static void merge_line(struct merged *m, char *line)
{
	unsigned cmd, b, k;
	unsigned long long cnt, sum, max, csum, cmax;
	char name[40];
	int off = 0;
	char *p;

	if (sscanf(line,
		   "cmd %u %39s count %llu sum_ns %llu max_ns %llu cpu_sum_ns %llu cpu_max_ns %llu "
		   "hist%n",
		   &cmd, name, &cnt, &sum, &max, &csum, &cmax, &off) != 7 ||
	    !off || cmd >= VKFD_HOST_STATS_CMDS)
		return;
	struct vkfd_host_cmd_stats *s = &m->cmd[cmd];

	snprintf(m->name[cmd], sizeof(m->name[cmd]), "%s", name);
	s->count = sat_add(s->count, cnt);
	s->sum_ns = sat_add(s->sum_ns, sum);
	if (max > s->max_ns)
		s->max_ns = max;
	s->cpu_sum_ns = sat_add(s->cpu_sum_ns, csum);
	if (cmax > s->cpu_max_ns)
		s->cpu_max_ns = cmax;
	p = line + off;
	while (sscanf(p, " %u:%u%n", &b, &k, &off) == 2) {
		if (b < VKFD_HOST_STATS_BUCKETS)
			s->hist[b] = k > UINT32_MAX - s->hist[b] ? UINT32_MAX : s->hist[b] + k;
		p += off;
	}
}

static void merge_file(const char *path, void *arg)
{
	FILE *f = fopen(path, "r");
	char *line = NULL;
	size_t cap = 0;

	if (!f)
		return;
	while (getline(&line, &cap, f) > 0)
		merge_line(arg, line);
	free(line);
	fclose(f);
}

/* Upper bound (µs) of the bucket holding the pct-th percentile. */
static double hist_pct_us(const struct vkfd_host_cmd_stats *s, double pct)
{
	uint64_t want, seen = 0;

	if (!s->count)
		return 0;
	want = (uint64_t)((double)s->count * pct / 100.0 + 0.999999);
	if (want < 1)
		want = 1;
	for (unsigned b = 0; b < VKFD_HOST_STATS_BUCKETS; b++) {
		seen += s->hist[b];
		if (seen >= want) {
			uint64_t hi = vkfd_host_stats_bucket_max_ns(b);

			/* never above the exact maximum */
			return (double)(hi < s->max_ns ? hi : s->max_ns) / 1000.0;
		}
	}
	return (double)s->max_ns / 1000.0;
}

/* Requests known to have taken more than 1 ms: those in buckets whose
 * lower bound is above it (a lower bound of the true count). */
static uint64_t over_1ms(const struct vkfd_host_cmd_stats *s)
{
	uint64_t n = 0;

	for (unsigned b = 0; b < VKFD_HOST_STATS_BUCKETS; b++)
		if (vkfd_host_stats_bucket_min_ns(b) > 1000000)
			n += s->hist[b];
	return n;
}

/* Metric names must outlive the cell: one static table per process. */
static char max_names[VKFD_HOST_STATS_CMDS][64];
static char cpu_names[VKFD_HOST_STATS_CMDS][64];

int bench_host_stats_collect(unsigned contexts, struct bench_cell *c)
{
	struct vkfd_host_cmd_stats all;
	struct merged *m;
	uint64_t t0 = 0;
	unsigned worst = 0;
	struct timespec nap = {0, 5000000};

	if (!stats_dir[0])
		return -ENOENT;
	for (;;) {
		struct timespec ts;
		uint64_t now;

		if (for_each_file(NULL, NULL) >= contexts)
			break;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
		if (!t0)
			t0 = now;
		else if (now - t0 > COLLECT_TIMEOUT_NS)
			return -ENODATA;
		nanosleep(&nap, NULL);
	}
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	for_each_file(merge_file, m);
	memset(&all, 0, sizeof(all));
	for (unsigned i = 0; i < VKFD_HOST_STATS_CMDS; i++) {
		const struct vkfd_host_cmd_stats *s = &m->cmd[i];

		all.count = sat_add(all.count, s->count);
		all.sum_ns = sat_add(all.sum_ns, s->sum_ns);
		if (s->max_ns > all.max_ns) {
			all.max_ns = s->max_ns;
			worst = i;
		}
		all.cpu_sum_ns = sat_add(all.cpu_sum_ns, s->cpu_sum_ns);
		if (s->cpu_max_ns > all.cpu_max_ns)
			all.cpu_max_ns = s->cpu_max_ns;
		for (unsigned b = 0; b < VKFD_HOST_STATS_BUCKETS; b++)
			all.hist[b] = s->hist[b] > UINT32_MAX - all.hist[b]
					  ? UINT32_MAX
					  : all.hist[b] + s->hist[b];
	}
	if (!all.count) {
		free(m);
		return -ENODATA;
	}
	bench_cell_metric(c, "host_p50_us", hist_pct_us(&all, 50));
	bench_cell_metric(c, "host_p99_us", hist_pct_us(&all, 99));
	bench_cell_metric(c, "host_max_us", (double)all.max_ns / 1000.0);
	bench_cell_metric(c, "host_mean_us", (double)all.sum_ns / (double)all.count / 1000.0);
	bench_cell_metric(c, "host_requests", (double)all.count);
	bench_cell_metric(c, "host_over_1ms", (double)over_1ms(&all));
	if (all.cpu_max_ns) /* VKFD_HOST_STATS_CPU=1 */
		bench_cell_metric(c, "host_cpu_max_us", (double)all.cpu_max_ns / 1000.0);
	bench_cell_metric(c, "host_contexts", (double)contexts);
	for (unsigned i = 0; i < VKFD_HOST_STATS_CMDS; i++) {
		const struct vkfd_host_cmd_stats *s = &m->cmd[i];

		if (!s->count)
			continue;
		if (!max_names[i][0]) {
			snprintf(max_names[i], sizeof(max_names[i]), "host_%s_max_us", m->name[i]);
			snprintf(cpu_names[i], sizeof(cpu_names[i]), "host_%s_cpu_max_us",
				 m->name[i]);
		}
		if (s->cpu_max_ns)
			bench_cell_metric(c, cpu_names[i], (double)s->cpu_max_ns / 1000.0);
		bench_cell_metric(c, max_names[i], (double)s->max_ns / 1000.0);
	}
	{
		size_t n = strlen(c->reason);

		snprintf(c->reason + n, sizeof(c->reason) - n, "%sslowest host handler: %s",
			 n ? "; " : "", m->name[worst]);
	}
	free(m);
	return 0;
}
