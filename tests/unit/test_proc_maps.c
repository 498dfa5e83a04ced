// SPDX-License-Identifier: MIT
/*
 * The /proc/self/maps reader (src/svm/proc_maps.c) on crafted text: lines
 * split across reads at every point, long paths, deleted files, malformed
 * lines, a mapping seen twice as the file changes, read errors; and once
 * on the real file.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "proc_maps.h"

/* Crafted text, handed out chunk bytes per read (all of it if 0); a read
 * after fail_after bytes fails with -EIO (never if 0). */
struct text_src {
	const char *text;
	size_t len, pos, chunk, fail_after;
	unsigned int reads;
};

static ssize_t text_read(void *src, char *buf, size_t cap)
{
	struct text_src *t = src;
	size_t n = t->len - t->pos;

	t->reads++;
	if (t->fail_after && t->pos >= t->fail_after)
		return -EIO;
	if (t->chunk && n > t->chunk)
		n = t->chunk;
	if (n > cap)
		n = cap;
	memcpy(buf, t->text + t->pos, n);
	t->pos += n;
	return (ssize_t)n;
}

#define MAX_SEEN 16

/* What the callback saw: the lines, their paths copied. */
struct seen {
	struct proc_maps_line l[MAX_SEEN];
	char path[MAX_SEEN][PROC_MAPS_LINE_MAX + 1];
	unsigned int n;
	unsigned int stop_at; /* return 7 on this line (1-based), never if 0 */
};

static int record(const struct proc_maps_line *l, void *arg)
{
	struct seen *s = arg;

	assert_true(s->n < MAX_SEEN);
	s->l[s->n] = *l;
	snprintf(s->path[s->n], sizeof(s->path[0]), "%s", l->path);
	s->l[s->n].path = s->path[s->n];
	s->n++;
	return s->n == s->stop_at ? 7 : 0;
}

static int walk_text(const char *text, size_t chunk, struct seen *s, unsigned int *skipped)
{
	struct text_src t = {.text = text, .len = strlen(text), .chunk = chunk};

	return proc_maps_walk_from(text_read, &t, record, s, skipped);
}

static const char SAMPLE[] =
    "55d0c0a00000-55d0c0a02000 r--p 00000000 fd:01 1835267                    /usr/bin/cat\n"
    "55d0c1b5e000-55d0c1b7f000 rw-p 00000000 00:00 0                          [heap]\n"
    "7f3a10000000-7f3a10021000 rw-p 00000000 00:00 0 \n"
    "7f3a20000000-7f3a20200000 rw-s 00001000 00:01 4242                       /memfd:blob "
    "(deleted)\n"
    "7ffd8a1f0000-7ffd8a211000 rw-p 00000000 00:00 0                          [stack]\n"
    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0                  [vsyscall]\n";

static void check_sample(const struct seen *s)
{
	assert_int_equal(s->n, 6);
	assert_int_equal(s->l[0].start, 0x55d0c0a00000ull);
	assert_int_equal(s->l[0].end, 0x55d0c0a02000ull);
	assert_string_equal(s->l[0].perms, "r--p");
	assert_int_equal(s->l[0].dev_major, 0xfd);
	assert_int_equal(s->l[0].dev_minor, 1);
	assert_int_equal(s->l[0].inode, 1835267);
	assert_string_equal(s->l[0].path, "/usr/bin/cat");
	assert_false(s->l[0].deleted);
	assert_string_equal(s->l[1].path, "[heap]");
	assert_int_equal(s->l[1].inode, 0);
	assert_string_equal(s->l[2].path, ""); /* anonymous: no name */
	assert_string_equal(s->l[2].perms, "rw-p");
	assert_string_equal(s->l[3].perms, "rw-s");
	assert_int_equal(s->l[3].offset, 0x1000);
	assert_int_equal(s->l[3].inode, 4242);
	assert_true(s->l[3].deleted);
	assert_string_equal(s->l[3].path, "/memfd:blob (deleted)");
	assert_int_equal(s->l[5].start, 0xffffffffff600000ull);
	assert_string_equal(s->l[5].perms, "--xp");
	for (unsigned int i = 0; i < s->n; i++)
		assert_false(s->l[i].path_cut);
}

static void test_sample_in_one_read(void **state)
{
	struct seen s = {0};
	unsigned int skipped = 99;

	(void)state;
	assert_int_equal(walk_text(SAMPLE, 0, &s, &skipped), 0);
	assert_int_equal(skipped, 0);
	check_sample(&s);
}

/* Every read size from 1 byte up: lines split anywhere, same lines. */
static void test_lines_split_across_reads(void **state)
{
	(void)state;
	for (size_t chunk = 1; chunk <= sizeof(SAMPLE); chunk++) {
		struct seen s = {0};
		unsigned int skipped = 99;

		assert_int_equal(walk_text(SAMPLE, chunk, &s, &skipped), 0);
		assert_int_equal(skipped, 0);
		check_sample(&s);
	}
}

/* A path far longer than the line buffer and the read buffer: its head
 * is kept, the line's fields are right, the next line is whole. */
static void test_long_path(void **state)
{
	static const char head[] = "7f0000000000-7f0000001000 r--s 00000000 08:02 77 /";
	static const char next[] = "7f0000002000-7f0000003000 rw-p 00000000 00:00 0\n";
	size_t plen = 3 * 4096 + 123;
	size_t len = sizeof(head) - 1 + plen + sizeof(" (deleted)\n") - 1 + sizeof(next) - 1;
	/* static, not malloc: gcc's -Warray-bounds (-O2 with ASan) took the
	 * unchecked-for-NULL result as a zero-size object */
	static char text[4 * 4096];

	(void)state;
	assert_true(len < sizeof(text));
	memcpy(text, head, sizeof(head) - 1);
	memset(text + sizeof(head) - 1, 'x', plen);
	strcpy(text + sizeof(head) - 1 + plen, " (deleted)\n");
	strcat(text, next);
	for (size_t chunk = 0; chunk <= 4097; chunk += chunk < 8 ? 1 : 509) {
		struct seen s = {0};
		unsigned int skipped = 99;

		assert_int_equal(walk_text(text, chunk, &s, &skipped), 0);
		assert_int_equal(skipped, 0);
		assert_int_equal(s.n, 2);
		assert_true(s.l[0].path_cut);
		assert_false(s.l[0].deleted); /* its end was not read */
		assert_int_equal(s.l[0].inode, 77);
		assert_string_equal(s.l[0].perms, "r--s");
		assert_int_equal(strlen(s.path[0]), PROC_MAPS_LINE_MAX - (sizeof(head) - 2));
		assert_int_equal(s.path[0][0], '/');
		assert_int_equal(s.path[0][1], 'x');
		assert_false(s.l[1].path_cut);
		assert_int_equal(s.l[1].start, 0x7f0000002000ull);
		assert_string_equal(s.path[1], "");
	}
}

/* A line of exactly PROC_MAPS_LINE_MAX bytes is whole; one more is cut. */
static void test_line_at_the_limit(void **state)
{
	static const char head[] = "1000-2000 rw-s 00000000 00:01 5 /";
	char text[PROC_MAPS_LINE_MAX + 8];

	(void)state;
	for (size_t extra = 0; extra < 2; extra++) {
		size_t fill = PROC_MAPS_LINE_MAX - (sizeof(head) - 1) + extra;
		struct seen s = {0};

		memcpy(text, head, sizeof(head) - 1);
		memset(text + sizeof(head) - 1, 'p', fill);
		strcpy(text + sizeof(head) - 1 + fill, "\n");
		assert_int_equal(walk_text(text, 0, &s, NULL), 0);
		assert_int_equal(s.n, 1);
		assert_int_equal(s.l[0].path_cut, extra == 1);
		assert_int_equal(strlen(s.path[0]), 1 + PROC_MAPS_LINE_MAX - sizeof(head) + 1);
	}
}

static void test_malformed_lines_skipped(void **state)
{
	static const char text[] =
	    "\n"
	    "garbage\n"
	    "1000-2000\n"                                          /* no perms */
	    "1000-2000 rw-p 00000000 00:00\n"                      /* no inode */
	    "1000-2000 rwzp 00000000 00:00 0\n"                    /* bad perms */
	    "1000-2000 rw-p 00000000 0000 0\n"                     /* no ':' */
	    "2000-1000 rw-p 00000000 00:00 0\n"                    /* end before start */
	    "1000-1000 rw-p 00000000 00:00 0\n"                    /* empty */
	    "11112222333344445-ffffffffffffffff rw-p 0 00:00 0\n"  /* 17 digits */
	    "1000-2000 rw-p 00000000 00:00 99999999999999999999\n" /* inode > 64 bits */
	    "1000-2000 rw-p 00000000 00:00 0x\n"                   /* junk after the inode */
	    "1000 -2000 rw-p 00000000 00:00 0\n"                   /* blank in the range */
	    "3000-4000 r-xp 00000010 00:00 0  [vdso]\n"            /* good */
	    "5000-6000 ---p 00000000 00:00 0";                     /* good, no newline */
	struct seen s = {0};
	unsigned int skipped = 0;

	(void)state;
	assert_int_equal(walk_text(text, 0, &s, &skipped), 0);
	assert_int_equal(skipped, 12);
	assert_int_equal(s.n, 2);
	assert_int_equal(s.l[0].start, 0x3000);
	assert_int_equal(s.l[0].offset, 0x10);
	assert_string_equal(s.path[0], "[vdso]");
	assert_int_equal(s.l[1].start, 0x5000);
	assert_string_equal(s.l[1].perms, "---p");
}

static void test_parse_line_directly(void **state)
{
	static const char line[] = "a-b rw-p 0 0:0 0";
	struct proc_maps_line l;

	(void)state;
	assert_true(proc_maps_parse_line(line, sizeof(line) - 1, &l));
	assert_int_equal(l.start, 0xa);
	assert_int_equal(l.end, 0xb);
	assert_string_equal(l.path, "");
	/* len bounds the parse: the inode cut off */
	assert_false(proc_maps_parse_line(line, sizeof(line) - 2, &l));
}

/* The maps changed between two reads: a mapping read again, one that grew
 * past what was read. Lines stay in order and never overlap. */
static void test_mapping_seen_again(void **state)
{
	static const char text[] = "1000-3000 rw-p 00000000 00:00 0\n"
				   "1000-3000 rw-p 00000000 00:00 0\n"    /* again */
				   "2000-3000 r--p 00000000 00:00 0\n"    /* inside: old */
				   "1000-5000 rw-s 00000100 00:01 9 /f\n" /* grew */
				   "6000-7000 rw-p 00000000 00:00 0\n";
	struct seen s = {0};

	(void)state;
	assert_int_equal(walk_text(text, 0, &s, NULL), 0);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.l[0].start, 0x1000);
	assert_int_equal(s.l[0].end, 0x3000);
	assert_int_equal(s.l[1].start, 0x3000); /* only what is new */
	assert_int_equal(s.l[1].end, 0x5000);
	assert_int_equal(s.l[1].offset, 0x100 + 0x2000);
	assert_string_equal(s.path[1], "/f");
	assert_int_equal(s.l[2].start, 0x6000);
}

static void test_callback_stops_the_walk(void **state)
{
	struct seen s = {.stop_at = 2};

	(void)state;
	assert_int_equal(walk_text(SAMPLE, 7, &s, NULL), 7);
	assert_int_equal(s.n, 2);
}

static void test_read_error(void **state)
{
	struct text_src t = {.text = SAMPLE, .len = strlen(SAMPLE), .chunk = 50, .fail_after = 100};
	struct seen s = {0};

	(void)state;
	assert_int_equal(proc_maps_walk_from(text_read, &t, record, &s, NULL), -EIO);
	assert_int_equal(s.n, 1); /* the first line only: the second was not whole */
}

static int find_range(const struct proc_maps_line *l, void *arg)
{
	uintptr_t *want = arg;

	if (l->start <= want[0] && want[0] < l->end) {
		want[1] = l->end - want[0];
		want[2] = l->perms[3] == 's' && l->perms[0] == 'r' && l->perms[1] == '-';
		return 1;
	}
	return 0;
}

/* The real file: a shared read-only mapping of ours is there as mapped. */
static void test_real_file(void **state)
{
	long pg = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)pg * 3, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	uintptr_t want[3];

	(void)state;
	assert_true(p != MAP_FAILED);
	want[0] = (uintptr_t)p + (uintptr_t)pg;
	want[1] = want[2] = 0;
	assert_int_equal(proc_maps_walk(find_range, want), 1);
	assert_true(want[1] >= 2 * (uintptr_t)pg);
	assert_int_equal(want[2], 1);
	munmap(p, (size_t)pg * 3);
}

/* proc_maps_overlapping and proc_maps_covered on the real file: three
 * pages mapped as three mappings, then a hole. */
static void test_overlapping_and_covered(void **state)
{
	const uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
	uint8_t *p = mmap(NULL, pg * 3, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t s = (uint64_t)(uintptr_t)p;
	struct proc_maps_vma *v;
	ssize_t n;

	(void)state;
	assert_true(p != MAP_FAILED);
	assert_int_equal(mprotect(p + pg, pg, PROT_READ), 0); /* splits the mapping */
	n = proc_maps_overlapping(s + pg / 2, s + 3 * pg - 1, &v);
	assert_int_equal(n, 3);
	assert_true(v[0].start <= s && v[0].end == s + pg);
	assert_int_equal(v[1].start, s + pg);
	assert_int_equal(v[1].end, s + 2 * pg);
	assert_int_equal(v[2].start, s + 2 * pg);
	assert_string_equal(v[1].perms, "r--p");
	assert_int_equal(proc_maps_prot(v[1].perms), PROT_READ);
	assert_int_equal(proc_maps_prot(v[2].perms), PROT_READ | PROT_WRITE);
	assert_true(proc_maps_covered(v, (size_t)n, s, s + 3 * pg));
	assert_false(proc_maps_covered(v, (size_t)n, s - pg, s + pg)); /* starts before */
	free(v);
	assert_int_equal(munmap(p + pg, pg), 0);
	n = proc_maps_overlapping(s, s + 3 * pg, &v);
	assert_int_equal(n, 2);
	assert_false(proc_maps_covered(v, (size_t)n, s, s + 3 * pg));
	assert_true(proc_maps_covered(v, (size_t)n, s + 2 * pg, s + 3 * pg));
	free(v);
	munmap(p, pg);
	munmap(p + 2 * pg, pg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sample_in_one_read),
	    cmocka_unit_test(test_lines_split_across_reads),
	    cmocka_unit_test(test_long_path),
	    cmocka_unit_test(test_line_at_the_limit),
	    cmocka_unit_test(test_malformed_lines_skipped),
	    cmocka_unit_test(test_parse_line_directly),
	    cmocka_unit_test(test_mapping_seen_again),
	    cmocka_unit_test(test_callback_stops_the_walk),
	    cmocka_unit_test(test_read_error),
	    cmocka_unit_test(test_real_file),
	    cmocka_unit_test(test_overlapping_and_covered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
