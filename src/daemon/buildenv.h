/* SPDX-License-Identifier: ISC */
/*
 * buildenv - what kind of build, and what runs it: the sandbox gives way
 * where a test harness shares the process.
 *
 *   RUNNING_ON_VALGRIND  valgrind runs the daemon (tests/integration/
 *                        valgrind.sh); its own code shares the process and
 *                        the filter.
 *   SANITIZED            the ASan+UBSan build (make check's second pass):
 *                        LeakSanitizer's check at exit stops the process
 *                        with ptrace from a clone and reads /proc/self/task
 *                        and /proc/self/maps, so that build keeps the file
 *                        system (no chroot) and its filter allows those
 *                        calls.
 */
#ifndef PSD_BUILDENV_H
#define PSD_BUILDENV_H

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif
#ifndef RUNNING_ON_VALGRIND
#define RUNNING_ON_VALGRIND 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#define SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

#endif
