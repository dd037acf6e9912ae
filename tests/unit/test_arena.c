/* SPDX-License-Identifier: ISC */
/*
 * test_arena - the daemon's state arenas (src/daemon/arena.c): found by
 * token, lingering oldest first per user and in all, and their slots
 * given back by owner.  Any user makes and drops arenas a thousand times
 * a second, so each of these costs is counted (arena_steps(): list and
 * chain entries looked at) among thousands of arenas: it must not grow
 * with them.
 */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "daemon/arena.h"
#include "check.h"

#define MANY 3000

static struct arena *get(struct arenas *as, const uint8_t *token, uid_t uid)
{
	int fd = -1;
	struct arena *a = arena_get(as, token, uid, &fd);

	if (fd >= 0)
		close(fd);
	return a;
}

static const uint8_t zero[WIRE_NONCE_LEN];

static void found_by_token_only(void)
{
	struct arenas *as = arenas_new();
	struct arena *a = get(as, zero, 1000);
	uint8_t bad[WIRE_NONCE_LEN];

	CHECK(a != NULL);
	CHECK(get(as, arena_token(a), 1000) == a);
	/* Another user's token names nothing: a new arena of its own. */
	struct arena *b = get(as, arena_token(a), 1001);

	CHECK(b != NULL && b != a);
	memcpy(bad, arena_token(a), sizeof(bad));
	bad[WIRE_NONCE_LEN - 1] ^= 1;
	struct arena *c = get(as, bad, 1000);

	CHECK(c != NULL && c != a);
	arena_put(as, c);
	arena_put(as, b);
	arena_put(as, a);
	arena_put(as, a);
	arenas_free(as);
}

/* MANY arenas with a connection each (and a slot, so that they would
 * linger); their tokens in tok. */
static struct arena **make_many(struct arenas *as, uid_t uid, int *owner)
{
	struct arena **v = calloc(MANY, sizeof(*v));

	for (int i = 0; v && i < MANY; i++) {
		v[i] = get(as, zero, uid);
		if (!v[i] || !arena_slot_take(v[i], owner, (uint32_t)i))
			return NULL;
	}
	return v;
}

static void lookups_do_not_walk_them_all(void)
{
	struct arenas *as = arenas_new();
	int owner = 0;
	struct arena **v = make_many(as, 1000, &owner);
	uint64_t s0;
	unsigned n;

	CHECK(v != NULL);
	if (!v)
		return;
	s0 = arena_steps();
	for (int i = 0; i < MANY; i += 100)
		CHECK(get(as, arena_token(v[i]), 1000) == v[i]);
	/* 30 lookups: a chain each, about one long (was: every arena). */
	CHECK(arena_steps() - s0 < 30 * 8);
	for (int i = 0; i < MANY; i += 100)
		arena_put(as, v[i]);
	/* All linger once their connections go, oldest first. */
	for (int i = 0; i < MANY; i++)
		arena_put(as, v[i]);
	s0 = arena_steps();
	for (int i = 0; i < 1000; i++) {
		CHECK(arena_lingerer(as, 1000, false, &n) == v[0]);
		CHECK_EQ(n, MANY);
		CHECK(arena_lingerer(as, 0, true, &n) == v[0]);
		CHECK_EQ(n, MANY);
	}
	CHECK(arena_steps() - s0 < 1000 * 8);
	/* Freeing them (their last slots given back), oldest first, does
	 * not walk the rest either. */
	s0 = arena_steps();
	for (int i = 0; i < MANY; i++)
		arena_slot_give(as, v[i], 1);
	CHECK(arena_steps() - s0 < (uint64_t)MANY * 8);
	CHECK(arena_lingerer(as, 0, true, &n) == NULL);
	CHECK_EQ(n, 0);
	free(v);
	arenas_free(as);
}

static void lingerers_per_user(void)
{
	struct arenas *as = arenas_new();
	int o = 0;
	struct arena *a1 = get(as, zero, 1), *b1 = get(as, zero, 1);
	struct arena *a2 = get(as, zero, 2);
	unsigned n;

	CHECK(arena_slot_take(a1, &o, 0) && arena_slot_take(b1, &o, 0) &&
	      arena_slot_take(a2, &o, 0));
	CHECK(arena_will_linger(a1));
	arena_put(as, a2);
	arena_put(as, b1);
	arena_put(as, a1);
	CHECK(arena_lingerer(as, 1, false, &n) == b1);
	CHECK_EQ(n, 2);
	CHECK(arena_lingerer(as, 2, false, &n) == a2);
	CHECK_EQ(n, 1);
	CHECK(arena_lingerer(as, 3, false, &n) == NULL);
	CHECK_EQ(n, 0);
	CHECK(arena_lingerer(as, 0, true, &n) == a2);
	CHECK_EQ(n, 3);
	/* A connection that names b1 again: it lingers no more. */
	CHECK(get(as, arena_token(b1), 1) == b1);
	CHECK(arena_lingerer(as, 1, false, &n) == a1);
	CHECK_EQ(n, 1);
	CHECK(arena_lingerer(as, 0, true, &n) == a2);
	CHECK_EQ(n, 2);
	/* ... and lingers again, now the youngest. */
	arena_put(as, b1);
	CHECK(arena_lingerer(as, 1, false, &n) == a1);
	CHECK_EQ(n, 2);
	arena_slot_give(as, a1, 1);	/* a1 goes */
	CHECK(arena_lingerer(as, 1, false, &n) == b1);
	CHECK_EQ(n, 1);
	arena_slot_give(as, b1, 1);
	arena_slot_give(as, a2, 1);
	CHECK(arena_lingerer(as, 0, true, &n) == NULL);
	CHECK_EQ(n, 0);
	arenas_free(as);
}

/* An owner with mirrors, as sstate.c keeps them: idx-th is in slot[idx]
 * of arena a[idx]; the last takes a forgotten one's place. */
struct fake_owner {
	struct arena *a[4];
	uint32_t slot[4];
	uint32_t n;
	unsigned forgot;
};

static void forget(void *owner, uint32_t idx, void *arg)
{
	struct fake_owner *f = owner;
	uint32_t last = --f->n;

	(void)arg;
	f->forgot++;
	if (idx != last) {
		f->a[idx] = f->a[last];
		f->slot[idx] = f->slot[last];
		arena_slot_move(f->a[idx], f->slot[idx], idx);
	}
}

static void eviction_tells_each_owner(void)
{
	struct arenas *as = arenas_new();
	struct arena *x = get(as, zero, 7), *y = get(as, zero, 7);
	struct fake_owner f1 = { 0 }, f2 = { 0 };
	unsigned n;

	/* f1 is in x then y, f2 in y then x: evicting x moves each one's
	 * last mirror, which must then be found at its new place. */
	f1.a[0] = x; f1.slot[0] = arena_slot_take(x, &f1, 0);
	f1.a[1] = y; f1.slot[1] = arena_slot_take(y, &f1, 1);
	f2.a[0] = y; f2.slot[0] = arena_slot_take(y, &f2, 0);
	f2.a[1] = x; f2.slot[1] = arena_slot_take(x, &f2, 1);
	f1.n = f2.n = 2;
	CHECK(arena_slot_take(x, NULL, 0) != 0);	/* an answer slot */
	arena_put(as, x);	/* x lingers with 3 slots */
	CHECK(arena_lingerer(as, 7, false, &n) == x);
	arena_evict(as, x, forget, NULL);
	CHECK_EQ(f1.forgot, 1);
	CHECK_EQ(f2.forgot, 1);
	CHECK(f1.n == 1 && f1.a[0] == y);
	CHECK(f2.n == 1 && f2.a[0] == y);
	/* x is kept by its answer slot alone; y's slots are as they were. */
	CHECK(arena_lingerer(as, 7, false, &n) == x);
	arena_slot_give(as, x, 3);
	CHECK(arena_lingerer(as, 7, false, &n) == NULL);
	arena_put(as, y);
	arena_evict(as, y, forget, NULL);
	CHECK(f1.n == 0 && f2.n == 0);
	CHECK(arena_lingerer(as, 0, true, &n) == NULL);
	CHECK_EQ(n, 0);
	arenas_free(as);
}

int main(void)
{
	TEST(found_by_token_only);
	TEST(lookups_do_not_walk_them_all);
	TEST(lingerers_per_user);
	TEST(eviction_tells_each_owner);
	return CHECK_DONE();
}
