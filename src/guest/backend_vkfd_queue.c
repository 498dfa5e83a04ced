// SPDX-License-Identifier: MIT
/*
 * vkfd backend: queue ioctls. The queue ids the guest sees index this
 * connection's table; the host's handles never reach the application.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "backend_vkfd_internal.h"

/* queue ids the guest sees index our table */
static struct bk_queue *bk_queue_get_locked(struct bk_conn *c, uint32_t id)
{
	BK_ASSERT_TABLE_LOCKED();
	if (id >= BK_MAX_QUEUES || !c->queues[id].used)
		return NULL;
	return &c->queues[id];
}

int bk_ioctl_create_queue(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct vkfd_kfd_create_queue_args *a = arg;
	struct vkfd_req_create_queue req;
	struct vkfd_rsp_create_queue rsp;
	uint32_t id;
	int r;

	memset(&req, 0, sizeof(req));
	req.ring_base_address = a->base.ring_base_address;
	req.write_pointer_address = a->base.write_pointer_address;
	req.read_pointer_address = a->base.read_pointer_address;
	req.eop_buffer_address = a->base.eop_buffer_address;
	req.eop_buffer_size = a->base.eop_buffer_size;
	req.ctx_save_restore_address = a->base.ctx_save_restore_address;
	req.ring_size = a->base.ring_size;
	req.gpu_id = a->base.gpu_id;
	req.queue_type = a->base.queue_type;
	req.queue_percentage = a->base.queue_percentage;
	req.queue_priority = a->base.queue_priority;
	req.ctx_save_restore_size = a->base.ctx_save_restore_size;
	req.ctl_stack_size = a->base.ctl_stack_size;
	/* an 88-byte (KFD <= 1.16) caller has no sdma_engine_id: zero */
	req.sdma_engine_id =
	    usize > sizeof(struct kfd_ioctl_create_queue_args) ? a->sdma_engine_id : 0;

	bk_table_lock();
	for (id = 0; id < BK_MAX_QUEUES; id++)
		if (!c->queues[id].used)
			break;
	if (id < BK_MAX_QUEUES) {
		c->queues[id].used = true; /* reserved until we know */
		c->n_queues++;
	}
	bk_table_unlock();
	if (id == BK_MAX_QUEUES)
		return -ENOMEM;
	r = bk_call(c, VKFD_CMD_CREATE_QUEUE, &req, sizeof(req), &rsp, sizeof(rsp));
	if (!r && rsp.doorbell_index >= BK_DOORBELL_SLOTS)
		r = -EIO;
	bk_table_lock();
	if (r) {
		c->queues[id].used = false;
		c->n_queues--;
	} else {
		c->queues[id].handle = rsp.queue;
		c->queues[id].gpu_id = a->base.gpu_id;
		c->queues[id].doorbell_index = rsp.doorbell_index;
	}
	bk_table_unlock();
	if (r)
		return r;
	a->base.queue_id = id;
	if (rsp.ring_size)
		a->base.ring_size = rsp.ring_size;
	/* the kernel's format: type | gpu_id | byte offset in the slice */
	a->base.doorbell_offset =
	    VKFD_KFD_MMAP_TYPE_DOORBELL |
	    ((uint64_t)(a->base.gpu_id & 0xffff) << VKFD_KFD_MMAP_GPU_ID_SHIFT) |
	    (uint64_t)rsp.doorbell_index * 8u;
	return 0;
}

int bk_ioctl_destroy_queue(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_destroy_queue_args *a = arg;
	struct vkfd_req_handle req;
	struct vkfd_rsp_empty rsp;
	struct bk_queue *q;
	int r;

	(void)usize;
	memset(&req, 0, sizeof(req));
	bk_table_lock();
	q = bk_queue_get_locked(c, a->queue_id);
	if (q)
		req.handle = q->handle;
	bk_table_unlock();
	if (!q)
		return -EINVAL;
	r = bk_call(c, VKFD_CMD_DESTROY_QUEUE, &req, sizeof(req), &rsp, sizeof(rsp));
	if (!r) {
		bk_table_lock();
		if (c->queues[a->queue_id].used)
			c->n_queues--;
		memset(&c->queues[a->queue_id], 0, sizeof(struct bk_queue));
		bk_table_unlock();
	}
	return r;
}

int bk_ioctl_update_queue(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_update_queue_args *a = arg;
	struct vkfd_req_update_queue req;
	struct vkfd_rsp_empty rsp;
	struct bk_queue *q;

	(void)usize;
	memset(&req, 0, sizeof(req));
	bk_table_lock();
	q = bk_queue_get_locked(c, a->queue_id);
	if (q)
		req.queue = q->handle;
	bk_table_unlock();
	if (!q)
		return -EINVAL;
	req.ring_base_address = a->ring_base_address;
	req.ring_size = a->ring_size;
	req.queue_percentage = a->queue_percentage;
	req.queue_priority = a->queue_priority;
	return bk_call(c, VKFD_CMD_UPDATE_QUEUE, &req, sizeof(req), &rsp, sizeof(rsp));
}

int bk_ioctl_set_cu_mask(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_set_cu_mask_args *a = arg;
	struct vkfd_req_set_cu_mask req;
	struct vkfd_rsp_empty rsp;
	struct bk_queue *q;
	uint32_t bits;
	int r;

	(void)usize;
	if (a->num_cu_mask == 0 || a->num_cu_mask % 32)
		return -EINVAL;
	memset(&req, 0, sizeof(req));
	bk_table_lock();
	q = bk_queue_get_locked(c, a->queue_id);
	if (q)
		req.queue = q->handle;
	bk_table_unlock();
	if (!q)
		return -EINVAL;
	/* the kernel reads at most its CU count worth of bits; we bound it
	 * at the protocol's limit the same way */
	bits = a->num_cu_mask < VKFD_MAX_CU_MASK_BITS ? a->num_cu_mask : VKFD_MAX_CU_MASK_BITS;
	r = bk_read_user(req.cu_mask, a->cu_mask_ptr, bits / 8u);
	if (r)
		return r;
	req.num_cu_mask = bits;
	return bk_call(c, VKFD_CMD_SET_CU_MASK, &req, VKFD_REQ_SET_CU_MASK_LEN(bits), &rsp,
		       sizeof(rsp));
}

int bk_ioctl_alloc_queue_gws(struct bk_conn *c, void *arg, uint32_t usize)
{
	struct kfd_ioctl_alloc_queue_gws_args *a = arg;
	struct vkfd_req_alloc_queue_gws req;
	struct vkfd_rsp_alloc_queue_gws rsp;
	struct bk_queue *q;
	int r;

	(void)usize;
	memset(&req, 0, sizeof(req));
	bk_table_lock();
	q = bk_queue_get_locked(c, a->queue_id);
	if (q)
		req.queue = q->handle;
	bk_table_unlock();
	if (!q)
		return -EINVAL;
	req.num_gws = a->num_gws;
	r = bk_call(c, VKFD_CMD_ALLOC_QUEUE_GWS, &req, sizeof(req), &rsp, sizeof(rsp));
	if (!r)
		a->first_gws = rsp.first_gws;
	return r;
}

/* GET_QUEUE_WAVE_STATE as a kernel with CWSR disabled answers it: an
 * unknown queue -EFAULT, a known one -EINVAL (no wave state is saved). */
int bk_ioctl_get_queue_wave_state(struct bk_conn *c, void *arg, uint32_t usize)
{
	const struct kfd_ioctl_get_queue_wave_state_args *a = arg;
	bool known;

	(void)usize;
	bk_table_lock();
	known = bk_queue_get_locked(c, a->queue_id) != NULL;
	bk_table_unlock();
	return known ? -EINVAL : -EFAULT;
}
