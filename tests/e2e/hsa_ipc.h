/* SPDX-License-Identifier: MIT */
/*
 * hsa_e2e ipc: ROCr's IPC memory API between two processes, part of
 * hsa_e2e.c (uses its setup, copy and report helpers).
 *
 * The program forks before either side starts ROCr. The exporter fills a
 * device buffer (GPU coarse-grained pool) by an SDMA copy and calls
 * hsa_amd_ipc_memory_create; the handle goes to the importer over a pipe.
 * The importer attaches it, copies the buffer to host memory, checks the
 * exporter's bytes, writes its own bytes into it and detaches; the
 * exporter then reads its buffer back and checks the importer's bytes.
 *
 * The first line says what hsa_amd_ipc_memory_create answered:
 * "hsa_e2e: ipc_memory_create 0xSTATUS". ROCr 5.x asks libhsakmt for a
 * share handle, which only ROCm's own kernel module gives (upstream
 * amdkfd lacks the ioctl: HSA_STATUS_ERROR_INVALID_ARGUMENT); ROCr 6.x
 * exports a dmabuf and passes it over a socket. Which answer each ROCm
 * version must give is the caller's to check (run_e2e.sh, run_matrix.sh).
 */
#include <sys/wait.h>
#include <unistd.h>

#define IPC_SIZE (64 * 1024)

struct ipc_msg {
	hsa_status_t create;
	hsa_amd_ipc_memory_t handle;
};

static bool full_write(int fd, const void *p, size_t n)
{
	return write(fd, p, n) == (ssize_t)n;
}

static bool full_read(int fd, void *p, size_t n)
{
	return read(fd, p, n) == (ssize_t)n;
}

static uint32_t ipc_word(uint32_t i, uint32_t seed)
{
	return i * 2654435761u ^ seed;
}

/* The importer: its own ROCr, attach, read, write, detach. */
static int ipc_importer(int rd, int wr)
{
	struct ctx c;
	struct ipc_msg m;
	uint32_t *host, bad = 0;
	void *ptr = NULL;
	hsa_status_t st;
	bool ok;
	char done = 1;

	if (!full_read(rd, &m, sizeof(m)))
		return EXIT_SETUP;
	if (m.create != HSA_STATUS_SUCCESS)
		return 0; /* nothing to attach: the exporter reports */
	setup(&c);
	host = alloc_in(&c, c.sys_pool, IPC_SIZE);
	st = hsa_amd_ipc_memory_attach(&m.handle, IPC_SIZE, 1, &c.gpu, &ptr);
	printf("hsa_e2e: [importer] ipc_memory_attach 0x%x\n", (unsigned)st);
	report("[importer] attach", st == HSA_STATUS_SUCCESS && ptr != NULL);
	if (st != HSA_STATUS_SUCCESS) {
		full_write(wr, &done, 1);
		return EXIT_CHECK;
	}
	memset(host, 0, IPC_SIZE);
	ok = copy(&c, host, c.cpu, ptr, c.gpu, IPC_SIZE);
	for (uint32_t i = 0; ok && i < IPC_SIZE / 4; i++)
		bad += host[i] != ipc_word(i, 0x1111);
	report("[importer] reads the exporter's bytes", ok && bad == 0);
	for (uint32_t i = 0; i < IPC_SIZE / 4; i++)
		host[i] = ipc_word(i, 0x2222);
	ok = copy(&c, ptr, c.gpu, host, c.cpu, IPC_SIZE);
	report("[importer] writes its bytes", ok);
	report("[importer] detach", hsa_amd_ipc_memory_detach(ptr) == HSA_STATUS_SUCCESS);
	CHECK_HSA(hsa_amd_memory_pool_free(host));
	CHECK_HSA(hsa_queue_destroy(c.queue));
	CHECK_HSA(hsa_shut_down());
	full_write(wr, &done, 1);
	return failures ? EXIT_CHECK : 0;
}

static int run_ipc(void)
{
	int to_child[2], to_parent[2], status = 0;
	struct ctx c;
	struct ipc_msg m;
	uint32_t *dev, *host, bad = 0;
	pid_t pid;
	bool ok;
	char done = 0;

	if (pipe(to_child) || pipe(to_parent)) {
		fprintf(stderr, "hsa_e2e: pipe failed\n");
		return EXIT_SETUP;
	}
	/* before either side loads ROCr */
	pid = fork();
	if (pid < 0)
		return EXIT_SETUP;
	if (pid == 0) {
		close(to_child[1]);
		close(to_parent[0]);
		_exit(ipc_importer(to_child[0], to_parent[1]));
	}
	close(to_child[0]);
	close(to_parent[1]);
	setup(&c);
	dev = alloc_in(&c, c.dev_pool, IPC_SIZE);
	host = alloc_in(&c, c.sys_pool, IPC_SIZE);
	for (uint32_t i = 0; i < IPC_SIZE / 4; i++)
		host[i] = ipc_word(i, 0x1111);
	ok = copy(&c, dev, c.gpu, host, c.cpu, IPC_SIZE);
	report("[exporter] fills its device buffer", ok);
	memset(&m, 0, sizeof(m));
	m.create = hsa_amd_ipc_memory_create(dev, IPC_SIZE, &m.handle);
	printf("hsa_e2e: ipc_memory_create 0x%x\n", (unsigned)m.create);
	if (!full_write(to_child[1], &m, sizeof(m)))
		return EXIT_SETUP;
	if (m.create == HSA_STATUS_SUCCESS) {
		/* the importer attaches, reads and writes while this side lives */
		ok = full_read(to_parent[0], &done, 1) && done == 1;
		report("[exporter] importer finished", ok);
		ok = ok && copy(&c, host, c.cpu, dev, c.gpu, IPC_SIZE);
		for (uint32_t i = 0; ok && i < IPC_SIZE / 4; i++)
			bad += host[i] != ipc_word(i, 0x2222);
		report("[exporter] sees the importer's bytes", ok && bad == 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		fprintf(stderr, "hsa_e2e: importer ended with status 0x%x\n", (unsigned)status);
		failures++;
	}
	CHECK_HSA(hsa_amd_memory_pool_free(host));
	CHECK_HSA(hsa_amd_memory_pool_free(dev));
	CHECK_HSA(hsa_queue_destroy(c.queue));
	CHECK_HSA(hsa_shut_down());
	printf("hsa_e2e: %s (%d failed)\n", failures ? "FAILED" : "all passed", failures);
	return failures ? EXIT_CHECK : 0;
}
