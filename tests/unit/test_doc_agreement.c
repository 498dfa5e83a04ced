/* SPDX-License-Identifier: MIT */
/*
 * docs/protocol.md and src/proto/vkfd_protocol.h must agree. This test
 * parses the document's machine-readable parts:
 *   - "Layout: `struct NAME`, N bytes" followed by a table whose rows are
 *     | offset | type | field | meaning |
 *   - the command table rows | 0xID | `NAME` | sync/async | ... |
 *   - the limits table rows | `VKFD_CONST` | value | ... |
 *   - the feature table rows | bit | `VKFD_FEAT_X` | ... |
 * and compares them with sizeof/offsetof, the codec's command table and the
 * header's #defines, in both directions (nothing undocumented, nothing
 * documented that does not exist). It also checks that the checker catches
 * a mutated document.
 */
#include <ctype.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "vkfd_codec.h"

struct field_desc {
	const char *name;
	size_t offset;
	size_t size;
};

struct struct_desc {
	const char *name;
	size_t size;
	const struct field_desc *fields;
};

/* clang-format off */
#define F(s, f) {#f, offsetof(struct s, f), sizeof(((struct s *)0)->f)}
#define S(s, ...) {#s, sizeof(struct s), (const struct field_desc[]){__VA_ARGS__, {NULL, 0, 0}}}

static const struct struct_desc structs[] = {
	S(vkfd_capset, F(vkfd_capset, wire_format), F(vkfd_capset, version_min),
	  F(vkfd_capset, version_max), F(vkfd_capset, context_type), F(vkfd_capset, features),
	  F(vkfd_capset, kfd_major), F(vkfd_capset, kfd_minor), F(vkfd_capset, min_kfd_major),
	  F(vkfd_capset, min_kfd_minor), F(vkfd_capset, min_kernel_version),
	  F(vkfd_capset, shmem_size), F(vkfd_capset, num_rings), F(vkfd_capset, max_batch_size),
	  F(vkfd_capset, num_gpus), F(vkfd_capset, reserved)),
	S(vkfd_shmem_hdr, F(vkfd_shmem_hdr, magic), F(vkfd_shmem_hdr, version),
	  F(vkfd_shmem_hdr, size), F(vkfd_shmem_hdr, flags), F(vkfd_shmem_hdr, seqno),
	  F(vkfd_shmem_hdr, async_error), F(vkfd_shmem_hdr, rsp_off), F(vkfd_shmem_hdr, rsp_size),
	  F(vkfd_shmem_hdr, event_off), F(vkfd_shmem_hdr, event_count),
	  F(vkfd_shmem_hdr, max_bos), F(vkfd_shmem_hdr, budget_allocs),
	  F(vkfd_shmem_hdr, budget_bytes), F(vkfd_shmem_hdr, map_barrier),
	  F(vkfd_shmem_hdr, reserved)),
	S(vkfd_event_state, F(vkfd_event_state, age)),
	S(vkfd_req_hdr, F(vkfd_req_hdr, cmd), F(vkfd_req_hdr, len), F(vkfd_req_hdr, seqno),
	  F(vkfd_req_hdr, rsp_off)),
	S(vkfd_rsp_hdr, F(vkfd_rsp_hdr, ret), F(vkfd_rsp_hdr, len), F(vkfd_rsp_hdr, seqno),
	  F(vkfd_rsp_hdr, reserved)),
	S(vkfd_req_gpu, F(vkfd_req_gpu, hdr), F(vkfd_req_gpu, gpu_id), F(vkfd_req_gpu, pad)),
	S(vkfd_req_handle, F(vkfd_req_handle, hdr), F(vkfd_req_handle, handle)),
	S(vkfd_rsp_empty, F(vkfd_rsp_empty, hdr)),
	S(vkfd_req_event, F(vkfd_req_event, hdr), F(vkfd_req_event, event_id),
	  F(vkfd_req_event, pad)),
	S(vkfd_req_hello, F(vkfd_req_hello, hdr), F(vkfd_req_hello, version_min),
	  F(vkfd_req_hello, version_max), F(vkfd_req_hello, features)),
	S(vkfd_rsp_hello, F(vkfd_rsp_hello, hdr), F(vkfd_rsp_hello, version),
	  F(vkfd_rsp_hello, pad), F(vkfd_rsp_hello, features)),
	S(vkfd_req_get_version, F(vkfd_req_get_version, hdr)),
	S(vkfd_rsp_get_version, F(vkfd_rsp_get_version, hdr), F(vkfd_rsp_get_version, major),
	  F(vkfd_rsp_get_version, minor)),
	S(vkfd_req_get_topology, F(vkfd_req_get_topology, hdr), F(vkfd_req_get_topology, offset),
	  F(vkfd_req_get_topology, max_len), F(vkfd_req_get_topology, flags)),
	S(vkfd_rsp_get_topology, F(vkfd_rsp_get_topology, hdr),
	  F(vkfd_rsp_get_topology, total_len), F(vkfd_rsp_get_topology, chunk_len),
	  F(vkfd_rsp_get_topology, generation)),
	S(vkfd_topo_record, F(vkfd_topo_record, path_len), F(vkfd_topo_record, data_len)),
	S(vkfd_aperture, F(vkfd_aperture, lds_base), F(vkfd_aperture, lds_limit),
	  F(vkfd_aperture, scratch_base), F(vkfd_aperture, scratch_limit),
	  F(vkfd_aperture, gpuvm_base), F(vkfd_aperture, gpuvm_limit), F(vkfd_aperture, gpu_id),
	  F(vkfd_aperture, pad)),
	S(vkfd_req_get_process_apertures, F(vkfd_req_get_process_apertures, hdr),
	  F(vkfd_req_get_process_apertures, max_nodes), F(vkfd_req_get_process_apertures, pad)),
	S(vkfd_rsp_get_process_apertures, F(vkfd_rsp_get_process_apertures, hdr),
	  F(vkfd_rsp_get_process_apertures, num_nodes), F(vkfd_rsp_get_process_apertures, pad),
	  F(vkfd_rsp_get_process_apertures, apertures)),
	S(vkfd_req_set_memory_policy, F(vkfd_req_set_memory_policy, hdr),
	  F(vkfd_req_set_memory_policy, alternate_aperture_base),
	  F(vkfd_req_set_memory_policy, alternate_aperture_size),
	  F(vkfd_req_set_memory_policy, gpu_id), F(vkfd_req_set_memory_policy, default_policy),
	  F(vkfd_req_set_memory_policy, alternate_policy), F(vkfd_req_set_memory_policy, pad)),
	S(vkfd_req_set_scratch_backing_va, F(vkfd_req_set_scratch_backing_va, hdr),
	  F(vkfd_req_set_scratch_backing_va, va_addr), F(vkfd_req_set_scratch_backing_va, gpu_id),
	  F(vkfd_req_set_scratch_backing_va, pad)),
	S(vkfd_req_set_trap_handler, F(vkfd_req_set_trap_handler, hdr),
	  F(vkfd_req_set_trap_handler, tba_addr), F(vkfd_req_set_trap_handler, tma_addr),
	  F(vkfd_req_set_trap_handler, gpu_id), F(vkfd_req_set_trap_handler, pad)),
	S(vkfd_req_set_xnack_mode, F(vkfd_req_set_xnack_mode, hdr),
	  F(vkfd_req_set_xnack_mode, xnack_enabled), F(vkfd_req_set_xnack_mode, pad)),
	S(vkfd_rsp_set_xnack_mode, F(vkfd_rsp_set_xnack_mode, hdr),
	  F(vkfd_rsp_set_xnack_mode, xnack_enabled), F(vkfd_rsp_set_xnack_mode, pad)),
	S(vkfd_rsp_get_clock_counters, F(vkfd_rsp_get_clock_counters, hdr),
	  F(vkfd_rsp_get_clock_counters, gpu_clock_counter),
	  F(vkfd_rsp_get_clock_counters, cpu_clock_counter),
	  F(vkfd_rsp_get_clock_counters, system_clock_counter),
	  F(vkfd_rsp_get_clock_counters, system_clock_freq)),
	S(vkfd_rsp_available_memory, F(vkfd_rsp_available_memory, hdr),
	  F(vkfd_rsp_available_memory, available)),
	S(vkfd_req_runtime_enable, F(vkfd_req_runtime_enable, hdr),
	  F(vkfd_req_runtime_enable, r_debug), F(vkfd_req_runtime_enable, mode_mask),
	  F(vkfd_req_runtime_enable, capabilities_mask)),
	S(vkfd_rsp_runtime_enable, F(vkfd_rsp_runtime_enable, hdr),
	  F(vkfd_rsp_runtime_enable, capabilities_mask), F(vkfd_rsp_runtime_enable, pad)),
	S(vkfd_req_get_tile_config, F(vkfd_req_get_tile_config, hdr),
	  F(vkfd_req_get_tile_config, gpu_id), F(vkfd_req_get_tile_config, num_tile_configs),
	  F(vkfd_req_get_tile_config, num_macro_tile_configs), F(vkfd_req_get_tile_config, pad)),
	S(vkfd_rsp_get_tile_config, F(vkfd_rsp_get_tile_config, hdr),
	  F(vkfd_rsp_get_tile_config, num_tile_configs),
	  F(vkfd_rsp_get_tile_config, num_macro_tile_configs),
	  F(vkfd_rsp_get_tile_config, gb_addr_config), F(vkfd_rsp_get_tile_config, num_banks),
	  F(vkfd_rsp_get_tile_config, num_ranks), F(vkfd_rsp_get_tile_config, pad),
	  F(vkfd_rsp_get_tile_config, tile_config),
	  F(vkfd_rsp_get_tile_config, macro_tile_config)),
	S(vkfd_req_amdgpu_query, F(vkfd_req_amdgpu_query, hdr), F(vkfd_req_amdgpu_query, gpu_id),
	  F(vkfd_req_amdgpu_query, query), F(vkfd_req_amdgpu_query, out_size),
	  F(vkfd_req_amdgpu_query, pad), F(vkfd_req_amdgpu_query, param0),
	  F(vkfd_req_amdgpu_query, param1)),
	S(vkfd_rsp_amdgpu_query, F(vkfd_rsp_amdgpu_query, hdr), F(vkfd_rsp_amdgpu_query, size),
	  F(vkfd_rsp_amdgpu_query, pad)),
	S(vkfd_amdgpu_drm_version, F(vkfd_amdgpu_drm_version, major),
	  F(vkfd_amdgpu_drm_version, minor), F(vkfd_amdgpu_drm_version, patchlevel),
	  F(vkfd_amdgpu_drm_version, pad), F(vkfd_amdgpu_drm_version, name)),
	S(vkfd_req_alloc_memory, F(vkfd_req_alloc_memory, hdr), F(vkfd_req_alloc_memory, va),
	  F(vkfd_req_alloc_memory, size), F(vkfd_req_alloc_memory, gpu_id),
	  F(vkfd_req_alloc_memory, flags), F(vkfd_req_alloc_memory, new_handle),
	  F(vkfd_req_alloc_memory, arena_offset), F(vkfd_req_alloc_memory, arena_id),
	  F(vkfd_req_alloc_memory, alloc_flags)),
	S(vkfd_req_create_arena, F(vkfd_req_create_arena, hdr), F(vkfd_req_create_arena, size),
	  F(vkfd_req_create_arena, blob_id), F(vkfd_req_create_arena, arena_id),
	  F(vkfd_req_create_arena, flags)),
	S(vkfd_req_destroy_arena, F(vkfd_req_destroy_arena, hdr),
	  F(vkfd_req_destroy_arena, arena_id), F(vkfd_req_destroy_arena, pad)),
	S(vkfd_userptr_piece, F(vkfd_userptr_piece, arena_offset),
	  F(vkfd_userptr_piece, arena_id), F(vkfd_userptr_piece, pages)),
	S(vkfd_req_alloc_userptr_pieces, F(vkfd_req_alloc_userptr_pieces, hdr),
	  F(vkfd_req_alloc_userptr_pieces, va), F(vkfd_req_alloc_userptr_pieces, size),
	  F(vkfd_req_alloc_userptr_pieces, new_handle), F(vkfd_req_alloc_userptr_pieces, gpu_id),
	  F(vkfd_req_alloc_userptr_pieces, flags), F(vkfd_req_alloc_userptr_pieces, n_pieces),
	  F(vkfd_req_alloc_userptr_pieces, pad), F(vkfd_req_alloc_userptr_pieces, pieces)),
	S(vkfd_rsp_alloc_memory, F(vkfd_rsp_alloc_memory, hdr), F(vkfd_rsp_alloc_memory, handle),
	  F(vkfd_rsp_alloc_memory, blob_size), F(vkfd_rsp_alloc_memory, map_info),
	  F(vkfd_rsp_alloc_memory, map_flags)),
	S(vkfd_req_map_memory, F(vkfd_req_map_memory, hdr), F(vkfd_req_map_memory, handle),
	  F(vkfd_req_map_memory, n_devices), F(vkfd_req_map_memory, n_success),
	  F(vkfd_req_map_memory, device_ids)),
	S(vkfd_rsp_map_memory, F(vkfd_rsp_map_memory, hdr), F(vkfd_rsp_map_memory, n_success),
	  F(vkfd_rsp_map_memory, pad)),
	S(vkfd_req_bind_blob, F(vkfd_req_bind_blob, hdr), F(vkfd_req_bind_blob, handle),
	  F(vkfd_req_bind_blob, blob_id)),
	S(vkfd_req_import_resource, F(vkfd_req_import_resource, hdr),
	  F(vkfd_req_import_resource, va), F(vkfd_req_import_resource, res_id),
	  F(vkfd_req_import_resource, gpu_id)),
	S(vkfd_rsp_import_resource, F(vkfd_rsp_import_resource, hdr),
	  F(vkfd_rsp_import_resource, handle), F(vkfd_rsp_import_resource, size),
	  F(vkfd_rsp_import_resource, flags), F(vkfd_rsp_import_resource, pad)),
	S(vkfd_req_get_resource_info, F(vkfd_req_get_resource_info, hdr),
	  F(vkfd_req_get_resource_info, res_id), F(vkfd_req_get_resource_info, metadata_size)),
	S(vkfd_rsp_get_resource_info, F(vkfd_rsp_get_resource_info, hdr),
	  F(vkfd_rsp_get_resource_info, size), F(vkfd_rsp_get_resource_info, gpu_id),
	  F(vkfd_rsp_get_resource_info, flags), F(vkfd_rsp_get_resource_info, metadata_size),
	  F(vkfd_rsp_get_resource_info, pad), F(vkfd_rsp_get_resource_info, metadata)),
	S(vkfd_req_create_queue, F(vkfd_req_create_queue, hdr),
	  F(vkfd_req_create_queue, ring_base_address),
	  F(vkfd_req_create_queue, write_pointer_address),
	  F(vkfd_req_create_queue, read_pointer_address),
	  F(vkfd_req_create_queue, eop_buffer_address), F(vkfd_req_create_queue, eop_buffer_size),
	  F(vkfd_req_create_queue, ctx_save_restore_address), F(vkfd_req_create_queue, ring_size),
	  F(vkfd_req_create_queue, gpu_id), F(vkfd_req_create_queue, queue_type),
	  F(vkfd_req_create_queue, queue_percentage), F(vkfd_req_create_queue, queue_priority),
	  F(vkfd_req_create_queue, ctx_save_restore_size),
	  F(vkfd_req_create_queue, ctl_stack_size), F(vkfd_req_create_queue, sdma_engine_id)),
	S(vkfd_rsp_create_queue, F(vkfd_rsp_create_queue, hdr), F(vkfd_rsp_create_queue, queue),
	  F(vkfd_rsp_create_queue, doorbell_index), F(vkfd_rsp_create_queue, ring_size)),
	S(vkfd_req_update_queue, F(vkfd_req_update_queue, hdr), F(vkfd_req_update_queue, queue),
	  F(vkfd_req_update_queue, ring_base_address), F(vkfd_req_update_queue, ring_size),
	  F(vkfd_req_update_queue, queue_percentage), F(vkfd_req_update_queue, queue_priority),
	  F(vkfd_req_update_queue, pad)),
	S(vkfd_req_set_cu_mask, F(vkfd_req_set_cu_mask, hdr), F(vkfd_req_set_cu_mask, queue),
	  F(vkfd_req_set_cu_mask, num_cu_mask), F(vkfd_req_set_cu_mask, pad),
	  F(vkfd_req_set_cu_mask, cu_mask)),
	S(vkfd_req_alloc_queue_gws, F(vkfd_req_alloc_queue_gws, hdr),
	  F(vkfd_req_alloc_queue_gws, queue), F(vkfd_req_alloc_queue_gws, num_gws),
	  F(vkfd_req_alloc_queue_gws, pad)),
	S(vkfd_rsp_alloc_queue_gws, F(vkfd_rsp_alloc_queue_gws, hdr),
	  F(vkfd_rsp_alloc_queue_gws, first_gws), F(vkfd_rsp_alloc_queue_gws, pad)),
	S(vkfd_req_create_event, F(vkfd_req_create_event, hdr),
	  F(vkfd_req_create_event, event_page), F(vkfd_req_create_event, event_type),
	  F(vkfd_req_create_event, auto_reset), F(vkfd_req_create_event, node_id),
	  F(vkfd_req_create_event, pad)),
	S(vkfd_rsp_create_event, F(vkfd_rsp_create_event, hdr), F(vkfd_rsp_create_event, event_id),
	  F(vkfd_rsp_create_event, event_slot_index), F(vkfd_rsp_create_event, event_trigger_data),
	  F(vkfd_rsp_create_event, pad)),
	S(vkfd_wait_event, F(vkfd_wait_event, event_id), F(vkfd_wait_event, pad),
	  F(vkfd_wait_event, last_event_age)),
	S(vkfd_req_wait_events, F(vkfd_req_wait_events, hdr), F(vkfd_req_wait_events, ring_idx),
	  F(vkfd_req_wait_events, num_events), F(vkfd_req_wait_events, wait_for_all),
	  F(vkfd_req_wait_events, timeout_ms), F(vkfd_req_wait_events, events)),
	S(vkfd_event_data, F(vkfd_event_data, event_id), F(vkfd_event_data, kind),
	  F(vkfd_event_data, event_age), F(vkfd_event_data, va), F(vkfd_event_data, gpu_id),
	  F(vkfd_event_data, error_type), F(vkfd_event_data, not_present),
	  F(vkfd_event_data, read_only), F(vkfd_event_data, no_execute),
	  F(vkfd_event_data, imprecise), F(vkfd_event_data, reset_type),
	  F(vkfd_event_data, reset_cause), F(vkfd_event_data, memory_lost),
	  F(vkfd_event_data, pad)),
	S(vkfd_rsp_wait_events, F(vkfd_rsp_wait_events, hdr),
	  F(vkfd_rsp_wait_events, wait_result), F(vkfd_rsp_wait_events, num_events),
	  F(vkfd_rsp_wait_events, events)),
};
#define N_STRUCTS (sizeof(structs) / sizeof(structs[0]))

struct const_desc {
	const char *name;
	uint64_t value;
};
#define C(x) {#x, (uint64_t)(x)}
static const struct const_desc limits[] = {
	C(VKFD_MAX_REQ_SIZE),          C(VKFD_MAX_BATCH_SIZE),
	C(VKFD_NUM_RINGS),             C(VKFD_MAX_GPUS),
	C(VKFD_MAX_MAP_DEVICES),       C(VKFD_MAX_WAIT_EVENTS),
	C(VKFD_MAX_CU_MASK_BITS),      C(VKFD_MAX_TILE_CONFIGS),
	C(VKFD_MAX_MACRO_TILE_CONFIGS), C(VKFD_MAX_METADATA),
	C(VKFD_MAX_AMDGPU_QUERY),      C(VKFD_MAX_MMR_REGS),
	C(VKFD_TOPOLOGY_MAX_CHUNK),    C(VKFD_TOPOLOGY_MAX_SIZE),
	C(VKFD_TOPOLOGY_MAX_PATH),     C(VKFD_TOPOLOGY_MAX_FILE),
	C(VKFD_SIGNAL_EVENT_SLOTS),    C(VKFD_EVENT_ID_NONSIGNAL_BASE),
	C(VKFD_EVENT_HINT_MAX_LOCAL),  C(VKFD_SHMEM_SIZE),
	C(VKFD_SHMEM_EVENT_OFF),       C(VKFD_SHMEM_RSP_OFF),
	C(VKFD_RSP_AREA_SIZE),         C(VKFD_MAX_ARENAS),
	C(VKFD_MAX_ARENA_SIZE),        C(VKFD_MAX_USERPTR_PIECES),
};
#define N_LIMITS (sizeof(limits) / sizeof(limits[0]))

static const struct const_desc features[] = {
	C(VKFD_FEAT_EVENT_HINTS),     C(VKFD_FEAT_EVENT_AGES),   C(VKFD_FEAT_VRAM_EXPORT),
	C(VKFD_FEAT_IMPORT_RESOURCE), C(VKFD_FEAT_AMDGPU_QUERY), C(VKFD_FEAT_DOORBELL_RELAY),
	C(VKFD_FEAT_MULTI_CONTEXT),   C(VKFD_FEAT_SIM_DEVICE),   C(VKFD_FEAT_GUEST_HANDLES),
	C(VKFD_FEAT_ASYNC_ALLOC),     C(VKFD_FEAT_ASYNC_MAP),    C(VKFD_FEAT_ARENAS),
	C(VKFD_FEAT_USERPTR_PIECES),  C(VKFD_FEAT_STRICT_ALLOC),
};
#define N_FEATURES (sizeof(features) / sizeof(features[0]))
/* clang-format on */

/* ---- tiny markdown table reader ---- */

#define MAX_CELLS 8
#define CELL_LEN  160

/* Split "| a | b |" into trimmed cells with backticks removed. Returns the
 * number of cells, 0 if the line is not a table row. */
static int split_row(const char *line, char cells[MAX_CELLS][CELL_LEN])
{
	const char *p = line;
	int n = 0;

	while (*p == ' ')
		p++;
	if (*p != '|')
		return 0;
	p++;
	while (*p && *p != '\n' && n < MAX_CELLS) {
		const char *end = p;
		size_t len = 0;

		/* a "\|" inside a cell is not a separator */
		while (*end && *end != '\n' && !(*end == '|' && end[-1] != '\\'))
			end++;
		if (*end != '|')
			break;
		for (const char *q = p; q < end && len + 1 < CELL_LEN; q++)
			if (*q != '`')
				cells[n][len++] = *q;
		cells[n][len] = 0;
		/* trim */
		while (len && isspace((unsigned char)cells[n][len - 1]))
			cells[n][--len] = 0;
		size_t lead = 0;
		while (cells[n][lead] == ' ')
			lead++;
		memmove(cells[n], cells[n] + lead, len - lead + 1);
		n++;
		p = end + 1;
	}
	return n;
}

static bool parse_u64(const char *s, uint64_t *v)
{
	char *end;

	if (!*s || !isdigit((unsigned char)*s))
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno == 0 && *end == 0;
}

static const struct struct_desc *find_struct(const char *name)
{
	for (size_t i = 0; i < N_STRUCTS; i++)
		if (!strcmp(structs[i].name, name))
			return &structs[i];
	return NULL;
}

/* "u32", "u64[3]", "struct vkfd_req_hdr", "struct vkfd_aperture[16]" */
static bool type_size(const char *type, size_t *size)
{
	char base[CELL_LEN];
	uint64_t count = 1;
	const char *br = strchr(type, '[');
	size_t blen = br ? (size_t)(br - type) : strlen(type);

	if (blen >= sizeof(base))
		return false;
	memcpy(base, type, blen);
	base[blen] = 0;
	if (br) {
		char num[32];
		const char *close = strchr(br, ']');

		if (!close || close[1] || (size_t)(close - br - 1) >= sizeof(num))
			return false;
		memcpy(num, br + 1, (size_t)(close - br - 1));
		num[close - br - 1] = 0;
		if (!parse_u64(num, &count) || count == 0)
			return false;
	}
	if (!strcmp(base, "u8") || !strcmp(base, "char"))
		*size = 1;
	else if (!strcmp(base, "u32") || !strcmp(base, "s32"))
		*size = 4;
	else if (!strcmp(base, "u64"))
		*size = 8;
	else if (!strncmp(base, "struct ", 7)) {
		const struct struct_desc *sd = find_struct(base + 7);

		if (!sd)
			return false;
		*size = sd->size;
	} else
		return false;
	*size *= count;
	return true;
}

struct checker {
	int errors;
	char first[256];
	unsigned struct_seen[N_STRUCTS];
	unsigned field_seen[N_STRUCTS][32];
	unsigned cmd_seen[VKFD_CMD_COUNT_];
	unsigned limit_seen[N_LIMITS];
	unsigned feature_seen[N_FEATURES];
};

static void report(struct checker *ck, const char *fmt, ...)
{
	va_list ap;

	if (!ck->errors) {
		va_start(ap, fmt);
		vsnprintf(ck->first, sizeof(ck->first), fmt, ap);
		va_end(ap);
	}
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	ck->errors++;
}

/* Parse one Layout block starting at *pp; advances *pp past its table. */
static void check_layout(struct checker *ck, const char *head, const char **pp)
{
	char name[CELL_LEN];
	const char *p = head + strlen("Layout: `struct ");
	const char *tick = strchr(p, '`');
	unsigned long doc_size;
	const struct struct_desc *sd;
	size_t si, expect_off = 0;
	bool in_table = false;

	if (!tick || (size_t)(tick - p) >= sizeof(name)) {
		report(ck, "malformed Layout line");
		return;
	}
	memcpy(name, p, (size_t)(tick - p));
	name[tick - p] = 0;
	if (sscanf(tick, "`, %lu bytes", &doc_size) != 1) {
		report(ck, "%s: Layout line without size", name);
		return;
	}
	sd = find_struct(name);
	if (!sd) {
		report(ck, "doc documents unknown struct %s", name);
		return;
	}
	si = (size_t)(sd - structs);
	ck->struct_seen[si]++;
	if (doc_size != sd->size)
		report(ck, "%s: doc size %lu, sizeof %zu", name, doc_size, sd->size);

	/* table rows follow after at most a blank line */
	p = *pp;
	while (*p) {
		const char *eol = strchr(p, '\n');
		char line[512];
		char cells[MAX_CELLS][CELL_LEN];
		size_t ll = eol ? (size_t)(eol - p) : strlen(p);
		int n;

		if (ll >= sizeof(line))
			ll = sizeof(line) - 1;
		memcpy(line, p, ll);
		line[ll] = 0;
		n = split_row(line, cells);
		if (!n) {
			if (in_table || line[0])
				break;
			p = eol ? eol + 1 : p + ll;
			continue;
		}
		in_table = true;
		p = eol ? eol + 1 : p + ll;

		uint64_t off;
		size_t fsz;
		if (n < 3 || !parse_u64(cells[0], &off))
			continue; /* header or separator row */
		if (!type_size(cells[1], &fsz)) {
			report(ck, "%s.%s: unknown type '%s'", name, cells[2], cells[1]);
			continue;
		}
		const struct field_desc *fd = NULL;
		size_t fi;
		for (fi = 0; sd->fields[fi].name; fi++)
			if (!strcmp(sd->fields[fi].name, cells[2])) {
				fd = &sd->fields[fi];
				break;
			}
		if (!fd) {
			report(ck, "%s: doc field '%s' not in the header", name, cells[2]);
			continue;
		}
		ck->field_seen[si][fi]++;
		if (off != fd->offset)
			report(ck, "%s.%s: doc offset %llu, offsetof %zu", name, fd->name,
			       (unsigned long long)off, fd->offset);
		if (fsz != fd->size)
			report(ck, "%s.%s: doc size %zu, sizeof %zu", name, fd->name, fsz,
			       fd->size);
		if (off != expect_off)
			report(ck, "%s.%s: gap or overlap in the doc table at %llu (expected %zu)",
			       name, fd->name, (unsigned long long)off, expect_off);
		expect_off = off + fsz;
	}
	if (expect_off != sd->size)
		report(ck, "%s: doc table covers %zu of %zu bytes", name, expect_off, sd->size);
	*pp = p;
}

/* Command table columns 4 and 5: request and response struct names must
 * be the ones the codec sizes the command with. */
static void check_cmd_structs(struct checker *ck, uint32_t cmd, char cells[MAX_CELLS][CELL_LEN],
			      int n)
{
	const struct vkfd_cmd_info *ci = vkfd_cmd_info(cmd);
	const struct struct_desc *req, *rsp;
	char name[CELL_LEN];

	if (n < 5) {
		report(ck, "command %s: request/response columns missing", cells[1]);
		return;
	}
	req = find_struct(cells[3]);
	if (!req || req->size != ci->req_size)
		report(ck, "command %s: doc request %s, codec request size %u", cells[1], cells[3],
		       ci->req_size);
	/* "vkfd_rsp_x + data" names the fixed part */
	snprintf(name, sizeof(name), "%s", cells[4]);
	name[strcspn(name, " ")] = 0;
	if (!strcmp(name, "\xe2\x80\x94")) {
		if (ci->rsp_size)
			report(ck, "command %s: doc has no response, codec %u bytes", cells[1],
			       ci->rsp_size);
		return;
	}
	rsp = find_struct(name);
	if (!rsp || rsp->size != ci->rsp_size)
		report(ck, "command %s: doc response %s, codec response size %u", cells[1], name,
		       ci->rsp_size);
}

static void check_table_row(struct checker *ck, char cells[MAX_CELLS][CELL_LEN], int n)
{
	uint64_t v;

	if (n < 3)
		return;
	/* command table: | 0xID | NAME | sync/async | */
	if (!strncmp(cells[0], "0x", 2) && parse_u64(cells[0], &v) &&
	    (!strcmp(cells[2], "sync") || !strcmp(cells[2], "async"))) {
		bool sync = !strcmp(cells[2], "sync");

		if (!vkfd_cmd_is_known((uint32_t)v) || v >= VKFD_CMD_COUNT_) {
			report(ck, "doc command 0x%llx %s unknown to the codec",
			       (unsigned long long)v, cells[1]);
			return;
		}
		ck->cmd_seen[v]++;
		if (strcmp(vkfd_cmd_name((uint32_t)v), cells[1]))
			report(ck, "command 0x%llx: doc name %s, codec %s", (unsigned long long)v,
			       cells[1], vkfd_cmd_name((uint32_t)v));
		if (sync != vkfd_cmd_is_sync((uint32_t)v))
			report(ck, "command %s: doc says %s", cells[1], cells[2]);
		check_cmd_structs(ck, (uint32_t)v, cells, n);
		return;
	}
	/* limits table: | VKFD_X | value | */
	if (!strncmp(cells[0], "VKFD_", 5) && parse_u64(cells[1], &v)) {
		for (size_t i = 0; i < N_LIMITS; i++)
			if (!strcmp(limits[i].name, cells[0])) {
				ck->limit_seen[i]++;
				if (limits[i].value != v)
					report(ck, "%s: doc %llu, header %llu", cells[0],
					       (unsigned long long)v,
					       (unsigned long long)limits[i].value);
				return;
			}
		report(ck, "doc limit %s not in the header table", cells[0]);
		return;
	}
	/* feature table: | bit | VKFD_FEAT_X | */
	if (parse_u64(cells[0], &v) && !strncmp(cells[1], "VKFD_FEAT_", 10)) {
		for (size_t i = 0; i < N_FEATURES; i++)
			if (!strcmp(features[i].name, cells[1])) {
				ck->feature_seen[i]++;
				if (v >= 64 || features[i].value != (1ull << v))
					report(ck, "%s: doc bit %llu, header 0x%llx", cells[1],
					       (unsigned long long)v,
					       (unsigned long long)features[i].value);
				return;
			}
		report(ck, "doc feature %s not in the header", cells[1]);
	}
}

/* Check a whole document; returns the number of disagreements. */
static int check_doc(struct checker *ck, const char *doc)
{
	const char *p = doc;

	memset(ck, 0, sizeof(*ck));
	while (*p) {
		const char *eol = strchr(p, '\n');
		const char *next = eol ? eol + 1 : p + strlen(p);

		if (!strncmp(p, "Layout: `struct ", 16)) {
			check_layout(ck, p, &next);
		} else {
			char line[512];
			char cells[MAX_CELLS][CELL_LEN];
			size_t ll = (size_t)(next - p);
			int n;

			if (ll >= sizeof(line))
				ll = sizeof(line) - 1;
			memcpy(line, p, ll);
			line[ll] = 0;
			n = split_row(line, cells);
			if (n)
				check_table_row(ck, cells, n);
		}
		p = next;
	}

	/* the other direction: everything in the header is documented once */
	for (size_t i = 0; i < N_STRUCTS; i++) {
		if (ck->struct_seen[i] != 1) {
			report(ck, "struct %s documented %u times", structs[i].name,
			       ck->struct_seen[i]);
			continue;
		}
		for (size_t f = 0; structs[i].fields[f].name; f++)
			if (ck->field_seen[i][f] != 1)
				report(ck, "%s.%s documented %u times", structs[i].name,
				       structs[i].fields[f].name, ck->field_seen[i][f]);
	}
	for (uint32_t c = 1; c < VKFD_CMD_COUNT_; c++)
		if (vkfd_cmd_is_known(c) && ck->cmd_seen[c] != 1)
			report(ck, "command %s in the command table %u times", vkfd_cmd_name(c),
			       ck->cmd_seen[c]);
	for (size_t i = 0; i < N_LIMITS; i++)
		if (ck->limit_seen[i] != 1)
			report(ck, "limit %s documented %u times", limits[i].name,
			       ck->limit_seen[i]);
	for (size_t i = 0; i < N_FEATURES; i++)
		if (ck->feature_seen[i] != 1)
			report(ck, "feature %s documented %u times", features[i].name,
			       ck->feature_seen[i]);
	return ck->errors;
}

static char *doc_text;

static int load_doc(void **state)
{
	const char *root = getenv("VKFD_SOURCE_ROOT");
	char path[4096];
	FILE *f;
	long n;

	(void)state;
	if (!root) {
		fprintf(stderr, "VKFD_SOURCE_ROOT is not set\n");
		return -1;
	}
	snprintf(path, sizeof(path), "%s/docs/protocol.md", root);
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "cannot open %s\n", path);
		return -1;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	doc_text = calloc(1, (size_t)n + 1);
	if (!doc_text || fread(doc_text, 1, (size_t)n, f) != (size_t)n) {
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static int free_doc(void **state)
{
	(void)state;
	free(doc_text);
	return 0;
}

static void test_field_table_sane(void **state)
{
	(void)state;
	/* the test's own tables: fields in order and no struct with more
	 * fields than the checker tracks */
	for (size_t i = 0; i < N_STRUCTS; i++) {
		size_t f;

		for (f = 0; structs[i].fields[f].name; f++)
			if (f)
				assert_true(structs[i].fields[f].offset >
					    structs[i].fields[f - 1].offset);
		assert_true(f <= 32);
	}
}

static void test_doc_matches_header(void **state)
{
	struct checker *ck = calloc(1, sizeof(*ck));

	(void)state;
	assert_non_null(ck);
	if (check_doc(ck, doc_text))
		fail_msg("docs/protocol.md disagrees with the header (%d): %s", ck->errors,
			 ck->first);
	free(ck);
}

/* Replace the first occurrence of `from` with `to`; the checker must then
 * report at least one disagreement. */
static void expect_mutation_caught(const char *from, const char *to)
{
	const char *at = strstr(doc_text, from);
	size_t n = strlen(doc_text), fl = strlen(from), tl = strlen(to);
	char *m;
	struct checker *ck = calloc(1, sizeof(*ck));

	assert_non_null(ck);
	if (!at)
		fail_msg("mutation anchor not found: %s", from);
	m = malloc(n - fl + tl + 1);
	assert_non_null(m);
	memcpy(m, doc_text, (size_t)(at - doc_text));
	memcpy(m + (at - doc_text), to, tl);
	strcpy(m + (at - doc_text) + tl, at + fl);
	fprintf(stderr, "(expected disagreement follows)\n");
	assert_true(check_doc(ck, m) > 0);
	free(m);
	free(ck);
}

static void test_checker_catches_mutations(void **state)
{
	(void)state;
	/* wrong offset */
	expect_mutation_caught("| 16 | u64 | va | GPU VA (= guest CPU VA)",
			       "| 24 | u64 | va | GPU VA (= guest CPU VA)");
	/* wrong struct size */
	expect_mutation_caught("Layout: `struct vkfd_req_create_queue`, 96 bytes",
			       "Layout: `struct vkfd_req_create_queue`, 88 bytes");
	/* missing field */
	expect_mutation_caught("| 92 | u32 | sdma_engine_id |", "| 92 | u32 | renamed |");
	/* wrong type width */
	expect_mutation_caught("| 36 | u32 | flags | `KFD_IOC_ALLOC_MEM_FLAGS_*`",
			       "| 36 | u64 | flags | `KFD_IOC_ALLOC_MEM_FLAGS_*`");
	/* wrong limit value */
	expect_mutation_caught("| `VKFD_MAX_WAIT_EVENTS` | 64 |",
			       "| `VKFD_MAX_WAIT_EVENTS` | 63 |");
	/* wrong command id and wrong sync kind */
	expect_mutation_caught("| 0x11 | `FREE_MEMORY` | async |",
			       "| 0x11 | `FREE_MEMORY` | sync |");
	expect_mutation_caught("| 0x34 | `WAIT_EVENTS` |", "| 0x35 | `WAIT_EVENTS` |");
	/* wrong request or response struct for a command */
	expect_mutation_caught(
	    "| 0x21 | `DESTROY_QUEUE` | sync | `vkfd_req_handle` | `vkfd_rsp_empty` |",
	    "| 0x21 | `DESTROY_QUEUE` | sync | `vkfd_req_update_queue` | `vkfd_rsp_empty` |");
	expect_mutation_caught(
	    "| 0x11 | `FREE_MEMORY` | async | `vkfd_req_handle` | — |",
	    "| 0x11 | `FREE_MEMORY` | async | `vkfd_req_handle` | `vkfd_rsp_empty` |");
	/* wrong feature bit */
	expect_mutation_caught("| 3 | `VKFD_FEAT_IMPORT_RESOURCE` |",
			       "| 4 | `VKFD_FEAT_IMPORT_RESOURCE` |");
	/* a struct dropped from the doc */
	expect_mutation_caught("Layout: `struct vkfd_wait_event`, 16 bytes",
			       "Layout (removed): vkfd_wait_event");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_field_table_sane),
	    cmocka_unit_test(test_doc_matches_header),
	    cmocka_unit_test(test_checker_catches_mutations),
	};

	return cmocka_run_group_tests_name("vkfd_doc_agreement", tests, load_doc, free_doc);
}
