/* SPDX-License-Identifier: MIT */
/*
 * The modelled GPU's bulk accesses to the program's memory, marked for
 * ThreadSanitizer.
 *
 * What orders a GPU access against the CPU is the program's own protocol
 * (AQL headers, write pointers, doorbells, HSA signals), stored and loaded
 * by ROCm code that is not instrumented, so TSan sees the accesses but not
 * the ordering and reports every byte of a copy as a race. Suppressing
 * those reports is not enough: TSan still builds each report and keeps a
 * list of racy addresses that it searches linearly, so a 1 MiB SDMA copy
 * took over a minute under TSan (CI's e2e-hip-native-copy). Inside
 * DEVICE_ACCESS_BEGIN/END the calling thread's plain reads and writes are
 * not checked; lock and atomic operations still are. Keep the windows to
 * the copy itself, so that kfdsim's own state stays checked.
 */
#ifndef VKFD_KFDSIM_DEVICE_ACCESS_H
#define VKFD_KFDSIM_DEVICE_ACCESS_H

#if defined(__SANITIZE_THREAD__) /* gcc */
#define VKFD_DEVICE_ACCESS_TSAN 1
#elif defined(__has_feature) /* clang */
#if __has_feature(thread_sanitizer)
#define VKFD_DEVICE_ACCESS_TSAN 1
#endif
#endif

#ifdef VKFD_DEVICE_ACCESS_TSAN
/* TSan's dynamic-annotation entry points (both compilers' runtimes have
 * them; no header declares them). */
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
#define DEVICE_ACCESS_BEGIN()                                                                      \
	do {                                                                                       \
		AnnotateIgnoreReadsBegin(__FILE__, __LINE__);                                      \
		AnnotateIgnoreWritesBegin(__FILE__, __LINE__);                                     \
	} while (0)
#define DEVICE_ACCESS_END()                                                                        \
	do {                                                                                       \
		AnnotateIgnoreWritesEnd(__FILE__, __LINE__);                                       \
		AnnotateIgnoreReadsEnd(__FILE__, __LINE__);                                        \
	} while (0)
#else
#define DEVICE_ACCESS_BEGIN() ((void)0)
#define DEVICE_ACCESS_END()   ((void)0)
#endif

#endif
