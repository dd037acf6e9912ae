/* SPDX-License-Identifier: ISC */
#include "lib/state.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#include "lib/call.h"
#include "lib/conn.h"
#include "lib/fdtab.h"
#include "lib/lock.h"
#include "lib/sys.h"

/* Under LOCK_HELLO (read without it: written once before any slot of
 * it is handed out, and only replaced when none of its slots is in use
 * - the daemon keeps an arena while any connection of the process
 * uses it). */
static uint8_t token[WIRE_NONCE_LEN];
static struct wire_shm *_Atomic arena;

/*
 * The arenas mapped before the current one (under LOCK_HELLO).  They are
 * never unmapped: a copy of a descriptor table entry made before a
 * re-attach may still point into one.  A new arena is mapped over an old
 * one that nothing points into any more (no entry, no connection's
 * answer slot): such a stale copy then reads the new arena's words,
 * which are hints checked as any (an impostor writes them too).  So
 * arenas mapped stay few: an impostor that sent a new token at every
 * HELLO once had the library map 65,000 of them (every mapping a
 * process may have).  Past STATE_ARENAS_OLD, all still in use, a new one
 * is refused.
 */
#define STATE_ARENAS_OLD 64
static struct wire_shm *old_arenas[STATE_ARENAS_OLD];
static unsigned nold;

/* An old arena's address nothing points into: taken off the list. */
static void *reusable(void)
{
	for (unsigned i = 0; i < nold; i++) {
		struct wire_shm *p = old_arenas[i];

		if (!fdtab_points_into(p, WIRE_ARENA_SIZE) &&
		    !conn_points_into(p, WIRE_ARENA_SIZE)) {
			old_arenas[i] = old_arenas[--nold];
			return p;
		}
	}
	return NULL;
}

/*
 * A new arena (its memfd checked by call_hello(): sealed, large
 * enough), mapped read-only, at an old one's address if one is free.
 */
static int adopt(int memfd, const uint8_t *tok)
{
	struct wire_shm *cur = atomic_load(&arena), *p;
	void *at = reusable();

	if (!at && cur && nold == STATE_ARENAS_OLD)
		return -EPROTO;
	p = mmap(at, WIRE_ARENA_SIZE, PROT_READ,
		 MAP_SHARED | (at ? MAP_FIXED : 0), memfd, 0);
	if (p == MAP_FAILED) {
		/* MAP_FIXED may have left a hole where a stale copy could
		 * read: fill it. */
		if (at && mmap(at, WIRE_ARENA_SIZE, PROT_READ,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1,
			       0) != MAP_FAILED)
			old_arenas[nold++] = at;
		return -ENOMEM;
	}
	if (atomic_load(&p[0].cmsg) != WIRE_ARENA_MAGIC) {
		if (at)
			old_arenas[nold++] = p;	/* free for the next one */
		else
			munmap(p, WIRE_ARENA_SIZE);
		return -EPROTO;
	}
	if (cur)
		old_arenas[nold++] = cur;
	memcpy(token, tok, sizeof(token));
	atomic_store(&arena, p);
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
