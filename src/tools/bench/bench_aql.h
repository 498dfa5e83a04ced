/* SPDX-License-Identifier: MIT */
/*
 * What the AQL scenarios (dispatch, isa) write as ROCr would: the HSA
 * kernel dispatch packet, its header bits and the queue layout they share.
 */
#ifndef VKFD_BENCH_AQL_H
#define VKFD_BENCH_AQL_H

#include <stddef.h>
#include <stdint.h>

#define RING_BYTES   4096u
#define RING_PACKETS (RING_BYTES / 64u)
#define WPTR_OFF     0x38u /* amd_queue_t write_dispatch_id */
#define RPTR_OFF     0x80u /* amd_queue_t read_dispatch_id */

/* HSA AQL packet header: type in bits 0..7, barrier bit 8, acquire fence
 * scope bits 9..10, release fence scope bits 11..12 (2 = system). */
#define PKT_TYPE_INVALID         1u
#define PKT_TYPE_KERNEL_DISPATCH 2u
#define PKT_BARRIER              (1u << 8)
#define PKT_SCOPE_SYSTEM_ACQ     (2u << 9)
#define PKT_SCOPE_SYSTEM_REL     (2u << 11)

/* hsa_kernel_dispatch_packet_t, from the HSA specification. */
struct dispatch_packet {
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
_Static_assert(sizeof(struct dispatch_packet) == 64, "AQL packet");
_Static_assert(offsetof(struct dispatch_packet, completion_signal) == 56, "signal");

#endif
