/* SPDX-License-Identifier: MIT */
/*
 * What the libdrm e2e programs share: a non-fatal CHECK that counts
 * failures (each program reports all of them, then exits 1) and the KFD
 * topology reader they compare libdrm's answers against.
 */
#ifndef VKFD_TESTS_LIBDRM_CHECK_H
#define VKFD_TESTS_LIBDRM_CHECK_H

#include <stdio.h>

#define TOPO "/sys/devices/virtual/kfd/kfd/topology/nodes"

extern int failures;

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);            \
			fprintf(stderr, __VA_ARGS__);                                              \
			fputc('\n', stderr);                                                       \
			failures++;                                                                \
		}                                                                                  \
	} while (0)

/* "key value" from a topology node's properties file; -1 when absent. */
long long topo_prop(unsigned node, const char *key);

#endif
