// SPDX-License-Identifier: MIT
/*
 * The vkfd backend's topology materialisation fed hand-made exports: what a
 * hostile or buggy host can send (paths escaping the tree, overruns, too
 * many nodes, link counts that do not match the link files) and what the
 * guest's tree then looks like, through the backend's private header.
 */
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>

#include "backend_vkfd_internal.h"

#include <cmocka.h>

struct exp {
	uint8_t buf[65536];
	size_t len;
};

static void put(struct exp *e, const char *path, const char *data)
{
	struct vkfd_topo_record r;
	size_t pl = strlen(path), dl = strlen(data);
	size_t sz = (sizeof(r) + pl + dl + 7) & ~(size_t)7;

	assert_true(e->len + sz <= sizeof(e->buf));
	r.path_len = (uint32_t)pl;
	r.data_len = (uint32_t)dl;
	memset(e->buf + e->len, 0, sz);
	memcpy(e->buf + e->len, &r, sizeof(r));
	memcpy(e->buf + e->len + sizeof(r), path, pl);
	memcpy(e->buf + e->len + sizeof(r) + pl, data, dl);
	e->len += sz;
}

static char troot[PATH_MAX];

/* the tree fills bk.gpus, which bk_lock guards */
static int build(const uint8_t *buf, size_t len)
{
	int r;

	bk_table_lock();
	r = bk_topo_build_locked(troot, buf, len);
	bk_table_unlock();
	return r;
}

static int setup(void **state)
{
	snprintf(troot, sizeof(troot), "%s/vkfd-topotest-XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	*state = NULL;
	return mkdtemp(troot) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	bk_topo_remove(troot);
	return 0;
}

static long long file_prop(const char *rel, const char *key)
{
	char path[PATH_MAX + 256], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", troot, rel);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -2;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -2;
	buf[n] = '\0';
	if (!key)
		return strtoll(buf, NULL, 10);
	return bk_prop(buf, (size_t)n, key);
}

static void gpu_node(struct exp *e, unsigned int k, unsigned int gpu_id, unsigned int minor,
		     const char *extra)
{
	char p[64], d[512];

	snprintf(p, sizeof(p), "nodes/%u/gpu_id", k);
	snprintf(d, sizeof(d), "%u\n", gpu_id);
	put(e, p, d);
	snprintf(p, sizeof(p), "nodes/%u/properties", k);
	snprintf(d, sizeof(d), "simd_count 4\ndrm_render_minor %u\n%s", minor, extra);
	put(e, p, d);
}

static void test_good_export_and_link_counts(void **state)
{
	static struct exp e;

	(void)state;
	e.len = 0;
	/* the host claims one io link on node 0 but sends none, and sends a
	 * sparse pair of links (indices 2 and 5) between its GPUs on node 1 */
	gpu_node(&e, 0, 1111, 128, "io_links_count 1\np2p_links_count 0\n");
	gpu_node(&e, 1, 2222, 129, "io_links_count 7\n");
	put(&e, "nodes/1/io_links/5/properties", "type 11\nnode_from 1\nnode_to 0\n");
	put(&e, "nodes/1/io_links/2/properties", "type 11\nnode_from 1\nnode_to 0\n");
	put(&e, "nodes/1/caches/0/properties", "level 1\n");
	assert_int_equal(build(e.buf, e.len), 0);
	assert_int_equal(bk.n_gpus, 2);
	assert_int_equal(bk.gpus[0].gpu_id, 1111);
	assert_int_equal(bk.gpus[1].render_minor, 129);
	/* CPU node 0, GPUs at 1 and 2 */
	assert_int_equal(file_prop("nodes/0/gpu_id", NULL), 0);
	assert_int_equal(file_prop("nodes/1/gpu_id", NULL), 1111);
	assert_int_equal(file_prop("nodes/2/gpu_id", NULL), 2222);
	/* node 1: only the added GPU->CPU link */
	assert_int_equal(file_prop("nodes/1/properties", "io_links_count"), 1);
	assert_int_equal(file_prop("nodes/1/properties", "p2p_links_count"), 0);
	assert_int_equal(file_prop("nodes/1/io_links/0/properties", "node_to"), 0);
	/* node 2: links 2 and 5 became 0 and 1, then the CPU link as 2 */
	assert_int_equal(file_prop("nodes/2/properties", "io_links_count"), 3);
	assert_int_equal(file_prop("nodes/2/io_links/0/properties", "node_from"), 2);
	assert_int_equal(file_prop("nodes/2/io_links/0/properties", "node_to"), 1);
	assert_int_equal(file_prop("nodes/2/io_links/1/properties", "type"), 11);
	assert_int_equal(file_prop("nodes/2/io_links/2/properties", "node_to"), 0);
	assert_int_equal(file_prop("nodes/2/io_links/3/properties", "type"), -2);
	assert_int_equal(file_prop("nodes/2/caches/0/properties", "level"), 1);
	/* the CPU node links to both GPUs */
	assert_int_equal(file_prop("nodes/0/properties", "io_links_count"), 2);
	assert_int_equal(file_prop("nodes/0/io_links/1/properties", "node_to"), 2);
	assert_true(file_prop("system_properties", "platform_oem") == 0);
}

static void expect_bad(struct exp *e)
{
	assert_int_equal(build(e->buf, e->len), -EPROTO);
}

static void test_hostile_exports(void **state)
{
	static struct exp e;
	struct vkfd_topo_record r;
	char p[64];

	(void)state;
	const char *bad_paths[] = {
	    "../escape",
	    "nodes/../../x",
	    "/etc/passwd",
	    "nodes/0/./x",
	    "nodes//0",
	    "nodes/0/",
	    "nodes/0/a b",
	    "nodes/0/\x01",
	    "nodes/99999999999/x",
	    "nodes/0x/gpu_id",
	    "nodes/0/io_links/x/properties",
	};
	for (size_t i = 0; i < sizeof(bad_paths) / sizeof(bad_paths[0]); i++) {
		e.len = 0;
		gpu_node(&e, 0, 1, 128, "");
		put(&e, bad_paths[i], "1\n");
		expect_bad(&e);
	}
	/* nothing escaped the tree */
	assert_int_equal(access("/tmp/escape", F_OK), -1);

	/* more GPU nodes than the protocol allows */
	e.len = 0;
	snprintf(p, sizeof(p), "nodes/%u/gpu_id", VKFD_MAX_GPUS);
	put(&e, p, "5\n");
	expect_bad(&e);
	/* a node without properties, a node without a gpu id */
	e.len = 0;
	put(&e, "nodes/0/gpu_id", "5\n");
	expect_bad(&e);
	e.len = 0;
	put(&e, "nodes/0/properties", "simd_count 4\n");
	expect_bad(&e);
	/* link index beyond what we track */
	e.len = 0;
	gpu_node(&e, 0, 1, 128, "");
	put(&e, "nodes/0/io_links/64/properties", "type 2\n");
	expect_bad(&e);
	/* truncated record, record overrunning the export, oversized */
	e.len = 0;
	gpu_node(&e, 0, 1, 128, "");
	assert_int_equal(build(e.buf, e.len - 3), -EPROTO);
	e.len = 0;
	r.path_len = 6;
	r.data_len = 1000;
	memcpy(e.buf, &r, sizeof(r));
	memcpy(e.buf + 8, "nodes/", 6);
	e.len = 16;
	expect_bad(&e);
	e.len = 0;
	r.path_len = 0;
	r.data_len = 0;
	memcpy(e.buf, &r, sizeof(r));
	e.len = 8;
	expect_bad(&e);
	r.path_len = 4;
	r.data_len = VKFD_TOPOLOGY_MAX_FILE + 1;
	memcpy(e.buf, &r, sizeof(r));
	expect_bad(&e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_good_export_and_link_counts, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_hostile_exports, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
