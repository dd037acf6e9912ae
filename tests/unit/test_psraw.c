/* SPDX-License-Identifier: ISC */
/*
 * test_psraw - the raw-socket emulation of the engine (src/engine/psraw.c)
 * and the IPv4 header the library rebuilds (src/engine/rawhdr.c), on byte
 * arrays, with the kernel's raw socket as the reference where the
 * emulation follows it (measured on Linux 6.18 as root in a namespace:
 * getsockname() port 1 / 58, rebinding allowed, IPV6_CHECKSUM 2 by
 * default, odd offsets EINVAL, at IPPROTO_IPV6 EINVAL, ICMP_FILTER cut
 * to 4 bytes, ENOPROTOOPT for the other family's filter level).
 *
 * The fake host: 127.0.0.0/8 and ::1 are ours, 224.0.0.0/4 is multicast,
 * everything else a remote unicast address; device 1 is lo.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/icmp.h"
#include "engine/psock.h"
#include "engine/psraw.h"
#include "engine/rawhdr.h"
#include "wire/wire.h"
#include "check.h"

#define RAW_FILTER 1	/* ICMP_FILTER, ICMP6_FILTER */

static int host_type(void *ctx, const struct ps_addr *a, uint32_t ifindex)
{
	uint8_t top = a->a[0];

	(void)ctx;
	(void)ifindex;
	if (top == 127)
		return PS_RTN_LOCAL;
	return (top >> 4) == 0xe ? PS_RTN_MULTICAST : PS_RTN_UNICAST;
}

/* Every route leaves from 127.0.0.1 (the tests send to 127/8 only). */
static int host_route(void *ctx, const struct ps_addr *dst, uint32_t ifindex,
		      unsigned flags, struct ps_addr *src)
{
	(void)ctx;
	(void)ifindex;
	(void)flags;
	(void)dst;
	if (ps_addr_is_any(src))
		ps_addr_v4(src, htonl(0x7f000001u));
	return 0;
}

static int host_dev_name(void *ctx, uint32_t ifindex, char *buf)
{
	(void)ctx;
	if (ifindex != 1)
		return -ENODEV;
	strcpy(buf, "lo");
	return 0;
}

static bool host_local6(void *ctx, const struct ps_addr *a, uint32_t ifindex,
			bool strict)
{
	(void)ctx;
	(void)ifindex;
	(void)strict;
	return memcmp(a->a, &in6addr_loopback, 16) == 0;
}

static const struct ps_env env = {
	.addr_type = host_type,
	.route = host_route,
	.dev_name = host_dev_name,
	.local6 = host_local6,
	.default_ttl = 64,
	.default_hoplimit = 64,
};

static struct pstab *tab;
static struct ps_sendinfo info;
static uint8_t msg[WIRE_DATA_MAX + 2];
static uint8_t name[sizeof(struct sockaddr_in6)];

static struct psock *raw_open(int family, uint32_t uid)
{
	struct psock *sk = NULL;

	CHECK_EQ(pstab_open(tab, family, SOCK_RAW,
			    family == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6,
			    uid, &sk), 0);
	return sk;
}

/* A fresh table that allows the emulation. */
static void table(void)
{
	tab = pstab_new(4000);
	pstab_allow_raw(tab, true);
}

/* The name for 127.0.0.LAST (family AF_INET) or ::1; its length. */
static uint32_t to(int family, uint8_t last)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6,
				   .sin6_addr = in6addr_loopback };

	memset(name, 0, sizeof(name));
	if (family == AF_INET6) {
		memcpy(name, &s6, sizeof(s6));
		return sizeof(s6);
	}
	sin.sin_addr.s_addr = htonl(0x7f000000u | last);
	memcpy(name, &sin, sizeof(sin));
	return sizeof(sin);
}

/* An echo message of len bytes into msg: type, code, ident, seq, and a
 * checksum that is right only for IPv4 when good. */
static void fill(uint8_t type, uint8_t code, uint16_t ident, uint16_t seq,
		 uint32_t len, bool good)
{
	uint16_t sum;

	memset(msg, 0, sizeof(msg));
	msg[0] = type;
	msg[1] = code;
	msg[4] = (uint8_t)(ident >> 8);
	msg[5] = (uint8_t)ident;
	msg[6] = (uint8_t)(seq >> 8);
	msg[7] = (uint8_t)seq;
	for (uint32_t i = 8; i < len; i++)
		msg[i] = (uint8_t)(i * 7);
	sum = icmp_checksum(msg, len);
	if (!good)
		sum ^= 0x5a5a;
	memcpy(msg + 2, &sum, 2);
}

/* sendto() of an echo message of the socket's family to 127.0.0.1 or ::1;
 * when it passes, the daemon has sent it (ps_sent). */
static int send_echo(struct psock *sk, uint8_t type, uint16_t ident,
		     uint16_t seq, uint32_t len, int flags)
{
	int family = ps_family(sk);
	uint32_t nlen = to(family, 1);
	int rc;

	fill(type, 0, ident, seq, len, true);
	rc = ps_send_prepare(tab, sk, &env, flags, name, nlen, NULL, 0, msg,
			     len, &info);
	if (rc == 0)
		ps_sent(sk, &info, 100);
	return rc;
}

static int echo4(struct psock *sk, uint16_t ident, uint16_t seq)
{
	return send_echo(sk, 8, ident, seq, 64, 0);
}

/* The socket an Echo Reply from the address sent to would reach. */
static struct psock *reply_to(int family, uint16_t ident, uint16_t seq)
{
	struct icmp_pkt p;

	memset(&p, 0, sizeof(p));
	p.kind = ICMP_K_REPLY;
	if (family == AF_INET) {
		ps_addr_v4(&p.src, htonl(0x7f000001u));
	} else {
		p.src.family = AF_INET6;
		memcpy(p.src.a, &in6addr_loopback, 16);
	}
	p.dst = p.src;
	p.ident = ident;
	p.seq = seq;
	return pstab_lookup(tab, &p, 1);
}

/* getsockname(): the port; the address's first byte into *first. */
static int name_port(struct psock *sk, uint8_t *first)
{
	uint8_t out[64];
	struct sockaddr_in6 s6;
	struct sockaddr_in sin;

	if (ps_getname(sk, false, out) < 0)
		return -1;
	memcpy(&sin, out, sizeof(sin));
	memcpy(&s6, out, sizeof(s6));
	if (sin.sin_family == AF_INET6) {
		*first = s6.sin6_addr.s6_addr[0];
		return ntohs(s6.sin6_port);
	}
	*first = (uint8_t)(ntohl(sin.sin_addr.s_addr) >> 24);
	return ntohs(sin.sin_port);
}

static int set_opt(struct psock *sk, int level, int opt, const void *v,
		   uint32_t len)
{
	return ps_setopt(sk, &env, level, opt, v, len);
}

/* getsockopt() of an int (or less): the value, or the error * 1000. */
static int get_opt(struct psock *sk, int level, int opt, uint32_t *len)
{
	int v = 0;
	int rc = ps_getopt(sk, &env, level, opt, (uint8_t *)&v, len);

	return rc ? rc * 1000 : v;
}

/* ---- socket() ---- */

static void open_needs_the_policy(void)
{
	struct psock *sk = NULL;

	tab = pstab_new(4000);
	CHECK_EQ(pstab_open(tab, AF_INET, SOCK_RAW, IPPROTO_ICMP, 1, &sk),
		 -EPERM);
	pstab_allow_raw(tab, true);
	CHECK_EQ(pstab_open(tab, AF_INET, SOCK_RAW, IPPROTO_UDP, 1, &sk),
		 -EPERM);	/* not ours to emulate: the kernel's answer */
	CHECK_EQ(pstab_open(tab, AF_INET6, SOCK_RAW, IPPROTO_ICMP, 1, &sk),
		 -EPERM);
	CHECK_EQ(pstab_open(tab, AF_INET, SOCK_RAW | SOCK_NONBLOCK,
			    IPPROTO_ICMP, 1, &sk), 0);
	CHECK_EQ(ps_type(sk), SOCK_RAW);
	CHECK_EQ(pstab_sockets(tab), 1);
	pstab_close(tab, sk);
	CHECK_EQ(pstab_sockets(tab), 0);
	pstab_allow_raw(tab, false);	/* a reload with raw_compat = no */
	CHECK_EQ(pstab_open(tab, AF_INET6, SOCK_RAW, IPPROTO_ICMPV6, 1, &sk),
		 -EPERM);
	pstab_free(tab);
}

/* ---- sending ---- */

/* Echo Request and PROBE only; EPERM before anything is bound. */
static void send_echo_only(void)
{
	struct psock *sk;

	table();
	sk = raw_open(AF_INET, 1);
	CHECK_EQ(send_echo(sk, 13, 500, 1, 64, 0), -EPERM);	/* timestamp */
	CHECK_EQ(send_echo(sk, 0, 500, 1, 64, 0), -EPERM);	/* a reply */
	CHECK_EQ(send_echo(sk, 8, 500, 1, 7, 0), -EPERM);	/* short */
	fill(8, 1, 500, 1, 64, true);				/* code 1 */
	CHECK_EQ(ps_send_prepare(tab, sk, &env, 0, name, to(AF_INET, 1), NULL,
				 0, msg, 64, &info), -EPERM);
	CHECK_EQ(ps_ident(sk), 0);
	CHECK_EQ(send_echo(sk, 8, 500, 1, WIRE_DATA_MAX + 1, 0), -EMSGSIZE);
	CHECK_EQ(send_echo(sk, 8, 500, 1, 64, MSG_OOB), -EOPNOTSUPP);
	CHECK_EQ(send_echo(sk, 13, 500, 1, 64, MSG_OOB), -EOPNOTSUPP);
	CHECK_EQ(pstab_idents(tab), 0);
	CHECK_EQ(send_echo(sk, 42, 500, 1 << 8, 64, 0), 0);	/* PROBE */
	CHECK_EQ(ps_ident(sk), 500);
	pstab_close(tab, sk);
	sk = raw_open(AF_INET6, 1);
	CHECK_EQ(send_echo(sk, 8, 500, 1, 64, 0), -EPERM);	/* IPv4's */
	CHECK_EQ(send_echo(sk, 1, 500, 1, 64, 0), -EPERM);	/* an error */
	CHECK_EQ(send_echo(sk, 128, 500, 1, 64, 0), 0);
	CHECK_EQ(send_echo(sk, 160, 501, 1 << 8, 64, 0), 0);	/* PROBE */
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* IPv4: the bytes written go out, a wrong checksum too. */
static void send_keeps_what_was_written(void)
{
	uint8_t copy[64], first = 0xff;
	struct psock *sk;

	table();
	sk = raw_open(AF_INET, 1);
	CHECK_EQ(name_port(sk, &first), IPPROTO_ICMP);	/* measured: 1 */
	CHECK_EQ(first, 0);
	fill(8, 0, 0xbeef, 3, 64, false);
	memcpy(copy, msg, sizeof(copy));
	CHECK_EQ(ps_send_prepare(tab, sk, &env, 0, name, to(AF_INET, 1), NULL,
				 0, msg, 64, &info), 0);
	CHECK(memcmp(copy, msg, sizeof(copy)) == 0);
	CHECK_EQ(info.ident, 0xbeef);
	CHECK_EQ(info.seq, 3);
	CHECK_EQ(ps_ident(sk), 0xbeef);
	CHECK_EQ(name_port(sk, &first), IPPROTO_ICMP);	/* still */
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ICMPv6: the identifier kept, the checksum left to the raw socket. */
static void send6_sum_computed(void)
{
	uint8_t first = 0xff;
	struct psock *sk;

	table();
	sk = raw_open(AF_INET6, 1);
	CHECK_EQ(name_port(sk, &first), IPPROTO_ICMPV6);	/* measured */
	CHECK_EQ(send_echo(sk, 128, 0x1234, 9, 64, 0), 0);
	CHECK_EQ(msg[2] | msg[3], 0);
	CHECK_EQ(msg[4] << 8 | msg[5], 0x1234);
	CHECK_EQ(info.ident, 0x1234);
	CHECK(reply_to(AF_INET6, 0x1234, 9) == sk);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* liboping: one socket, an identifier per host.  Each reply is found,
 * for the socket's owner; closing frees them all. */
static void many_identifiers(void)
{
	int owner;
	struct psock *sk, *x;

	table();
	sk = raw_open(AF_INET, 1);
	ps_set_owner(sk, &owner);
	CHECK_EQ(echo4(sk, 100, 1), 0);
	CHECK_EQ(echo4(sk, 200, 1), 0);
	CHECK_EQ(echo4(sk, 300, 7), 0);
	CHECK_EQ(echo4(sk, 200, 2), 0);		/* again: the same one */
	CHECK_EQ(pstab_idents(tab), 3);
	CHECK_EQ(pstab_sockets(tab), 1);	/* extras are no sockets */
	CHECK_EQ(ps_ident(sk), 100);		/* the first is its own */
	CHECK(reply_to(AF_INET, 100, 1) == sk);
	x = reply_to(AF_INET, 200, 2);
	CHECK(x == sk);				/* the socket itself */
	CHECK(x != NULL && ps_owner(x) == &owner);
	CHECK(x == reply_to(AF_INET, 200, 1));
	CHECK(reply_to(AF_INET, 300, 7) != NULL);
	CHECK(reply_to(AF_INET, 300, 1) == NULL);	/* never sent */
	CHECK(reply_to(AF_INET, 100, 7) == NULL);	/* another's seq */
	pstab_close(tab, sk);
	CHECK_EQ(pstab_idents(tab), 0);
	CHECK(reply_to(AF_INET, 200, 2) == NULL);
	pstab_free(tab);
}

/*
 * A reply or an error to any of its identifiers reaches the raw socket
 * itself: the daemon asks what it found about the filter, the error
 * queue and whether it is raw (found by the fuzz target fuzz_idents: an
 * extra identifier's lookup gave a socket that answered as a plain ping
 * socket, so ICMP_FILTER, IP_RECVERR and the raw error datagram did not
 * apply to replies and errors of liboping's second host on).
 */
static void extra_identifiers_answer_as_the_socket(void)
{
	uint32_t filt = 1u << 0;	/* no Echo Replies */
	int one = 1;
	struct psock *sk, *x;
	struct icmp_pkt p;

	table();
	sk = raw_open(AF_INET, 1);
	CHECK_EQ(set_opt(sk, SOL_RAW, RAW_FILTER, &filt, sizeof(filt)), 0);
	CHECK_EQ(set_opt(sk, SOL_IP, IP_RECVERR, &one, sizeof(one)), 0);
	CHECK_EQ(echo4(sk, 100, 1), 0);
	CHECK_EQ(echo4(sk, 200, 1), 0);
	x = reply_to(AF_INET, 200, 1);
	CHECK(x == sk);
	CHECK(x != NULL && ps_type(x) == SOCK_RAW);
	CHECK(x != NULL && !ps_delivers(x, 0));
	CHECK(x != NULL && ps_error_ignored(x, 5));
	CHECK(x != NULL && ps_error_datagram(x, 3));
	CHECK(x != NULL && !ps_error_datagram(x, 0));	/* its filter */
	CHECK(x != NULL && ps_rx_iphdr(x));
	CHECK(x != NULL && ps_error_action(x, false) == PS_ERR_QUEUE);
	/* An error quoting the second identifier's request, likewise. */
	memset(&p, 0, sizeof(p));
	p.kind = ICMP_K_ERROR;
	p.type = 3;
	ps_addr_v4(&p.src, htonl(0x7f000009u));
	ps_addr_v4(&p.dst, htonl(0x7f000001u));
	ps_addr_v4(&p.q_dst, htonl(0x7f000001u));
	p.q_src = p.dst;
	p.ident = 200;
	p.seq = 1;
	CHECK(pstab_lookup(tab, &p, 1) == sk);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* bind()'s same-uid rule decides who may write which identifier. */
static void identifiers_of_other_uids(void)
{
	struct psock *ping = NULL, *a, *b;

	table();
	CHECK_EQ(pstab_open(tab, AF_INET, SOCK_DGRAM, IPPROTO_ICMP, 1, &ping),
		 0);
	CHECK_EQ(ps_bind(tab, ping, &env, name, to(AF_INET, 0)), 0);
	a = raw_open(AF_INET, 1);
	b = raw_open(AF_INET, 2);
	CHECK_EQ(echo4(b, ps_ident(ping), 1), -EADDRINUSE);
	CHECK_EQ(ps_ident(b), 0);
	CHECK_EQ(echo4(a, ps_ident(ping), 1), 0);	/* uid 1's own */
	CHECK_EQ(echo4(b, 0, 1), -EADDRINUSE);		/* "unbound" */
	CHECK_EQ(echo4(b, 4242, 1), 0);
	CHECK_EQ(echo4(a, 4242, 1), -EADDRINUSE);	/* an extra, taken */
	CHECK_EQ(echo4(a, 4243, 1), 0);
	CHECK_EQ(echo4(b, 4243, 1), -EADDRINUSE);
	CHECK(reply_to(AF_INET, 4242, 1) == b);
	pstab_close(tab, a);
	CHECK_EQ(echo4(b, 4243, 2), 0);			/* free again */
	pstab_close(tab, b);
	pstab_close(tab, ping);
	pstab_free(tab);
}

static void identifiers_capped(void)
{
	struct psock *sk;
	int fails = 0;

	table();
	sk = raw_open(AF_INET, 1);
	for (int i = 1; i <= PSRAW_MAX_IDENTS; i++)
		fails += echo4(sk, (uint16_t)(1000 + i), 1) != 0;
	CHECK_EQ(fails, 0);
	CHECK_EQ(echo4(sk, 999, 1), -EADDRINUSE);
	CHECK_EQ(echo4(sk, 1001, 2), 0);	/* an old one still works */
	CHECK_EQ(pstab_idents(tab), PSRAW_MAX_IDENTS);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ---- bind, connect ---- */

static void bind_binds_an_address(void)
{
	uint8_t first = 0;
	struct psock *sk;
	uint32_t len;

	table();
	sk = raw_open(AF_INET, 1);
	len = to(AF_INET, 1);
	CHECK_EQ(ps_bind(tab, sk, &env, name, len - 1), -EINVAL);
	CHECK_EQ(ps_bind(tab, sk, &env, name, len), 0);
	CHECK_EQ(ps_ident(sk), 0);		/* an address, no identifier */
	CHECK_EQ(name_port(sk, &first), IPPROTO_ICMP);
	CHECK_EQ(first, 127);
	CHECK_EQ(echo4(sk, 50, 1), 0);
	CHECK_EQ(echo4(sk, 51, 1), 0);
	CHECK(reply_to(AF_INET, 51, 1) != NULL);
	/* raw_bind() again, to another address: the extra follows, and a
	 * reply to 127.0.0.1 is no longer for it. */
	to(AF_INET, 9);
	CHECK_EQ(ps_bind(tab, sk, &env, name, len), 0);
	CHECK(reply_to(AF_INET, 51, 1) == NULL);
	CHECK(reply_to(AF_INET, 50, 1) == NULL);
	memcpy(name + 4, "\x0a\x01\x01\x01", 4);	/* 10.1.1.1: not ours */
	CHECK_EQ(ps_bind(tab, sk, &env, name, len), -EADDRNOTAVAIL);
	memcpy(name + 4, "\xe0\x00\x00\x01", 4);	/* a group: allowed */
	CHECK_EQ(ps_bind(tab, sk, &env, name, len), 0);
	to(AF_INET, 0);
	memset(name + 4, 0, 4);
	CHECK_EQ(ps_bind(tab, sk, &env, name, len), 0);	/* any again */
	CHECK(reply_to(AF_INET, 51, 1) != NULL);
	pstab_close(tab, sk);
	sk = raw_open(AF_INET6, 1);
	len = to(AF_INET6, 1);
	name[0] = AF_INET;	/* rawv6_bind(): EINVAL, not EAFNOSUPPORT */
	CHECK_EQ(ps_bind(tab, sk, &env, name, len), -EINVAL);
	to(AF_INET6, 1);
	CHECK_EQ(ps_bind(tab, sk, &env, name, 23), -EINVAL);
	CHECK_EQ(ps_bind(tab, sk, &env, name, len), 0);
	CHECK_EQ(name_port(sk, &first), IPPROTO_ICMPV6);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* connect() binds no identifier; the first send names it. */
static void connect_binds_no_identifier(void)
{
	struct psock *sk;

	table();
	sk = raw_open(AF_INET, 1);
	CHECK_EQ(ps_connect(tab, sk, &env, name, to(AF_INET, 1)), 0);
	CHECK_EQ(ps_ident(sk), 0);
	CHECK_EQ(pstab_idents(tab), 0);
	fill(8, 0, 77, 1, 64, true);
	CHECK_EQ(ps_send_prepare(tab, sk, &env, 0, NULL, 0, NULL, 0, msg, 64,
				 &info), 0);
	CHECK_EQ(ps_ident(sk), 77);
	CHECK_EQ(ps_bind(tab, sk, &env, name, to(AF_INET, 1)), -EINVAL);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ---- options ---- */

static void options4(void)
{
	uint32_t len = sizeof(int), filt = 1u << 0 | 1u << 11, big[2] = { 0 };
	int one = 1, zero = 0;
	struct psock *sk;

	table();
	sk = raw_open(AF_INET, 1);
	CHECK_EQ(get_opt(sk, SOL_SOCKET, SO_TYPE, &len), SOCK_RAW);
	CHECK_EQ(get_opt(sk, SOL_SOCKET, SO_PROTOCOL, &len), IPPROTO_ICMP);
	CHECK_EQ(set_opt(sk, SOL_IP, IP_HDRINCL, &one, sizeof(one)), -EPERM);
	CHECK_EQ(set_opt(sk, SOL_IP, IP_HDRINCL, "\1", 1), -EPERM);
	CHECK_EQ(set_opt(sk, SOL_IP, IP_HDRINCL, &zero, sizeof(zero)), 0);
	CHECK_EQ(get_opt(sk, SOL_IP, IP_HDRINCL, &len), 0);
	CHECK_EQ(get_opt(sk, SOL_RAW, RAW_FILTER, &len), 0);
	CHECK(ps_delivers(sk, 0));
	CHECK_EQ(set_opt(sk, SOL_RAW, RAW_FILTER, &filt, sizeof(filt)), 0);
	CHECK(!ps_delivers(sk, 0));
	CHECK(!ps_delivers(sk, 11));
	CHECK(ps_delivers(sk, 3));
	CHECK(ps_delivers(sk, 43));	/* above the filter's 32 types */
	len = sizeof(big);
	CHECK_EQ(ps_getopt(sk, &env, SOL_RAW, RAW_FILTER, (uint8_t *)big,
			   &len), 0);
	CHECK_EQ(len, 4);			/* measured: cut to 4 */
	CHECK_EQ(big[0], filt);
	/* Two bytes replace two bytes (measured: 01 00 -> 01000000). */
	CHECK_EQ(set_opt(sk, SOL_RAW, RAW_FILTER, "\x08\x00", 2), 0);
	len = 4;
	CHECK_EQ((uint32_t)get_opt(sk, SOL_RAW, RAW_FILTER, &len), 8u);
	CHECK_EQ(set_opt(sk, SOL_RAW, 2, &one, sizeof(one)), -ENOPROTOOPT);
	CHECK_EQ(set_opt(sk, SOL_ICMPV6, RAW_FILTER, big, 32), -ENOPROTOOPT);
	CHECK_EQ(get_opt(sk, SOL_ICMPV6, RAW_FILTER, &len), -EOPNOTSUPP * 1000);
	CHECK_EQ(set_opt(sk, SOL_IP, IP_TTL, &one, sizeof(one)), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void options6(void)
{
	uint32_t len = sizeof(int), f6[8] = { 0 };
	int v = 1;
	struct psock *sk;

	table();
	sk = raw_open(AF_INET6, 1);
	CHECK_EQ(get_opt(sk, SOL_SOCKET, SO_TYPE, &len), SOCK_RAW);
	CHECK_EQ(get_opt(sk, SOL_RAW, IPV6_CHECKSUM, &len), 2);
	CHECK_EQ(get_opt(sk, SOL_IPV6, IPV6_CHECKSUM, &len), 2);
	CHECK_EQ(set_opt(sk, SOL_IPV6, IPV6_CHECKSUM, &v, sizeof(v)), -EINVAL);
	v = 3;
	CHECK_EQ(set_opt(sk, SOL_RAW, IPV6_CHECKSUM, &v, sizeof(v)), -EINVAL);
	v = 4;		/* the kernel takes it; the emulation sums at 2 */
	CHECK_EQ(set_opt(sk, SOL_RAW, IPV6_CHECKSUM, &v, sizeof(v)), -EINVAL);
	v = -1;
	CHECK_EQ(set_opt(sk, SOL_RAW, IPV6_CHECKSUM, &v, 2), -EINVAL);
	CHECK_EQ(set_opt(sk, SOL_RAW, IPV6_CHECKSUM, &v, sizeof(v)), 0);
	CHECK_EQ(get_opt(sk, SOL_RAW, IPV6_CHECKSUM, &len), -1);
	v = 1;
	CHECK_EQ(set_opt(sk, SOL_RAW, IPV6_HDRINCL, &v, sizeof(v)), -EPERM);
	CHECK_EQ(set_opt(sk, SOL_IPV6, IPV6_HDRINCL, &v, sizeof(v)), -EPERM);
	CHECK_EQ(get_opt(sk, SOL_IPV6, IPV6_HDRINCL, &len), 0);
	CHECK_EQ(set_opt(sk, SOL_RAW, RAW_FILTER, &v, sizeof(v)), -ENOPROTOOPT);
	CHECK_EQ(get_opt(sk, SOL_RAW, RAW_FILTER, &len), -ENOPROTOOPT * 1000);
	/* ICMP6_FILTER: everything blocked but Echo Reply (busybox). */
	memset(f6, 0xff, sizeof(f6));
	f6[129 >> 5] &= ~(1u << (129 & 31));
	CHECK_EQ(set_opt(sk, SOL_ICMPV6, RAW_FILTER, f6, sizeof(f6)), 0);
	CHECK(ps_delivers(sk, 129));
	CHECK(!ps_delivers(sk, 1));
	CHECK(!ps_delivers(sk, 161));
	memset(f6, 0, sizeof(f6));
	len = 64;
	CHECK_EQ(ps_getopt(sk, &env, SOL_ICMPV6, RAW_FILTER, (uint8_t *)f6,
			   &len), 0);
	CHECK_EQ(len, 32);
	CHECK_EQ(f6[0], 0xffffffffu);
	CHECK_EQ(set_opt(sk, SOL_ICMPV6, 2, f6, 32), -ENOPROTOOPT);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* raw_err() reports neither Source Quench nor Redirect. */
static void errors_a_raw_socket_ignores(void)
{
	struct psock *sk, *ping = NULL;

	table();
	sk = raw_open(AF_INET, 1);
	CHECK(ps_error_ignored(sk, 4));
	CHECK(ps_error_ignored(sk, 5));
	CHECK(!ps_error_ignored(sk, 3));
	CHECK(!ps_error_ignored(sk, 11));
	CHECK_EQ(pstab_open(tab, AF_INET, SOCK_DGRAM, IPPROTO_ICMP, 1, &ping),
		 0);
	CHECK(!ps_error_ignored(ping, 4));
	CHECK(ps_delivers(ping, 0));
	CHECK(!ps_error_datagram(ping, 3));	/* the error queue only */
	CHECK(!ps_rx_iphdr(ping));
	CHECK_EQ(ps_type(ping), SOCK_DGRAM);
	pstab_close(tab, ping);
	pstab_close(tab, sk);
	sk = raw_open(AF_INET6, 1);
	CHECK(!ps_error_ignored(sk, 4));
	CHECK(ps_error_datagram(sk, 1));
	CHECK(!ps_rx_iphdr(sk));	/* a raw ICMPv6 socket sees no header */
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ---- the IPv4 header (rawhdr.c) ---- */

/* What the daemon hands over for an IPv4 header h of hlen bytes. */
static void dgram_of(const uint8_t *h, size_t hlen, struct wire_dgram *dg)
{
	memset(dg, 0, sizeof(*dg));
	dg->family = AF_INET;
	dg->tos = h[1];
	dg->ttl = h[8];
	memcpy(dg->src, h + 12, 4);
	memcpy(dg->dst, h + 16, 4);
	memcpy(&dg->ee_data, h + 4, 4);
	memcpy(&dg->ee_info, h + 8, 4);
	dg->optlen = (uint8_t)(hlen - 20);
	memcpy(dg->opts, h + 20, hlen - 20);
}

/* A reply's header as the kernel's raw socket gave it (busybox ping to
 * 127.0.0.1 under strace): rebuilt byte for byte. */
static void header_as_received(void)
{
	static const uint8_t want[20] = {
		0x45, 0x00, 0x00, 0x54, 0x3b, 0x29, 0x00, 0x00, 0x40, 0x01,
		0x41, 0x7e, 0x7f, 0x00, 0x00, 0x01, 0x7f, 0x00, 0x00, 0x01,
	};
	struct wire_dgram dg;
	uint8_t out[RAWHDR_MAX];

	dgram_of(want, sizeof(want), &dg);
	CHECK_EQ(rawhdr_ipv4(&dg, 64, out), 20);
	CHECK(memcmp(out, want, sizeof(want)) == 0);
	CHECK_EQ(icmp_checksum(out, 20), 0);
}

/*
 * A reply with Record Route, as the kernel's raw socket shows it: the
 * kernel wrote its address into the option after checking the sum, and
 * the sum stays what it was (measured: "sum bad" on both sides).  The
 * length counts header and message; past 0xFFFF it is cut (the daemon
 * never hands over more, but it is bounded).
 */
static void header_with_options(void)
{
	uint8_t h[60] = {
		0x4f, 0x10, 0x00, 0x00, 0x12, 0x34, 0x40, 0x00, 0x3f, 0x01,
		0xab, 0xcd, 0x0a, 0x4d, 0x01, 0x02, 0x0a, 0x4d, 0x00, 0x02,
		0x07, 0x27, 0x1c, 0x0a, 0x4d, 0x00, 0x02, 0x0a, 0x4d, 0x01,
		0x01, 0x0a, 0x4d, 0x01, 0x02, 0x0a, 0x4d, 0x00, 0x02,
	};
	struct wire_dgram dg;
	uint8_t out[RAWHDR_MAX];

	h[2] = 0;
	h[3] = 124;
	dgram_of(h, sizeof(h), &dg);
	CHECK_EQ(rawhdr_ipv4(&dg, 64, out), 60);
	CHECK(memcmp(out, h, sizeof(h)) == 0);
	dg.optlen = 3;	/* padded to 4 with End of Options */
	memcpy(dg.opts, "\x01\x01\x01\x55", 4);
	CHECK_EQ(rawhdr_ipv4(&dg, 0xFFFF, out), 24);
	CHECK_EQ(out[0], 0x46);
	CHECK_EQ(out[23], 0);
	CHECK_EQ(out[2] << 8 | out[3], 0xFFFF);
	dg.optlen = 200;			/* never more than 40 */
	CHECK_EQ(rawhdr_ipv4(&dg, 8, out), RAWHDR_MAX);
}

int main(void)
{
	TEST(open_needs_the_policy);
	TEST(send_echo_only);
	TEST(send_keeps_what_was_written);
	TEST(send6_sum_computed);
	TEST(many_identifiers);
	TEST(extra_identifiers_answer_as_the_socket);
	TEST(identifiers_of_other_uids);
	TEST(identifiers_capped);
	TEST(bind_binds_an_address);
	TEST(connect_binds_no_identifier);
	TEST(options4);
	TEST(options6);
	TEST(errors_a_raw_socket_ignores);
	TEST(header_as_received);
	TEST(header_with_options);
	return CHECK_DONE();
}
