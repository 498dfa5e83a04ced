// SPDX-License-Identifier: MIT
/*
 * hsa_fork MODE: ROCr in forked children. A child calls hsa_init after the
 * fork and runs a verified round (copies and a FILL_U32 dispatch, see
 * hsa_guest.h); the parent checks the child's exit status.
 *   basic           1. two children at once, the parent never touched ROCr
 *                   2. with ROCr up in the parent: a fork whose child only
 *                      exits, and popen of a real command (rocminfo's own
 *                      popen is a fork too); the parent's rounds before and
 *                      after still work
 *   after-shutdown  the parent initialises ROCr, runs a round and shuts it
 *                   down (closing /dev/kfd), then forks a child that uses
 *                   ROCr
 *   reinit          no fork: the process initialises ROCr, runs a round,
 *                   shuts it down, then does all three again (libhsakmt
 *                   closes /dev/kfd at shutdown and reopens it)
 * Prints one line per check and "hsa_fork: all passed" at the end.
 * Exit: 0 every check passed, 1 otherwise, 2 bad usage.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "hsa_guest.h"

static int failures;

static void report(const char *what, int ok)
{
	printf("hsa_fork: %-44s %s\n", what, ok ? "OK" : "FAILED");
	if (!ok)
		failures++;
}

/* The child's whole life: its own ROCr instance, one verified round. */
static int child_main(uint32_t seed)
{
	struct hsa_guest g;
	char who[32];

	snprintf(who, sizeof(who), "hsa_fork child[%d]", (int)getpid());
	if (hg_setup(&g, who))
		return 2;
	if (!hg_round(&g, who, seed))
		return 1;
	return hg_teardown(&g, who) ? 2 : 0;
}

static pid_t spawn(uint32_t seed)
{
	pid_t pid;

	fflush(stdout);
	fflush(stderr);
	pid = fork();
	if (pid == 0)
		_exit(child_main(seed));
	if (pid < 0)
		perror("hsa_fork: fork");
	return pid;
}

static int child_passed(pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return 0;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	if (WIFSIGNALED(status))
		fprintf(stderr, "hsa_fork: child %d killed by signal %d\n", (int)pid,
			WTERMSIG(status));
	else
		fprintf(stderr, "hsa_fork: child %d exited with %d\n", (int)pid,
			WEXITSTATUS(status));
	return 0;
}

static int popen_works(void)
{
	char line[64] = "";
	FILE *p = popen("echo vkfd-popen-$((6 * 7))", "r");

	if (!p)
		return 0;
	if (!fgets(line, sizeof(line), p))
		line[0] = 0;
	return pclose(p) == 0 && strcmp(line, "vkfd-popen-42\n") == 0;
}

static void run_basic(void)
{
	struct hsa_guest g;
	pid_t a, b;
	int ok;

	a = spawn(11);
	b = spawn(12);
	ok = child_passed(a);
	ok = child_passed(b) && ok;
	report("two children, ROCr never used in the parent", ok);

	ok = hg_setup(&g, "hsa_fork parent") == 0;
	report("parent ROCr setup", ok);
	if (!ok)
		return;
	report("parent round before fork", hg_round(&g, "hsa_fork parent", 21));
	fflush(stdout);
	a = fork();
	if (a == 0)
		_exit(0);
	report("fork with ROCr up, child only exits", child_passed(a));
	report("parent round after fork", hg_round(&g, "hsa_fork parent", 22));
	report("popen of a real command with ROCr up", popen_works());
	report("parent round after popen", hg_round(&g, "hsa_fork parent", 23));
	report("parent ROCr shutdown", hg_teardown(&g, "hsa_fork parent") == 0);
}

static void run_after_shutdown(void)
{
	struct hsa_guest g;
	int ok;

	ok = hg_setup(&g, "hsa_fork parent") == 0;
	report("parent ROCr setup", ok);
	if (!ok)
		return;
	report("parent round", hg_round(&g, "hsa_fork parent", 41));
	report("parent ROCr shutdown", hg_teardown(&g, "hsa_fork parent") == 0);
	report("child after the parent shut ROCr down", child_passed(spawn(42)));
}

static void run_reinit(void)
{
	struct hsa_guest g;
	int ok;

	for (int cycle = 1; cycle <= 2; cycle++) {
		char what[64];

		ok = hg_setup(&g, "hsa_fork") == 0;
		snprintf(what, sizeof(what), "ROCr setup, cycle %d", cycle);
		report(what, ok);
		if (!ok)
			return;
		snprintf(what, sizeof(what), "round, cycle %d", cycle);
		report(what, hg_round(&g, "hsa_fork", 60u + (uint32_t)cycle));
		snprintf(what, sizeof(what), "ROCr shutdown, cycle %d", cycle);
		report(what, hg_teardown(&g, "hsa_fork") == 0);
	}
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "basic";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(mode, "basic") == 0) {
		run_basic();
	} else if (strcmp(mode, "after-shutdown") == 0) {
		run_after_shutdown();
	} else if (strcmp(mode, "reinit") == 0) {
		run_reinit();
	} else {
		fprintf(stderr, "usage: hsa_fork [basic|after-shutdown|reinit]\n");
		return 2;
	}
	printf("hsa_fork: %s (%d failed)\n", failures ? "FAILED" : "all passed", failures);
	return failures ? 1 : 0;
}
