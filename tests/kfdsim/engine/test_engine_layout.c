/* SPDX-License-Identifier: MIT */
/*
 * The engine's own AQL packet and amd_signal_t layouts against the
 * installed ROCm headers (skipped when they are not installed).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "aql_packets.h"

#if HAVE_HSA_HEADERS
#include <hsa/amd_hsa_queue.h>
#include <hsa/amd_hsa_signal.h>
#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>

#define SAME(ours, theirs, field_o, field_t)                                                       \
	assert_int_equal(offsetof(ours, field_o), offsetof(theirs, field_t))

static void test_layouts(void **state)
{
	(void)state;
	assert_int_equal(sizeof(struct aql_dispatch_packet), sizeof(hsa_kernel_dispatch_packet_t));
	SAME(struct aql_dispatch_packet, hsa_kernel_dispatch_packet_t, setup, setup);
	SAME(struct aql_dispatch_packet, hsa_kernel_dispatch_packet_t, grid_size, grid_size_x);
	SAME(struct aql_dispatch_packet, hsa_kernel_dispatch_packet_t, private_segment_size,
	     private_segment_size);
	SAME(struct aql_dispatch_packet, hsa_kernel_dispatch_packet_t, kernel_object,
	     kernel_object);
	SAME(struct aql_dispatch_packet, hsa_kernel_dispatch_packet_t, kernarg_address,
	     kernarg_address);
	SAME(struct aql_dispatch_packet, hsa_kernel_dispatch_packet_t, completion_signal,
	     completion_signal);

	assert_int_equal(sizeof(struct aql_barrier_packet), sizeof(hsa_barrier_and_packet_t));
	SAME(struct aql_barrier_packet, hsa_barrier_and_packet_t, dep_signal, dep_signal);
	SAME(struct aql_barrier_packet, hsa_barrier_and_packet_t, completion_signal,
	     completion_signal);
	SAME(struct aql_barrier_packet, hsa_barrier_or_packet_t, dep_signal, dep_signal);
	SAME(struct aql_barrier_packet, hsa_barrier_or_packet_t, completion_signal,
	     completion_signal);

	assert_int_equal(sizeof(struct aql_amd_barrier_value_packet),
			 sizeof(hsa_amd_barrier_value_packet_t));
	SAME(struct aql_amd_barrier_value_packet, hsa_amd_barrier_value_packet_t, amd_format,
	     header.AmdFormat);
	SAME(struct aql_amd_barrier_value_packet, hsa_amd_barrier_value_packet_t, signal, signal);
	SAME(struct aql_amd_barrier_value_packet, hsa_amd_barrier_value_packet_t, value, value);
	SAME(struct aql_amd_barrier_value_packet, hsa_amd_barrier_value_packet_t, mask, mask);
	SAME(struct aql_amd_barrier_value_packet, hsa_amd_barrier_value_packet_t, cond, cond);
	SAME(struct aql_amd_barrier_value_packet, hsa_amd_barrier_value_packet_t, completion_signal,
	     completion_signal);

	assert_int_equal(sizeof(struct aql_amd_signal), sizeof(amd_signal_t));
	SAME(struct aql_amd_signal, amd_signal_t, value, value);
	SAME(struct aql_amd_signal, amd_signal_t, event_mailbox_ptr, event_mailbox_ptr);
	SAME(struct aql_amd_signal, amd_signal_t, event_id, event_id);
	SAME(struct aql_amd_signal, amd_signal_t, start_ts, start_ts);
	SAME(struct aql_amd_signal, amd_signal_t, end_ts, end_ts);

	assert_int_equal(AQL_TYPE_VENDOR_SPECIFIC, HSA_PACKET_TYPE_VENDOR_SPECIFIC);
	assert_int_equal(AQL_TYPE_INVALID, HSA_PACKET_TYPE_INVALID);
	assert_int_equal(AQL_TYPE_KERNEL_DISPATCH, HSA_PACKET_TYPE_KERNEL_DISPATCH);
	assert_int_equal(AQL_TYPE_BARRIER_AND, HSA_PACKET_TYPE_BARRIER_AND);
	assert_int_equal(AQL_TYPE_AGENT_DISPATCH, HSA_PACKET_TYPE_AGENT_DISPATCH);
	assert_int_equal(AQL_TYPE_BARRIER_OR, HSA_PACKET_TYPE_BARRIER_OR);
	assert_int_equal(AQL_HEADER_BARRIER, 1u << HSA_PACKET_HEADER_BARRIER);
	assert_int_equal(AQL_AMD_FORMAT_BARRIER_VALUE, HSA_AMD_PACKET_TYPE_BARRIER_VALUE);
	assert_int_equal(AQL_COND_EQ, HSA_SIGNAL_CONDITION_EQ);
	assert_int_equal(AQL_COND_NE, HSA_SIGNAL_CONDITION_NE);
	assert_int_equal(AQL_COND_LT, HSA_SIGNAL_CONDITION_LT);
	assert_int_equal(AQL_COND_GTE, HSA_SIGNAL_CONDITION_GTE);
}
#else
static void test_layouts(void **state)
{
	(void)state;
	skip();
}
#endif

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_layouts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
