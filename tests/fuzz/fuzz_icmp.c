/* SPDX-License-Identifier: ISC */
/*
 * fuzz_icmp - libFuzzer target for the packet parsers: icmp4_parse() on
 * whatever a raw ICMP socket could deliver, with checks of what it
 * promises about a datagram it accepts, then the daemon's use of the
 * result (the socket lookup) and the sender-side rewrite.  The same input
 * also goes to icmp6_parse() as a raw ICMPv6 socket would deliver it (no
 * IPv6 header; addresses beside), and the result to icmp6_error_verdict().
 *
 * Seeds: tests/fuzz/corpus/fuzz_icmp/ (IPv4 datagrams, ICMPv6 messages,
 * and 34-byte-prefixed ICMPv6 messages, see parse6()).  Run with
 * a scratch directory first, so that the seeds stay as they are:
 *   build/fuzz/fuzz_icmp -max_total_time=60 NEW tests/fuzz/corpus/fuzz_icmp
 */
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/icmp.h"
#include "engine/icmperr.h"
#include "engine/psock.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t copy[65536 + 8];

static int f_addr_type(void *ctx, const struct ps_addr *a, uint32_t ifindex)
{
	(void)ctx;
	(void)a;
	(void)ifindex;
	return PS_RTN_LOCAL;
}

static int f_route(void *ctx, const struct ps_addr *dst, uint32_t ifindex,
		   unsigned flags, struct ps_addr *src)
{
	(void)ctx;
	(void)ifindex;
	(void)flags;
	if (ps_addr_is_any(src))
		*src = *dst;
	return 0;
}

/* IPv6: every device exists, every address is ours. */
static int f_dev_name(void *ctx, uint32_t ifindex, char *buf)
{
	(void)ctx;
	(void)ifindex;
	strcpy(buf, "fz0");
	return 0;
}

static bool f_local6(void *ctx, const struct ps_addr *a, uint32_t ifindex,
		     bool strict)
{
	(void)ctx;
	(void)a;
	(void)ifindex;
	(void)strict;
	return true;
}

static const struct ps_env env = {
	.addr_type = f_addr_type,
	.route = f_route,
	.dev_name = f_dev_name,
	.local6 = f_local6,
	.default_ttl = 64,
	.default_hoplimit = 64,
};

static void check_parsed(const uint8_t *pkt, size_t len,
			 const struct icmp_pkt *p)
{
	const uint8_t *end = pkt + len;

	if (p->icmp < pkt + 20 || p->icmplen < ICMP_HDR_LEN ||
	    p->icmplen > (size_t)(end - p->icmp))
		abort();
	if (p->opts != pkt + 20 || p->opts + p->optlen != p->icmp ||
	    p->optlen > 40 || p->optlen % 4)
		abort();
	if (icmp_checksum(p->icmp, p->icmplen) != 0)
		abort();
	if (p->type != p->icmp[0] || p->code != p->icmp[1])
		abort();
	if (p->src.family != AF_INET || p->dst.family != AF_INET ||
	    memcmp(p->src.a, pkt + 12, 4) || memcmp(p->dst.a, pkt + 16, 4))
		abort();
	switch (p->kind) {
	case ICMP_K_REPLY:
		if (p->type != 0 && p->type != 43)
			abort();
		/* RFC 8335: an Extended Echo Reply matches by its 8-bit
		 * sequence number (the high byte of the field) */
		if (p->ident != (p->icmp[4] << 8 | p->icmp[5]) ||
		    p->seq != icmp_echo_seq(p->icmp) ||
		    p->match != (p->type == 43 ? ICMP_M_PROBE_REPLY
					       : ICMP_M_ECHO))
			abort();
		break;
	case ICMP_K_ERROR:
		/* 20-byte quoted header and 8 bytes of the request, at least */
		if (p->icmplen < ICMP_HDR_LEN + 20 + ICMP_HDR_LEN)
			abort();
		if (p->q_dst.family != AF_INET || p->q_src.family != AF_INET)
			abort();
		/* the quoted request whole, and what it was */
		if (p->seq != icmp_echo_seq(p->q_icmp) ||
		    p->match != (p->q_icmp[0] == 42 ? ICMP_M_PROBE
						    : ICMP_M_ECHO))
			abort();
		break;
	case ICMP_K_OTHER:
		break;
	default:
		abort();
	}
}

/* Deliver p as the daemon would: a socket that sent what it answers. */
static void lookup(const struct icmp_pkt *p)
{
	static struct pstab *tab;
	struct psock *sk = NULL;
	struct ps_sendinfo info;
	uint8_t sa[sizeof(struct sockaddr_in)], req[8] = { 8, 0 };
	struct sockaddr_in sin;
	const struct ps_addr *peer = p->kind == ICMP_K_ERROR ? &p->q_dst
							      : &p->src;

	if (!tab && !(tab = pstab_new(0)))
		abort();
	if (pstab_open(tab, AF_INET, SOCK_DGRAM, IPPROTO_ICMP, 0, &sk))
		abort();
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(p->ident);
	memcpy(sa, &sin, sizeof(sa));
	/* Bind the ident the packet names (0: any), then "send" its seq. */
	if (ps_bind(tab, sk, &env, sa, sizeof(sa)) == 0) {
		memcpy(&sin.sin_addr, peer->a, 4);
		memcpy(sa, &sin, sizeof(sa));
		req[6] = (uint8_t)(p->seq >> 8);
		req[7] = (uint8_t)p->seq;
		/* of the kind it answers: a PROBE for an Extended Echo
		 * Reply or an error quoting one */
		req[0] = p->match == ICMP_M_ECHO ? 8 : 42;
		if (ps_send_prepare(tab, sk, &env, 0, sa, sizeof(sa), NULL, 0,
				    req, sizeof(req), &info) != 0)
			abort();	/* an Echo Request or PROBE: must pass */
		if (icmp_checksum(req, sizeof(req)) != 0)
			abort();
		ps_sent(sk, &info, 0);
		/* It answers what this socket sent: it must find it. */
		if ((p->kind == ICMP_K_REPLY || p->kind == ICMP_K_ERROR) &&
		    p->ident != 0 && pstab_lookup(tab, p, 0) != sk)
			abort();
		pstab_lookup(tab, p, 1);
		/* The other kind (an Echo Reply to a PROBE, an Extended
		 * Echo Reply to an Echo Request) it must not find. */
		if (p->kind == ICMP_K_REPLY || p->kind == ICMP_K_ERROR) {
			struct icmp_pkt q = *p;

			q.match = p->match == ICMP_M_ECHO ? ICMP_M_PROBE_REPLY
							  : ICMP_M_ECHO;
			if (pstab_lookup(tab, &q, 0) != NULL)
				abort();
		}
	}
	pstab_close(tab, sk);
	if (pstab_sockets(tab) != 0 || pstab_idents(tab) != 0)
		abort();
}

static void parse_one(const uint8_t *pkt, size_t size)
{
	struct icmp_pkt p;

	switch (icmp4_parse(pkt, size, &p)) {
	case ICMP_PARSE_OK:
		check_parsed(pkt, size, &p);
		lookup(&p);
		break;
	case ICMP_PARSE_SHORT:
	case ICMP_PARSE_CSUM:
	case ICMP_PARSE_NOT_ICMP:
		break;
	default:
		abort();
	}
}

/*
 * The input made consistent where a fuzzer rarely gets it right by
 * chance: IPv4, protocol ICMP, tot_len = size, a correct ICMP checksum.
 * This reaches the reply and error paths behind the checksum.
 */
static void fix_up(uint8_t *pkt, size_t size)
{
	size_t ihl;
	uint16_t sum;

	if (size < 20 + ICMP_HDR_LEN || size > 0xffff)
		return;
	pkt[0] = (uint8_t)(0x40 | (pkt[0] & 0x0f));
	ihl = (size_t)(pkt[0] & 0x0f) * 4;
	if (ihl < 20 || ihl + ICMP_HDR_LEN > size)
		return;
	pkt[2] = (uint8_t)(size >> 8);
	pkt[3] = (uint8_t)size;
	pkt[9] = IPPROTO_ICMP;
	pkt[ihl + 2] = pkt[ihl + 3] = 0;
	sum = icmp_checksum(pkt + ihl, size - ihl);
	memcpy(pkt + ihl + 2, &sum, 2);
}

/* ---- IPv6 ---- */

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)get16(p) << 16 | get16(p + 2);
}

/* The RFC 8200 8.1 pseudo-header checksum, this file's own. */
static uint16_t sum6(const struct icmp6_meta *m, const uint8_t *msg,
		     size_t len)
{
	uint64_t acc = (uint64_t)(len >> 16) + (len & 0xffff) + 58;

	for (int i = 0; i < 16; i += 2)
		acc += get16(m->src.a + i) + get16(m->dst.a + i);
	for (size_t i = 0; i + 1 < len; i += 2)
		acc += get16(msg + i);
	if (len & 1)
		acc += (uint32_t)msg[len - 1] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)~acc;
}

static void fix_sum6(uint8_t *msg, size_t len, const struct icmp6_meta *m)
{
	uint16_t v;

	if (len < ICMP_HDR_LEN)
		return;
	msg[2] = msg[3] = 0;
	v = sum6(m, msg, len);
	msg[2] = (uint8_t)(v >> 8);
	msg[3] = (uint8_t)v;
}

/* What icmpv6_err_convert() can answer. */
static void check_verdict6(uint8_t type, uint8_t code, uint32_t info)
{
	struct icmp_verdict v;
	bool r;

	memset(&v, 0, sizeof(v));
	v.err = -1;
	r = icmp6_error_verdict(type, code, info, &v);
	if (r != (type < 128))
		abort();
	if (!r)
		return;
	if (v.info != info)
		abort();
	switch (v.err) {
	case ENETUNREACH: case EACCES: case EHOSTUNREACH: case ECONNREFUSED:
	case EPROTO: case EMSGSIZE:
		break;
	default:
		abort();
	}
	if (type == 2 && (v.err != EMSGSIZE || v.hard))
		abort();
	if (type == 3 && (v.err != EHOSTUNREACH || v.hard))
		abort();
	if (type == 4 && (v.err != EPROTO || !v.hard))
		abort();
	if ((type == 0 || type > 4) && (v.err != EPROTO || v.hard))
		abort();
}

static void check_parsed6(const uint8_t *msg, size_t len,
			  const struct icmp6_meta *m, const struct icmp_pkt *p)
{
	const uint8_t *end = msg + len;

	if (len < ICMP_HDR_LEN || p->icmp != msg || p->icmplen != len)
		abort();
	if (sum6(m, msg, len) != 0)
		abort();	/* accepted: the pseudo-header sum verifies */
	if (!ps_addr_eq(&p->src, &m->src) || !ps_addr_eq(&p->dst, &m->dst) ||
	    p->src.family != AF_INET6 || p->dst.family != AF_INET6)
		abort();
	if (p->ttl != m->hoplimit || p->tos != m->tclass ||
	    p->flowinfo != m->flowinfo)
		abort();
	if (p->type != msg[0] || p->code != msg[1] || p->opts || p->optlen)
		abort();
	switch (p->kind) {
	case ICMP_K_REPLY:
		if (p->type != 129 && p->type != 161)
			abort();
		if (p->ident != get16(msg + 4) || p->seq != icmp_echo_seq(msg) ||
		    p->match != (p->type == 161 ? ICMP_M_PROBE_REPLY
						: ICMP_M_ECHO))
			abort();
		break;
	case ICMP_K_ERROR:
		/* type < 128, 40 bytes of IPv6, an Echo Request after them */
		if (p->type >= 128 || len < 8 + 40 + ICMP_HDR_LEN)
			abort();
		if (p->q_icmp < msg + 48 || p->q_icmp + ICMP_HDR_LEN > end ||
		    p->q_icmp + p->q_icmplen != end || p->q_icmp[0] != 128)
			abort();
		if (p->q_src.family != AF_INET6 || p->q_dst.family != AF_INET6 ||
		    memcmp(p->q_src.a, msg + 16, 16) ||
		    memcmp(p->q_dst.a, msg + 32, 16))
			abort();
		if (p->ident != get16(p->q_icmp + 4) ||
		    p->seq != icmp_echo_seq(p->q_icmp) ||
		    p->match != ICMP_M_ECHO || p->info != get32(msg + 4))
			abort();
		break;
	case ICMP_K_OTHER:
		if (p->q_icmp)
			abort();
		break;
	default:
		abort();
	}
	check_verdict6(p->type, p->code, p->info);
}

/* Deliver p to an IPv6 socket that sent what it answers. */
static void lookup6(const struct icmp_pkt *p)
{
	static struct pstab *tab;
	struct psock *sk = NULL;
	struct ps_sendinfo info;
	uint8_t sa[sizeof(struct sockaddr_in6)], req[8] = { 128, 0 };
	struct sockaddr_in6 s6;
	const struct ps_addr *peer = p->kind == ICMP_K_ERROR ? &p->q_dst
							      : &p->src;
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					    0xff, 0xff };
	int rc;

	if (!tab && !(tab = pstab_new(0)))
		abort();
	if (pstab_open(tab, AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6, 0, &sk))
		abort();
	memset(&s6, 0, sizeof(s6));
	s6.sin6_family = AF_INET6;
	s6.sin6_port = htons(p->ident);
	memcpy(sa, &s6, sizeof(sa));
	if (ps_bind(tab, sk, &env, sa, sizeof(sa)) == 0) {
		memcpy(&s6.sin6_addr, peer->a, 16);
		s6.sin6_scope_id = ps_addr_needs_scope(peer) ? 1 : 0;
		memcpy(sa, &s6, sizeof(sa));
		req[6] = (uint8_t)(p->seq >> 8);
		req[7] = (uint8_t)p->seq;
		req[2] = req[3] = 0x5a;
		req[0] = p->match == ICMP_M_ECHO ? 128 : 160;
		rc = ps_send_prepare(tab, sk, &env, 0, sa, sizeof(sa), NULL, 0,
				     req, sizeof(req), &info);
		if (memcmp(peer->a, mapped, sizeof(mapped)) == 0) {
			if (rc != -EINVAL)
				abort();	/* never to a v4-mapped address */
		} else if (ps_addr_is_any(peer)) {
			if (rc == 0)
				abort();	/* no route to :: */
		} else {
			if (rc != 0)
				abort();	/* a plain Echo Request: passes */
			if (req[2] || req[3] || get16(req + 4) != ps_ident(sk))
				abort();
			ps_sent(sk, &info, 0);
			if ((p->kind == ICMP_K_REPLY ||
			     p->kind == ICMP_K_ERROR) &&
			    p->ident != 0 && pstab_lookup(tab, p, 0) != sk)
				abort();
			pstab_lookup(tab, p, 1);
		}
	}
	pstab_close(tab, sk);
	if (pstab_sockets(tab) != 0 || pstab_idents(tab) != 0)
		abort();
}

static void parse6_one(const uint8_t *msg, size_t len,
		       const struct icmp6_meta *m)
{
	struct icmp_pkt p;

	switch (icmp6_parse(msg, len, m, &p)) {
	case ICMP_PARSE_OK:
		check_parsed6(msg, len, m, &p);
		lookup6(&p);
		break;
	case ICMP_PARSE_SHORT:
		if (len >= ICMP_HDR_LEN)
			abort();	/* the metadata below is IPv6 */
		break;
	case ICMP_PARSE_CSUM:
		if (sum6(m, msg, len) == 0)
			abort();
		break;
	default:
		abort();
	}
}

/* The message as given, then with a checksum that verifies. */
static void parse6_both(const uint8_t *data, size_t size,
			const struct icmp6_meta *m)
{
	uint8_t *msg = malloc(size ? size : 1);

	if (!msg)
		abort();
	memcpy(msg, data, size);
	parse6_one(msg, size, m);
	if (size >= ICMP_HDR_LEN) {
		fix_sum6(msg, size, m);
		parse6_one(msg, size, m);
	}
	free(msg);
}

/*
 * The input as an ICMPv6 message: once from a fixed router to us, and,
 * if it is long enough, once more with the metadata taken from its
 * first 34 bytes (source, destination, hop limit, traffic class) and the
 * message the rest -- so that the fuzzer controls the addresses too.
 */
static void parse6(const uint8_t *data, size_t size)
{
	struct icmp6_meta m;

	memset(&m, 0, sizeof(m));
	m.src.family = m.dst.family = AF_INET6;
	m.src.a[0] = m.dst.a[0] = 0xfd;
	m.src.a[15] = 9;
	m.dst.a[15] = 1;
	m.hoplimit = 64;
	parse6_both(data, size, &m);
	if (size >= 34) {
		memcpy(m.src.a, data, 16);
		memcpy(m.dst.a, data + 16, 16);
		m.hoplimit = data[32];
		m.tclass = data[33];
		m.flowinfo = (uint32_t)data[33] << 20;
		parse6_both(data + 34, size - 34, &m);
	}
	/* Whatever bytes 0, 1 and 4..7 are, as an error's header. */
	if (size >= ICMP_HDR_LEN)
		check_verdict6(data[0], data[1], get32(data + 4));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > sizeof(copy) - 8)
		return 0;
	/* An exact-size heap copy, so that ASan sees any over-read. */
	uint8_t *pkt = malloc(size ? size : 1);

	if (!pkt)
		return 0;
	memcpy(pkt, data, size);
	parse_one(pkt, size);
	fix_up(pkt, size);
	parse_one(pkt, size);

	/* The sender side: any message of 8+ bytes gets a valid sum. */
	if (size >= ICMP_HDR_LEN) {
		memcpy(copy, data, size);
		icmp4_set_ident(copy, size, (uint16_t)(size * 2654435761u));
		if (icmp_checksum(copy, size) != 0 ||
		    memcmp(copy + 6, data + 6, size - 6) != 0)
			abort();
	}
	free(pkt);

	/* The sender side, IPv6: ident in place, checksum left at 0. */
	if (size >= ICMP_HDR_LEN) {
		memcpy(copy, data, size);
		icmp6_set_ident(copy, size, (uint16_t)(size * 40503u));
		if (copy[2] || copy[3] ||
		    get16(copy + 4) != (uint16_t)(size * 40503u) ||
		    memcmp(copy + 6, data + 6, size - 6) != 0 ||
		    memcmp(copy, data, 2) != 0)
			abort();
	}
	parse6(data, size);
	return 0;
}
