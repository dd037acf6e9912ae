/* SPDX-License-Identifier: ISC */
/*
 * echo - ICMP Echo Request and Reply bytes, as a ping socket carries
 * them (no IP header).  Pure code.
 *
 * Like iputils, the request's data begins with the struct timeval of its
 * sending when the data is large enough to hold one; the rest is the -p
 * pattern or the bytes 0, 1, 2, ...
 */
#ifndef PING_ECHO_H
#define PING_ECHO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

#define ECHO_HDRLEN 8

/* The data part: pattern repeated, or 0, 1, 2, ... without one. */
void echo_fill(uint8_t *data, size_t datalen, const uint8_t *pat,
	       int patlen, bool have_pattern);

/* Whether datalen bytes of data can carry the send time. */
bool echo_timed(size_t datalen);

#define ECHO6_REQUEST	128	/* ICMPv6 Echo Request */
#define ECHO6_REPLY	129	/* ICMPv6 Echo Reply */

/*
 * Write the header of an ICMP (v6: ICMPv6) Echo Request (and the send
 * time when sent is non-NULL) in front of the data already in pkt;
 * returns the bytes to send.  The identifier is 0: a ping socket puts
 * its own there.
 */
size_t echo_build(uint8_t *pkt, bool v6, size_t datalen, uint16_t seq,
		  const struct timespec *sent);

struct echo_reply {
	uint8_t type;
	uint16_t seq;
	bool csfailed;		/* the ICMP checksum does not add up (only
				 * meaningful for IPv4: ICMPv6's covers a
				 * pseudo-header not at hand) */
	const uint8_t *data;	/* after the header */
	size_t datalen;
};

/* Parse cc bytes; false when too short to be ICMP at all. */
bool echo_parse(const uint8_t *buf, size_t cc, struct echo_reply *r);

/* RTT in us from the send time in the data to the receive time rx. */
long echo_triptime(const struct echo_reply *r, const struct timespec *rx);

/*
 * Whether the data after the timestamp area is what was sent.  iputils
 * 20221126 drops a reply that fails this as "not our echo" (so its
 * "wrong data byte" report never shows): we drop it too.
 */
bool echo_data_matches(const struct echo_reply *r, const uint8_t *sent,
		       size_t sent_len);

#endif
