// SPDX-License-Identifier: MIT
/* kfdsim configuration: defaults and the VKFDSIM_* environment variables. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim_priv.h"

void kfdsim_config_default(struct kfdsim_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->gpu_count = 1;
	strcpy(cfg->target, "gfx90a");
	cfg->vram_size = 16ULL << 30;
	cfg->gtt_size = 8ULL << 30;
	cfg->kfd_minor = 17;
	cfg->secondary_processes = false;
}

static int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int kfdsim_config_from_env(struct kfdsim_config *cfg)
{
	const char *s;
	uint64_t v;

	kfdsim_config_default(cfg);
	s = getenv("VKFDSIM_GPUS");
	if (s) {
		if (parse_u64(s, 1, KFDSIM_MAX_GPUS, &v))
			return -EINVAL;
		cfg->gpu_count = (unsigned)v;
	}
	s = getenv("VKFDSIM_TARGET");
	if (s) {
		if (strlen(s) >= sizeof(cfg->target) || !sim_target_find(s))
			return -EINVAL;
		strcpy(cfg->target, s);
	}
	s = getenv("VKFDSIM_VRAM_MB");
	if (s) {
		/* up to 1 TiB per GPU */
		if (parse_u64(s, 1, 1ULL << 20, &v))
			return -EINVAL;
		cfg->vram_size = v << 20;
	}
	s = getenv("VKFDSIM_KFD_MINOR");
	if (s) {
		if (parse_u64(s, 1, SIM_MAX_KFD_MINOR, &v)) {
			/* a version kfdsim does not implement is refused, not
			 * reported (docs/kfd-uapi.md lists what each adds) */
			fprintf(stderr,
				"kfdsim: VKFDSIM_KFD_MINOR=%s refused: kfdsim implements KFD "
				"interface 1.1 to 1.%u (see docs/kfd-uapi.md)\n",
				s, SIM_MAX_KFD_MINOR);
			return -EINVAL;
		}
		cfg->kfd_minor = (uint32_t)v;
	}
	return 0;
}
