/* SPDX-License-Identifier: ISC */
/*
 * probe - see probe.h.
 *
 * The request's layout (RFC 8335 section 2, RFC 4884 section 7):
 *
 *   0  type 42/160, code 0, checksum, identifier
 *   6  sequence number (8 bits), 7: reserved with the L bit (0x01)
 *   8  extension header: version 2 in the top nibble, checksum (over
 *      the extension structure alone) at 10
 *  12  object header: length (header and padded payload), class-num 3
 *      (Interface Identification), C-type
 *  16  payload: the name padded with NULs to 32 bits, the index, or
 *      AFI (1 IPv4, 2 IPv6), address length, reserved, address
 *
 * The reply's byte 7 is State (3 bits), reserved, A, 4, 6.  The kernel
 * answers only with net.ipv4.icmp_echo_enable_probe = 1 (both families),
 * and takes names of fewer than IFNAMSIZ bytes, padding included.
 */
#include "ping/probe.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ping/output.h"

#define CLASS_IIO	3	/* Interface Identification Object */
#define EXT_VERSION	2
#define AFI_IP		1
#define AFI_IP6		2
#define L_BIT		0x01
#define STATE_ACTIVE	0x04
#define STATE_IPV4	0x02
#define STATE_IPV6	0x01

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

static void parse_index(const char *arg, struct probe_ident *p)
{
	unsigned long long v;
	uint32_t be;
	char *end;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || *end || v > UINT32_MAX)
		error(2, 0, "invalid probe interface index: %s (at most %u)",
		      arg, (unsigned)UINT32_MAX);
	be = htonl((uint32_t)v);
	memcpy(p->payload, &be, sizeof(be));
	p->len = sizeof(be);
	p->ctype = PROBE_BY_INDEX;
}

/* AFI (2 bytes), address length, reserved, the address. */
static bool parse_addr(const char *arg, struct probe_ident *p)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (inet_pton(AF_INET, arg, &a4) == 1) {
		p->payload[1] = AFI_IP;
		p->payload[2] = sizeof(a4);
		memcpy(p->payload + 4, &a4, sizeof(a4));
		p->len = 4 + sizeof(a4);
	} else if (inet_pton(AF_INET6, arg, &a6) == 1) {
		p->payload[1] = AFI_IP6;
		p->payload[2] = sizeof(a6);
		memcpy(p->payload + 4, &a6, sizeof(a6));
		p->len = 4 + sizeof(a6);
	} else {
		return false;
	}
	p->ctype = PROBE_BY_ADDR;
	return true;
}

void probe_parse(const char *arg, struct probe_ident *p)
{
	size_t n = strlen(arg);

	memset(p, 0, sizeof(*p));
	p->arg = arg;
	if (n == 0)
		error(2, 0, "invalid probe interface: empty name");
	if (all_digits(arg)) {
		parse_index(arg, p);
		return;
	}
	if (parse_addr(arg, p))
		return;
	/* What looks like an IPv6 address (perhaps with a %scope, which
	 * the object has no room for) and is not one is a mistake, not a
	 * name. */
	if (strchr(arg, ':') &&
	    (strstr(arg, "::") ||
	     strspn(arg, "0123456789abcdefABCDEF:.") == strcspn(arg, "%")))
		error(2, 0, "invalid probe interface address: %s", arg);
	if (n > PROBE_NAME_MAX)
		error(2, 0, "probe interface name too long: %zu bytes (at most "
		      "%d)", n, PROBE_NAME_MAX);
	memcpy(p->payload, arg, n);
	p->len = n;
	p->ctype = PROBE_BY_NAME;
}

/* RFC 1071 over big-endian 16-bit words, an odd byte padded with 0. */
static uint16_t cksum(const uint8_t *b, size_t len)
{
	uint32_t sum = 0;

	for (; len > 1; b += 2, len -= 2)
		sum += (uint32_t)(b[0] << 8 | b[1]);
	if (len)
		sum += (uint32_t)b[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

size_t probe_build(uint8_t *pkt, bool v6, const struct probe_ident *p,
		   uint8_t seq)
{
	size_t plen = (p->len + 3) & ~(size_t)3, olen = 4 + plen;
	size_t len = 16 + plen;
	uint16_t sum;

	memset(pkt, 0, len);
	pkt[0] = v6 ? PROBE_REQUEST6 : PROBE_REQUEST4;
	pkt[6] = seq;
	pkt[7] = L_BIT;
	pkt[8] = EXT_VERSION << 4;
	pkt[12] = (uint8_t)(olen >> 8);
	pkt[13] = (uint8_t)olen;
	pkt[14] = CLASS_IIO;
	pkt[15] = (uint8_t)p->ctype;
	memcpy(pkt + 16, p->payload, p->len);
	sum = cksum(pkt + 8, len - 8);
	pkt[10] = (uint8_t)(sum >> 8);
	pkt[11] = (uint8_t)sum;
	/* The ICMP checksum: the kernel (and pingsockd) put their own in;
	 * ICMPv6's covers a pseudo-header, left 0 as for echoes. */
	if (!v6) {
		sum = cksum(pkt, len);
		pkt[2] = (uint8_t)(sum >> 8);
		pkt[3] = (uint8_t)sum;
	}
	return len;
}

uint16_t probe_seq16(long ntransmitted, uint8_t seq8)
{
	uint16_t last = (uint16_t)ntransmitted;

	return (uint16_t)(last - (uint8_t)(last - seq8));
}

static struct timespec sent_at[256];
static bool sent_valid[256];

void probe_mark_sent(uint8_t seq8, const struct timespec *ts)
{
	sent_at[seq8] = *ts;
	sent_valid[seq8] = true;
}

long probe_triptime(uint8_t seq8, const struct timespec *rx)
{
	const struct timespec *tx = &sent_at[seq8];

	if (!sent_valid[seq8])
		return -1;
	/* Whole microseconds on both sides, as the echo times. */
	return (long)((rx->tv_sec - tx->tv_sec) * 1000000L +
		      (rx->tv_nsec / 1000 - tx->tv_nsec / 1000));
}

bool probe_parse_reply(const uint8_t *buf, size_t cc, bool v6,
		       struct probe_reply *r)
{
	if (cc < 8 || buf[0] != (v6 ? PROBE_REPLY6 : PROBE_REPLY4))
		return false;
	r->code = buf[1];
	r->seq = buf[6];
	r->state = (uint8_t)(buf[7] >> 5);
	r->active = buf[7] & STATE_ACTIVE;
	r->ipv4 = buf[7] & STATE_IPV4;
	r->ipv6 = buf[7] & STATE_IPV6;
	return true;
}

static const char *ctype_name(int ctype)
{
	switch (ctype) {
	case PROBE_BY_NAME:	return "name";
	case PROBE_BY_INDEX:	return "index";
	default:		return "address";
	}
}

void out_probe_header(const char *host, const char *addr, bool v6,
		      const struct probe_ident *p)
{
	printf("PROBE %s%s(%s) interface %s %s\n", host, v6 ? "" : " ", addr,
	       ctype_name(p->ctype), p->arg);
	fflush(stdout);
}

/* RFC 8335 section 3: the codes of an Extended Echo Reply. */
static const char *code_text(int code)
{
	switch (code) {
	case 1:	return "Malformed Query";
	case 2:	return "No Such Interface";
	case 3:	return "No Such Table Entry";
	case 4:	return "Multiple Interfaces Satisfy Query";
	default: return NULL;
	}
}

/* The State field: the ARP or Neighbor Discovery state of a neighbour
 * identified by address (RFC 8335 section 3). */
static const char *state_text(int state)
{
	static const char *const text[] = {
		NULL, "incomplete", "reachable", "stale", "delay", "probe",
		"failed",
	};

	return state < 7 ? text[state] : NULL;
}

void out_probe_reply(bool stamp, int cc, const char *from,
		     const struct probe_reply *r, int ttl, long triptime,
		     bool dup)
{
	out_stamp(stamp);
	printf("%d bytes from %s: probe icmp_seq=%u", cc, from, r->seq);
	if (ttl >= 0)
		printf(" ttl=%d", ttl);
	if (r->code == 0) {
		printf(" interface %s", r->active ? "active" : "inactive");
		if (r->ipv4)
			printf(", ipv4");
		if (r->ipv6)
			printf(", ipv6");
		if (r->state) {
			const char *s = state_text(r->state);

			if (s)
				printf(", state %s", s);
			else
				printf(", state %u", r->state);
		}
	} else if (code_text(r->code)) {
		printf(" %s", code_text(r->code));
	} else {
		printf(" code %u", r->code);
	}
	if (triptime >= 0)
		out_time(triptime);
	if (dup)
		printf(" (DUP!)");
}
