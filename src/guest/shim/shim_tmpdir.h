/* SPDX-License-Identifier: MIT */
/*
 * Private directories of the shim under $TMPDIR (the native backend's sysfs
 * tree, the fallback CPU cache tree). A process removes its own at exit; a
 * process that cannot (abort, _exit, a signal) leaves one behind, so every
 * creation also sweeps directories of the same kind whose owner is gone.
 */
#ifndef VKFD_SHIM_TMPDIR_H
#define VKFD_SHIM_TMPDIR_H

#include <stddef.h>

/* Create $TMPDIR/<kind>-<pid>-XXXXXX (mode 0700) into out. 0 or -errno. */
int shim_tmpdir_create(const char *kind, char *out, size_t len);

/* Remove a directory tree made by shim_tmpdir_create (best effort). */
void shim_tmpdir_remove(const char *dir);

#endif
