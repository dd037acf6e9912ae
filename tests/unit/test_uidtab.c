/* SPDX-License-Identifier: ISC */
/*
 * test_uidtab - per-user counts and the rationing of shares that run
 * short for everyone (engine/uidtab.h).
 */
#include "engine/uidtab.h"

#include "check.h"

#define CAP 3200	/* a share of 3200: short below 100 left */

/* Plenty left: anyone may take, even the heaviest. */
static void plenty_for_all(void)
{
	struct uidtab *t = uidtab_new();
	struct uident *a = uidtab_get(t, 1000, true);

	uidtab_add(t, a, UID_FDS, 3000);
	CHECK(uidtab_may_take(t, a, UID_FDS, 10, CAP));
	CHECK(!uidtab_may_take(t, a, UID_FDS, 201, CAP));	/* past the cap */
	CHECK_EQ(uidtab_total(t, UID_FDS), 3000);
	uidtab_free(t);
}

/*
 * Short: the user holding the most (at or above the average of those
 * holding any) is refused; a light one, or a new one, is served.
 */
static void short_refuses_heaviest(void)
{
	struct uidtab *t = uidtab_new();
	struct uident *a = uidtab_get(t, 1000, true);
	struct uident *v = uidtab_get(t, 65534, true);

	uidtab_add(t, a, UID_FDS, 3100);
	CHECK(!uidtab_may_take(t, a, UID_FDS, 1, CAP));
	CHECK(uidtab_may_take(t, v, UID_FDS, 1, CAP));
	CHECK(uidtab_may_take(t, NULL, UID_FDS, 1, CAP));	/* no entry yet */
	uidtab_add(t, v, UID_FDS, 5);
	CHECK(uidtab_may_take(t, v, UID_FDS, 1, CAP));
	uidtab_free(t);
}

/* Two heavy users share the attack: both refused, the light one not. */
static void two_heavy_both_refused(void)
{
	struct uidtab *t = uidtab_new();
	struct uident *a = uidtab_get(t, 1000, true);
	struct uident *b = uidtab_get(t, 1001, true);
	struct uident *v = uidtab_get(t, 65534, true);

	uidtab_add(t, a, UID_IDENTS, 1550);
	uidtab_add(t, b, UID_IDENTS, 1550);
	uidtab_add(t, v, UID_IDENTS, 10);
	CHECK(!uidtab_may_take(t, a, UID_IDENTS, 1, CAP));
	CHECK(!uidtab_may_take(t, b, UID_IDENTS, 1, CAP));
	CHECK(uidtab_may_take(t, v, UID_IDENTS, 1, CAP));
	/* The other share is untouched. */
	CHECK(uidtab_may_take(t, a, UID_FDS, 1, CAP));
	uidtab_free(t);
}

/*
 * Users that come one after another are each below the average of those
 * before them: each is still stopped at an equal part of what is left,
 * and a user holding none is served while anything is.
 */
static void one_after_another_cannot_drain(void)
{
	struct uidtab *t = uidtab_new();
	unsigned before = 0;

	for (uid_t uid = 1000; uid < 1004; uid++) {
		struct uident *e = uidtab_get(t, uid, true);

		while (uidtab_may_take(t, e, UID_IDENTS, 1, CAP))
			uidtab_add(t, e, UID_IDENTS, 1);
		CHECK(uidtab_total(t, UID_IDENTS) > before);
		before = uidtab_total(t, UID_IDENTS);
	}
	CHECK(uidtab_total(t, UID_IDENTS) < CAP);
	CHECK(uidtab_may_take(t, uidtab_get(t, 1999, true), UID_IDENTS, 1,
			      CAP));
	uidtab_free(t);
}

/* Counts never go below zero, in the user's or in the total. */
static void never_negative(void)
{
	struct uidtab *t = uidtab_new();
	struct uident *a = uidtab_get(t, 1000, true);

	uidtab_add(t, a, UID_FDS, 3);
	uidtab_add(t, a, UID_FDS, -5);
	CHECK_EQ(a->fds, 0);
	CHECK_EQ(uidtab_total(t, UID_FDS), 0);
	uidtab_free(t);
}

/* An entry goes once nothing of it is in use and its bucket is full. */
static void prune_keeps_what_is_used(void)
{
	struct uidtab *t = uidtab_new();
	struct uident *a = uidtab_get(t, 1000, true);
	struct uident *b = uidtab_get(t, 1001, true);

	a->conns = 1;
	b->parked = 0;
	CHECK_EQ(uidtab_count(t), 2);
	uidtab_prune(t, 1);
	CHECK_EQ(uidtab_count(t), 1);
	CHECK(uidtab_get(t, 1000, false) == a);
	a->conns = 0;
	uidtab_add(t, a, UID_IDENTS, 1);
	uidtab_prune(t, 1);
	CHECK_EQ(uidtab_count(t), 1);
	uidtab_add(t, a, UID_IDENTS, -1);
	uidtab_prune(t, 1);
	CHECK_EQ(uidtab_count(t), 0);
	uidtab_free(t);
}

/*
 * The audit budget outlives the user's sockets: an entry with a bucket
 * not yet full, or with held records not yet summed up, stays (else a
 * user who let go of everything for a second had a full budget again).
 */
static void prune_keeps_log_budgets(void)
{
	struct uidtab *t = uidtab_new();
	struct uident *a = uidtab_get(t, 1000, true);
	uint64_t each = 1000000000u / 10;

	for (int i = 0; i < 5; i++)
		rate_take(&a->audit.bucket, 0, 10, 200);
	uidtab_prune(t, 4 * each);
	CHECK_EQ(uidtab_count(t), 1);
	a->audit.closed = 1;
	uidtab_prune(t, 5 * each);
	CHECK_EQ(uidtab_count(t), 1);
	a->audit.closed = 0;
	uidtab_prune(t, 5 * each);
	CHECK_EQ(uidtab_count(t), 0);
	uidtab_free(t);
}

/* Pages of the entries, ascending by uid from a cursor, whatever the
 * hash order; "more" only when one is left past the page. */
static void pages_ascending(void)
{
	struct uidtab *t = uidtab_new();
	const struct uident *out[8];
	bool more;
	uid_t from = 0, seen = 0;

	/* 20 users, in buckets out of order (256 buckets: 300 wraps). */
	for (uid_t i = 0; i < 20; i++)
		CHECK(uidtab_get(t, (i * 7919u) % 20u * 300u + 5u, true));
	for (int page = 0; page < 3; page++) {
		size_t n = uidtab_page(t, from, out, 8, &more);

		CHECK_EQ(n, page < 2 ? 8u : 4u);
		CHECK_EQ(more, page < 2);
		for (size_t i = 0; i < n; i++) {
			CHECK_EQ(out[i]->uid, (seen + i) * 300u + 5u);
			CHECK(out[i]->uid >= from);
		}
		seen += (uid_t)n;
		from = out[n - 1]->uid + 1;
	}
	CHECK_EQ(seen, 20u);
	CHECK_EQ(uidtab_page(t, from, out, 8, &more), 0u);
	CHECK(!more);
	/* Exactly a page: no more. */
	CHECK_EQ(uidtab_page(t, 3605, out, 8, &more), 8u);
	CHECK(!more);
	CHECK_EQ(uidtab_page(t, 0, out, 0, &more), 0u);
	CHECK(more);
	uidtab_free(t);
}

/* The per-uid counters go with the entry: a user who comes back after
 * it was forgotten starts from 0. */
static void counters_go_with_the_entry(void)
{
	struct uidtab *t = uidtab_new();
	struct uident *a = uidtab_get(t, 1000, true);

	a->requests = 5;
	a->refused = 2;
	uidtab_prune(t, 0);
	CHECK_EQ(uidtab_count(t), 0u);
	a = uidtab_get(t, 1000, true);
	CHECK_EQ(a->requests, 0u);
	CHECK_EQ(a->refused, 0u);
	uidtab_free(t);
}

int main(void)
{
	TEST(plenty_for_all);
	TEST(short_refuses_heaviest);
	TEST(two_heavy_both_refused);
	TEST(one_after_another_cannot_drain);
	TEST(never_negative);
	TEST(prune_keeps_what_is_used);
	TEST(prune_keeps_log_budgets);
	TEST(pages_ascending);
	TEST(counters_go_with_the_entry);
	return CHECK_DONE();
}
