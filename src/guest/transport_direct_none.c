// SPDX-License-Identifier: MIT
/*
 * The direct transport as libvkfd-guest has it: absent. A guest library
 * never carries the host; the in-process transport lives in
 * src/direct/transport_direct.c, linked only into the tests and vkfd-bench
 * (libvkfd-guest-direct, not installed).
 */
#include "guest_log.h"
#include "guest_transport.h"

#include <errno.h>
#include <stddef.h>

struct guest_transport *gt_direct_open(void)
{
	guest_log(GUEST_LOG_ERROR, "the direct transport (host in process) is only in the "
				   "test build's libvkfd-guest-direct");
	errno = ENOTSUP;
	return NULL;
}
