// SPDX-License-Identifier: MIT
/*
 * The /proc/self/maps reader (proc_maps.h). A line reads
 * "start-end perms offset major:minor inode   path", the numbers in hex
 * but the inode in decimal, the path absent for anonymous memory.
 */
#include "proc_maps.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PROC_MAPS_READ_CHUNK 4096

static const char DELETED[] = " (deleted)";

static int hex_digit(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A hex number of 1 to 16 digits at *p, advancing *p past it. */
static bool parse_hex(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int d;

	while (s < end && (d = hex_digit(*s)) >= 0) {
		if (s - *p == 16)
			return false;
		v = v << 4 | (uint64_t)d;
		s++;
	}
	if (s == *p)
		return false;
	*out = v;
	*p = s;
	return true;
}

static bool parse_dec(const char **p, const char *end, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	while (s < end && *s >= '0' && *s <= '9') {
		uint64_t d = (uint64_t)(*s - '0');

		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
		s++;
	}
	if (s == *p)
		return false;
	*out = v;
	*p = s;
	return true;
}

/* One or more blanks at *p. */
static bool skip_blanks(const char **p, const char *end)
{
	const char *s = *p;

	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	if (s == *p)
		return false;
	*p = s;
	return true;
}

static bool expect(const char **p, const char *end, char c)
{
	if (*p >= end || **p != c)
		return false;
	(*p)++;
	return true;
}

static bool parse_perms(const char **p, const char *end, char perms[5])
{
	static const char allowed[4][3] = {"r-", "w-", "x-", "ps"};
	const char *s = *p;

	if (end - s < 4)
		return false;
	for (int i = 0; i < 4; i++) {
		if (s[i] != allowed[i][0] && s[i] != allowed[i][1])
			return false;
		perms[i] = s[i];
	}
	perms[4] = '\0';
	*p = s + 4;
	return true;
}

bool proc_maps_parse_line(const char *text, size_t len, struct proc_maps_line *out)
{
	const char *p = text, *end = text + len;
	uint64_t major, minor;

	memset(out, 0, sizeof(*out));
	if (!parse_hex(&p, end, &out->start) || !expect(&p, end, '-') ||
	    !parse_hex(&p, end, &out->end) || out->end <= out->start || !skip_blanks(&p, end) ||
	    !parse_perms(&p, end, out->perms) || !skip_blanks(&p, end) ||
	    !parse_hex(&p, end, &out->offset) || !skip_blanks(&p, end) ||
	    !parse_hex(&p, end, &major) || !expect(&p, end, ':') || !parse_hex(&p, end, &minor) ||
	    major > 0xfff || minor > 0xfffff || !skip_blanks(&p, end) ||
	    !parse_dec(&p, end, &out->inode))
		return false;
	/* after the inode: nothing, or blanks and then the name */
	if (p < end && !skip_blanks(&p, end))
		return false;
	out->dev_major = (unsigned int)major;
	out->dev_minor = (unsigned int)minor;
	out->path = p;
	out->deleted = (size_t)(end - p) >= sizeof(DELETED) - 1 &&
		       !memcmp(end - (sizeof(DELETED) - 1), DELETED, sizeof(DELETED) - 1);
	return true;
}

struct walk {
	proc_maps_fn fn;
	void *arg;
	char line[PROC_MAPS_LINE_MAX + 1];
	size_t len;    /* bytes in line */
	bool cut;      /* bytes of this line were dropped */
	bool any;      /* a line was handed out */
	uint64_t seen; /* the end of the last line handed out */
	unsigned int skipped;
};

static void walk_append(struct walk *w, const char *s, size_t n)
{
	size_t room = PROC_MAPS_LINE_MAX - w->len;

	if (n > room) {
		n = room;
		w->cut = true;
	}
	memcpy(w->line + w->len, s, n);
	w->len += n;
}

/* The line collected so far is complete: parse it and hand it out. */
static int walk_emit(struct walk *w)
{
	struct proc_maps_line l;
	int r = 0;

	w->line[w->len] = '\0';
	if (!proc_maps_parse_line(w->line, w->len, &l)) {
		w->skipped++;
	} else if (!w->any || l.end > w->seen) {
		/* a mapping that changed between two reads comes again: only
		 * what lies past the lines already handed out is new */
		if (w->any && l.start < w->seen) {
			l.offset += w->seen - l.start;
			l.start = w->seen;
		}
		l.path_cut = w->cut;
		if (w->cut)
			l.deleted = false; /* the name's end was dropped */
		w->any = true;
		w->seen = l.end;
		r = w->fn(&l, w->arg);
	}
	w->len = 0;
	w->cut = false;
	return r;
}

int proc_maps_walk_from(proc_maps_read_fn read_fn, void *src, proc_maps_fn fn, void *arg,
			unsigned int *skipped)
{
	struct walk w = {.fn = fn, .arg = arg};
	char buf[PROC_MAPS_READ_CHUNK];
	int r = 0;

	for (;;) {
		ssize_t n = read_fn(src, buf, sizeof(buf));
		const char *p = buf, *end;

		if (n == -EINTR)
			continue;
		if (n < 0) {
			r = (int)n;
			break;
		}
		if (n == 0) {
			if (w.len || w.cut) /* a last line without its newline */
				r = walk_emit(&w);
			break;
		}
		end = buf + (n > (ssize_t)sizeof(buf) ? sizeof(buf) : (size_t)n);
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));

			walk_append(&w, p, (size_t)((nl ? nl : end) - p));
			if (!nl)
				break;
			p = nl + 1;
			r = walk_emit(&w);
			if (r)
				goto out;
		}
	}
out:
	if (skipped)
		*skipped = w.skipped;
	return r;
}

static ssize_t read_fd(void *src, char *buf, size_t cap)
{
	ssize_t n = read(*(int *)src, buf, cap);

	return n < 0 ? -errno : n;
}

int proc_maps_walk(proc_maps_fn fn, void *arg)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	int r;

	if (fd < 0)
		return -errno;
	r = proc_maps_walk_from(read_fd, &fd, fn, arg, NULL);
	close(fd);
	return r;
}

struct overlapping {
	uint64_t s, e;
	struct proc_maps_vma *v;
	size_t n, cap;
};

static int overlapping_line(const struct proc_maps_line *m, void *arg)
{
	struct overlapping *o = arg;

	if (m->end <= o->s)
		return 0;
	if (m->start >= o->e)
		return 1; /* the lines come in address order */
	if (o->n == o->cap) {
		size_t nc = o->cap ? o->cap * 2 : 16;
		struct proc_maps_vma *nv = realloc(o->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		o->v = nv;
		o->cap = nc;
	}
	o->v[o->n] = (struct proc_maps_vma){.start = m->start, .end = m->end, .inode = m->inode};
	memcpy(o->v[o->n].perms, m->perms, sizeof(m->perms));
	o->n++;
	return 0;
}

ssize_t proc_maps_overlapping(uint64_t s, uint64_t e, struct proc_maps_vma **out)
{
	struct overlapping o = {.s = s, .e = e};
	int r = proc_maps_walk(overlapping_line, &o);

	*out = NULL;
	if (r < 0) {
		free(o.v);
		return r;
	}
	*out = o.v;
	return (ssize_t)o.n;
}

bool proc_maps_covered(const struct proc_maps_vma *v, size_t n, uint64_t s, uint64_t e)
{
	uint64_t at = s;

	for (size_t i = 0; i < n && at < e; i++) {
		if (v[i].start > at)
			return false;
		if (v[i].end > at)
			at = v[i].end;
	}
	return at >= e;
}

int proc_maps_prot(const char perms[5])
{
	return (perms[0] == 'r' ? PROT_READ : 0) | (perms[1] == 'w' ? PROT_WRITE : 0) |
	       (perms[2] == 'x' ? PROT_EXEC : 0);
}
