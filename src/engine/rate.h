/* SPDX-License-Identifier: ISC */
/*
 * rate - a token bucket, as the generic cell rate algorithm keeps it: one
 * time stamp, the "theoretical arrival time" of the next request.  Pure:
 * the caller passes the time (CLOCK_MONOTONIC nanoseconds).
 */
#ifndef PS_RATE_H
#define PS_RATE_H

#include <stdint.h>

struct rate_bucket {
	uint64_t tat;	/* 0: never used (full) */
};

/*
 * With rate requests per second and a burst of burst: how long (ns) a
 * request arriving at now must wait; 0 if it may go at once.  Changes
 * nothing.  rate 0 means no limit.
 */
uint64_t rate_wait(const struct rate_bucket *b, uint64_t now, uint32_t rate,
		   uint32_t burst);

/* Count a request that goes at now + rate_wait(): reserve its slot. */
void rate_take(struct rate_bucket *b, uint64_t now, uint32_t rate,
	       uint32_t burst);

/* Give back a slot rate_take() reserved for a request that did not go
 * (a waiting send given up): later ones wait one interval less, and the
 * bucket never holds more than it did before the slot was taken. */
void rate_give(struct rate_bucket *b, uint64_t now, uint32_t rate);

/* Is the bucket full again (nothing to remember)? */
int rate_idle(const struct rate_bucket *b, uint64_t now);

#endif
