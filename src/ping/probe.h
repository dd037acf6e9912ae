/* SPDX-License-Identifier: ISC */
/*
 * probe - RFC 8335 PROBE for ping -X: Extended Echo Requests (ICMP type
 * 42, ICMPv6 type 160) asking the destination about one of its
 * interfaces, by name, index or address, and their replies (43 / 161).
 * Pure code, apart from the option's complaints and the output lines.
 */
#ifndef PING_PROBE_H
#define PING_PROBE_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#define PROBE_REQUEST4	42	/* ICMP Extended Echo Request */
#define PROBE_REPLY4	43
#define PROBE_REQUEST6	160	/* ICMPv6 Extended Echo Request */
#define PROBE_REPLY6	161

/* Interface Identification Object C-types; 0: no -X. */
enum probe_ctype { PROBE_NONE = 0, PROBE_BY_NAME = 1, PROBE_BY_INDEX = 2,
		   PROBE_BY_ADDR = 3 };

/* RFC 2863's ifName is at most 255 octets; a Linux proxy takes only
 * what fits IFNAMSIZ with the padding (12 bytes), longer names come
 * back as Malformed Query from it. */
#define PROBE_NAME_MAX	255
/* Request: header 8, extension header 4, object header 4, payload. */
#define PROBE_MAXLEN	(16 + PROBE_NAME_MAX + 1)

struct probe_ident {
	int ctype;		/* enum probe_ctype */
	const char *arg;	/* as given, for the header */
	size_t len;		/* payload bytes before padding */
	uint8_t payload[PROBE_NAME_MAX + 1];	/* name, index (network
				 * order) or AFI, length, 0, address */
};

/*
 * -X: a number is an index, an IPv4 or IPv6 address an address, anything
 * else a name.  Exits 2 with a complaint for what cannot be sent.
 */
void probe_parse(const char *arg, struct probe_ident *p);

/*
 * The request for sequence number seq (8 bits) into pkt (PROBE_MAXLEN
 * bytes): code 0, L bit set, the extension structure (version 2, its
 * checksum) with one Interface Identification Object.  Returns its
 * length.  The identifier is 0: a ping socket puts its own there.
 */
size_t probe_build(uint8_t *pkt, bool v6, const struct probe_ident *p,
		   uint8_t seq);

/*
 * The 16-bit sequence number (as the statistics count them) of the
 * latest request sent whose 8 bits are seq8, ntransmitted sent so far.
 */
uint16_t probe_seq16(long ntransmitted, uint8_t seq8);

/* Send times, by 8-bit sequence number, for the replies' RTT. */
void probe_mark_sent(uint8_t seq8, const struct timespec *ts);
/* RTT in us of seq8's request to rx; < 0: none was sent. */
long probe_triptime(uint8_t seq8, const struct timespec *rx);

struct probe_reply {
	uint8_t code;		/* 0 no error, 1..4 the RFC's errors */
	uint8_t seq;
	uint8_t state;		/* 3 bits: the neighbour's state */
	bool active, ipv4, ipv6;
};

/* Whether buf (cc bytes) is an Extended Echo Reply of the family. */
bool probe_parse_reply(const uint8_t *buf, size_t cc, bool v6,
		       struct probe_reply *r);

/* "PROBE host (addr) interface name lo" (IPv6: "host(addr)"). */
void out_probe_header(const char *host, const char *addr, bool v6,
		      const struct probe_ident *p);

/*
 * "20 bytes from ADDR: probe icmp_seq=N ttl=T interface active, ipv4,
 * ipv6 time=0.045 ms" or "... No Such Interface time=...", without the
 * newline; ttl < 0 or triptime < 0: not shown.
 */
void out_probe_reply(bool stamp, int cc, const char *from,
		     const struct probe_reply *r, int ttl, long triptime,
		     bool dup);

#endif
