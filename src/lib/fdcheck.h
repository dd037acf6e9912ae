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

#endif
