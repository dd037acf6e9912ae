/* SPDX-License-Identifier: ISC */
/*
 * test_psock6 - the IPv6 ping socket of the engine (src/engine/psock6.c,
 * psopt6.c, through the public calls of psock.h) against a fake host, as
 * the kernel has it:
 *   net/ipv4/ping.c        ping_check_bind_addr(), ping_bind(),
 *                          ping_common_sendmsg(), ping_err()
 *   net/ipv6/ping.c        ping_v6_sendmsg()
 *   net/ipv6/datagram.c    ip6_datagram_connect_v6_only(),
 *                          __ip6_datagram_connect(),
 *                          ip6_datagram_flow_key_init(),
 *                          ip6_datagram_send_ctl()
 *   net/ipv6/ipv6_sockglue.c do_ipv6_setsockopt(), do_ipv6_getsockopt()
 * and shared/reference/linux-ping-semantics.md.  Tests named kernel_*
 * check a point where the engine was found to differ from the kernel
 * source; each says where.
 *
 * The fake host:
 *   devices    1 "lo", 2 "veth0"; anything else (9999) does not exist
 *   addresses  ::1 on 1 (host scope), fd00::1 on 2 (global),
 *              fe80::1 on 2 (link)
 *   routes     fd00:99::/32 ENETUNREACH; otherwise the source is ::1 for
 *              ::1, fe80::1 for a link-local destination, fd00::1 else
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/icmp.h"
#include "engine/psock.h"
#include "check.h"

#ifndef IPV6_FLOWINFO
#define IPV6_FLOWINFO 11
#endif
#ifndef IPV6_FLOWINFO_SEND
#define IPV6_FLOWINFO_SEND 33
#endif
#ifndef IPV6_MULTICAST_ALL
#define IPV6_MULTICAST_ALL 29
#endif
#ifndef IPV6_RECVPATHMTU
#define IPV6_RECVPATHMTU 60
#endif
#ifndef IPV6_MINHOPCOUNT
#define IPV6_MINHOPCOUNT 73
#endif
#ifndef IPV6_RECVFRAGSIZE
#define IPV6_RECVFRAGSIZE 77
#endif
#ifndef IPV6_2292HOPLIMIT
#define IPV6_2292HOPLIMIT 8
#endif

static struct ps_addr a6(const char *s)
{
	struct ps_addr a;

	memset(&a, 0, sizeof(a));
	a.family = AF_INET6;
	if (inet_pton(AF_INET6, s, a.a) != 1)
		abort();
	return a;
}

static bool is(const struct ps_addr *x, const char *s)
{
	struct ps_addr y = a6(s);

	return ps_addr_eq(x, &y);
}

/* ---- the fake host ---- */

struct fake {
	int route_calls;
	uint32_t route_ifindex;
	struct ps_addr route_dst;
	unsigned route_flags;	/* of the last route asked */
};

static struct fake fk;

static const struct {
	const char *addr;
	uint32_t ifindex;
	bool global;
} locals[] = {
	{ "::1", 1, false },
	{ "fd00::1", 2, true },
	{ "fe80::1", 2, false },
};

static int fake_addr_type(void *ctx, const struct ps_addr *a,
			  uint32_t ifindex)
{
	(void)ctx;
	(void)a;
	(void)ifindex;
	return PS_RTN_UNICAST;
}

/*
 * ipv6_chk_addr_and_flags(): the address on ifindex, or on any device
 * when ifindex is 0; a global address also on another device unless
 * strict.  Host- and link-scope addresses are only ever on their own.
 */
static bool fake_local6(void *ctx, const struct ps_addr *a, uint32_t ifindex,
			bool strict)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(locals) / sizeof(locals[0]); i++) {
		if (!is(a, locals[i].addr))
			continue;
		if (!ifindex || ifindex == locals[i].ifindex)
			return true;
		return locals[i].global && !strict;
	}
	return false;
}

static int fake_route(void *ctx, const struct ps_addr *dst, uint32_t ifindex,
		      unsigned flags, struct ps_addr *src)
{
	struct fake *f = ctx;

	f->route_flags = flags;
	f->route_calls++;
	f->route_ifindex = ifindex;
	f->route_dst = *dst;
	if (dst->a[0] == 0xfd && dst->a[1] == 0 && dst->a[2] == 0 &&
	    dst->a[3] == 0x99)
		return -ENETUNREACH;
	if (ps_addr_is_any(src)) {
		if (is(dst, "::1"))
			*src = a6("::1");
		else if (dst->a[0] == 0xfe && (dst->a[1] & 0xc0) == 0x80)
			*src = a6("fe80::1");
		else
			*src = a6("fd00::1");
	}
	return 0;
}

static int fake_dev_index(void *ctx, const char *name)
{
	(void)ctx;
	if (strcmp(name, "lo") == 0)
		return 1;
	if (strcmp(name, "veth0") == 0)
		return 2;
	return -ENODEV;
}

static int fake_dev_name(void *ctx, uint32_t ifindex, char *buf)
{
	(void)ctx;
	if (ifindex != 1 && ifindex != 2)
		return -ENODEV;
	strcpy(buf, ifindex == 1 ? "lo" : "veth0");
	return 0;
}

static int fake_addr_dev(void *ctx, const struct ps_addr *a)
{
	(void)ctx;
	for (size_t i = 0; i < sizeof(locals) / sizeof(locals[0]); i++)
		if (is(a, locals[i].addr))
			return (int)locals[i].ifindex;
	return 0;
}

static int fake_route_mtu(void *ctx, const struct ps_addr *dst,
			  uint32_t ifindex)
{
	(void)ctx;
	(void)ifindex;
	return is(dst, "::1") ? 65536 : 1500;
}

static const struct ps_env env = {
	.addr_type = fake_addr_type,
	.route = fake_route,
	.dev_index = fake_dev_index,
	.dev_name = fake_dev_name,
	.addr_dev = fake_addr_dev,
	.route_mtu = fake_route_mtu,
	.local6 = fake_local6,
	.ctx = &fk,
	.default_ttl = 64,
	.default_hoplimit = 64,
};

/* ---- helpers ---- */

static uint8_t sabuf[128];

/* A sockaddr_in6 in sabuf; returns sizeof(struct sockaddr_in6). */
static uint32_t sa6(int family, const char *addr, uint16_t port,
		    uint32_t scope)
{
	struct sockaddr_in6 s;

	memset(sabuf, 0, sizeof(sabuf));
	memset(&s, 0, sizeof(s));
	s.sin6_family = (sa_family_t)family;
	s.sin6_port = htons(port);
	if (inet_pton(AF_INET6, addr, &s.sin6_addr) != 1)
		abort();
	s.sin6_scope_id = scope;
	memcpy(sabuf, &s, sizeof(s));
	return sizeof(s);
}

static struct psock *open6(struct pstab *tab)
{
	struct psock *sk = NULL;
	int rc = pstab_open(tab, AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6, 1000,
			    &sk);

	CHECK_EQ(rc, 0);
	if (!sk)
		abort();
	return sk;
}

static int bind6(struct pstab *tab, struct psock *sk, const char *addr,
		 uint16_t port, uint32_t scope)
{
	uint32_t len = sa6(AF_INET6, addr, port, scope);

	return ps_bind(tab, sk, &env, sabuf, len);
}

static int connect6(struct pstab *tab, struct psock *sk, const char *addr,
		    uint16_t port, uint32_t scope)
{
	uint32_t len = sa6(AF_INET6, addr, port, scope);

	return ps_connect(tab, sk, &env, sabuf, len);
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

/* getsockname/getpeername as a sockaddr_in6; the call's result. */
static int getname6(struct psock *sk, bool peer, struct sockaddr_in6 *out)
{
	uint8_t b[64];
	int rc;

	memset(b, 0xee, sizeof(b));
	memset(out, 0, sizeof(*out));
	rc = ps_getname(sk, peer, b);
	if (rc > 0)
		memcpy(out, b, sizeof(*out));
	return rc;
}

static bool sin6_is(const struct sockaddr_in6 *s, const char *addr)
{
	struct in6_addr a;

	if (inet_pton(AF_INET6, addr, &a) != 1)
		abort();
	return memcmp(&s->sin6_addr, &a, 16) == 0;
}

static uint8_t mbuf[2048];
static struct ps_sendinfo info;

/* An echo message with junk in the checksum and ident fields. */
static uint8_t *echo6(uint8_t type, uint8_t code, uint16_t seq, size_t len)
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

/* sendmsg() of an Echo Request (type, code, len) to addr%scope (NULL: no
 * name), with flags and control messages. */
static int send6x(struct pstab *tab, struct psock *sk, const char *addr,
		  uint32_t scope, uint8_t type, uint8_t code, size_t len,
		  int flags, const uint8_t *ctl, size_t ctllen)
{
	uint32_t nl = 0;

	if (addr)
		nl = sa6(AF_INET6, addr, 0, scope);
	echo6(type, code, 0x0102, len);
	return ps_send_prepare(tab, sk, &env, flags, addr ? sabuf : NULL, nl,
			       ctl, (uint32_t)ctllen, mbuf, (uint32_t)len,
			       &info);
}

static int send6(struct pstab *tab, struct psock *sk, const char *addr,
		 uint32_t scope)
{
	return send6x(tab, sk, addr, scope, 128, 0, 64, 0, NULL, 0);
}

static int send6_ctl(struct pstab *tab, struct psock *sk, const char *addr,
		     uint32_t scope, const uint8_t *ctl, size_t ctllen)
{
	return send6x(tab, sk, addr, scope, 128, 0, 64, 0, ctl, ctllen);
}

/* Append one control message at ctl + off; returns the new length. */
static size_t put_cmsg(uint8_t *ctl, size_t off, int level, int type,
		       const void *data, size_t len)
{
	struct cmsghdr h;

	memset(&h, 0, sizeof(h));
	h.cmsg_len = CMSG_LEN(len);
	h.cmsg_level = level;
	h.cmsg_type = type;
	memset(ctl + off, 0, CMSG_SPACE(len));
	memcpy(ctl + off, &h, sizeof(h));
	memcpy(ctl + off + CMSG_LEN(0), data, len);
	return off + CMSG_SPACE(len);
}

static size_t put_pktinfo(uint8_t *ctl, size_t off, const char *addr,
			  int ifindex)
{
	struct in6_pktinfo pi;

	memset(&pi, 0, sizeof(pi));
	if (inet_pton(AF_INET6, addr, &pi.ipi6_addr) != 1)
		abort();
	pi.ipi6_ifindex = ifindex;
	return put_cmsg(ctl, off, SOL_IPV6, IPV6_PKTINFO, &pi, sizeof(pi));
}

/* ---- socket() ---- */

static void socket6_open(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = NULL;
	struct sockaddr_in6 s;

	CHECK_EQ(pstab_open(tab, AF_INET6, SOCK_DGRAM, IPPROTO_ICMPV6, 7,
			    &sk), 0);
	CHECK(sk != NULL);
	CHECK_EQ(ps_family(sk), AF_INET6);
	CHECK_EQ(ps_ident(sk), 0);
	CHECK_EQ(ps_uid(sk), 7);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_TYPE), SOCK_DGRAM);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_PROTOCOL), IPPROTO_ICMPV6);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_DOMAIN), AF_INET6);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_REUSEADDR), 1);
	/* getsockname before bind: ::, port 0, a whole sockaddr_in6 */
	CHECK_EQ(getname6(sk, false, &s), (int)sizeof(s));
	CHECK_EQ(s.sin6_family, AF_INET6);
	CHECK_EQ(s.sin6_port, 0);
	CHECK(sin6_is(&s, "::"));
	CHECK_EQ(s.sin6_scope_id, 0);
	CHECK_EQ(getname6(sk, true, &s), -ENOTCONN);
	CHECK_EQ(pstab_sockets(tab), 1);
	pstab_close(tab, sk);
	/* The wrong protocol for the family. */
	CHECK_EQ(pstab_open(tab, AF_INET6, SOCK_DGRAM, IPPROTO_ICMP, 7, &sk),
		 -EPROTONOSUPPORT);
	CHECK_EQ(pstab_sockets(tab), 0);
	pstab_free(tab);
}

/* ---- bind ---- */

/* ping_check_bind_addr(), AF_INET6 branch, in its order. */
static void bind_errors(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct sockaddr_in sin;
	uint32_t len;

	/* addr_len < sizeof(struct sockaddr_in6) */
	len = sa6(AF_INET6, "::1", 0, 0);
	CHECK_EQ(ps_bind(tab, sk, &env, sabuf, 27), -EINVAL);
	CHECK_EQ(ps_bind(tab, sk, &env, sabuf, 24), -EINVAL);
	CHECK_EQ(ps_bind(tab, sk, &env, sabuf, 0), -EINVAL);
	/* A sockaddr_in: too short before its family is looked at. */
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memset(sabuf, 0, sizeof(sabuf));
	memcpy(sabuf, &sin, sizeof(sin));
	CHECK_EQ(ps_bind(tab, sk, &env, sabuf, sizeof(sin)), -EINVAL);
	/* sin6_family != AF_INET6, at full length: AF_INET, and AF_UNSPEC
	 * too (unlike IPv4, no INADDR_ANY exception) */
	len = sa6(AF_INET, "::1", 0, 0);
	CHECK_EQ(ps_bind(tab, sk, &env, sabuf, len), -EAFNOSUPPORT);
	len = sa6(AF_UNSPEC, "::", 0, 0);
	CHECK_EQ(ps_bind(tab, sk, &env, sabuf, len), -EAFNOSUPPORT);
	/* Not unicast (and not ::): v4-mapped, multicast of any scope */
	CHECK_EQ(bind6(tab, sk, "::ffff:127.0.0.1", 0, 0), -EINVAL);
	CHECK_EQ(bind6(tab, sk, "::ffff:0.0.0.0", 0, 0), -EINVAL);
	CHECK_EQ(bind6(tab, sk, "ff02::1", 0, 0), -EINVAL);
	CHECK_EQ(bind6(tab, sk, "ff02::1", 0, 2), -EINVAL);
	CHECK_EQ(bind6(tab, sk, "ff0e::1", 0, 0), -EINVAL);
	CHECK_EQ(bind6(tab, sk, "ff01::1", 0, 1), -EINVAL);
	/* Link-local without a scope id */
	CHECK_EQ(bind6(tab, sk, "fe80::1", 0, 0), -EINVAL);
	/* A scope id that names no device */
	CHECK_EQ(bind6(tab, sk, "fe80::1", 0, 9999), -ENODEV);
	/* Not ours: EADDRNOTAVAIL (no ip_nonlocal_bind, no freebind) */
	CHECK_EQ(bind6(tab, sk, "fd00:9::1", 0, 0), -EADDRNOTAVAIL);
	CHECK_EQ(bind6(tab, sk, "2001:db8::1", 0, 0), -EADDRNOTAVAIL);
	/* fe80::1 is on veth0 (2), not on lo (1) */
	CHECK_EQ(bind6(tab, sk, "fe80::1", 0, 1), -EADDRNOTAVAIL);
	/* None of it bound anything. */
	CHECK_EQ(ps_ident(sk), 0);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_BINDTOIFINDEX), 0);
	CHECK_EQ(pstab_idents(tab), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void bind_any(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct sockaddr_in6 s;

	CHECK_EQ(bind6(tab, sk, "::", 0, 0), 0);
	CHECK(ps_ident(sk) != 0);		/* port 0: one is picked */
	CHECK_EQ(getname6(sk, false, &s), (int)sizeof(s));
	CHECK(sin6_is(&s, "::"));
	CHECK_EQ(ntohs(s.sin6_port), ps_ident(sk));
	pstab_close(tab, sk);

	sk = open6(tab);
	CHECK_EQ(bind6(tab, sk, "::", 40002, 0), 0);
	CHECK_EQ(ps_ident(sk), 40002);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void bind_loopback(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct sockaddr_in6 s;

	CHECK_EQ(bind6(tab, sk, "::1", 40001, 0), 0);
	CHECK_EQ(ps_ident(sk), 40001);
	CHECK_EQ(getname6(sk, false, &s), (int)sizeof(struct sockaddr_in6));
	CHECK_EQ(s.sin6_family, AF_INET6);
	CHECK_EQ(ntohs(s.sin6_port), 40001);
	CHECK(sin6_is(&s, "::1"));
	CHECK_EQ(s.sin6_flowinfo, 0);
	CHECK_EQ(s.sin6_scope_id, 0);
	/* A second bind: EINVAL, the first one stays. */
	CHECK_EQ(bind6(tab, sk, "::", 0, 0), -EINVAL);
	CHECK_EQ(bind6(tab, sk, "fd00::1", 5, 0), -EINVAL);
	CHECK_EQ(ps_ident(sk), 40001);
	getname6(sk, false, &s);
	CHECK(sin6_is(&s, "::1"));
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ipv6_chk_addr(net, addr, dev, scoped): a global address of another
 * device is fine for a socket bound to a device; ::1 (host scope) is
 * only on lo. */
static void bind_with_bound_device(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(setint(sk, SOL_SOCKET, SO_BINDTOIFINDEX, 1), 0);
	CHECK_EQ(bind6(tab, sk, "fd00::1", 0, 0), 0);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_BINDTOIFINDEX), 1);
	pstab_close(tab, sk);

	sk = open6(tab);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_BINDTOIFINDEX, 2), 0);
	CHECK_EQ(bind6(tab, sk, "::1", 0, 0), -EADDRNOTAVAIL);
	/* A link-local address with no scope id, on a socket bound to its
	 * device: still EINVAL (the scope id itself is required). */
	CHECK_EQ(bind6(tab, sk, "fe80::1", 0, 0), -EINVAL);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void bind_link_local(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct sockaddr_in6 s;
	char name[IFNAMSIZ];
	uint32_t nl = sizeof(name);

	CHECK_EQ(bind6(tab, sk, "fe80::1", 40003, 2), 0);
	/* the scope id becomes the bound device */
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_BINDTOIFINDEX), 2);
	CHECK_EQ(ps_getopt(sk, &env, SOL_SOCKET, SO_BINDTODEVICE,
			   (uint8_t *)name, &nl), 0);
	CHECK_EQ(nl, 6);
	CHECK(strcmp(name, "veth0") == 0);
	/* getsockname shows it as the scope id */
	CHECK_EQ(getname6(sk, false, &s), (int)sizeof(s));
	CHECK(sin6_is(&s, "fe80::1"));
	CHECK_EQ(s.sin6_scope_id, 2);
	CHECK_EQ(ntohs(s.sin6_port), 40003);
	/* again: the address is checked first (::1 is not on veth0), then
	 * "already bound" */
	CHECK_EQ(bind6(tab, sk, "::1", 0, 0), -EADDRNOTAVAIL);
	CHECK_EQ(bind6(tab, sk, "::", 0, 0), -EINVAL);
	pstab_close(tab, sk);

	/* Bound to the same device already: fine; to another: the scope
	 * id decides (sk_bound_dev_if = sin6_scope_id). */
	sk = open6(tab);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_BINDTOIFINDEX, 2), 0);
	CHECK_EQ(bind6(tab, sk, "fe80::1", 0, 2), 0);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_BINDTOIFINDEX), 2);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* A scope id on an address that needs none: the device must exist, but
 * the socket is not bound to it. */
static void bind_scope_on_global(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(bind6(tab, sk, "fd00::1", 0, 9999), -ENODEV);
	CHECK_EQ(bind6(tab, sk, "::", 0, 9999), -ENODEV);
	CHECK_EQ(bind6(tab, sk, "fd00::1", 0, 1), 0);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_BINDTOIFINDEX), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ping_bind(): ping_check_bind_addr() binds a scoped address's device
 * before the "already bound" EINVAL, and nothing puts it back. */
static void bind_again_scoped_sets_device(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(bind6(tab, sk, "::", 0, 0), 0);
	CHECK_EQ(bind6(tab, sk, "fe80::1", 0, 2), -EINVAL);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_BINDTOIFINDEX), 2);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* IPv6 identifiers are a table of their own. */
static void bind_idents_per_family(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *s6 = open6(tab), *s4 = NULL, *o6 = open6(tab);
	struct sockaddr_in sin;

	CHECK_EQ(pstab_open(tab, AF_INET, SOCK_DGRAM, IPPROTO_ICMP, 1000,
			    &s4), 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(777);
	CHECK_EQ(ps_bind(tab, s4, &env, (const uint8_t *)&sin, sizeof(sin)),
		 0);
	CHECK_EQ(bind6(tab, s6, "::", 777, 0), 0);
	CHECK_EQ(pstab_idents(tab), 2);
	/* same uid, SO_REUSEADDR on both: shared (as the kernel) */
	CHECK_EQ(bind6(tab, o6, "::1", 777, 0), 0);
	CHECK_EQ(pstab_idents(tab), 2);
	pstab_close(tab, s4);
	pstab_close(tab, s6);
	pstab_close(tab, o6);
	CHECK_EQ(pstab_idents(tab), 0);
	pstab_free(tab);
}

/* ---- connect ---- */

static void connect_errors(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	uint32_t len;

	/* addr_len < SIN6_LEN_RFC2133 (24) */
	len = sa6(AF_INET6, "::1", 7, 0);
	CHECK_EQ(ps_connect(tab, sk, &env, sabuf, 23), -EINVAL);
	CHECK_EQ(ps_connect(tab, sk, &env, sabuf, 1), -EINVAL);
	/* inet_dgram_connect() binds an identifier before the protocol's
	 * connect looks at the address. */
	CHECK(ps_ident(sk) != 0);
	/* family AF_INET at full length */
	len = sa6(AF_INET, "::1", 7, 0);
	CHECK_EQ(ps_connect(tab, sk, &env, sabuf, len), -EAFNOSUPPORT);
	/* v4-mapped on an IPV6_V6ONLY socket */
	CHECK_EQ(connect6(tab, sk, "::ffff:127.0.0.1", 7, 0), -ENETUNREACH);
	/* link-local without scope id or bound device */
	CHECK_EQ(connect6(tab, sk, "fe80::2", 7, 0), -EINVAL);
	CHECK_EQ(connect6(tab, sk, "ff02::1", 7, 0), -EINVAL);
	/* the route's error */
	CHECK_EQ(connect6(tab, sk, "fd00:99::1", 7, 0), -ENETUNREACH);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_BINDTOIFINDEX), 0);
	{
		struct sockaddr_in6 s;

		CHECK_EQ(getname6(sk, true, &s), -ENOTCONN);
	}
	CHECK_EQ(send6(tab, sk, NULL, 0), -EDESTADDRREQ);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* "connect to self": :: is ::1. */
static void connect_any_is_loopback(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct sockaddr_in6 s;

	CHECK_EQ(connect6(tab, sk, "::", 7, 0), 0);
	CHECK(is(&fk.route_dst, "::1"));
	CHECK_EQ(getname6(sk, true, &s), (int)sizeof(s));
	CHECK(sin6_is(&s, "::1"));
	CHECK_EQ(ntohs(s.sin6_port), 7);
	CHECK_EQ(s.sin6_scope_id, 0);
	/* the route's source becomes the socket's */
	CHECK_EQ(getname6(sk, false, &s), (int)sizeof(s));
	CHECK(sin6_is(&s, "::1"));
	CHECK_EQ(ntohs(s.sin6_port), ps_ident(sk));
	CHECK(ps_ident(sk) != 0);
	/* and a send without address goes there */
	CHECK_EQ(send6(tab, sk, NULL, 0), 0);
	CHECK(is(&info.dst, "::1"));
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void connect_global(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct sockaddr_in6 s;

	CHECK_EQ(connect6(tab, sk, "fd00:5::5", 0, 0), 0);
	CHECK(is(&fk.route_dst, "fd00:5::5"));
	CHECK_EQ(fk.route_ifindex, 0);
	/* port 0: getpeername says ENOTCONN, send works (measured v4) */
	CHECK_EQ(getname6(sk, true, &s), -ENOTCONN);
	CHECK_EQ(send6(tab, sk, NULL, 0), 0);
	CHECK(is(&info.dst, "fd00:5::5"));
	getname6(sk, false, &s);
	CHECK(sin6_is(&s, "fd00::1"));
	/* SIN6_LEN_RFC2133 (24 bytes, no scope id) is enough */
	sa6(AF_INET6, "fd00:6::6", 9, 0);
	CHECK_EQ(ps_connect(tab, sk, &env, sabuf, 24), 0);
	CHECK_EQ(getname6(sk, true, &s), (int)sizeof(s));
	CHECK(sin6_is(&s, "fd00:6::6"));
	CHECK_EQ(ntohs(s.sin6_port), 9);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void connect_unspec_disconnects(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct sockaddr_in6 s;
	uint16_t fam = AF_UNSPEC;

	CHECK_EQ(connect6(tab, sk, "fd00:5::5", 7, 0), 0);
	CHECK_EQ(getname6(sk, true, &s), (int)sizeof(s));
	memset(sabuf, 0, sizeof(sabuf));
	memcpy(sabuf, &fam, sizeof(fam));
	CHECK_EQ(ps_connect(tab, sk, &env, sabuf, sizeof(fam)), 0);
	CHECK_EQ(getname6(sk, true, &s), -ENOTCONN);
	/* The auto-bound identifier and address go too (__udp_disconnect) */
	CHECK_EQ(ps_ident(sk), 0);
	getname6(sk, false, &s);
	CHECK(sin6_is(&s, "::"));
	CHECK_EQ(send6(tab, sk, NULL, 0), -EDESTADDRREQ);
	CHECK(ps_ident(sk) != 0);	/* the send bound a new one first */
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void connect_link_local(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct sockaddr_in6 s;

	/* With a scope id: it becomes the bound device. */
	CHECK_EQ(connect6(tab, sk, "fe80::2", 7, 2), 0);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_BINDTOIFINDEX), 2);
	CHECK_EQ(fk.route_ifindex, 2);
	CHECK_EQ(getname6(sk, true, &s), (int)sizeof(s));
	CHECK(sin6_is(&s, "fe80::2"));
	CHECK_EQ(s.sin6_scope_id, 2);
	getname6(sk, false, &s);
	CHECK(sin6_is(&s, "fe80::1"));
	CHECK_EQ(s.sin6_scope_id, 2);
	/* Another scope id on a socket bound elsewhere: EINVAL */
	CHECK_EQ(connect6(tab, sk, "fe80::3", 7, 1), -EINVAL);
	/* No scope id: the bound device */
	CHECK_EQ(connect6(tab, sk, "fe80::3", 7, 0), 0);
	CHECK_EQ(fk.route_ifindex, 2);
	CHECK_EQ(send6(tab, sk, NULL, 0), 0);
	CHECK_EQ(info.ifindex, 2);
	CHECK(is(&info.dst, "fe80::3"));
	CHECK_EQ(info.dst.scope, 2);
	pstab_close(tab, sk);

	/* A link-scope group without a scope id: IPV6_MULTICAST_IF */
	sk = open6(tab);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_IF, 2), 0);
	CHECK_EQ(connect6(tab, sk, "ff02::1", 7, 0), 0);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_BINDTOIFINDEX), 2);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * KERNEL: ip6_datagram_connect() routes with ip6_datagram_flow_key_init()
 * (net/ipv6/datagram.c):
 *	int oif = sk->sk_bound_dev_if;
 *	...
 *	if (!oif)
 *		oif = np->sticky_pktinfo.ipi6_ifindex;
 *	if (!oif) { multicast ? np->mcast_oif : np->ucast_oif }
 * The engine's ps6_connect() (src/engine/psock6.c) takes bound_dev, else
 * default_oif() (mc6_oif / ucast_oif): the sticky IPV6_PKTINFO interface
 * is skipped, so the route is asked for the wrong device.
 */
static void kernel_connect_uses_sticky_pktinfo(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct in6_pktinfo pi;

	memset(&pi, 0, sizeof(pi));
	pi.ipi6_ifindex = 2;
	CHECK_EQ(ps_setopt(sk, &env, SOL_IPV6, IPV6_PKTINFO,
			   (const uint8_t *)&pi, sizeof(pi)), 0);
	CHECK_EQ(connect6(tab, sk, "fd00:5::5", 7, 0), 0);
	CHECK_EQ(fk.route_ifindex, 2);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * KERNEL: pingv6_prot.connect is ip6_datagram_connect_v6_only(), which
 * checks the family before __ip6_datagram_connect() checks the length:
 *	if (sin6->sin6_family != AF_INET6)
 *		return -EAFNOSUPPORT;
 * so connect() with a 16-byte sockaddr_in gives EAFNOSUPPORT.  (Only when
 * a cgroup BPF connect6 program is attached does ping_v6_pre_connect()
 * answer EINVAL for addr_len < SIN6_LEN_RFC2133 first.)  The engine's
 * ps6_connect() -> sa_parse6() checks the length first: EINVAL.
 */
static void kernel_connect_family_before_length(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct sockaddr_in sin;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CHECK_EQ(ps_connect(tab, sk, &env, (const uint8_t *)&sin,
			    sizeof(sin)), -EAFNOSUPPORT);
	/* any family other than AF_INET6 (AF_UNSPEC disconnects before) */
	sin.sin_family = AF_PACKET;
	CHECK_EQ(ps_connect(tab, sk, &env, (const uint8_t *)&sin,
			    sizeof(sin)), -EAFNOSUPPORT);
	CHECK_EQ(ps_connect(tab, sk, &env, (const uint8_t *)&sin, 2),
		 -EAFNOSUPPORT);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * KERNEL: __ip6_datagram_connect() goes to __ip4_datagram_connect() (or,
 * IPV6_V6ONLY, -ENETUNREACH) for a v4-mapped address before anything
 * looks at the flow label; the IPV6_FLOWINFO_SEND label check is in
 * ip6_datagram_dst_update(), reached only for IPv6 destinations.  The
 * engine's ps6_connect() checks the label first and answers EINVAL.
 */
static void kernel_connect_mapped_before_flowlabel(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct sockaddr_in6 s;

	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_FLOWINFO_SEND, 1), 0);
	sa6(AF_INET6, "::ffff:127.0.0.1", 7, 0);
	memcpy(&s, sabuf, sizeof(s));
	s.sin6_flowinfo = htonl(0x12345);
	CHECK_EQ(ps_connect(tab, sk, &env, (const uint8_t *)&s, sizeof(s)),
		 -ENETUNREACH);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ---- send ---- */

/* ping_common_sendmsg(): length, MSG_OOB, then type and code. */
static void send_type_checks(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 8, 0, 64, 0, NULL, 0),
		 -EINVAL);
	CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 129, 0, 64, 0, NULL, 0),
		 -EINVAL);
	CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 161, 0, 64, 0, NULL, 0),
		 -EINVAL);
	CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 1, 0, 64, 0, NULL, 0),
		 -EINVAL);
	CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 128, 0, 64, 0, NULL, 0), 0);
	CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 160, 0, 64, 0, NULL, 0), 0);
	CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 128, 1, 64, 0, NULL, 0),
		 -EINVAL);
	CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 160, 1, 64, 0, NULL, 0),
		 -EINVAL);
	CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 128, 255, 64, 0, NULL, 0),
		 -EINVAL);
	/* 8 bytes is enough; fewer is EINVAL, before MSG_OOB is looked at */
	CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 128, 0, 8, 0, NULL, 0), 0);
	for (size_t len = 0; len < 8; len++)
		CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 128, 0, len, MSG_OOB,
				NULL, 0), -EINVAL);
	CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 128, 0, 64, MSG_OOB, NULL, 0),
		 -EOPNOTSUPP);
	/* MSG_OOB before the type */
	CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 8, 0, 64, MSG_OOB, NULL, 0),
		 -EOPNOTSUPP);
	/* the type before the address: an IPv4 echo to an AF_INET name is
	 * EINVAL (the type), not EAFNOSUPPORT (the name) */
	{
		uint32_t nl = sa6(AF_INET, "::1", 0, 0);

		echo6(8, 0, 1, 64);
		CHECK_EQ(ps_send_prepare(tab, sk, &env, 0, sabuf, nl, NULL, 0,
					 mbuf, 64, &info), -EINVAL);
		echo6(128, 0, 1, 64);
		CHECK_EQ(ps_send_prepare(tab, sk, &env, 0, sabuf, nl, NULL, 0,
					 mbuf, 64, &info), -EAFNOSUPPORT);
	}
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void send_name_checks(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct sockaddr_in sin;
	uint32_t nl;

	/* msg_namelen < sizeof(struct sockaddr_in6) */
	nl = sa6(AF_INET6, "fd00::2", 0, 0);
	echo6(128, 0, 1, 64);
	CHECK_EQ(ps_send_prepare(tab, sk, &env, 0, sabuf, 24, NULL, 0, mbuf,
				 64, &info), -EINVAL);
	CHECK_EQ(ps_send_prepare(tab, sk, &env, 0, sabuf, 27, NULL, 0, mbuf,
				 64, &info), -EINVAL);
	CHECK_EQ(ps_send_prepare(tab, sk, &env, 0, sabuf, nl, NULL, 0, mbuf,
				 64, &info), 0);
	/* an IPv4 address: a sockaddr_in is too short */
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memset(sabuf, 0, sizeof(sabuf));
	memcpy(sabuf, &sin, sizeof(sin));
	CHECK_EQ(ps_send_prepare(tab, sk, &env, 0, sabuf, sizeof(sin), NULL,
				 0, mbuf, 64, &info), -EINVAL);
	/* AF_INET at full length: EAFNOSUPPORT */
	nl = sa6(AF_INET, "fd00::2", 0, 0);
	CHECK_EQ(ps_send_prepare(tab, sk, &env, 0, sabuf, nl, NULL, 0, mbuf,
				 64, &info), -EAFNOSUPPORT);
	/* v4-mapped: EINVAL */
	CHECK_EQ(send6(tab, sk, "::ffff:127.0.0.1", 0), -EINVAL);
	CHECK_EQ(send6(tab, sk, "::ffff:127.0.0.1", 1), -EINVAL);
	/* link-local or link-scope group without scope: EINVAL */
	CHECK_EQ(send6(tab, sk, "fe80::2", 0), -EINVAL);
	CHECK_EQ(send6(tab, sk, "ff02::1", 0), -EINVAL);
	CHECK_EQ(send6(tab, sk, "ff01::1", 0), -EINVAL);
	/* with one: sent on that interface */
	CHECK_EQ(send6(tab, sk, "fe80::2", 2), 0);
	CHECK_EQ(info.ifindex, 2);
	CHECK(is(&info.dst, "fe80::2"));
	CHECK_EQ(info.dst.scope, 2);
	CHECK_EQ(send6(tab, sk, "ff02::1", 1), 0);
	CHECK_EQ(info.ifindex, 1);
	/* a scope id on a global address is ignored */
	CHECK_EQ(send6(tab, sk, "fd00::2", 9999), 0);
	CHECK_EQ(info.ifindex, 0);
	CHECK_EQ(info.dst.scope, 0);
	/* no name, not connected */
	CHECK_EQ(send6(tab, sk, NULL, 0), -EDESTADDRREQ);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* A bound device and the destination's scope must agree. */
static void send_bound_device(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(setint(sk, SOL_SOCKET, SO_BINDTOIFINDEX, 2), 0);
	CHECK_EQ(send6(tab, sk, "fe80::2", 0), 0);	/* the bound one */
	CHECK_EQ(info.ifindex, 2);
	CHECK_EQ(info.dst.scope, 2);
	CHECK_EQ(send6(tab, sk, "fe80::2", 2), 0);
	CHECK_EQ(send6(tab, sk, "fe80::2", 1), -EINVAL);
	CHECK_EQ(send6(tab, sk, "fd00::2", 1), 0);	/* ignored */
	CHECK_EQ(info.ifindex, 2);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* The identifier in bytes 4-5, the checksum left for the raw socket to
 * compute (zero), sequence and payload as given. */
static void send_rewrites_message(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	uint8_t orig[64];

	CHECK_EQ(bind6(tab, sk, "::", 0xabcd, 0), 0);
	echo6(128, 0, 0x0102, 64);
	memcpy(orig, mbuf, sizeof(orig));
	CHECK_EQ(send6(tab, sk, "fd00::2", 0), 0);
	CHECK_EQ(mbuf[0], 128);
	CHECK_EQ(mbuf[1], 0);
	CHECK_EQ(mbuf[2], 0);
	CHECK_EQ(mbuf[3], 0);
	CHECK_EQ(mbuf[4], 0xab);
	CHECK_EQ(mbuf[5], 0xcd);
	CHECK(memcmp(mbuf + 6, orig + 6, sizeof(orig) - 6) == 0);
	CHECK_EQ(info.seq, 0x0102);
	CHECK(is(&info.dst, "fd00::2"));
	CHECK(!info.any_src);
	/* the source: the socket's (:: here: the route chooses) */
	CHECK(ps_addr_is_any(&info.src));
	CHECK_EQ(info.pmtudisc, IPV6_PMTUDISC_WANT);
	CHECK(info.mc_loop);
	CHECK(!info.dontfrag);
	CHECK_EQ(info.flowlabel, 0);
	/* a group: replies from anyone */
	CHECK_EQ(send6(tab, sk, "ff0e::1", 0), 0);
	CHECK(info.any_src);
	pstab_close(tab, sk);

	/* bound to an address: that is the source */
	sk = open6(tab);
	CHECK_EQ(bind6(tab, sk, "fd00::1", 0, 0), 0);
	CHECK_EQ(send6(tab, sk, "fd00::2", 0), 0);
	CHECK(is(&info.src, "fd00::1"));
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* inet_send_prepare() binds an identifier before anything is checked. */
static void send_autobinds_first(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 8, 0, 64, 0, NULL, 0),
		 -EINVAL);
	CHECK(ps_ident(sk) != 0);
	CHECK_EQ(pstab_idents(tab), 1);
	CHECK_EQ(send6(tab, sk, "fd00::2", 0), 0);
	CHECK_EQ((mbuf[4] << 8 | mbuf[5]), ps_ident(sk));
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ip6_sk_dst_hoplimit(): a group's hops (IPV6_MULTICAST_HOPS, default
 * 1), else IPV6_UNICAST_HOPS, else -1 (the route's). */
static void send_hop_limits(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(send6(tab, sk, "fd00::2", 0), 0);
	CHECK_EQ(info.ttl, -1);
	CHECK_EQ(send6(tab, sk, "ff0e::1", 0), 0);
	CHECK_EQ(info.ttl, 1);
	CHECK_EQ(info.mc_ttl, 1);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_HOPS, 7), 0);
	CHECK_EQ(send6(tab, sk, "fd00::2", 0), 0);
	CHECK_EQ(info.ttl, 7);
	CHECK_EQ(send6(tab, sk, "ff0e::1", 0), 0);
	CHECK_EQ(info.ttl, 1);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_HOPS, 5), 0);
	CHECK_EQ(send6(tab, sk, "ff0e::1", 0), 0);
	CHECK_EQ(info.ttl, 5);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_HOPS, 0), 0);
	CHECK_EQ(send6(tab, sk, "ff0e::1", 0), 0);
	CHECK_EQ(info.ttl, 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_HOPS, -1), 0);
	CHECK_EQ(send6(tab, sk, "fd00::2", 0), 0);
	CHECK_EQ(info.ttl, -1);
	/* IPv4's IP_TTL does not reach an IPv6 packet */
	CHECK_EQ(setint(sk, SOL_IP, IP_TTL, 3), 0);
	CHECK_EQ(send6(tab, sk, "fd00::2", 0), 0);
	CHECK_EQ(info.ttl, -1);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* The socket's options in what the daemon is told. */
static void send_info_from_options(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_TCLASS, 0x2e), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO),
		 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_LOOP, 0), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_DONTFRAG, 1), 0);
	CHECK_EQ(send6(tab, sk, "fd00::2", 0), 0);
	CHECK_EQ(info.tos, 0x2e);
	CHECK_EQ(info.pmtudisc, IPV6_PMTUDISC_DO);
	CHECK(!info.mc_loop);
	CHECK(info.dontfrag);
	/* the output interface: multicast and unicast defaults */
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_IF, 2), 0);
	CHECK_EQ(send6(tab, sk, "ff0e::1", 0), 0);
	CHECK_EQ(info.ifindex, 2);
	CHECK_EQ(send6(tab, sk, "ff02::1", 0), 0);	/* scope from it */
	CHECK_EQ(info.ifindex, 2);
	CHECK_EQ(send6(tab, sk, "fd00::2", 0), 0);
	CHECK_EQ(info.ifindex, 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_IF, (int)htonl(1)), 0);
	CHECK_EQ(send6(tab, sk, "fd00::2", 0), 0);
	CHECK_EQ(info.ifindex, 1);
	CHECK_EQ(send6(tab, sk, "fe80::2", 0), 0);	/* scope from it */
	CHECK_EQ(info.ifindex, 1);
	pstab_close(tab, sk);

	/* the sticky IPV6_PKTINFO interface */
	sk = open6(tab);
	{
		struct in6_pktinfo pi;

		memset(&pi, 0, sizeof(pi));
		pi.ipi6_ifindex = 2;
		CHECK_EQ(ps_setopt(sk, &env, SOL_IPV6, IPV6_PKTINFO,
				   (const uint8_t *)&pi, sizeof(pi)), 0);
	}
	CHECK_EQ(send6(tab, sk, "fd00::2", 0), 0);
	CHECK_EQ(info.ifindex, 2);
	CHECK_EQ(send6(tab, sk, "fe80::2", 0), 0);
	CHECK_EQ(info.ifindex, 2);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void send_connected(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(connect6(tab, sk, "fd00:5::5", 0, 0), 0);
	CHECK_EQ(send6(tab, sk, NULL, 0), 0);
	CHECK(is(&info.dst, "fd00:5::5"));
	CHECK(is(&info.src, "fd00::1"));	/* connect fixed it */
	/* a name overrides the peer */
	CHECK_EQ(send6(tab, sk, "fd00:6::6", 0), 0);
	CHECK(is(&info.dst, "fd00:6::6"));
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ip6_datagram_send_ctl(): IPV6_HOPLIMIT, an int of -1..255. */
static void send_cmsg_hoplimit(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	uint8_t ctl[256] __attribute__((aligned(8)));
	int v;
	uint8_t b = 5;
	int64_t l = 5;
	size_t n;

	v = 5;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_HOPLIMIT, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.ttl, 5);
	/* over the socket's own, for a group too */
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_HOPS, 9), 0);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.ttl, 5);
	CHECK_EQ(send6_ctl(tab, sk, "ff0e::1", 0, ctl, n), 0);
	CHECK_EQ(info.ttl, 5);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, 0), 0);
	CHECK_EQ(info.ttl, 9);
	/* -1: the default */
	v = -1;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_HOPLIMIT, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.ttl, 9);
	v = 0;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_HOPLIMIT, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.ttl, 0);
	v = 255;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_HOPLIMIT, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.ttl, 255);
	v = -2;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_HOPLIMIT, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	v = 256;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_HOPLIMIT, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	/* cmsg_len != CMSG_LEN(sizeof(int)) */
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_HOPLIMIT, &b, 1);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_HOPLIMIT, &l, sizeof(l));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void send_cmsg_tclass_dontfrag(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	uint8_t ctl[256] __attribute__((aligned(8)));
	uint8_t b = 0x28;
	int v;
	size_t n;

	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_TCLASS, 0x10), 0);
	v = 0x28;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_TCLASS, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.tos, 0x28);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, 0), 0);
	CHECK_EQ(info.tos, 0x10);
	v = 0;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_TCLASS, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.tos, 0);
	v = 256;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_TCLASS, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	v = -2;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_TCLASS, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_TCLASS, &b, 1);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);

	v = 1;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_DONTFRAG, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK(info.dontfrag);
	v = 2;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_DONTFRAG, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	v = -1;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_DONTFRAG, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);

	/* several at once */
	v = 0x48;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_TCLASS, &v, sizeof(v));
	v = 3;
	n = put_cmsg(ctl, n, SOL_IPV6, IPV6_HOPLIMIT, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.tos, 0x48);
	CHECK_EQ(info.ttl, 3);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void send_cmsg_pktinfo(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	uint8_t ctl[256] __attribute__((aligned(8)));
	struct in6_pktinfo pi;
	size_t n;

	/* the interface */
	n = put_pktinfo(ctl, 0, "::", 2);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.ifindex, 2);
	/* a local address: accepted (and not used: the source is the
	 * socket's, ping_v6_sendmsg() sets fl6.saddr = np->saddr after) */
	n = put_pktinfo(ctl, 0, "fd00::1", 0);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.ifindex, 0);
	CHECK(ps_addr_is_any(&info.src));
	n = put_pktinfo(ctl, 0, "::1", 0);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	/* a global address of another device: fine (not strict) */
	n = put_pktinfo(ctl, 0, "fd00::1", 1);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.ifindex, 1);
	/* not one of ours: EINVAL */
	n = put_pktinfo(ctl, 0, "fd00:9::1", 0);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	n = put_pktinfo(ctl, 0, "fd00:9::1", 2);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	/* link-local: needs an interface, and must be on it */
	n = put_pktinfo(ctl, 0, "fe80::1", 0);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	n = put_pktinfo(ctl, 0, "fe80::1", 2);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.ifindex, 2);
	n = put_pktinfo(ctl, 0, "fe80::1", 1);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	/* ::1 is lo's only (host scope: strict) */
	n = put_pktinfo(ctl, 0, "::1", 2);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	/* an interface that does not exist */
	n = put_pktinfo(ctl, 0, "::", 9999);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -ENODEV);
	/* shorter than struct in6_pktinfo */
	memset(&pi, 0, sizeof(pi));
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_PKTINFO, &pi, sizeof(pi) - 1);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	/* longer is fine */
	{
		uint8_t big[sizeof(pi) + 4];

		memset(big, 0, sizeof(big));
		n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_PKTINFO, big,
			     sizeof(big));
		CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	}
	/* IPV6_2292PKTINFO is the same */
	memset(&pi, 0, sizeof(pi));
	pi.ipi6_ifindex = 2;
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_2292PKTINFO, &pi, sizeof(pi));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.ifindex, 2);
	/* an interface other than the destination's scope: EINVAL */
	n = put_pktinfo(ctl, 0, "::", 2);
	CHECK_EQ(send6_ctl(tab, sk, "fe80::2", 1, ctl, n), -EINVAL);
	CHECK_EQ(send6_ctl(tab, sk, "fe80::2", 2, ctl, n), 0);
	CHECK_EQ(info.ifindex, 2);
	pstab_close(tab, sk);

	/* bound to a device: another one in IPV6_PKTINFO is EINVAL */
	sk = open6(tab);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_BINDTOIFINDEX, 2), 0);
	n = put_pktinfo(ctl, 0, "::", 1);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	n = put_pktinfo(ctl, 0, "::", 2);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* The walk itself: CMSG_OK, unknown SOL_IPV6 types, other levels. */
static void send_cmsg_walk(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	uint8_t ctl[256] __attribute__((aligned(8)));
	int v = 7;
	uint32_t u = 3;
	size_t n;

	/* an unknown SOL_IPV6 type */
	n = put_cmsg(ctl, 0, SOL_IPV6, 9999, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_RECVERR, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	/* SOL_IP on an IPv6 socket: another level, skipped */
	n = put_cmsg(ctl, 0, SOL_IP, IP_TTL, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.ttl, -1);
	n = put_cmsg(ctl, 0, SOL_IP, 9999, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	n = put_cmsg(ctl, 0, 12345, 1, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	/* SOL_SOCKET: __sock_cmsg_send() */
	n = put_cmsg(ctl, 0, SOL_SOCKET, SO_PRIORITY, &u, sizeof(u));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	n = put_cmsg(ctl, 0, SOL_SOCKET, 9999, &u, sizeof(u));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	/* skipped one, then a bad one */
	n = put_cmsg(ctl, 0, SOL_IP, IP_TTL, &v, sizeof(v));
	n = put_cmsg(ctl, n, SOL_IPV6, 9999, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	/* cmsg_len past the buffer (CMSG_OK) */
	v = 7;
	put_cmsg(ctl, 0, SOL_IPV6, IPV6_HOPLIMIT, &v, sizeof(v));
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl,
			   CMSG_LEN(sizeof(v)) - 1), -EINVAL);
	/* cmsg_len smaller than the header */
	{
		struct cmsghdr h;

		memset(ctl, 0, sizeof(ctl));
		memset(&h, 0, sizeof(h));
		h.cmsg_len = sizeof(h) - 1;
		h.cmsg_level = SOL_IPV6;
		h.cmsg_type = IPV6_HOPLIMIT;
		memcpy(ctl, &h, sizeof(h));
		CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, 64), -EINVAL);
	}
	/* less than a header: no message at all (CMSG_FIRSTHDR) */
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl,
			   sizeof(struct cmsghdr) - 1), 0);
	/* the address checks come first: a bad cmsg with a mapped
	 * destination is EINVAL either way, with a bad interface ENODEV
	 * only after the address passed */
	n = put_pktinfo(ctl, 0, "::", 9999);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -ENODEV);
	CHECK_EQ(send6_ctl(tab, sk, "fe80::2", 0, ctl, n), -EINVAL);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * KERNEL: ip6_datagram_send_ctl() (net/ipv6/datagram.c) has
 *	case IPV6_2292HOPLIMIT:
 *	case IPV6_HOPLIMIT:
 * the RFC 2292 name is the same message.  The engine's sol_ipv6_cmsg()
 * (src/engine/psock6.c) knows only IPV6_HOPLIMIT and answers EINVAL.
 */
static void kernel_cmsg_2292hoplimit(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	uint8_t ctl[64] __attribute__((aligned(8)));
	int v = 6;
	size_t n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_2292HOPLIMIT, &v,
			    sizeof(v));

	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	CHECK_EQ(info.ttl, 6);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * KERNEL: ip6_datagram_send_ctl() accepts IPV6_FLOWINFO:
 *	case IPV6_FLOWINFO:
 *		if (cmsg->cmsg_len < CMSG_LEN(4)) { err = -EINVAL; ... }
 *		...
 *		fl6->flowlabel = IPV6_FLOWINFO_MASK & *(__be32 *)CMSG_DATA(cmsg);
 * (EINVAL only if a label is already set and differs).  The engine's
 * sol_ipv6_cmsg() falls to its default: EINVAL.
 */
static void kernel_cmsg_flowinfo(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	uint8_t ctl[64] __attribute__((aligned(8)));
	uint32_t fl = htonl(0x00012345);
	size_t n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_FLOWINFO, &fl, sizeof(fl));

	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), 0);
	/* shorter than 4 bytes: EINVAL in both */
	n = put_cmsg(ctl, 0, SOL_IPV6, IPV6_FLOWINFO, &fl, 3);
	CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * KERNEL: ip6_datagram_send_ctl(), IPV6_HOPOPTS / IPV6_2292HOPOPTS /
 * IPV6_2292DSTOPTS / IPV6_DSTOPTS / IPV6_RTHDRDSTOPTS: a well-formed
 * option header is refused with
 *	if (!ns_capable(net->user_ns, CAP_NET_RAW)) { err = -EPERM; ... }
 * The engine answers EINVAL (unknown type) for all of them.  A malformed
 * one (shorter than its hdrlen says) is EINVAL in both.
 */
static void kernel_cmsg_exthdrs_eperm(void)
{
	static const int types[] = { IPV6_HOPOPTS, IPV6_DSTOPTS,
				     IPV6_RTHDRDSTOPTS, 3 /* 2292HOPOPTS */,
				     4 /* 2292DSTOPTS */ };
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	uint8_t ctl[64] __attribute__((aligned(8)));
	uint8_t opt[8] = { 0, 0, 1, 4, 0, 0, 0, 0 };	/* PadN */

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		size_t n = put_cmsg(ctl, 0, SOL_IPV6, types[i], opt,
				    sizeof(opt));

		CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EPERM);
		opt[1] = 1;	/* says 16 bytes, has 8 */
		n = put_cmsg(ctl, 0, SOL_IPV6, types[i], opt, sizeof(opt));
		CHECK_EQ(send6_ctl(tab, sk, "fd00::2", 0, ctl, n), -EINVAL);
		opt[1] = 0;
	}
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ---- errors: what ping_err() does for an IPv6 socket ---- */

static void error_action6(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(ps_error_action(sk, false), PS_ERR_DROP);
	CHECK_EQ(ps_error_action(sk, true), PS_ERR_DROP);	/* not conn. */
	CHECK(!ps_local_errors(sk));
	/* IPv4's IP_RECVERR is not IPv6's (ping_err() reads
	 * inet6_sk(sk)->recverr for an ICMPv6 error) */
	CHECK_EQ(setint(sk, SOL_IP, IP_RECVERR, 1), 0);
	CHECK_EQ(ps_error_action(sk, false), PS_ERR_DROP);
	CHECK_EQ(connect6(tab, sk, "fd00:5::5", 0, 0), 0);
	CHECK_EQ(ps_error_action(sk, false), PS_ERR_DROP);
	CHECK_EQ(ps_error_action(sk, true), PS_ERR_SET);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_RECVERR, 1), 0);
	CHECK_EQ(ps_error_action(sk, false), PS_ERR_QUEUE);
	CHECK_EQ(ps_error_action(sk, true), PS_ERR_QUEUE);
	CHECK(ps_local_errors(sk));
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ---- lookup of an IPv6 reply ---- */

static void lookup6(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct icmp_pkt p;

	CHECK_EQ(bind6(tab, sk, "fe80::1", 0, 2), 0);
	CHECK_EQ(send6(tab, sk, "fe80::2", 2), 0);
	ps_sent(sk, &info, 1);
	memset(&p, 0, sizeof(p));
	p.kind = ICMP_K_REPLY;
	p.src = a6("fe80::2");
	p.dst = a6("fe80::1");
	p.ident = ps_ident(sk);
	p.seq = 0x0102;
	CHECK(pstab_lookup(tab, &p, 2) == sk);
	CHECK(pstab_lookup(tab, &p, 1) == NULL);	/* bound to 2 */
	p.dst = a6("fe80::9");
	CHECK(pstab_lookup(tab, &p, 2) == NULL);	/* bound address */
	p.dst = a6("fe80::1");
	p.src = a6("fe80::3");
	CHECK(pstab_lookup(tab, &p, 2) == NULL);	/* not asked */
	/* an error quoting the request */
	p.kind = ICMP_K_ERROR;
	p.src = a6("fe80::99");
	p.q_src = a6("fe80::1");
	p.q_dst = a6("fe80::2");
	CHECK(pstab_lookup(tab, &p, 2) == sk);
	/* an IPv4 packet never finds an IPv6 socket */
	ps_addr_v4(&p.dst, htonl(0x7f000001));
	ps_addr_v4(&p.src, htonl(0x7f000001));
	p.kind = ICMP_K_REPLY;
	CHECK(pstab_lookup(tab, &p, 2) == NULL);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ---- options (psopt6.c) ---- */

static void opt6_defaults(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_V6ONLY), 1);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_UNICAST_HOPS), 64);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MULTICAST_HOPS), 1);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MULTICAST_LOOP), 1);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MTU_DISCOVER), IPV6_PMTUDISC_WANT);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MTU_DISCOVER), 1);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_TCLASS), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_RECVERR), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MULTICAST_IF), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_UNICAST_IF), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_RECVPKTINFO), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_RECVHOPLIMIT), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_RECVTCLASS), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_FLOWINFO), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_FLOWINFO_SEND), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_DONTFRAG), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_AUTOFLOWLABEL), 1);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_FREEBIND), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_TRANSPARENT), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_RECVERR_RFC4884), 0);
	/* no route yet: IPV6_MTU is ENOTCONN */
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MTU), -ENOTCONN * 1000);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* IPV6_UNICAST_HOPS reads net.ipv6.conf.all.hop_limit when unset. */
static void opt6_hops_read_env(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct ps_env e = env;
	int v = 0;
	uint32_t len = sizeof(v);

	e.default_hoplimit = 17;
	CHECK_EQ(ps_getopt(sk, &e, SOL_IPV6, IPV6_UNICAST_HOPS,
			   (uint8_t *)&v, &len), 0);
	CHECK_EQ(v, 17);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void opt6_round_trips(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	static const int bools[] = { IPV6_RECVERR, IPV6_RECVPKTINFO,
				     IPV6_RECVHOPLIMIT, IPV6_RECVTCLASS,
				     IPV6_FLOWINFO, IPV6_FLOWINFO_SEND,
				     IPV6_DONTFRAG, IPV6_FREEBIND };

	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_HOPS, 7), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_UNICAST_HOPS), 7);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_HOPS, 0), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_UNICAST_HOPS), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_HOPS, 255), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_UNICAST_HOPS), 255);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_HOPS, -1), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_UNICAST_HOPS), 64);

	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_HOPS, 9), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MULTICAST_HOPS), 9);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_HOPS, 0), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MULTICAST_HOPS), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_HOPS, -1), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MULTICAST_HOPS), 1);

	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_LOOP, 0), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MULTICAST_LOOP), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_LOOP, 1), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MULTICAST_LOOP), 1);

	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_TCLASS, 0x28), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_TCLASS), 0x28);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_TCLASS, 255), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_TCLASS), 255);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_TCLASS, -1), 0);	/* RFC 3542 */
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_TCLASS), 0);

	for (int m = IPV6_PMTUDISC_DONT; m <= IPV6_PMTUDISC_OMIT; m++) {
		CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MTU_DISCOVER, m), 0);
		CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MTU_DISCOVER), m);
	}

	for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
		CHECK_EQ(setint(sk, SOL_IPV6, bools[i], 5), 0);
		CHECK_EQ(getint(sk, SOL_IPV6, bools[i]), 1);
		CHECK_EQ(setint(sk, SOL_IPV6, bools[i], 0), 0);
		CHECK_EQ(getint(sk, SOL_IPV6, bools[i]), 0);
	}
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_AUTOFLOWLABEL, 0), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_AUTOFLOWLABEL), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_RECVERR_RFC4884, 1), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_RECVERR_RFC4884), 1);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_RECVERR_RFC4884, 2), -EINVAL);

	/* IPV6_V6ONLY before bind */
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_V6ONLY, 0), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_V6ONLY), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_V6ONLY, 1), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_V6ONLY), 1);

	/* IPV6_MTU (set): 0 or at least IPV6_MIN_MTU */
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MTU, 1279), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MTU, 1280), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MTU, 0), 0);
	/* IPV6_MTU (get): the connected route's */
	CHECK_EQ(connect6(tab, sk, "fd00:5::5", 0, 0), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MTU), 1500);
	/* IPV6_TRANSPARENT needs a capability; 0 is fine */
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_TRANSPARENT, 1), -EPERM);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_TRANSPARENT, 0), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void opt6_range_errors(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_HOPS, 256), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_HOPS, -2), -EINVAL);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_UNICAST_HOPS), 64);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_HOPS, 256), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_HOPS, -2), -EINVAL);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MULTICAST_HOPS), 1);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_TCLASS, 256), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_TCLASS, -2), -EINVAL);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_TCLASS), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_LOOP, 2), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_LOOP, -1), -EINVAL);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MULTICAST_LOOP), 1);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MTU_DISCOVER, 6), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MTU_DISCOVER, -1), -EINVAL);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MTU_DISCOVER), 1);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* An int option with optlen < sizeof(int): EINVAL, nothing changed. */
static void opt6_short_optlen(void)
{
	static const int names[] = {
		IPV6_UNICAST_HOPS, IPV6_MULTICAST_HOPS, IPV6_MULTICAST_LOOP,
		IPV6_TCLASS, IPV6_MTU_DISCOVER, IPV6_RECVERR, IPV6_V6ONLY,
		IPV6_RECVPKTINFO, IPV6_RECVHOPLIMIT, IPV6_RECVTCLASS,
		IPV6_FLOWINFO, IPV6_FLOWINFO_SEND, IPV6_MULTICAST_IF,
		IPV6_UNICAST_IF, IPV6_FREEBIND, IPV6_MTU,
		IPV6_RECVERR_RFC4884,
	};
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	const uint8_t v[4] = { 0, 0, 0, 0 };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int before = getint(sk, SOL_IPV6, names[i]);

		CHECK_EQ(ps_setopt(sk, &env, SOL_IPV6, names[i], v, 3),
			 -EINVAL);
		CHECK_EQ(ps_setopt(sk, &env, SOL_IPV6, names[i], v, 0),
			 -EINVAL);
		CHECK_EQ(getint(sk, SOL_IPV6, names[i]), before);
	}
	/* IPV6_UNICAST_IF wants exactly an int */
	{
		uint8_t big[8] = { 0 };

		CHECK_EQ(ps_setopt(sk, &env, SOL_IPV6, IPV6_UNICAST_IF, big,
				   sizeof(big)), -EINVAL);
	}
	/* getsockopt with a short buffer: min(len, sizeof(int)) bytes */
	{
		uint8_t b[4] = { 0xee, 0xee, 0xee, 0xee };
		uint32_t len = 1;

		CHECK_EQ(ps_getopt(sk, &env, SOL_IPV6, IPV6_V6ONLY, b, &len),
			 0);
		CHECK_EQ(len, 1);
		CHECK_EQ(b[0], 1);
		CHECK_EQ(b[1], 0xee);
	}
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * KERNEL: do_ipv6_setsockopt() (net/ipv6/ipv6_sockglue.c) has no optlen
 * check for these two:
 *	case IPV6_AUTOFLOWLABEL:
 *		inet6_assign_bit(AUTOFLOWLABEL, sk, valbool); ...
 *		return 0;
 *	case IPV6_DONTFRAG:
 *		inet6_assign_bit(DONTFRAG, sk, valbool);
 *		return 0;
 * With optlen < sizeof(int), val is 0: the option is turned off and the
 * call succeeds.  The engine's set_int_opt() (src/engine/psopt6.c)
 * answers EINVAL for every int option shorter than an int.
 */
static void kernel_opt6_no_optlen_check(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	const uint8_t v[4] = { 1, 1, 1, 1 };

	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_DONTFRAG, 1), 0);
	CHECK_EQ(ps_setopt(sk, &env, SOL_IPV6, IPV6_DONTFRAG, v, 3), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_DONTFRAG), 0);
	CHECK_EQ(ps_setopt(sk, &env, SOL_IPV6, IPV6_AUTOFLOWLABEL, v, 2), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_AUTOFLOWLABEL), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* IPV6_V6ONLY: "if (optlen < sizeof(int) || inet_sk(sk)->inet_num)
 * goto e_inval" -- once there is an identifier, by bind, connect or a
 * send. */
static void opt6_v6only_after_bind(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(bind6(tab, sk, "::", 0, 0), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_V6ONLY, 0), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_V6ONLY, 1), -EINVAL);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_V6ONLY), 1);
	pstab_close(tab, sk);

	sk = open6(tab);
	CHECK_EQ(send6(tab, sk, "fd00::2", 0), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_V6ONLY, 0), -EINVAL);
	pstab_close(tab, sk);

	sk = open6(tab);
	CHECK_EQ(connect6(tab, sk, "fd00::2", 0, 0), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_V6ONLY, 0), -EINVAL);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void opt6_unknown(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(setint(sk, SOL_IPV6, 9999, 1), -ENOPROTOOPT);
	CHECK_EQ(getint(sk, SOL_IPV6, 9999), -ENOPROTOOPT * 1000);
	/* ipv6_setsockopt()/ipv6_getsockopt(): a level that is neither
	 * SOL_IP nor SOL_IPV6 (nor SOL_SOCKET) is ENOPROTOOPT both ways */
	CHECK_EQ(setint(sk, 12345, 1, 1), -ENOPROTOOPT);
	CHECK_EQ(getint(sk, 12345, 1), -ENOPROTOOPT * 1000);
	CHECK_EQ(getint(sk, IPPROTO_ICMPV6, 1), -ENOPROTOOPT * 1000);
	CHECK_EQ(setint(sk, IPPROTO_ICMPV6, 1, 0), -ENOPROTOOPT);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* ipv6_setsockopt(): "if (level == SOL_IP && sk->sk_type != SOCK_RAW)
 * return ip_setsockopt(...)": IPv4 options work on an IPv6 ping
 * socket. */
static void opt6_sol_ip_accepted(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(getint(sk, SOL_IP, IP_TTL), 64);
	CHECK_EQ(setint(sk, SOL_IP, IP_TTL, 5), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_TTL), 5);
	CHECK_EQ(setint(sk, SOL_IP, IP_TTL, 0), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IP, IP_RECVERR, 1), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_RECVERR), 1);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_RECVERR), 0);	/* apart */
	CHECK_EQ(setint(sk, SOL_IP, IP_TOS, 0x10), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_TOS), 0x10);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_TCLASS), 0);		/* apart */
	CHECK_EQ(setint(sk, SOL_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_MTU_DISCOVER), IP_PMTUDISC_DO);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MTU_DISCOVER), 1);	/* apart */
	CHECK_EQ(setint(sk, SOL_IP, IP_MULTICAST_TTL, 3), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_MULTICAST_TTL), 3);
	CHECK_EQ(setint(sk, SOL_IP, IP_RECVTTL, 1), 0);
	CHECK_EQ(getint(sk, SOL_IP, IP_RECVTTL), 1);
	CHECK_EQ(setint(sk, SOL_IP, 9999, 1), -ENOPROTOOPT);
	/* and the IPv6 ones stay where they were */
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_UNICAST_HOPS), 64);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void opt6_interfaces(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_IF, 9999), -ENODEV);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_IF, 2), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MULTICAST_IF), 2);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_IF, 0), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MULTICAST_IF), 0);
	/* IPV6_UNICAST_IF: network byte order */
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_IF, (int)htonl(9999)),
		 -EADDRNOTAVAIL);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_IF, 2), -EADDRNOTAVAIL);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_IF, (int)htonl(2)), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_UNICAST_IF), (int)htonl(2));
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_IF, 0), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_UNICAST_IF), 0);
	pstab_close(tab, sk);

	/* bound to a device: another multicast interface is EINVAL */
	sk = open6(tab);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_BINDTOIFINDEX, 1), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_IF, 2), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_IF, 1), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_IF, (int)htonl(2)),
		 -EINVAL);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_IF, 0), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/* The sticky IPV6_PKTINFO (set). */
static void opt6_pktinfo_set(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	struct in6_pktinfo pi;

	memset(&pi, 0, sizeof(pi));
	pi.ipi6_ifindex = 2;
	CHECK_EQ(ps_setopt(sk, &env, SOL_IPV6, IPV6_PKTINFO,
			   (const uint8_t *)&pi, sizeof(pi) - 1), -EINVAL);
	CHECK_EQ(ps_setopt(sk, &env, SOL_IPV6, IPV6_PKTINFO,
			   (const uint8_t *)&pi, 0), -EINVAL);
	CHECK_EQ(ps_setopt(sk, &env, SOL_IPV6, IPV6_PKTINFO,
			   (const uint8_t *)&pi, sizeof(pi)), 0);
	pstab_close(tab, sk);

	/* sk_dev_equal_l3scope(): bound elsewhere is EINVAL */
	sk = open6(tab);
	CHECK_EQ(setint(sk, SOL_SOCKET, SO_BINDTOIFINDEX, 1), 0);
	CHECK_EQ(ps_setopt(sk, &env, SOL_IPV6, IPV6_PKTINFO,
			   (const uint8_t *)&pi, sizeof(pi)), -EINVAL);
	pi.ipi6_ifindex = 1;
	CHECK_EQ(ps_setopt(sk, &env, SOL_IPV6, IPV6_PKTINFO,
			   (const uint8_t *)&pi, sizeof(pi)), 0);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * KERNEL: do_ipv6_getsockopt() has no case for IPV6_PKTINFO (only
 * IPV6_RECVPKTINFO and IPV6_2292PKTINFO); it falls to
 *	default:
 *		return -ENOPROTOOPT;
 * The engine's ps6_getopt() (src/engine/psopt6.c) answers it with the
 * sticky struct in6_pktinfo.
 */
static void kernel_opt6_get_pktinfo_enoprotoopt(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);
	uint8_t b[32];
	uint32_t len = sizeof(b);

	CHECK_EQ(ps_getopt(sk, &env, SOL_IPV6, IPV6_PKTINFO, b, &len),
		 -ENOPROTOOPT);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * KERNEL: do_ipv6_setsockopt() IPV6_UNICAST_IF:
 *	if (READ_ONCE(sk->sk_bound_dev_if))
 *		return -EINVAL;
 * any bound device, the same one included.  The engine's set_if()
 * (src/engine/psopt6.c) refuses only a different one.
 */
static void kernel_opt6_unicast_if_bound(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(setint(sk, SOL_SOCKET, SO_BINDTOIFINDEX, 2), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_UNICAST_IF, (int)htonl(2)),
		 -EINVAL);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * KERNEL: do_ipv6_setsockopt()/do_ipv6_getsockopt() accept, for any
 * user, plain flag/int options that the engine answers ENOPROTOOPT:
 *	IPV6_MULTICAST_ALL (29, default 1), IPV6_RECVPATHMTU (60),
 *	IPV6_MINHOPCOUNT (73, 0..255), IPV6_RECVFRAGSIZE (77),
 *	IPV6_2292HOPLIMIT (8, rxohlim)
 * (the same holds for IPV6_2292PKTINFO/HOPOPTS/DSTOPTS/RTHDR,
 * IPV6_RECVRTHDR, IPV6_RECVHOPOPTS, IPV6_RECVDSTOPTS,
 * IPV6_RECVORIGDSTADDR, IPV6_ROUTER_ALERT_ISOLATE,
 * IPV6_ADDR_PREFERENCES; not tested one by one).
 */
static void kernel_opt6_more_flags(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MULTICAST_ALL), 1);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MULTICAST_ALL, 0), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MULTICAST_ALL), 0);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_RECVPATHMTU, 1), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_RECVPATHMTU), 1);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MINHOPCOUNT, 10), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_MINHOPCOUNT), 10);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_MINHOPCOUNT, 256), -EINVAL);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_RECVFRAGSIZE, 1), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_RECVFRAGSIZE), 1);
	CHECK_EQ(setint(sk, SOL_IPV6, IPV6_2292HOPLIMIT, 1), 0);
	CHECK_EQ(getint(sk, SOL_IPV6, IPV6_2292HOPLIMIT), 1);
	pstab_close(tab, sk);
	pstab_free(tab);
}

/*
 * SO_DONTROUTE and MSG_DONTROUTE change nothing for IPv6: the kernel's
 * ping_v6_sendmsg() and ip6_datagram_connect() route as ever (measured:
 * a destination behind a router still answers).
 */
static void dontroute_ignored(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *sk = open6(tab);

	CHECK_EQ(setint(sk, SOL_SOCKET, SO_DONTROUTE, 1), 0);
	CHECK_EQ(getint(sk, SOL_SOCKET, SO_DONTROUTE), 1);
	CHECK_EQ(connect6(tab, sk, "fd00::2", 0, 0), 0);
	CHECK_EQ(fk.route_flags, 0);
	CHECK_EQ(send6(tab, sk, "fd00::2", 0), 0);
	CHECK(!info.dontroute);
	CHECK_EQ(send6x(tab, sk, "fd00::2", 0, 128, 0, 64, MSG_DONTROUTE,
			NULL, 0), 0);
	CHECK(!info.dontroute);
	pstab_close(tab, sk);
	pstab_free(tab);
}

static void counts_return_to_zero(void)
{
	struct pstab *tab = pstab_new(1000);
	struct psock *a = open6(tab), *b = open6(tab);

	CHECK_EQ(bind6(tab, a, "::1", 0, 0), 0);
	CHECK_EQ(send6(tab, b, "fd00::2", 0), 0);
	CHECK_EQ(pstab_sockets(tab), 2);
	CHECK_EQ(pstab_idents(tab), 2);
	pstab_close(tab, a);
	pstab_close(tab, b);
	CHECK_EQ(pstab_sockets(tab), 0);
	CHECK_EQ(pstab_idents(tab), 0);
	pstab_free(tab);
}

int main(void)
{
	TEST(socket6_open);
	TEST(bind_errors);
	TEST(bind_any);
	TEST(bind_loopback);
	TEST(bind_with_bound_device);
	TEST(bind_link_local);
	TEST(bind_scope_on_global);
	TEST(bind_again_scoped_sets_device);
	TEST(bind_idents_per_family);
	TEST(connect_errors);
	TEST(connect_any_is_loopback);
	TEST(connect_global);
	TEST(connect_unspec_disconnects);
	TEST(connect_link_local);
	TEST(kernel_connect_uses_sticky_pktinfo);
	TEST(kernel_connect_family_before_length);
	TEST(kernel_connect_mapped_before_flowlabel);
	TEST(send_type_checks);
	TEST(send_name_checks);
	TEST(send_bound_device);
	TEST(send_rewrites_message);
	TEST(send_autobinds_first);
	TEST(send_hop_limits);
	TEST(send_info_from_options);
	TEST(send_connected);
	TEST(send_cmsg_hoplimit);
	TEST(send_cmsg_tclass_dontfrag);
	TEST(send_cmsg_pktinfo);
	TEST(send_cmsg_walk);
	TEST(kernel_cmsg_2292hoplimit);
	TEST(kernel_cmsg_flowinfo);
	TEST(kernel_cmsg_exthdrs_eperm);
	TEST(error_action6);
	TEST(lookup6);
	TEST(opt6_defaults);
	TEST(opt6_hops_read_env);
	TEST(opt6_round_trips);
	TEST(opt6_range_errors);
	TEST(opt6_short_optlen);
	TEST(kernel_opt6_no_optlen_check);
	TEST(opt6_v6only_after_bind);
	TEST(opt6_unknown);
	TEST(opt6_sol_ip_accepted);
	TEST(opt6_interfaces);
	TEST(opt6_pktinfo_set);
	TEST(kernel_opt6_get_pktinfo_enoprotoopt);
	TEST(kernel_opt6_unicast_if_bound);
	TEST(kernel_opt6_more_flags);
	TEST(counts_return_to_zero);
	TEST(dontroute_ignored);
	return CHECK_DONE();
}
