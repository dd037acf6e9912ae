/*
 * decode - the client side's strict decoders: what libpingsock accepts
 * from the daemon, which it trusts no more than the daemon trusts it
 * (design.md, "Security model": an impostor at the socket path or a
 * compromised daemon may deny service, but never corrupts a client's
 * memory).  Pure functions on byte arrays, like wire_decode_req(): every
 * length, kind, family, range and padding byte is checked before the
 * library uses a field, and anything else is refused whole.
 *
 * What the library does with a refusal: the call fails with EPROTO (and
 * a malformed answer also ends the control connection); see pingsock(3).
 */
#ifndef PS_WIRE_DECODE_H
#define PS_WIRE_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire/wire.h"

/* The largest errno (the kernel's MAX_ERRNO): -1..-WIRE_ERRNO_MAX are
 * errors, anything below is not. */
#define WIRE_ERRNO_MAX 4095

/* An errno value, as a pending error or a record's ee_errno must be. */
static inline bool wire_is_errno(int64_t v)
{
	return v >= 1 && v <= WIRE_ERRNO_MAX;
}

/* Where a struct wire_dgram came from. */
enum wire_chan {
	WIRE_CHAN_DATA = 1,	/* the data descriptor: replies */
	WIRE_CHAN_ERR,		/* the error descriptor: records, wake-ups */
};

/*
 * Check one message read from a socket's data or error descriptor: msg
 * holds its first got bytes (at least the header, for it to be taken),
 * full is the whole message's length (recvmsg() with MSG_TRUNC), family
 * the socket's.  Returns 0 with *dg filled, or -1 if it is malformed:
 * shorter than the header; a kind that does not belong on chan; another
 * family; padding not zero; IP options longer than opts[] or on IPv6; a
 * time with nanoseconds out of range; a port, scope id, flow label or
 * offender where that kind and family have none; an extended error
 * whose errno is no errno or whose origin is not ICMP of the family or
 * local; an ICMP message shorter than its header (a reply) or longer
 * than an IP datagram can carry; a wake-up with anything in it.
 */
int wire_decode_dgram(const void *msg, size_t got, size_t full, int chan,
		      int family, struct wire_dgram *dg);

/* What a descriptor that comes with an answer must be. */
enum wire_fd_kind {
	WIRE_FD_SEQPACKET = 1,	/* AF_UNIX SOCK_SEQPACKET: data, errors,
				 * a broker socket's liveness */
	WIRE_FD_SHM,		/* the state page: a memfd of at least
				 * WIRE_SHM_SIZE bytes, sealed against
				 * shrinking, its seals sealed */
	WIRE_FD_ICMP,		/* a kernel ping socket: AF_INET or AF_INET6
				 * (fd_family, if not 0) SOCK_DGRAM, of
				 * IPPROTO_ICMP or IPPROTO_ICMPV6 */
};

#define WIRE_ANS_FDS 3		/* the most an answer carries */

/* A checked answer. */
struct wire_answer {
	int32_t result;		/* >= 0, -1..-WIRE_ERRNO_MAX, or
				 * WIRE_R_UNATTACHED */
	const uint8_t *body;	/* into the message */
	size_t len;
	unsigned nfds;		/* exactly this many descriptors */
	uint8_t fd_kind[WIRE_ANS_FDS];	/* WIRE_FD_* of each, in order */
	int fd_family;		/* of a WIRE_FD_ICMP; 0: either */
};

/*
 * Check the answer of len bytes to req (the client side): header of
 * req's type with zero flags; a result the request allows (an errno, a
 * WIRE_R_* code where one applies, else 0, or for WIRE_SEND a length not
 * beyond what was sent); on failure nothing else; on success exactly the
 * body that request's answer carries (within what the caller asked for:
 * WIRE_GETOPT's length) with each of its fields in range.  Fills *ans
 * with the result, the body and the descriptors that must come with it.
 * 0, or -1 if malformed.
 */
int wire_check_answer(const struct wire_req *req, const uint8_t *msg,
		      size_t len, struct wire_answer *ans);

#endif
