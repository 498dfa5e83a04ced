// SPDX-License-Identifier: MIT
/*
 * Run as a guest under vkfd-run (shim + vkfd-server): a forked child cannot
 * use its parent's KFD process (EBADF on the inherited fd, like the
 * kernel), gets its own host context when it reopens /dev/kfd, cannot name
 * the parent's objects, and leaves the parent's context working.
 * Exit 0 when every check holds; prints one line per failed check.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "kfd_uapi_ext.h"

#define TOPO "/sys/devices/virtual/kfd/kfd/topology/nodes/1/"
#define PAGE 4096ul

static int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			failures++;                                                                \
			printf("[%d] FAIL line %d: ", (int)getpid(), __LINE__);                    \
			printf(__VA_ARGS__);                                                       \
			printf("\n");                                                              \
		}                                                                                  \
	} while (0)

static long long topo_value(const char *file, const char *key)
{
	char line[256];
	long long v = -1;
	FILE *f = fopen(file, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		size_t kl = key ? strlen(key) : 0;

		if (!key) {
			v = strtoll(line, NULL, 10);
			break;
		}
		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			v = strtoll(line + kl + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return v;
}

static int kio(int fd, unsigned int nr, size_t size, void *arg)
{
	return ioctl(fd, _IOC(_IOC_READ | _IOC_WRITE, 'K', nr, size), arg) ? -errno : 0;
}

struct proc {
	int kfd, rfd;
	uint32_t gpu;
};

static int proc_open(struct proc *p)
{
	struct kfd_ioctl_get_version_args v = {0, 0};
	struct kfd_ioctl_acquire_vm_args a;
	int minor;

	p->gpu = (uint32_t)topo_value(TOPO "gpu_id", NULL);
	minor = (int)topo_value(TOPO "properties", "drm_render_minor");
	p->kfd = open("/dev/kfd", O_RDWR | O_CLOEXEC);
	if (p->kfd < 0 || kio(p->kfd, _IOC_NR(AMDKFD_IOC_GET_VERSION), sizeof(v), &v) ||
	    v.major_version != 1)
		return -1;
	{
		char path[64];

		snprintf(path, sizeof(path), "/dev/dri/renderD%d", minor);
		p->rfd = open(path, O_RDWR | O_CLOEXEC);
	}
	if (p->rfd < 0)
		return -1;
	a.drm_fd = (uint32_t)p->rfd;
	a.gpu_id = p->gpu;
	return kio(p->kfd, _IOC_NR(AMDKFD_IOC_ACQUIRE_VM), sizeof(a), &a);
}

/* GTT BO at a fresh VA, CPU-mapped through the render fd */
static uint32_t *bo_new(struct proc *p, size_t size, uint64_t *handle)
{
	struct kfd_ioctl_alloc_memory_of_gpu_args a;
	void *va = mmap(NULL, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (va == MAP_FAILED)
		return NULL;
	memset(&a, 0, sizeof(a));
	a.va_addr = (uintptr_t)va;
	a.size = size;
	a.gpu_id = p->gpu;
	a.flags = KFD_IOC_ALLOC_MEM_FLAGS_GTT | (1u << 31);
	if (kio(p->kfd, _IOC_NR(AMDKFD_IOC_ALLOC_MEMORY_OF_GPU), sizeof(a), &a))
		return NULL;
	*handle = a.handle;
	if (mmap(va, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, p->rfd,
		 (off_t)a.mmap_offset) != va)
		return NULL;
	return va;
}

int main(void)
{
	struct proc parent, child;
	struct kfd_ioctl_get_version_args v;
	struct kfd_ioctl_free_memory_of_gpu_args fr;
	uint64_t ph = 0, ch = 0;
	uint32_t *pm, *cm;
	pid_t pid;
	int st;

	if (proc_open(&parent)) {
		printf("cannot open the KFD device through the shim\n");
		return 2;
	}
	pm = bo_new(&parent, 4 * PAGE, &ph);
	CHECK(pm != NULL, "parent BO");
	if (!pm)
		return 1;
	pm[0] = 0xc0ffee;

	pid = fork();
	if (pid == 0) {
		failures = 0;
		/* the inherited KFD process belongs to the parent */
		CHECK(kio(parent.kfd, _IOC_NR(AMDKFD_IOC_GET_VERSION), sizeof(v), &v) == -EBADF,
		      "inherited kfd fd is not EBADF");
		/* reopening gives the child its own context */
		CHECK(proc_open(&child) == 0, "child reopen");
		cm = bo_new(&child, 4 * PAGE, &ch);
		CHECK(cm != NULL, "child BO");
		if (cm) {
			cm[0] = 0xbeef;
			CHECK(cm[0] == 0xbeef, "child BO memory");
		}
		/* the parent's handle means nothing in the child's context */
		if (ph != ch) {
			fr.handle = ph;
			CHECK(kio(child.kfd, _IOC_NR(AMDKFD_IOC_FREE_MEMORY_OF_GPU), sizeof(fr),
				  &fr) == -EINVAL,
			      "parent handle accepted by the child");
		}
		fr.handle = ch;
		CHECK(kio(child.kfd, _IOC_NR(AMDKFD_IOC_FREE_MEMORY_OF_GPU), sizeof(fr), &fr) == 0,
		      "child free");
		close(child.rfd);
		close(child.kfd);
		_exit(failures ? 1 : 0);
	}
	CHECK(pid > 0, "fork");
	CHECK(waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 0,
	      "child checks failed (status %#x)", st);
	/* the parent's context is untouched */
	CHECK(kio(parent.kfd, _IOC_NR(AMDKFD_IOC_GET_VERSION), sizeof(v), &v) == 0,
	      "parent GET_VERSION after fork");
	CHECK(pm[0] == 0xc0ffee, "parent BO memory after fork");
	fr.handle = ph;
	CHECK(kio(parent.kfd, _IOC_NR(AMDKFD_IOC_FREE_MEMORY_OF_GPU), sizeof(fr), &fr) == 0,
	      "parent free after fork");
	close(parent.rfd);
	close(parent.kfd);
	printf("fork_reopen: %s\n", failures ? "FAILED" : "all passed");
	return failures ? 1 : 0;
}
