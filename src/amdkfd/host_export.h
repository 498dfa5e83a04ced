/* SPDX-License-Identifier: MIT */
/* Symbols of the public API; everything else in the library is hidden. */
#ifndef VKFD_HOST_EXPORT_H
#define VKFD_HOST_EXPORT_H

#define VKFD_EXPORT __attribute__((visibility("default")))

#endif
