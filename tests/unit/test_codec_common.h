/* SPDX-License-Identifier: MIT */
/*
 * What the codec tests (test_codec_*.c) share: the batch buffer size and a
 * scratch area as large as the largest request.
 */
#ifndef VKFD_TEST_CODEC_COMMON_H
#define VKFD_TEST_CODEC_COMMON_H

#include <stdint.h>

#include "vkfd/host.h"
#include "vkfd_codec.h"

#define BATCH_BYTES (VKFD_MAX_BATCH_SIZE + 4096)

/* Largest request struct of the protocol, as a scratch area. */
union any_req {
	struct vkfd_req_hdr hdr;
	struct vkfd_req_wait_events wait;
	uint8_t bytes[VKFD_MAX_REQ_SIZE];
};

#endif
