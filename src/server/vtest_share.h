/* SPDX-License-Identifier: MIT */
/*
 * The share table of one vkfd-server (docs/server.md, "Shared resources"):
 * which files this server's workers exported as shareable blobs. Shared
 * memory mapped by the parent before any fork, so it is common to the
 * workers of one server (one guest) and unknown to every other server.
 * A client never names an entry: a worker looks a file up by the identity
 * of an fd the client presented.
 */
#ifndef VKFD_VTEST_SHARE_H
#define VKFD_VTEST_SHARE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* Shareable blobs alive at once in one server. */
#define VTEST_SHARE_MAX 4096

struct vtest_share;

/* The parent: map a fresh table (NULL and errno on failure). */
struct vtest_share *vtest_share_create(void);
void vtest_share_destroy(struct vtest_share *s);

/* A worker: record that `fd` (its blob for res_id) may be imported by the
 * server's other clients. 0, -ENOSPC (table full) or -errno of fstat. */
int vtest_share_add(struct vtest_share *s, int fd, uint32_t res_id, uint64_t size);
/* A worker: its resource res_id is gone. */
void vtest_share_remove(struct vtest_share *s, uint32_t res_id);
/* Is `fd` a file one of the server's workers exported and still shares?
 * On true, *size is the exported size. */
bool vtest_share_lookup(struct vtest_share *s, int fd, uint64_t *size);
/* The parent: worker `pid` is gone, drop its entries. */
void vtest_share_forget(struct vtest_share *s, pid_t pid);

#endif
