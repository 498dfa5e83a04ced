// SPDX-License-Identifier: MIT
/*
 * A VMM in virglrenderer's ASYNC_FENCE_CB mode (QEMU's) whose amdkfd
 * context's render-server worker dies: fences submitted afterwards must
 * still retire (docs/integration.md, patch 0011), or the guest waits for
 * them forever. Not built by meson (needs a patched virglrenderer):
 *
 *   cc -o async_worker_death async_worker_death.c \
 *      $(pkg-config --cflags --libs virglrenderer) -lpthread
 *   RENDER_SERVER_EXEC_PATH=.../virgl_render_server ./async_worker_death
 *
 * Creates a context with capset 10 in a render-server worker, checks that a
 * fence on ring 1 retires, SIGKILLs the worker, submits a second fence and
 * waits up to 10 s for its retirement. Prints the process's CPU time over
 * the second after the kill (a sync thread spinning on the hung-up socket
 * shows as about 1 s). Exit 0 when the second fence retired.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <virglrenderer.h>
#include <virglrenderer_hw.h> /* VIRGL_RENDERER_CAPSET_AMDKFD */

#define CTX_ID 1

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static uint64_t last_fence;

static void write_fence(void *cookie, uint32_t fence)
{
	(void)cookie;
	(void)fence;
}

static void write_context_fence(void *cookie, uint32_t ctx_id, uint32_t ring, uint64_t fence)
{
	(void)cookie;
	(void)ctx_id;
	(void)ring;
	pthread_mutex_lock(&lock);
	if (fence > last_fence)
		last_fence = fence;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static struct virgl_renderer_callbacks cbs = {
    .version = 3,
    .write_fence = write_fence,
    .write_context_fence = write_context_fence,
};

/* true when fence `id` retired within ms */
static int wait_fence(uint64_t id, int ms)
{
	struct timespec dl;
	int ok;

	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_sec += ms / 1000;
	dl.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (dl.tv_nsec >= 1000000000L) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&lock);
	while (last_fence < id && pthread_cond_timedwait(&cond, &lock, &dl) != ETIMEDOUT) {
	}
	ok = last_fence >= id;
	pthread_mutex_unlock(&lock);
	return ok;
}

/* First child of pid, or 0. */
static pid_t child_of(pid_t pid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	while (d && (e = readdir(d)) && !found) {
		char path[300], buf[512], *p;
		FILE *f;
		int ppid;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')')) &&
		    sscanf(p + 2, "%*c %d", &ppid) == 1 && ppid == pid)
			found = atoi(e->d_name);
		fclose(f);
	}
	if (d)
		closedir(d);
	return found;
}

static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(void)
{
	const int flags = VIRGL_RENDERER_NO_VIRGL | VIRGL_RENDERER_THREAD_SYNC |
			  VIRGL_RENDERER_ASYNC_FENCE_CB | VIRGL_RENDERER_RENDER_SERVER |
			  VIRGL_RENDERER_AMDKFD;
	const char name[] = "async-worker-death";
	pid_t server, worker;
	double c0;
	int r;

	r = virgl_renderer_init(NULL, flags, &cbs);
	if (r) {
		fprintf(stderr, "virgl_renderer_init: %d\n", r);
		return 2;
	}
	r = virgl_renderer_context_create_with_flags(CTX_ID, VIRGL_RENDERER_CAPSET_AMDKFD,
						     sizeof(name) - 1, name);
	if (r) {
		fprintf(stderr, "context create: %d\n", r);
		return 2;
	}
	if (virgl_renderer_context_create_fence(CTX_ID, 0, 1, 1) || !wait_fence(1, 10000)) {
		fprintf(stderr, "fence 1 did not retire with the worker alive\n");
		return 2;
	}
	server = child_of(getpid());
	worker = server ? child_of(server) : 0;
	if (!worker) {
		fprintf(stderr, "no render-server worker found\n");
		return 2;
	}
	printf("killing worker %d (render server %d)\n", (int)worker, (int)server);
	kill(worker, SIGKILL);
	usleep(200000);
	c0 = cpu_s();
	sleep(1);
	printf("CPU time in the second after the kill: %.3f s\n", cpu_s() - c0);
	r = virgl_renderer_context_create_fence(CTX_ID, 0, 1, 2);
	printf("create_fence after the kill: %d\n", r);
	r = wait_fence(2, 10000);
	printf("fence 2 %s\n", r ? "retired" : "did not retire within 10 s");
	virgl_renderer_context_destroy(CTX_ID);
	virgl_renderer_cleanup(NULL);
	return r ? 0 : 1;
}
