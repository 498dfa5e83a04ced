// SPDX-License-Identifier: MIT
/*
 * The request layer: batches requests with the codec's builder, sends them
 * through the transport, and collects responses from the shared memory.
 *
 * A synchronous call is one submit (queued asynchronous requests + the
 * call); the caller spins briefly on the shmem's processed seqno and only
 * when that times out submits a ring-0 fence (with whatever was queued
 * meanwhile, possibly nothing), sleeps on it, then re-checks (a fence-only
 * wait costs 10 ms per call under QEMU's fence poll timer). A fence per
 * call would cost the host a fence retirement and the transport a sync
 * object or fence fd per call that the spin almost always makes useless.
 * Blocking waits go on their own ring so they never hold up other calls,
 * and spin on their reply slot before they submit that ring's fence, so a
 * wait the host answers at once costs no fence either.
 */
#include "guest_internal.h"
#include "guest_log.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_SPIN_NS    100000u
#define WAIT_BUSY_RETRIES  1000u
#define WAIT_BUSY_SLEEP_US 1000u
/* A wait for a fence sleeps at most this long before it looks whether the
 * host is still there (docs/guest.md, "A lost host"). */
#define LIVENESS_SLICE_MS 250

uint64_t guest_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static const struct vkfd_shmem_hdr *shm_hdr(const struct vkfd_guest *g)
{
	return (const struct vkfd_shmem_hdr *)g->shmem;
}

static uint32_t processed(const struct vkfd_guest *g)
{
	return vkfd_load_acquire_u32(&shm_hdr(g)->seqno);
}

/* Wrap-safe for any first seqno (the header reads 0 before the first).
 * base is read before issued, with acquire, so issued is never older than
 * the base it is measured from. */
static bool seqno_done(struct vkfd_guest *g, uint32_t seqno)
{
	uint32_t base = __atomic_load_n(&g->seq_base, __ATOMIC_ACQUIRE);
	uint32_t issued = __atomic_load_n(&g->seq_issued, __ATOMIC_ACQUIRE);

	return vkfd_seqno_processed(processed(g), seqno, base, issued);
}

/* Caller holds g->lock. The host is gone or lost the context: every later
 * call and every waiting thread returns err (-EIO, or -EPIPE for a closed
 * connection), as calls on a dead GPU fail. Returns the sticky error.
 * Lock order: g->lock, then ring_lock (no path takes g->lock while it
 * holds ring_lock). */
static int set_lost_locked(struct vkfd_guest *g, int err)
{
	if (!g->err) {
		guest_log(GUEST_LOG_ERROR, "host context lost: %s", strerror(-err));
		/* atomic: waiters read it under ring_lock or no lock at all */
		__atomic_store_n(&g->err, err, __ATOMIC_RELEASE);
	}
	/* threads waiting for a free ring look at g->err */
	pthread_mutex_lock(&g->ring_lock);
	pthread_cond_broadcast(&g->ring_cond);
	pthread_mutex_unlock(&g->ring_lock);
	return g->err;
}

static int mark_lost(struct vkfd_guest *g, int err)
{
	pthread_mutex_lock(&g->lock);
	err = set_lost_locked(g, err);
	pthread_mutex_unlock(&g->lock);
	return err;
}

/* 0 while the host may still answer, else the error to return. */
static int host_liveness(struct vkfd_guest *g)
{
	int err = __atomic_load_n(&g->err, __ATOMIC_ACQUIRE);

	if (err)
		return err;
	if (vkfd_load_acquire_u32(&shm_hdr(g)->async_error))
		return mark_lost(g, -EIO);
	return 0;
}

/* Sleep until `ring` retired `fence`, in slices: between them, a loss that
 * another thread saw, the host's async error word, or (in the transport's
 * wait) a closed connection ends the wait. A broken connection is a loss;
 * another error (a bad argument) is only this call's. */
static int wait_fence(struct vkfd_guest *g, uint32_t ring, uint64_t fence)
{
	for (;;) {
		int r = g->t->ops->wait(g->t, ring, fence, LIVENESS_SLICE_MS);

		if (r == 0)
			return 0;
		if (r == -EPIPE || r == -EIO || r == -ECONNRESET || r == -ENODEV)
			return mark_lost(g, r == -EPIPE ? -EPIPE : -EIO);
		if (r != -ETIMEDOUT)
			return r;
		r = host_liveness(g);
		if (r)
			return r;
	}
}

/* A private, aligned copy of a caller's request. */
union req_buf {
	struct vkfd_req_hdr hdr;
	struct vkfd_req_wait_events wait;
	uint64_t align;
	uint8_t bytes[VKFD_MAX_REQ_SIZE];
};

/* Caller holds g->lock. Sends what is queued (plus nothing else). */
static int flush_locked(struct vkfd_guest *g, uint32_t ring, uint64_t *fence)
{
	int r;

	if (g->err) {
		/* a lost context drops what is queued, so that the flusher
		 * does not find it due again and again */
		vkfd_builder_reset(&g->b);
		g->first_pending_ns = 0;
		return g->err;
	}
	if (!g->b.count && !fence)
		return 0;
	r = g->t->ops->submit(g->t, g->batch, g->b.len, ring, fence);
	__atomic_store_n(&g->n_submits, g->n_submits + 1, __ATOMIC_RELAXED);
	vkfd_builder_reset(&g->b);
	g->first_pending_ns = 0;
	if (r) {
		/* Queued requests are lost: the connection cannot be trusted. */
		guest_log(GUEST_LOG_ERROR, "submit failed: %s", strerror(-r));
		return set_lost_locked(g, r == -EPIPE ? -EPIPE : -EIO);
	}
	return 0;
}

/* Caller holds g->lock. Appends, flushing first if the batch is full. */
static int add_locked(struct vkfd_guest *g, union req_buf *req, uint32_t len, uint32_t rsp_off,
		      uint32_t *seqno)
{
	uint32_t cmd = req->hdr.cmd;
	int r;

	if (g->err)
		return g->err;
	r = vkfd_builder_add(&g->b, cmd, req, len, rsp_off, seqno);
	if (r == -ENOSPC) {
		r = flush_locked(g, 0, NULL);
		if (r)
			return r;
		r = vkfd_builder_add(&g->b, cmd, req, len, rsp_off, seqno);
	}
	if (!r)
		__atomic_store_n(&g->seq_issued, g->b.seqno - 1, __ATOMIC_RELEASE);
	return r;
}

static int take_req(const void *req, size_t len, union req_buf *buf)
{
	if (!req || len < sizeof(struct vkfd_req_hdr))
		return -EINVAL;
	if (len > VKFD_MAX_REQ_SIZE)
		return -EMSGSIZE;
	/* Only the request's own bytes are read afterwards (the codec pads to
	 * 8 and the host zero-extends): clearing all 4 KiB per request was
	 * most of an asynchronous call's cost in vkfd-bench. */
	memcpy(buf->bytes, req, len);
	memset(buf->bytes + len, 0, ((len + 7) & ~(size_t)7) - len);
	if (buf->hdr.cmd == 0)
		return -EINVAL;
	return 0;
}

static const struct vkfd_rsp_hdr *slot(const struct vkfd_guest *g, uint32_t rsp_off)
{
	return (const struct vkfd_rsp_hdr *)(g->shmem + VKFD_SHMEM_RSP_OFF + rsp_off);
}

/* Copy the response for `seqno` out of its slot (slot_size bytes). */
static int copy_rsp(struct vkfd_guest *g, uint32_t rsp_off, uint32_t slot_size, uint32_t seqno,
		    void *rsp, size_t rsp_len)
{
	const struct vkfd_rsp_hdr *h = slot(g, rsp_off);

	if (vkfd_load_acquire_u32(&h->seqno) != seqno) {
		uint32_t e = vkfd_load_acquire_u32(&shm_hdr(g)->async_error);

		guest_log(GUEST_LOG_WARN, "no response for seqno %u (async error %u)", seqno, e);
		return -EIO;
	}
	uint32_t n = h->len;

	if (n > slot_size)
		n = slot_size;
	if (n > rsp_len)
		n = (uint32_t)rsp_len;
	if (rsp) {
		memcpy(rsp, h, n);
		memset((uint8_t *)rsp + n, 0, rsp_len - n);
	}
	return 0;
}

/* Did the reply for seqno reach its slot within the spin budget? */
static bool reply_within_spin(struct vkfd_guest *g, uint32_t rsp_off, uint32_t seqno)
{
	uint64_t start = guest_now_ns();

	for (;;) {
		if (vkfd_load_acquire_u32(&slot(g, rsp_off)->seqno) == seqno)
			return true;
		if (__atomic_load_n(&g->err, __ATOMIC_ACQUIRE) ||
		    guest_now_ns() - start >= g->spin_ns)
			return false;
		sched_yield();
	}
}

static int wait_processed(struct vkfd_guest *g, uint32_t seqno)
{
	uint64_t start = guest_now_ns(), fence = 0;
	int r;

	while (!seqno_done(g, seqno)) {
		if (guest_now_ns() - start >= g->spin_ns) {
			/* ring 0 retires once every earlier submit ran */
			pthread_mutex_lock(&g->lock);
			r = flush_locked(g, 0, &fence);
			pthread_mutex_unlock(&g->lock);
			if (!r)
				r = wait_fence(g, 0, fence);
			if (r)
				return r;
			break;
		}
		sched_yield();
	}
	if (seqno_done(g, seqno)) {
		/* later judgements measure from here (base stays <= header) */
		__atomic_store_n(&g->seq_base, seqno, __ATOMIC_RELEASE);
		return 0;
	}
	/* Ring 0 retired but our request was not processed: the host
	 * dropped the batch (protocol error, context lost, or its worker
	 * died and the VMM retired the fences of the dead context). */
	return mark_lost(g, -EIO);
}

int vkfd_guest_call(struct vkfd_guest *g, const void *req, size_t req_len, void *rsp,
		    size_t rsp_len)
{
	union req_buf buf;
	uint32_t seqno, need;
	int r;

	if (!g || (rsp_len && !rsp))
		return -EINVAL;
	r = take_req(req, req_len, &buf);
	if (r)
		return r;
	need = vkfd_rsp_size(buf.hdr.cmd, buf.bytes, req_len);
	if (need > GUEST_SYNC_SLOT_SIZE || rsp_len > GUEST_SYNC_SLOT_SIZE)
		return -EMSGSIZE;

	pthread_mutex_lock(&g->sync_lock);
	pthread_mutex_lock(&g->lock);
	r = add_locked(g, &buf, (uint32_t)req_len, 0, &seqno);
	if (!r)
		r = flush_locked(g, 0, NULL);
	pthread_mutex_unlock(&g->lock);
	if (!r)
		r = wait_processed(g, seqno);
	if (!r)
		r = copy_rsp(g, 0, GUEST_SYNC_SLOT_SIZE, seqno, rsp, rsp_len);
	pthread_mutex_unlock(&g->sync_lock);
	return r;
}

/*
 * The batch now holds a request that must leave within
 * GUEST_ASYNC_FLUSH_NS. The flusher is woken only from its untimed sleep:
 * a flusher in a timed sleep wakes at the due time of an earlier batch,
 * which is never later than this one's, and re-reads first_pending_ns then.
 * Signalling it every time (a futex wake and a thread switch per batch,
 * thousands per model load) cost more than the batching saved.
 */
static void mark_pending_locked(struct vkfd_guest *g)
{
	if (g->first_pending_ns)
		return;
	g->first_pending_ns = guest_now_ns();
	if (g->flusher_parked)
		pthread_cond_signal(&g->flush_cond);
}

int vkfd_guest_call_async(struct vkfd_guest *g, const void *req, size_t req_len)
{
	union req_buf buf;
	int r;

	if (!g)
		return -EINVAL;
	r = take_req(req, req_len, &buf);
	if (r)
		return r;
	pthread_mutex_lock(&g->lock);
	r = add_locked(g, &buf, (uint32_t)req_len, 0, NULL);
	if (!r && g->b.len >= GUEST_ASYNC_FLUSH_BYTES) {
		r = flush_locked(g, 0, NULL);
	} else if (!r) {
		mark_pending_locked(g);
	}
	pthread_mutex_unlock(&g->lock);
	return r;
}

/*
 * An asynchronous MAP_MEMORY_ASYNC whose seqno becomes the map barrier
 * (docs/protocol.md 14.5): stored into the shared memory's map_barrier word
 * under g->lock, after the request is queued, so the word only moves
 * forward in stream order whatever the number of threads, and before this
 * returns, so before any doorbell store the caller makes afterwards.
 */
int vkfd_guest_call_async_barrier(struct vkfd_guest *g, const void *req, size_t req_len)
{
	struct vkfd_shmem_hdr *sh;
	union req_buf buf;
	uint32_t seqno = 0;
	int r;

	if (!g)
		return -EINVAL;
	r = take_req(req, req_len, &buf);
	if (r)
		return r;
	sh = (struct vkfd_shmem_hdr *)g->shmem;
	pthread_mutex_lock(&g->lock);
	r = add_locked(g, &buf, (uint32_t)req_len, 0, &seqno);
	if (!r) {
		__atomic_store_n(&sh->map_barrier, seqno, __ATOMIC_RELEASE);
		if (g->b.len >= GUEST_ASYNC_FLUSH_BYTES) {
			r = flush_locked(g, 0, NULL);
		} else {
			mark_pending_locked(g);
		}
	}
	pthread_mutex_unlock(&g->lock);
	return r;
}

uint64_t vkfd_guest_submit_count(struct vkfd_guest *g)
{
	return g ? __atomic_load_n(&g->n_submits, __ATOMIC_RELAXED) : 0;
}

int vkfd_guest_flush(struct vkfd_guest *g)
{
	int r;

	if (!g)
		return -EINVAL;
	pthread_mutex_lock(&g->lock);
	r = flush_locked(g, 0, NULL);
	pthread_mutex_unlock(&g->lock);
	return r;
}

/* Lowest run of n free chunks, or -1. */
static int find_chunks(uint64_t busy, unsigned n)
{
	uint64_t mask = n >= 64 ? ~0ull : (1ull << n) - 1;

	for (unsigned c = 0; c + n <= GUEST_WAIT_CHUNKS; c++)
		if (!(busy & (mask << c)))
			return (int)c;
	return -1;
}

int vkfd_guest_call_wait(struct vkfd_guest *g, const void *req, size_t req_len, void *rsp,
			 size_t rsp_len)
{
	union req_buf buf;
	uint32_t seqno, need, nchunks, rsp_off;
	uint64_t fence = 0, chunk_mask;
	int r, ring = -1, chunk = -1;

	if (!g || (rsp_len && !rsp))
		return -EINVAL;
	r = take_req(req, req_len, &buf);
	if (r)
		return r;
	need = vkfd_rsp_size(buf.hdr.cmd, buf.bytes, req_len);
	if (need < sizeof(struct vkfd_rsp_hdr))
		need = sizeof(struct vkfd_rsp_hdr);
	nchunks = (need + GUEST_WAIT_CHUNK - 1) / GUEST_WAIT_CHUNK;
	if (nchunks > GUEST_WAIT_CHUNKS)
		return -EMSGSIZE;
	chunk_mask = nchunks >= 64 ? ~0ull : (1ull << nchunks) - 1;

	pthread_mutex_lock(&g->ring_lock);
	for (;;) {
		r = __atomic_load_n(&g->err, __ATOMIC_ACQUIRE);
		if (r)
			break;
		chunk = find_chunks(g->chunk_busy, nchunks);
		if (~g->ring_busy && chunk >= 0)
			break;
		pthread_cond_wait(&g->ring_cond, &g->ring_lock);
	}
	if (!r) {
		ring = __builtin_ctzll(~g->ring_busy);
		g->ring_busy |= 1ull << ring;
		g->chunk_busy |= chunk_mask << chunk;
	}
	pthread_mutex_unlock(&g->ring_lock);
	if (r)
		return r;

	/* The host serves the wait on the ring named in the request. */
	if (buf.hdr.cmd == VKFD_CMD_WAIT_EVENTS && req_len >= 20)
		buf.wait.ring_idx = (uint32_t)ring;
	rsp_off = GUEST_SYNC_SLOT_SIZE + (uint32_t)chunk * GUEST_WAIT_CHUNK;

	for (unsigned attempt = 0;; attempt++) {
		pthread_mutex_lock(&g->lock);
		r = add_locked(g, &buf, (uint32_t)req_len, rsp_off, &seqno);
		if (!r)
			r = flush_locked(g, 0, NULL);
		pthread_mutex_unlock(&g->lock);
		/* A wait the host answers at once (its events already fired)
		 * needs no fence: spin on the reply slot first, as a
		 * synchronous call spins on the processed seqno. Only a wait
		 * still pending then gets its ring's fence (a fence-only
		 * submit: the host framed the wait when it arrived, so the
		 * ring's fence covers it) and sleeps. */
		if (!r && !reply_within_spin(g, rsp_off, seqno)) {
			pthread_mutex_lock(&g->lock);
			r = flush_locked(g, (uint32_t)ring, &fence);
			pthread_mutex_unlock(&g->lock);
			if (!r)
				r = wait_fence(g, (uint32_t)ring, fence);
		}
		/* -EBUSY (the refused wait did not start). A current host
		 * releases a wait's thread before its ring's fence retires, so
		 * with its default quota this never happens; kept as defence:
		 * hosts built before that fix (same wire version) retired the
		 * fence first, and a host whose pending-wait quota is below 63
		 * refuses while all its wait threads are busy. Either way a
		 * wait thread frees up soon: try again shortly, for at most
		 * WAIT_BUSY_RETRIES * WAIT_BUSY_SLEEP_US. */
		if (!r && attempt < WAIT_BUSY_RETRIES &&
		    vkfd_load_acquire_u32(&slot(g, rsp_off)->seqno) == seqno &&
		    slot(g, rsp_off)->ret == -EBUSY) {
			guest_log(GUEST_LOG_DEBUG, "ring %d: host busy, wait resubmitted", ring);
			usleep(WAIT_BUSY_SLEEP_US);
			continue;
		}
		if (!r)
			r = copy_rsp(g, rsp_off, nchunks * GUEST_WAIT_CHUNK, seqno, rsp, rsp_len);
		/* the ring's fence retired without our response: as above */
		if (r == -EIO)
			r = mark_lost(g, -EIO);
		break;
	}

	pthread_mutex_lock(&g->ring_lock);
	g->ring_busy &= ~(1ull << ring);
	g->chunk_busy &= ~(chunk_mask << chunk);
	pthread_cond_broadcast(&g->ring_cond);
	pthread_mutex_unlock(&g->ring_lock);
	return r;
}

static void *flusher_main(void *arg)
{
	struct vkfd_guest *g = arg;

	pthread_mutex_lock(&g->lock);
	while (!g->stop) {
		if (!g->first_pending_ns) {
			g->flusher_parked = true;
			pthread_cond_wait(&g->flush_cond, &g->lock);
			g->flusher_parked = false;
			continue;
		}
		uint64_t due = g->first_pending_ns + GUEST_ASYNC_FLUSH_NS;
		uint64_t now = guest_now_ns();

		if (now >= due) {
			flush_locked(g, 0, NULL);
			continue;
		}
		struct timespec ts = {
		    .tv_sec = (time_t)(due / 1000000000ull),
		    .tv_nsec = (long)(due % 1000000000ull),
		};

		pthread_cond_timedwait(&g->flush_cond, &g->lock, &ts);
	}
	pthread_mutex_unlock(&g->lock);
	return NULL;
}

int guest_calls_init(struct vkfd_guest *g)
{
	pthread_condattr_t ca;
	const char *env = getenv("VKFD_SPIN_US");

	g->spin_ns = DEFAULT_SPIN_NS;
	if (env && atoi(env) >= 0 && atoi(env) <= 100000)
		g->spin_ns = (unsigned)atoi(env) * 1000u;
	g->batch = calloc(1, VKFD_MAX_BATCH_SIZE);
	if (!g->batch)
		return -ENOMEM;
	vkfd_builder_init(&g->b, g->batch, VKFD_MAX_BATCH_SIZE, 1);
	g->seq_base = g->b.seqno - 1; /* nothing processed yet */
	g->seq_issued = g->seq_base;
	pthread_mutex_init(&g->lock, NULL);
	pthread_mutex_init(&g->sync_lock, NULL);
	pthread_mutex_init(&g->ring_lock, NULL);
	pthread_cond_init(&g->ring_cond, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&g->flush_cond, &ca);
	pthread_condattr_destroy(&ca);
	g->ring_busy = 1; /* ring 0 carries submits, never a wait */
	/* The flusher must never take a signal meant for the application's
	 * own threads: it starts with every signal blocked. */
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&g->flusher, NULL, flusher_main, g) == 0)
		g->flusher_running = true;
	else
		guest_log(GUEST_LOG_WARN,
			  "no flusher thread: async requests wait for the next call");
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return 0;
}

void guest_calls_fini(struct vkfd_guest *g)
{
	if (!g->batch)
		return;
	pthread_mutex_lock(&g->lock);
	g->stop = true;
	pthread_cond_broadcast(&g->flush_cond);
	flush_locked(g, 0, NULL);
	pthread_mutex_unlock(&g->lock);
	if (g->flusher_running)
		pthread_join(g->flusher, NULL);
	pthread_cond_destroy(&g->flush_cond);
	pthread_cond_destroy(&g->ring_cond);
	pthread_mutex_destroy(&g->ring_lock);
	pthread_mutex_destroy(&g->sync_lock);
	pthread_mutex_destroy(&g->lock);
	free(g->batch);
	g->batch = NULL;
}

int guest_hello(struct vkfd_guest *g)
{
	struct vkfd_req_hello req;
	struct vkfd_rsp_hello rsp;
	int r;

	memset(&req, 0, sizeof(req));
	req.hdr.cmd = VKFD_CMD_HELLO;
	req.version_min = g->version;
	req.version_max = g->version;
	req.features = g->capset.features & VKFD_FEAT_ALL_V1;
	r = vkfd_guest_call(g, &req, sizeof(req), &rsp, sizeof(rsp));
	if (r)
		return r;
	if (rsp.hdr.ret) {
		guest_log(GUEST_LOG_ERROR, "HELLO refused: %s", strerror(-rsp.hdr.ret));
		return rsp.hdr.ret;
	}
	if (rsp.version != g->version) {
		guest_log(GUEST_LOG_ERROR, "host chose version %u, asked for %u", rsp.version,
			  g->version);
		return -EPROTO;
	}
	g->features = rsp.features;
	return 0;
}
