// SPDX-License-Identifier: MIT
/*
 * vkfd-bench output: a human-readable table (default) or JSON with one
 * result object per line (ci/bench-plot.sh reads it line by line).
 */
#include "bench.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[512];

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon++;
		while (*colon == ' ' || *colon == '\t')
			colon++;
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

static void kernel(char *buf, size_t len)
{
	struct utsname u;

	if (uname(&u))
		snprintf(buf, len, "unknown");
	else
		snprintf(buf, len, "%s %s", u.sysname, u.release);
}

void bench_loadavg(char *buf, size_t len)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double a, b, c;

	if (f && fscanf(f, "%lf %lf %lf", &a, &b, &c) == 3)
		snprintf(buf, len, "%.2f %.2f %.2f", a, b, c);
	else
		snprintf(buf, len, "unknown");
	if (f)
		fclose(f);
}

static double ratio(const struct bench_scenario_result *r, const struct bench_cell *c)
{
	const struct bench_cell *n = &r->cell[BENCH_NATIVE];

	if (r->no_ratio || !c->ran || !n->ran || n->primary <= 0)
		return NAN;
	return c->primary / n->primary;
}

static void print_cell(const struct bench_scenario_result *r, const char *path,
		       const struct bench_cell *c)
{
	double x = ratio(r, c);

	if (!c->ran) {
		printf("  %-7s n/a (%s)\n", path, c->reason);
		return;
	}
	printf("  %-7s %-15s %12.3f", path, r->primary_name, c->primary);
	if (isnan(x))
		printf("  %10s", "-");
	else
		printf("  %9.2fx", x);
	printf("  ");
	for (unsigned i = 0; i < c->nm; i++) {
		if (!strcmp(c->m[i].name, r->primary_name))
			continue;
		if (fabs(c->m[i].value) >= 1e5 || c->m[i].value == floor(c->m[i].value))
			printf(" %s=%.0f", c->m[i].name, c->m[i].value);
		else
			printf(" %s=%.3g", c->m[i].name, c->m[i].value);
	}
	if (c->reason[0])
		printf(" (%s)", c->reason);
	printf("\n");
}

void bench_report_table(const struct bench_opts *o, struct bench_scenario_result *r, unsigned n)
{
	char cpu[256], kern[256], load[32];

	cpu_model(cpu, sizeof(cpu));
	kernel(kern, sizeof(kern));
	printf("vkfd-bench: %u iterations; machine: %d CPUs, %s, %s; threads %s\n", o->iterations,
	       bench_ncpus(), cpu, kern,
	       o->pin && bench_ncpus() >= 2 ? "pinned (guest CPU 0, host CPU 1)" : "not pinned");
	bench_loadavg(load, sizeof(load));
	printf("load average (1/5/15 min): %s at start, %s at end\n", o->load_start, load);
	printf("ratio = path figure / native figure (%s)\n\n",
	       "lower is better except decode commands_per_s");
	for (unsigned s = 0; s < n; s++) {
		printf("%s: %s\n", r[s].name, r[s].note);
		printf("  %-7s %-15s %12s  %10s   %s\n", "path", "figure", "value", "vs native",
		       "details");
		for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
			if (o->paths[p])
				print_cell(&r[s], bench_path_name((enum bench_path)p),
					   &r[s].cell[p]);
		if (r[s].has_ref)
			print_cell(&r[s], r[s].ref_name, &r[s].ref);
		printf("\n");
	}
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			printf("\\%c", ch);
		else if (ch < 0x20)
			printf("\\u%04x", ch);
		else
			putchar(ch);
	}
	putchar('"');
}

static void json_num(double v)
{
	if (isnan(v) || isinf(v))
		printf("null");
	else
		printf("%.6g", v);
}

static void json_cell(const struct bench_scenario_result *r, const char *path,
		      const struct bench_cell *c, bool last)
{
	printf("  {\"scenario\": ");
	json_str(r->name);
	printf(", \"path\": ");
	json_str(path);
	if (!c->ran) {
		printf(", \"status\": \"n/a\", \"reason\": ");
		json_str(c->reason);
		printf("}%s\n", last ? "" : ",");
		return;
	}
	printf(", \"status\": \"ok\", \"primary\": ");
	json_str(r->primary_name);
	printf(", \"value\": ");
	json_num(c->primary);
	printf(", \"ratio_to_native\": ");
	json_num(ratio(r, c));
	printf(", \"metrics\": {");
	for (unsigned i = 0; i < c->nm; i++) {
		printf("%s", i ? ", " : "");
		json_str(c->m[i].name);
		printf(": ");
		json_num(c->m[i].value);
	}
	printf("}");
	if (c->reason[0]) {
		printf(", \"note\": ");
		json_str(c->reason);
	}
	printf(", \"samples_us\": [");
	for (size_t i = 0; i < c->nsamples; i++)
		printf("%s%.3f", i ? "," : "", c->samples_us[i]);
	printf("]}%s\n", last ? "" : ",");
}

void bench_report_json(const struct bench_opts *o, struct bench_scenario_result *r, unsigned n)
{
	char cpu[256], kern[256], load[32];
	unsigned total = 0, done = 0;

	cpu_model(cpu, sizeof(cpu));
	kernel(kern, sizeof(kern));
	printf("{\"tool\": \"vkfd-bench\", \"iterations\": %u, \"pinned\": %s, \"machine\": "
	       "{\"nproc\": %d, \"cpu\": ",
	       o->iterations, o->pin && bench_ncpus() >= 2 ? "true" : "false", bench_ncpus());
	json_str(cpu);
	printf(", \"kernel\": ");
	json_str(kern);
	bench_loadavg(load, sizeof(load));
	printf(", \"loadavg_start\": ");
	json_str(o->load_start);
	printf(", \"loadavg_end\": ");
	json_str(load);
	printf("},\n \"notes\": {");
	for (unsigned s = 0; s < n; s++) {
		printf("%s", s ? ", " : "");
		json_str(r[s].name);
		printf(": ");
		json_str(r[s].note);
	}
	printf("},\n \"results\": [\n");
	for (unsigned s = 0; s < n; s++) {
		for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
			total += o->paths[p];
		total += r[s].has_ref;
	}
	for (unsigned s = 0; s < n; s++) {
		for (unsigned p = 0; p < BENCH_PATH_COUNT; p++)
			if (o->paths[p])
				json_cell(&r[s], bench_path_name((enum bench_path)p), &r[s].cell[p],
					  ++done == total);
		if (r[s].has_ref)
			json_cell(&r[s], r[s].ref_name, &r[s].ref, ++done == total);
	}
	printf(" ]}\n");
}
