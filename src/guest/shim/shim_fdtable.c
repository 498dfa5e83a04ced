// SPDX-License-Identifier: MIT
/*
 * Device fd table of the preload shim.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "shim_core.h"
#include "shim_fdtable.h"
#include "shim_real.h"

/* A process has a handful of device fds (one KFD fd, one render fd per GPU,
 * and dups); a small linear table is enough. */
#define SHIM_FD_MAX 256

struct fd_slot {
	int fd;
	struct shim_devfile *f;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct fd_slot table[SHIM_FD_MAX];
static unsigned used; /* slots [0, used) are occupied */
static atomic_uint nr_fds;
static unsigned generation;

bool shim_fd_any(void)
{
	return atomic_load_explicit(&nr_fds, memory_order_acquire) != 0;
}

static int insert_locked(int fd, struct shim_devfile *f)
{
	if (used >= SHIM_FD_MAX)
		return -EMFILE;
	table[used].fd = fd;
	table[used].f = f;
	used++;
	atomic_fetch_add_explicit(&nr_fds, 1, memory_order_release);
	return 0;
}

static int find_locked(int fd)
{
	for (unsigned i = 0; i < used; i++)
		if (table[i].fd == fd)
			return (int)i;
	return -1;
}

int shim_fd_register(int backend_fd, enum shim_fd_kind kind, int minor)
{
	struct shim_devfile *f;
	int ret;

	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->backend_fd = backend_fd;
	f->kind = kind;
	f->minor = minor;
	f->refs = 1;
	pthread_mutex_lock(&table_lock);
	f->generation = generation;
	if (find_locked(backend_fd) >= 0)
		ret = -EEXIST; /* the backend reused a live number: a bug */
	else
		ret = insert_locked(backend_fd, f);
	pthread_mutex_unlock(&table_lock);
	if (ret)
		free(f);
	return ret;
}

int shim_fd_register_dup(int fd, struct shim_devfile *f)
{
	int ret;

	pthread_mutex_lock(&table_lock);
	if (find_locked(fd) >= 0) {
		ret = -EEXIST;
	} else {
		ret = insert_locked(fd, f);
		if (!ret)
			f->refs++;
	}
	pthread_mutex_unlock(&table_lock);
	return ret;
}

struct shim_devfile *shim_fd_get(int fd)
{
	struct shim_devfile *f = NULL;
	int i;

	if (fd < 0 || !shim_fd_any())
		return NULL;
	pthread_mutex_lock(&table_lock);
	i = find_locked(fd);
	if (i >= 0) {
		f = table[i].f;
		f->refs++;
	}
	pthread_mutex_unlock(&table_lock);
	return f;
}

struct shim_devfile *shim_fd_remove(int fd)
{
	struct shim_devfile *f = NULL;
	int i;

	if (fd < 0 || !shim_fd_any())
		return NULL;
	pthread_mutex_lock(&table_lock);
	i = find_locked(fd);
	if (i >= 0) {
		f = table[i].f;
		table[i] = table[used - 1];
		used--;
		atomic_fetch_sub_explicit(&nr_fds, 1, memory_order_release);
	}
	pthread_mutex_unlock(&table_lock);
	return f;
}

bool shim_fd_current(const struct shim_devfile *f)
{
	bool cur;

	pthread_mutex_lock(&table_lock);
	cur = f->generation == generation;
	pthread_mutex_unlock(&table_lock);
	return cur;
}

void shim_fd_put(struct shim_devfile *f)
{
	const struct shim_backend *b;
	bool last, cur;
	int ret;

	pthread_mutex_lock(&table_lock);
	last = --f->refs == 0;
	cur = f->generation == generation;
	pthread_mutex_unlock(&table_lock);
	if (!last)
		return;

	shim_enter();
	b = cur ? shim_backend_get() : NULL;
	if (b) {
		ret = b->close(f->backend_fd);
		shim_debug("close(%d) -> backend %s: %d", f->backend_fd, b->name, ret);
	} else {
		/* Inherited from the parent: its device state is gone, only the
		 * descriptor is left. */
		shim_real_get()->close(f->backend_fd);
	}
	shim_leave();
	free(f);
}

void shim_fd_atfork_child(void)
{
	pthread_mutex_init(&table_lock, NULL);
	generation++;
}
