// SPDX-License-Identifier: MIT
/*
 * Private temporary directories of the shim (see shim_tmpdir.h).
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "shim_core.h"
#include "shim_tmpdir.h"

/* A leftover must also be this old: a process in another PID namespace
 * sharing $TMPDIR looks dead from here but reads its tree right after
 * creating it. */
#define STALE_SECONDS 60

static const char *tmp_base(void)
{
	const char *tmp = getenv("TMPDIR");

	return tmp && *tmp ? tmp : "/tmp";
}

static int rm_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		rmdir(path);
	else
		unlink(path);
	return 0;
}

void shim_tmpdir_remove(const char *dir)
{
	shim_enter();
	nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	shim_leave();
}

/* Remove <base>/<kind>-<pid>-* whose pid no longer exists. */
static void sweep(const char *base, const char *kind)
{
	size_t klen = strlen(kind);
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	time_t now = time(NULL);
	DIR *d = opendir(base);

	if (!d)
		return;
	while ((de = readdir(d))) {
		char *end;
		long pid;

		if (strncmp(de->d_name, kind, klen) != 0 || de->d_name[klen] != '-')
			continue;
		pid = strtol(de->d_name + klen + 1, &end, 10);
		if (pid <= 0 || *end != '-' || pid == (long)getpid())
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", base, de->d_name) >= sizeof(path))
			continue;
		/* Only our own directories, and only old ones. */
		if (lstat(path, &st) || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
		    now - st.st_mtime < STALE_SECONDS)
			continue;
		nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
	}
	closedir(d);
}

int shim_tmpdir_create(const char *kind, char *out, size_t len)
{
	const char *base = tmp_base();
	int n, ret = 0;

	shim_enter();
	sweep(base, kind);
	n = snprintf(out, len, "%s/%s-%d-XXXXXX", base, kind, (int)getpid());
	if (n < 0 || (size_t)n >= len)
		ret = -ENAMETOOLONG;
	else if (!mkdtemp(out))
		ret = -errno;
	shim_leave();
	if (ret)
		out[0] = '\0';
	return ret;
}
