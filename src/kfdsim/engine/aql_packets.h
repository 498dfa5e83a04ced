/* SPDX-License-Identifier: MIT */
/*
 * HSA AQL packet and AMD signal layouts as the packet processor sees them
 * in memory (HSA Platform System Architecture spec; AMD's amd_signal_t).
 * Defined here so the library does not depend on ROCm headers; the tests
 * cross-check the offsets against the system headers when installed.
 */
#ifndef KFDSIM_AQL_PACKETS_H
#define KFDSIM_AQL_PACKETS_H

#include <stddef.h>
#include <stdint.h>

#define AQL_PACKET_SIZE 64u

/* Packet header bits 0..7: type; bit 8: barrier; 9..10 / 11..12: fences. */
#define AQL_HEADER_TYPE_MASK 0xffu
#define AQL_HEADER_BARRIER   (1u << 8)

enum aql_packet_type {
	AQL_TYPE_VENDOR_SPECIFIC = 0,
	AQL_TYPE_INVALID = 1,
	AQL_TYPE_KERNEL_DISPATCH = 2,
	AQL_TYPE_BARRIER_AND = 3,
	AQL_TYPE_AGENT_DISPATCH = 4,
	AQL_TYPE_BARRIER_OR = 5,
};

/* AMD vendor-specific format byte (offset 2) */
#define AQL_AMD_FORMAT_PM4_IB        1
#define AQL_AMD_FORMAT_BARRIER_VALUE 2

/* hsa_signal_condition_t */
enum aql_signal_condition {
	AQL_COND_EQ = 0,
	AQL_COND_NE = 1,
	AQL_COND_LT = 2,
	AQL_COND_GTE = 3,
};

struct aql_dispatch_packet {
	uint16_t header;
	uint16_t setup;
	uint16_t workgroup_size[3];
	uint16_t reserved0;
	uint32_t grid_size[3];
	uint32_t private_segment_size;
	uint32_t group_segment_size;
	uint64_t kernel_object;
	uint64_t kernarg_address;
	uint64_t reserved2;
	uint64_t completion_signal;
};

/* Barrier-AND and barrier-OR share this layout. */
struct aql_barrier_packet {
	uint16_t header;
	uint16_t reserved0;
	uint32_t reserved1;
	uint64_t dep_signal[5];
	uint64_t reserved2;
	uint64_t completion_signal;
};

struct aql_amd_barrier_value_packet {
	uint16_t header;
	uint8_t amd_format;
	uint8_t reserved;
	uint32_t reserved0;
	uint64_t signal;
	int64_t value;
	int64_t mask;
	uint32_t cond;
	uint32_t reserved1;
	uint64_t reserved2;
	uint64_t reserved3;
	uint64_t completion_signal;
};

/* AMD PM4-IB packet: a PM4 INDIRECT_BUFFER command the CP executes
 * (ROCr 5.2.3's AqlQueue::ExecutePM4 on gfx9+). */
struct aql_amd_pm4_ib_packet {
	uint16_t header;
	uint8_t amd_format;
	uint8_t reserved;
	uint32_t ib_jump_cmd[4];
	uint32_t dw_cnt_remain;
	uint32_t reserved1[8];
	uint64_t completion_signal;
};

/* amd_signal_t: a signal handle is the address of one of these. */
struct aql_amd_signal {
	int64_t kind;
	int64_t value;
	uint64_t event_mailbox_ptr;
	uint32_t event_id;
	uint32_t reserved1;
	uint64_t start_ts;
	uint64_t end_ts;
	uint64_t queue_ptr;
	uint32_t reserved3[2];
};

_Static_assert(sizeof(struct aql_dispatch_packet) == AQL_PACKET_SIZE, "dispatch packet");
_Static_assert(offsetof(struct aql_dispatch_packet, grid_size) == 12, "grid");
_Static_assert(offsetof(struct aql_dispatch_packet, kernel_object) == 32, "kernel_object");
_Static_assert(offsetof(struct aql_dispatch_packet, kernarg_address) == 40, "kernarg");
_Static_assert(offsetof(struct aql_dispatch_packet, completion_signal) == 56, "signal");
_Static_assert(sizeof(struct aql_barrier_packet) == AQL_PACKET_SIZE, "barrier packet");
_Static_assert(offsetof(struct aql_barrier_packet, dep_signal) == 8, "dep_signal");
_Static_assert(offsetof(struct aql_barrier_packet, completion_signal) == 56, "signal");
_Static_assert(sizeof(struct aql_amd_barrier_value_packet) == AQL_PACKET_SIZE, "bv packet");
_Static_assert(offsetof(struct aql_amd_barrier_value_packet, signal) == 8, "bv signal");
_Static_assert(offsetof(struct aql_amd_barrier_value_packet, cond) == 32, "bv cond");
_Static_assert(offsetof(struct aql_amd_barrier_value_packet, completion_signal) == 56, "signal");
_Static_assert(sizeof(struct aql_amd_pm4_ib_packet) == AQL_PACKET_SIZE, "pm4 ib packet");
_Static_assert(offsetof(struct aql_amd_pm4_ib_packet, ib_jump_cmd) == 4, "pm4 ib jump");
_Static_assert(offsetof(struct aql_amd_pm4_ib_packet, completion_signal) == 56, "signal");
_Static_assert(sizeof(struct aql_amd_signal) == 64, "amd_signal_t");
_Static_assert(offsetof(struct aql_amd_signal, value) == 8, "value");
_Static_assert(offsetof(struct aql_amd_signal, event_mailbox_ptr) == 16, "mailbox");
_Static_assert(offsetof(struct aql_amd_signal, event_id) == 24, "event_id");
_Static_assert(offsetof(struct aql_amd_signal, start_ts) == 32, "start_ts");
_Static_assert(offsetof(struct aql_amd_signal, end_ts) == 40, "end_ts");

/* Builtin kernel descriptor: 64 bytes at kernel_object. */
#define KFDSIM_KERNEL_MAGIC     "KFDSIM01"
#define KFDSIM_KERNEL_MAGIC_LEN 8
#define KFDSIM_KERNEL_DESC_SIZE 64
#define KFDSIM_KERNEL_ID_OFFSET 8

enum kfdsim_builtin {
	KFDSIM_BUILTIN_FILL_U32 = 1,
	KFDSIM_BUILTIN_COPY = 2,
	KFDSIM_BUILTIN_VADD_F32 = 3,
	KFDSIM_BUILTIN_SLEEP = 4,
	KFDSIM_BUILTIN_FAULT = 5,
};

#endif
