// SPDX-License-Identifier: MIT
/*
 * Writes the seed corpus of fuzz_host_stateful: programs for its model guest
 * (see the opcode switch there). Each seed is a plausible session the fuzzer
 * mutates from; some end in the attack patterns of docs/security.md's
 * threat cases, so that every build replays them. Usage:
 * gen_stateful_seeds OUTDIR [STAMP]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

/* opcodes of fuzz_host_stateful.c (value % 16) */
enum {
	OP_ALLOC = 0,
	OP_MAP = 2,
	OP_UNMAP = 3,
	OP_FREE = 4,
	OP_BIND = 5,
	OP_GET_BLOB = 6,
	OP_CREATE_EVENT = 7,
	OP_EVENT = 8,
	OP_WAIT = 9,
	OP_QUEUE = 10,
	OP_QUEUE_CMD = 11,
	OP_NEIGHBOUR = 12,
	OP_TIME = 13,
	OP_RAW = 14,
	OP_DESTROY = 15,
	OP_ARENA = 16,       /* what: 0 create, 1 destroy, 2 get_blob; id */
	OP_ARENA_ALLOC = 17, /* slot, arena id, where, pages - 1 [, page] */
	OP_PIECES = 18,      /* slot, n - 1, n x (arena id, where, pages - 1 [, page]), size */
	OP_ASYNC_MAP = 19,   /* what (bits 0-1: 0 map + barrier, 1 barrier word only,
			      * 3 map without it; 4 word near the seqno, 8 bad GPU,
			      * 0x10 then a notify of queue what >> 5), slot or word */
};

/* alloc_flags[] indices */
enum { GTT = 0, VRAM = 1, GTT_AQL = 2, VRAM_AQL = 3, DOORBELL = 4, MMIO = 5 };
/* alloc flags byte: bit 0x40 asks a 1.1 guest for a guest-chosen handle
 * (then one more byte: index in bits 0-5, 0x40 generation 2, 0x80 async);
 * 0x46 % 7 is GTT */
enum { GTT_GUEST_HANDLE = 0x46 };
/* op_alloc's placement byte */
enum { AT_ZERO = 0, AT_BASE = 1, AT_OVERLAP = 2, AT_NEXT = 3 };

struct seed {
	uint8_t b[4096];
	size_t n;
};

static void put(struct seed *s, const uint8_t *v, size_t n)
{
	if (s->n + n <= sizeof(s->b)) {
		memcpy(s->b + s->n, v, n);
		s->n += n;
	}
}

#define OP(s, ...)                                                                                 \
	do {                                                                                       \
		const uint8_t v_[] = {__VA_ARGS__};                                                \
		put(s, v_, sizeof(v_));                                                            \
	} while (0)

static void first_seqno(struct seed *s, uint32_t first)
{
	OP(s, (uint8_t)(first >> 24), (uint8_t)(first >> 16), (uint8_t)(first >> 8),
	   (uint8_t)first);
}

/* BO slot with `pages` pages (AQL: twice the VA), mapped */
static void bo(struct seed *s, uint8_t slot, uint8_t kind, uint8_t pages, uint8_t at)
{
	OP(s, OP_ALLOC, slot, kind, (uint8_t)(pages - 1), at);
	OP(s, OP_MAP, slot);
}

/* OP_ARENA's id byte: arena id `aid` (byte % 6) with size index `size`
 * (byte >> 4) of fuzz_host_stateful.c's table (0 page, 1 16 pages, 2 1 MiB,
 * 3 zero, 4 page + 1, 5 over the limit) */
static uint8_t arena_byte(uint8_t aid, uint8_t size)
{
	for (uint8_t k = 0; k < 16; k++)
		if ((uint8_t)(size * 16 + k) % 6 == aid)
			return (uint8_t)(size * 16 + k);
	return 0;
}

static int write_seed(const char *dir, const char *name, const struct seed *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f)
		return -errno;
	fwrite(s->b, 1, s->n, f);
	return fclose(f) ? -errno : 0;
}

int main(int argc, char **argv)
{
	struct seed s;
	int ret = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: %s OUTDIR [STAMP]\n", argv[0]);
		return 2;
	}
	mkdir(argv[1], 0755);

	/* a guest's session: memory, blobs, event page, queue, waits */
	memset(&s, 0, sizeof(s));
	first_seqno(&s, 1);
	bo(&s, 0, GTT, 8, AT_NEXT); /* 32 KiB: the event page */
	OP(&s, OP_BIND, 0, 2);
	OP(&s, OP_GET_BLOB, 4, 0);
	OP(&s, OP_CREATE_EVENT, 0, 0);
	OP(&s, OP_CREATE_EVENT, 0, 4);
	bo(&s, 1, GTT, 1, AT_NEXT); /* read / write pointers */
	bo(&s, 2, GTT, 1, AT_NEXT); /* ring */
	bo(&s, 3, GTT_AQL, 4, AT_NEXT);
	OP(&s, OP_QUEUE, 2, 1, 9, 0);
	OP(&s, OP_QUEUE, 3, 1, 9, 0x11); /* AQL memory: a ring of half its span */
	OP(&s, OP_QUEUE_CMD, 0, 4);
	OP(&s, OP_BIND, 2, 2);
	OP(&s, OP_GET_BLOB, 5, 2);
	OP(&s, OP_WAIT, 0, 1);
	OP(&s, OP_EVENT, 0);
	OP(&s, OP_WAIT, 0x41, 2);
	OP(&s, OP_TIME, 1);
	OP(&s, OP_TIME, 0);
	OP(&s, OP_QUEUE_CMD, 0x40, 0);
	OP(&s, OP_QUEUE_CMD, 0x80, 0);
	OP(&s, OP_UNMAP, 2);
	OP(&s, OP_FREE, 2);
	OP(&s, OP_DESTROY, 0);
	ret |= write_seed(argv[1], "session", &s);

	/* protocol 1.1 asynchronous MAP: a queue, maps announced in the map
	 * barrier with notifies behind them, a hostile barrier word, and a
	 * MAP the host cannot run (the context is lost), then destroy */
	memset(&s, 0, sizeof(s));
	first_seqno(&s, 0x300);     /* read back as seqno 3: odd, a 1.1 guest */
	bo(&s, 1, GTT, 1, AT_NEXT); /* read / write pointers */
	bo(&s, 2, GTT, 1, AT_NEXT); /* ring */
	OP(&s, OP_QUEUE, 2, 1, 9, 0);
	OP(&s, OP_ALLOC, 4, VRAM, 3, AT_NEXT);
	OP(&s, OP_ASYNC_MAP, 0x10, 4);
	OP(&s, OP_TIME, 0);
	OP(&s, OP_ASYNC_MAP, 0x05, 0, 0, 0, 40); /* a word past every seqno */
	OP(&s, OP_QUEUE_CMD, 0, 2);
	OP(&s, OP_TIME, 1);
	OP(&s, OP_ASYNC_MAP, 0x08, 4); /* an unknown GPU: the context is lost */
	OP(&s, OP_TIME, 0);
	OP(&s, OP_DESTROY, 0);
	ret |= write_seed(argv[1], "async-map", &s);
	/* threat case: an event page with half its span of memory */
	memset(&s, 0, sizeof(s));
	first_seqno(&s, 0x90000000u); /* and seqnos in the upper half */
	bo(&s, 0, GTT_AQL, 4, AT_NEXT);
	OP(&s, OP_CREATE_EVENT, 0, 0);
	bo(&s, 1, GTT, 8, AT_NEXT);
	OP(&s, OP_CREATE_EVENT, 1, 0);
	ret |= write_seed(argv[1], "event-page-memory", &s);

	/* threat case: a BO at VA 0, then mapped; one at the GPUVM base */
	memset(&s, 0, sizeof(s));
	first_seqno(&s, 0xfffffff0u);
	OP(&s, OP_ALLOC, 0, VRAM, 255, AT_ZERO);
	OP(&s, OP_MAP, 0);
	bo(&s, 1, VRAM, 1, AT_BASE);
	OP(&s, OP_BIND, 0, 2);
	OP(&s, OP_GET_BLOB, 4, 0);
	ret |= write_seed(argv[1], "va-zero", &s);

	/* threat case: what another context allocates must not show */
	memset(&s, 0, sizeof(s));
	first_seqno(&s, 7);
	bo(&s, 0, VRAM, 16, AT_NEXT);
	OP(&s, OP_NEIGHBOUR, 3);
	OP(&s, OP_NEIGHBOUR);
	ret |= write_seed(argv[1], "neighbour", &s);

	/* threat case: get_blob behind a long queue of notifies */
	memset(&s, 0, sizeof(s));
	first_seqno(&s, 1);
	bo(&s, 1, GTT, 1, AT_NEXT);
	bo(&s, 2, GTT, 1, AT_NEXT);
	bo(&s, 4, GTT, 2, AT_NEXT);
	OP(&s, OP_QUEUE, 2, 1, 9, 0);
	for (int i = 0; i < 8; i++)
		OP(&s, OP_QUEUE_CMD, 0, 255);
	OP(&s, OP_BIND, 4, 2);
	OP(&s, OP_GET_BLOB, 4, 4);
	OP(&s, OP_DESTROY, 1);
	ret |= write_seed(argv[1], "blob-behind-notifies", &s);

	/* doorbell and MMIO shadow pages as blobs, overlap, raw requests */
	memset(&s, 0, sizeof(s));
	first_seqno(&s, 0x7ffffffeu);
	OP(&s, OP_ALLOC, 0, DOORBELL, 0, AT_NEXT);
	OP(&s, OP_ALLOC, 1, MMIO, 0, AT_NEXT);
	OP(&s, OP_ALLOC, 2, GTT, 3, AT_OVERLAP);
	OP(&s, OP_BIND, 0, 0);
	OP(&s, OP_BIND, 1, 2);
	OP(&s, OP_GET_BLOB, 4, 0);
	OP(&s, OP_GET_BLOB, 5, 1);
	OP(&s, OP_RAW, 0x25, 1, 2, 3, 4, 5, 6, 7, 8);
	OP(&s, OP_FREE, 0);
	OP(&s, OP_TIME, 1);
	ret |= write_seed(argv[1], "shadow-blobs", &s);

	/* many blob ids over a few BOs, each exported once */
	memset(&s, 0, sizeof(s));
	first_seqno(&s, 1);
	for (uint8_t i = 0; i < 4; i++)
		bo(&s, i, GTT, (uint8_t)(1 + i), AT_NEXT);
	for (int k = 0; k < 8; k++)
		for (uint8_t i = 0; i < 4; i++)
			OP(&s, OP_BIND, i, 0);
	OP(&s, OP_TIME, 0);
	for (uint8_t idx = 0; idx < 32; idx++)
		if (idx & 4)
			OP(&s, OP_GET_BLOB, idx, 0);
	OP(&s, OP_FREE, 1);
	OP(&s, OP_GET_BLOB, 5, 0);
	ret |= write_seed(argv[1], "many-blobs", &s);

	/* arenas: a 1 MiB arena mapped, BOs in it, an overlap, the edges, a
	 * busy destroy, a range reused after FREE (zeroed), bad creates */
	memset(&s, 0, sizeof(s));
	first_seqno(&s, 1);
	OP(&s, OP_ARENA, 0, arena_byte(1, 2)); /* create id 1, 1 MiB */
	OP(&s, OP_ARENA, 2, 1);                /* its blob, mapped */
	OP(&s, OP_ARENA_ALLOC, 0, 1, 0, 3);    /* slot 0: offset 0, 4 pages */
	OP(&s, OP_MAP, 0);
	OP(&s, OP_ARENA_ALLOC, 1, 1, 0, 1);    /* over slot 0: refused */
	OP(&s, OP_ARENA_ALLOC, 1, 1, 5, 1, 8); /* slot 1: page 8 */
	OP(&s, OP_ARENA_ALLOC, 2, 1, 1, 0);    /* slot 2: the last page */
	OP(&s, OP_ARENA_ALLOC, 3, 1, 2, 0);    /* outside */
	OP(&s, OP_ARENA_ALLOC, 3, 1, 3, 0);    /* wraps */
	OP(&s, OP_ARENA_ALLOC, 3, 1, 4, 0);    /* unaligned */
	OP(&s, OP_ARENA_ALLOC, 3, 0, 0, 0);    /* arena 0 */
	OP(&s, OP_ARENA_ALLOC, 3, 5, 0, 0);    /* arena 5: out of the model's ids */
	OP(&s, OP_ARENA_ALLOC, 3, 1, 0x80, 0); /* VRAM */
	OP(&s, OP_ARENA, 1, 1);                /* busy: refused */
	OP(&s, OP_FREE, 0);
	OP(&s, OP_ARENA_ALLOC, 4, 1, 0x40, 1); /* offset 0 again, UNCACHED: zeroed */
	OP(&s, OP_ARENA, 0, arena_byte(2, 3)); /* create id 2, size 0 */
	OP(&s, OP_ARENA, 0, arena_byte(2, 4)); /* PAGE + 1 */
	OP(&s, OP_ARENA, 0, arena_byte(2, 5)); /* above the limit */
	OP(&s, OP_ARENA, 4, 0x02);             /* id 0xffffffff */
	OP(&s, OP_ARENA, 0, arena_byte(2, 1)); /* id 2, 16 pages */
	OP(&s, OP_FREE, 1);
	OP(&s, OP_FREE, 2);
	OP(&s, OP_FREE, 4);
	OP(&s, OP_ARENA, 1, 1);                /* empty: destroyed */
	OP(&s, OP_ARENA, 2, 1);                /* its blob id is gone */
	OP(&s, OP_ARENA, 0, arena_byte(1, 2)); /* id 1 again */
	OP(&s, OP_ARENA, 2, 1);
	OP(&s, OP_ARENA_ALLOC, 5, 1, 0, 7);
	OP(&s, OP_ARENA_ALLOC, 6, 2, 1, 15); /* all of arena 2 */
	OP(&s, OP_DESTROY, 0);               /* teardown with both live */
	ret |= write_seed(argv[1], "arenas", &s);

	/* ALLOC_USERPTR_PIECES: a BO over a page an arena BO holds and a new
	 * one in another arena; the arena BO freed while the pieces hold its
	 * page; busy destroys; every hostile piece; teardown with it live */
	memset(&s, 0, sizeof(s));
	first_seqno(&s, 1);
	OP(&s, OP_ARENA, 0, arena_byte(1, 2)); /* create id 1, 1 MiB */
	OP(&s, OP_ARENA, 2, 1);                /* its blob, mapped */
	OP(&s, OP_ARENA, 0, arena_byte(2, 1)); /* id 2, 16 pages */
	OP(&s, OP_ARENA, 2, 2);
	OP(&s, OP_ARENA_ALLOC, 0, 1, 0, 3);              /* slot 0: pages 0-3 */
	OP(&s, OP_PIECES, 1, 1, 1, 6, 1, 2, 2, 0, 0, 1); /* pages 2-3 of 1, page 0 of 2 */
	OP(&s, OP_MAP, 1);
	OP(&s, OP_ARENA_ALLOC, 2, 2, 0, 0); /* held: refused */
	OP(&s, OP_ARENA, 1, 2);             /* busy */
	OP(&s, OP_FREE, 0);
	OP(&s, OP_ARENA, 1, 1);              /* still busy: the pieces */
	OP(&s, OP_ARENA_ALLOC, 2, 1, 0, 1);  /* pages 0-1 free again */
	OP(&s, OP_PIECES, 3, 0, 1, 2, 0, 1); /* just outside */
	OP(&s, OP_PIECES, 3, 0, 1, 3, 0, 1); /* wraps */
	OP(&s, OP_PIECES, 3, 0, 1, 4, 0, 1); /* unaligned */
	OP(&s, OP_PIECES, 3, 0, 1, 5, 0, 1); /* 2^32 - 1 pages */
	OP(&s, OP_PIECES, 3, 0, 0, 0, 0, 1); /* arena 0 */
	OP(&s, OP_PIECES, 3, 0, 5, 0, 0, 1); /* arena 5 */
	OP(&s, OP_PIECES, 3, 0, 1, 0, 0, 0); /* a page too many */
	OP(&s, OP_PIECES, 3, 3, 1, 1, 0, 2, 1, 0, 1, 0, 0, 2, 6, 3, 9, 1); /* four */
	OP(&s, OP_FREE, 1);
	OP(&s, OP_PIECES, 4, 0, 2, 0, 3, 1); /* all of arena 2's first 4 */
	OP(&s, OP_DESTROY, 0);               /* teardown with it live */
	ret |= write_seed(argv[1], "userptr-pieces", &s);

	/* protocol 1.1 (odd first seqno): an async allocation under a
	 * guest-chosen handle with its blob bound in the same batch (refused:
	 * the BO does not exist at submit, get_blob fails at once), a
	 * synchronous one, an async one at VA 0 (a deferred error, reported
	 * by MAP, cleared by FREE), the freed index at its next generation,
	 * then a live index named again (the context is lost) */
	memset(&s, 0, sizeof(s));
	first_seqno(&s, 0x100); /* read back as seqno 1: odd */
	OP(&s, OP_ALLOC, 0, GTT_GUEST_HANDLE, 3, AT_NEXT, 0x80 | 1);
	OP(&s, OP_BIND, 0, 2); /* submitted with the ALLOC */
	OP(&s, OP_GET_BLOB, 4, 0);
	OP(&s, OP_MAP, 0);
	OP(&s, OP_ALLOC, 1, GTT_GUEST_HANDLE, 0, AT_NEXT, 2);
	OP(&s, OP_ALLOC, 2, GTT_GUEST_HANDLE, 0, AT_ZERO, 0x80 | 3);
	OP(&s, OP_MAP, 2);
	OP(&s, OP_FREE, 2);
	OP(&s, OP_ALLOC, 3, GTT_GUEST_HANDLE, 0, AT_NEXT, 0x80 | 0x40 | 3);
	OP(&s, OP_MAP, 3);
	OP(&s, OP_ALLOC, 4, GTT_GUEST_HANDLE, 0, AT_NEXT, 0x80 | 1);
	OP(&s, OP_TIME, 0);
	ret |= write_seed(argv[1], "async-alloc", &s);

	/* protocol 1.1 arena BOs without a reply: one bound in its batch
	 * (refused, get_blob fails), one at page 8, one over the first
	 * (a deferred error, reported by MAP, cleared by FREE), the first
	 * range freed and allocated synchronously (zeroed), a busy destroy */
	memset(&s, 0, sizeof(s));
	first_seqno(&s, 0x100);                   /* odd: protocol 1.1 */
	OP(&s, OP_ARENA, 0, arena_byte(1, 2));    /* create id 1, 1 MiB */
	OP(&s, OP_ARENA, 2, 1);                   /* its blob, mapped */
	OP(&s, OP_ARENA_ALLOC, 0, 1, 0x20, 3, 5); /* async, offset 0, handle 5 */
	OP(&s, OP_BIND, 0, 2);                    /* submitted with the ALLOC */
	OP(&s, OP_GET_BLOB, 4, 0);
	OP(&s, OP_MAP, 0);
	OP(&s, OP_ARENA_ALLOC, 1, 1, 0x25, 0, 8, 6); /* async, page 8, handle 6 */
	OP(&s, OP_ARENA_ALLOC, 2, 1, 0x20, 0, 7);    /* over slot 0: refused */
	OP(&s, OP_MAP, 2);
	OP(&s, OP_FREE, 2);
	OP(&s, OP_FREE, 0);
	OP(&s, OP_ARENA_ALLOC, 3, 1, 0, 3); /* offset 0 again, synchronous */
	OP(&s, OP_ARENA, 1, 1);             /* busy: refused */
	OP(&s, OP_DESTROY, 0);
	ret |= write_seed(argv[1], "async-arenas", &s);

	if (!ret && argc > 2) {
		FILE *f = fopen(argv[2], "w");

		if (f)
			fclose(f);
	}
	return ret ? 1 : 0;
}
