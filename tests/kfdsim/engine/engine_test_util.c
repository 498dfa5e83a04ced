/* SPDX-License-Identifier: MIT */
#include "engine_test_util.h"

#include <stdlib.h>
#include <string.h>

#include "aql_packets.h"

void *host(struct fake_gpu *g, uint64_t va)
{
	void *p = fake_gpu_host(g, va);

	if (!p)
		abort();
	return p;
}

void test_env_setup(struct fake_gpu *g)
{
	uint8_t *k;

	fake_gpu_init(g);
	fake_gpu_map(g, Q_VA, Q_RPTR_OFF + 4096, true);
	fake_gpu_map(g, Q2_VA, Q_RPTR_OFF + 4096, true);
	fake_gpu_map(g, DATA_VA, DATA_SIZE, true);
	fake_gpu_map(g, SPLIT_VA, SPLIT_SIZE, true);
	fake_gpu_map(g, SPLIT_VA + SPLIT_SIZE, SPLIT_SIZE, true);
	fake_gpu_map(g, RO_VA, 4096, false);
	fake_gpu_map(g, SIG_VA, 4096, true);
	k = fake_gpu_map(g, KOBJ_VA, 4096, false);
	fake_gpu_map(g, KARG_VA, 0x10000, true);
	for (uint32_t id = 1; id <= 5; id++) {
		memcpy(k + 64 * id, "KFDSIM01", 8);
		memcpy(k + 64 * id + 8, &id, 4);
	}
	/* not KFDSIM01, so taken as a real descriptor whose code (entry
	 * offset 0: the descriptor itself) starts with a word that is no
	 * gfx9 instruction (text such as "NOTA" decodes as v_sub_f16) */
	memcpy(k + 64 * KOBJ_BAD_MAGIC, "\xff\xff\xff\xffNOTA", 8);
	memcpy(k + 64 * KOBJ_BAD_ID, "KFDSIM01", 8);
	k[64 * KOBJ_BAD_ID + 8] = 99;
}

void tq_start(struct test_queue *t, struct fake_gpu *g, enum sim_queue_type type,
	      uint64_t ring_size)
{
	tq_start_at(t, g, type, ring_size, Q_VA);
}

void tq_start_at(struct test_queue *t, struct fake_gpu *g, enum sim_queue_type type,
		 uint64_t ring_size, uint64_t qva)
{
	/* SDMA queues default to gfx90a's SDMA 4.4 */
	tq_start_sdma_ip(t, g, type, ring_size, qva, 4, 4);
}

void tq_start_sdma_ip(struct test_queue *t, struct fake_gpu *g, enum sim_queue_type type,
		      uint64_t ring_size, uint64_t qva, uint32_t ip_major, uint32_t ip_minor)
{
	memset(t, 0, sizeof(*t));
	t->g = g;
	t->ring = host(g, qva);
	t->rptr = host(g, qva + Q_RPTR_OFF);
	t->wptr = host(g, qva + Q_RPTR_OFF + 8);
	*t->rptr = 0;
	*t->wptr = 0;
	/* An AQL ring starts with every slot INVALID. */
	if (type == SIM_QUEUE_COMPUTE_AQL) {
		for (uint64_t i = 0; i < ring_size; i += AQL_PACKET_SIZE) {
			uint16_t h = AQL_TYPE_INVALID;

			memcpy(t->ring + i, &h, 2);
		}
	}
	t->desc.type = type;
	t->desc.queue_id = 42;
	t->desc.ring_va = qva;
	t->desc.ring_size = ring_size;
	t->desc.rptr_va = qva + Q_RPTR_OFF;
	t->desc.wptr_va = qva + Q_RPTR_OFF + 8;
	t->desc.doorbell = &t->doorbell;
	/* a fresh queue has rung nothing (sim_engine.h) */
	t->doorbell = type == SIM_QUEUE_COMPUTE_AQL ? UINT64_MAX : 0;
	if (type == SIM_QUEUE_SDMA && !sim_sdma_format_for_ip(ip_major, ip_minor, &t->desc.sdma))
		abort();
	t->q = sim_engine_queue_start(&t->desc, &g->env);
	if (!t->q)
		abort();
}

void tq_stop(struct test_queue *t)
{
	sim_engine_queue_stop(t->q);
	t->q = NULL;
}

void aql_submit(struct test_queue *t, const void *pkt, bool kick)
{
	uint64_t slots = t->desc.ring_size / AQL_PACKET_SIZE;
	uint8_t *slot = t->ring + (t->next % slots) * AQL_PACKET_SIZE;
	uint16_t header;

	memcpy(slot + 2, (const uint8_t *)pkt + 2, AQL_PACKET_SIZE - 2);
	memcpy(&header, pkt, 2);
	__atomic_store_n((uint16_t *)slot, header, __ATOMIC_RELEASE);
	t->next++;
	__atomic_store_n(t->wptr, t->next, __ATOMIC_RELEASE);
	__atomic_store_n(&t->doorbell, t->next - 1, __ATOMIC_RELEASE);
	if (kick)
		sim_engine_queue_kick(t->q);
}

void aql_dispatch(struct test_queue *t, uint32_t kobj_slot, uint64_t kernarg_va, uint64_t signal_va)
{
	struct aql_dispatch_packet p;

	memset(&p, 0, sizeof(p));
	p.header = AQL_TYPE_KERNEL_DISPATCH | AQL_HEADER_BARRIER;
	p.setup = 1;
	p.workgroup_size[0] = 64;
	p.workgroup_size[1] = p.workgroup_size[2] = 1;
	p.grid_size[0] = 64;
	p.grid_size[1] = p.grid_size[2] = 1;
	p.kernel_object = KOBJ_VA + 64ull * kobj_slot;
	p.kernarg_address = kernarg_va;
	p.completion_signal = signal_va;
	aql_submit(t, &p, true);
}

void aql_barrier(struct test_queue *t, bool is_or, const uint64_t deps[5], uint64_t signal_va)
{
	struct aql_barrier_packet p;

	memset(&p, 0, sizeof(p));
	p.header = (is_or ? AQL_TYPE_BARRIER_OR : AQL_TYPE_BARRIER_AND) | AQL_HEADER_BARRIER;
	memcpy(p.dep_signal, deps, sizeof(p.dep_signal));
	p.completion_signal = signal_va;
	aql_submit(t, &p, true);
}

void sdma_write(struct test_queue *t, const uint32_t *dw, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint64_t off = t->next & (t->desc.ring_size - 1);

		memcpy(t->ring + off, &dw[i], 4);
		t->next += 4;
	}
}

void sdma_publish(struct test_queue *t)
{
	__atomic_store_n(t->wptr, t->next, __ATOMIC_RELEASE);
	__atomic_store_n(&t->doorbell, t->next, __ATOMIC_RELEASE);
	sim_engine_queue_kick(t->q);
}

int64_t *signal_init(struct fake_gpu *g, uint64_t va, int64_t value, uint64_t mailbox,
		     uint32_t event_id)
{
	struct aql_amd_signal *s = host(g, va);

	memset(s, 0, sizeof(*s));
	s->kind = 1;
	s->value = value;
	s->event_mailbox_ptr = mailbox;
	s->event_id = event_id;
	return &s->value;
}

void tq_teardown(struct test_queue *t, struct fake_gpu *g)
{
	if (t->q)
		tq_stop(t);
	fake_gpu_fini(g);
}

int engine_fixture_setup(void **state, enum sim_queue_type type, uint64_t ring_size)
{
	struct engine_fixture *f = calloc(1, sizeof(*f));

	if (!f)
		return -1;
	test_env_setup(&f->g);
	tq_start(&f->t, &f->g, type, ring_size);
	*state = f;
	return 0;
}

int engine_fixture_teardown(void **state)
{
	struct engine_fixture *f = *state;

	tq_teardown(&f->t, &f->g);
	free(f);
	return 0;
}
