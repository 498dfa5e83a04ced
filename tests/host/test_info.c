// SPDX-License-Identifier: MIT
/* Session and process-level commands, the sanitized topology export, and a
 * GPU reset reaching the guest as a hardware-exception event. */
#include <errno.h>
#include <linux/kfd_ioctl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "host_harness.h"
#include "host_internal.h"
#include "kfdsim_test_hooks.h"
#include "vkfd/kfdsim.h"

#define VRAM_QUOTA (512ull << 20)

static int setup(void **state)
{
	static struct harness h;
	struct vkfd_host_quota q;

	memset(&q, 0, sizeof(q));
	q.vram_bytes = VRAM_QUOTA;
	if (h_lib_init(0, &q) || h_open(&h, 1))
		return -1;
	*state = &h;
	return 0;
}

static int teardown(void **state)
{
	h_close(*state);
	h_lib_fini();
	return 0;
}

/* Fetch the whole export in small pages. */
static uint8_t *fetch_topology(struct harness *h, uint64_t *total)
{
	static uint8_t buf[1 << 20];
	uint8_t rsp[32 + 4096];
	uint64_t off = 0;

	do {
		struct vkfd_req_get_topology r = {.offset = off, .max_len = 4096};
		struct vkfd_rsp_get_topology *rh = (void *)rsp;

		assert_int_equal(h_call(h, VKFD_CMD_GET_TOPOLOGY, &r, sizeof(r), rsp, sizeof(rsp)),
				 0);
		assert_true(rh->total_len <= sizeof(buf));
		assert_true(rh->chunk_len <= 4096);
		memcpy(buf + off, rsp + 32, rh->chunk_len);
		off += rh->chunk_len;
		*total = rh->total_len;
		if (!rh->chunk_len)
			break;
	} while (off < *total);
	assert_int_equal(off, *total);
	return buf;
}

static bool has_key(const struct vkfd_topo_entry *e, const char *key)
{
	size_t k = strlen(key);

	for (uint32_t i = 0; i + k < e->data_len; i++)
		if ((i == 0 || e->data[i - 1] == '\n') && !memcmp(e->data + i, key, k) &&
		    e->data[i + k] == ' ')
			return true;
	return false;
}

static uint64_t key_val(const struct vkfd_topo_entry *e, const char *key)
{
	char tmp[16384 + 1];
	const char *p;
	size_t n = e->data_len < sizeof(tmp) - 1 ? e->data_len : sizeof(tmp) - 1;

	memcpy(tmp, e->data, n);
	tmp[n] = '\0';
	for (p = tmp; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (!strncmp(p, key, strlen(key)) && p[strlen(key)] == ' ')
			return strtoull(p + strlen(key) + 1, NULL, 10);
	return UINT64_MAX;
}

static bool path_is(const struct vkfd_topo_entry *e, const char *path)
{
	return e->path_len == strlen(path) && !memcmp(e->path, path, e->path_len);
}

static void test_topology_sanitized(void **state)
{
	struct harness *h = *state;
	struct vkfd_topo_entry e;
	uint64_t total;
	uint8_t *buf = fetch_topology(h, &total);
	size_t off = 0;
	int props = 0, banks = 0, ret;

	while ((ret = vkfd_topo_next(buf, total, &off, &e)) == 1) {
		char path[300];

		assert_true(vkfd_topo_path_ok(e.path, e.path_len));
		snprintf(path, sizeof(path), "%.*s", (int)e.path_len, e.path);
		/* nothing that names the host */
		assert_false(has_key(&e, "unique_id"));
		assert_false(has_key(&e, "location_id"));
		assert_false(has_key(&e, "domain"));
		assert_false(has_key(&e, "hive_id"));
		if (path_is(&e, "nodes/0/properties")) {
			props++;
			/* a GPU node: the guest builds its own CPU nodes */
			assert_true(key_val(&e, "simd_count") > 0);
			assert_int_equal(key_val(&e, "drm_render_minor"), 128);
			assert_true(key_val(&e, "local_mem_size") <= VRAM_QUOTA);
			/* kfdsim has the SVM API (HSA_CAP_SVMAPI_SUPPORTED) and
			 * the guest serves it: exported unchanged */
			assert_int_equal(key_val(&e, "capability") & 0x08000000u, 0x08000000u);
		}
		if (path_is(&e, "nodes/0/gpu_id")) {
			{
				char v[32];

				snprintf(v, sizeof(v), "%.*s", (int)e.data_len, e.data);
				assert_int_equal(strtoul(v, NULL, 10), h->gpu_id);
			}
		}
		if (!strncmp(path, "nodes/0/mem_banks/", 18)) {
			banks++;
			assert_true(key_val(&e, "size_in_bytes") <= VRAM_QUOTA);
		}
		if (strstr(path, "io_links/")) {
			/* links only between exported GPU nodes */
			assert_true(key_val(&e, "node_to") < 16);
			assert_true(key_val(&e, "node_from") < 16);
		}
		/* only GPU nodes: no node has a zero gpu_id */
		if (strstr(path, "/gpu_id")) {
			char v[32];

			snprintf(v, sizeof(v), "%.*s", (int)e.data_len, e.data);
			assert_true(strtoul(v, NULL, 10) != 0);
		}
	}
	assert_int_equal(ret, 0);
	assert_int_equal(props, 1);
	assert_true(banks >= 1);
}

static void test_topology_paging_errors(void **state)
{
	struct harness *h = *state;
	struct vkfd_req_get_topology r;
	uint8_t rsp[64];

	memset(&r, 0, sizeof(r));
	r.max_len = 12; /* not a multiple of 8 */
	assert_int_equal(h_call(h, VKFD_CMD_GET_TOPOLOGY, &r, sizeof(r), rsp, sizeof(rsp)),
			 -EINVAL);
	r.max_len = VKFD_TOPOLOGY_MAX_CHUNK + 8;
	assert_int_equal(h_call(h, VKFD_CMD_GET_TOPOLOGY, &r, sizeof(r), rsp, sizeof(rsp)),
			 -EINVAL);
	r.max_len = 8;
	r.offset = 4;
	assert_int_equal(h_call(h, VKFD_CMD_GET_TOPOLOGY, &r, sizeof(r), rsp, sizeof(rsp)),
			 -EINVAL);
	r.offset = 1ull << 40;
	assert_int_equal(h_call(h, VKFD_CMD_GET_TOPOLOGY, &r, sizeof(r), rsp, sizeof(rsp)),
			 -EINVAL);
	r.offset = 0;
	r.flags = 1;
	assert_int_equal(h_call(h, VKFD_CMD_GET_TOPOLOGY, &r, sizeof(r), rsp, sizeof(rsp)),
			 -EINVAL);
}

static void test_process_commands(void **state)
{
	struct harness *h = *state;

	{
		struct vkfd_req_get_version r;
		struct vkfd_rsp_get_version rsp;

		memset(&r, 0, sizeof(r));
		assert_int_equal(h_call(h, VKFD_CMD_GET_VERSION, &r, sizeof(r), &rsp, sizeof(rsp)),
				 0);
		assert_int_equal(rsp.major, 1);
		assert_int_equal(rsp.minor, host_g.caps.kfd_minor);
	}
	{
		struct vkfd_req_hello r = {.version_min = 2, .version_max = 5};

		assert_int_equal(h_call(h, VKFD_CMD_HELLO, &r, sizeof(r), NULL, 0),
				 -EPROTONOSUPPORT);
	}
	{
		struct vkfd_req_gpu r = {.gpu_id = h->gpu_id};
		struct vkfd_rsp_get_clock_counters rsp;

		assert_int_equal(
		    h_call(h, VKFD_CMD_GET_CLOCK_COUNTERS, &r, sizeof(r), &rsp, sizeof(rsp)), 0);
		assert_int_equal(rsp.system_clock_freq, 1000000000ull);
		assert_true(rsp.cpu_clock_counter > 0);
		r.gpu_id = 7;
		assert_int_equal(h_call(h, VKFD_CMD_GET_CLOCK_COUNTERS, &r, sizeof(r), NULL, 0),
				 -EINVAL);
		r.gpu_id = h->gpu_id;
		assert_int_equal(h_call(h, VKFD_CMD_ACQUIRE_VM, &r, sizeof(r), NULL, 0),
				 0); /* again */
	}
	{
		struct vkfd_req_set_memory_policy r;

		memset(&r, 0, sizeof(r));
		r.gpu_id = h->gpu_id;
		r.default_policy = 1;
		assert_int_equal(h_call(h, VKFD_CMD_SET_MEMORY_POLICY, &r, sizeof(r), NULL, 0), 0);
		r.alternate_policy = 2;
		assert_int_equal(h_call(h, VKFD_CMD_SET_MEMORY_POLICY, &r, sizeof(r), NULL, 0),
				 -EINVAL);
	}
	{
		struct vkfd_req_set_xnack_mode r;
		struct vkfd_rsp_set_xnack_mode rsp;

		memset(&r, 0, sizeof(r));
		r.xnack_enabled = -1;
		assert_int_equal(
		    h_call(h, VKFD_CMD_SET_XNACK_MODE, &r, sizeof(r), &rsp, sizeof(rsp)), 0);
		assert_true(rsp.xnack_enabled == 0 || rsp.xnack_enabled == 1);
		r.xnack_enabled = 2;
		assert_int_equal(h_call(h, VKFD_CMD_SET_XNACK_MODE, &r, sizeof(r), NULL, 0),
				 -EINVAL);
	}
	{
		struct vkfd_req_set_scratch_backing_va r;

		memset(&r, 0, sizeof(r));
		r.gpu_id = h->gpu_id;
		r.va_addr = (h->ap.scratch_base >> 16);
		assert_int_equal(h_call(h, VKFD_CMD_SET_SCRATCH_BACKING_VA, &r, sizeof(r), NULL, 0),
				 0);
	}
	{
		struct vkfd_req_set_trap_handler r;

		memset(&r, 0, sizeof(r));
		r.gpu_id = h->gpu_id;
		r.tba_addr = h->next_va;
		r.tma_addr = h->next_va + 4096;
		assert_int_equal(h_call(h, VKFD_CMD_SET_TRAP_HANDLER, &r, sizeof(r), NULL, 0), 0);
	}
	{
		struct vkfd_req_runtime_enable r;
		struct vkfd_rsp_runtime_enable rsp;

		memset(&r, 0, sizeof(r));
		r.mode_mask = 4;
		assert_int_equal(h_call(h, VKFD_CMD_RUNTIME_ENABLE, &r, sizeof(r), NULL, 0),
				 -EINVAL);
		r.mode_mask = 1;
		r.r_debug = 0xdeadbeef000ull;
		assert_int_equal(
		    h_call(h, VKFD_CMD_RUNTIME_ENABLE, &r, sizeof(r), &rsp, sizeof(rsp)), 0);
	}
	{
		struct vkfd_req_get_tile_config r;
		struct vkfd_rsp_get_tile_config rsp;

		memset(&r, 0, sizeof(r));
		r.gpu_id = h->gpu_id;
		r.num_tile_configs = VKFD_MAX_TILE_CONFIGS;
		r.num_macro_tile_configs = VKFD_MAX_MACRO_TILE_CONFIGS;
		assert_int_equal(
		    h_call(h, VKFD_CMD_GET_TILE_CONFIG, &r, sizeof(r), &rsp, sizeof(rsp)), 0);
		assert_true(rsp.num_tile_configs <= VKFD_MAX_TILE_CONFIGS);
		r.num_tile_configs = VKFD_MAX_TILE_CONFIGS + 1;
		assert_int_equal(h_call(h, VKFD_CMD_GET_TILE_CONFIG, &r, sizeof(r), NULL, 0),
				 -EINVAL);
	}
	{
		/* kfdsim answers the render-node queries (test_amdgpu_query.c) */
		struct vkfd_req_amdgpu_query r;

		memset(&r, 0, sizeof(r));
		r.gpu_id = h->gpu_id;
		r.query = VKFD_AMDGPU_QUERY_ACCEL_WORKING;
		r.out_size = 4;
		assert_int_equal(h_call(h, VKFD_CMD_AMDGPU_QUERY, &r, sizeof(r), NULL, 0), 0);
	}
}

static void test_gpu_reset_is_an_event(void **state)
{
	struct harness *h = *state;
	struct vkfd_req_wait_events w;
	struct vkfd_rsp_wait_events *rsp;
	uint32_t id, off, s;

	H_SIM_ONLY("needs kfdsim_inject_gpu_reset");
	assert_int_equal(h_create_event(h, 0, KFD_IOC_EVENT_HW_EXCEPTION, 0, &id), 0);
	memset(&w, 0, sizeof(w));
	w.ring_idx = 9;
	w.num_events = 1;
	w.timeout_ms = 0xffffffff;
	w.events[0].event_id = id;
	s = h_add(h, VKFD_CMD_WAIT_EVENTS, &w, VKFD_REQ_WAIT_EVENTS_LEN(1), &off);
	assert_int_equal(h_flush(h), 0);
	/* the reset while the wait sleeps, as the test means it */
	for (int i = 0; i < 10000 && !kfdsim_blocked_waits(host_g.sim); i++)
		usleep(1000);
	assert_int_equal(kfdsim_blocked_waits(host_g.sim), 1);
	kfdsim_inject_gpu_reset(host_g.sim, 0);
	assert_int_equal(h_wait_slot(h, off, s, 3000), 0);
	rsp = h_rsp(h, off);
	assert_int_equal(rsp->hdr.ret, 0);
	assert_int_equal(rsp->wait_result, KFD_IOC_WAIT_RESULT_COMPLETE);
	assert_int_equal(rsp->events[0].kind, VKFD_EVENT_DATA_HW);
	assert_int_equal(rsp->events[0].memory_lost, 1);
}

/* Seqnos may start anywhere (docs/protocol.md 5.2): contexts whose first
 * request is in the upper half of u32, or just before the wrap, get every
 * answer; the header's initial 0 never passes for processed. */
static void test_any_first_seqno(void **state)
{
	static const uint32_t starts[] = {0x90000000u, 0xfffffffeu, 0x80000000u};

	(void)state;
	H_SIM_ONLY("needs two KFD processes in this host process");
	for (unsigned i = 0; i < 3; i++) {
		struct vkfd_req_get_version gv;
		struct vkfd_rsp_get_version gr;
		struct harness h2;

		h_first_seqno = starts[i];
		assert_int_equal(h_open(&h2, 10 + i), 0);
		memset(&gv, 0, sizeof(gv));
		for (int k = 0; k < 4; k++)
			assert_int_equal(
			    h_call(&h2, VKFD_CMD_GET_VERSION, &gv, sizeof(gv), &gr, sizeof(gr)), 0);
		h_close(&h2);
	}
	h_first_seqno = 1000;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_topology_sanitized),
	    cmocka_unit_test(test_topology_paging_errors),
	    cmocka_unit_test(test_process_commands),
	    cmocka_unit_test(test_gpu_reset_is_an_event),
	    cmocka_unit_test(test_any_first_seqno),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
