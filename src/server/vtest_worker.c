// SPDX-License-Identifier: MIT
#include "vtest_worker.h"
#include "server_log.h"
#include "vtest_io.h"
#include "vtest_sync.h"
#include "vtest_wire.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NUM_RINGS        VTW_MAX_TIMELINE_COUNT
#define MAX_NAME         256
#define MAX_CAPSET_BYTES 65536
#define CTX_ID           1

struct pending {
	struct pending *next;
	uint64_t fence;
	uint32_t n;
	struct {
		uint32_t id;
		uint64_t value;
	} s[];
};

struct worker {
	int sock;
	const struct vtest_worker_opts *opts;
	bool have_renderer;
	uint32_t version;
	char name[MAX_NAME + 1];
	bool host_up;
	struct vkfd_host_context *ctx;
	/* Fences retire on the host library's threads (executor, wait
	 * threads), which then signal the syncs themselves: the socket thread
	 * is not woken per fence. `lock` guards syncs, q and npending. */
	pthread_mutex_t lock;
	struct vsync_table *syncs;
	uint64_t ring_seq[NUM_RINGS];
	struct {
		struct pending *head, *tail;
	} q[NUM_RINGS];
	uint32_t npending;
	uint8_t *res_used; /* bitmap, res id 1..VTEST_MAX_RESOURCES */
	uint32_t next_res;
	uint32_t *buf;
	size_t buf_cap;
};

/* Errors from handlers: negative errno ends the client. */

static int reply(struct worker *w, uint32_t cmd, const uint32_t *data, uint32_t ndw)
{
	uint32_t hdr[VTW_HDR_DWORDS] = {ndw, cmd};
	int r = vtio_write_full(w->sock, hdr, sizeof(hdr));

	if (!r && ndw)
		r = vtio_write_full(w->sock, data, ndw * sizeof(uint32_t));
	return r;
}

static int read_payload(struct worker *w, size_t bytes)
{
	unsigned stray = 0;
	int r;

	if (bytes > w->buf_cap) {
		size_t cap = bytes < 4096 ? 4096 : bytes;
		uint32_t *b = realloc(w->buf, cap);

		if (!b)
			return -ENOMEM;
		w->buf = b;
		w->buf_cap = cap;
	}
	r = bytes ? vtio_read_full(w->sock, w->buf, bytes, -1, &stray) : 0;
	if (stray)
		srv_warn("client sent %u unexpected fds (closed)", stray);
	return r;
}

/* ---- fences ---- */

/* Host library thread (or the socket thread, for a fence that was already
 * reached or could not be queued); never called with w->lock held. */
static void retire_cb(void *cookie, uint32_t ctx_id, uint32_t ring_idx, uint64_t fence_id)
{
	struct worker *w = cookie;

	(void)ctx_id;
	if (!w || ring_idx >= NUM_RINGS)
		return;
	pthread_mutex_lock(&w->lock);
	while (w->q[ring_idx].head && w->q[ring_idx].head->fence <= fence_id) {
		struct pending *p = w->q[ring_idx].head;

		w->q[ring_idx].head = p->next;
		if (!p->next)
			w->q[ring_idx].tail = NULL;
		for (uint32_t i = 0; i < p->n; i++)
			vsync_signal(w->syncs, p->s[i].id, p->s[i].value);
		free(p);
		w->npending--;
	}
	pthread_mutex_unlock(&w->lock);
}

static void free_pending(struct worker *w)
{
	for (int r = 0; r < NUM_RINGS; r++) {
		while (w->q[r].head) {
			struct pending *p = w->q[r].head;

			w->q[r].head = p->next;
			free(p);
		}
		w->q[r].tail = NULL;
	}
	w->npending = 0;
}

/* ---- resources ---- */

static bool res_test(const struct worker *w, uint32_t id)
{
	return id && id <= VTEST_MAX_RESOURCES &&
	       (w->res_used[(id - 1) / 8] & (1u << ((id - 1) % 8)));
}

static void res_set(struct worker *w, uint32_t id, bool on)
{
	uint8_t bit = (uint8_t)(1u << ((id - 1) % 8));

	if (on)
		w->res_used[(id - 1) / 8] |= bit;
	else
		w->res_used[(id - 1) / 8] &= (uint8_t)~bit;
}

static uint32_t res_alloc(struct worker *w)
{
	for (uint32_t i = 0; i < VTEST_MAX_RESOURCES; i++) {
		uint32_t id = (w->next_res + i) % VTEST_MAX_RESOURCES + 1;

		if (!res_test(w, id)) {
			res_set(w, id, true);
			w->next_res = id % VTEST_MAX_RESOURCES;
			return id;
		}
	}
	return 0;
}

/* ---- commands ---- */

static int cmd_create_renderer(struct worker *w, uint32_t len_bytes)
{
	if (len_bytes > MAX_NAME) {
		srv_warn("CREATE_RENDERER name of %u bytes refused", len_bytes);
		return -EMSGSIZE;
	}
	int r = read_payload(w, len_bytes);

	if (r)
		return r;
	if (len_bytes) /* an empty name leaves buf unallocated */
		memcpy(w->name, w->buf, len_bytes);
	w->name[len_bytes] = '\0';
	for (char *c = w->name; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
	w->have_renderer = true;
	srv_info("client '%s' connected", w->name);
	return 0;
}

static int expect_len(uint32_t cmd, uint32_t got, uint32_t want)
{
	if (got != want) {
		srv_warn("command %u: payload of %u dwords, expected %u", cmd, got, want);
		return -EBADMSG;
	}
	return 0;
}

static int cmd_protocol_version(struct worker *w)
{
	uint32_t v = w->buf[0] < VTW_PROTOCOL_VERSION ? w->buf[0] : VTW_PROTOCOL_VERSION;

	w->version = v;
	return reply(w, VTW_CMD_PROTOCOL_VERSION, &v, 1);
}

static int cmd_get_param(struct worker *w)
{
	uint32_t out[2] = {0, 0};

	if (w->buf[0] == VTW_PARAM_MAX_TIMELINE_COUNT) {
		out[0] = 1;
		out[1] = VTW_MAX_TIMELINE_COUNT;
	} else if (w->buf[0] == VTW_PARAM_VKFD_IMPORT_FD) {
		out[0] = 1;
		out[1] = w->opts->share != NULL;
	}
	return reply(w, VTW_CMD_GET_PARAM, out, 2);
}

static int cmd_get_capset(struct worker *w)
{
	uint32_t id = w->buf[0], version = w->buf[1];
	size_t size = id == VKFD_CAPSET_ID ? vkfd_host_capset_size(version) : 0;
	uint32_t invalid = 0;

	if (size == 0 || size > MAX_CAPSET_BYTES)
		return reply(w, VTW_CMD_GET_CAPSET, &invalid, 1);
	uint32_t ndw = (uint32_t)((size + 3) / 4);
	uint32_t *out = calloc(1 + ndw, sizeof(uint32_t));

	if (!out)
		return -ENOMEM;
	int r = vkfd_host_capset_fill(version, out + 1, size);

	if (r < 0) {
		srv_warn("capset fill failed: %d", r);
		free(out);
		return reply(w, VTW_CMD_GET_CAPSET, &invalid, 1);
	}
	out[0] = 1;
	r = reply(w, VTW_CMD_GET_CAPSET, out, 1 + ndw);
	free(out);
	return r;
}

static int cmd_context_init(struct worker *w)
{
	uint32_t capset = w->buf[0];
	int r;

	if (w->ctx) {
		srv_warn("CONTEXT_INIT twice");
		return -EALREADY;
	}
	if (capset != VKFD_CAPSET_ID) {
		srv_warn("CONTEXT_INIT for capset %u refused", capset);
		return -EINVAL;
	}
	if (!w->host_up) {
		struct vkfd_host_config cfg;

		memset(&cfg, 0, sizeof(cfg));
		cfg.api_version = VKFD_HOST_API_VERSION;
		cfg.flags = VKFD_HOST_FLAG_ASYNC_FENCES;
		cfg.device = w->opts->device;
		cfg.retire_fence = retire_cb;
		r = vkfd_host_init(&cfg);
		if (r) {
			srv_err("host init failed: %s", strerror(-r));
			return r;
		}
		w->host_up = true;
	}
	r = vkfd_host_context_create(CTX_ID, w->name, w, &w->ctx);
	if (r) {
		srv_err("context create failed: %s", strerror(-r));
		w->ctx = NULL;
		return r;
	}
	return 0;
}

static int need_ctx(struct worker *w, uint32_t cmd)
{
	if (!w->ctx) {
		srv_warn("command %u before CONTEXT_INIT", cmd);
		return -EPROTO;
	}
	return 0;
}

static int cmd_create_blob(struct worker *w)
{
	const uint32_t *p = w->buf;
	uint32_t type = p[0], flags = p[1];
	uint64_t size = p[2] | (uint64_t)p[3] << 32;
	uint64_t blob_id = p[4] | (uint64_t)p[5] << 32;
	uint32_t res_id = 0;
	struct vkfd_blob blob;
	int r;

	memset(&blob, 0, sizeof(blob));
	blob.fd = -1;
	if (type != VTW_BLOB_TYPE_HOST3D ||
	    (flags &
	     ~(VTW_BLOB_FLAG_MAPPABLE | VTW_BLOB_FLAG_SHAREABLE | VTW_BLOB_FLAG_CROSS_DEVICE)) ||
	    size == 0 || size > VTEST_MAX_BLOB_BYTES) {
		srv_warn("blob %llu: bad type %u / flags 0x%x / size %llu",
			 (unsigned long long)blob_id, type, flags, (unsigned long long)size);
		goto fail;
	}
	res_id = res_alloc(w);
	if (!res_id) {
		srv_warn("resource table full");
		goto fail;
	}
	r = vkfd_host_context_get_blob(w->ctx, res_id, blob_id, size, flags, &blob);
	if (r || blob.fd < 0) {
		srv_warn("blob %llu (size %llu flags 0x%x): %s", (unsigned long long)blob_id,
			 (unsigned long long)size, flags, strerror(r ? -r : EIO));
		res_set(w, res_id, false);
		res_id = 0;
		goto fail;
	}
	r = vkfd_host_context_attach_resource(w->ctx, res_id, blob.fd, size);
	if (r)
		srv_dbg("attach of res %u: %s", res_id, strerror(-r));
	/* a BO blob the client may pass to another client of this server
	 * (blob 0 is the context's own shared memory, never shared) */
	if ((flags & VTW_BLOB_FLAG_SHAREABLE) && blob_id != 0 && w->opts->share) {
		r = vtest_share_add(w->opts->share, blob.fd, res_id, size);
		if (r) {
			srv_warn("blob %llu: cannot share: %s", (unsigned long long)blob_id,
				 strerror(-r));
			vkfd_host_context_detach_resource(w->ctx, res_id);
			res_set(w, res_id, false);
			close(blob.fd);
			res_id = 0;
			goto fail;
		}
	}
	r = reply(w, VTW_CMD_RESOURCE_CREATE_BLOB, &res_id, 1);
	if (!r)
		r = vtio_send_fd(w->sock, blob.fd);
	close(blob.fd);
	srv_dbg("blob %llu -> res %u", (unsigned long long)blob_id, res_id);
	return r;
fail:
	/* No fd follows a zero res_id: the client reports the failure. */
	return reply(w, VTW_CMD_RESOURCE_CREATE_BLOB, &res_id, 1);
}

static int cmd_resource_unref(struct worker *w)
{
	uint32_t res_id = w->buf[0];

	if (!res_test(w, res_id)) {
		srv_warn("unref of unknown resource %u ignored", res_id);
		return 0;
	}
	vkfd_host_context_detach_resource(w->ctx, res_id);
	if (w->opts->share)
		vtest_share_remove(w->opts->share, res_id);
	res_set(w, res_id, false);
	return 0;
}

/* RESOURCE_IMPORT_FD: the fd follows the header. Only a file a worker of
 * this server exported as a shareable blob is attached; anything else is
 * answered res_id 0 (docs/server.md, "Shared resources"). */
static int cmd_resource_import_fd(struct worker *w)
{
	uint32_t out[VTW_IMPORT_FD_REPLY_DWORDS] = {0, 0, 0};
	uint64_t size = 0;
	uint32_t res_id;
	int fd, r;

	fd = vtio_recv_fd(w->sock, -1);
	if (fd < 0) {
		srv_warn("RESOURCE_IMPORT_FD without an fd: %s", strerror(-fd));
		return fd == -EBADMSG ? -EPROTO : fd;
	}
	if (!w->opts->share || !vtest_share_lookup(w->opts->share, fd, &size)) {
		srv_warn("RESOURCE_IMPORT_FD: not a blob this server shares");
		goto out;
	}
	res_id = res_alloc(w);
	if (!res_id) {
		srv_warn("resource table full");
		goto out;
	}
	r = vkfd_host_context_attach_resource(w->ctx, res_id, fd, size);
	if (r) {
		srv_warn("RESOURCE_IMPORT_FD: attach: %s", strerror(-r));
		res_set(w, res_id, false);
		goto out;
	}
	out[0] = res_id;
	out[1] = (uint32_t)size;
	out[2] = (uint32_t)(size >> 32);
	srv_dbg("imported fd -> res %u (%llu bytes)", res_id, (unsigned long long)size);
out:
	close(fd);
	return reply(w, VTW_CMD_RESOURCE_IMPORT_FD, out, VTW_IMPORT_FD_REPLY_DWORDS);
}

static int cmd_sync_create(struct worker *w)
{
	uint32_t id = 0;
	int r;

	pthread_mutex_lock(&w->lock);
	r = vsync_create(w->syncs, w->buf[0] | (uint64_t)w->buf[1] << 32, &id);
	pthread_mutex_unlock(&w->lock);

	if (r) {
		srv_warn("sync create: %s", strerror(-r));
		return r;
	}
	return reply(w, VTW_CMD_SYNC_CREATE, &id, 1);
}

static int cmd_sync_read(struct worker *w)
{
	uint64_t v;
	int r;

	pthread_mutex_lock(&w->lock);
	r = vsync_read(w->syncs, w->buf[0], &v);
	pthread_mutex_unlock(&w->lock);

	if (r) {
		srv_warn("sync read of unknown id %u", w->buf[0]);
		return r;
	}
	uint32_t out[2] = {(uint32_t)v, (uint32_t)(v >> 32)};

	return reply(w, VTW_CMD_SYNC_READ, out, 2);
}

static int cmd_sync_wait(struct worker *w, uint32_t len)
{
	uint32_t n;
	bool keep;
	int fd, r;

	if (len < 2 || (len - 2) % 3) {
		srv_warn("SYNC_WAIT of %u dwords", len);
		return -EBADMSG;
	}
	n = (len - 2) / 3;
	pthread_mutex_lock(&w->lock);
	fd = vsync_wait(w->syncs, w->buf[0], (int32_t)w->buf[1], w->buf + 2, n, &keep);
	/* a kept fd may be signalled and closed by a retiring thread as soon
	 * as the lock is released: send a duplicate */
	if (fd >= 0 && keep) {
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			fd = -errno;
	}
	pthread_mutex_unlock(&w->lock);
	if (fd < 0) {
		srv_warn("SYNC_WAIT: %s", strerror(-fd));
		return fd;
	}
	r = reply(w, VTW_CMD_SYNC_WAIT, NULL, 0);
	if (!r)
		r = vtio_send_fd(w->sock, fd);
	close(fd);
	return r;
}

static int check_batch(struct worker *w, const uint32_t *b, uint32_t len)
{
	uint64_t cmd_end = (uint64_t)b[VTW_BATCH_CMD_OFFSET] + b[VTW_BATCH_CMD_SIZE];
	uint64_t sync_end = (uint64_t)b[VTW_BATCH_SYNC_OFFSET] + 3ull * b[VTW_BATCH_SYNC_COUNT];
	uint32_t flags = b[VTW_BATCH_FLAGS];

	if ((flags & ~VTW_SUBMIT_FLAG_RING_IDX) || cmd_end > len || sync_end > len ||
	    b[VTW_BATCH_SYNC_COUNT] > VSYNC_MAX_WAIT_ENTRIES ||
	    ((flags & VTW_SUBMIT_FLAG_RING_IDX) && b[VTW_BATCH_RING_IDX] >= NUM_RINGS) ||
	    b[VTW_BATCH_NUM_IN_SYNCOBJ] || b[VTW_BATCH_NUM_OUT_SYNCOBJ])
		return -EBADMSG;
	const uint32_t *syncs = w->buf + b[VTW_BATCH_SYNC_OFFSET];
	int r = 0;

	pthread_mutex_lock(&w->lock);
	for (uint32_t i = 0; i < b[VTW_BATCH_SYNC_COUNT] && !r; i++)
		if (!vsync_exists(w->syncs, syncs[3 * i]))
			r = -ENOENT;
	pthread_mutex_unlock(&w->lock);
	return r;
}

static int run_batch(struct worker *w, const uint32_t *b)
{
	uint32_t ring = (b[VTW_BATCH_FLAGS] & VTW_SUBMIT_FLAG_RING_IDX) ? b[VTW_BATCH_RING_IDX] : 0;
	uint32_t nsync = b[VTW_BATCH_SYNC_COUNT];
	const uint32_t *syncs = w->buf + b[VTW_BATCH_SYNC_OFFSET];
	int r;

	if (b[VTW_BATCH_CMD_SIZE]) {
		r = vkfd_host_context_submit_cmd(w->ctx, w->buf + b[VTW_BATCH_CMD_OFFSET],
						 (size_t)b[VTW_BATCH_CMD_SIZE] * 4);
		/* The host reports framing errors to the guest through the
		 * shmem; the fence below still retires so nobody hangs. */
		if (r)
			srv_warn("submit of %u dwords: %s", b[VTW_BATCH_CMD_SIZE], strerror(-r));
	}
	if (!nsync)
		return 0;
	struct pending *p = calloc(1, sizeof(*p) + nsync * sizeof(p->s[0]));
	uint64_t fence;

	if (!p)
		return -ENOMEM;
	fence = p->fence = ++w->ring_seq[ring];
	p->n = nsync;
	for (uint32_t i = 0; i < nsync; i++) {
		p->s[i].id = syncs[3 * i];
		p->s[i].value = syncs[3 * i + 1] | (uint64_t)syncs[3 * i + 2] << 32;
	}
	pthread_mutex_lock(&w->lock);
	if (w->npending >= VTEST_MAX_PENDING) {
		pthread_mutex_unlock(&w->lock);
		free(p);
		srv_warn("too many pending fenced batches");
		return -ENOSPC;
	}
	if (w->q[ring].tail)
		w->q[ring].tail->next = p;
	else
		w->q[ring].head = p;
	w->q[ring].tail = p;
	w->npending++;
	pthread_mutex_unlock(&w->lock);
	/* p may be retired (and freed) from here on: use the copy */
	r = vkfd_host_context_submit_fence(w->ctx, 0, ring, fence);
	if (r) {
		/* Unreachable fence: signal now rather than never. */
		srv_warn("fence on ring %u: %s", ring, strerror(-r));
		retire_cb(w, CTX_ID, ring, fence);
	}
	return 0;
}

static int cmd_submit_cmd2(struct worker *w, uint32_t len)
{
	uint32_t count;
	int r;

	if (len < 1)
		return -EBADMSG;
	count = w->buf[0];
	if (count > (len - 1) / VTW_BATCH_DWORDS) {
		srv_warn("SUBMIT_CMD2: %u batches in %u dwords", count, len);
		return -EBADMSG;
	}
	for (uint32_t i = 0; i < count; i++) {
		r = check_batch(w, w->buf + 1 + i * VTW_BATCH_DWORDS, len);
		if (r) {
			srv_warn("SUBMIT_CMD2: batch %u invalid (%s)", i, strerror(-r));
			return r;
		}
	}
	for (uint32_t i = 0; i < count; i++) {
		r = run_batch(w, w->buf + 1 + i * VTW_BATCH_DWORDS);
		if (r)
			return r;
	}
	return 0;
}

/* Fixed payload sizes, in dwords; -1 = variable. */
static int fixed_len(uint32_t cmd)
{
	switch (cmd) {
	case VTW_CMD_PING_PROTOCOL_VERSION:
		return 0;
	case VTW_CMD_PROTOCOL_VERSION:
		return 1;
	case VTW_CMD_GET_PARAM:
		return 1;
	case VTW_CMD_GET_CAPSET:
		return 2;
	case VTW_CMD_CONTEXT_INIT:
		return 1;
	case VTW_CMD_RESOURCE_CREATE_BLOB:
		return VTW_CREATE_BLOB_DWORDS;
	case VTW_CMD_RESOURCE_UNREF:
		return 1;
	case VTW_CMD_SYNC_CREATE:
		return 2;
	case VTW_CMD_SYNC_UNREF:
		return 1;
	case VTW_CMD_SYNC_READ:
		return 1;
	case VTW_CMD_SYNC_WRITE:
		return 3;
	case VTW_CMD_RESOURCE_IMPORT_FD:
		return 0;
	default:
		return -1;
	}
}

static int dispatch(struct worker *w, uint32_t len, uint32_t cmd)
{
	int fl, r;

	if (!w->have_renderer) {
		if (cmd != VTW_CMD_CREATE_RENDERER) {
			srv_warn("first command %u is not CREATE_RENDERER", cmd);
			return -EPROTO;
		}
		return cmd_create_renderer(w, len);
	}
	switch (cmd) {
	case VTW_CMD_PING_PROTOCOL_VERSION:
	case VTW_CMD_PROTOCOL_VERSION:
		break;
	case VTW_CMD_GET_PARAM:
	case VTW_CMD_GET_CAPSET:
	case VTW_CMD_CONTEXT_INIT:
	case VTW_CMD_RESOURCE_CREATE_BLOB:
	case VTW_CMD_RESOURCE_UNREF:
	case VTW_CMD_SYNC_CREATE:
	case VTW_CMD_SYNC_UNREF:
	case VTW_CMD_SYNC_READ:
	case VTW_CMD_SYNC_WRITE:
	case VTW_CMD_SYNC_WAIT:
	case VTW_CMD_SUBMIT_CMD2:
	case VTW_CMD_RESOURCE_IMPORT_FD:
		if (w->version < 3) {
			srv_warn("command %u needs protocol version 3", cmd);
			return -EPROTO;
		}
		break;
	default:
		srv_warn("unsupported command %u (%u dwords)", cmd, len);
		return -ENOTSUP;
	}
	if ((uint64_t)len * 4 > VTEST_MAX_MSG_BYTES) {
		srv_warn("command %u: %u dwords exceeds the limit", cmd, len);
		return -EMSGSIZE;
	}
	fl = fixed_len(cmd);
	if (fl >= 0 && (r = expect_len(cmd, len, (uint32_t)fl)))
		return r;
	r = read_payload(w, (size_t)len * 4);
	if (r)
		return r;

	switch (cmd) {
	case VTW_CMD_PING_PROTOCOL_VERSION:
		return reply(w, VTW_CMD_PING_PROTOCOL_VERSION, NULL, 0);
	case VTW_CMD_PROTOCOL_VERSION:
		return cmd_protocol_version(w);
	case VTW_CMD_GET_PARAM:
		return cmd_get_param(w);
	case VTW_CMD_GET_CAPSET:
		return cmd_get_capset(w);
	case VTW_CMD_CONTEXT_INIT:
		return cmd_context_init(w);
	case VTW_CMD_SYNC_CREATE:
		return cmd_sync_create(w);
	case VTW_CMD_SYNC_UNREF:
		pthread_mutex_lock(&w->lock);
		r = vsync_unref(w->syncs, w->buf[0]);
		pthread_mutex_unlock(&w->lock);
		if (r)
			srv_warn("unref of unknown sync %u", w->buf[0]);
		return r;
	case VTW_CMD_SYNC_READ:
		return cmd_sync_read(w);
	case VTW_CMD_SYNC_WRITE:
		pthread_mutex_lock(&w->lock);
		r = vsync_write(w->syncs, w->buf[0], w->buf[1] | (uint64_t)w->buf[2] << 32);
		pthread_mutex_unlock(&w->lock);
		if (r)
			srv_warn("write of unknown sync %u", w->buf[0]);
		return r;
	case VTW_CMD_SYNC_WAIT:
		return cmd_sync_wait(w, len);
	}
	if ((r = need_ctx(w, cmd)))
		return r;
	switch (cmd) {
	case VTW_CMD_RESOURCE_CREATE_BLOB:
		return cmd_create_blob(w);
	case VTW_CMD_RESOURCE_UNREF:
		return cmd_resource_unref(w);
	case VTW_CMD_SUBMIT_CMD2:
		return cmd_submit_cmd2(w, len);
	case VTW_CMD_RESOURCE_IMPORT_FD:
		return cmd_resource_import_fd(w);
	}
	return -ENOTSUP;
}

static int serve(struct worker *w)
{
	/* Only the socket to wait for (fences retire on the host library's
	 * threads): a blocking read, no poll per message. */
	for (;;) {
		uint32_t hdr[VTW_HDR_DWORDS];
		unsigned stray = 0;
		int r = vtio_read_full(w->sock, hdr, sizeof(hdr), -1, &stray);

		if (stray)
			srv_warn("client sent %u unexpected fds (closed)", stray);
		if (r == -EPIPE)
			return 0; /* orderly or abrupt disconnect */
		if (r)
			return r;
		r = dispatch(w, hdr[VTW_HDR_LEN], hdr[VTW_HDR_CMD]);
		if (r)
			return r;
	}
}

int vtest_worker_run(int sock, const struct vtest_worker_opts *opts)
{
	struct worker w;
	int r;

	memset(&w, 0, sizeof(w));
	w.sock = sock;
	w.opts = opts;
	pthread_mutex_init(&w.lock, NULL);
	w.syncs = vsync_table_create();
	w.res_used = calloc(VTEST_MAX_RESOURCES / 8, 1);
	if (!w.syncs || !w.res_used) {
		r = -ENOMEM;
		goto out;
	}
	r = serve(&w);
	if (r == -EPIPE)
		r = 0;
	if (r)
		srv_info("dropping client '%s': %s", w.name, strerror(-r));
	else
		srv_info("client '%s' disconnected", w.name);
out:
	if (opts->share)
		vtest_share_forget(opts->share, getpid());
	if (w.ctx)
		vkfd_host_context_destroy(w.ctx); /* releases every object */
	if (w.host_up)
		vkfd_host_fini();
	free_pending(&w);
	vsync_table_destroy(w.syncs);
	pthread_mutex_destroy(&w.lock);
	free(w.res_used);
	free(w.buf);
	close(sock);
	return r ? 1 : 0;
}
