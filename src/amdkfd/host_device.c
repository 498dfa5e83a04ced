// SPDX-License-Identifier: MIT
/*
 * Process-wide device: selection (config, VKFD_DEVICE env), KFD version,
 * and the sanitized topology export shared by every context.
 */
#include "host_internal.h"
#include "host_log.h"
#include "kfd_uapi_ext.h"
#include "vkfd_config.h"

#ifdef VKFD_HOST_WITH_KFDSIM
#include "vkfd/kfdsim.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct host_global host_g = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
};

static enum vkfd_host_device device_choice(enum vkfd_host_device cfg)
{
	const char *env = getenv("VKFD_DEVICE");

	if (env && !strcmp(env, "real"))
		return VKFD_DEVICE_REAL;
	if (env && !strcmp(env, "sim"))
		return VKFD_DEVICE_SIM;
	if (env && !strcmp(env, "auto"))
		return VKFD_DEVICE_AUTO;
	if (env && *env)
		vkfd_warn("VKFD_DEVICE=%s not understood (real|sim|auto), using config", env);
	return cfg;
}

static bool real_kfd_usable(void)
{
#if VKFD_HAVE_REAL_DEVICE
	int fd = open("/dev/kfd", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return false;
	close(fd);
	return true;
#else
	return false;
#endif
}

/* The device's answer, checked for what this host is written for. */
static int query_caps(const struct vkfd_device_ops *ops, void *dev, struct vkfd_device_caps *caps)
{
	int ret;

	if (!ops->query_caps)
		return -ENODEV; /* a device only a guest library can use */
	ret = ops->query_caps(dev, caps);
	if (ret)
		return ret;
	return caps->kfd_major == 1 ? 0 : -ENODEV;
}

static int serialize_topology(struct host_global *g)
{
	size_t cap = 0, off = 0;

	for (uint32_t i = 0; i < g->topo.n_files; i++)
		cap += vkfd_topo_record_size(strlen(g->topo.files[i].path), g->topo.files[i].len);
	if (cap > VKFD_TOPOLOGY_MAX_SIZE)
		return -E2BIG;
	g->topo_blob = calloc(1, cap ? cap : 8);
	if (!g->topo_blob)
		return -ENOMEM;
	for (uint32_t i = 0; i < g->topo.n_files; i++) {
		const struct topo_file *f = &g->topo.files[i];
		uint32_t len = f->len > VKFD_TOPOLOGY_MAX_FILE ? VKFD_TOPOLOGY_MAX_FILE : f->len;
		int ret =
		    vkfd_topo_put(g->topo_blob, cap, &off, f->path, strlen(f->path), f->data, len);

		if (ret)
			return ret;
	}
	g->topo_len = off;
	return 0;
}

int host_device_open_locked(const struct vkfd_host_config *cfg)
{
	struct host_global *g = &host_g;
	enum vkfd_host_device want = device_choice(cfg->device);
	int ret;

	host_assert_held(&host_g.lock);
	if (want == VKFD_DEVICE_REAL || (want == VKFD_DEVICE_AUTO && real_kfd_usable())) {
#if VKFD_HAVE_REAL_DEVICE
		g->ops = vkfd_real_device_ops();
		g->dev = NULL;
#else
		vkfd_err("this build has no real device backend");
		return -ENODEV;
#endif
	} else {
#ifdef VKFD_HOST_WITH_KFDSIM
		struct kfdsim_config sc;

		kfdsim_config_default(&sc);
		ret = kfdsim_config_from_env(&sc);
		if (ret)
			return ret;
		g->sim = kfdsim_create(&sc);
		if (!g->sim)
			return errno ? -errno : -ENODEV;
		g->ops = kfdsim_device_ops();
		g->dev = g->sim;
#else
		vkfd_err("this build has no kfdsim and /dev/kfd is not usable");
		return -ENODEV;
#endif
	}

	ret = query_caps(g->ops, g->dev, &g->caps);
	if (ret == -ENODEV && g->caps.kfd_major) {
		vkfd_err("%s: KFD major version %u not supported", g->ops->name, g->caps.kfd_major);
		goto fail;
	}
	if (ret) {
		vkfd_err("%s: no capabilities (GET_VERSION): %s", g->ops->name, strerror(-ret));
		goto fail;
	}
	ret = topo_export_build(&g->topo, g->ops->sysfs_root(g->dev), cfg->gpu_mask,
				cfg->quota.vram_bytes);
	if (ret) {
		vkfd_err("%s: no usable GPU in the topology (%s)", g->ops->name, strerror(-ret));
		goto fail;
	}
	ret = serialize_topology(g);
	if (ret)
		goto fail;
	vkfd_info("device %s, KFD %u.%u, %u GPU(s)", g->ops->name, g->caps.kfd_major,
		  g->caps.kfd_minor, g->topo.n_gpus);
	return 0;
fail:
	host_device_close_locked();
	return ret;
}

void host_device_close_locked(void)
{
	struct host_global *g = &host_g;

	host_assert_held(&host_g.lock);
	topo_export_free(&g->topo);
	free(g->topo_blob);
	g->topo_blob = NULL;
	g->topo_len = 0;
#ifdef VKFD_HOST_WITH_KFDSIM
	if (g->sim)
		kfdsim_destroy(g->sim);
#endif
	g->sim = NULL;
	g->ops = NULL;
	g->dev = NULL;
	memset(g->gpu_active, 0, sizeof(g->gpu_active));
	memset(&g->caps, 0, sizeof(g->caps));
}

/* For the capset before vkfd_host_init(): what the device would report. */
int host_device_probe_caps(struct vkfd_device_caps *caps, uint32_t *n_gpus)
{
	enum vkfd_host_device want = device_choice(VKFD_DEVICE_AUTO);

#if VKFD_HAVE_REAL_DEVICE
	if (want != VKFD_DEVICE_SIM && real_kfd_usable()) {
		struct topo_export t;

		if (query_caps(vkfd_real_device_ops(), NULL, caps))
			return -ENODEV;
		*n_gpus = 0;
		if (!topo_export_build(&t, "", 0, 0)) {
			*n_gpus = t.n_gpus;
			topo_export_free(&t);
		}
		return 0;
	}
#endif
#ifdef VKFD_HOST_WITH_KFDSIM
	if (want != VKFD_DEVICE_REAL) {
		struct kfdsim_config sc;

		kfdsim_config_default(&sc);
		if (kfdsim_config_from_env(&sc))
			return -EINVAL;
		if (kfdsim_config_caps(&sc, caps))
			return -EINVAL;
		*n_gpus = sc.gpu_count;
		return 0;
	}
#endif
	(void)want;
	return -ENODEV;
}
