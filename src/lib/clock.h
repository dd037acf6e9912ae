/* SPDX-License-Identifier: ISC */
/*
 * clock - the library's one reading of CLOCK_MONOTONIC, in nanoseconds:
 * for its spins and pauses, which must not jump with the wall clock.
 */
#ifndef PS_LIB_CLOCK_H
#define PS_LIB_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#endif
