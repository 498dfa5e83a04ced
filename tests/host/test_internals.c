// SPDX-License-Identifier: MIT
/* Unit tests of the host library's building blocks: handle tables, the VA
 * map, fence rings, the wait pool and the doorbell relay. */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "doorbell_relay.h"
#include "vkfd/device.h"
#include "vkfd/host.h"
#include "fence.h"
#include "host_lock.h"
#include "obj_table.h"
#include "vkfd_protocol.h"
#include "va_map.h"
#include "wait_pool.h"

static void test_obj_table_handles(void **state)
{
	struct obj_table t;
	int a = 1, b = 2, c = 3;
	uint64_t ha, hb, hc;

	(void)state;
	obj_table_init(&t, 2);
	assert_int_equal(obj_table_add(&t, &a, &ha), 0);
	assert_int_equal(obj_table_add(&t, &b, &hb), 0);
	assert_int_equal(obj_table_add(&t, &c, &hc), -ENOMEM); /* limit */
	assert_true(ha != 0 && hb != 0 && ha != hb);
	assert_ptr_equal(obj_table_get(&t, ha), &a);
	assert_ptr_equal(obj_table_get(&t, hb), &b);
	assert_null(obj_table_get(&t, 0));
	assert_null(obj_table_get(&t, ha ^ (1ull << 32)));                 /* wrong generation */
	assert_null(obj_table_get(&t, (ha & 0xffffffff00000000ull) | 77)); /* out of range */
	assert_ptr_equal(obj_table_remove(&t, ha), &a);
	assert_null(obj_table_get(&t, ha));    /* stale after free */
	assert_null(obj_table_remove(&t, ha)); /* double free */
	assert_int_equal(obj_table_add(&t, &c, &hc), 0);
	assert_true(hc != ha); /* slot reused with a new generation */
	assert_null(obj_table_get(&t, ha));
	assert_ptr_equal(obj_table_get(&t, hc), &c);
	obj_table_fini(&t);
}

/* Caller-chosen handles (protocol 1.1) and deferred errors: range, slot
 * state and generation are checked; host-chosen adds skip taken slots. */
static void test_obj_table_add_at(void **state)
{
	struct obj_table t;
	int a = 1, b = 2, c = 3;
	uint64_t hc;
	uint32_t pos = 0, n = 0;

	(void)state;
	obj_table_init(&t, 100);
	assert_int_equal(obj_table_next_gen(&t, 100), 1);
	/* far past the grown slots, up to the limit: the table grows */
	assert_int_equal(obj_table_add_at(&t, VKFD_HANDLE(100, 1), &a), 0);
	assert_ptr_equal(obj_table_get(&t, VKFD_HANDLE(100, 1)), &a);
	assert_int_equal(obj_table_add_at(&t, VKFD_HANDLE(101, 1), &b), -EINVAL); /* > max */
	assert_int_equal(obj_table_add_at(&t, VKFD_HANDLE(0, 1), &b), -EINVAL);
	assert_int_equal(obj_table_add_at(&t, VKFD_HANDLE(5, 0), &b), -EINVAL);
	assert_int_equal(obj_table_add_at(&t, VKFD_HANDLE(5, 2), &b), -EINVAL);   /* not next */
	assert_int_equal(obj_table_add_at(&t, VKFD_HANDLE(100, 1), &b), -EINVAL); /* live */
	assert_int_equal(obj_table_add_at(&t, VKFD_HANDLE(5, 1), NULL), -EINVAL);
	/* a deferred error holds its slot; only its own handle reads it */
	assert_int_equal(obj_table_set_error(&t, VKFD_HANDLE(5, 1), -EADDRINUSE), 0);
	assert_int_equal(obj_table_error(&t, VKFD_HANDLE(5, 1)), -EADDRINUSE);
	assert_int_equal(obj_table_error(&t, VKFD_HANDLE(5, 2)), 0);
	assert_int_equal(obj_table_error(&t, VKFD_HANDLE(100, 1)), 0); /* a live object */
	assert_null(obj_table_get(&t, VKFD_HANDLE(5, 1)));
	assert_int_equal(obj_table_add_at(&t, VKFD_HANDLE(5, 1), &b), -EINVAL);
	assert_int_equal(obj_table_set_error(&t, VKFD_HANDLE(6, 1), 0), -EINVAL);
	/* host-chosen adds never take slot 5 or 100 */
	for (int i = 0; i < 50; i++) {
		assert_int_equal(obj_table_add(&t, &c, &hc), 0);
		assert_true(VKFD_HANDLE_INDEX(hc) != 5 && VKFD_HANDLE_INDEX(hc) != 100);
	}
	while (obj_table_next(&t, &pos, NULL))
		n++;
	assert_int_equal(n, 51); /* the error slot is no object */
	/* clearing frees the slot at the next generation */
	assert_false(obj_table_clear_error(&t, VKFD_HANDLE(5, 2)));
	assert_true(obj_table_clear_error(&t, VKFD_HANDLE(5, 1)));
	assert_false(obj_table_clear_error(&t, VKFD_HANDLE(5, 1)));
	assert_int_equal(obj_table_next_gen(&t, 5), 2);
	assert_int_equal(obj_table_add_at(&t, VKFD_HANDLE(5, 2), &b), 0);
	/* removal moves the next generation on too */
	assert_ptr_equal(obj_table_remove(&t, VKFD_HANDLE(100, 1)), &a);
	assert_int_equal(obj_table_next_gen(&t, 100), 2);
	obj_table_fini(&t);
}

static void test_obj_table_iterate(void **state)
{
	struct obj_table t;
	int v[40];
	uint64_t h[40];
	uint32_t pos = 0, n = 0;

	(void)state;
	obj_table_init(&t, 0);
	for (int i = 0; i < 40; i++)
		assert_int_equal(obj_table_add(&t, &v[i], &h[i]), 0);
	for (int i = 0; i < 40; i += 2)
		obj_table_remove(&t, h[i]);
	while (obj_table_next(&t, &pos, NULL))
		n++;
	assert_int_equal(n, 20);
	obj_table_fini(&t);
}

static void test_va_map(void **state)
{
	struct va_map m;
	int o1, o2;

	(void)state;
	va_map_init(&m);
	assert_int_equal(va_map_insert(&m, 0x10000, 0x4000, &o1), 0);
	assert_int_equal(va_map_insert(&m, 0x20000, 0x1000, &o2), 0);
	assert_int_equal(va_map_insert(&m, 0x13000, 0x2000, &o2), -EADDRINUSE); /* tail */
	assert_int_equal(va_map_insert(&m, 0xf000, 0x2000, &o2), -EADDRINUSE);  /* head */
	assert_int_equal(va_map_insert(&m, 0x8000, 0x20000, &o2), -EADDRINUSE); /* covers */
	assert_int_equal(va_map_insert(&m, 0x14000, 0xc000, &o2), 0);           /* touching both */
	assert_int_equal(va_map_insert(&m, 0x1000, 0, &o2), -EINVAL);
	assert_int_equal(va_map_insert(&m, UINT64_MAX - 0xfff, 0x2000, &o2), -EINVAL);
	assert_true(va_map_overlaps(&m, 0x13fff, 1));
	assert_false(va_map_overlaps(&m, 0x21000, 0x1000));
	assert_ptr_equal(va_map_find(&m, 0x10000, 0x4000)->owner, &o1);
	assert_null(va_map_find(&m, 0x13000, 0x2000)); /* straddles two ranges */
	assert_null(va_map_find(&m, 0x30000, 8));
	assert_int_equal(va_map_remove(&m, 0x10000, &o2), -ENOENT); /* not its owner */
	assert_int_equal(va_map_remove(&m, 0x10000, &o1), 0);
	assert_null(va_map_find(&m, 0x10000, 8));
	va_map_fini(&m);
}

struct retired {
	uint32_t ring[64];
	uint64_t id[64];
	int n;
};

static void on_retire(void *cookie, uint32_t ctx_id, uint32_t ring, uint64_t fence_id)
{
	struct retired *r = cookie;

	assert_int_equal(ctx_id, 7);
	r->ring[r->n] = ring;
	r->id[r->n] = fence_id;
	r->n++;
}

static void test_fence_poll_order(void **state)
{
	struct fence_state fs;
	struct retired r = {.n = 0};
	uint64_t v;

	(void)state;
	assert_int_equal(fence_state_init(&fs, false, on_retire, &r, 7), 0);
	assert_int_equal(fence_state_submit(&fs, 0, 100, 2), 0);
	assert_int_equal(fence_state_submit(&fs, 0, 101, 3), 0);
	assert_int_equal(fence_state_submit(&fs, 5, 200, 1), 0);
	assert_int_equal(fence_state_submit(&fs, 64, 1, 0), -EINVAL);
	/* nothing ready: the eventfd is not readable */
	assert_true(read(fs.efd, &v, sizeof(v)) < 0);
	fence_state_advance(&fs, 0, 2);
	fence_state_retire(&fs);
	assert_int_equal(r.n, 1);
	assert_int_equal(r.id[0], 100);
	fence_state_advance(&fs, 0, 1); /* progress never goes back */
	fence_state_advance(&fs, 5, 1);
	fence_state_advance(&fs, 0, 3);
	fence_state_retire(&fs);
	assert_int_equal(r.n, 3);
	/* order is per ring; across rings any order */
	for (int i = 1; i < 3; i++)
		assert_int_equal(r.id[i], r.ring[i] == 0 ? 101 : 200);
	assert_int_not_equal(r.ring[1], r.ring[2]);
	fence_state_retire(&fs); /* retired exactly once */
	assert_int_equal(r.n, 3);
	/* a fence whose target is already reached retires at once */
	assert_int_equal(fence_state_submit(&fs, 0, 102, 3), 0);
	fence_state_complete_all(&fs);
	fence_state_retire(&fs);
	assert_int_equal(r.n, 4);
	assert_int_equal(r.id[3], 102);
	fence_state_close(&fs);
	fence_state_fini(&fs);
}

static void test_fence_async(void **state)
{
	struct fence_state fs;
	struct retired r = {.n = 0};

	(void)state;
	assert_int_equal(fence_state_init(&fs, true, on_retire, &r, 7), 0);
	assert_int_equal(fence_state_submit(&fs, 3, 1, 1), 0);
	assert_int_equal(r.n, 0);
	fence_state_advance(&fs, 3, 1); /* callback from the advancing thread */
	assert_int_equal(r.n, 1);
	fence_state_close(&fs);
	assert_int_equal(fence_state_submit(&fs, 3, 2, 0), 0);
	assert_int_equal(r.n, 1); /* closed: no more callbacks */
	fence_state_fini(&fs);
}

static int job_runs;

/* Jobs that stay busy until the test opens the gate: the cap is checked
 * while both are certainly running, however slow the machine (a 20 ms
 * sleep once let the first job finish before the third submit). */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool open;
} gate = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false};

static void gate_set(bool open)
{
	pthread_mutex_lock(&gate.lock);
	gate.open = open;
	pthread_cond_broadcast(&gate.cond);
	pthread_mutex_unlock(&gate.lock);
}

static void slow_job(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&gate.lock);
	while (!gate.open)
		pthread_cond_wait(&gate.cond, &gate.lock);
	pthread_mutex_unlock(&gate.lock);
	__atomic_fetch_add(&job_runs, 1, __ATOMIC_SEQ_CST);
}

static void test_wait_pool_cap(void **state)
{
	struct wait_pool *p;

	(void)state;
	job_runs = 0;
	gate_set(false);
	assert_int_equal(wait_pool_create(&p, 2), 0);
	assert_int_equal(wait_pool_submit(p, slow_job, NULL), 0);
	assert_int_equal(wait_pool_submit(p, slow_job, NULL), 0);
	assert_int_equal(wait_pool_submit(p, slow_job, NULL), -EBUSY); /* cap */
	gate_set(true);
	while (wait_pool_busy(p))
		usleep(1000);
	assert_int_equal(__atomic_load_n(&job_runs, __ATOMIC_SEQ_CST), 2);
	assert_int_equal(wait_pool_submit(p, slow_job, NULL), 0); /* threads reused */
	wait_pool_destroy(p);
	assert_int_equal(job_runs, 3);
}

/* A job blocked in a syscall is interrupted by the cancel signal. */
static void blocking_job(void *arg)
{
	int *fds = arg;
	char c;

	/* read() on an empty pipe blocks until a signal interrupts it */
	if (read(fds[0], &c, 1) < 0 && errno == EINTR)
		__atomic_fetch_add(&job_runs, 1, __ATOMIC_SEQ_CST);
}

static void test_wait_pool_cancel(void **state)
{
	struct wait_pool *p;
	int fds[2];

	(void)state;
	job_runs = 0;
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(wait_pool_create(&p, 4), 0);
	assert_int_equal(wait_pool_submit(p, blocking_job, fds), 0);
	usleep(20000);
	wait_pool_destroy(p); /* must return: the read gets EINTR */
	assert_int_equal(job_runs, 1);
	close(fds[0]);
	close(fds[1]);
}

static void test_relay_forwards(void **state)
{
	struct doorbell_relay *r;
	struct doorbell_relay_stats st;
	volatile uint64_t shadow[4] = {0}, real[4] = {0};
	uint64_t one = 1;
	int i;

	(void)state;
	assert_int_equal(doorbell_relay_start(&r, 8), 0);
	assert_int_equal(doorbell_relay_add(r, 2, &shadow[2], &real[2]), 0);
	assert_int_equal(doorbell_relay_add(r, 2, &shadow[1], &real[1]), -EBUSY);
	assert_int_equal(doorbell_relay_add(r, 8, &shadow[1], &real[1]), -EINVAL);
	/* adaptive polling without any eventfd write */
	__atomic_store_n(&shadow[2], 0x40, __ATOMIC_RELEASE);
	for (i = 0; i < 2000 && __atomic_load_n(&real[2], __ATOMIC_ACQUIRE) != 0x40; i++)
		usleep(1000);
	assert_int_equal(real[2], 0x40);
	/* eventfd wake-up */
	__atomic_store_n(&shadow[2], 0x80, __ATOMIC_RELEASE);
	assert_int_equal(write(doorbell_relay_efd(r), &one, sizeof(one)), sizeof(one));
	for (i = 0; i < 2000 && __atomic_load_n(&real[2], __ATOMIC_ACQUIRE) != 0x80; i++)
		usleep(1000);
	assert_int_equal(real[2], 0x80);
	doorbell_relay_get_stats(r, &st);
	assert_true(st.copies >= 2);
	/* a removed slot is never written again */
	doorbell_relay_remove(r, 2);
	__atomic_store_n(&shadow[2], 0xc0, __ATOMIC_RELEASE);
	doorbell_relay_flush(r);
	usleep(20000);
	assert_int_equal(real[2], 0x80);
	assert_int_equal(real[1], 0);
	doorbell_relay_stop(r);
}

static void test_real_device_ops(void **state)
{
	const struct vkfd_device_ops *ops = vkfd_real_device_ops();
	int fd;

	(void)state;
	assert_string_equal(ops->name, "kfd");
	assert_string_equal(ops->sysfs_root(NULL), "");
	assert_int_equal(ops->open_render(NULL, 5), -EINVAL);
	assert_int_equal(ops->open_render(NULL, 300), -EINVAL);
	assert_int_equal(ops->close(NULL, -1), -EBADF);
	assert_int_equal(ops->ioctl(NULL, -1, 0, NULL), -EBADF);
	fd = ops->open_kfd(NULL);
	if (access("/dev/kfd", F_OK) != 0)
		assert_int_equal(fd, -ENOENT); /* no GPU on this machine */
	else if (fd >= 0)
		assert_int_equal(ops->close(NULL, fd), 0);
}

static void test_forced_real_device_without_kfd(void **state)
{
	struct vkfd_host_config cfg;

	(void)state;
	if (access("/dev/kfd", F_OK) == 0)
		skip(); /* only meaningful on a machine without a GPU */
	memset(&cfg, 0, sizeof(cfg));
	cfg.api_version = VKFD_HOST_API_VERSION;
	setenv("VKFD_DEVICE", "real", 1);
	assert_true(vkfd_host_init(&cfg) < 0);
	unsetenv("VKFD_DEVICE");
	cfg.api_version = 99;
	assert_int_equal(vkfd_host_init(&cfg), -EINVAL);
}

/* A pass costs O(active queues), a one-slot flush (DOORBELL_NOTIFY) O(1),
 * however many slots the relay has; removing a queue from the middle of the
 * active set keeps the others relayed. */
static void test_relay_cost_follows_queues(void **state)
{
	struct doorbell_relay *r;
	struct doorbell_relay_stats st;
	volatile uint64_t shadow[3] = {0}, real[3] = {0};
	static const uint32_t slots[3] = {1, 8000, 16383};
	int i;

	(void)state;
	assert_int_equal(doorbell_relay_start(&r, 16384), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(doorbell_relay_add(r, slots[i], &shadow[i], &real[i]), 0);
	doorbell_relay_remove(r, slots[0]);
	__atomic_store_n(&shadow[2], 0x10, __ATOMIC_RELEASE);
	doorbell_relay_flush_slot(r, slots[2]);
	assert_int_equal(real[2], 0x10);
	__atomic_store_n(&shadow[1], 0x20, __ATOMIC_RELEASE);
	doorbell_relay_flush(r);
	assert_int_equal(real[1], 0x20);
	for (i = 0; i < 1000; i++)
		doorbell_relay_flush_slot(r, slots[1]);
	doorbell_relay_flush_slot(r, slots[0]); /* removed: nothing to do */
	doorbell_relay_get_stats(r, &st);
	/* two queues were active in every pass, however many the relay could hold */
	assert_true(st.scans >= 1001);
	assert_true(st.visits <= 2 * st.scans);
	doorbell_relay_stop(r);
}

/* host_assert_held: silent with the mutex held, abort (in a child, so the
 * test survives) without it; the mutex is left unlocked either way. */
static void test_assert_held(void **state)
{
	pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
	int status = 0;
	pid_t pid;

	(void)state;
	pthread_mutex_lock(&m);
	host_assert_held(&m);
	pthread_mutex_unlock(&m);

	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		host_assert_held(&m); /* not held: must not return */
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGABRT);
	assert_int_equal(pthread_mutex_trylock(&m), 0);
	pthread_mutex_unlock(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_assert_held),
	    cmocka_unit_test(test_obj_table_handles),
	    cmocka_unit_test(test_obj_table_iterate),
	    cmocka_unit_test(test_obj_table_add_at),
	    cmocka_unit_test(test_va_map),
	    cmocka_unit_test(test_fence_poll_order),
	    cmocka_unit_test(test_fence_async),
	    cmocka_unit_test(test_wait_pool_cap),
	    cmocka_unit_test(test_wait_pool_cancel),
	    cmocka_unit_test(test_relay_forwards),
	    cmocka_unit_test(test_relay_cost_follows_queues),
	    cmocka_unit_test(test_real_device_ops),
	    cmocka_unit_test(test_forced_real_device_without_kfd),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
