/* SPDX-License-Identifier: MIT */
/*
 * The subset of virglrenderer's vtest socket protocol (version 3) that
 * vkfd-server speaks and the guest library's vtest transport uses. Every
 * message is a header of two little-endian u32 (payload length in dwords,
 * command id) followed by the payload. File descriptors travel in a
 * separate one-byte message carrying SCM_RIGHTS, right after the reply.
 */
#ifndef VKFD_VTEST_WIRE_H
#define VKFD_VTEST_WIRE_H

#include <stdint.h>

#define VTW_PROTOCOL_VERSION 3

#define VTW_HDR_DWORDS 2
#define VTW_HDR_LEN    0
#define VTW_HDR_CMD    1

enum vtw_cmd {
	VTW_CMD_GET_CAPS = 1,
	VTW_CMD_RESOURCE_CREATE = 2,
	VTW_CMD_RESOURCE_UNREF = 3,
	VTW_CMD_TRANSFER_GET = 4,
	VTW_CMD_TRANSFER_PUT = 5,
	VTW_CMD_SUBMIT_CMD = 6,
	VTW_CMD_RESOURCE_BUSY_WAIT = 7,
	/* First message; its length field counts BYTES of the name. */
	VTW_CMD_CREATE_RENDERER = 8,
	VTW_CMD_GET_CAPS2 = 9,
	VTW_CMD_PING_PROTOCOL_VERSION = 10,
	VTW_CMD_PROTOCOL_VERSION = 11,
	VTW_CMD_RESOURCE_CREATE2 = 12,
	VTW_CMD_TRANSFER_GET2 = 13,
	VTW_CMD_TRANSFER_PUT2 = 14,
	VTW_CMD_GET_PARAM = 15,
	VTW_CMD_GET_CAPSET = 16,
	VTW_CMD_CONTEXT_INIT = 17,
	VTW_CMD_RESOURCE_CREATE_BLOB = 18,
	VTW_CMD_SYNC_CREATE = 19,
	VTW_CMD_SYNC_UNREF = 20,
	VTW_CMD_SYNC_READ = 21,
	VTW_CMD_SYNC_WRITE = 22,
	VTW_CMD_SYNC_WAIT = 23,
	VTW_CMD_SUBMIT_CMD2 = 24,
	/* vkfd-server's own, outside virglrenderer's range: an fd another
	 * client of the same server exported as a shareable blob becomes a
	 * resource of this client (docs/server.md, "Shared resources") */
	VTW_CMD_RESOURCE_IMPORT_FD = 4096,
};

/* GET_PARAM {param} -> {valid, value} */
enum vtw_param {
	VTW_PARAM_MAX_TIMELINE_COUNT = 1,
	/* vkfd-server's own: {1, 1} when RESOURCE_IMPORT_FD is served, so
	 * that a client never sends it to a server that would end the
	 * connection over an unknown command */
	VTW_PARAM_VKFD_IMPORT_FD = 4096,
};
#define VTW_MAX_TIMELINE_COUNT 64

/* GET_CAPSET {id, version} -> {valid, capset...}
 * CONTEXT_INIT {capset_id} -> no reply */

/* RESOURCE_CREATE_BLOB {type, flags, size_lo, size_hi, id_lo, id_hi}
 * -> {res_id} + fd */
enum vtw_blob_type {
	VTW_BLOB_TYPE_GUEST = 1,
	VTW_BLOB_TYPE_HOST3D = 2,
	VTW_BLOB_TYPE_HOST3D_GUEST = 3,
};
#define VTW_BLOB_FLAG_MAPPABLE     (1u << 0)
#define VTW_BLOB_FLAG_SHAREABLE    (1u << 1)
#define VTW_BLOB_FLAG_CROSS_DEVICE (1u << 2)
#define VTW_CREATE_BLOB_DWORDS     6
/* RESOURCE_IMPORT_FD reply: res_id (0: refused), size lo, size hi */
#define VTW_IMPORT_FD_REPLY_DWORDS 3

/* RESOURCE_UNREF {res_id} -> no reply */
/* SYNC_CREATE {value_lo, value_hi} -> {sync_id} */
/* SYNC_UNREF {id} -> no reply */
/* SYNC_READ {id} -> {value_lo, value_hi} */
/* SYNC_WRITE {id, value_lo, value_hi} -> no reply */
/* SYNC_WAIT {flags, timeout_ms, n x (id, value_lo, value_hi)}
 * -> {} + eventfd readable once satisfied */
#define VTW_SYNC_WAIT_FLAG_ANY (1u << 0)

/* SUBMIT_CMD2 {batch_count, batch_count x 8-dword batch, data...}
 * Offsets and sizes are in dwords from the start of the payload; a batch's
 * syncs are triples (id, value_lo, value_hi) signalled when the batch's
 * fence retires. No reply. */
#define VTW_SUBMIT_FLAG_RING_IDX (1u << 0)
#define VTW_BATCH_DWORDS         8
enum vtw_batch_field {
	VTW_BATCH_FLAGS = 0,
	VTW_BATCH_CMD_OFFSET = 1,
	VTW_BATCH_CMD_SIZE = 2,
	VTW_BATCH_SYNC_OFFSET = 3,
	VTW_BATCH_SYNC_COUNT = 4,
	VTW_BATCH_RING_IDX = 5,
	VTW_BATCH_NUM_IN_SYNCOBJ = 6,  /* unsupported: must be 0 */
	VTW_BATCH_NUM_OUT_SYNCOBJ = 7, /* unsupported: must be 0 */
};

#endif
