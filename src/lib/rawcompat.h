/* SPDX-License-Identifier: ISC */
/*
 * rawcompat - the library's half of the raw-socket emulation
 * (PINGSOCK_RAW=echo; the daemon's half is engine/psraw.h).
 *
 * socket(AF_INET, SOCK_RAW, IPPROTO_ICMP) and socket(AF_INET6, SOCK_RAW,
 * IPPROTO_ICMPV6), refused by the kernel (EPERM: no CAP_NET_RAW), become
 * a daemon socket opened with type SOCK_RAW, if the daemon's policy
 * allows (raw_compat); otherwise the kernel's errno stands.  Sends go to
 * the daemon as for any daemon socket.  A receive on an IPv4 one gets
 * the IP header in front of the ICMP message (engine/rawhdr.h), and on
 * both families the raw socket's lengths: with MSG_TRUNC the datagram's
 * whole length, as raw_recvmsg() and rawv6_recvmsg() return it.
 */
#ifndef PS_RAWCOMPAT_H
#define PS_RAWCOMPAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "engine/rawhdr.h"
#include "wire/wire.h"

/* A raw ICMP or ICMPv6 socket, and PINGSOCK_RAW=echo? */
bool rawc_wanted(int domain, int type, int protocol);

/*
 * One receive on an emulated raw IPv4 socket: the ICMP message is read
 * into a buffer of this, and then given to the caller behind its header.
 */
struct rawc_rx {
	uint8_t *buf;		/* the ICMP message, as far as it fits */
	size_t cap;
	uint8_t small[4096];	/* buf for reads up to a page (liboping's) */
};

/* *iov: where the message is to be read.  0 or -ENOMEM. */
int rawc_rx_begin(struct rawc_rx *rx, const struct msghdr *msg,
		  struct iovec *iov);
/*
 * After the read (n: what recvmsg() with MSG_TRUNC returned, or a
 * failure): the header and the message into msg's buffers (the
 * program's: ucopy.h), MSG_TRUNC in *mflags as they fit or not, and n
 * with the header's length added in *full.  0, or -EFAULT where msg's
 * buffers could not take them.  Frees what rawc_rx_begin() took, in any
 * case; errno is left as the read left it.
 */
int rawc_rx_end(struct rawc_rx *rx, const struct wire_dgram *dg, ssize_t n,
		const struct msghdr *msg, int *mflags, size_t *full);

/* What a raw socket's receive returns for a datagram of full bytes. */
long rawc_ret(size_t full, const struct msghdr *msg, int flags);

#endif
