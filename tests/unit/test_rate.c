/* SPDX-License-Identifier: ISC */
/*
 * test_rate - the token bucket (src/engine/rate.c): a burst goes at once,
 * then one request per interval; an idle bucket fills up again; rate 0 is
 * no limit.
 */
#include <stdint.h>

#include "engine/rate.h"
#include "check.h"

#define MS 1000000ull

/* A burst of 5 at 100/s: five at once, the sixth waits 10 ms. */
static void burst_then_interval(void)
{
	struct rate_bucket b = { 0 };
	uint64_t t = 1000 * MS;

	for (int i = 0; i < 5; i++) {
		CHECK_EQ(rate_wait(&b, t, 100, 5), 0);
		rate_take(&b, t, 100, 5);
	}
	CHECK_EQ(rate_wait(&b, t, 100, 5), 10 * MS);
	CHECK_EQ(rate_wait(&b, t + 4 * MS, 100, 5), 6 * MS);
	CHECK_EQ(rate_wait(&b, t + 10 * MS, 100, 5), 0);
	CHECK(!rate_idle(&b, t + 10 * MS));
	CHECK(rate_idle(&b, t + 50 * MS));
}

/* Reserved slots queue up one interval apart. */
static void reservations_queue(void)
{
	struct rate_bucket b = { 0 };
	uint64_t t = 5 * MS;

	rate_take(&b, t, 1000, 1);
	CHECK_EQ(rate_wait(&b, t, 1000, 1), 1 * MS);
	rate_take(&b, t, 1000, 1);
	CHECK_EQ(rate_wait(&b, t, 1000, 1), 2 * MS);
}

/* A steady 1000/s against a limit of 100/s: held to 100/s. */
static void held_to_rate(void)
{
	struct rate_bucket b = { 0 };
	uint64_t t = 0;
	int sent = 0;

	for (int i = 0; i < 10000; i++, t += MS) {	/* 10 s */
		if (rate_wait(&b, t, 100, 100) == 0) {
			rate_take(&b, t, 100, 100);
			sent++;
		}
	}
	CHECK(sent >= 1000 + 99 && sent <= 1000 + 101);
}

/* A reserved slot given back (a waiting send given up): the next request
 * waits as if it had never been taken; one given back after its time
 * adds nothing (the bucket was whole again). */
static void slot_given_back(void)
{
	struct rate_bucket b = { 0 };
	uint64_t t = 5 * MS;

	rate_take(&b, t, 1000, 1);
	rate_take(&b, t, 1000, 1);
	CHECK_EQ(rate_wait(&b, t, 1000, 1), 2 * MS);
	rate_give(&b, t, 1000);
	CHECK_EQ(rate_wait(&b, t, 1000, 1), 1 * MS);
	rate_give(&b, t, 1000);
	CHECK_EQ(rate_wait(&b, t, 1000, 1), 0);
	rate_give(&b, t, 1000);
	CHECK_EQ(rate_wait(&b, t, 1000, 1), 0);
	rate_take(&b, t, 1000, 1);
	CHECK_EQ(rate_wait(&b, t, 1000, 1), 1 * MS);
	rate_give(&b, t + 3 * MS, 1000);	/* past: whole already */
	CHECK(rate_idle(&b, t + 3 * MS));
	rate_give(&b, t, 0);			/* no limit: nothing */
}

static void no_limit(void)
{
	struct rate_bucket b = { 0 };

	for (int i = 0; i < 1000; i++) {
		CHECK_EQ(rate_wait(&b, 0, 0, 1), 0);
		rate_take(&b, 0, 0, 1);
	}
	CHECK(rate_idle(&b, 0));
}

int main(void)
{
	TEST(burst_then_interval);
	TEST(reservations_queue);
	TEST(held_to_rate);
	TEST(slot_given_back);
	TEST(no_limit);
	return CHECK_DONE();
}
