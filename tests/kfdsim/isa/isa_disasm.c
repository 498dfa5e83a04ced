/* SPDX-License-Identifier: MIT */
/*
 * isa_disasm TARGET FILE: decode the raw gfx9 machine code in FILE (a
 * .text section) with kfdsim's decoder and print one line per instruction:
 * "OFFSET MNEMONIC SIZE IMPL REGS", IMPL being 1 when the interpreter executes
 * the instruction (tried once on a wave with EXEC = 0, so no lane and no
 * memory is touched except by scalar memory instructions, which read a
 * dummy page) and 0 when it reports it as unimplemented, REGS the registers
 * its decoded operand fields name. Used by
 * decode_vs_llvm.py to compare the decoder with llvm-objdump.
 */
#include <pthread.h>
#include <stdatomic.h>
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

static void dummy_interrupt(void *ctx, uint32_t id)
{
	(void)ctx;
	(void)id;
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

/* Operand code as LLVM names the register (first of a range), or NULL for
 * constants. */
static const char *reg_name(unsigned code, char *buf, size_t n)
{
	if (code < 102)
		snprintf(buf, n, "s%u", code);
	else if (code == 102 || code == 103)
		snprintf(buf, n, "flat_scratch");
	else if (code == 104 || code == 105)
		snprintf(buf, n, "xnack_mask");
	else if (code == 106 || code == 107)
		snprintf(buf, n, "vcc");
	else if (code >= 108 && code <= 123)
		snprintf(buf, n, "ttmp%u", code - 108);
	else if (code == 124)
		snprintf(buf, n, "m0");
	else if (code == 126 || code == 127)
		snprintf(buf, n, "exec");
	else if (code >= ISA_SRC_AGPR && code < ISA_SRC_AGPR + 256)
		snprintf(buf, n, "a%u", code - ISA_SRC_AGPR);
	else if (code >= ISA_SRC_VGPR && code < ISA_SRC_AGPR)
		snprintf(buf, n, "v%u", code - ISA_SRC_VGPR);
	else
		return NULL;
	return buf;
}

/* The registers the decoded fields name, comma separated (a superset of
 * what the instruction uses: unused fields are printed too). */
static void print_regs(const struct isa_inst *in)
{
	unsigned codes[8], n = 0;
	char buf[32];
	bool first = true;

	if (in->fmt == ISA_FMT_SOPP || in->fmt == ISA_FMT_MIMG) {
		printf(" -");
		return;
	}
	codes[n++] = in->dst;
	if (in->fmt == ISA_FMT_SMEM || in->fmt == ISA_FMT_MUBUF || in->fmt == ISA_FMT_MTBUF ||
	    in->fmt == ISA_FMT_GLOBAL || in->fmt == ISA_FMT_SCRATCH || in->fmt == ISA_FMT_FLAT)
		codes[n++] = in->sdst; /* sbase / srsrc / saddr as SGPR codes */
	else if (in->fmt == ISA_FMT_VOPC || in->fmt == ISA_FMT_VOP3 || in->fmt == ISA_FMT_VOP2)
		codes[n++] = in->sdst;
	for (unsigned i = 0; i < 4; i++)
		codes[n++] = in->src[i];
	if (in->src[0] == ISA_SRC_DPP || in->src[0] == ISA_SRC_SDWA)
		codes[n++] = ISA_SRC_VGPR + (in->ext & 0xff);
	putchar(' ');
	for (unsigned i = 0; i < n; i++) {
		const char *r = reg_name(codes[i], buf, sizeof(buf));

		if (!r)
			continue;
		printf("%s%s", first ? "" : ",", r);
		first = false;
	}
	if (first)
		putchar('-');
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
	q.env.interrupt = dummy_interrupt;
	pthread_mutex_init(&q.lock, NULL);
	pthread_cond_init(&q.cond, NULL);
	atomic_store(&q.active, true);
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
			printf("%lx <invalid> 4 0 -\n", off);
			off += 4;
			continue;
		}
		printf("%lx %s %u %d", off, isa_op_name(in.op), in.size, implemented(&c, &in));
		print_regs(&in);
		putchar('\n');
		off += in.size;
	}
	free(c.waves[0].v);
	free(buf);
	return 0;
}
