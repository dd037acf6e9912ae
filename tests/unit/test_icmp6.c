/* SPDX-License-Identifier: ISC */
/*
 * test_icmp6 - the ICMPv6 half of src/engine/icmp.c (icmp6_parse,
 * icmp6_set_ident) and of src/engine/icmperr.c (icmp6_error_verdict), on
 * hand-built messages as a raw ICMPv6 socket delivers them (no IPv6
 * header; addresses, hop limit, traffic class and flow info beside).
 *
 * The kernel is the reference:
 *   net/ipv6/icmp.c        icmpv6_rcv(), icmpv6_notify(), icmpv6_err(),
 *                          icmpv6_err_convert() and tab_unreach[]
 *   net/ipv6/exthdrs_core.c ipv6_skip_exthdr()
 *   net/ipv4/ping.c        ping_err(), ping_supported()
 * Tests named kernel_* check a point where the engine was found to differ
 * from the kernel source; each says where.
 *
 * The checksums here are computed by this file's own code over the
 * RFC 8200 section 8.1 pseudo-header, not by the engine's.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/icmp.h"
#include "engine/icmperr.h"
#include "check.h"

/* ---- addresses and the pseudo-header checksum ---- */

static struct ps_addr a6(const char *s)
{
	struct ps_addr a;

	memset(&a, 0, sizeof(a));
	a.family = AF_INET6;
	if (inet_pton(AF_INET6, s, a.a) != 1)
		abort();
	return a;
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/*
 * The checksum RFC 4443 2.3 asks for: one's complement of the one's
 * complement sum of the pseudo-header (source, destination, 32-bit
 * upper-layer length, three zero bytes, next header 58) and the message
 * with its checksum field zero.  Returned as the 16-bit value whose high
 * byte goes first on the wire.
 */
static uint16_t sum6(const struct ps_addr *src, const struct ps_addr *dst,
		     const uint8_t *m, size_t len)
{
	uint8_t ph[40];
	uint64_t acc = 0;

	memcpy(ph, src->a, 16);
	memcpy(ph + 16, dst->a, 16);
	put32(ph + 32, (uint32_t)len);
	ph[36] = ph[37] = ph[38] = 0;
	ph[39] = 58;
	for (size_t i = 0; i < sizeof(ph); i += 2)
		acc += (uint32_t)(ph[i] << 8 | ph[i + 1]);
	for (size_t i = 0; i < len; i++) {
		uint8_t b = (i == 2 || i == 3) ? 0 : m[i];

		acc += (i & 1) ? b : (uint32_t)b << 8;
	}
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)~acc;
}

static void fix_sum(uint8_t *m, size_t len, const struct icmp6_meta *meta)
{
	put16(m + 2, sum6(&meta->src, &meta->dst, m, len));
}

/* The replier (or router) and us. */
static struct icmp6_meta meta(void)
{
	struct icmp6_meta m;

	memset(&m, 0, sizeof(m));
	m.src = a6("fd00:1::9");
	m.dst = a6("fd00::1");
	m.hoplimit = 61;
	m.tclass = 0x28;
	m.flowinfo = htonl(0x000abcde);
	return m;
}

/* Parse an exact-size heap copy, so that ASan sees any over-read. */
static enum icmp_parse_result parse(const uint8_t *m, size_t len,
				    const struct icmp6_meta *meta,
				    struct icmp_pkt *out)
{
	uint8_t *c = malloc(len ? len : 1);
	enum icmp_parse_result r;

	if (!c)
		abort();
	memcpy(c, m, len);
	r = icmp6_parse(c, len, meta, out);
	/* The pointers go into the copy: re-base them onto m. */
	if (out->icmp)
		out->icmp = m + (out->icmp - c);
	if (out->q_icmp)
		out->q_icmp = m + (out->q_icmp - c);
	free(c);
	return r;
}

/* ---- builders ---- */

static uint8_t buf[4096];

/* An echo message (request or reply) of 8 + payload bytes at p. */
static size_t put_echo(uint8_t *p, uint8_t type, uint8_t code, uint16_t id,
		       uint16_t seq, size_t payload)
{
	p[0] = type;
	p[1] = code;
	p[2] = p[3] = 0;
	put16(p + 4, id);
	put16(p + 6, seq);
	for (size_t i = 0; i < payload; i++)
		p[8 + i] = (uint8_t)(0xa0 + i);
	return 8 + payload;
}

/* A 40-byte IPv6 header at p. */
static void put_ip6(uint8_t *p, int version, uint8_t nh,
		    const struct ps_addr *src, const struct ps_addr *dst,
		    size_t plen)
{
	memset(p, 0, 40);
	p[0] = (uint8_t)(version << 4);
	p[1] = 0x01;		/* flow label bits, ignored */
	put16(p + 4, (uint16_t)plen);
	p[6] = nh;
	p[7] = 3;		/* hop limit */
	memcpy(p + 8, src->a, 16);
	memcpy(p + 24, dst->a, 16);
}

/* What our request looked like on the way out. */
static struct ps_addr q_src(void) { return a6("fd00::1"); }
static struct ps_addr q_dst(void) { return a6("fd00:2::7"); }

/*
 * An ICMPv6 error (type, code, bytes 4..7 = info) quoting an IPv6 header
 * with next header first_nh, then ext (extlen bytes of extension
 * headers), then an ICMPv6 message of qtype/qcode, ident 0x4321, seq
 * 0x0102, 16 bytes of payload.  Checksum filled in for meta().  Returns
 * the length; *echo_off gets the offset of the quoted ICMPv6 header.
 */
static size_t build_error(uint8_t type, uint8_t code, uint32_t info,
			  uint8_t first_nh, const uint8_t *ext, size_t extlen,
			  uint8_t qtype, uint8_t qcode, size_t *echo_off)
{
	struct ps_addr s = q_src(), d = q_dst();
	struct icmp6_meta mt = meta();
	size_t off = 8 + 40 + extlen, n;

	memset(buf, 0, sizeof(buf));
	buf[0] = type;
	buf[1] = code;
	put32(buf + 4, info);
	if (extlen)
		memcpy(buf + 48, ext, extlen);
	n = put_echo(buf + off, qtype, qcode, 0x4321, 0x0102, 16);
	put_ip6(buf + 8, 6, first_nh, &s, &d, extlen + n);
	if (echo_off)
		*echo_off = off;
	fix_sum(buf, off + n, &mt);
	return off + n;
}

static void check_quote(const struct icmp_pkt *p, const uint8_t *m,
			size_t len, size_t echo_off, uint32_t info)
{
	struct ps_addr s = q_src(), d = q_dst();

	CHECK_EQ(p->kind, ICMP_K_ERROR);
	CHECK(ps_addr_eq(&p->q_src, &s));
	CHECK(ps_addr_eq(&p->q_dst, &d));
	CHECK_EQ(p->q_src.family, AF_INET6);
	CHECK_EQ(p->q_dst.family, AF_INET6);
	CHECK_EQ(p->ident, 0x4321);
	CHECK_EQ(p->seq, 0x0102);
	CHECK_EQ(p->info, info);
	CHECK(p->q_icmp == m + echo_off);
	CHECK_EQ(p->q_icmplen, len - echo_off);
	if (p->q_icmp == m + echo_off)
		CHECK_EQ(p->q_icmp[0], 128);
}

/* ---- the checksum itself ---- */

/*
 * By hand: Echo Reply ::1 -> ::1, ident 0x1234, seq 1, no payload.
 * Pseudo-header 0001 + 0001 + 0008 + 003a = 0044; message 8100 + 1234 +
 * 0001 = 9335; total 9379 -> checksum 6c86.
 */
static void checksum_by_hand(void)
{
	uint8_t m[8] = { 129, 0, 0x6c, 0x86, 0x12, 0x34, 0x00, 0x01 };
	struct icmp6_meta mt;
	struct icmp_pkt p;

	memset(&mt, 0, sizeof(mt));
	mt.src = a6("::1");
	mt.dst = a6("::1");
	CHECK_EQ(sum6(&mt.src, &mt.dst, m, sizeof(m)), 0x6c86);
	CHECK_EQ(parse(m, sizeof(m), &mt, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_REPLY);
	CHECK_EQ(p.ident, 0x1234);
	CHECK_EQ(p.seq, 1);
	/* The sum without the pseudo-header, as IPv4 would have it:
	 * ~(8100 + 1234 + 0001) = ~9335 = 6cca.  Not the ICMPv6 one. */
	m[2] = 0x6c;
	m[3] = 0xca;
	CHECK_EQ(parse(m, sizeof(m), &mt, &p), ICMP_PARSE_CSUM);
}

/* ---- replies ---- */

static void reply_parsed(uint8_t type, size_t payload)
{
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;
	size_t len = put_echo(buf, type, 0, 0xbeef, 0x0203, payload);

	fix_sum(buf, len, &mt);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_REPLY);
	CHECK_EQ(p.type, type);
	CHECK_EQ(p.code, 0);
	CHECK_EQ(p.ident, 0xbeef);
	/* RFC 8335: an Extended Echo has an 8-bit sequence number (byte
	 * 6); byte 7 holds the reply's state bits, so only byte 6 is
	 * matched. */
	CHECK_EQ(p.seq, 0x0203);
	CHECK_EQ(p.seq, icmp_echo_seq(buf));
	CHECK_EQ(p.match, type == 161 ? ICMP_M_PROBE_REPLY : ICMP_M_ECHO);
	CHECK(ps_addr_eq(&p.src, &mt.src));
	CHECK(ps_addr_eq(&p.dst, &mt.dst));
	CHECK_EQ(p.src.family, AF_INET6);
	CHECK_EQ(p.ttl, 61);
	CHECK_EQ(p.tos, 0x28);
	CHECK_EQ(p.flowinfo, htonl(0x000abcde));
	CHECK(p.icmp == buf);
	CHECK_EQ(p.icmplen, len);
	CHECK(p.opts == NULL);
	CHECK_EQ(p.optlen, 0);
}

static void echo_reply(void)
{
	reply_parsed(129, 56);
	reply_parsed(129, 0);
	reply_parsed(129, 1);		/* odd length: a padded last word */
	reply_parsed(129, 1231);
}

/* RFC 8335: the kernel's icmpv6_rcv() hands 161 to ping_rcv() too. */
static void ext_echo_reply(void)
{
	reply_parsed(161, 12);
	reply_parsed(161, 0);
}

/* A reply's code is not checked by ping_rcv(). */
static void reply_any_code(void)
{
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;
	size_t len = put_echo(buf, 129, 7, 1, 2, 8);

	fix_sum(buf, len, &mt);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_REPLY);
	CHECK_EQ(p.code, 7);
}

static void wrong_checksum(void)
{
	struct icmp6_meta mt = meta(), other;
	struct icmp_pkt p;
	size_t len = put_echo(buf, 129, 0, 0xbeef, 1, 20);

	fix_sum(buf, len, &mt);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	buf[3] ^= 1;
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_CSUM);
	buf[3] ^= 1;
	buf[len - 1] ^= 0x80;		/* a payload byte */
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_CSUM);
	buf[len - 1] ^= 0x80;
	/* Right bytes, other pseudo-header: another source, destination,
	 * or a length that does not match. */
	other = mt;
	other.src = a6("fd00:1::8");
	CHECK_EQ(parse(buf, len, &other, &p), ICMP_PARSE_CSUM);
	other = mt;
	other.dst = a6("fd00::2");
	CHECK_EQ(parse(buf, len, &other, &p), ICMP_PARSE_CSUM);
	CHECK_EQ(parse(buf, len - 2, &mt, &p), ICMP_PARSE_CSUM);
	/* Hop limit, class and flow info are not in the sum. */
	other = mt;
	other.hoplimit = 1;
	other.tclass = 0;
	other.flowinfo = 0;
	CHECK_EQ(parse(buf, len, &other, &p), ICMP_PARSE_OK);
	/* An error with a bad sum is not looked into. */
	len = build_error(3, 0, 0, 58, NULL, 0, 128, 0, NULL);
	buf[2] ^= 0x10;
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_CSUM);
	CHECK_EQ(p.kind, ICMP_K_OTHER);
}

static void too_short(void)
{
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;

	put_echo(buf, 129, 0, 1, 2, 0);
	for (size_t len = 0; len < 8; len++) {
		fix_sum(buf, len < 4 ? 4 : len, &mt);
		CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_SHORT);
		CHECK_EQ(p.kind, ICMP_K_OTHER);
	}
}

/* Without IPv6 addresses there is no pseudo-header to check against. */
static void meta_not_ipv6(void)
{
	struct icmp6_meta mt = meta(), bad;
	struct icmp_pkt p;
	size_t len = put_echo(buf, 129, 0, 1, 2, 8);

	fix_sum(buf, len, &mt);
	bad = mt;
	bad.src.family = AF_INET;
	CHECK_EQ(parse(buf, len, &bad, &p), ICMP_PARSE_SHORT);
	bad = mt;
	bad.dst.family = AF_INET;
	CHECK_EQ(parse(buf, len, &bad, &p), ICMP_PARSE_SHORT);
	bad = mt;
	bad.src.family = 0;
	bad.dst.family = 0;
	CHECK_EQ(parse(buf, len, &bad, &p), ICMP_PARSE_SHORT);
	CHECK_EQ(p.kind, ICMP_K_OTHER);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
}

/* Echo Request (answered by the kernel itself), neighbour discovery, MLD,
 * node information, Extended Echo Request, anything >= 128: nothing for a
 * ping socket. */
static void informational_other(void)
{
	static const uint8_t types[] = { 128, 130, 131, 132, 133, 134, 135,
					 136, 137, 138, 139, 140, 143, 144,
					 160, 162, 200, 255 };
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;

	for (size_t i = 0; i < sizeof(types); i++) {
		size_t len = put_echo(buf, types[i], 0, 0x4321, 0x0102, 48);
		struct ps_addr s = q_src(), d = q_dst();

		/* Even with what would look like a quoted echo inside. */
		put_ip6(buf + 8, 6, 58, &s, &d, 8);
		put_echo(buf + 48, 128, 0, 0x4321, 0x0102, 0);
		fix_sum(buf, len, &mt);
		CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
		CHECK_EQ(p.kind, ICMP_K_OTHER);
		CHECK_EQ(p.type, types[i]);
		CHECK(p.icmp == buf);
		CHECK_EQ(p.icmplen, len);
		CHECK(p.q_icmp == NULL);
	}
}

/* ---- errors ---- */

/* Each of the four error types, quoting 40 bytes of IPv6 and our
 * request; info is bytes 4..7 in host order. */
static void errors_quote_request(void)
{
	static const struct { uint8_t type, code; uint32_t info; } e[] = {
		{ 3, 0, 0 },			/* hop limit exceeded */
		{ 3, 1, 0 },			/* reassembly */
		{ 1, 0, 0 },			/* no route */
		{ 1, 4, 0x01020304 },		/* port, unused bytes kept */
		{ 1, 3, 0 },
		{ 2, 0, 1280 },			/* Packet Too Big: MTU */
		{ 2, 0, 0x00012345 },
		{ 4, 0, 40 },			/* Param Problem: pointer */
		{ 4, 1, 0xfffffff0 },
		{ 4, 2, 6 },
	};
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;

	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++) {
		size_t off, len = build_error(e[i].type, e[i].code, e[i].info,
					      58, NULL, 0, 128, 0, &off);

		CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
		CHECK_EQ(p.type, e[i].type);
		CHECK_EQ(p.code, e[i].code);
		CHECK_EQ(off, 48);
		check_quote(&p, buf, len, off, e[i].info);
		CHECK(ps_addr_eq(&p.src, &mt.src));	/* the router */
		CHECK(ps_addr_eq(&p.dst, &mt.dst));
		CHECK_EQ(p.ttl, 61);
		CHECK(p.icmp == buf);
		CHECK_EQ(p.icmplen, len);
	}
}

/* icmpv6_rcv(): every type below 128 that it does not know is an error
 * "of unknown type" passed up through icmpv6_notify() -- type 0 and
 * 5..127 included. */
static void unknown_error_types_quote(void)
{
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;

	for (int t = 0; t < 128; t++) {
		size_t off, len = build_error((uint8_t)t, 9, 0x11223344, 58,
					      NULL, 0, 128, 0, &off);

		CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
		check_quote(&p, buf, len, off, 0x11223344);
	}
}

/* Exactly 40 + 8 bytes of quote: enough (icmpv6_notify() pulls the
 * inner offset + 8). */
static void minimal_quote(void)
{
	struct icmp6_meta mt = meta();
	struct ps_addr s = q_src(), d = q_dst();
	struct icmp_pkt p;
	size_t len;

	memset(buf, 0, sizeof(buf));
	buf[0] = 1;
	put_ip6(buf + 8, 6, 58, &s, &d, 8);
	put_echo(buf + 48, 128, 0, 0x4321, 0x0102, 0);
	len = 56;
	fix_sum(buf, len, &mt);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	check_quote(&p, buf, len, 48, 0);
	CHECK_EQ(p.q_icmplen, 8);
}

/* Extension headers before the quoted ICMPv6 header are skipped as
 * ipv6_skip_exthdr() does: hop-by-hop, routing, destination options,
 * (hdrlen + 1) * 8 bytes; AH (hdrlen + 2) * 4; a first fragment 8. */
static void exthdrs_skipped(void)
{
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;
	uint8_t ext[256];
	size_t off, len;

	/* hop-by-hop, 8 bytes */
	memset(ext, 0, sizeof(ext));
	ext[0] = 58;
	ext[1] = 0;
	len = build_error(3, 0, 0, 0, ext, 8, 128, 0, &off);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	check_quote(&p, buf, len, off, 0);
	CHECK_EQ(off, 56);

	/* destination options, 16 bytes */
	memset(ext, 0, sizeof(ext));
	ext[0] = 58;
	ext[1] = 1;
	len = build_error(1, 3, 0, 60, ext, 16, 128, 0, &off);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	check_quote(&p, buf, len, off, 0);

	/* routing header, 24 bytes */
	memset(ext, 0, sizeof(ext));
	ext[0] = 58;
	ext[1] = 2;
	ext[2] = 4;	/* type */
	len = build_error(3, 0, 0, 43, ext, 24, 128, 0, &off);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	check_quote(&p, buf, len, off, 0);

	/* first fragment: offset 0, more-fragments set */
	memset(ext, 0, sizeof(ext));
	ext[0] = 58;
	put16(ext + 2, 0x0001);
	put32(ext + 4, 0xcafe);
	len = build_error(2, 0, 1400, 44, ext, 8, 128, 0, &off);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	check_quote(&p, buf, len, off, 1400);

	/* AH, hdrlen 4: (4 + 2) * 4 = 24 bytes */
	memset(ext, 0, sizeof(ext));
	ext[0] = 58;
	ext[1] = 4;
	len = build_error(3, 0, 0, 51, ext, 24, 128, 0, &off);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	check_quote(&p, buf, len, off, 0);

	/* A chain: hop-by-hop 8, dest 8, routing 16, fragment 8, dest 8 */
	memset(ext, 0, sizeof(ext));
	ext[0] = 60;  ext[1] = 0;		/* hbh -> dst */
	ext[8] = 43;  ext[9] = 0;		/* dst -> routing */
	ext[16] = 44; ext[17] = 1;		/* routing (16) -> frag */
	ext[32] = 60; put16(ext + 34, 0x0001);	/* frag -> dst */
	ext[40] = 58; ext[41] = 0;		/* dst -> icmpv6 */
	len = build_error(4, 1, 48, 0, ext, 48, 128, 0, &off);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	check_quote(&p, buf, len, off, 48);
	CHECK_EQ(off, 8 + 40 + 48);
}

/* A later fragment carries no upper-layer header: ipv6_skip_exthdr()
 * stops at it, and the fragment protocol has no error handler. */
static void later_fragment_not_ours(void)
{
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;
	uint8_t ext[8] = { 58, 0, 0, 0, 0, 0, 0xca, 0xfe };
	size_t len;

	put16(ext + 2, 8 << 3);		/* offset 8 (x 8 bytes) */
	len = build_error(3, 0, 0, 44, ext, 8, 128, 0, NULL);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);
	put16(ext + 2, (1 << 3) | 1);	/* offset 1, more fragments */
	len = build_error(3, 0, 0, 44, ext, 8, 128, 0, NULL);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);
	/* Only the reserved and M bits set: still a first fragment. */
	put16(ext + 2, 0x0007);
	len = build_error(3, 0, 0, 44, ext, 8, 128, 0, NULL);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_ERROR);
}

/* "No next header": ipv6_skip_exthdr() returns -1. */
static void no_next_header_not_ours(void)
{
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;
	uint8_t ext[8] = { 59, 0 };
	size_t len = build_error(3, 0, 0, 59, NULL, 0, 128, 0, NULL);

	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);
	len = build_error(3, 0, 0, 0, ext, 8, 128, 0, NULL);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);
}

/* icmpv6_err() calls ping_err() only for a quoted ICMPV6_ECHO_REQUEST:
 * an Extended Echo Request, a reply or anything else is not ours. */
static void quote_not_echo_request(void)
{
	static const uint8_t qt[] = { 160, 129, 161, 1, 3, 135, 8, 0 };
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;

	for (size_t i = 0; i < sizeof(qt); i++) {
		size_t len = build_error(1, 0, 0, 58, NULL, 0, qt[i], 0, NULL);

		CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
		CHECK_EQ(p.kind, ICMP_K_OTHER);
		CHECK(p.q_icmp == NULL);
	}
}

/* A quoted UDP datagram (17), TCP (6), IPv4-in-IPv6 (4): not ours, even
 * if the bytes after the header look like an Echo Request. */
static void quote_other_protocol(void)
{
	static const uint8_t nh[] = { 17, 6, 4, 41, 50, 255 };
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;

	for (size_t i = 0; i < sizeof(nh); i++) {
		size_t len = build_error(1, 4, 0, nh[i], NULL, 0, 128, 0,
					 NULL);

		CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
		CHECK_EQ(p.kind, ICMP_K_OTHER);
	}
}

/* An IPv4 datagram (what an IPv4 socket sent) quoted in an ICMPv6
 * error: not ours.  (icmpv6_notify() reads its byte 6 -- the high byte
 * of the flags and fragment offset, 0x40 with DF -- as the next header:
 * 64, no protocol there.) */
static void quote_ipv4_datagram(void)
{
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;
	size_t len;

	memset(buf, 0, sizeof(buf));
	buf[0] = 3;
	buf[8] = 0x45;
	buf[8 + 6] = 0x40;	/* DF */
	buf[8 + 8] = 64;	/* TTL */
	buf[8 + 9] = 1;		/* protocol ICMP */
	put_echo(buf + 28, 8, 0, 0x4321, 0x0102, 40);
	len = 28 + 48;
	fix_sum(buf, len, &mt);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);
}

/*
 * KERNEL: icmpv6_notify() (net/ipv6/icmp.c) takes the quoted header's
 *	nexthdr = ((struct ipv6hdr *)skb->data)->nexthdr;
 * after pskb_may_pull(skb, sizeof(struct ipv6hdr)) and never looks at
 * its version: a quote laid out as IPv6 (next header 58 at byte 6, an
 * Echo Request at byte 40) reaches icmpv6_err() and ping_err() whatever
 * its first nibble says.  parse_quote6() (src/engine/icmp.c) refuses
 * (q[0] >> 4) != 6.  Stricter than the kernel; harmless in practice,
 * but not what the kernel does.
 */
static void kernel_quoted_version_not_checked(void)
{
	static const int versions[] = { 0, 4, 5, 15 };
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;

	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++) {
		size_t off, len = build_error(3, 0, 0, 58, NULL, 0, 128, 0,
					      &off);

		buf[8] = (uint8_t)(versions[i] << 4 | (buf[8] & 0x0f));
		fix_sum(buf, len, &mt);
		CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
		CHECK_EQ(p.kind, ICMP_K_ERROR);
	}
}

/* Every truncation of the quote, with and without extension headers: it
 * never reads past the message, and it is ours exactly when the IPv6
 * header, the extension headers and 8 bytes of ICMPv6 are there. */
static void truncated_quotes(void)
{
	struct icmp6_meta mt = meta();
	uint8_t ext[24];
	struct { uint8_t nh; size_t extlen; } v[] = {
		{ 58, 0 }, { 0, 8 }, { 60, 24 }, { 44, 8 }, { 51, 24 },
	};

	for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++) {
		size_t off, full, need;

		memset(ext, 0, sizeof(ext));
		ext[0] = 58;
		if (v[k].nh == 60)
			ext[1] = 2;	/* 24 bytes */
		if (v[k].nh == 51)
			ext[1] = 4;	/* (4 + 2) * 4 = 24 */
		full = build_error(3, 0, 0, v[k].nh, ext, v[k].extlen, 128, 0,
				   &off);
		need = off + 8;
		for (size_t len = 8; len <= full; len++) {
			struct icmp_pkt p;

			fix_sum(buf, len, &mt);
			CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
			CHECK_EQ(p.kind,
				 len >= need ? ICMP_K_ERROR : ICMP_K_OTHER);
			if (p.kind == ICMP_K_ERROR) {
				CHECK(p.q_icmp == buf + off);
				CHECK_EQ(p.q_icmplen, len - off);
			}
		}
	}
}

/* Extension headers whose lengths run past the end, chains that loop
 * nowhere, lengths of 255: never a crash, never "ours". */
static void hostile_exthdrs(void)
{
	struct icmp6_meta mt = meta();
	uint8_t ext[64];

	for (int nh = 0; nh < 256; nh++) {
		for (int hl = 0; hl < 256; hl += 17) {
			struct icmp_pkt p;
			size_t len;

			memset(ext, 0, sizeof(ext));
			ext[0] = (uint8_t)nh;	/* next: anything */
			ext[1] = (uint8_t)hl;
			len = build_error(1, 0, 0, 0, ext, 8, 128, 0, NULL);
			CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
			if (p.kind == ICMP_K_ERROR) {
				CHECK(p.q_icmp >= buf + 56);
				CHECK(p.q_icmp + 8 <= buf + len);
				CHECK_EQ(p.q_icmp[0], 128);
			}
		}
	}
}

/* A Redirect (137) quotes a datagram too, but goes to ndisc_rcv(). */
static void redirect_not_ours(void)
{
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;
	size_t len = build_error(137, 0, 0, 58, NULL, 0, 128, 0, NULL);

	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);
}

/*
 * KERNEL: ping_err() (net/ipv4/ping.c) starts with
 *	if (!ping_supported(family, icmph->type, icmph->code))
 *		return;
 * and ping_supported() wants code 0: an error quoting an Echo Request of
 * code != 0 is dropped.  icmp6_parse() (src/engine/icmp.c, parse_quote6)
 * checks only q[off] != T6_ECHO, not the code byte.
 */
static void kernel_quoted_echo_code_must_be_0(void)
{
	struct icmp6_meta mt = meta();
	struct icmp_pkt p;
	size_t len = build_error(1, 0, 0, 58, NULL, 0, 128, 1, NULL);

	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);
	len = build_error(3, 0, 0, 58, NULL, 0, 128, 255, NULL);
	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_OTHER);
}

/* ---- icmp6_set_ident ---- */

/* Ident in bytes 4-5, checksum zeroed (the raw socket computes it), all
 * else kept. */
static void set_ident6(void)
{
	uint8_t m[80], orig[sizeof(m)];

	for (size_t len = 8; len <= sizeof(m); len++) {
		for (size_t i = 0; i < len; i++)
			m[i] = (uint8_t)(i * 29 + len);
		m[0] = 128;
		m[1] = 0;
		memcpy(orig, m, len);
		icmp6_set_ident(m, len, 0xa55a);
		CHECK_EQ(m[4], 0xa5);
		CHECK_EQ(m[5], 0x5a);
		CHECK_EQ(m[2], 0);
		CHECK_EQ(m[3], 0);
		CHECK(memcmp(m, orig, 2) == 0);
		CHECK(memcmp(m + 6, orig + 6, len - 6) == 0);
	}
}

/* ---- icmp6_error_verdict ---- */

static void verdict(uint8_t type, uint8_t code, int err, bool hard)
{
	struct icmp_verdict v;

	memset(&v, 0, sizeof(v));
	v.err = -1;
	v.hard = !hard;
	CHECK(icmp6_error_verdict(type, code, 0x89abcdef, &v));
	CHECK_EQ(v.err, err);
	CHECK_EQ(v.hard, hard);
	CHECK_EQ(v.info, 0x89abcdef);
}

/* The reference's ICMPv6 table (measured), which is icmpv6_err_convert()
 * and tab_unreach[] of net/ipv6/icmp.c. */
static void verdict_table(void)
{
	/* Destination Unreachable */
	verdict(1, 0, ENETUNREACH, false);
	verdict(1, 1, EACCES, true);
	verdict(1, 2, EHOSTUNREACH, false);
	verdict(1, 3, EHOSTUNREACH, false);
	verdict(1, 4, ECONNREFUSED, true);
	verdict(1, 5, EACCES, true);
	verdict(1, 6, EACCES, true);
	verdict(1, 7, EPROTO, true);
	verdict(1, 8, EPROTO, true);
	for (int c = 9; c < 256; c++)
		verdict(1, (uint8_t)c, EPROTO, true);
	/* Packet Too Big, Time Exceeded, Parameter Problem: any code */
	for (int c = 0; c <= 8; c++) {
		verdict(2, (uint8_t)c, EMSGSIZE, false);
		verdict(3, (uint8_t)c, EHOSTUNREACH, false);
		verdict(4, (uint8_t)c, EPROTO, true);
	}
	verdict(2, 255, EMSGSIZE, false);
	verdict(3, 255, EHOSTUNREACH, false);
	verdict(4, 255, EPROTO, true);
}

/* icmpv6_err_convert() starts from EPROTO, not fatal: an error type it
 * does not know (0, 5..127) is a soft EPROTO. */
static void verdict_unknown_error_types(void)
{
	verdict(0, 0, EPROTO, false);
	for (int t = 5; t < 128; t++) {
		verdict((uint8_t)t, 0, EPROTO, false);
		verdict((uint8_t)t, 4, EPROTO, false);
	}
}

static void verdict_informational_false(void)
{
	for (int t = 128; t < 256; t++) {
		struct icmp_verdict v;

		CHECK(!icmp6_error_verdict((uint8_t)t, 0, 1280, &v));
	}
}

/* ee_info is bytes 4..7 as they are: the MTU of a Packet Too Big (also
 * under IPV6_PMTUDISC_DONT, which the verdict does not take), the
 * pointer of a Parameter Problem, zero or junk for the rest. */
static void verdict_info_raw(void)
{
	static const uint32_t vals[] = { 0, 1, 1280, 1500, 65535, 65536,
					 0x80000000u, 0xffffffffu };
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		for (int t = 0; t < 128; t += 1) {
			struct icmp_verdict v;

			memset(&v, 0, sizeof(v));
			CHECK(icmp6_error_verdict((uint8_t)t, 0, vals[i], &v));
			CHECK_EQ(v.info, vals[i]);
		}
	}
}

/* The parser's info and the verdict together, for a Packet Too Big. */
static void parse_then_verdict(void)
{
	struct icmp6_meta mt = meta();
	struct icmp_verdict v;
	struct icmp_pkt p;
	size_t len = build_error(2, 0, 1400, 58, NULL, 0, 128, 0, NULL);

	CHECK_EQ(parse(buf, len, &mt, &p), ICMP_PARSE_OK);
	CHECK_EQ(p.kind, ICMP_K_ERROR);
	CHECK(icmp6_error_verdict(p.type, p.code, p.info, &v));
	CHECK_EQ(v.err, EMSGSIZE);
	CHECK(!v.hard);
	CHECK_EQ(v.info, 1400);
}

int main(void)
{
	TEST(checksum_by_hand);
	TEST(echo_reply);
	TEST(ext_echo_reply);
	TEST(reply_any_code);
	TEST(wrong_checksum);
	TEST(too_short);
	TEST(meta_not_ipv6);
	TEST(informational_other);
	TEST(errors_quote_request);
	TEST(unknown_error_types_quote);
	TEST(minimal_quote);
	TEST(exthdrs_skipped);
	TEST(later_fragment_not_ours);
	TEST(no_next_header_not_ours);
	TEST(quote_not_echo_request);
	TEST(quote_other_protocol);
	TEST(quote_ipv4_datagram);
	TEST(kernel_quoted_version_not_checked);
	TEST(truncated_quotes);
	TEST(hostile_exthdrs);
	TEST(redirect_not_ours);
	TEST(kernel_quoted_echo_code_must_be_0);
	TEST(set_ident6);
	TEST(verdict_table);
	TEST(verdict_unknown_error_types);
	TEST(verdict_informational_false);
	TEST(verdict_info_raw);
	TEST(parse_then_verdict);
	return CHECK_DONE();
}
