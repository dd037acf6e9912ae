/* SPDX-License-Identifier: ISC */
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

/* An errno value, as a pending error or a record's ee_errno must be. */
static inline bool wire_is_errno(int64_t v)
{
	return v >= 1 && v <= WIRE_ERRNO_MAX;
}

/* Where a struct wire_dgram came from. */
enum wire_chan {
	WIRE_CHAN_DATA = 1,	/* the data descriptor: replies, wake-ups */
	WIRE_CHAN_ERR,		/* the error queue (WIRE_ERRQ): records */
};

/*
 * Check one message read from a socket's data descriptor or one record
 * of its error queue (WIRE_ERRQ's answer): msg
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

/* A checked answer. */
struct wire_answer {
	int32_t result;		/* >= 0, -1..-WIRE_ERRNO_MAX, or the
				 * WIRE_R_* the request's row allows */
	const uint8_t *body;	/* into the message */
	size_t len;
	unsigned nfds;		/* exactly this many descriptors */
	uint8_t fd_kind[WIRE_ANS_FDS];	/* WIRE_FD_* of each, in order */
	int fd_family;		/* of a WIRE_FD_ICMP; 0: either */
};

/*
 * Check the answer of len bytes to req (the client side), by the row of
 * req's type (wire.h: struct wire_req_type): header of req's type with
 * zero flags; a result the request allows (an errno, the WIRE_R_* code
 * the row names, else what its success's result is: 0, the body's
 * length, or for WIRE_SEND a length not beyond what was sent); on
 * failure nothing else; on success exactly the body that request's
 * answer carries (within what the caller asked for: WIRE_GETOPT's
 * length) with each of its fields in range.  Fills *ans with the result,
 * the body and the descriptors that must come with it.  0, or -1 if
 * malformed.
 */
int wire_check_answer(const struct wire_req *req, const uint8_t *msg,
		      size_t len, struct wire_answer *ans);

#endif
