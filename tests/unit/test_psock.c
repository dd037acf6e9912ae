/* SPDX-License-Identifier: ISC */
/*
 * test_psock - the ping-socket engine (src/engine/psock.c) against a fake
 * host, call by call, with the kernel's answers from
 * shared/reference/linux-ping-semantics.md (and, where it says nothing,
 * from the kernel's own ping socket measured on Linux 6.18).
 *
 * The fake host:
 *   local      127.0.0.0/8, 10.0.0.1
 *   multicast  224.0.0.0/4
 *   broadcast  255.255.255.255, 10.0.0.255
 *   route      10.99.0.0/16: ENETUNREACH; a broadcast without
 *              SO_BROADCAST: EACCES; otherwise source 127.0.0.1 for
 *              127/8 and 10.0.0.1 for everything else.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/icmp.h"
#include "engine/psock.h"
#include "wire/wire.h"
#include "check.h"

#define LO1	0x7f000001u	/* 127.0.0.1 */
#define LO2	0x7f000002u
#define LO5	0x7f000005u
#define HOST1	0x0a000001u	/* 10.0.0.1, local */
#define HOST2	0x0a000002u	/* 10.0.0.2, remote */
#define BCAST	0x0a0000ffu	/* 10.0.0.255 */
#define NOROUTE	0x0a630101u	/* 10.99.1.1 */
#define MCAST	0xe0000001u	/* 224.0.0.1 */

struct fake {
	int route_calls;
	unsigned route_flags;	/* of the last route asked */
};

static struct fake fk;

static uint32_t host_of(const struct ps_addr *a)
{
	return ntohl(ps_addr_get_v4(a));
}

static int fake_addr_type(void *ctx, const struct ps_addr *a,
			  uint32_t ifindex)
{
	uint32_t v = host_of(a);

	(void)ctx;
	(void)ifindex;
	if ((v >> 24) == 127 || v == HOST1)
		return PS_RTN_LOCAL;
	if ((v >> 28) == 0xe)
		return PS_RTN_MULTICAST;
	if (v == 0xffffffffu || v == BCAST)
		return PS_RTN_BROADCAST;
	return PS_RTN_UNICAST;
}

static int fake_route(void *ctx, const struct ps_addr *dst, uint32_t ifindex,
		      unsigned flags, struct ps_addr *src)
{
	struct fake *f = ctx;
	uint32_t v = host_of(dst);

	f->route_calls++;
	f->route_flags = flags;
	if ((v >> 16) == 0x0a63)
		return -ENETUNREACH;
	if (fake_addr_type(ctx, dst, ifindex) == PS_RTN_BROADCAST &&
	    !(flags & PS_ROUTE_BROADCAST))
		return -EACCES;
	if (ps_addr_is_any(src))
		ps_addr_v4(src, htonl((v >> 24) == 127 ? LO1 : HOST1));
	return 0;
}

/* Devices: lo (1) and eth0 (2). */
static int fake_dev_index(void *ctx, const char *name)
{
	(void)ctx;
	if (strcmp(name, "lo") == 0)
		return 1;
	if (strcmp(name, "eth0") == 0)
		return 2;
	return -ENODEV;
}

static int fake_dev_name(void *ctx, uint32_t ifindex, char *buf)
{
	(void)ctx;
	if (ifindex != 1 && ifindex != 2)
		return -ENODEV;
	strcpy(buf, ifindex == 1 ? "lo" : "eth0");
	return 0;
}

static int fake_route_mtu(void *ctx, const struct ps_addr *dst,
			  uint32_t ifindex)
{
	(void)ctx;
	(void)ifindex;
	return (host_of(dst) >> 24) == 127 ? 65536 : 1500;
}

static const struct ps_env env = {
	.addr_type = fake_addr_type,
	.route = fake_route,
	.dev_index = fake_dev_index,
	.dev_name = fake_dev_name,
	.route_mtu = fake_route_mtu,
	.ctx = &fk,
	.default_ttl = 64,
	.nonlocal_bind = false,
};

/* ---- helpers ---- */

static uint8_t sabuf[128];

/* A sockaddr_in in sabuf; returns its length. */
static uint32_t sa4(int family, uint32_t host, uint16_t port)
{
	struct sockaddr_in s;

	memset(sabuf, 0, sizeof(sabuf));
	memset(&s, 0, sizeof(s));
	s.sin_family = (sa_family_t)family;
	s.sin_port = htons(port);
	s.sin_addr.s_addr = htonl(host);
	memcpy(sabuf, &s, sizeof(s));
	return sizeof(s);
}

static uint32_t sa6_loopback(void)
{
	struct sockaddr_in6 s;

	memset(sabuf, 0, sizeof(sabuf));
	memset(&s, 0, sizeof(s));
	s.sin6_family = AF_INET6;
	s.sin6_addr = in6addr_loopback;
	memcpy(sabuf, &s, sizeof(s));
	return sizeof(s);
}

static struct psock *open4(struct pstab *tab, uint32_t uid)
{
	struct psock *sk = NULL;
	int rc = pstab_open(tab, AF_INET, SOCK_DGRAM, IPPROTO_ICMP, uid, &sk);

	CHECK_EQ(rc, 0);
	return sk;
}

static int bind4(struct pstab *tab, struct psock *sk, uint32_t host,
		 uint16_t port)
{
	uint32_t len = sa4(AF_INET, host, port);

	return ps_bind(tab, sk, &env, sabuf, len);
}

static int connect4(struct pstab *tab, struct psock *sk, uint32_t host,
		    uint16_t port)
{
	uint32_t len = sa4(AF_INET, host, port);

	return ps_connect(tab, sk, &env, sabuf, len);
}

static int disconnect(struct pstab *tab, struct psock *sk)
{
	uint32_t len = sa4(AF_UNSPEC, 0, 0);

	return ps_connect(tab, sk, &env, sabuf, len);
}

/* getsockname/getpeername: rc, and the address and port found. */
static int getname(struct psock *sk, bool peer, uint32_t *host,
		   uint16_t *port)
{
	uint8_t out[64];
	struct sockaddr_in s;
	int rc;

	memset(out, 0xee, sizeof(out));
	rc = ps_getname(sk, peer, out);
	if (rc < 0)
		return rc;
	memcpy(&s, out, sizeof(s));
	CHECK_EQ(s.sin_family, AF_INET);
	*host = ntohl(s.sin_addr.s_addr);
	*port = ntohs(s.sin_port);
	return rc;
}

static uint16_t sockport(struct psock *sk)
{
	uint32_t h;
	uint16_t p = 0;

	getname(sk, false, &h, &p);
	return p;
}

static uint32_t sockaddr_host(struct psock *sk)
{
	uint32_t h = 0xffffffffu;
	uint16_t p;

	getname(sk, false, &h, &p);
	return h;
}

static uint8_t mbuf[WIRE_DATA_MAX + 1];

/* An Echo Request with a made-up ident and a wrong checksum. */
static uint8_t *echo(uint8_t type, uint8_t code, uint16_t seq, size_t len)
{
	memset(mbuf, 0, sizeof(mbuf));
	mbuf[0] = type;
	mbuf[1] = code;
	mbuf[2] = 0xde;
	mbuf[3] = 0xad;
	mbuf[4] = 0x11;
	mbuf[5] = 0x11;
	mbuf[6] = (uint8_t)(seq >> 8);
	mbuf[7] = (uint8_t)seq;
	for (size_t i = 8; i < len; i++)
		mbuf[i] = (uint8_t)i;
	return mbuf;
}

static struct ps_sendinfo info;

/* sendto(host) of an Echo Request; name NULL when host is ~0. */
#define NONAME 0xffffffffu
static int send4(struct pstab *tab, struct psock *sk, uint32_t host,
		 uint16_t seq, size_t len)
{
	uint32_t nl = 0;

	if (host != NONAME)
		nl = sa4(AF_INET, host, 0);
	echo(8, 0, seq, len);
	return ps_send_prepare(tab, sk, &env, 0, host != NONAME ? sabuf : NULL,
			       nl, NULL, 0, mbuf, (uint32_t)len, &info);
}

/* A send that worked: the daemon puts it on the wire, then ps_sent(). */
static int sent4(struct pstab *tab, struct psock *sk, uint32_t host,
		 uint16_t seq)
{
	int rc = send4(tab, sk, host, seq, 64);

	if (rc == 0)
		ps_sent(sk, &info, 1000);
	return rc;
}

static int setint(struct psock *sk, int level, int name, int v)
{
	return ps_setopt(sk, &env, level, name, (const uint8_t *)&v,
			 sizeof(v));
}

static int getint(struct psock *sk, int level, int name)
{
	int v = -12345;
	uint32_t len = sizeof(v);
	int rc = ps_getopt(sk, &env, level, name, (uint8_t *)&v, &len);

	if (rc)
		return rc * 1000;	/* recognisable, never a real value */
	CHECK_EQ(len, sizeof(int));
	return v;
}

/* A reply (type 0) from src to dst. */
static struct icmp_pkt reply(uint32_t src, uint32_t dst, uint16_t ident,
			     uint16_t seq)
{
	struct icmp_pkt p;

	memset(&p, 0, sizeof(p));
	p.kind = ICMP_K_REPLY;
	ps_addr_v4(&p.src, htonl(src));
	ps_addr_v4(&p.dst, htonl(dst));
	p.ident = ident;
	p.seq = seq;
	return p;
}

/* ---- socket() ---- */

static void open_argument_errors(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = NULL;

	CHECK_EQ(pstab_open(tab, 12345, SOCK_DGRAM, IPPROTO_ICMP, 1, &sk),
		 -EAFNOSUPPORT);
	CHECK_EQ(pstab_open(tab, AF_UNSPEC, SOCK_DGRAM, IPPROTO_ICMP, 1, &sk),
		 -EAFNOSUPPORT);
	CHECK_EQ(pstab_open(tab, AF_INET, SOCK_SEQPACKET, IPPROTO_ICMP, 1,
			    &sk), -ESOCKTNOSUPPORT);
	CHECK_EQ(pstab_open(tab, AF_INET6, SOCK_SEQPACKET, IPPROTO_ICMPV6, 1,
			    &sk), -ESOCKTNOSUPPORT);
	CHECK_EQ(pstab_open(tab, AF_INET, 7, IPPROTO_ICMP, 1, &sk),
		 -ESOCKTNOSUPPORT);
	CHECK_EQ(pstab_open(tab, AF_INET, SOCK_DGRAM, IPPROTO_ICMPV6, 1, &sk),
		 -EPROTONOSUPPORT);
	CHECK_EQ(pstab_open(tab, AF_INET6, SOCK_DGRAM, IPPROTO_ICMP, 1, &sk),
		 -EPROTONOSUPPORT);
	CHECK_EQ(pstab_open(tab, AF_INET, SOCK_DGRAM, 256, 1, &sk),
		 -EPROTONOSUPPORT);
	CHECK_EQ(pstab_sockets(tab), 0);
	CHECK(sk == NULL);

	CHECK_EQ(pstab_open(tab, AF_INET, SOCK_DGRAM | SOCK_NONBLOCK |
			    SOCK_CLOEXEC, IPPROTO_ICMP, 1, &sk), 0);
	CHECK(sk != NULL);
	pstab_close(tab, sk);
	CHECK_EQ(pstab_open(tab, AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK,
			    IPPROTO_ICMPV6, 1, &sk), 0);
	CHECK_EQ(ps_family(sk), AF_INET6);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_PROTOCOL), IPPROTO_ICMPV6);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_DOMAIN), AF_INET6);
	pstab_close(tab, sk);
	CHECK_EQ(pstab_sockets(tab), 0);
	pstab_free(tab);
}

/*
 * What socket(2) answers, measured on Linux 6.18 with these very
 * arguments: unknown flag bits and types beyond SOCK_MAX are EINVAL
 * (__sys_socket_create, __sock_create), SOCK_STREAM with IPPROTO_ICMP is
 * EPROTONOSUPPORT (inet_create: TCP is registered for SOCK_STREAM).
 */
static void open_errors_as_kernel(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = NULL;

	CHECK_EQ(pstab_open(tab, AF_INET, SOCK_DGRAM | 0x100, IPPROTO_ICMP, 1,
			    &sk), -EINVAL);
	CHECK_EQ(pstab_open(tab, AF_INET, 12, IPPROTO_ICMP, 1, &sk), -EINVAL);
	CHECK_EQ(pstab_open(tab, AF_INET, SOCK_STREAM, IPPROTO_ICMP, 1, &sk),
		 -EPROTONOSUPPORT);
	CHECK_EQ(pstab_open(tab, AF_INET6, SOCK_STREAM, IPPROTO_ICMPV6, 1,
			    &sk), -EPROTONOSUPPORT);
	CHECK_EQ(pstab_sockets(tab), 0);
	pstab_free(tab);
}

/* A new socket: unbound, unconnected, the kernel's defaults. */
static void fresh_socket_state(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	uint32_t h = 1;
	uint16_t p = 1;

	CHECK_EQ(getname(sk, false, &h, &p), sizeof(struct sockaddr_in));
	CHECK_EQ(h, 0);
	CHECK_EQ(p, 0);
	CHECK_EQ(ps_getname(sk, true, sabuf), -ENOTCONN);
	CHECK_EQ(ps_ident(sk), 0);
	CHECK_EQ(ps_uid(sk), 1000);
	CHECK_EQ(ps_family(sk), AF_INET);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_TYPE), SOCK_DGRAM);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_PROTOCOL), IPPROTO_ICMP);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_DOMAIN), AF_INET);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_REUSEADDR), 1);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_BROADCAST), 0);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_ERROR), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_RECVERR), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_MTU_DISCOVER), IP_PMTUDISC_WANT);
	CHECK_EQ(getint(sk, SOL_IP, IP_TTL), 64);
	CHECK_EQ(getint(sk, SOL_IP, IP_MULTICAST_TTL), 1);
	CHECK_EQ(getint(sk, SOL_IP, IP_MULTICAST_LOOP), 1);
	CHECK_EQ(ps_cmsg_flags(sk), 0);
	CHECK_EQ(pstab_sockets(tab), 1);
	CHECK_EQ(pstab_idents(tab), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ---- bind() ---- */

/* The bind table of linux-ping-semantics.md. */
static void bind_table(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	uint32_t len, h;
	uint16_t p;

	fk.route_calls = 0;
	len = sa4(AF_INET, LO1, 40001);
	CHECK_EQ(ps_bind(tab, sk, &env, sabuf, len - 1), -EINVAL);
	CHECK_EQ(ps_bind(tab, sk, &env, sabuf, 0), -EINVAL);
	len = sa6_loopback();
	CHECK_EQ(ps_bind(tab, sk, &env, sabuf, len), -EAFNOSUPPORT);
	len = sa4(AF_UNSPEC, LO1, 40001);	/* AF_UNSPEC, not ANY */
	CHECK_EQ(ps_bind(tab, sk, &env, sabuf, len), -EAFNOSUPPORT);
	CHECK_EQ(bind4(tab, sk, HOST2, 40001), -EADDRNOTAVAIL);
	CHECK_EQ(bind4(tab, sk, MCAST, 40001), -EADDRNOTAVAIL);
	CHECK_EQ(bind4(tab, sk, 0xefffffffu, 40001), -EADDRNOTAVAIL);
	CHECK_EQ(bind4(tab, sk, 0xffffffffu, 40001), -EADDRNOTAVAIL);
	CHECK_EQ(bind4(tab, sk, BCAST, 40001), -EADDRNOTAVAIL);
	/* None of those bound anything. */
	CHECK_EQ(ps_ident(sk), 0);
	CHECK_EQ(pstab_idents(tab), 0);

	CHECK_EQ(bind4(tab, sk, LO1, 40001), 0);
	CHECK_EQ(getname(sk, false, &h, &p), sizeof(struct sockaddr_in));
	CHECK_EQ(h, LO1);
	CHECK_EQ(p, 40001);
	CHECK_EQ(ps_ident(sk), 40001);
	CHECK_EQ(pstab_idents(tab), 1);
	CHECK_EQ(ps_getname(sk, true, sabuf), -ENOTCONN);
	/* Second bind: EINVAL, and the first binding stays. */
	CHECK_EQ(bind4(tab, sk, LO1, 40002), -EINVAL);
	CHECK_EQ(bind4(tab, sk, 0, 0), -EINVAL);
	CHECK_EQ(sockport(sk), 40001);
	pstab_close(tab, sk);

	/* AF_UNSPEC with INADDR_ANY: accepted, as AF_INET. */
	sk = open4(tab, 1000);
	len = sa4(AF_UNSPEC, 0, 40003);
	CHECK_EQ(ps_bind(tab, sk, &env, sabuf, len), 0);
	CHECK_EQ(getname(sk, false, &h, &p), sizeof(struct sockaddr_in));
	CHECK_EQ(h, 0);
	CHECK_EQ(p, 40003);
	pstab_close(tab, sk);

	/* Longer than a sockaddr_in is fine; 10.0.0.1 is local too. */
	sk = open4(tab, 1000);
	sa4(AF_INET, HOST1, 40004);
	CHECK_EQ(ps_bind(tab, sk, &env, sabuf, sizeof(sabuf)), 0);
	CHECK_EQ(sockaddr_host(sk), HOST1);
	pstab_close(tab, sk);
	CHECK_EQ(pstab_idents(tab), 0);
	CHECK_EQ(fk.route_calls, 0);	/* bind routes nothing */
	pstab_free(tab);
}

/* The kernel checks the address before "already bound". */
static void bind_address_checked_before_rebind(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	uint32_t len;

	CHECK_EQ(bind4(tab, sk, 0, 40001), 0);
	CHECK_EQ(bind4(tab, sk, HOST2, 40002), -EADDRNOTAVAIL);
	len = sa4(AF_INET, LO1, 1);
	CHECK_EQ(ps_bind(tab, sk, &env, sabuf, len - 1), -EINVAL);
	len = sa6_loopback();
	CHECK_EQ(ps_bind(tab, sk, &env, sabuf, len), -EAFNOSUPPORT);
	CHECK_EQ(bind4(tab, sk, LO1, 40002), -EINVAL);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* An auto-bound socket (first send) is bound: bind is EINVAL. */
static void bind_after_autobind(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);

	CHECK_EQ(send4(tab, sk, LO1, 1, 64), 0);
	CHECK_EQ(ps_ident(sk), 1001);
	CHECK_EQ(bind4(tab, sk, LO1, 40001), -EINVAL);
	CHECK_EQ(ps_ident(sk), 1001);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* Port 0 takes the next ident from the rover; close frees it. */
static void bind_port0_and_reuse_after_close(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *a = open4(tab, 1000), *b;
	uint32_t h;
	uint16_t p;

	CHECK_EQ(bind4(tab, a, LO1, 0), 0);
	CHECK_EQ(getname(a, false, &h, &p), sizeof(struct sockaddr_in));
	CHECK_EQ(h, LO1);
	CHECK_EQ(p, 1001);
	pstab_close(tab, a);
	CHECK_EQ(pstab_idents(tab), 0);

	a = open4(tab, 1000);
	CHECK_EQ(bind4(tab, a, LO1, 40001), 0);
	pstab_close(tab, a);
	b = open4(tab, 2000);		/* even another user, now */
	CHECK_EQ(bind4(tab, b, LO1, 40001), 0);
	CHECK_EQ(sockport(b), 40001);
	pstab_close(tab, b);
	pstab_free(tab);
}

/*
 * inet_can_nonlocal_bind(): IP_FREEBIND or net.ipv4.ip_nonlocal_bind let a
 * non-local address through; multicast and broadcast stay refused.
 */
static void bind_nonlocal_with_freebind(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	struct ps_env nl = env;

	CHECK_EQ(setint(sk, SOL_IP, IP_FREEBIND, 1), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_FREEBIND), 1);
	CHECK_EQ(bind4(tab, sk, MCAST, 40001), -EADDRNOTAVAIL);
	CHECK_EQ(bind4(tab, sk, BCAST, 40001), -EADDRNOTAVAIL);
	CHECK_EQ(bind4(tab, sk, HOST2, 40001), 0);
	CHECK_EQ(sockaddr_host(sk), HOST2);
	pstab_close(tab, sk);

	sk = open4(tab, 1000);
	nl.nonlocal_bind = true;
	sa4(AF_INET, 0xffffffffu, 1);
	CHECK_EQ(ps_bind(tab, sk, &nl, sabuf, sizeof(struct sockaddr_in)),
		 -EADDRNOTAVAIL);
	sa4(AF_INET, HOST2, 1);
	CHECK_EQ(ps_bind(tab, sk, &nl, sabuf, sizeof(struct sockaddr_in)), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ---- sharing an ident ---- */

static void same_uid_may_share(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *a = open4(tab, 1000), *b = open4(tab, 1000);
	struct psock *c = open4(tab, 1000);

	CHECK_EQ(bind4(tab, a, 0, 40001), 0);
	CHECK_EQ(bind4(tab, b, 0, 40001), 0);
	CHECK_EQ(bind4(tab, c, LO1, 40001), 0);	/* any address */
	CHECK_EQ(pstab_idents(tab), 1);
	CHECK_EQ(pstab_sockets(tab), 3);
	pstab_close(tab, b);
	CHECK_EQ(pstab_idents(tab), 1);
	pstab_close(tab, a);
	pstab_close(tab, c);
	CHECK_EQ(pstab_idents(tab), 0);
	pstab_free(tab);
}

/*
 * Review finding 2 (its identifier half): a reply or error that no
 * socket asked for is looked for in every socket sharing its identifier,
 * and anyone can send one; 8,192 sockets of one user shared one.  At most
 * PS_MAX_IDENT_SHARE now (the kernel has no bound): EADDRINUSE past it,
 * another identifier still free.
 */
static void ident_share_bounded(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk[PS_MAX_IDENT_SHARE + 1];
	int made = 0;

	for (int i = 0; i <= PS_MAX_IDENT_SHARE; i++) {
		sk[i] = open4(tab, 1000);
		made += bind4(tab, sk[i], 0, 40001) == 0;
	}
	CHECK_EQ(made, PS_MAX_IDENT_SHARE);
	CHECK_EQ(bind4(tab, sk[PS_MAX_IDENT_SHARE], 0, 40001), -EADDRINUSE);
	CHECK_EQ(ps_ident(sk[PS_MAX_IDENT_SHARE]), 0);
	CHECK_EQ(bind4(tab, sk[PS_MAX_IDENT_SHARE], 0, 40002), 0);
	/* One gone: room for one more. */
	pstab_close(tab, sk[0]);
	sk[0] = open4(tab, 1000);
	CHECK_EQ(bind4(tab, sk[0], 0, 40001), 0);
	for (int i = 0; i <= PS_MAX_IDENT_SHARE; i++)
		pstab_close(tab, sk[i]);
	pstab_free(tab);
}

/* Stricter than the kernel (design.md): another uid gets EADDRINUSE. */
static void other_uid_eaddrinuse(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *a = open4(tab, 1000), *b = open4(tab, 1001);

	CHECK_EQ(bind4(tab, a, 0, 40001), 0);
	CHECK_EQ(bind4(tab, b, 0, 40001), -EADDRINUSE);
	CHECK_EQ(bind4(tab, b, LO1, 40001), -EADDRINUSE);
	CHECK_EQ(ps_ident(b), 0);
	CHECK_EQ(sockport(b), 0);
	CHECK_EQ(bind4(tab, b, 0, 40002), 0);	/* another one is fine */
	CHECK_EQ(pstab_idents(tab), 2);
	pstab_close(tab, a);
	pstab_close(tab, b);
	pstab_free(tab);
}

/* As ping_get_port(): both sockets need SO_REUSEADDR to share. */
static void reuseaddr_off_on_either(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *a = open4(tab, 1000), *b = open4(tab, 1000);

	CHECK_EQ(setint(a, SOL_SOCKET, SO_REUSEADDR, 0), 0);
	CHECK_EQ(getint(a, SOL_SOCKET, SO_REUSEADDR), 0);
	CHECK_EQ(bind4(tab, a, LO1, 40001), 0);
	CHECK_EQ(bind4(tab, b, LO1, 40001), -EADDRINUSE);
	CHECK_EQ(bind4(tab, b, HOST1, 40001), -EADDRINUSE);
	pstab_close(tab, a);
	pstab_close(tab, b);

	a = open4(tab, 1000);
	b = open4(tab, 1000);
	CHECK_EQ(bind4(tab, a, LO1, 40001), 0);
	CHECK_EQ(setint(b, SOL_SOCKET, SO_REUSEADDR, 0), 0);
	CHECK_EQ(bind4(tab, b, LO1, 40001), -EADDRINUSE);
	CHECK_EQ(setint(b, SOL_SOCKET, SO_REUSEADDR, 1), 0);
	CHECK_EQ(bind4(tab, b, LO1, 40001), 0);
	pstab_close(tab, a);
	pstab_close(tab, b);
	pstab_free(tab);
}

/* ---- the rover ---- */

static void rover_increments(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *s[4];

	for (int i = 0; i < 4; i++)
		s[i] = open4(tab, 1000);
	CHECK_EQ(bind4(tab, s[0], 0, 0), 0);
	CHECK_EQ(send4(tab, s[1], LO1, 1, 8), 0);
	CHECK_EQ(connect4(tab, s[2], LO1, 0), 0);
	CHECK_EQ(bind4(tab, s[3], LO1, 0), 0);
	for (int i = 0; i < 4; i++) {
		CHECK_EQ(ps_ident(s[i]), 1001 + i);
		CHECK_EQ(sockport(s[i]), 1001 + i);
	}
	/* Freed idents are not handed out again until the rover wraps. */
	pstab_close(tab, s[0]);
	s[0] = open4(tab, 1000);
	CHECK_EQ(bind4(tab, s[0], 0, 0), 0);
	CHECK_EQ(ps_ident(s[0]), 1005);
	for (int i = 0; i < 4; i++)
		pstab_close(tab, s[i]);
	pstab_free(tab);
}

static void rover_skips_foreign(void)
{
	static uint8_t bitmap[65536 / 8];
	struct pstab *tab = pstab_new(1000);
	struct psock *a = open4(tab, 1000), *b = open4(tab, 1000);
	struct psock *c = open4(tab, 1000);

	memset(bitmap, 0, sizeof(bitmap));
	bitmap[1001 / 8] |= (uint8_t)(1u << (1001 % 8));
	bitmap[1002 / 8] |= (uint8_t)(1u << (1002 % 8));
	bitmap[1004 / 8] |= (uint8_t)(1u << (1004 % 8));
	pstab_set_foreign(tab, AF_INET, bitmap);
	CHECK_EQ(bind4(tab, a, 0, 0), 0);
	CHECK_EQ(ps_ident(a), 1003);
	CHECK_EQ(send4(tab, b, LO1, 1, 8), 0);
	CHECK_EQ(ps_ident(b), 1005);
	/* The IPv6 list does not concern IPv4 sockets. */
	pstab_set_foreign(tab, AF_INET, NULL);
	memset(bitmap, 0xff, sizeof(bitmap));
	pstab_set_foreign(tab, AF_INET6, bitmap);
	CHECK_EQ(connect4(tab, c, LO1, 0), 0);
	CHECK_EQ(ps_ident(c), 1006);
	pstab_close(tab, a);
	pstab_close(tab, b);
	pstab_close(tab, c);
	pstab_free(tab);
}

/* The memory gate: a user's request logs grow only as far as it allows
 * (the log recycles its oldest request past that), and what was charged
 * comes back when the socket goes.  Before the gate, one socket's log
 * took 65,536 requests made in a second: 3.5 MiB. */
struct mem_budget {
	long held, max;
	unsigned asked, refused;
};

static bool budget_gate(void *ctx, uint32_t uid, long kib)
{
	struct mem_budget *b = ctx;

	(void)uid;
	if (kib > 0) {
		b->asked++;
		if (b->held + kib > b->max) {
			b->refused++;
			return false;
		}
	}
	b->held += kib;
	return true;
}

static void request_log_budget(void)
{
	struct pstab *tab = pstab_new(1000);
	struct mem_budget b = { .max = 16 };
	struct psock *sk = open4(tab, 1000);

	pstab_set_mem_gate(tab, budget_gate, &b);
	for (int i = 0; i < 20000; i++)
		CHECK_EQ(sent4(tab, sk, 0x7f000001, (uint16_t)i), 0);
	CHECK(b.asked >= 2);
	CHECK(b.refused >= 1);
	CHECK(b.held > 0 && b.held <= b.max);
	pstab_close(tab, sk);
	CHECK_EQ(b.held, 0);
	pstab_free(tab);
}

/* An explicit bind to an identifier a kernel (broker) socket holds is
 * refused: replies to it would reach both sockets. */
static void bind_refuses_foreign(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *a = open4(tab, 1000), *b = open4(tab, 1000);

	pstab_add_foreign(tab, AF_INET, 4242);
	CHECK(!pstab_ident_used(tab, AF_INET, 4242));
	CHECK(pstab_ident_foreign(tab, AF_INET, 4242));
	CHECK(!pstab_ident_foreign(tab, AF_INET6, 4242));
	CHECK(!pstab_ident_foreign(tab, AF_INET, 4243));
	CHECK_EQ(bind4(tab, a, 0, 4242), -EADDRINUSE);
	CHECK_EQ(bind4(tab, a, 0, 4243), 0);
	CHECK(pstab_ident_used(tab, AF_INET, 4243));
	CHECK(!pstab_ident_used(tab, AF_INET6, 4243));
	pstab_set_foreign(tab, AF_INET, NULL);
	CHECK(!pstab_ident_foreign(tab, AF_INET, 4242));
	CHECK_EQ(bind4(tab, b, 0, 4242), 0);
	pstab_close(tab, a);
	pstab_close(tab, b);
	pstab_free(tab);
}

static void rover_skips_in_use(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *a = open4(tab, 1000), *b = open4(tab, 1000);
	struct psock *c = open4(tab, 1000), *d = open4(tab, 2000);

	CHECK_EQ(bind4(tab, a, 0, 1001), 0);
	CHECK_EQ(bind4(tab, d, 0, 1002), 0);	/* another user's */
	CHECK_EQ(bind4(tab, b, 0, 0), 0);
	CHECK_EQ(ps_ident(b), 1003);
	CHECK_EQ(bind4(tab, c, 0, 0), 0);
	CHECK_EQ(ps_ident(c), 1004);
	pstab_close(tab, a);
	pstab_close(tab, b);
	pstab_close(tab, c);
	pstab_close(tab, d);
	pstab_free(tab);
}

static void rover_wraps_skipping_zero(void)
{
	struct pstab *tab = pstab_new(0xfffe);
	struct psock *a = open4(tab, 1), *b = open4(tab, 1), *c;

	CHECK_EQ(bind4(tab, a, 0, 0), 0);
	CHECK_EQ(ps_ident(a), 0xffff);
	CHECK_EQ(bind4(tab, b, 0, 0), 0);
	CHECK_EQ(ps_ident(b), 1);
	pstab_close(tab, a);
	pstab_close(tab, b);
	pstab_free(tab);

	tab = pstab_new(0xffff);
	a = open4(tab, 1);
	b = open4(tab, 1);
	c = open4(tab, 1);
	CHECK_EQ(bind4(tab, b, 0, 1), 0);	/* 1 taken: next is 2 */
	CHECK_EQ(send4(tab, a, LO1, 1, 8), 0);
	CHECK_EQ(ps_ident(a), 2);
	pstab_close(tab, a);
	pstab_close(tab, b);
	pstab_close(tab, c);
	pstab_free(tab);
}

/* No ident left: bind EADDRINUSE, connect and send EAGAIN. */
static void rover_exhausted(void)
{
	static uint8_t all[65536 / 8];
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);

	memset(all, 0xff, sizeof(all));
	pstab_set_foreign(tab, AF_INET, all);
	CHECK_EQ(bind4(tab, sk, 0, 0), -EADDRINUSE);
	CHECK_EQ(connect4(tab, sk, LO1, 0), -EAGAIN);
	CHECK_EQ(send4(tab, sk, LO1, 1, 64), -EAGAIN);
	CHECK_EQ(ps_ident(sk), 0);
	CHECK_EQ(pstab_idents(tab), 0);
	/* An explicit ident does not go through the rover, but one held
	 * outside (a kernel socket) is refused; a free one is taken. */
	CHECK_EQ(bind4(tab, sk, 0, 40001), -EADDRINUSE);
	all[40001 / 8] = 0;
	pstab_set_foreign(tab, AF_INET, all);
	CHECK_EQ(bind4(tab, sk, 0, 40001), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* A gate that lets uid 1000 hold two identifiers, and counts. */
static int gate_held[2];

static bool two_each(void *ctx, uint32_t uid, int delta)
{
	int *held = &gate_held[uid == 1000 ? 0 : 1];

	(void)ctx;
	if (delta) {
		*held += delta;
		return true;
	}
	return uid != 1000 || *held < 2;
}

/*
 * Identifiers per user (pstab_set_gate): asked before a socket takes an
 * identifier nobody holds, not for a shared one; told when one is let go.
 */
static void ident_gate(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *a = open4(tab, 1000), *b = open4(tab, 1000);
	struct psock *c = open4(tab, 1000), *d = open4(tab, 1000);
	struct psock *o = open4(tab, 2000);

	memset(gate_held, 0, sizeof(gate_held));
	pstab_set_gate(tab, two_each, NULL);
	CHECK_EQ(bind4(tab, a, 0, 40001), 0);
	CHECK_EQ(bind4(tab, b, 0, 40001), 0);	/* shared: not a new one */
	CHECK_EQ(bind4(tab, c, 0, 0), 0);
	CHECK_EQ(gate_held[0], 2);
	CHECK_EQ(bind4(tab, d, 0, 40009), -EADDRINUSE);
	CHECK_EQ(send4(tab, d, LO1, 1, 64), -EAGAIN);	/* autobind */
	CHECK_EQ(bind4(tab, o, 0, 0), 0);	/* another user's share */
	CHECK_EQ(gate_held[1], 1);
	pstab_close(tab, a);
	CHECK_EQ(gate_held[0], 2);		/* b still holds 40001 */
	pstab_close(tab, b);
	CHECK_EQ(gate_held[0], 1);
	CHECK_EQ(bind4(tab, d, 0, 40009), 0);
	pstab_close(tab, c);
	pstab_close(tab, d);
	pstab_close(tab, o);
	CHECK_EQ(gate_held[0], 0);
	CHECK_EQ(gate_held[1], 0);
	pstab_free(tab);
}

/*
 * Source routes: refused to an unprivileged caller, as the kernel does
 * (EPERM, measured); malformed ones first EINVAL.  A record route and a
 * source route together: EPERM.
 */
static void source_routes_refused(void)
{
	static const uint8_t lsrr[8] = { 131, 7, 4, 10, 0, 0, 1, 0 };
	static const uint8_t ssrr[8] = { 137, 7, 4, 10, 0, 0, 1, 0 };
	static const uint8_t ptr8[8] = { 131, 7, 8, 10, 0, 0, 1, 0 };
	static const uint8_t rr_lsrr[12] = { 7, 3, 4, 131, 7, 4, 10, 0, 0,
					     1, 0, 0 };
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);

	CHECK_EQ(ps_setopt(sk, &env, SOL_IP, IP_OPTIONS, lsrr, 8), -EPERM);
	CHECK_EQ(ps_setopt(sk, &env, SOL_IP, IP_OPTIONS, ssrr, 8), -EPERM);
	CHECK_EQ(ps_setopt(sk, &env, SOL_IP, IP_OPTIONS, ptr8, 8), -EINVAL);
	CHECK_EQ(ps_setopt(sk, &env, SOL_IP, IP_OPTIONS, rr_lsrr, 12),
		 -EPERM);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ---- connect() ---- */

static void connect_sets_peer_and_source(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *a = open4(tab, 1000), *b = open4(tab, 1000);
	uint32_t h;
	uint16_t p;

	CHECK_EQ(connect4(tab, a, LO5, 7), 0);
	CHECK_EQ(ps_ident(a), 1001);			/* auto-bound */
	CHECK_EQ(getname(a, false, &h, &p), sizeof(struct sockaddr_in));
	CHECK_EQ(h, LO1);				/* the route's */
	CHECK_EQ(p, 1001);
	CHECK_EQ(getname(a, true, &h, &p), sizeof(struct sockaddr_in));
	CHECK_EQ(h, LO5);
	CHECK_EQ(p, 7);

	CHECK_EQ(connect4(tab, b, HOST2, 9), 0);
	CHECK_EQ(sockaddr_host(b), HOST1);
	/* Reconnect: the source stays, the peer changes. */
	CHECK_EQ(connect4(tab, b, LO5, 9), 0);
	CHECK_EQ(sockaddr_host(b), HOST1);
	CHECK_EQ(getname(b, true, &h, &p), sizeof(struct sockaddr_in));
	CHECK_EQ(h, LO5);
	CHECK_EQ(ps_ident(b), 1002);
	pstab_close(tab, a);
	pstab_close(tab, b);
	pstab_free(tab);
}

/* Connected with port 0: getpeername ENOTCONN, but send works. */
static void connect_port0(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);

	CHECK_EQ(connect4(tab, sk, LO5, 0), 0);
	CHECK_EQ(ps_getname(sk, true, sabuf), -ENOTCONN);
	CHECK_EQ(send4(tab, sk, NONAME, 1, 64), 0);
	CHECK_EQ(host_of(&info.dst), LO5);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* A bound address is the source; the route does not replace it. */
static void connect_keeps_bound_source(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);

	CHECK_EQ(bind4(tab, sk, HOST1, 40001), 0);
	CHECK_EQ(connect4(tab, sk, LO5, 1), 0);
	CHECK_EQ(sockaddr_host(sk), HOST1);
	CHECK_EQ(sockport(sk), 40001);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void connect_route_error_propagates(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	uint32_t h;
	uint16_t p;

	CHECK_EQ(connect4(tab, sk, NOROUTE, 1), -ENETUNREACH);
	CHECK_EQ(ps_ident(sk), 1001);		/* bound before routing */
	CHECK_EQ(getname(sk, true, &h, &p), -ENOTCONN);
	CHECK_EQ(sockaddr_host(sk), 0);
	CHECK_EQ(send4(tab, sk, NONAME, 1, 64), -EDESTADDRREQ);

	CHECK_EQ(connect4(tab, sk, BCAST, 1), -EACCES);
	CHECK_EQ(connect4(tab, sk, 0xffffffffu, 1), -EACCES);
	CHECK_EQ(getname(sk, true, &h, &p), -ENOTCONN);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_BROADCAST, 1), 0);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_BROADCAST), 1);
	CHECK_EQ(connect4(tab, sk, BCAST, 1), 0);
	CHECK_EQ(getname(sk, true, &h, &p), sizeof(struct sockaddr_in));
	CHECK_EQ(h, BCAST);

	/* A failed reconnect leaves the old peer. */
	CHECK_EQ(connect4(tab, sk, NOROUTE, 2), -ENETUNREACH);
	CHECK_EQ(getname(sk, true, &h, &p), sizeof(struct sockaddr_in));
	CHECK_EQ(h, BCAST);
	CHECK_EQ(p, 1);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* inet_dgram_connect(), then ip4_datagram_connect(). */
static void connect_argument_errors(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	uint32_t len;

	len = sa4(AF_INET, LO1, 1);
	CHECK_EQ(ps_connect(tab, sk, &env, sabuf, 1), -EINVAL);
	CHECK_EQ(ps_connect(tab, sk, &env, sabuf, 0), -EINVAL);
	CHECK_EQ(ps_ident(sk), 0);		/* before autobind */
	CHECK_EQ(ps_connect(tab, sk, &env, sabuf, len - 1), -EINVAL);
	CHECK_EQ(ps_ident(sk), 1001);		/* after it */
	len = sa6_loopback();
	CHECK_EQ(ps_connect(tab, sk, &env, sabuf, len), -EAFNOSUPPORT);
	CHECK_EQ(ps_getname(sk, true, sabuf), -ENOTCONN);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* AF_UNSPEC: an auto-bound ident is given back (__udp_disconnect). */
static void disconnect_releases_autobound(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	uint32_t h;
	uint16_t p;

	CHECK_EQ(connect4(tab, sk, LO5, 7), 0);
	CHECK_EQ(pstab_idents(tab), 1);
	/* Only the family matters: two bytes are enough. */
	sa4(AF_UNSPEC, 0, 0);
	CHECK_EQ(ps_connect(tab, sk, &env, sabuf, 2), 0);
	CHECK_EQ(ps_ident(sk), 0);
	CHECK_EQ(pstab_idents(tab), 0);
	CHECK_EQ(getname(sk, false, &h, &p), sizeof(struct sockaddr_in));
	CHECK_EQ(h, 0);
	CHECK_EQ(p, 0);
	CHECK_EQ(getname(sk, true, &h, &p), -ENOTCONN);
	CHECK_EQ(send4(tab, sk, NONAME, 1, 64), -EDESTADDRREQ);
	CHECK_EQ(ps_ident(sk), 1002);		/* that send re-bound it */

	/* bind with port 0 is not a locked port either (measured). */
	pstab_close(tab, sk);
	sk = open4(tab, 1000);
	CHECK_EQ(bind4(tab, sk, 0, 0), 0);
	CHECK_EQ(connect4(tab, sk, LO5, 0), 0);
	CHECK_EQ(disconnect(tab, sk), 0);
	CHECK_EQ(sockport(sk), 0);
	CHECK_EQ(pstab_idents(tab), 0);

	/* Disconnecting an unconnected, unbound socket is harmless. */
	CHECK_EQ(disconnect(tab, sk), 0);
	CHECK_EQ(disconnect(tab, sk), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* An explicitly bound ident (and address) survives the disconnect. */
static void disconnect_keeps_bound(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *a = open4(tab, 1000), *b = open4(tab, 1000);
	uint32_t h;
	uint16_t p;

	CHECK_EQ(bind4(tab, a, 0, 40001), 0);
	CHECK_EQ(connect4(tab, a, LO5, 0), 0);
	CHECK_EQ(sockaddr_host(a), LO1);
	CHECK_EQ(disconnect(tab, a), 0);
	CHECK_EQ(getname(a, false, &h, &p), sizeof(struct sockaddr_in));
	CHECK_EQ(h, 0);			/* the route's source goes */
	CHECK_EQ(p, 40001);		/* the bound ident stays */
	CHECK_EQ(pstab_idents(tab), 1);
	CHECK_EQ(bind4(tab, a, 0, 40005), -EINVAL);	/* still bound */

	CHECK_EQ(bind4(tab, b, HOST1, 40002), 0);
	CHECK_EQ(connect4(tab, b, LO5, 3), 0);
	CHECK_EQ(disconnect(tab, b), 0);
	CHECK_EQ(getname(b, false, &h, &p), sizeof(struct sockaddr_in));
	CHECK_EQ(h, HOST1);
	CHECK_EQ(p, 40002);
	CHECK_EQ(getname(b, true, &h, &p), -ENOTCONN);
	pstab_close(tab, a);
	pstab_close(tab, b);
	pstab_free(tab);
}

/* ---- sendto() ---- */

/* inet_send_prepare() binds before the protocol looks at anything. */
static void send_autobinds_first(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk;
	uint8_t *tiny = malloc(8);
	uint32_t nl;

	sk = open4(tab, 1000);
	CHECK_EQ(send4(tab, sk, LO1, 1, 4), -EINVAL);
	CHECK_EQ(ps_ident(sk), 1001);
	CHECK_EQ(sockport(sk), 1001);
	pstab_close(tab, sk);

	sk = open4(tab, 1000);
	CHECK_EQ(send4(tab, sk, NONAME, 1, 64), -EDESTADDRREQ);
	CHECK_EQ(ps_ident(sk), 1002);
	pstab_close(tab, sk);

	/* Oversized: EMSGSIZE, without reading the (absent) data. */
	sk = open4(tab, 1000);
	nl = sa4(AF_INET, LO1, 0);
	memcpy(tiny, "\x08\0\0\0\0\0\0\0", 8);
	CHECK_EQ(ps_send_prepare(tab, sk, &env, 0, sabuf, nl, NULL, 0, tiny,
				 WIRE_DATA_MAX + 1, &info), -EMSGSIZE);
	CHECK_EQ(ps_ident(sk), 1003);
	pstab_close(tab, sk);
	free(tiny);
	pstab_free(tab);
}

/* ping_common_sendmsg() then ping_v4_sendmsg(): the order of checks. */
static void send_check_order(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	uint32_t nl;
	uint8_t *m;

#define SEND(flags, name, namelen, len) \
	ps_send_prepare(tab, sk, &env, (flags), (name), (namelen), NULL, 0, \
			m, (len), &info)

	/* > 0xFFFF: EMSGSIZE before anything else. */
	m = echo(0, 1, 1, 64);
	nl = sa4(AF_INET6, 0, 0);
	CHECK_EQ(SEND(MSG_OOB, sabuf, 8, WIRE_DATA_MAX + 1), -EMSGSIZE);
	CHECK_EQ(SEND(0, NULL, 0, 0xffffffffu), -EMSGSIZE);

	/* < 8: EINVAL, before MSG_OOB. */
	CHECK_EQ(SEND(MSG_OOB, sabuf, nl, 7), -EINVAL);
	CHECK_EQ(SEND(MSG_OOB, NULL, 0, 0), -EINVAL);
	m = echo(8, 0, 1, 64);
	CHECK_EQ(SEND(0, NULL, 0, 1), -EINVAL);

	/* MSG_OOB: EOPNOTSUPP, before the type. */
	m = echo(0, 0, 1, 64);
	CHECK_EQ(SEND(MSG_OOB, NULL, 0, 64), -EOPNOTSUPP);
	m = echo(8, 0, 1, 64);
	CHECK_EQ(SEND(MSG_OOB | MSG_DONTWAIT, sabuf, nl, 64), -EOPNOTSUPP);

	/* Type and code: EINVAL, before the address. */
	nl = sa4(AF_INET, LO1, 0);
	m = echo(0, 0, 1, 64);
	CHECK_EQ(SEND(0, sabuf, nl, 64), -EINVAL);
	m = echo(13, 0, 1, 64);
	CHECK_EQ(SEND(0, sabuf, nl, 64), -EINVAL);
	m = echo(8, 1, 1, 64);
	CHECK_EQ(SEND(0, sabuf, nl, 64), -EINVAL);
	m = echo(128, 0, 1, 64);		/* IPv6's echo */
	CHECK_EQ(SEND(0, sabuf, nl, 64), -EINVAL);
	m = echo(0, 0, 1, 64);
	CHECK_EQ(SEND(0, NULL, 0, 64), -EINVAL);	/* not EDESTADDRREQ */
	nl = sa6_loopback();
	CHECK_EQ(SEND(0, sabuf, nl, 64), -EINVAL);	/* not EAFNOSUPPORT */

	/* The address. */
	m = echo(8, 0, 1, 64);
	nl = sa4(AF_INET, LO1, 0);
	CHECK_EQ(SEND(0, sabuf, 8, 64), -EINVAL);
	CHECK_EQ(SEND(0, sabuf, nl - 1, 64), -EINVAL);
	nl = sa6_loopback();
	CHECK_EQ(SEND(0, sabuf, nl, 64), -EAFNOSUPPORT);
	nl = sa4(AF_UNSPEC, 0, 0);
	CHECK_EQ(SEND(0, sabuf, nl, 64), -EAFNOSUPPORT);
	CHECK_EQ(SEND(0, NULL, 0, 64), -EDESTADDRREQ);

	/* And what passes: 8 bytes, 0xFFFF bytes, Extended Echo. */
	nl = sa4(AF_INET, LO1, 0);
	CHECK_EQ(SEND(0, sabuf, nl, 8), 0);
	m = echo(8, 0, 1, WIRE_DATA_MAX);
	CHECK_EQ(SEND(MSG_DONTWAIT, sabuf, nl, WIRE_DATA_MAX), 0);
	m = echo(42, 0, 1, 64);
	CHECK_EQ(SEND(0, sabuf, nl, 64), 0);
#undef SEND
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* The message gets the socket's ident and a checksum that verifies;
 * seq and payload are the caller's. */
static void send_rewrites_message(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	uint8_t orig[64];

	CHECK_EQ(bind4(tab, sk, 0, 40001), 0);
	for (size_t len = 8; len <= 64; len += 7) {
		echo(8, 0, 0x0203, len);
		memcpy(orig, mbuf, len);
		CHECK_EQ(send4(tab, sk, LO5, 0x0203, len), 0);
		CHECK_EQ(mbuf[0], 8);
		CHECK_EQ(mbuf[1], 0);
		CHECK_EQ(mbuf[4] << 8 | mbuf[5], 40001);
		CHECK_EQ(mbuf[6] << 8 | mbuf[7], 0x0203);
		CHECK(memcmp(mbuf + 8, orig + 8, len - 8) == 0);
		CHECK_EQ(icmp_checksum(mbuf, len), 0);
		CHECK_EQ(info.seq, 0x0203);
		CHECK_EQ(info.dst.family, AF_INET);
		CHECK_EQ(host_of(&info.dst), LO5);
		CHECK(ps_addr_is_any(&info.src));
		CHECK_EQ(info.ttl, -1);
		CHECK_EQ(info.broadcast, false);
	}
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* What the daemon is told: TTL, multicast TTL, TOS, broadcast, source. */
static void send_info_follows_options(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);

	CHECK_EQ(bind4(tab, sk, HOST1, 0), 0);
	CHECK_EQ(setint(sk, SOL_IP, IP_TTL, 5), 0);
	CHECK_EQ(setint(sk, SOL_IP, IP_MULTICAST_TTL, 3), 0);
	CHECK_EQ(setint(sk, SOL_IP, IP_TOS, 0x10), 0);
	CHECK_EQ(send4(tab, sk, HOST2, 9, 64), 0);
	CHECK_EQ(info.ttl, 5);
	CHECK_EQ(info.tos, 0x10);
	CHECK_EQ(host_of(&info.src), HOST1);
	CHECK_EQ(send4(tab, sk, MCAST, 10, 64), 0);
	/* A group's TTL goes as IP_MULTICAST_TTL (it may be 0). */
	CHECK_EQ(info.ttl, -1);
	CHECK_EQ(info.mc_ttl, 3);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_BROADCAST, 1), 0);
	CHECK_EQ(send4(tab, sk, BCAST, 11, 64), 0);
	CHECK(info.broadcast);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void send_connected_uses_peer(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);

	CHECK_EQ(connect4(tab, sk, LO5, 7), 0);
	CHECK_EQ(send4(tab, sk, NONAME, 1, 64), 0);
	CHECK_EQ(host_of(&info.dst), LO5);
	CHECK_EQ(host_of(&info.src), LO1);
	CHECK_EQ(send4(tab, sk, LO2, 2, 64), 0);	/* a name wins */
	CHECK_EQ(host_of(&info.dst), LO2);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* One control message at off in buf; returns the offset after it. */
static size_t put_cmsg(uint8_t *buf, size_t off, int level, int type,
		       const void *data, size_t dlen)
{
	struct cmsghdr h;

	memset(&h, 0, sizeof(h));
	h.cmsg_len = CMSG_LEN(dlen);
	h.cmsg_level = level;
	h.cmsg_type = type;
	memcpy(buf + off, &h, sizeof(h));
	memcpy(buf + off + CMSG_LEN(0), data, dlen);
	return off + CMSG_SPACE(dlen);
}

static int send_ctl(struct pstab *tab, struct psock *sk, const uint8_t *ctl,
		    size_t ctllen)
{
	uint32_t nl = sa4(AF_INET, LO5, 0);

	echo(8, 0, 1, 64);
	return ps_send_prepare(tab, sk, &env, 0, sabuf, nl, ctl,
			       (uint32_t)ctllen, mbuf, 64, &info);
}

/* Per-packet IP_TTL and IP_TOS (ip_cmsg_send()). */
static void send_control_messages(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	uint8_t ctl[256] __attribute__((aligned(8)));
	uint8_t b = 0x20;
	int v;
	size_t n;

	CHECK_EQ(setint(sk, SOL_IP, IP_TTL, 9), 0);
	v = 7;
	n = put_cmsg(ctl, 0, SOL_IP, IP_TTL, &v, sizeof(v));
	n = put_cmsg(ctl, n, SOL_IP, IP_TOS, &b, 1);
	CHECK_EQ(send_ctl(tab, sk, ctl, n), 0);
	CHECK_EQ(info.ttl, 7);
	CHECK_EQ(info.tos, 0x20);
	CHECK_EQ(send_ctl(tab, sk, ctl, 0), 0);	/* none: the socket's */
	CHECK_EQ(info.ttl, 9);

	v = 0;
	n = put_cmsg(ctl, 0, SOL_IP, IP_TTL, &v, sizeof(v));
	CHECK_EQ(send_ctl(tab, sk, ctl, n), -EINVAL);
	v = 256;
	n = put_cmsg(ctl, 0, SOL_IP, IP_TTL, &v, sizeof(v));
	CHECK_EQ(send_ctl(tab, sk, ctl, n), -EINVAL);
	n = put_cmsg(ctl, 0, SOL_IP, IP_TTL, &b, 1);	/* must be an int */
	CHECK_EQ(send_ctl(tab, sk, ctl, n), -EINVAL);
	v = 0x100;
	n = put_cmsg(ctl, 0, SOL_IP, IP_TOS, &v, sizeof(v));
	CHECK_EQ(send_ctl(tab, sk, ctl, n), -EINVAL);
	v = 0x48;
	n = put_cmsg(ctl, 0, SOL_IP, IP_TOS, &v, sizeof(v));
	CHECK_EQ(send_ctl(tab, sk, ctl, n), 0);
	CHECK_EQ(info.tos, 0x48);
	n = put_cmsg(ctl, 0, SOL_IP, IP_RECVERR, &v, sizeof(v));
	CHECK_EQ(send_ctl(tab, sk, ctl, n), -EINVAL);	/* unknown type */
	/* Other levels are skipped. */
	n = put_cmsg(ctl, 0, IPPROTO_TCP, 1, &v, sizeof(v));
	CHECK_EQ(send_ctl(tab, sk, ctl, n), 0);
	/* A header longer than what is left: EINVAL (CMSG_OK). */
	v = 7;
	put_cmsg(ctl, 0, SOL_IP, IP_TTL, &v, sizeof(v));
	CHECK_EQ(send_ctl(tab, sk, ctl, CMSG_LEN(sizeof(v)) - 1), -EINVAL);
	/* Less than a header: no message at all (CMSG_FIRSTHDR). */
	CHECK_EQ(send_ctl(tab, sk, ctl, sizeof(struct cmsghdr) - 1), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * shutdown(): the kernel sets sk_shutdown even when it answers ENOTCONN,
 * and a send after SHUT_WR fails with EPIPE (sock_alloc_send_pskb).
 * Measured on Linux 6.18 with a ping socket: connected + SHUT_WR -> 0,
 * send -> EPIPE; unconnected + SHUT_WR -> ENOTCONN, sendto -> EPIPE.
 */
static void shutdown_then_send(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);

	CHECK_EQ(ps_shutdown(sk, -1), -EINVAL);
	CHECK_EQ(ps_shutdown(sk, 3), -EINVAL);
	CHECK_EQ(connect4(tab, sk, LO5, 0), 0);
	CHECK_EQ(ps_shutdown(sk, SHUT_RD), 0);
	CHECK_EQ(send4(tab, sk, NONAME, 1, 64), 0);	/* reading only */
	CHECK_EQ(ps_shutdown(sk, SHUT_WR), 0);
	CHECK_EQ(send4(tab, sk, NONAME, 2, 64), -EPIPE);
	pstab_close(tab, sk);

	sk = open4(tab, 1000);
	CHECK_EQ(ps_shutdown(sk, SHUT_RDWR), -ENOTCONN);
	CHECK_EQ(send4(tab, sk, LO5, 1, 64), -EPIPE);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ---- pstab_lookup() ---- */

static void lookup_only_after_sent(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	struct icmp_pkt p;
	uint16_t id;

	CHECK_EQ(send4(tab, sk, LO2, 1, 64), 0);
	id = ps_ident(sk);
	p = reply(LO2, LO1, id, 1);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);	/* not sent yet */
	ps_sent(sk, &info, 1000);
	CHECK(pstab_lookup(tab, &p, 1) == sk);
	CHECK(pstab_lookup(tab, &p, 1) == sk);		/* duplicates too */
	p = reply(LO2, LO1, id, 2);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);	/* wrong seq */
	p = reply(0x7f000003, LO1, id, 1);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);	/* wrong replier */
	p = reply(LO2, LO1, (uint16_t)(id + 1), 1);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);	/* wrong ident */
	p = reply(LO2, LO1, id, 1);
	p.dst.family = AF_INET6;
	p.src.family = AF_INET6;
	CHECK(pstab_lookup(tab, &p, 1) == NULL);	/* other family */

	/* Closed: nothing matches any more. */
	pstab_close(tab, sk);
	p = reply(LO2, LO1, id, 1);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);
	pstab_free(tab);
}

/*
 * A request answers for the identifier it carried: a disconnect that
 * gives up an automatically bound identifier forgets the requests sent
 * with it, so that a reply with the next identifier the socket gets does
 * not pass for one of them (design.md: "identifier and sequence number
 * of one of its recent requests").  Found by the fuzz target fuzz_idents.
 */
static void lookup_needs_the_identifier_sent(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	struct icmp_pkt p;
	uint16_t old;

	CHECK_EQ(sent4(tab, sk, LO2, 7), 0);
	old = ps_ident(sk);
	CHECK_EQ(disconnect(tab, sk), 0);
	CHECK_EQ(ps_ident(sk), 0);
	CHECK_EQ(bind4(tab, sk, 0, 40002), 0);	/* or PINGSOCK_IDENT=keep */
	p = reply(LO2, LO1, 40002, 7);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);	/* 7 went with old */
	CHECK_EQ(sent4(tab, sk, LO2, 8), 0);
	p = reply(LO2, LO1, 40002, 8);
	CHECK(pstab_lookup(tab, &p, 1) == sk);
	p = reply(LO2, LO1, old, 7);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);
	/* Bound by bind(), the identifier stays, and so do its requests. */
	CHECK_EQ(disconnect(tab, sk), 0);
	CHECK_EQ(ps_ident(sk), 40002);
	p = reply(LO2, LO1, 40002, 8);
	CHECK(pstab_lookup(tab, &p, 1) == sk);
	pstab_close(tab, sk);
	/* Bound again automatically (by a send): a new identifier. */
	sk = open4(tab, 1000);
	CHECK_EQ(sent4(tab, sk, LO2, 9), 0);
	CHECK_EQ(disconnect(tab, sk), 0);
	CHECK_EQ(sent4(tab, sk, LO2, 10), 0);
	p = reply(LO2, LO1, ps_ident(sk), 9);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);
	p = reply(LO2, LO1, ps_ident(sk), 10);
	CHECK(pstab_lookup(tab, &p, 1) == sk);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* An error matches by the quoted request's destination. */
static void lookup_error_by_quoted_request(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	struct icmp_pkt p;

	CHECK_EQ(sent4(tab, sk, 0x0a050505u, 4), 0);
	p = reply(0x0a4d0101u, HOST1, ps_ident(sk), 4);	/* from a router */
	p.kind = ICMP_K_ERROR;
	p.type = 11;
	ps_addr_v4(&p.q_src, htonl(HOST1));
	ps_addr_v4(&p.q_dst, htonl(0x0a050505u));
	CHECK(pstab_lookup(tab, &p, 1) == sk);
	ps_addr_v4(&p.q_dst, htonl(0x0a050506u));
	CHECK(pstab_lookup(tab, &p, 1) == NULL);
	ps_addr_v4(&p.q_dst, htonl(0x0a050505u));
	p.seq = 5;
	CHECK(pstab_lookup(tab, &p, 1) == NULL);
	/* The router's own address is no reply to our request. */
	p = reply(0x0a4d0101u, HOST1, ps_ident(sk), 4);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * An IPv4 datagram src -> dst carrying an ICMP message: type, code, the
 * 32 bits after the checksum, then data.  Parsed by icmp4_parse() into
 * *p, as the daemon reads it off its raw socket.
 */
static void wire4(struct icmp_pkt *p, uint8_t *buf, uint32_t src,
		  uint32_t dst, uint8_t type, uint32_t rest,
		  const uint8_t *data, size_t dlen)
{
	uint32_t s = htonl(src), d = htonl(dst), r = htonl(rest);
	uint16_t sum, tot = (uint16_t)(20 + 8 + dlen);

	memset(buf, 0, 28);
	buf[0] = 0x45;
	buf[2] = (uint8_t)(tot >> 8);
	buf[3] = (uint8_t)tot;
	buf[8] = 64;
	buf[9] = IPPROTO_ICMP;
	memcpy(buf + 12, &s, 4);
	memcpy(buf + 16, &d, 4);
	buf[20] = type;
	memcpy(buf + 24, &r, 4);
	if (dlen)
		memcpy(buf + 28, data, dlen);	/* data may be NULL */
	sum = icmp_checksum(buf + 20, 8 + dlen);
	memcpy(buf + 22, &sum, 2);
	CHECK_EQ(icmp4_parse(buf, tot, p), ICMP_PARSE_OK);
}

/* Host Unreachable from router, quoting a request qtype LO1 -> qdst. */
static void error4(struct icmp_pkt *p, uint8_t *buf, uint32_t router,
		   uint32_t qdst, uint8_t qtype, uint16_t id, uint16_t seq)
{
	uint8_t q[28];
	uint32_t s = htonl(LO1), d = htonl(qdst);

	memset(q, 0, sizeof(q));
	q[0] = 0x45;
	q[3] = 84;
	q[8] = 64;
	q[9] = IPPROTO_ICMP;
	memcpy(q + 12, &s, 4);
	memcpy(q + 16, &d, 4);
	q[20] = qtype;
	q[24] = (uint8_t)(id >> 8);
	q[25] = (uint8_t)id;
	q[26] = (uint8_t)(seq >> 8);
	q[27] = (uint8_t)seq;
	wire4(p, buf, router, LO1, 3, 0, q, sizeof(q));
}

/* A sent request of type 8 or 42 (PROBE) with this sequence field. */
static void sent4_type(struct pstab *tab, struct psock *sk, uint32_t host,
		       uint8_t type, uint16_t seq)
{
	uint32_t nl = sa4(AF_INET, host, 0);

	echo(type, 0, seq, 64);
	CHECK_EQ(ps_send_prepare(tab, sk, &env, 0, sabuf, nl, NULL, 0, mbuf,
				 64, &info), 0);
	ps_sent(sk, &info, 1000);
}

/*
 * RFC 8335 (issue 21, item 6).  An Extended Echo Reply answers a PROBE
 * only, and repeats its 8-bit sequence number (the field's high byte;
 * the low byte is the interface's state); an Echo Reply answers an Echo
 * Request only; an error quoting a PROBE names it exactly, all 16 bits
 * as sent.  Before, an Echo Request with a sequence ending in 0x00 let
 * 256 forged Extended Echo Replies, and errors quoting 256 PROBEs never
 * sent, through.
 */
static void lookup_probe_by_type_and_seq(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	uint8_t buf[128];
	struct icmp_pkt p;
	uint16_t id;
	unsigned leaks = 0;

	CHECK_EQ(bind4(tab, sk, 0, 40003), 0);
	id = ps_ident(sk);
	sent4_type(tab, sk, LO2, 8, 0x0500);	/* an Echo Request */
	for (unsigned lo = 0; lo < 256; lo++) {
		uint16_t seq = (uint16_t)(0x0500 | lo);

		wire4(&p, buf, LO2, LO1, 43, (uint32_t)id << 16 | seq,
		      NULL, 0);
		leaks += pstab_lookup(tab, &p, 1) != NULL;
		error4(&p, buf, LO2, LO2, 42, id, seq);
		CHECK_EQ(p.kind, ICMP_K_ERROR);
		leaks += pstab_lookup(tab, &p, 1) != NULL;
	}
	CHECK_EQ(leaks, 0);
	/* The Echo Request itself is still answered. */
	wire4(&p, buf, LO2, LO1, 0, (uint32_t)id << 16 | 0x0500, NULL, 0);
	CHECK(pstab_lookup(tab, &p, 1) == sk);
	error4(&p, buf, LO2, LO2, 8, id, 0x0500);
	CHECK(pstab_lookup(tab, &p, 1) == sk);

	/* A PROBE, L bit set: its replies carry any state in the low byte. */
	sent4_type(tab, sk, LO2, 42, 0x0701);
	CHECK_EQ(info.seq, 0x0701);
	for (unsigned st = 0; st < 256; st += 5) {
		wire4(&p, buf, LO2, LO1, 43, (uint32_t)id << 16 | 0x0700 | st,
		      NULL, 0);
		CHECK(pstab_lookup(tab, &p, 1) == sk);
	}
	wire4(&p, buf, LO2, LO1, 43, (uint32_t)id << 16 | 0x0601, NULL, 0);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);	/* other seq */
	wire4(&p, buf, 0x7f000003u, LO1, 43, (uint32_t)id << 16 | 0x0707,
	      NULL, 0);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);	/* other replier */
	wire4(&p, buf, LO2, LO1, 0, (uint32_t)id << 16 | 0x0701, NULL, 0);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);	/* an Echo Reply */
	wire4(&p, buf, LO2, LO1, 0, (uint32_t)id << 16 | 0x0700, NULL, 0);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);
	/* Errors: the PROBE as sent, and nothing else. */
	error4(&p, buf, LO2, LO2, 42, id, 0x0701);
	CHECK(pstab_lookup(tab, &p, 1) == sk);
	error4(&p, buf, LO2, LO2, 42, id, 0x0700);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);	/* L bit differs */
	error4(&p, buf, LO2, LO2, 8, id, 0x0701);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);	/* an Echo Request */
	error4(&p, buf, LO2, 0x7f000009u, 42, id, 0x0701);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);	/* sent elsewhere */
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* Multicast and broadcast requests: any replier will do. */
static void lookup_group_requests(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	struct icmp_pkt p;

	CHECK_EQ(sent4(tab, sk, MCAST, 1), 0);
	p = reply(0x0a000009u, HOST1, ps_ident(sk), 1);
	CHECK(pstab_lookup(tab, &p, 1) == sk);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_BROADCAST, 1), 0);
	CHECK_EQ(sent4(tab, sk, BCAST, 2), 0);
	p = reply(0x0a000007u, HOST1, ps_ident(sk), 2);
	CHECK(pstab_lookup(tab, &p, 1) == sk);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* A socket bound to an address takes only replies sent to it. */
static void lookup_bound_address(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	struct icmp_pkt p;

	CHECK_EQ(bind4(tab, sk, HOST1, 40001), 0);
	CHECK_EQ(sent4(tab, sk, LO2, 1), 0);
	p = reply(LO2, LO1, 40001, 1);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);
	p = reply(LO2, HOST1, 40001, 1);
	CHECK(pstab_lookup(tab, &p, 1) == sk);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* A socket bound to a device takes only what arrives on it; a
 * disconnect unbinds the device (__udp_disconnect). */
static void lookup_bound_device(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	struct icmp_pkt p;
	uint8_t name[16];
	uint32_t len = sizeof(name);

	CHECK_EQ(ps_setopt(sk, &env, SOL_SOCKET, SO_BINDTODEVICE,
			   (const uint8_t *)"nosuch", 6), -ENODEV);
	CHECK_EQ(ps_setopt(sk, &env, SOL_SOCKET, SO_BINDTODEVICE,
			   (const uint8_t *)"eth0", 5), 0);
	CHECK_EQ(ps_getopt(sk, &env, SOL_SOCKET, SO_BINDTODEVICE, name, &len),
		 0);
	CHECK_EQ(len, 5);
	CHECK(memcmp(name, "eth0", 5) == 0);
	CHECK_EQ(connect4(tab, sk, HOST2, 0), 0);
	CHECK_EQ(send4(tab, sk, NONAME, 1, 64), 0);
	CHECK_EQ(info.ifindex, 2);
	ps_sent(sk, &info, 1000);
	p = reply(HOST2, HOST1, ps_ident(sk), 1);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);
	CHECK(pstab_lookup(tab, &p, 2) == sk);

	CHECK_EQ(disconnect(tab, sk), 0);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_BINDTOIFINDEX), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* Same ident: the newest bound socket first, among those that sent. */
static void lookup_newest_bound_first(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *a = open4(tab, 1000), *b = open4(tab, 1000);
	struct psock *c = open4(tab, 1000);
	struct icmp_pkt p;

	CHECK_EQ(bind4(tab, a, 0, 5000), 0);
	CHECK_EQ(bind4(tab, b, 0, 5000), 0);
	CHECK_EQ(bind4(tab, c, HOST1, 5000), 0);
	CHECK_EQ(sent4(tab, a, LO2, 1), 0);
	CHECK_EQ(sent4(tab, b, LO2, 1), 0);
	CHECK_EQ(sent4(tab, c, LO2, 1), 0);
	p = reply(LO2, LO1, 5000, 1);
	CHECK(pstab_lookup(tab, &p, 1) == b);	/* c is bound elsewhere */
	p = reply(LO2, HOST1, 5000, 1);
	CHECK(pstab_lookup(tab, &p, 1) == c);

	/* Only a sent seq 2: a takes it, though b is newer. */
	CHECK_EQ(sent4(tab, a, LO2, 2), 0);
	p = reply(LO2, LO1, 5000, 2);
	CHECK(pstab_lookup(tab, &p, 1) == a);

	pstab_close(tab, b);
	p = reply(LO2, LO1, 5000, 1);
	CHECK(pstab_lookup(tab, &p, 1) == a);
	pstab_close(tab, a);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);
	pstab_close(tab, c);
	pstab_free(tab);
}

/* ---- options ---- */

static void ip_ttl(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	uint8_t one;

	CHECK_EQ(getint(sk, SOL_IP, IP_TTL), 64);	/* the route's */
	CHECK_EQ(setint(sk, SOL_IP, IP_TTL, 10), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_TTL), 10);
	CHECK_EQ(setint(sk, SOL_IP, IP_TTL, 0), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IP, IP_TTL, 256), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IP, IP_TTL, -2), -EINVAL);
	CHECK_EQ(getint(sk, SOL_IP, IP_TTL), 10);	/* unchanged */
	CHECK_EQ(setint(sk, SOL_IP, IP_TTL, 255), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_TTL), 255);
	CHECK_EQ(setint(sk, SOL_IP, IP_TTL, 1), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_TTL), 1);
	CHECK_EQ(setint(sk, SOL_IP, IP_TTL, -1), 0);	/* back to default */
	CHECK_EQ(getint(sk, SOL_IP, IP_TTL), 64);

	/* Shorter than an int: one byte, unsigned (do_ip_setsockopt). */
	one = 0x20;
	CHECK_EQ(ps_setopt(sk, &env, SOL_IP, IP_TTL, &one, 1), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_TTL), 32);
	one = 0xff;
	CHECK_EQ(ps_setopt(sk, &env, SOL_IP, IP_TTL, &one, 1), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_TTL), 255);
	one = 0;
	CHECK_EQ(ps_setopt(sk, &env, SOL_IP, IP_TTL, &one, 1), -EINVAL);
	CHECK_EQ(ps_setopt(sk, &env, SOL_IP, IP_TTL,
			   (const uint8_t *)"\x21\x00", 2), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_TTL), 33);
	CHECK_EQ(ps_setopt(sk, &env, SOL_IP, IP_TTL, &one, 0), -EINVAL);
	CHECK_EQ(getint(sk, SOL_IP, IP_TTL), 33);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* getsockopt with a short buffer (measured). */
static void getopt_short_buffer(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	uint8_t v[8];
	uint32_t len;
	int i;

	/* SOL_IP, *len 1 or 2: one byte. */
	for (uint32_t want = 1; want <= 3; want++) {
		memset(v, 0xee, sizeof(v));
		len = want;
		CHECK_EQ(ps_getopt(sk, &env, SOL_IP, IP_TTL, v, &len), 0);
		CHECK_EQ(len, 1);
		CHECK_EQ(v[0], 64);
		CHECK_EQ(v[1], 0xee);
	}
	/* *len 0: nothing. */
	memset(v, 0xee, sizeof(v));
	len = 0;
	CHECK_EQ(ps_getopt(sk, &env, SOL_IP, IP_TTL, v, &len), 0);
	CHECK_EQ(len, 0);
	CHECK_EQ(v[0], 0xee);
	/* *len 8: an int. */
	memset(v, 0xee, sizeof(v));
	len = sizeof(v);
	CHECK_EQ(ps_getopt(sk, &env, SOL_IP, IP_TTL, v, &len), 0);
	CHECK_EQ(len, sizeof(int));
	memcpy(&i, v, sizeof(i));
	CHECK_EQ(i, 64);
	CHECK_EQ(v[4], 0xee);

	/* SOL_SOCKET: min(len, sizeof(int)) bytes of the int. */
	memset(v, 0xee, sizeof(v));
	len = 1;
	CHECK_EQ(ps_getopt(sk, &env, SOL_SOCKET, SO_REUSEADDR, v, &len), 0);
	CHECK_EQ(len, 1);
	CHECK_EQ(v[0], 1);
	CHECK_EQ(v[1], 0xee);
	len = 0;
	CHECK_EQ(ps_getopt(sk, &env, SOL_SOCKET, SO_TYPE, v, &len), 0);
	CHECK_EQ(len, 0);
	len = sizeof(v);
	CHECK_EQ(ps_getopt(sk, &env, SOL_SOCKET, SO_TYPE, v, &len), 0);
	CHECK_EQ(len, sizeof(int));
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* SOL_SOCKET needs a whole int (sk_setsockopt). */
static void sol_socket_short_optlen(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	static const uint8_t v[4] = { 0 };

	CHECK_EQ(ps_setopt(sk, &env, SOL_SOCKET, SO_REUSEADDR, v, 2), -EINVAL);
	CHECK_EQ(ps_setopt(sk, &env, SOL_SOCKET, SO_BROADCAST, v, 0), -EINVAL);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_REUSEADDR), 1);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void other_ip_options(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);

	CHECK_EQ(setint(sk, SOL_IP, IP_MULTICAST_TTL, 7), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_MULTICAST_TTL), 7);
	CHECK_EQ(setint(sk, SOL_IP, IP_MULTICAST_TTL, -1), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_MULTICAST_TTL), 1);
	CHECK_EQ(setint(sk, SOL_IP, IP_MULTICAST_TTL, 256), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IP, IP_MULTICAST_TTL, 0), 0);
	CHECK_EQ(setint(sk, SOL_IP, IP_MULTICAST_LOOP, 0), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_MULTICAST_LOOP), 0);
	CHECK_EQ(setint(sk, SOL_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_MTU_DISCOVER), IP_PMTUDISC_DO);
	CHECK_EQ(setint(sk, SOL_IP, IP_MTU_DISCOVER, 5), 0);
	CHECK_EQ(setint(sk, SOL_IP, IP_MTU_DISCOVER, 6), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IP, IP_MTU_DISCOVER, -1), -EINVAL);
	CHECK_EQ(getint(sk, SOL_IP, IP_MTU_DISCOVER), 5);
	CHECK_EQ(setint(sk, SOL_IP, IP_TOS, 0x1ff), 0);	/* measured: 255 */
	CHECK_EQ(getint(sk, SOL_IP, IP_TOS), 0xff);
	CHECK_EQ(setint(sk, SOL_IP, IP_RECVERR, 1), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_RECVERR), 1);
	CHECK_EQ(setint(sk, SOL_IP, IP_RECVERR, 0), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_RECVERR), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* The receive-side flags map onto WIRE_CM_*. */
static void recv_flag_options(void)
{
	static const struct { int name; uint32_t bit; } o[] = {
		{ IP_PKTINFO, WIRE_CM_PKTINFO }, { IP_RECVTTL, WIRE_CM_TTL },
		{ IP_RECVTOS, WIRE_CM_TOS }, { IP_RECVOPTS, WIRE_CM_RECVOPTS },
		{ IP_RETOPTS, WIRE_CM_RETOPTS },
	};
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	uint32_t all = 0;

	for (size_t i = 0; i < sizeof(o) / sizeof(o[0]); i++) {
		CHECK_EQ(getint(sk, SOL_IP, o[i].name), 0);
		CHECK_EQ(setint(sk, SOL_IP, o[i].name, 5), 0);
		CHECK_EQ(getint(sk, SOL_IP, o[i].name), 1);
		all |= o[i].bit;
		CHECK_EQ(ps_cmsg_flags(sk), all);
	}
	CHECK_EQ(setint(sk, SOL_IP, IP_RECVTTL, 0), 0);
	CHECK_EQ(ps_cmsg_flags(sk), all & ~WIRE_CM_TTL);
	CHECK_EQ(getint(sk, SOL_IP, IP_RECVTTL), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* SO_TIMESTAMP and SO_TIMESTAMPNS (sock_set_timestamp(), measured). */
static void timestamp_interplay(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	const uint32_t TS = WIRE_CM_TIMESTAMP, NS = WIRE_CM_TIMESTAMPNS;
	const uint32_t NEW = WIRE_CM_TSTAMP_NEW;

#define TSGET(a, b, c, d)                                              \
	do {                                                           \
		CHECK_EQ(getint(sk, SOL_SOCKET, SO_TIMESTAMP_OLD), a);   \
		CHECK_EQ(getint(sk, SOL_SOCKET, SO_TIMESTAMPNS_OLD), b); \
		CHECK_EQ(getint(sk, SOL_SOCKET, SO_TIMESTAMP_NEW), c);   \
		CHECK_EQ(getint(sk, SOL_SOCKET, SO_TIMESTAMPNS_NEW), d); \
	} while (0)

	TSGET(0, 0, 0, 0);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_TIMESTAMP, 1), 0);
	CHECK_EQ(ps_cmsg_flags(sk), TS);
	TSGET(1, 0, 0, 0);
	/* NS on top: both flags; SO_TIMESTAMP now reads 0. */
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_TIMESTAMPNS, 1), 0);
	CHECK_EQ(ps_cmsg_flags(sk), TS | NS);
	TSGET(0, 1, 0, 0);
	/* Turning SO_TIMESTAMP off turns both off. */
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_TIMESTAMP, 0), 0);
	CHECK_EQ(ps_cmsg_flags(sk), 0);
	TSGET(0, 0, 0, 0);
	/* NS alone implies TS; then TS on clears NS. */
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_TIMESTAMPNS, 1), 0);
	CHECK_EQ(ps_cmsg_flags(sk), TS | NS);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_TIMESTAMP, 1), 0);
	CHECK_EQ(ps_cmsg_flags(sk), TS);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_TIMESTAMPNS, 1), 0);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_TIMESTAMPNS, 0), 0);
	CHECK_EQ(ps_cmsg_flags(sk), 0);
	/* The _NEW names. */
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_TIMESTAMP_NEW, 1), 0);
	CHECK_EQ(ps_cmsg_flags(sk), TS | NEW);
	TSGET(0, 0, 1, 0);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_TIMESTAMPNS_OLD, 1), 0);
	CHECK_EQ(ps_cmsg_flags(sk), TS | NS);
	TSGET(0, 1, 0, 0);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_TIMESTAMP_OLD, 2), 0);
	CHECK_EQ(ps_cmsg_flags(sk), TS);
	TSGET(1, 0, 0, 0);
	/* Other flags are left alone. */
	CHECK_EQ(setint(sk, SOL_IP, IP_RECVTTL, 1), 0);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_TIMESTAMPNS, 1), 0);
	CHECK_EQ(ps_cmsg_flags(sk), TS | NS | WIRE_CM_TTL);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_TIMESTAMPNS, 0), 0);
	CHECK_EQ(ps_cmsg_flags(sk), WIRE_CM_TTL);
#undef TSGET
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * sk_getsockopt(SO_TIMESTAMP_NEW) is RCVTSTAMP && TSTAMP_NEW, without the
 * "and not NS" that SO_TIMESTAMP_OLD has.  Measured on Linux 6.18: after
 * SO_TIMESTAMPNS_NEW = 1, OLD/NS_OLD/NEW/NS_NEW read 0, 0, 1, 1.
 */
static void timestamp_new_reads_as_kernel(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);

	CHECK_EQ(setint(sk, SOL_SOCKET, SO_TIMESTAMPNS_NEW, 1), 0);
	CHECK_EQ(ps_cmsg_flags(sk), WIRE_CM_TIMESTAMP | WIRE_CM_TIMESTAMPNS |
				    WIRE_CM_TSTAMP_NEW);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_TIMESTAMP_OLD), 0);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_TIMESTAMPNS_OLD), 0);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_TIMESTAMPNS_NEW), 1);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_TIMESTAMP_NEW), 1);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void unknown_options(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);

	CHECK_EQ(setint(sk, SOL_SOCKET, 9999, 1), -ENOPROTOOPT);
	CHECK_EQ(getint(sk, SOL_SOCKET, 9999), -ENOPROTOOPT * 1000);
	CHECK_EQ(setint(sk, SOL_IP, 9999, 1), -ENOPROTOOPT);
	CHECK_EQ(getint(sk, SOL_IP, 9999), -ENOPROTOOPT * 1000);
	/* Read-only ones. */
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_TYPE, 1), -ENOPROTOOPT);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_ERROR, 1), -ENOPROTOOPT);
	/* setsockopt at another level: ENOPROTOOPT (measured). */
	CHECK_EQ(setint(sk, IPPROTO_TCP, 1, 1), -ENOPROTOOPT);
	CHECK_EQ(setint(sk, IPPROTO_IPV6, 1, 1), -ENOPROTOOPT);
	CHECK_EQ(setint(sk, 12345, 1, 1), -ENOPROTOOPT);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * getsockopt at a level other than SOL_SOCKET and SOL_IP: the kernel's
 * do_ip_getsockopt() answers EOPNOTSUPP, unlike setsockopt's ENOPROTOOPT.
 * Measured on Linux 6.18 for levels 6, 17, 41, 255 and 12345.
 */
static void getopt_other_level_as_kernel(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);

	CHECK_EQ(getint(sk, IPPROTO_TCP, 1), -EOPNOTSUPP * 1000);
	CHECK_EQ(getint(sk, IPPROTO_UDP, 1), -EOPNOTSUPP * 1000);
	CHECK_EQ(getint(sk, IPPROTO_IPV6, 1), -EOPNOTSUPP * 1000);
	CHECK_EQ(getint(sk, 12345, 1), -EOPNOTSUPP * 1000);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * SO_DONTROUTE keeps routes on-link (RTO_ONLINK), in connect() and in
 * each send, as MSG_DONTROUTE does for one send: the route is asked so,
 * and the daemon told to send so.
 */
static void dontroute_on_link_only(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open4(tab, 1000);
	uint32_t nl;

	CHECK_EQ(connect4(tab, sk, HOST2, 0), 0);
	CHECK_EQ(fk.route_flags, 0);
	CHECK_EQ(send4(tab, sk, HOST2, 1, 64), 0);
	CHECK(!info.dontroute);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_DONTROUTE, 1), 0);
	CHECK_EQ(connect4(tab, sk, HOST2, 0), 0);
	CHECK_EQ(fk.route_flags, PS_ROUTE_DONTROUTE);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_BROADCAST, 1), 0);
	CHECK_EQ(connect4(tab, sk, HOST2, 0), 0);
	CHECK_EQ(fk.route_flags, PS_ROUTE_DONTROUTE | PS_ROUTE_BROADCAST);
	CHECK_EQ(send4(tab, sk, HOST2, 2, 64), 0);
	CHECK(info.dontroute);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_DONTROUTE, 0), 0);
	CHECK_EQ(send4(tab, sk, HOST2, 3, 64), 0);
	CHECK(!info.dontroute);
	nl = sa4(AF_INET, HOST2, 0);
	echo(8, 0, 4, 64);
	CHECK_EQ(ps_send_prepare(tab, sk, &env, MSG_DONTROUTE, sabuf, nl, NULL,
				 0, mbuf, 64, &info), 0);
	CHECK(info.dontroute);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ---- the table's counters ---- */

static void counts_return_to_zero(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *s[8];

	for (int i = 0; i < 8; i++)
		s[i] = open4(tab, 1000);
	CHECK_EQ(pstab_sockets(tab), 8);
	CHECK_EQ(bind4(tab, s[0], 0, 40001), 0);
	CHECK_EQ(bind4(tab, s[1], 0, 40001), 0);
	CHECK_EQ(bind4(tab, s[2], LO1, 0), 0);
	CHECK_EQ(send4(tab, s[3], LO1, 1, 64), 0);
	CHECK_EQ(connect4(tab, s[4], LO5, 0), 0);
	CHECK_EQ(connect4(tab, s[5], NOROUTE, 0), -ENETUNREACH);
	CHECK_EQ(send4(tab, s[6], LO1, 1, 3), -EINVAL);
	CHECK_EQ(pstab_idents(tab), 6);
	CHECK_EQ(disconnect(tab, s[4]), 0);
	CHECK_EQ(pstab_idents(tab), 5);
	ps_set_owner(s[7], &fk);
	CHECK(ps_owner(s[7]) == &fk);
	for (int i = 0; i < 8; i++) {
		pstab_close(tab, s[i]);
		CHECK_EQ(pstab_sockets(tab), 7 - i);
	}
	CHECK_EQ(pstab_sockets(tab), 0);
	CHECK_EQ(pstab_idents(tab), 0);
	pstab_close(tab, NULL);
	pstab_free(tab);
	pstab_free(NULL);
}

int main(void)
{
	TEST(open_argument_errors);
	TEST(open_errors_as_kernel);
	TEST(fresh_socket_state);
	TEST(bind_table);
	TEST(bind_address_checked_before_rebind);
	TEST(bind_after_autobind);
	TEST(bind_port0_and_reuse_after_close);
	TEST(bind_nonlocal_with_freebind);
	TEST(same_uid_may_share);
	TEST(ident_share_bounded);
	TEST(other_uid_eaddrinuse);
	TEST(reuseaddr_off_on_either);
	TEST(rover_increments);
	TEST(rover_skips_foreign);
	TEST(request_log_budget);
	TEST(bind_refuses_foreign);
	TEST(rover_skips_in_use);
	TEST(rover_wraps_skipping_zero);
	TEST(rover_exhausted);
	TEST(ident_gate);
	TEST(source_routes_refused);
	TEST(connect_sets_peer_and_source);
	TEST(connect_port0);
	TEST(connect_keeps_bound_source);
	TEST(connect_route_error_propagates);
	TEST(connect_argument_errors);
	TEST(disconnect_releases_autobound);
	TEST(disconnect_keeps_bound);
	TEST(send_autobinds_first);
	TEST(send_check_order);
	TEST(send_rewrites_message);
	TEST(send_info_follows_options);
	TEST(send_connected_uses_peer);
	TEST(send_control_messages);
	TEST(shutdown_then_send);
	TEST(lookup_only_after_sent);
	TEST(lookup_needs_the_identifier_sent);
	TEST(lookup_error_by_quoted_request);
	TEST(lookup_probe_by_type_and_seq);
	TEST(lookup_group_requests);
	TEST(lookup_bound_address);
	TEST(lookup_bound_device);
	TEST(lookup_newest_bound_first);
	TEST(ip_ttl);
	TEST(getopt_short_buffer);
	TEST(sol_socket_short_optlen);
	TEST(other_ip_options);
	TEST(recv_flag_options);
	TEST(timestamp_interplay);
	TEST(timestamp_new_reads_as_kernel);
	TEST(unknown_options);
	TEST(getopt_other_level_as_kernel);
	TEST(dontroute_on_link_only);
	TEST(counts_return_to_zero);
	return CHECK_DONE();
}
