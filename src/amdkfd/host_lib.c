// SPDX-License-Identifier: MIT
/* Library lifetime and the capset. */
#include "host_export.h"
#include "host_internal.h"
#include "host_log.h"

#include <errno.h>
#include <string.h>

/* Lowest host KFD this build is written for: 1.11 (Linux 6.1, Debian 12),
 * where BOs become blobs through the render node (render_alloc.c); from
 * 1.12 KFD's EXPORT_DMABUF is used. Neither was run on hardware here. */
#define HOST_MIN_KFD_MINOR 11
#define HOST_MIN_KERNEL    VKFD_KERNEL_VERSION(6, 1, 0)

VKFD_EXPORT size_t vkfd_host_capset_size(uint32_t version)
{
	return version >= VKFD_PROTO_VERSION_MIN && version <= VKFD_PROTO_VERSION_MAX
		   ? sizeof(struct vkfd_capset)
		   : 0;
}

VKFD_EXPORT int vkfd_host_capset_fill(uint32_t version, void *buf, size_t size)
{
	struct vkfd_capset c;
	struct vkfd_device_caps caps = {0};
	uint32_t n_gpus = 0, flags = 0;
	int ret = 0;

	/* every path leaves the whole buffer defined: a VMM that forwards it
	 * after a failure sends zeros, never its heap */
	if (buf && size)
		memset(buf, 0, size);
	if (!vkfd_host_capset_size(version) || !buf)
		return -EINVAL;
	if (size < sizeof(c))
		return -ENOSPC;
	pthread_mutex_lock(&host_g.lock);
	if (host_g.inited) {
		caps = host_g.caps;
		n_gpus = host_g.topo.n_gpus;
		flags = host_g.cfg.flags;
	} else {
		ret = host_device_probe_caps(&caps, &n_gpus);
	}
	pthread_mutex_unlock(&host_g.lock);
	if (ret)
		return ret;
	memset(&c, 0, sizeof(c));
	vkfd_capset_init(&c);
	c.features = host_features_for(&caps, flags);
	c.kfd_major = caps.kfd_major;
	c.kfd_minor = caps.kfd_minor;
	c.min_kfd_major = 1;
	c.min_kfd_minor = HOST_MIN_KFD_MINOR;
	c.min_kernel_version = HOST_MIN_KERNEL;
	c.num_gpus = n_gpus;
	memcpy(buf, &c, sizeof(c));
	return (int)sizeof(c);
}

VKFD_EXPORT int vkfd_host_init(const struct vkfd_host_config *cfg)
{
	int ret;

	if (!cfg || cfg->api_version != VKFD_HOST_API_VERSION)
		return -EINVAL;
	if (cfg->flags & ~(VKFD_HOST_FLAG_ASYNC_FENCES | VKFD_HOST_FLAG_ONE_KFD_PROCESS |
			   VKFD_HOST_FLAG_NO_ARENAS))
		return -EINVAL;
	if ((cfg->flags & VKFD_HOST_FLAG_ASYNC_FENCES) && !cfg->retire_fence)
		return -EINVAL;
	pthread_mutex_lock(&host_g.lock);
	if (host_g.inited) {
		pthread_mutex_unlock(&host_g.lock);
		return -EBUSY;
	}
	host_g.cfg = *cfg;
	ret = host_device_open_locked(cfg);
	if (!ret)
		host_g.inited = true;
	pthread_mutex_unlock(&host_g.lock);
	return ret;
}

VKFD_EXPORT void vkfd_host_reset(void)
{
	host_contexts_destroy_all();
}

VKFD_EXPORT void vkfd_host_fini(void)
{
	host_contexts_destroy_all();
	pthread_mutex_lock(&host_g.lock);
	if (host_g.inited) {
		host_device_close_locked();
		host_g.inited = false;
	}
	pthread_mutex_unlock(&host_g.lock);
}
