/* SPDX-License-Identifier: MIT */
/*
 * isa_disasm TARGET FILE: decode the raw gfx9 machine code in FILE (a
 * .text section) with kfdsim's decoder and print one line per instruction:
 * "OFFSET MNEMONIC SIZE IMPL", IMPL being 1 when the interpreter executes
 * the instruction (tried once on a wave with EXEC = 0, so no lane and no
 * memory is touched except by scalar memory instructions, which read a
 * dummy page) and 0 when it reports it as unimplemented. Used by
 * decode_vs_llvm.py to compare the decoder with llvm-objdump.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "isa_exec.h"

static uint8_t dummy_page[65536 + 64];

static void *dummy_translate(void *ctx, uint64_t va, uint64_t len, bool write)
{
	(void)ctx;
	(void)write;
	if (len > 65536)
		return NULL;
	return dummy_page + (va % 64);
}

static uint64_t dummy_clock(void *ctx)
{
	(void)ctx;
	return 0;
}

static int target_of(const char *s, enum isa_target *t)
{
	static const char *const names[] = {"gfx900", "gfx906", "gfx908", "gfx90a"};

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*t = (enum isa_target)i;
			return 0;
		}
	return -1;
}

static int implemented(struct isa_ctx *c, const struct isa_inst *in)
{
	struct isa_wave *w = &c->waves[0];
	enum isa_result r;

	memset(w->s, 0, sizeof(w->s));
	w->ctx = c;
	w->pc = 0x1000;
	r = isa_execute(w, in);
	return r != ISA_ILLEGAL;
}

int main(int argc, char **argv)
{
	static struct sim_engine_queue q;
	static struct isa_ctx c;
	enum isa_target t;
	FILE *f;
	uint8_t *buf;
	long n;

	if (argc != 3 || target_of(argv[1], &t)) {
		fprintf(stderr, "usage: isa_disasm gfx900|gfx906|gfx908|gfx90a FILE\n");
		return 2;
	}
	f = fopen(argv[2], "rb");
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET)) {
		perror(argv[2]);
		return 2;
	}
	buf = calloc(1, (size_t)n + 8);
	if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
		return 2;
	fclose(f);
	q.env.translate = dummy_translate;
	q.env.gpu_clock = dummy_clock;
	c.q = &q;
	c.target = t;
	c.waves[0].v = calloc(ISA_VREGS, sizeof(*c.waves[0].v));
	if (!c.waves[0].v)
		return 2;
	isa_mem_flush(&c);
	for (long off = 0; off + 4 <= n;) {
		uint32_t words[2] = {0, 0};
		struct isa_inst in;
		unsigned avail = off + 8 <= n ? 2 : 1;

		memcpy(words, buf + off, 4 * avail);
		if (!isa_decode(t, words, avail, &in)) {
			printf("%lx <invalid> 4 0\n", off);
			off += 4;
			continue;
		}
		printf("%lx %s %u %d\n", off, isa_op_name(in.op), in.size, implemented(&c, &in));
		off += in.size;
	}
	free(c.waves[0].v);
	free(buf);
	return 0;
}
