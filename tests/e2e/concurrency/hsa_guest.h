/* SPDX-License-Identifier: MIT */
/*
 * A small ROCr (HSA) client for the concurrency and fork e2e programs: one
 * GPU agent, its pools and one AQL queue, a FILL_U32 builtin dispatch and
 * SDMA copies, each verified. Kernels are kfdsim builtins (descriptor
 * "KFDSIM01" + u32 builtin number, see DESIGN.md).
 */
#ifndef VKFD_TESTS_HSA_GUEST_H
#define VKFD_TESTS_HSA_GUEST_H

#include <hsa/hsa.h>
#include <hsa/hsa_ext_amd.h>
#include <stdbool.h>
#include <stdint.h>

struct hsa_guest {
	hsa_agent_t cpu, gpu;
	hsa_amd_memory_pool_t dev_pool, sys_pool, karg_pool;
	hsa_queue_t *queue;
	char gpu_name[64];
	/* device buffer, two host buffers of HG_WORDS u32 each */
	uint32_t *dev, *host_a, *host_b;
};

#define HG_WORDS 1024

/* hsa_init, agents, pools, queue and buffers. 0 or -1 (reason printed). */
int hg_setup(struct hsa_guest *g, const char *who);

/* Copies a pattern seeded by seed host->device->host and checks it, then
 * fills the device buffer with FILL_U32(value) and checks the copy back.
 * true when every word is right. */
bool hg_round(struct hsa_guest *g, const char *who, uint32_t seed);

/* Frees everything hg_setup made and calls hsa_shut_down. 0 or -1. */
int hg_teardown(struct hsa_guest *g, const char *who);

#endif
