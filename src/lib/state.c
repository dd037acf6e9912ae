/* SPDX-License-Identifier: ISC */
#include "lib/state.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/call.h"
#include "lib/clock.h"
#include "lib/lock.h"
#include "lib/sys.h"

/* Under LOCK_HELLO (read without it: written once before any slot of
 * it is handed out, and only replaced when none of its slots is in use
 * - the daemon keeps an arena while any socket has a slot in it). */
static uint8_t token[WIRE_NONCE_LEN];
static struct wire_shm *_Atomic arena;

/* lock_forks() when the arena was taken (under LOCK_HELLO, which a fork
 * holds while it counts): a count moved since then means a fork since,
 * or (a child's count) the arena came from a parent. */
static unsigned taken_at_fork;

static bool within(const struct wire_shm *a, const void *p)
{
	uintptr_t at = (uintptr_t)p, base = (uintptr_t)a;

	return a && at >= base && at < base + WIRE_ARENA_SIZE;
}

bool state_arena_sole(const struct wire_shm *slot, const struct wire_shm *ans)
{
	const struct wire_shm *a;
	bool sole;

	lock_take(LOCK_HELLO);
	a = atomic_load(&arena);
	sole = within(a, slot) && within(a, ans) &&
	       lock_forks() == taken_at_fork;
	lock_give(LOCK_HELLO);
	return sole;
}

/*
 * Arenas are never unmapped (below), so an impostor that hands out a new
 * one at every HELLO and ends every connection made the program map one
 * a call, without end: 200 calls, 200 mappings (review-lib finding 3;
 * at vm.max_map_count the program's every mmap() fails, malloc's too).
 * The daemon hands out a new one only when it restarted, or to a child
 * whose parent's arena went.  So new arenas are taken from an allowance
 * of STATE_ARENAS_FREE, which grows back by one each STATE_ARENA_GAP_NS:
 * kept as a debt in nanoseconds, each arena adding a gap's worth, paid
 * back as time goes.  One past it fails the HELLO, as a malformed answer
 * does.  Under LOCK_HELLO; a child made by fork() inherits it with the
 * mappings.
 */
#define STATE_ARENAS_FREE 64u
#define STATE_ARENA_GAP_NS 60000000000ull
static uint64_t debt_ns, debt_at;

static bool adopt_allowed(uint64_t now)
{
	uint64_t paid = now - debt_at;

	debt_ns = debt_ns > paid ? debt_ns - paid : 0;
	debt_at = now;
	return debt_ns + STATE_ARENA_GAP_NS <=
	       STATE_ARENAS_FREE * STATE_ARENA_GAP_NS;
}

/*
 * A new arena (its memfd checked by call_hello(): sealed, large
 * enough), mapped read-only.  An old one is not unmapped: a stale entry
 * of the descriptor table may still point into it.
 */
static int adopt(int memfd, const uint8_t *tok)
{
	struct wire_shm *p;

	if (!adopt_allowed(clock_mono_ns()))
		return -EPROTO;
	p = mmap(NULL, WIRE_ARENA_SIZE, PROT_READ, MAP_SHARED, memfd, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	if (atomic_load(&p[0].cmsg) != WIRE_ARENA_MAGIC) {
		munmap(p, WIRE_ARENA_SIZE);
		return -EPROTO;
	}
	memcpy(token, tok, sizeof(token));
	taken_at_fork = lock_forks();
	atomic_store(&arena, p);
	debt_ns += STATE_ARENA_GAP_NS;
	return 0;
}

int state_hello(int fd, const struct wire_shm **ans)
{
	uint8_t got[WIRE_NONCE_LEN];
	uint32_t slot = 0;
	int memfd = -1, rc;

	*ans = NULL;
	lock_take(LOCK_HELLO);
	rc = call_hello(fd, token, got, &slot, &memfd);
	if (rc >= 0 && memfd >= 0)
		rc = adopt(memfd, got);
	else if (rc >= 0 && !atomic_load(&arena))
		rc = -EPROTO;	/* our token, but we have no arena */
	/* In the arena this HELLO named, before another can replace it. */
	if (rc >= 0)
		*ans = state_slot(slot);
	lock_give(LOCK_HELLO);
	if (memfd >= 0)
		sys_close(memfd);
	return rc;
}

struct wire_shm *state_slot(uint32_t slot)
{
	struct wire_shm *a = atomic_load(&arena);

	return a && slot > 0 && slot < WIRE_ARENA_SLOTS ? &a[slot] : NULL;
}
