// SPDX-License-Identifier: MIT
/*
 * The private sysfs tree in $TMPDIR: removed by kfdsim_destroy(); left
 * behind by a process that dies without it, and then removed by the next
 * kfdsim_create() of the same user; never removed while its owner (or a
 * fork()ed child of it) lives.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "vkfd/kfdsim.h"

static char tmpdir[] = "/tmp/kfdsim-root-test-XXXXXX";

/* Number of kfdsim trees in tmpdir. */
static int trees(void)
{
	DIR *d = opendir(tmpdir);
	struct dirent *de;
	int n = 0;

	assert_non_null(d);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "kfdsim-", 7))
			n++;
	closedir(d);
	return n;
}

static struct kfdsim *make(void)
{
	struct kfdsim_config cfg;
	struct kfdsim *sim;

	kfdsim_config_default(&cfg);
	sim = kfdsim_create(&cfg);
	assert_non_null(sim);
	return sim;
}

/* A child that creates a tree and exits without kfdsim_destroy() (as a
 * killed process would), optionally waiting on `hold` until told to go. */
static pid_t orphan_child(int hold_fd)
{
	pid_t pid = fork();

	assert_true(pid >= 0);
	if (pid == 0) {
		char c;

		make();
		if (hold_fd >= 0 && read(hold_fd, &c, 1) < 0)
			_exit(2);
		_exit(0);
	}
	return pid;
}

static void reap(pid_t pid)
{
	int st;

	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
}

static int setup(void **state)
{
	(void)state;
	if (!mkdtemp(tmpdir))
		return -1;
	return setenv("TMPDIR", tmpdir, 1);
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_destroy_removes_tree(void **state)
{
	struct kfdsim *sim;

	(void)state;
	assert_int_equal(trees(), 0);
	sim = make();
	assert_int_equal(trees(), 1);
	kfdsim_destroy(sim);
	assert_int_equal(trees(), 0);
}

static void test_dead_owner_swept(void **state)
{
	struct kfdsim *sim;

	(void)state;
	reap(orphan_child(-1));
	assert_int_equal(trees(), 1); /* left behind */
	reap(orphan_child(-1));
	assert_int_equal(trees(), 1); /* the first swept, the second left */
	sim = make();
	assert_int_equal(trees(), 1); /* the second swept, ours made */
	kfdsim_destroy(sim);
	assert_int_equal(trees(), 0);
}

static void test_live_owner_kept(void **state)
{
	struct kfdsim *a, *b;
	int p[2];
	pid_t child;

	(void)state;
	a = make();
	assert_int_equal(pipe(p), 0);
	child = orphan_child(p[0]); /* alive until we write */
	/* wait for the child's tree to appear */
	for (int i = 0; i < 2000 && trees() < 2; i++)
		usleep(1000);
	assert_int_equal(trees(), 2);
	b = make(); /* must not sweep a's or the live child's tree */
	assert_int_equal(trees(), 3);
	assert_int_equal(write(p[1], "x", 1), 1);
	reap(child);
	close(p[0]);
	close(p[1]);
	kfdsim_destroy(b);
	kfdsim_destroy(a);
	assert_int_equal(trees(), 1); /* the child's, until the next create */
	kfdsim_destroy(make());
	assert_int_equal(trees(), 0);
}

/* A fork()ed child shares its parent's lock (flock belongs to the open
 * file description): a sweep in the child leaves the parent's tree alone. */
static void test_forked_child_keeps_lock(void **state)
{
	struct kfdsim *sim;
	int go[2], ready[2];
	pid_t pid;
	char c;

	(void)state;
	sim = make();
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(ready), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int ok;

		kfdsim_destroy(make()); /* sweeps; must keep the parent's tree */
		ok = trees() == 1;
		if (write(ready[1], "r", 1) != 1 || read(go[0], &c, 1) != 1)
			ok = 0;
		_exit(ok ? 0 : 3);
	}
	assert_int_equal(read(ready[0], &c, 1), 1);
	assert_int_equal(trees(), 1);
	assert_int_equal(write(go[1], "g", 1), 1);
	reap(pid);
	kfdsim_destroy(sim);
	assert_int_equal(trees(), 0);
	close(go[0]);
	close(go[1]);
	close(ready[0]);
	close(ready[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_destroy_removes_tree),
	    cmocka_unit_test(test_dead_owner_swept),
	    cmocka_unit_test(test_live_owner_kept),
	    cmocka_unit_test(test_forked_child_keeps_lock),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
