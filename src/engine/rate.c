/* SPDX-License-Identifier: ISC */
#include "engine/rate.h"

#define NS 1000000000ull

static uint64_t interval(uint32_t rate)
{
	return NS / rate;
}

/* How far ahead of now the bucket may run: burst - 1 intervals. */
static uint64_t tolerance(uint32_t rate, uint32_t burst)
{
	return (uint64_t)(burst ? burst - 1 : 0) * interval(rate);
}

uint64_t rate_wait(const struct rate_bucket *b, uint64_t now, uint32_t rate,
		   uint32_t burst)
{
	uint64_t tau;

	if (!rate || b->tat <= now)
		return 0;
	tau = tolerance(rate, burst);
	return b->tat - now > tau ? b->tat - now - tau : 0;
}

void rate_take(struct rate_bucket *b, uint64_t now, uint32_t rate,
	       uint32_t burst)
{
	uint64_t start;

	(void)burst;
	if (!rate)
		return;
	start = b->tat > now ? b->tat : now;
	b->tat = start + interval(rate);
}

void rate_give(struct rate_bucket *b, uint64_t now, uint32_t rate)
{
	if (!rate || b->tat <= now)
		return;
	b->tat = b->tat - now > interval(rate) ? b->tat - interval(rate) : now;
}

int rate_idle(const struct rate_bucket *b, uint64_t now)
{
	return b->tat <= now;
}
