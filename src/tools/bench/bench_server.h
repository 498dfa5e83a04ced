/* SPDX-License-Identifier: MIT */
/*
 * vkfd-bench: locating vkfd programs and the private vkfd-server.
 */
#ifndef VKFD_BENCH_SERVER_H
#define VKFD_BENCH_SERVER_H

#include <stdbool.h>
#include <stddef.h>

/* env var, else <this exe's dir>/<build_rel>, else <bindir>/<name>. */
bool bench_find_program(const char *env, const char *build_rel, const char *name, char *out,
			size_t len);

/* Socket of the private vkfd-server, started on first use (NULL and a
 * reason if it cannot run). */
const char *bench_server_socket(char *why, size_t why_len);
void bench_server_stop(void);
/* Stop the server (if running); the next bench_server_socket() starts a
 * fresh one, so one scenario's teardown cannot run into the next. */
void bench_server_restart(void);

#endif
