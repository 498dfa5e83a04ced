// SPDX-License-Identifier: MIT
/* kfdsim conformance: AMDKFD_IOC_SMI_EVENTS (KFD 1.3): the client fd,
 * the event mask written to it, a VM fault's "1 pid:comm\n" record read
 * from it (reads never wait: -EAGAIN when empty), two clients, and a
 * closed client forgotten. */
#include <poll.h>
#include <sys/prctl.h>

#include "sim_fixture.h"
#include "sim_priv.h"

#define SMI_VMFAULT_MASK (1ULL << 0) /* KFD_SMI_EVENT_MASK_FROM_INDEX(1) */

static struct sim_gpu_env *env_of(struct fx *f)
{
	struct sim_file *sf = f->sim->files[f->kfd];

	return &sf->proc->pdd[0].env;
}

static int smi_open(struct fx *f, uint32_t gpu_id)
{
	struct kfd_ioctl_smi_events_args a = {.gpuid = gpu_id};
	int r = fx_ioctl(f, AMDKFD_IOC_SMI_EVENTS, &a);

	return r ? r : (int)a.anon_fd;
}

static void test_gates(void **state)
{
	struct kfdsim_config cfg;
	struct fx *f;
	int fd;

	(void)state;
	kfdsim_config_default(&cfg);
	cfg.kfd_minor = 2;
	f = fx_new(&cfg, true);
	assert_int_equal(smi_open(f, f->gpu_id[0]), -ENOTTY); /* 1.3 */
	fx_free(f);

	f = fx_new(NULL, true);
	assert_int_equal(smi_open(f, 0), -EINVAL);
	assert_int_equal(smi_open(f, 12345), -EINVAL);
	fd = smi_open(f, f->gpu_id[0]);
	assert_true(fd >= 0);
	close(fd);
	fx_free(f);
}

static void test_vmfault_records(void **state)
{
	struct fx *f = fx_new(NULL, true);
	struct sim_gpu_env *env = env_of(f);
	uint64_t mask = SMI_VMFAULT_MASK;
	char comm[17] = {0}, want[96], buf[256];
	struct pollfd pfd;
	int a, b, n;

	(void)state;
	prctl(PR_GET_NAME, comm);
	snprintf(want, sizeof(want), "1 %x:%s\n", (unsigned)getpid(), comm);
	a = smi_open(f, f->gpu_id[0]);
	b = smi_open(f, f->gpu_id[0]);
	assert_true(a >= 0 && b >= 0);
	/* nothing yet: a read does not wait */
	assert_int_equal(read(a, buf, sizeof(buf)), -1);
	assert_int_equal(errno, EAGAIN);
	/* a fault before any mask is written: not delivered */
	env->vm_fault(env->ctx, 0x1234000, false);
	assert_int_equal(read(a, buf, sizeof(buf)), -1);
	/* enable VM faults on a only */
	assert_int_equal(write(a, &mask, sizeof(mask)), (ssize_t)sizeof(mask));
	env->vm_fault(env->ctx, 0x1234000, false);
	pfd = (struct pollfd){.fd = a, .events = POLLIN};
	assert_int_equal(poll(&pfd, 1, 0), 1);
	n = (int)read(a, buf, sizeof(buf) - 1);
	assert_int_equal(n, (int)strlen(want));
	buf[n] = 0;
	assert_string_equal(buf, want);
	assert_int_equal(read(b, buf, sizeof(buf)), -1);
	/* two faults: both records, read in pieces */
	env->vm_fault(env->ctx, 0x1234000, true);
	env->vm_fault(env->ctx, 0x5678000, true);
	n = (int)read(a, buf, 3);
	assert_int_equal(n, 3);
	n = (int)read(a, buf + 3, sizeof(buf) - 4);
	assert_int_equal(n + 3, 2 * (int)strlen(want));
	/* a mask of 0 stops delivery */
	mask = 0;
	assert_int_equal(write(a, &mask, sizeof(mask)), (ssize_t)sizeof(mask));
	env->vm_fault(env->ctx, 0x1234000, false);
	assert_int_equal(read(a, buf, sizeof(buf)), -1);
	/* a closed client is dropped at the next event; b still gets it */
	close(a);
	mask = SMI_VMFAULT_MASK;
	assert_int_equal(write(b, &mask, sizeof(mask)), (ssize_t)sizeof(mask));
	env->vm_fault(env->ctx, 0x1234000, false);
	assert_null(f->sim->smi[0]->next);
	n = (int)read(b, buf, sizeof(buf) - 1);
	assert_int_equal(n, (int)strlen(want));
	close(b);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gates),
	    cmocka_unit_test(test_vmfault_records),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
