/* SPDX-License-Identifier: MIT */
/*
 * One vtest client served by one worker process: the worker owns the host
 * library (one KFD process per guest) and the client's context, and exits
 * when the client goes away.
 */
#ifndef VKFD_VTEST_WORKER_H
#define VKFD_VTEST_WORKER_H

#include <stdint.h>

#include <vkfd/host.h>

#include "vtest_share.h"

/* Largest vtest message payload accepted from a client. */
#define VTEST_MAX_MSG_BYTES (8u << 20)
/* Largest blob a client may create. */
#define VTEST_MAX_BLOB_BYTES (1ull << 40)
/* Resources one client may hold. */
#define VTEST_MAX_RESOURCES 65536
/* Batches with syncs waiting for their fence, per client. */
#define VTEST_MAX_PENDING 65536

struct vtest_worker_opts {
	enum vkfd_host_device device;
	/* the server's share table; NULL: no sharing (shareable blobs are
	 * exported but never importable, RESOURCE_IMPORT_FD refuses) */
	struct vtest_share *share;
};

/* Serve the client on `sock` until it disconnects or breaks the protocol.
 * Closes sock. Returns 0 for a normal end, 1 for a protocol violation or
 * a host failure. */
int vtest_worker_run(int sock, const struct vtest_worker_opts *opts);

#endif
