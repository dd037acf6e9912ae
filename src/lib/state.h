/* SPDX-License-Identifier: ISC */
/*
 * state - the process's state arena (wire.h: struct wire_shm): the slots
 * in which pingsockd shows the state of each relayed socket the process
 * uses.  The daemon makes it at the process's first WIRE_HELLO; every
 * later connection of the process (and of a forked child, which inherits
 * the mapping) names it by its token, so that a socket has one slot in
 * the process whichever connection it is used on.
 */
#ifndef PS_LIB_STATE_H
#define PS_LIB_STATE_H

#include <stdbool.h>
#include <stdint.h>

#include "wire/wire.h"

/*
 * WIRE_HELLO on a new connection, naming the process's arena (or asking
 * for one), and taking a new one if the daemon made one.  What
 * call_hello() returns; -EPROTO for an arena that cannot be mapped.
 * *ans: the connection's answer slot in that arena, or NULL if it has
 * none.
 */
int state_hello(int fd, const struct wire_shm **ans);

/* Slot of the process's arena (checked: slot_ok in wire/types.c), or
 * NULL when there is none. */
struct wire_shm *state_slot(uint32_t slot);

/* Does p lie in the process's current arena (not in one taken before
 * it: a daemon restarted since, or a uid changed)? */
bool state_in_arena(const void *p);

/* slot is in the current arena, and no other process maps that arena:
 * this one has not forked since it got it, nor inherited it.  A socket
 * it no longer holds can then have its slot given back (WIRE_RQ_SOLE).
 * (A child made by _Fork() or a raw clone() without CLONE_VM is not
 * seen: pthread_atfork() handlers do not run for it.) */
bool state_arena_sole(const struct wire_shm *slot);

#endif
