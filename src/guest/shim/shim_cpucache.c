// SPDX-License-Identifier: MIT
/*
 * Fallback CPU cache sysfs tree (see shim_cpucache.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "shim_core.h"
#include "shim_cpucache.h"
#include "shim_real.h"
#include "shim_tmpdir.h"

#define MAX_CPUS 4096

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static bool host_has_caches;
static pthread_mutex_t tree_lock = PTHREAD_MUTEX_INITIALIZER;
static char tree_dir[256];
static int tree_err;
static pid_t tree_owner;
static int ncpus;

static void probe(void)
{
	const struct shim_real *real = shim_real_get();

	host_has_caches = real->access("/sys/devices/system/cpu/cpu0/cache", F_OK) == 0;
	ncpus = get_nprocs_conf();
	if (ncpus > MAX_CPUS)
		ncpus = MAX_CPUS;
}

/* Parse "<digits>" at *p (at most 4 digits); advances *p. */
static bool parse_num(const char **p, int *out)
{
	int n = 0, d = 0;

	while (**p >= '0' && **p <= '9') {
		if (++d > 4)
			return false;
		n = n * 10 + (**p - '0');
		(*p)++;
	}
	*out = n;
	return d > 0;
}

/* Match .../cpu<M>/cache[/rest]; returns rest or NULL. */
static const char *match(const char *path, int *cpu)
{
	static const char sys[] = "/sys/devices/system/";
	const char *p;
	int node;

	if (strncmp(path, sys, sizeof(sys) - 1) != 0)
		return NULL;
	p = path + sizeof(sys) - 1;
	if (strncmp(p, "node/node", 9) == 0) {
		p += 9;
		if (!parse_num(&p, &node) || *p != '/')
			return NULL;
		p++;
	} else if (strncmp(p, "cpu/", 4) == 0) {
		p += 4;
	} else {
		return NULL;
	}
	if (strncmp(p, "cpu", 3) != 0)
		return NULL;
	p += 3;
	if (!parse_num(&p, cpu))
		return NULL;
	if (strncmp(p, "/cache", 6) != 0 || (p[6] != '\0' && p[6] != '/'))
		return NULL;
	return p + 6;
}

static int put_file(const char *dir, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int put_file(const char *dir, const char *name, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	FILE *f;
	int ok;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >= sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "w");
	if (!f)
		return -errno;
	va_start(ap, fmt);
	ok = vfprintf(f, fmt, ap) >= 0;
	va_end(ap);
	ok = (fclose(f) == 0) && ok;
	return ok ? 0 : -EIO;
}

/* shared_cpu_map: 32-bit hex words, most significant first, comma separated. */
static void cpu_map(char *buf, size_t len, int first, int last)
{
	int words = (ncpus + 31) / 32;
	size_t off = 0;

	buf[0] = '\0';
	for (int w = words - 1; w >= 0 && off < len; w--) {
		unsigned mask = 0;

		for (int b = 0; b < 32; b++) {
			int c = w * 32 + b;

			if (c >= first && c <= last)
				mask |= 1u << b;
		}
		off += (size_t)snprintf(buf + off, len - off, "%08x%s", mask, w ? "," : "");
	}
}

struct cache_level {
	int level;
	const char *type;
	int size_name, assoc_name, line_name;
	bool shared; /* shared by every CPU (last level) */
};

static int write_index(const char *cache_dir, int idx, const struct cache_level *l, int cpu)
{
	char dir[512], map[MAX_CPUS / 4 + MAX_CPUS / 32 + 2];
	long size = sysconf(l->size_name), assoc = sysconf(l->assoc_name);
	long line = sysconf(l->line_name);
	int first = l->shared ? 0 : cpu, last = l->shared ? ncpus - 1 : cpu;
	int r = 0;

	if ((size_t)snprintf(dir, sizeof(dir), "%s/index%d", cache_dir, idx) >= sizeof(dir))
		return -ENAMETOOLONG;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return -errno;
	cpu_map(map, sizeof(map), first, last);
	r = r ? r : put_file(dir, "level", "%d\n", l->level);
	r = r ? r : put_file(dir, "type", "%s\n", l->type);
	r = r ? r : put_file(dir, "size", "%ldK\n", size / 1024);
	r = r ? r : put_file(dir, "coherency_line_size", "%ld\n", line > 0 ? line : 64);
	r = r ? r : put_file(dir, "ways_of_associativity", "%ld\n", assoc > 0 ? assoc : 0);
	r = r ? r : put_file(dir, "physical_line_partition", "1\n");
	if (first == last)
		r = r ? r : put_file(dir, "shared_cpu_list", "%d\n", first);
	else
		r = r ? r : put_file(dir, "shared_cpu_list", "%d-%d\n", first, last);
	r = r ? r : put_file(dir, "shared_cpu_map", "%s\n", map);
	return r;
}

static int build_tree(void)
{
	static const struct cache_level levels[] = {
	    {1, "Data", _SC_LEVEL1_DCACHE_SIZE, _SC_LEVEL1_DCACHE_ASSOC, _SC_LEVEL1_DCACHE_LINESIZE,
	     false},
	    {1, "Instruction", _SC_LEVEL1_ICACHE_SIZE, _SC_LEVEL1_ICACHE_ASSOC,
	     _SC_LEVEL1_ICACHE_LINESIZE, false},
	    {2, "Unified", _SC_LEVEL2_CACHE_SIZE, _SC_LEVEL2_CACHE_ASSOC, _SC_LEVEL2_CACHE_LINESIZE,
	     false},
	    {3, "Unified", _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL3_CACHE_ASSOC, _SC_LEVEL3_CACHE_LINESIZE,
	     true},
	};
	char cache_dir[512];
	int r;

	r = shim_tmpdir_create("vkfd-cpucache", tree_dir, sizeof(tree_dir));
	if (r)
		return r;
	tree_owner = getpid();
	for (int cpu = 0; cpu < ncpus && !r; cpu++) {
		int idx = 0;

		snprintf(cache_dir, sizeof(cache_dir), "%s/cpu%d", tree_dir, cpu);
		if (mkdir(cache_dir, 0755))
			return -errno;
		snprintf(cache_dir, sizeof(cache_dir), "%s/cpu%d/cache", tree_dir, cpu);
		if (mkdir(cache_dir, 0755))
			return -errno;
		for (size_t i = 0; i < sizeof(levels) / sizeof(levels[0]) && !r; i++) {
			/* A level the CPU does not report is not listed. */
			if (sysconf(levels[i].size_name) <= 0)
				continue;
			r = write_index(cache_dir, idx++, &levels[i], cpu);
		}
	}
	return r;
}

__attribute__((destructor)) static void cpucache_exit(void)
{
	if (tree_dir[0] && tree_owner == getpid())
		shim_tmpdir_remove(tree_dir);
}

int shim_cpucache_map(const char *path, char *buf, size_t len)
{
	const char *rest;
	int cpu, err;

	rest = match(path, &cpu);
	if (!rest)
		return 0;
	pthread_once(&probe_once, probe);
	if (host_has_caches || cpu >= ncpus)
		return 0;

	pthread_mutex_lock(&tree_lock);
	/* A fork child writes its own tree: the parent removes its copy. */
	if (tree_dir[0] && tree_owner != getpid()) {
		tree_dir[0] = '\0';
		tree_err = 0;
	}
	if (!tree_dir[0] && !tree_err) {
		shim_enter();
		tree_err = build_tree();
		shim_leave();
		if (tree_err)
			shim_log("cannot write the fallback CPU cache tree: %s",
				 strerror(-tree_err));
		else
			shim_debug("host sysfs has no CPU caches; serving them from %s", tree_dir);
	}
	err = tree_err;
	pthread_mutex_unlock(&tree_lock);
	if (err)
		return err;
	if ((size_t)snprintf(buf, len, "%s/cpu%d/cache%s", tree_dir, cpu, rest) >= len)
		return -ENAMETOOLONG;
	return 1;
}
