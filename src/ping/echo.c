/* SPDX-License-Identifier: ISC */
/*
 * echo - see echo.h.
 */
#include "ping/echo.h"

#include <arpa/inet.h>
#include <netinet/ip_icmp.h>
#include <string.h>

void echo_fill(uint8_t *data, size_t datalen, const uint8_t *pat,
	       int patlen, bool have_pattern)
{
	for (size_t i = 0; i < datalen; i++) {
		if (!have_pattern)
			data[i] = (uint8_t)i;
		else
			data[i] = patlen > 0 ? pat[i % (size_t)patlen] : 0;
	}
}

bool echo_timed(size_t datalen)
{
	return datalen >= sizeof(struct timeval);
}

/* RFC 1071: one's complement of the one's complement sum. */
static uint16_t cksum(const uint8_t *p, size_t len)
{
	uint32_t sum = 0;

	for (; len > 1; p += 2, len -= 2)
		sum += (uint32_t)(p[0] << 8 | p[1]);
	if (len)
		sum += (uint32_t)p[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

size_t echo_build(uint8_t *pkt, bool v6, size_t datalen, uint16_t seq,
		  const struct timespec *sent)
{
	uint16_t be, sum;

	pkt[0] = v6 ? ECHO6_REQUEST : ICMP_ECHO;
	pkt[1] = 0;
	memset(pkt + 2, 0, 4);		/* checksum, identifier */
	be = htons(seq);
	memcpy(pkt + 6, &be, 2);
	if (sent) {
		/* Host order, as iputils: only we ever read it back. */
		struct timeval tv = { .tv_sec = sent->tv_sec,
				      .tv_usec = sent->tv_nsec / 1000 };

		memcpy(pkt + ECHO_HDRLEN, &tv, sizeof(tv));
	}
	/* The kernel recomputes it on a ping socket, pingsockd too; a
	 * correct one costs nothing and keeps the bytes honest.  ICMPv6's
	 * covers the IPv6 pseudo-header: left 0 for them, as iputils. */
	if (!v6) {
		sum = htons(cksum(pkt, ECHO_HDRLEN + datalen));
		memcpy(pkt + 2, &sum, 2);
	}
	return ECHO_HDRLEN + datalen;
}

bool echo_parse(const uint8_t *buf, size_t cc, struct echo_reply *r)
{
	uint16_t be;

	if (cc < ECHO_HDRLEN)
		return false;
	r->type = buf[0];
	memcpy(&be, buf + 6, 2);
	r->seq = ntohs(be);
	r->csfailed = cksum(buf, cc) != 0;
	r->data = buf + ECHO_HDRLEN;
	r->datalen = cc - ECHO_HDRLEN;
	return true;
}

/*
 * In whole microseconds on both sides, as iputils subtracts two
 * timevals: the receive stamp is truncated before the subtraction.
 */
long echo_triptime(const struct echo_reply *r, const struct timespec *rx)
{
	struct timeval tx;

	memcpy(&tx, r->data, sizeof(tx));
	return (long)((rx->tv_sec - tx.tv_sec) * 1000000L +
		      (rx->tv_nsec / 1000 - tx.tv_usec));
}

bool echo_data_matches(const struct echo_reply *r, const uint8_t *sent,
		       size_t sent_len)
{
	size_t first = sizeof(struct timeval);

	/* A short reply is judged on what it has: it is reported as
	 * truncated, not dropped. */
	if (r->datalen < sent_len)
		sent_len = r->datalen;
	if (sent_len <= first)
		return true;
	return memcmp(r->data + first, sent + first, sent_len - first) == 0;
}
