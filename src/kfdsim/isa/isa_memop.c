/* SPDX-License-Identifier: MIT */
/* Vector memory instruction classes from mnemonics; atomic read-modify-write. */
#include "isa_memop.h"

#include <pthread.h>
#include <string.h>

#include "isa_decode.h"

static struct memop tab[ISA_OP_COUNT];
static pthread_once_t once = PTHREAD_ONCE_INIT;

struct type_name {
	const char *name;
	uint8_t bytes;
	bool sign, flt;
};

static const struct type_name types[] = {
    {"ubyte", 1, false, false},    {"sbyte", 1, true, false},    {"ushort", 2, false, false},
    {"sshort", 2, true, false},    {"byte", 1, false, false},    {"short", 2, false, false},
    {"dword", 4, false, false},    {"dwordx2", 8, false, false}, {"dwordx3", 12, false, false},
    {"dwordx4", 16, false, false}, {"u8", 1, false, false},      {"i8", 1, true, false},
    {"u16", 2, false, false},      {"i16", 2, true, false},      {"b8", 1, false, false},
    {"b16", 2, false, false},      {"b32", 4, false, false},     {"b64", 8, false, false},
    {"b96", 12, false, false},     {"b128", 16, false, false},   {"u32", 4, false, false},
    {"i32", 4, true, false},       {"f32", 4, false, true},      {"u64", 8, false, false},
    {"i64", 8, true, false},       {"f64", 8, false, true},
};

static const char *const aops[] = {
    [AO_SWAP] = "swap",  [AO_CMPSWAP] = "cmpswap", [AO_ADD] = "add",    [AO_SUB] = "sub",
    [AO_RSUB] = "rsub",  [AO_SMIN] = "smin",       [AO_UMIN] = "umin",  [AO_SMAX] = "smax",
    [AO_UMAX] = "umax",  [AO_AND] = "and",         [AO_OR] = "or",      [AO_XOR] = "xor",
    [AO_INC] = "inc",    [AO_DEC] = "dec",         [AO_FADD] = "add_f", [AO_FMIN] = "min_f",
    [AO_FMAX] = "max_f", [AO_MSKOR] = "mskor",
};

static const struct type_name *find_type(const char *s)
{
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcmp(s, types[i].name))
			return &types[i];
	return NULL;
}

/* flat_/global_/scratch_/buffer_ names */
static void classify_vmem(struct memop *m, const char *s)
{
	const struct type_name *t;

	if (!strncmp(s, "load_", 5) || !strncmp(s, "store_", 6)) {
		bool load = s[0] == 'l';
		char buf[32];
		size_t n;

		s += load ? 5 : 6;
		n = strlen(s);
		if (n >= sizeof(buf))
			return;
		memcpy(buf, s, n + 1);
		if (n > 7 && !strcmp(buf + n - 7, "_d16_hi")) {
			m->d16 = m->d16_hi = true;
			buf[n - 7] = 0;
		} else if (n > 4 && !strcmp(buf + n - 4, "_d16")) {
			m->d16 = true;
			buf[n - 4] = 0;
		}
		t = find_type(buf);
		if (!t)
			return;
		m->bytes = t->bytes;
		m->sign = t->sign;
		m->kind = load ? MK_LOAD : MK_STORE;
		return;
	}
	if (!strncmp(s, "atomic_", 7)) {
		s += 7;
		m->bytes = 4;
		if (strlen(s) > 3 && !strcmp(s + strlen(s) - 3, "_x2"))
			m->bytes = 8;
		if (!strcmp(s, "add_f32") || !strcmp(s, "add_f64") || !strcmp(s, "min_f64") ||
		    !strcmp(s, "max_f64")) {
			m->flt = true;
			m->bytes = s[6] == '6' ? 8 : 4;
			m->aop = s[0] == 'a' ? AO_FADD : s[1] == 'i' ? AO_FMIN : AO_FMAX;
			m->kind = MK_ATOMIC;
			return;
		}
		for (unsigned a = 0; a <= AO_DEC; a++) {
			size_t n = strlen(aops[a]);

			if (!strncmp(s, aops[a], n) && (s[n] == 0 || !strcmp(s + n, "_x2"))) {
				m->aop = (uint8_t)a;
				m->kind = MK_ATOMIC;
				return;
			}
		}
	}
}

/* ds_ names */
static void classify_ds(struct memop *m, const char *s)
{
	static const struct {
		const char *pfx;
		uint8_t kind, two;
	} rw[] = {
	    {"read2st64_", MK_LOAD, 64}, {"write2st64_", MK_STORE, 64}, {"read2_", MK_LOAD, 1},
	    {"write2_", MK_STORE, 1},    {"read_", MK_LOAD, 0},         {"write_", MK_STORE, 0},
	};
	const struct type_name *t;
	const char *us;
	char op[16];

	for (size_t i = 0; i < sizeof(rw) / sizeof(rw[0]); i++) {
		size_t n = strlen(rw[i].pfx);

		if (!strncmp(s, rw[i].pfx, n)) {
			char buf[16];
			size_t k = strlen(s + n);

			if (k >= sizeof(buf))
				return;
			memcpy(buf, s + n, k + 1);
			if (k > 7 && !strcmp(buf + k - 7, "_d16_hi")) {
				m->d16 = m->d16_hi = true;
				buf[k - 7] = 0;
			} else if (k > 4 && !strcmp(buf + k - 4, "_d16")) {
				m->d16 = true;
				buf[k - 4] = 0;
			}
			t = find_type(buf);
			if (!t)
				return;
			m->kind = rw[i].kind;
			m->two = rw[i].two;
			m->bytes = t->bytes;
			m->sign = t->sign;
			return;
		}
	}
	/* atomics: <op>[_rtn]_<type> */
	us = strrchr(s, '_');
	if (!us || (size_t)(us - s) >= sizeof(op))
		return;
	t = find_type(us + 1);
	if (!t || t->bytes < 4)
		return;
	memcpy(op, s, (size_t)(us - s));
	op[us - s] = 0;
	if (strlen(op) > 4 && !strcmp(op + strlen(op) - 4, "_rtn")) {
		m->rtn = true;
		op[strlen(op) - 4] = 0;
	}
	m->bytes = t->bytes;
	if (t->flt) {
		if (!strcmp(op, "add"))
			m->aop = AO_FADD;
		else if (!strcmp(op, "min"))
			m->aop = AO_FMIN;
		else if (!strcmp(op, "max"))
			m->aop = AO_FMAX;
		else
			return;
		m->flt = true;
		m->kind = MK_ATOMIC;
		return;
	}
	if (!strcmp(op, "min") || !strcmp(op, "max")) {
		m->aop = (uint8_t)(op[1] == 'i' ? (t->sign ? AO_SMIN : AO_UMIN)
						: (t->sign ? AO_SMAX : AO_UMAX));
		m->kind = MK_ATOMIC;
		return;
	}
	if (!strcmp(op, "wrxchg")) {
		m->aop = AO_SWAP;
		m->kind = MK_ATOMIC;
		return;
	}
	if (!strcmp(op, "cmpst")) {
		m->aop = AO_CMPSWAP;
		m->kind = MK_ATOMIC;
		return;
	}
	for (unsigned a = AO_ADD; a <= AO_MSKOR; a++)
		if (a <= AO_DEC || a == AO_MSKOR)
			if (!strcmp(op, aops[a])) {
				m->aop = (uint8_t)a;
				m->kind = MK_ATOMIC;
				return;
			}
}

static void build(void)
{
	for (unsigned op = 1; op < ISA_OP_COUNT; op++) {
		const char *n = isa_op_name(op);

		if (!strncmp(n, "flat_", 5))
			classify_vmem(&tab[op], n + 5);
		else if (!strncmp(n, "global_", 7))
			classify_vmem(&tab[op], n + 7);
		else if (!strncmp(n, "scratch_", 8))
			classify_vmem(&tab[op], n + 8);
		else if (!strncmp(n, "buffer_", 7))
			classify_vmem(&tab[op], n + 7);
		else if (!strncmp(n, "ds_", 3))
			classify_ds(&tab[op], n + 3);
	}
}

const struct memop *isa_memop(unsigned op)
{
	pthread_once(&once, build);
	return &tab[op < ISA_OP_COUNT ? op : 0];
}

static uint64_t apply(unsigned aop, bool flt, unsigned bytes, uint64_t old, uint64_t data,
		      uint64_t cmp)
{
	uint64_t mask = bytes == 8 ? ~0ull : 0xffffffffull;
	int64_t so = bytes == 8 ? (int64_t)old : (int64_t)(int32_t)old;
	int64_t sd = bytes == 8 ? (int64_t)data : (int64_t)(int32_t)data;

	if (flt) {
		double a, b, r;

		if (bytes == 8) {
			memcpy(&a, &old, 8);
			memcpy(&b, &data, 8);
		} else {
			float fa, fb;
			uint32_t ua = (uint32_t)old, ub = (uint32_t)data;

			memcpy(&fa, &ua, 4);
			memcpy(&fb, &ub, 4);
			a = fa;
			b = fb;
		}
		if (aop == AO_FADD)
			r = bytes == 8 ? a + b : (double)((float)a + (float)b);
		else if (aop == AO_FMIN)
			r = a < b ? a : b;
		else
			r = a > b ? a : b;
		if (bytes == 8) {
			uint64_t u;

			memcpy(&u, &r, 8);
			return u;
		} else {
			float f = (float)r;
			uint32_t u;

			memcpy(&u, &f, 4);
			return u;
		}
	}
	switch (aop) {
	case AO_SWAP:
		return data;
	case AO_CMPSWAP:
		return (old & mask) == (cmp & mask) ? data : old;
	case AO_ADD:
		return (old + data) & mask;
	case AO_SUB:
		return (old - data) & mask;
	case AO_RSUB:
		return (data - old) & mask;
	case AO_SMIN:
		return so < sd ? old : data;
	case AO_UMIN:
		return (old & mask) < (data & mask) ? old : data;
	case AO_SMAX:
		return so > sd ? old : data;
	case AO_UMAX:
		return (old & mask) > (data & mask) ? old : data;
	case AO_AND:
		return old & data;
	case AO_OR:
		return old | data;
	case AO_XOR:
		return old ^ data;
	case AO_INC:
		return (old & mask) >= (data & mask) ? 0 : (old + 1) & mask;
	case AO_DEC:
		return ((old & mask) == 0 || (old & mask) > (data & mask)) ? data
									   : (old - 1) & mask;
	case AO_MSKOR: /* (old & ~mask) | data, mask in cmp */
		return (old & ~cmp) | data;
	default:
		return old;
	}
}

uint64_t isa_atomic_rmw(void *p, unsigned bytes, unsigned aop, bool flt, uint64_t data,
			uint64_t cmp)
{
	if (bytes == 8) {
		uint64_t *q = p, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;

		do {
			nv = apply(aop, flt, 8, old, data, cmp);
		} while (!__atomic_compare_exchange_n(q, &old, nv, true, __ATOMIC_SEQ_CST,
						      __ATOMIC_RELAXED));
		return old;
	} else {
		uint32_t *q = p, old = __atomic_load_n(q, __ATOMIC_RELAXED), nv;

		do {
			nv = (uint32_t)apply(aop, flt, 4, old, data, cmp);
		} while (!__atomic_compare_exchange_n(q, &old, nv, true, __ATOMIC_SEQ_CST,
						      __ATOMIC_RELAXED));
		return old;
	}
}
