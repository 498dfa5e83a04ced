// SPDX-License-Identifier: MIT
/* kfdsim's copy_from_user/copy_to_user: bad pointers become -EFAULT, and a
 * fork()ed child copies from its own address space, not its parent's (the
 * pid behind process_vm_readv/writev is cached and must be renewed). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim_priv.h"

static void test_copies(void **state)
{
	uint32_t src = 0x1234, dst = 0;
	void *none;

	(void)state;
	assert_int_equal(sim_copy_from_user(&dst, (uintptr_t)&src, sizeof(dst)), 0);
	assert_int_equal(dst, 0x1234);
	assert_int_equal(sim_copy_to_user((uintptr_t)&dst, &(uint32_t){7}, sizeof(dst)), 0);
	assert_int_equal(dst, 7);
	none = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(none != MAP_FAILED);
	assert_int_equal(munmap(none, 4096), 0);
	assert_int_equal(sim_copy_from_user(&dst, (uintptr_t)none, sizeof(dst)), -EFAULT);
	assert_int_equal(sim_copy_to_user((uintptr_t)none, &src, sizeof(src)), -EFAULT);
	assert_int_equal(sim_copy_from_user(&dst, 0, sizeof(dst)), -EFAULT);
}

static void test_child_copies_its_own_memory(void **state)
{
	uint32_t *page, dst = 0;
	int status;
	pid_t pid;

	(void)state;
	page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(page != MAP_FAILED);
	*page = 1;
	/* the parent has used (and cached) its pid */
	assert_int_equal(sim_copy_from_user(&dst, (uintptr_t)page, sizeof(dst)), 0);
	assert_int_equal(dst, 1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		uint32_t v = 0;
		int ok;

		*page = 2; /* the child's copy-on-write page */
		ok = !sim_copy_from_user(&v, (uintptr_t)page, sizeof(v)) && v == 2;
		/* gone in the child, still there in the parent */
		munmap(page, 4096);
		ok = ok && sim_copy_from_user(&v, (uintptr_t)page, sizeof(v)) == -EFAULT;
		_exit(ok ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(*page, 1);
	munmap(page, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_copies),
	    cmocka_unit_test(test_child_copies_its_own_memory),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
