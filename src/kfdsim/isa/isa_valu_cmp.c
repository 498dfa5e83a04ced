/* SPDX-License-Identifier: MIT */
/*
 * Vector compares (VOPC and their VOP3 forms): v_cmp_<cond>_<type> and
 * v_cmpx_ (which also writes EXEC). The condition and type are taken
 * from the mnemonic once, so every compare the opcode table knows is
 * covered by the same code.
 */
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "isa_f16.h"
#include "isa_valu.h"

enum cmp_type { CT_NONE, CT_F32, CT_F64, CT_I32, CT_U32, CT_I64, CT_U64, CT_I16, CT_U16, CT_F16 };
enum cmp_cond {
	CC_F,
	CC_LT,
	CC_EQ,
	CC_LE,
	CC_GT,
	CC_LG,
	CC_GE,
	CC_O,
	CC_U,
	CC_NGE,
	CC_NLG,
	CC_NGT,
	CC_NLE,
	CC_NEQ,
	CC_NLT,
	CC_TRU,
	CC_NE,
	CC_CLASS,
};

struct cmp_info {
	uint8_t type; /* enum cmp_type; CT_NONE: not a compare we model */
	uint8_t cond;
	bool x;
};

static struct cmp_info cmp_tab[ISA_OP_COUNT];
static pthread_once_t cmp_once = PTHREAD_ONCE_INIT;

static void build_cmp(void)
{
	static const char *const conds[] = {"f",   "lt",  "eq",  "le",  "gt",  "lg",
					    "ge",  "o",   "u",   "nge", "nlg", "ngt",
					    "nle", "neq", "nlt", "tru", "ne",  "class"};
	static const char *const types[] = {"",    "f32", "f64", "i32", "u32",
					    "i64", "u64", "i16", "u16", "f16"};

	for (unsigned op = 1; op < ISA_OP_COUNT; op++) {
		const char *n = isa_op_name(op), *us;
		char cond[8];
		bool x;

		if (strncmp(n, "v_cmpx_", 7) == 0) {
			x = true;
			n += 7;
		} else if (strncmp(n, "v_cmp_", 6) == 0) {
			x = false;
			n += 6;
		} else {
			continue;
		}
		us = strchr(n, '_');
		if (!us || (size_t)(us - n) >= sizeof(cond))
			continue;
		memcpy(cond, n, (size_t)(us - n));
		cond[us - n] = 0;
		if (strcmp(cond, "t") == 0)
			strcpy(cond, "tru");
		for (unsigned c = 0; c < sizeof(conds) / sizeof(conds[0]); c++)
			for (unsigned t = 1; t < sizeof(types) / sizeof(types[0]); t++)
				if (!strcmp(cond, conds[c]) && !strcmp(us + 1, types[t]))
					cmp_tab[op] = (struct cmp_info){(uint8_t)t, (uint8_t)c, x};
	}
}

static bool fcmp(unsigned cond, double a, double b)
{
	bool un = isnan(a) || isnan(b);

	switch (cond) {
	case CC_F:
		return false;
	case CC_LT:
		return a < b;
	case CC_EQ:
		return a == b;
	case CC_LE:
		return a <= b;
	case CC_GT:
		return a > b;
	case CC_LG:
		return !un && a != b;
	case CC_GE:
		return a >= b;
	case CC_O:
		return !un;
	case CC_U:
		return un;
	case CC_NGE:
		return !(a >= b);
	case CC_NLG:
		return un || a == b;
	case CC_NGT:
		return !(a > b);
	case CC_NLE:
		return !(a <= b);
	case CC_NEQ:
		return !(a == b);
	case CC_NLT:
		return !(a < b);
	default:
		return true;
	}
}

/* v_cmp_class: bit i of the mask selects a class of the value. */
static bool fclass(double v, bool is_signaling, uint32_t mask)
{
	unsigned cls;

	if (isnan(v))
		cls = is_signaling ? 0 : 1;
	else if (isinf(v))
		cls = signbit(v) ? 2 : 9;
	else if (v == 0.0)
		cls = signbit(v) ? 5 : 6;
	else if (fpclassify(v) == FP_SUBNORMAL)
		cls = signbit(v) ? 4 : 7;
	else
		cls = signbit(v) ? 3 : 8;
	return (mask >> cls) & 1;
}

/* f16 classes from the bit pattern (a subnormal f16 is a normal f32) */
static bool fclass16(uint32_t h, uint32_t mask)
{
	unsigned e = (h >> 10) & 0x1f, m = h & 0x3ff, neg = (h >> 15) & 1, cls;

	if (e == 0x1f)
		cls = m ? ((m >> 9) ? 1 : 0) : (neg ? 2 : 9);
	else if (e == 0)
		cls = m ? (neg ? 4 : 7) : (neg ? 5 : 6);
	else
		cls = neg ? 3 : 8;
	return (mask >> cls) & 1;
}

static uint32_t mod16(const struct isa_inst *in, unsigned i, uint32_t v)
{
	v &= 0xffffu;
	if (in->abs & (1u << i))
		v &= 0x7fffu;
	if (in->neg & (1u << i))
		v ^= 0x8000u;
	return v;
}

static bool icmp(unsigned cond, int64_t a, int64_t b, bool sign, uint64_t ua, uint64_t ub)
{
	switch (cond) {
	case CC_F:
		return false;
	case CC_LT:
		return sign ? a < b : ua < ub;
	case CC_EQ:
		return ua == ub;
	case CC_LE:
		return sign ? a <= b : ua <= ub;
	case CC_GT:
		return sign ? a > b : ua > ub;
	case CC_NE:
		return ua != ub;
	case CC_GE:
		return sign ? a >= b : ua >= ub;
	default:
		return true;
	}
}

enum isa_result isa_valu_cmp(struct isa_wave *w, const struct isa_inst *in, uint64_t exec)
{
	const struct cmp_info *ci;
	uint64_t m = 0;

	pthread_once(&cmp_once, build_cmp);
	ci = &cmp_tab[in->op];
	if (ci->type == CT_NONE)
		return ISA_UNHANDLED;
	if (ci->type == CT_F64 || ci->type == CT_I64 || ci->type == CT_U64) {
		struct vsrc64 a = isa_vsrc64(w, in, 0, ci->type == CT_F64 ? ISA_T_F64 : ISA_T_B64);
		struct vsrc64 b = isa_vsrc64(w, in, 1, ci->type == CT_F64 ? ISA_T_F64 : ISA_T_B64);
		struct vsrc bm = isa_vsrc(w, in, 1, ISA_T_B32);

		FOR_LANES(exec, l)
		{
			uint64_t x = rd64(&a, l), y = rd64(&b, l);
			bool r;

			if (ci->type == CT_F64) {
				x = mod64(in, 0, x);
				if (ci->cond == CC_CLASS)
					r = fclass(f64_of(x), !((x >> 51) & 1), rd32(&bm, l));
				else
					r = fcmp(ci->cond, f64_of(x), f64_of(mod64(in, 1, y)));
			} else {
				r = icmp(ci->cond, (int64_t)x, (int64_t)y, ci->type == CT_I64, x,
					 y);
			}
			m |= (uint64_t)r << l;
		}
	} else {
		enum isa_type t = ci->type == CT_F32   ? ISA_T_F32
				  : ci->type == CT_F16 ? ISA_T_F16
						       : ISA_T_B32;
		struct vsrc a = isa_vsrc(w, in, 0, t), b = isa_vsrc(w, in, 1, ISA_T_B32);
		struct vsrc bf = isa_vsrc(w, in, 1, t);

		FOR_LANES(exec, l)
		{
			uint32_t x = rd32(&a, l), y = rd32(&b, l);
			bool r;

			switch (ci->type) {
			case CT_F32:
				x = mod32(in, 0, x);
				if (ci->cond == CC_CLASS)
					r = fclass(f32_of(x), !((x >> 22) & 1), y);
				else
					r = fcmp(ci->cond, f32_of(x),
						 f32_of(mod32(in, 1, rd32(&bf, l))));
				break;
			case CT_F16:
				x = mod16(in, 0, x);
				if (ci->cond == CC_CLASS)
					r = fclass16(x, y);
				else
					r = fcmp(ci->cond, isa_f16_to_f32(x),
						 isa_f16_to_f32(mod16(in, 1, rd32(&bf, l))));
				break;
			case CT_I32:
				r = icmp(ci->cond, (int32_t)x, (int32_t)y, true, x, y);
				break;
			case CT_U32:
				r = icmp(ci->cond, 0, 0, false, x, y);
				break;
			case CT_I16:
				r = icmp(ci->cond, (int16_t)x, (int16_t)y, true, (uint16_t)x,
					 (uint16_t)y);
				break;
			default: /* CT_U16 */
				r = icmp(ci->cond, 0, 0, false, (uint16_t)x, (uint16_t)y);
				break;
			}
			m |= (uint64_t)r << l;
		}
	}
	wr_mask(w, in->sdst, m);
	if (ci->x)
		isa_set_exec(w, m);
	return ISA_NEXT;
}
