// SPDX-License-Identifier: MIT
/*
 * hsa_loop ROUNDS: a longer-running ROCr guest for the concurrency test.
 * After setup it prints "hsa_loop: ready", then runs ROUNDS verified rounds
 * (copies host->device->host and a FILL_U32 dispatch, see hsa_guest.h),
 * printing "hsa_loop: round N ok" after each, and ends with
 * "hsa_loop: passed N rounds". ROUNDS 0 runs until killed.
 * With HSA_LOOP_GO=PATH in the environment the rounds start only once PATH
 * exists (at most 120 s), so that several guests run their rounds at once.
 * Exit: 0 passed, 1 a round failed, 2 setup or teardown failed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "hsa_guest.h"

static bool wait_go(const char *path)
{
	struct timespec tick = {0, 10 * 1000 * 1000};

	for (int i = 0; i < 12000; i++) {
		if (access(path, F_OK) == 0)
			return true;
		nanosleep(&tick, NULL);
	}
	return false;
}

int main(int argc, char **argv)
{
	struct hsa_guest g;
	char who[32];
	long rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 10;
	const char *go = getenv("HSA_LOOP_GO");

	if (rounds < 0) {
		fprintf(stderr, "usage: hsa_loop [ROUNDS]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(who, sizeof(who), "hsa_loop[%d]", (int)getpid());
	if (hg_setup(&g, who))
		return 2;
	printf("hsa_loop: ready, GPU agent %s\n", g.gpu_name);
	if (go && !wait_go(go)) {
		fprintf(stderr, "%s: %s did not appear\n", who, go);
		return 2;
	}
	for (long i = 1; rounds == 0 || i <= rounds; i++) {
		if (!hg_round(&g, who, (uint32_t)i)) {
			printf("hsa_loop: round %ld FAILED\n", i);
			return 1;
		}
		printf("hsa_loop: round %ld ok\n", i);
	}
	if (hg_teardown(&g, who))
		return 2;
	printf("hsa_loop: passed %ld rounds\n", rounds);
	return 0;
}
