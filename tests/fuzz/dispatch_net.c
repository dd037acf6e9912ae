/* SPDX-License-Identifier: ISC */
/*
 * dispatch_net - the network of fuzz_dispatch: packets for the daemon's
 * raw sockets.  An answer is built from the request the daemon really
 * sent (fake_last_sent()), so that it matches a socket's identifier,
 * sequence number and destination and the delivery paths run: an Echo
 * Reply, or an ICMP error quoting the request, each perhaps with a byte
 * changed afterwards (bad sums, other types, other quotes).
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/icmp.h"
#include "fake_host.h"
#include "fuzz_dispatch.h"

#define NET_MAX 3000

/* ICMPv4 errors: type, codes. */
static const uint8_t err4[][2] = {
	{ 3, 16 }, { 11, 2 }, { 12, 2 }, { 4, 1 }, { 5, 4 },
};
/* ICMPv6 errors: type, codes. */
static const uint8_t err6[][2] = {
	{ 1, 8 }, { 2, 1 }, { 3, 2 }, { 4, 3 },
};

uint16_t net_csum6(const uint8_t *src, const uint8_t *dst, const uint8_t *msg,
		   size_t len)
{
	static uint8_t buf[40 + NET_MAX + 8];
	uint32_t l = htonl((uint32_t)len);

	if (len > NET_MAX + 8)
		len = NET_MAX + 8;
	memcpy(buf, src, 16);
	memcpy(buf + 16, dst, 16);
	memcpy(buf + 32, &l, 4);
	memset(buf + 36, 0, 3);
	buf[39] = IPPROTO_ICMPV6;
	memcpy(buf + 40, msg, len);
	return icmp_checksum(buf, 40 + len);
}

static void csum4(uint8_t *icmp, size_t len)
{
	uint16_t s;

	icmp[2] = icmp[3] = 0;
	s = icmp_checksum(icmp, len);
	memcpy(icmp + 2, &s, 2);
}

/* An IPv4 header (with optlen bytes of options) for payload bytes. */
static size_t ip4(uint8_t *p, const uint8_t *src, const uint8_t *dst,
		  struct fin *in, size_t payload)
{
	uint8_t o = fin_u8(in);
	size_t optlen = (o & 3) * 4, hl = 20 + optlen;
	uint16_t tot = htons((uint16_t)(hl + payload)), s;

	memset(p, 0, hl);
	p[0] = (uint8_t)(0x40 | hl / 4);
	p[1] = o & 0xfc;	/* TOS */
	memcpy(p + 2, &tot, 2);
	p[8] = (uint8_t)(fin_u8(in) | 1);	/* TTL */
	p[9] = IPPROTO_ICMP;
	memcpy(p + 12, src, 4);
	memcpy(p + 16, dst, 4);
	if (optlen)	/* Record Route, or NOPs and what the input says */
		fin_bytes(in, p + 20, optlen);
	if (optlen && !(o & 0x10))
		memcpy(p + 20, "\x07\x07\x04\0\0\0\0\x01", optlen < 8 ? 4 : 8);
	s = icmp_checksum(p, hl);
	memcpy(p + 10, &s, 2);
	return hl;
}

/* Who answers: the destination reached (0.0.0.0 is this host), or any
 * host for a group. */
static void replier(const struct fake_sent *fs, uint8_t *a)
{
	memcpy(a, fs->info.reach.a, 16);
	if (fs->info.any_src) {
		if (fs->info.dst.family == AF_INET6)
			memcpy(a, "\x20\x01\x0d\xb8\0\x01\0\0\0\0\0\0\0\0\0\x07", 16);
		else
			memcpy(a, "\x0a\0\0\x07", 4);
	}
}

/* Where the answer goes: the request's source, or this host's. */
static void requester(const struct fake_sent *fs, uint8_t *a)
{
	if (fs->info.src.family)
		memcpy(a, fs->info.src.a, 16);
	else if (fs->info.dst.family == AF_INET6)
		memcpy(a, "\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01", 16);
	else
		memcpy(a, "\x7f\0\0\x01", 4);
}

/* The reply to the request: type 0 or 43 (129, 161), the rest kept. */
static size_t echo_reply(const struct fake_sent *fs, uint8_t *icmp)
{
	size_t len = fs->len < NET_MAX - 128 ? fs->len : NET_MAX - 128;

	memcpy(icmp, fs->msg, len);
	if (len < ICMP_HDR_LEN)
		return len;
	icmp[0] = fs->info.dst.family == AF_INET6 ? (icmp[0] == 160 ? 161 : 129)
						  : (icmp[0] == 42 ? 43 : 0);
	icmp[1] = 0;
	return len;
}

/* An error about the request: header, then the quoted datagram. */
static size_t error4(const struct fake_sent *fs, struct fin *in,
		     uint8_t *icmp)
{
	uint8_t k = fin_u8(in), req[16];
	uint32_t info = fin_u8(in) & 1 ? htonl(fin_u16(in)) : 0;
	size_t qlen = fs->len < 64 || (k & 0x80) ? fs->len : 8, hl;

	if (qlen > NET_MAX - 128)
		qlen = NET_MAX - 128;
	icmp[0] = err4[k % 5][0];
	icmp[1] = (uint8_t)(fin_u8(in) % err4[k % 5][1]);
	memcpy(icmp + 4, &info, 4);
	requester(fs, req);
	hl = ip4(icmp + 8, req, fs->info.reach.a, in, fs->len);
	memcpy(icmp + 8 + hl, fs->msg, qlen);
	return 8 + hl + qlen;
}

static size_t error6(const struct fake_sent *fs, struct fin *in,
		     uint8_t *icmp)
{
	uint8_t k = fin_u8(in), *ip = icmp + 8;
	uint32_t info = htonl(fin_u8(in) & 1 ? fin_u16(in) : 1280);
	size_t qlen = fs->len < 64 || (k & 0x80) ? fs->len : 8, ext = 0;
	uint16_t plen;

	if (qlen > NET_MAX - 128)
		qlen = NET_MAX - 128;
	icmp[0] = err6[k % 4][0];
	icmp[1] = (uint8_t)(fin_u8(in) % err6[k % 4][1]);
	memcpy(icmp + 4, &info, 4);
	memset(ip, 0, 40);
	ip[0] = 0x60;
	ip[6] = IPPROTO_ICMPV6;
	ip[7] = 64;
	requester(fs, ip + 8);
	memcpy(ip + 24, fs->info.reach.a, 16);
	if (k & 0x40) {		/* a hop-by-hop header first */
		ip[6] = 0;
		memset(ip + 40, 0, 8);
		ip[40] = IPPROTO_ICMPV6;
		ip[42] = 1;	/* PadN */
		ip[43] = 4;
		ext = 8;
	}
	plen = htons((uint16_t)(ext + fs->len));
	memcpy(ip + 4, &plen, 2);
	memcpy(ip + 40 + ext, fs->msg, qlen);
	return 8 + 40 + ext + qlen;
}

/* Change one byte, if the input says so (after the sums: bad ones). */
static void mutate(struct fin *in, uint8_t *p, size_t len)
{
	uint8_t m = fin_u8(in);
	size_t at;

	if (m >= 0x30 || !len)
		return;
	at = fin_u16(in) % len;
	p[at] ^= (uint8_t)(fin_u8(in) | 1);
}

static void send6(struct fin *in, const struct fake_sent *fs, uint8_t *icmp,
		  size_t len, uint32_t ifindex)
{
	struct fake_meta m;
	uint16_t s;

	memset(&m, 0, sizeof(m));
	m.ifindex = ifindex;
	m.m6.src.family = m.m6.dst.family = AF_INET6;
	replier(fs, m.m6.src.a);
	requester(fs, m.m6.dst.a);
	m.m6.src.scope = m.m6.dst.scope = fs->info.dst.scope;
	m.m6.hoplimit = (uint8_t)(fin_u8(in) | 1);
	m.m6.tclass = fin_u8(in);
	icmp[2] = icmp[3] = 0;
	s = net_csum6(m.m6.src.a, m.m6.dst.a, icmp, len);
	memcpy(icmp + 2, &s, 2);
	mutate(in, icmp, len);
	fake_inject(AF_INET6, &m, icmp, len);
}

static void send4(struct fin *in, const struct fake_sent *fs, uint8_t *icmp,
		  size_t len, uint32_t ifindex)
{
	static uint8_t pkt[NET_MAX + 64];
	struct fake_meta m;
	uint8_t from[16], to[16];
	size_t hl;

	memset(&m, 0, sizeof(m));
	m.ifindex = ifindex;
	csum4(icmp, len);
	replier(fs, from);
	requester(fs, to);
	hl = ip4(pkt, from, to, in, len);
	memcpy(pkt + hl, icmp, len);
	mutate(in, pkt, hl + len);
	fake_inject(AF_INET, &m, pkt, hl + len);
}

void net_answer(struct fin *in, int family)
{
	static uint8_t icmp[NET_MAX];
	struct fake_sent fs;
	uint8_t how = fin_u8(in);
	uint32_t ifindex = (how >> 4) % 4;
	size_t len;

	if (!fake_last_sent(family, &fs))
		return;
	if (how % 4 == 0)
		len = family == AF_INET6 ? error6(&fs, in, icmp)
					 : error4(&fs, in, icmp);
	else
		len = echo_reply(&fs, icmp);
	if (len < ICMP_HDR_LEN)
		return;
	if (family == AF_INET6)
		send6(in, &fs, icmp, len, ifindex);
	else
		send4(in, &fs, icmp, len, ifindex);
}

/* The answer to a send, at once, as loopback gives it. */
void net_loopback(int family)
{
	/* No IP options, TTL (hop limit) 64, class 0, no change. */
	static const uint8_t plain[] = { 0, 64, 0xff, 0xff };
	static uint8_t icmp[NET_MAX];
	struct fin in = { plain, sizeof(plain), 0 };
	struct fake_sent fs;
	size_t len;

	if (!fake_last_sent(family, &fs))
		return;
	len = echo_reply(&fs, icmp);
	if (len < ICMP_HDR_LEN)
		return;
	if (family == AF_INET6) {
		in.off = 1;	/* hop limit 64, class 0xff: no */
		send6(&in, &fs, icmp, len, 1);
	} else {
		send4(&in, &fs, icmp, len, 1);
	}
}

/* Any bytes, with addresses for IPv6 from the input. */
void net_forge(struct fin *in)
{
	static uint8_t pkt[512];
	struct fake_meta m;
	uint8_t f = fin_u8(in);
	size_t len = fin_u8(in) * 2u;
	uint16_t s;

	memset(&m, 0, sizeof(m));
	m.ifindex = f >> 6;
	len = fin_bytes(in, pkt, len);
	if (f & 1) {
		m.m6.src.family = m.m6.dst.family = AF_INET6;
		fin_bytes(in, m.m6.src.a, 16);
		m.m6.dst.a[15] = 1;	/* ::1 */
		if (f & 2 && len >= 4) {	/* a right sum */
			pkt[2] = pkt[3] = 0;
			s = net_csum6(m.m6.src.a, m.m6.dst.a, pkt, len);

			memcpy(pkt + 2, &s, 2);
		}
		fake_inject(AF_INET6, &m, pkt, len);
		return;
	}
	fake_inject(AF_INET, &m, pkt, len);
}
