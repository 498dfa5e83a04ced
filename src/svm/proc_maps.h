/* SPDX-License-Identifier: MIT */
/*
 * The one reader of /proc/self/maps: each line parsed into its fields and
 * handed to a callback. Used by the guest's vkfd backend (USERPTR: is a
 * range private anonymous memory, does it still hold a blob; SVM: which
 * CPU mappings cover a range) and by kfdsim's SVM, which all need the
 * same facts about the CPU's mappings.
 *
 * No allocation: one read buffer and one line buffer on the stack, a line
 * longer than PROC_MAPS_LINE_MAX keeps its head (the fields and the start
 * of its path). Reads may end anywhere in a line. The file is not a
 * snapshot: the kernel fills each read from the mappings of that moment,
 * so a mapping that changes while the walk goes on can show up twice; the
 * reader hands out lines in address order without overlap (a mapping seen
 * again is cut to what lies past the lines already handed out).
 */
#ifndef VKFD_PROC_MAPS_H
#define VKFD_PROC_MAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Bytes of a line kept (the fixed fields take at most 93); the rest of a
 * longer line, part of its path, is dropped. */
#define PROC_MAPS_LINE_MAX 512

/* One mapping, valid only during the callback. */
struct proc_maps_line {
	uint64_t start, end; /* [start, end) */
	char perms[5];       /* "rwxp", '-' where not granted; p(rivate) or s(hared) */
	uint64_t offset;     /* in the file, of start */
	unsigned int dev_major, dev_minor;
	uint64_t inode;   /* 0 for anonymous memory */
	const char *path; /* the name, "" for none; only its head if path_cut */
	bool path_cut;    /* the line was longer than PROC_MAPS_LINE_MAX */
	bool deleted;     /* the name ends in " (deleted)": the file was unlinked */
};

/* 0 to go on; anything else ends the walk, which returns it. */
typedef int (*proc_maps_fn)(const struct proc_maps_line *line, void *arg);

/* A source of the file's bytes: up to cap of them into buf; returns their
 * number, 0 at the end, or -errno. */
typedef ssize_t (*proc_maps_read_fn)(void *src, char *buf, size_t cap);

/* Walk /proc/self/maps: 0 after the last line, the callback's value if it
 * stopped the walk, or -errno if the file could not be opened or read. */
int proc_maps_walk(proc_maps_fn fn, void *arg);

/* The same over any source (tests feed crafted text). A malformed line
 * is skipped; *skipped, when not NULL, counts them. */
int proc_maps_walk_from(proc_maps_read_fn read_fn, void *src, proc_maps_fn fn, void *arg,
			unsigned int *skipped);

/* One mapping as proc_maps_overlapping keeps it. */
struct proc_maps_vma {
	uint64_t start, end;
	uint64_t inode;
	char perms[5];
};

/* The mappings overlapping [s, e), in address order, in *out (one
 * malloc'ed array, the caller frees it; NULL when there are none): their
 * number, or -ENOMEM or the walk's -errno. */
ssize_t proc_maps_overlapping(uint64_t s, uint64_t e, struct proc_maps_vma **out);

/* True if the mappings v (in address order) cover [s, e) without a gap
 * (amdkfd's svm_range_is_valid). */
bool proc_maps_covered(const struct proc_maps_vma *v, size_t n, uint64_t s, uint64_t e);

/* A mapping's perms as PROT_READ | PROT_WRITE | PROT_EXEC bits. */
int proc_maps_prot(const char perms[5]);

/* Parse one line (without its newline; NUL-terminated, len bytes): true
 * if it has every field. path points into text. */
bool proc_maps_parse_line(const char *text, size_t len, struct proc_maps_line *out);

#endif
