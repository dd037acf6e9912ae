/* SPDX-License-Identifier: ISC */
/*
 * clock.h - the bench programs' one clock: CLOCK_MONOTONIC in
 * nanoseconds (plain libc, so that shimcost measures only the shim).
 */
#ifndef PS_BENCH_CLOCK_H
#define PS_BENCH_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

#endif
