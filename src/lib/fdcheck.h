/* SPDX-License-Identifier: ISC */
/*
 * fdcheck - is a descriptor that came with a daemon's answer the kind
 * of descriptor the answer promised (wire/decode.h: WIRE_FD_*)?  An
 * impostor could pass anything: a pipe or a file where a socket belongs,
 * a kernel socket of another kind in place of a ping socket, a state
 * arena it can shrink later under the client's mapping (SIGBUS) or one
 * too small to map.
 */
#ifndef PS_FDCHECK_H
#define PS_FDCHECK_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * kind: WIRE_FD_SEQPACKET (an AF_UNIX SOCK_SEQPACKET socket),
 * WIRE_FD_ARENA (a tmpfs memfd of at least WIRE_ARENA_SIZE bytes whose
 * seals include F_SEAL_SHRINK and F_SEAL_SEAL), WIRE_FD_ICMP (a
 * SOCK_DGRAM socket of AF_INET and IPPROTO_ICMP or AF_INET6 and
 * IPPROTO_ICMPV6, of family if that is not 0).
 */
bool fdcheck_kind(int fd, int kind, int family);

/*
 * SO_PEERCRED's uid for the AF_UNIX socket fd, as this process's user
 * namespace sees it: for an end of a socketpair, the (effective) uid of
 * the process that made the pair; for a connection, that of the process
 * that called listen() on the socket it reached.  false: not known.
 */
bool fdcheck_maker(int fd, uid_t *uid);

/* What SO_PEERCRED reads as for a uid this user namespace does not map
 * (the kernel's default overflowuid: "nobody"). */
#define FDCHECK_UNMAPPED 65534

/*
 * Can fd (an AF_UNIX socket) be a pair that the daemon listening as uid
 * listener made (relay.c, made_by_listener, says why this is the
 * rule)?  Not a listening socket; any pair when the listener is root
 * (pingsockd starts as root, and makes its pairs after it has dropped
 * it); else only a pair that listener's very uid made, not a connection
 * to a third party's listener.  A listener whose uid is not mapped here
 * looks like any other unmapped one: unmapped_ok says what to answer.
 */
bool fdcheck_pair_of(uid_t listener, int fd, bool unmapped_ok);

/*
 * Let go of a descriptor that came from the daemon and is not kept.  The
 * sender chooses what it is, and the last close of some files waits for
 * as long as the sender wants: a TCP socket with SO_LINGER and unsent
 * data, whose peer (the sender's) never reads, waits in close() until a
 * signal comes.  A socket's lingering is turned off first.  (A file on a
 * FUSE mount of the sender's own waits at close() for its server, and
 * nothing turns that off: see pingsock(3), EPROTO.)
 */
void fdcheck_discard(int fd);

/* Every descriptor a received message carries (SCM_RIGHTS), let go of
 * as fdcheck_discard() does. */
struct msghdr;
void fdcheck_discard_rights(struct msghdr *mh);

/*
 * Take whatever is queued on the AF_UNIX socket fd (without waiting; at
 * most FDCHECK_DRAIN_MAX messages), letting go of the descriptors that
 * came with it as fdcheck_discard() does: before a close that would
 * otherwise release them in the kernel, in this thread.
 */
#define FDCHECK_DRAIN_MAX 1024
void fdcheck_drain(int fd);

/*
 * A relayed socket's data descriptor (or a broker socket's liveness
 * pair), just handed over: from now on nothing sent on the pair may
 * carry a descriptor (SO_PASSRIGHTS off, Linux 6.16; the reads of such
 * a pair take none, and the kernel would release them in the reading
 * thread), and nothing may have been queued on it before (a new socket
 * has had nothing to say yet).  0, or -EPROTO (what was queued taken,
 * fdcheck_drain()).
 */
int fdcheck_fresh_pair(int fd);

#endif
