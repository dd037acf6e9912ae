/* SPDX-License-Identifier: ISC */
#include "engine/icmp.h"

#include <netinet/in.h>
#include <string.h>

/* ICMP types, named here so the engine does not depend on libc's headers. */
enum {
	T_ECHOREPLY = 0, T_DEST_UNREACH = 3, T_SOURCE_QUENCH = 4,
	T_REDIRECT = 5, T_ECHO = 8, T_TIME_EXCEEDED = 11, T_PARAMPROB = 12,
	T_EXT_ECHO = 42, T_EXT_ECHOREPLY = 43,
	T6_ECHO = 128, T6_ECHOREPLY = 129, T6_EXT_ECHO = 160,
	T6_EXT_ECHOREPLY = 161,
};

/* IPv6 next-header values that ipv6_skip_exthdr() walks over. */
enum {
	NH_HOP = 0, NH_ROUTING = 43, NH_FRAGMENT = 44, NH_AUTH = 51,
	NH_NONE = 59, NH_DEST = 60, NH_ICMPV6 = 58,
};

uint16_t icmp_checksum(const void *data, size_t len)
{
	const uint8_t *p = data;
	uint32_t sum = 0;

	while (len > 1) {
		sum += (uint32_t)p[0] << 8 | p[1];
		p += 2;
		len -= 2;
	}
	if (len)
		sum += (uint32_t)p[0] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return htons((uint16_t)~sum);
}

int icmp_echo_type_ok(int family, uint8_t type, uint8_t code)
{
	if (code != 0)
		return 0;
	if (family == AF_INET6)
		return type == T6_ECHO || type == T6_EXT_ECHO;
	return type == T_ECHO || type == T_EXT_ECHO;
}

void icmp4_set_ident(uint8_t *msg, size_t len, uint16_t ident)
{
	uint16_t be = htons(ident), sum;

	memcpy(msg + 4, &be, 2);
	msg[2] = msg[3] = 0;
	sum = icmp_checksum(msg, len);
	memcpy(msg + 2, &sum, 2);
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint16_t icmp_echo_seq(const uint8_t *msg)
{
	return get16(msg + 6);
}

bool icmp_is_probe(uint8_t type)
{
	return type == T_EXT_ECHO || type == T_EXT_ECHOREPLY ||
	       type == T6_EXT_ECHO || type == T6_EXT_ECHOREPLY;
}

/* A reply repeats only a PROBE's sequence number; a quote is exact. */
static enum icmp_match match_of(uint8_t type, bool reply)
{
	if (!icmp_is_probe(type))
		return ICMP_M_ECHO;
	return reply ? ICMP_M_PROBE_REPLY : ICMP_M_PROBE;
}

void icmp6_set_ident(uint8_t *msg, size_t len, uint16_t ident)
{
	uint16_t be = htons(ident);

	(void)len;
	memcpy(msg + 4, &be, 2);
	msg[2] = msg[3] = 0;
}

static int is_error_type(uint8_t type)
{
	return type == T_DEST_UNREACH || type == T_SOURCE_QUENCH ||
	       type == T_REDIRECT || type == T_TIME_EXCEEDED ||
	       type == T_PARAMPROB;
}

/*
 * An error quotes the offending datagram's IP header and at least its first
 * 8 bytes (RFC 792).  Ours only if that was an ICMP Echo Request.
 */
static void parse_quote(struct icmp_pkt *out)
{
	const uint8_t *q = out->icmp + ICMP_HDR_LEN;
	size_t qlen = out->icmplen - ICMP_HDR_LEN, ihl;

	if (qlen < 20 || (q[0] >> 4) != 4)
		return;
	ihl = (size_t)(q[0] & 0x0f) * 4;
	if (ihl < 20 || qlen < ihl + ICMP_HDR_LEN || q[9] != IPPROTO_ICMP)
		return;
	/* ping_err(): only what a ping socket may have sent (code 0). */
	if ((q[ihl] != T_ECHO && q[ihl] != T_EXT_ECHO) || q[ihl + 1] != 0)
		return;
	ps_addr_v4(&out->q_src, 0);
	memcpy(out->q_src.a, q + 12, 4);
	ps_addr_v4(&out->q_dst, 0);
	memcpy(out->q_dst.a, q + 16, 4);
	out->ident = get16(q + ihl + 4);
	out->seq = icmp_echo_seq(q + ihl);
	out->match = match_of(q[ihl], false);
	out->q_icmp = q + ihl;
	out->q_icmplen = qlen - ihl;
	memcpy(&out->info, out->icmp + 4, 4);
	out->info = ntohl(out->info);
	out->kind = ICMP_K_ERROR;
}

enum icmp_parse_result icmp4_parse(const uint8_t *pkt, size_t len,
				   struct icmp_pkt *out)
{
	size_t ihl, tot;

	memset(out, 0, sizeof(*out));
	if (len < 20 || (pkt[0] >> 4) != 4)
		return ICMP_PARSE_SHORT;
	ihl = (size_t)(pkt[0] & 0x0f) * 4;
	tot = get16(pkt + 2);
	if (ihl < 20 || tot < ihl || tot > len)
		return ICMP_PARSE_SHORT;
	if (pkt[9] != IPPROTO_ICMP)
		return ICMP_PARSE_NOT_ICMP;
	out->tos = pkt[1];
	out->ttl = pkt[8];
	ps_addr_v4(&out->src, 0);
	memcpy(out->src.a, pkt + 12, 4);
	ps_addr_v4(&out->dst, 0);
	memcpy(out->dst.a, pkt + 16, 4);
	out->opts = pkt + 20;
	out->optlen = ihl - 20;
	out->icmp = pkt + ihl;
	out->icmplen = tot - ihl;
	if (out->icmplen < ICMP_HDR_LEN)
		return ICMP_PARSE_SHORT;
	/* Raw sockets see datagrams before icmp_rcv() checks the sum. */
	if (icmp_checksum(out->icmp, out->icmplen) != 0)
		return ICMP_PARSE_CSUM;
	out->type = out->icmp[0];
	out->code = out->icmp[1];
	if (out->type == T_ECHOREPLY || out->type == T_EXT_ECHOREPLY) {
		out->kind = ICMP_K_REPLY;
		out->ident = get16(out->icmp + 4);
		out->seq = icmp_echo_seq(out->icmp);
		out->match = match_of(out->type, true);
	} else if (is_error_type(out->type)) {
		parse_quote(out);
	}
	return ICMP_PARSE_OK;
}

/* The ICMPv6 checksum over the pseudo-header (RFC 8200 8.1) and msg. */
static uint16_t icmp6_checksum(const struct ps_addr *src,
			       const struct ps_addr *dst, const uint8_t *msg,
			       size_t len)
{
	uint32_t sum = 0;

	for (int i = 0; i < 16; i += 2) {
		sum += (uint32_t)src->a[i] << 8 | src->a[i + 1];
		sum += (uint32_t)dst->a[i] << 8 | dst->a[i + 1];
	}
	sum += (uint32_t)(len >> 16) + (uint32_t)(len & 0xffff);
	sum += NH_ICMPV6;
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)msg[i] << 8 | msg[i + 1];
	if (len & 1)
		sum += (uint32_t)msg[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/*
 * ipv6_skip_exthdr(): the offset of the upper-layer header after the
 * fixed header at q (qlen bytes), and its protocol in *nh; -1 if it runs
 * past the quote or is a later fragment (no upper header there).
 */
static long skip_exthdr(const uint8_t *q, size_t qlen, uint8_t *nh)
{
	size_t off = 40;

	*nh = q[6];
	for (;;) {
		size_t hlen;

		if (*nh != NH_HOP && *nh != NH_ROUTING && *nh != NH_FRAGMENT &&
		    *nh != NH_AUTH && *nh != NH_DEST)
			return (long)off;
		if (off + 8 > qlen)
			return -1;
		if (*nh == NH_FRAGMENT) {
			if (get16(q + off + 2) & ~0x7)
				return -1;	/* not the first fragment */
			hlen = 8;
		} else if (*nh == NH_AUTH) {
			hlen = ((size_t)q[off + 1] + 2) << 2;
		} else {
			hlen = ((size_t)q[off + 1] + 1) << 3;
		}
		*nh = q[off];
		off += hlen;
	}
}

static void parse_quote6(struct icmp_pkt *out)
{
	const uint8_t *q = out->icmp + ICMP_HDR_LEN;
	size_t qlen = out->icmplen - ICMP_HDR_LEN;
	uint8_t nh;
	long off;

	/* icmpv6_notify() reads the quoted next header without looking at
	 * the version. */
	if (qlen < 40)
		return;
	off = skip_exthdr(q, qlen, &nh);
	if (off < 0 || nh != NH_ICMPV6 || qlen < (size_t)off + ICMP_HDR_LEN ||
	    q[off] != T6_ECHO || q[off + 1] != 0)
		return;
	memset(&out->q_src, 0, sizeof(out->q_src));
	out->q_src.family = AF_INET6;
	memcpy(out->q_src.a, q + 8, 16);
	memset(&out->q_dst, 0, sizeof(out->q_dst));
	out->q_dst.family = AF_INET6;
	memcpy(out->q_dst.a, q + 24, 16);
	out->ident = get16(q + off + 4);
	out->seq = icmp_echo_seq(q + off);
	out->match = match_of(q[off], false);
	out->q_icmp = q + off;
	out->q_icmplen = qlen - (size_t)off;
	memcpy(&out->info, out->icmp + 4, 4);
	out->info = ntohl(out->info);
	out->kind = ICMP_K_ERROR;
}

enum icmp_parse_result icmp6_parse(const uint8_t *msg, size_t len,
				   const struct icmp6_meta *m,
				   struct icmp_pkt *out)
{
	memset(out, 0, sizeof(*out));
	if (len < ICMP_HDR_LEN || m->src.family != AF_INET6 ||
	    m->dst.family != AF_INET6)
		return ICMP_PARSE_SHORT;
	if (icmp6_checksum(&m->src, &m->dst, msg, len) != 0)
		return ICMP_PARSE_CSUM;
	out->src = m->src;
	out->dst = m->dst;
	out->ttl = m->hoplimit;
	out->tos = m->tclass;
	out->flowinfo = m->flowinfo;
	out->icmp = msg;
	out->icmplen = len;
	out->type = msg[0];
	out->code = msg[1];
	if (out->type == T6_ECHOREPLY || out->type == T6_EXT_ECHOREPLY) {
		out->kind = ICMP_K_REPLY;
		out->ident = get16(msg + 4);
		out->seq = icmp_echo_seq(msg);
		out->match = match_of(out->type, true);
	} else if (out->type < 128) {
		parse_quote6(out);	/* every type below 128 is an error */
	}
	return ICMP_PARSE_OK;
}
