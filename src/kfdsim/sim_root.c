// SPDX-License-Identifier: MIT
/*
 * kfdsim's private sysfs tree under $TMPDIR (the default when the config
 * names no directory): made by kfdsim_create(), removed by kfdsim_destroy().
 *
 * A process killed before kfdsim_destroy() would leave its tree behind for
 * ever, so every tree holds an flock on its owner file for the life of the
 * instance (kept by fork()ed children, dropped at exec), and making a new
 * tree first removes this user's trees whose lock nobody holds. The kernel
 * drops a lock when its last holder exits, whatever pid namespace it ran
 * in, so a live tree is never taken for a stale one. The owner file gets
 * its name only once locked: a tree being created is never swept either.
 * (The preload shim's trees live inside arbitrary programs, which may close
 * any fd, so shim_tmpdir.c judges them by pid and age instead.)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sim_priv.h"

#define ROOT_PREFIX   "kfdsim-"
#define OWNER_FILE    ".owner"
#define OWNER_PENDING ".owner.new"

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	remove(path);
	return 0;
}

static void remove_tree(const char *dir)
{
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

/* Removes tmp/name if it is this user's kfdsim tree and its owner is gone. */
static void sweep_one(int tmpfd, const char *tmp, const char *name)
{
	char path[PATH_MAX];
	struct stat st;
	int dfd, fd;

	if (fstatat(tmpfd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode) ||
	    st.st_uid != geteuid())
		return;
	dfd = openat(tmpfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return;
	fd = openat(dfd, OWNER_FILE, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	close(dfd);
	if (fd < 0)
		return; /* no owner file: not a tree this code made */
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 &&
	    snprintf(path, sizeof(path), "%s/%s", tmp, name) < (int)sizeof(path))
		remove_tree(path);
	close(fd);
}

static void sweep_stale(const char *tmp)
{
	DIR *d = opendir(tmp);
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, ROOT_PREFIX, strlen(ROOT_PREFIX)))
			sweep_one(dirfd(d), tmp, de->d_name);
	closedir(d);
}

int sim_root_create(struct kfdsim *sim)
{
	const char *tmp = getenv("TMPDIR");
	char pending[PATH_MAX + 16], owner[PATH_MAX + 16];
	int fd, r;

	if (!tmp || !*tmp)
		tmp = "/tmp";
	sweep_stale(tmp);
	if (snprintf(sim->root, sizeof(sim->root), "%s/" ROOT_PREFIX "XXXXXX", tmp) >=
	    (int)sizeof(sim->root)) {
		sim->root[0] = 0;
		return -ENAMETOOLONG;
	}
	if (!mkdtemp(sim->root)) {
		r = -errno;
		sim->root[0] = 0;
		return r;
	}
	sim->root_private = true;
	snprintf(pending, sizeof(pending), "%s/" OWNER_PENDING, sim->root);
	snprintf(owner, sizeof(owner), "%s/" OWNER_FILE, sim->root);
	fd = open(pending, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX) || rename(pending, owner)) {
		r = -errno;
		close(fd);
		return r;
	}
	sim->root_lock_fd = fd;
	return 0;
}

void sim_root_release(struct kfdsim *sim)
{
	if (sim->root_private && sim->root[0])
		remove_tree(sim->root);
	if (sim->root_lock_fd >= 0) {
		close(sim->root_lock_fd);
		sim->root_lock_fd = -1;
	}
}
