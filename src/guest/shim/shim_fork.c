// SPDX-License-Identifier: MIT
/*
 * fork() handling. A child inherits the device fds but not the device state
 * behind them (amdkfd keys a process on its mm; libhsakmt reopens /dev/kfd
 * in a child). The child gets a fresh backend on its next access.
 */
#include <pthread.h>

#include "shim_core.h"
#include "shim_fdtable.h"

#include "shim_popen.h"

/* Before fork the backend may turn shared mappings it keeps back into
 * private memory, so the child gets copy-on-write copies. */
static void atfork_prepare(void)
{
	shim_core_atfork_prepare();
}

static void atfork_child(void)
{
	shim_fd_atfork_child();
	shim_popen_atfork_child();
	shim_core_atfork_child();
}

__attribute__((constructor)) static void shim_fork_ctor(void)
{
	pthread_atfork(atfork_prepare, NULL, atfork_child);
}
