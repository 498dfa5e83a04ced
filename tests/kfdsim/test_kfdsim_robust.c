// SPDX-License-Identifier: MIT
/* kfdsim robustness: hostile ioctl arguments never crash the model, and
 * concurrent ioctls on one process keep it consistent. */
#include <pthread.h>

#include "sim_fixture.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static uint64_t rnd(void)
{
	/* xorshift64*: deterministic, so a failure reproduces */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

/* Plausible values make the handlers go deeper than the first check. */
static uint64_t pick(struct fx *f, const uint64_t *handles, unsigned nh)
{
	switch (rnd() % 8) {
	case 0:
		return f->gpu_id[0];
	case 1:
		return nh ? handles[rnd() % nh] : 0;
	case 2:
		return rnd() % 64;
	case 3:
		return 1ULL << (rnd() % 64);
	case 4:
		return 0;
	case 5:
		return ~0ULL;
	default:
		return rnd();
	}
}

static void test_random_arguments(void **state)
{
	struct fx *f = fx_new(NULL, true);
	uint64_t handles[8];
	unsigned nh = 0;
	uint64_t buf[32];
	struct kfd_ioctl_get_version_args v;

	(void)state;
	for (unsigned i = 0; i < 8; i++) {
		uint64_t h;

		if (fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_GTT | VKFD_KFD_ALLOC_WRITABLE,
			     fx_va(f, 65536), 65536, &h, NULL) == 0)
			handles[nh++] = h;
	}
	for (unsigned iter = 0; iter < 20000; iter++) {
		unsigned nr = (unsigned)(rnd() % 0x2a);
		unsigned size = (unsigned)(rnd() % sizeof(buf));
		unsigned dir = (unsigned)(rnd() % 4);
		int r;

		if (nr == 0x0c)
			continue; /* WAIT_EVENTS: covered below with bounded timeouts */
		for (unsigned k = 0; k < 32; k++)
			buf[k] = pick(f, handles, nh);
		r = fx_ioctl(f, _IOC(dir, 'K', nr, size), buf);
		assert_true(r <= 0);
		assert_true(r >= -4095);
	}
	/* WAIT_EVENTS with hostile arrays and short timeouts */
	for (unsigned iter = 0; iter < 200; iter++) {
		struct kfd_event_data d[4];
		struct kfd_ioctl_wait_events_args w;

		for (unsigned k = 0; k < 4; k++) {
			memset(&d[k], 0, sizeof(d[k]));
			d[k].event_id = (uint32_t)pick(f, handles, nh);
		}
		w.events_ptr = rnd() % 3 ? (uintptr_t)d : rnd();
		w.num_events = (uint32_t)(rnd() % 3 ? rnd() % 5 : rnd());
		w.wait_for_all = (uint32_t)rnd();
		w.timeout = (uint32_t)(rnd() % 2);
		assert_true(fx_ioctl(f, AMDKFD_IOC_WAIT_EVENTS, &w) <= 0);
	}
	/* still a working device */
	assert_int_equal(fx_ioctl(f, AMDKFD_IOC_GET_VERSION, &v), 0);
	assert_int_equal(v.major_version, 1);
	assert_int_equal(f->ops->close(f->sim, f->kfd), 0);
	assert_int_equal(kfdsim_bytes_allocated(f->sim), 0);
	fx_free(f);
}

static void test_random_mmaps(void **state)
{
	struct fx *f = fx_new(NULL, true);

	(void)state;
	for (unsigned iter = 0; iter < 2000; iter++) {
		uint64_t off = rnd() & ~4095ULL;
		size_t len = (size_t)(rnd() % (1 << 20)) + 1;
		int fd = rnd() % 2 ? f->kfd : f->rfd[0];
		void *p;

		if (rnd() % 2)
			off = (off & (3ULL << 62)) | ((uint64_t)f->gpu_id[0] << 46);
		p = f->ops->mmap(f->sim, NULL, len, PROT_READ, MAP_SHARED, fd, (off_t)off);
		if (p != MAP_FAILED)
			f->ops->munmap(f->sim, p, len);
	}
	fx_free(f);
}

struct worker {
	struct fx *f;
	unsigned id;
	int failures;
};

static void *mem_worker(void *arg)
{
	struct worker *w = arg;
	struct fx *f = w->f;
	uint32_t ids[1] = {f->gpu_id[0]};
	uint64_t base = ((uintptr_t)f->va + (64ULL << 20) * (w->id + 1)) & ~0xffffULL;

	for (unsigned i = 0; i < 300; i++) {
		uint64_t h, va = base + (i % 16) * 65536;

		if (fx_alloc(f, 0, KFD_IOC_ALLOC_MEM_FLAGS_VRAM | VKFD_KFD_ALLOC_WRITABLE, va,
			     65536, &h, NULL)) {
			w->failures++;
			continue;
		}
		if (fx_map(f, AMDKFD_IOC_MAP_MEMORY_TO_GPU, h, ids, 1, NULL))
			w->failures++;
		if (fx_map(f, AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU, h, ids, 1, NULL))
			w->failures++;
		if (fx_free_bo(f, h))
			w->failures++;
	}
	return NULL;
}

static void *event_worker(void *arg)
{
	struct worker *w = arg;
	struct fx *f = w->f;

	for (unsigned i = 0; i < 300; i++) {
		struct kfd_ioctl_create_event_args c = {.event_type = KFD_IOC_EVENT_SIGNAL,
							.auto_reset = 1};
		struct kfd_ioctl_set_event_args s;
		struct kfd_event_data d;
		struct kfd_ioctl_wait_events_args wa = {
		    .events_ptr = (uintptr_t)&d, .num_events = 1, .timeout = 1000};

		if (fx_ioctl(f, AMDKFD_IOC_CREATE_EVENT, &c)) {
			w->failures++;
			continue;
		}
		s.event_id = c.event_id;
		if (fx_ioctl(f, AMDKFD_IOC_SET_EVENT, &s))
			w->failures++;
		memset(&d, 0, sizeof(d));
		d.event_id = c.event_id;
		if (fx_ioctl(f, AMDKFD_IOC_WAIT_EVENTS, &wa) ||
		    wa.wait_result != KFD_IOC_WAIT_RESULT_COMPLETE)
			w->failures++;
		if (fx_ioctl(f, AMDKFD_IOC_DESTROY_EVENT, &s))
			w->failures++;
	}
	return NULL;
}

static void test_concurrent_ioctls(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct worker w[4];
	pthread_t t[4];

	(void)state;
	for (unsigned i = 0; i < 4; i++) {
		w[i] = (struct worker){.f = f, .id = i};
		pthread_create(&t[i], NULL, i < 2 ? mem_worker : event_worker, &w[i]);
	}
	for (unsigned i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		assert_int_equal(w[i].failures, 0);
	}
	assert_int_equal(kfdsim_bytes_allocated(f->sim), 0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random_arguments),
	    cmocka_unit_test(test_random_mmaps),
	    cmocka_unit_test(test_concurrent_ioctls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
