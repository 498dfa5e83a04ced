/* SPDX-License-Identifier: MIT */
/*
 * State of one guest connection, shared by guest_conn.c (connection,
 * capset, shmem, blobs) and guest_call.c (the request layer).
 */
#ifndef VKFD_GUEST_INTERNAL_H
#define VKFD_GUEST_INTERNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include <vkfd/guest.h>

#include "guest_transport.h"
#include "vkfd_codec.h"

/* Response area split: one slot for synchronous calls (serialised), the
 * rest in chunks for fenced waits (one pending wait per ring). */
#define GUEST_SYNC_SLOT_SIZE (64u * 1024u)
#define GUEST_WAIT_CHUNK     2048u
#define GUEST_WAIT_CHUNKS    64u
_Static_assert(GUEST_SYNC_SLOT_SIZE + GUEST_WAIT_CHUNK * GUEST_WAIT_CHUNKS <= VKFD_RSP_AREA_SIZE,
	       "response area layout");
/* Asynchronous requests are sent once this many bytes are queued... */
#define GUEST_ASYNC_FLUSH_BYTES (64u * 1024u)
/* ...or this long after the oldest was queued. */
#define GUEST_ASYNC_FLUSH_NS 1000000ull

struct vkfd_guest {
	struct guest_transport *t;
	struct vkfd_capset capset;
	size_t capset_size;
	uint32_t version;
	uint64_t features;

	struct vkfd_guest_blob shmem_blob;
	uint8_t *shmem;
	size_t shmem_size;
	uint64_t next_blob_id;

	/* Builder, submission order and the sticky error. */
	pthread_mutex_t lock;
	pthread_cond_t flush_cond;
	struct vkfd_builder b;
	uint8_t *batch;
	uint64_t first_pending_ns; /* 0: nothing queued */
	uint64_t n_submits;        /* transport submits (under lock; read atomically) */
	int err; /* sticky: connection unusable; written under lock (atomic store), read under lock
		    or atomically */
	pthread_t flusher;
	bool flusher_running;
	bool flusher_parked; /* in its untimed wait (g->lock) */
	bool stop;

	/* Atomic: a seqno known processed (first - 1 at start) and the last
	 * seqno queued; vkfd_seqno_processed() judges the header between them. */
	uint32_t seq_base, seq_issued;

	/* Owns the synchronous response slot. */
	pthread_mutex_t sync_lock;
	unsigned spin_ns;

	/* Wait rings and wait response chunks. */
	pthread_mutex_t ring_lock;
	pthread_cond_t ring_cond;
	uint64_t ring_busy;  /* bit r: ring r taken; bit 0 is ring 0 */
	uint64_t chunk_busy; /* bit c: chunk c taken */
};

/* guest_call.c */
int guest_calls_init(struct vkfd_guest *g);
void guest_calls_fini(struct vkfd_guest *g);
int guest_hello(struct vkfd_guest *g);
uint64_t guest_now_ns(void);

#endif
