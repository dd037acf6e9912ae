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

/* May a socket whose slot is slot be given back, its WIRE_DETACH going
 * on the connection whose answer slot is ans (WIRE_RQ_SOLE)?  Both lie
 * in the process's current arena (so the socket, the connection and the
 * arena are one daemon's: not a daemon's before a restart, nor another
 * uid's arena), and no process but this one maps that arena: no fork()
 * since it was taken, and not inherited.  (A child made by _Fork() or a
 * raw clone() without CLONE_VM is not seen: no fork handler runs for
 * it.) */
bool state_arena_sole(const struct wire_shm *slot, const struct wire_shm *ans);

#endif
