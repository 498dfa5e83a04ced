// SPDX-License-Identifier: MIT
/*
 * The share table: a fixed array in MAP_SHARED anonymous memory, guarded
 * by a process-shared robust mutex (a worker killed while holding it must
 * not wedge the others). Entries are keyed by the exporting worker's pid
 * and resource id and found by the file's (st_dev, st_ino).
 */
#include "vtest_share.h"

#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

struct share_entry {
	pid_t pid; /* 0: free */
	uint32_t res_id;
	dev_t dev;
	ino_t ino;
	uint64_t size;
};

struct vtest_share {
	pthread_mutex_t lock;
	struct share_entry e[VTEST_SHARE_MAX];
};

struct vtest_share *vtest_share_create(void)
{
	pthread_mutexattr_t a;
	struct vtest_share *s;

	s = mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (s == MAP_FAILED)
		return NULL;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&s->lock, &a);
	pthread_mutexattr_destroy(&a);
	return s;
}

void vtest_share_destroy(struct vtest_share *s)
{
	if (s)
		munmap(s, sizeof(*s));
}

static void share_lock(struct vtest_share *s)
{
	/* the previous holder died: the table is only ever left with whole
	 * entries written or not (pid is set last), so it is consistent */
	if (pthread_mutex_lock(&s->lock) == EOWNERDEAD)
		pthread_mutex_consistent(&s->lock);
}

int vtest_share_add(struct vtest_share *s, int fd, uint32_t res_id, uint64_t size)
{
	struct stat st;
	pid_t me = getpid();
	int r = -ENOSPC;

	if (fstat(fd, &st))
		return -errno;
	share_lock(s);
	for (size_t i = 0; i < VTEST_SHARE_MAX; i++) {
		struct share_entry *e = &s->e[i];

		if (e->pid)
			continue;
		e->res_id = res_id;
		e->dev = st.st_dev;
		e->ino = st.st_ino;
		e->size = size;
		e->pid = me;
		r = 0;
		break;
	}
	pthread_mutex_unlock(&s->lock);
	return r;
}

void vtest_share_remove(struct vtest_share *s, uint32_t res_id)
{
	pid_t me = getpid();

	share_lock(s);
	for (size_t i = 0; i < VTEST_SHARE_MAX; i++)
		if (s->e[i].pid == me && s->e[i].res_id == res_id)
			s->e[i].pid = 0;
	pthread_mutex_unlock(&s->lock);
}

bool vtest_share_lookup(struct vtest_share *s, int fd, uint64_t *size)
{
	struct stat st;
	bool found = false;

	if (fstat(fd, &st))
		return false;
	share_lock(s);
	for (size_t i = 0; i < VTEST_SHARE_MAX && !found; i++) {
		const struct share_entry *e = &s->e[i];

		if (e->pid && e->dev == st.st_dev && e->ino == st.st_ino) {
			*size = e->size;
			found = true;
		}
	}
	pthread_mutex_unlock(&s->lock);
	return found;
}

void vtest_share_forget(struct vtest_share *s, pid_t pid)
{
	share_lock(s);
	for (size_t i = 0; i < VTEST_SHARE_MAX; i++)
		if (s->e[i].pid == pid)
			s->e[i].pid = 0;
	pthread_mutex_unlock(&s->lock);
}
