/* SPDX-License-Identifier: MIT */
/* popen/pclose interposers: state to reset in a fork child. */
#ifndef VKFD_SHIM_POPEN_H
#define VKFD_SHIM_POPEN_H

void shim_popen_atfork_child(void);

#endif
