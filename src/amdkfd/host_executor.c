// SPDX-License-Identifier: MIT
/*
 * The per-context executor: runs queued batches in order, one command at a
 * time. run_one decodes each request once into a zero-extended private
 * copy (struct cmd_ctx's req); its handler builds the response in a
 * private buffer, which is copied to the shared response slot before the
 * processed seqno is published (release).
 */
#include "host_export.h"
#include "host_cmd.h"
#include "host_log.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Handling times per command number. The executor is the only writer;
 * readers on other threads use relaxed atomic loads, so a snapshot may mix
 * two consecutive updates but never tears a counter. */
_Static_assert(VKFD_CMD_COUNT_ <= VKFD_HOST_STATS_CMDS, "a statistics slot per command");

struct host_stats {
	bool cpu; /* VKFD_HOST_STATS_CPU=1 at context creation */
	struct vkfd_host_cmd_stats cmd[VKFD_HOST_STATS_CMDS];
};

typedef int (*cmd_fn)(struct cmd_ctx *c);

static const cmd_fn handlers[VKFD_CMD_COUNT_] = {
    [VKFD_CMD_HELLO] = cmd_hello,
    [VKFD_CMD_GET_VERSION] = cmd_get_version,
    [VKFD_CMD_GET_TOPOLOGY] = cmd_get_topology,
    [VKFD_CMD_GET_PROCESS_APERTURES] = cmd_get_process_apertures,
    [VKFD_CMD_ACQUIRE_VM] = cmd_acquire_vm,
    [VKFD_CMD_SET_MEMORY_POLICY] = cmd_set_memory_policy,
    [VKFD_CMD_SET_SCRATCH_BACKING_VA] = cmd_set_scratch_backing_va,
    [VKFD_CMD_SET_TRAP_HANDLER] = cmd_set_trap_handler,
    [VKFD_CMD_SET_XNACK_MODE] = cmd_set_xnack_mode,
    [VKFD_CMD_GET_CLOCK_COUNTERS] = cmd_get_clock_counters,
    [VKFD_CMD_AVAILABLE_MEMORY] = cmd_available_memory,
    [VKFD_CMD_RUNTIME_ENABLE] = cmd_runtime_enable,
    [VKFD_CMD_GET_TILE_CONFIG] = cmd_get_tile_config,
    [VKFD_CMD_AMDGPU_QUERY] = cmd_amdgpu_query,
    [VKFD_CMD_ALLOC_MEMORY] = cmd_alloc_memory,
    [VKFD_CMD_FREE_MEMORY] = cmd_free_memory,
    [VKFD_CMD_MAP_MEMORY] = cmd_map_memory,
    [VKFD_CMD_UNMAP_MEMORY] = cmd_unmap_memory,
    [VKFD_CMD_UNMAP_MEMORY_ASYNC] = cmd_unmap_memory,
    [VKFD_CMD_BIND_BLOB] = cmd_bind_blob,
    [VKFD_CMD_CREATE_ARENA] = cmd_create_arena,
    [VKFD_CMD_DESTROY_ARENA] = cmd_destroy_arena,
    [VKFD_CMD_ALLOC_USERPTR_PIECES] = cmd_alloc_userptr_pieces,
    [VKFD_CMD_IMPORT_RESOURCE] = cmd_import_resource,
    [VKFD_CMD_GET_RESOURCE_INFO] = cmd_get_resource_info,
    [VKFD_CMD_ALLOC_MEMORY_ASYNC] = cmd_alloc_memory_async,
    [VKFD_CMD_MAP_MEMORY_ASYNC] = cmd_map_memory_async,
    [VKFD_CMD_CREATE_QUEUE] = cmd_create_queue,
    [VKFD_CMD_DESTROY_QUEUE] = cmd_destroy_queue,
    [VKFD_CMD_UPDATE_QUEUE] = cmd_update_queue,
    [VKFD_CMD_SET_CU_MASK] = cmd_set_cu_mask,
    [VKFD_CMD_ALLOC_QUEUE_GWS] = cmd_alloc_queue_gws,
    [VKFD_CMD_DOORBELL_NOTIFY] = cmd_doorbell_notify,
    [VKFD_CMD_HDP_FLUSH] = cmd_hdp_flush,
    [VKFD_CMD_CREATE_EVENT] = cmd_create_event,
    [VKFD_CMD_DESTROY_EVENT] = cmd_destroy_event,
    [VKFD_CMD_SET_EVENT] = cmd_set_event,
    [VKFD_CMD_RESET_EVENT] = cmd_reset_event,
    [VKFD_CMD_WAIT_EVENTS] = cmd_wait_events,
    [VKFD_CMD_DESTROY_EVENT_ASYNC] = cmd_destroy_event,
    [VKFD_CMD_SET_EVENT_ASYNC] = cmd_set_event,
    [VKFD_CMD_RESET_EVENT_ASYNC] = cmd_reset_event,
};

/* Largest response any command can need (GET_TOPOLOGY's chunk). */
#define HOST_RSP_BUF_SIZE (sizeof(struct vkfd_rsp_get_topology) + VKFD_TOPOLOGY_MAX_CHUNK)

/* Largest request struct of any command: the executor's decode buffer. */
static size_t req_buf_size(void)
{
	size_t max = sizeof(struct vkfd_req_hdr);

	for (uint32_t cmd = 0; cmd < VKFD_CMD_COUNT_; cmd++)
		if (vkfd_cmd_req_size(cmd) > max)
			max = vkfd_cmd_req_size(cmd);
	return max;
}

static void run_one(struct vkfd_host_context *ctx, const struct vkfd_cmd_view *v)
{
	struct cmd_ctx c = {.ctx = ctx, .v = v, .rsp = ctx->rsp_buf, .req = ctx->req_buf};
	uint32_t cap = v->known ? v->rsp_size : (uint32_t)sizeof(struct vkfd_rsp_hdr);
	bool answer = v->known ? v->sync : true;
	cmd_fn fn = v->hdr.cmd < VKFD_CMD_COUNT_ ? handlers[v->hdr.cmd] : NULL;
	struct vkfd_rsp_hdr *rh;
	int ret;

	if (cap < sizeof(struct vkfd_rsp_hdr))
		cap = sizeof(struct vkfd_rsp_hdr);
	if (cap > HOST_RSP_BUF_SIZE)
		cap = HOST_RSP_BUF_SIZE;
	memset(ctx->rsp_buf, 0, cap);
	c.rsp_len = sizeof(struct vkfd_rsp_hdr);
	if (v->known && fn) {
		/* the one place a request is decoded: zero-extended once */
		c.req_size = vkfd_cmd_req_size(v->hdr.cmd);
		ret = vkfd_cmd_decode(v, ctx->req_buf, c.req_size);
		if (!ret)
			ret = fn(&c);
	} else {
		ret = -ENOTTY;
	}
	if (ret)
		vkfd_dbg("ctx %u: %s seqno %u -> %d", ctx->ctx_id, vkfd_cmd_name(v->hdr.cmd),
			 v->hdr.seqno, ret);
	if (!answer || c.deferred)
		return;
	if (c.rsp_len > cap)
		c.rsp_len = cap; /* a handler bug must not overrun the slot */
	rh = (struct vkfd_rsp_hdr *)ctx->rsp_buf;
	rh->ret = ret;
	host_reply(ctx, v, ctx->rsp_buf, c.rsp_len);
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

VKFD_EXPORT unsigned vkfd_host_stats_bucket(uint64_t ns)
{
	unsigned e, b;

	if (ns < 8)
		return (unsigned)ns;
	e = 63u - (unsigned)__builtin_clzll(ns); /* >= 3 */
	b = 8u * (e - 2u) + (unsigned)((ns >> (e - 3u)) & 7u);
	return b < VKFD_HOST_STATS_BUCKETS ? b : VKFD_HOST_STATS_BUCKETS - 1;
}

VKFD_EXPORT uint64_t vkfd_host_stats_bucket_min_ns(unsigned b)
{
	if (b >= VKFD_HOST_STATS_BUCKETS)
		return UINT64_MAX;
	if (b < 8)
		return b;
	return (uint64_t)(8u + b % 8u) << (b / 8u - 1u);
}

VKFD_EXPORT uint64_t vkfd_host_stats_bucket_max_ns(unsigned b)
{
	if (b >= VKFD_HOST_STATS_BUCKETS - 1)
		return UINT64_MAX;
	return vkfd_host_stats_bucket_min_ns(b + 1) - 1;
}

static void stats_add(struct host_stats *st, uint32_t cmd, uint64_t ns, uint64_t cpu_ns)
{
	struct vkfd_host_cmd_stats *k;
	unsigned b = vkfd_host_stats_bucket(ns);

	if (!st)
		return;
	k = &st->cmd[cmd < VKFD_HOST_STATS_CMDS ? cmd : 0];
	__atomic_store_n(&k->count, k->count + 1, __ATOMIC_RELAXED);
	__atomic_store_n(&k->sum_ns, k->sum_ns + ns, __ATOMIC_RELAXED);
	if (ns > k->max_ns)
		__atomic_store_n(&k->max_ns, ns, __ATOMIC_RELAXED);
	__atomic_store_n(&k->cpu_sum_ns, k->cpu_sum_ns + cpu_ns, __ATOMIC_RELAXED);
	if (cpu_ns > k->cpu_max_ns)
		__atomic_store_n(&k->cpu_max_ns, cpu_ns, __ATOMIC_RELAXED);
	if (k->hist[b] != UINT32_MAX)
		__atomic_store_n(&k->hist[b], k->hist[b] + 1, __ATOMIC_RELAXED);
}

static void stats_read(const struct vkfd_host_cmd_stats *k, struct vkfd_host_cmd_stats *out)
{
	out->count += __atomic_load_n(&k->count, __ATOMIC_RELAXED);
	out->sum_ns += __atomic_load_n(&k->sum_ns, __ATOMIC_RELAXED);
	uint64_t m = __atomic_load_n(&k->max_ns, __ATOMIC_RELAXED);
	if (m > out->max_ns)
		out->max_ns = m;
	out->cpu_sum_ns += __atomic_load_n(&k->cpu_sum_ns, __ATOMIC_RELAXED);
	m = __atomic_load_n(&k->cpu_max_ns, __ATOMIC_RELAXED);
	if (m > out->cpu_max_ns)
		out->cpu_max_ns = m;
	for (unsigned b = 0; b < VKFD_HOST_STATS_BUCKETS; b++) {
		uint32_t h = __atomic_load_n(&k->hist[b], __ATOMIC_RELAXED);

		out->hist[b] = h > UINT32_MAX - out->hist[b] ? UINT32_MAX : out->hist[b] + h;
	}
}

VKFD_EXPORT int vkfd_host_context_get_stats(struct vkfd_host_context *ctx, uint32_t cmd,
					    struct vkfd_host_cmd_stats *out)
{
	if (!ctx || !out || (cmd >= VKFD_HOST_STATS_CMDS && cmd != VKFD_HOST_STATS_ALL))
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	if (!ctx->stats)
		return 0;
	if (cmd != VKFD_HOST_STATS_ALL) {
		stats_read(&ctx->stats->cmd[cmd], out);
		return 0;
	}
	for (unsigned i = 0; i < VKFD_HOST_STATS_CMDS; i++)
		stats_read(&ctx->stats->cmd[i], out);
	return 0;
}

/* VKFD_HOST_STATS_DIR: one text file per destroyed context, written under a
 * temporary name and renamed, so a reader never sees half a file. Lines:
 * "cmd NUMBER NAME count N sum_ns S max_ns M cpu_sum_ns C cpu_max_ns D
 * hist BUCKET:COUNT ...", then "relay scans N copies N cpu_ns N pokes N
 * poke_moves N". */
static void stats_dump(struct vkfd_host_context *ctx)
{
	static uint32_t serial;
	const char *dir = getenv("VKFD_HOST_STATS_DIR");
	char tmp[4096], path[4096];
	uint32_t n;
	FILE *f;
	int fd, w;

	if (!dir || !*dir || !ctx->stats)
		return;
	n = __atomic_fetch_add(&serial, 1, __ATOMIC_RELAXED);
	w = snprintf(path, sizeof(path), "%s/host-stats-%ld-%u-%u.txt", dir, (long)getpid(),
		     ctx->ctx_id, n);
	if (w < 0 || (size_t)w >= sizeof(path))
		return;
	snprintf(tmp, sizeof(tmp), "%s/.tmp-host-stats-%ld-%u-%u", dir, (long)getpid(), ctx->ctx_id,
		 n);
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		unlink(tmp);
		return;
	}
	for (unsigned i = 0; i < VKFD_HOST_STATS_CMDS; i++) {
		const struct vkfd_host_cmd_stats *k = &ctx->stats->cmd[i];

		if (!k->count)
			continue;
		fprintf(f,
			"cmd %u %s count %llu sum_ns %llu max_ns %llu cpu_sum_ns %llu cpu_max_ns "
			"%llu hist",
			i, i ? vkfd_cmd_name(i) : "UNKNOWN", (unsigned long long)k->count,
			(unsigned long long)k->sum_ns, (unsigned long long)k->max_ns,
			(unsigned long long)k->cpu_sum_ns, (unsigned long long)k->cpu_max_ns);
		for (unsigned b = 0; b < VKFD_HOST_STATS_BUCKETS; b++)
			if (k->hist[b])
				fprintf(f, " %u:%u", b, k->hist[b]);
		fputc('\n', f);
	}
	if (ctx->relay) {
		struct doorbell_relay_stats rs;

		doorbell_relay_get_stats(ctx->relay, &rs);
		fprintf(f, "relay scans %llu copies %llu cpu_ns %llu pokes %llu poke_moves %llu\n",
			(unsigned long long)rs.scans, (unsigned long long)rs.copies,
			(unsigned long long)rs.cpu_ns, (unsigned long long)rs.pokes,
			(unsigned long long)rs.poke_moves);
	}
	if (fclose(f) || rename(tmp, path))
		unlink(tmp);
}

static void run_batch(struct vkfd_host_context *ctx, const uint8_t *data, size_t size)
{
	struct vkfd_shmem_hdr *sh = vkfd_shmem_hdr(ctx->shmem.map);
	struct vkfd_cmd_view v;
	struct vkfd_iter it;

	vkfd_iter_init(&it, data, size, VKFD_RSP_AREA_SIZE);
	while (vkfd_iter_next(&it, &v) == 1) {
		bool cpu = ctx->stats && ctx->stats->cpu;
		uint64_t t0, c0 = 0, c1 = 0;

		if (__atomic_load_n(&ctx->lost, __ATOMIC_ACQUIRE))
			return;
		if (cpu)
			c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		t0 = clock_ns(CLOCK_MONOTONIC);
		run_one(ctx, &v);
		t0 = clock_ns(CLOCK_MONOTONIC) - t0;
		if (cpu)
			c1 = clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
		stats_add(ctx->stats, v.known ? v.hdr.cmd : 0, t0, c1);
		__atomic_store_n(&ctx->exec_seqno, v.hdr.seqno, __ATOMIC_RELEASE);
		vkfd_store_release_u32(&sh->seqno, v.hdr.seqno);
	}
}

/*
 * Adaptive spin before sleeping (docs/performance.md, "Round trips"): a
 * guest making synchronous calls submits again a few microseconds after
 * its previous answer; a sleeping executor then costs a futex wake-up and
 * a trip through the scheduler per call. After a batch the executor polls
 * the queue for at most spin_ns, but only while that has been paying off:
 * a score counts spins that found work and sleeps a spin would have cut
 * short, and spins that found nothing count double against it, so a
 * context whose next batch rarely comes at once (the storm's mix of calls,
 * mappings and waits) stops spinning after a few misses. The poll reads an atomic copy of
 * the submit count (no lock traffic with the submitter) and yields the CPU
 * between polls: with 2 CPUs the submitter may need this one. Off unless
 * vkfd_host_context_set_exec_spin() or VKFD_EXEC_SPIN_US turns it on: on
 * the 2-vCPU development machine it made direct synchronous calls faster
 * and the direct storm slower, and vtest slower (docs/performance.md).
 */
#define EXEC_SPIN_LIMIT_NS 1000000u
/* Spin while the score says it pays: a hit adds 1, a miss takes 2, a
 * sleep that a spin would have shortened adds 1. */
#define EXEC_SPIN_SCORE_ON  4u
#define EXEC_SPIN_SCORE_MAX 8u

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

/* VKFD_EXEC_SPIN_US (experiments): -1 when unset or unparsable. */
static long exec_spin_env_ns(void)
{
	const char *e = getenv("VKFD_EXEC_SPIN_US");
	char *end;
	unsigned long v;

	if (!e || !*e)
		return -1;
	v = strtoul(e, &end, 10);
	if (*end || v > EXEC_SPIN_LIMIT_NS / 1000u)
		return -1;
	return (long)v * 1000;
}

VKFD_EXPORT int vkfd_host_context_set_exec_spin(struct vkfd_host_context *ctx, uint32_t spin_ns)
{
	if (!ctx || spin_ns > EXEC_SPIN_LIMIT_NS)
		return -EINVAL;
	__atomic_store_n(&ctx->exec_spin_ns, spin_ns, __ATOMIC_RELAXED);
	return 0;
}

/* Called and returns without ctx->lock; true when a batch after `taken`
 * was queued. Polls submit_hint only: no lock traffic with the submitter. */
static bool exec_spin(struct vkfd_host_context *ctx, uint64_t taken, uint64_t budget_ns)
{
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

	do {
		for (unsigned i = 0; i < 64; i++) {
			if (__atomic_load_n(&ctx->submit_hint, __ATOMIC_ACQUIRE) != taken)
				return true;
			cpu_relax();
		}
		/* on a busy machine the submitter may need this CPU */
		sched_yield();
	} while (clock_ns(CLOCK_MONOTONIC) - t0 < budget_ns);
	return false;
}

static void *executor_main(void *arg)
{
	struct vkfd_host_context *ctx = arg;
	const long env_spin = exec_spin_env_ns();
	uint64_t spin_max, taken = 0;
	unsigned score = 0;

	pthread_mutex_lock(&ctx->lock);
	for (;;) {
		struct exec_item *it;
		uint64_t seq;
		bool spun = false;

		spin_max = env_spin >= 0 ? (uint64_t)env_spin
					 : __atomic_load_n(&ctx->exec_spin_ns, __ATOMIC_RELAXED);
		while ((!ctx->q_head || ctx->running) && !ctx->stopping) {
			uint64_t idle0;

			if (!spun && spin_max && score >= EXEC_SPIN_SCORE_ON) {
				spun = true;
				pthread_mutex_unlock(&ctx->lock);
				if (exec_spin(ctx, taken, spin_max)) {
					if (score < EXEC_SPIN_SCORE_MAX)
						score++;
				} else {
					score = score > 2 ? score - 2 : 0;
				}
				pthread_mutex_lock(&ctx->lock);
				continue;
			}
			idle0 = clock_ns(CLOCK_MONOTONIC);
			pthread_cond_wait(&ctx->cond, &ctx->lock);
			/* a gap the spin would have covered: spinning pays */
			if (!spun && spin_max && clock_ns(CLOCK_MONOTONIC) - idle0 <= spin_max &&
			    score < EXEC_SPIN_SCORE_MAX)
				score++;
		}
		if (ctx->stopping)
			break;
		it = ctx->q_head;
		ctx->q_head = it->next;
		if (!ctx->q_head)
			ctx->q_tail = NULL;
		ctx->queued_bytes -= it->cost;
		ctx->running = true;
		pthread_mutex_unlock(&ctx->lock);

		if (!__atomic_load_n(&ctx->lost, __ATOMIC_ACQUIRE))
			run_batch(ctx, it->data, it->size);
		seq = it->seq;
		taken = seq;
		free(it);

		fence_state_advance(&ctx->fences, 0, seq);
		pthread_mutex_lock(&ctx->lock);
		ctx->running = false;
	}
	pthread_mutex_unlock(&ctx->lock);
	return NULL;
}

/*
 * Inline batches. A guest that sets an event another of its threads waits
 * on (ROCr's stores to an interrupt signal; the fence scenario of
 * vkfd-bench) pays one thread hand-off per wake-up for the executor: the
 * submit wakes it, it wakes the wait thread, which wakes the guest. When
 * the executor has nothing queued or running, a batch of only SET_EVENT and
 * RESET_EVENT requests runs on the submitting thread instead — the VMM
 * thread, vkfd-server's socket thread, or the guest's own in the direct
 * transport. That keeps design decision 7's rule (nothing the VMM calls
 * waits for the GPU): KFD sets and resets an event under its event lock
 * without touching the GPU, like the export get_blob already makes on the
 * VMM thread. The batch is bounded (a few ioctls of microseconds), and
 * only taken while no dispatched wait is still unregistered, so the SET's
 * wait for earlier waits (wait_order.c) cannot block. Stream order holds:
 * nothing is queued before it and a later batch queues behind `running`.
 */
#define HOST_INLINE_MAX_REQS 32u

static bool inline_cmd(uint32_t cmd)
{
	return cmd == VKFD_CMD_SET_EVENT || cmd == VKFD_CMD_SET_EVENT_ASYNC ||
	       cmd == VKFD_CMD_RESET_EVENT || cmd == VKFD_CMD_RESET_EVENT_ASYNC;
}

bool host_executor_claim_inline_locked(struct vkfd_host_context *ctx, const uint8_t *data,
				       size_t size)
{
	struct vkfd_cmd_view v;
	struct vkfd_iter it;
	uint32_t n = 0;

	host_assert_held(&ctx->lock);
	if (ctx->no_inline || ctx->running || ctx->q_head || !ctx->exec_started ||
	    __atomic_load_n(&ctx->lost, __ATOMIC_ACQUIRE))
		return false;
	vkfd_iter_init(&it, data, size, VKFD_RSP_AREA_SIZE);
	while (vkfd_iter_next(&it, &v) == 1)
		if (++n > HOST_INLINE_MAX_REQS || !v.known || !inline_cmd(v.hdr.cmd))
			return false;
	if (!n || !wait_order_idle(&ctx->wait_order))
		return false;
	ctx->running = true;
	return true;
}

void host_executor_run_inline(struct vkfd_host_context *ctx, const uint8_t *data, size_t size,
			      uint64_t seq)
{
	run_batch(ctx, data, size);
	__atomic_fetch_add(&ctx->inline_batches, 1, __ATOMIC_RELAXED);
	fence_state_advance(&ctx->fences, 0, seq);
	pthread_mutex_lock(&ctx->lock);
	ctx->running = false;
	if (ctx->q_head)
		pthread_cond_signal(&ctx->cond);
	pthread_mutex_unlock(&ctx->lock);
}

int host_executor_start(struct vkfd_host_context *ctx)
{
	int ret;

	ctx->rsp_buf = calloc(1, HOST_RSP_BUF_SIZE);
	ctx->req_buf = calloc(1, req_buf_size());
	ctx->stats = calloc(1, sizeof(*ctx->stats));
	if (!ctx->rsp_buf || !ctx->req_buf || !ctx->stats)
		return -ENOMEM;
	ctx->stats->cpu = host_env_on("VKFD_HOST_STATS_CPU");
	ctx->no_inline = host_env_on("VKFD_HOST_NO_INLINE");
	__atomic_store_n(&ctx->wait_always_thread, host_env_on("VKFD_HOST_WAIT_THREAD"),
			 __ATOMIC_RELAXED);
	ret = -pthread_create(&ctx->exec_thread, NULL, executor_main, ctx);
	if (ret)
		return ret;
	ctx->exec_started = true;
	return 0;
}

void host_executor_stop(struct vkfd_host_context *ctx)
{
	struct exec_item *it;

	pthread_mutex_lock(&ctx->lock);
	/* atomic: wait threads read it without the lock (cmd_event.c) */
	__atomic_store_n(&ctx->stopping, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&ctx->cond);
	pthread_mutex_unlock(&ctx->lock);
	if (ctx->exec_started)
		pthread_join(ctx->exec_thread, NULL);
	ctx->exec_started = false;
	while ((it = ctx->q_head)) {
		ctx->q_head = it->next;
		free(it);
	}
	ctx->q_tail = NULL;
	free(ctx->rsp_buf);
	ctx->rsp_buf = NULL;
	free(ctx->req_buf);
	ctx->req_buf = NULL;
	stats_dump(ctx);
	free(ctx->stats);
	ctx->stats = NULL;
}
