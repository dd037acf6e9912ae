/* SPDX-License-Identifier: ISC */
/*
 * conf.h - helpers shared by the differential conformance cases.
 *
 * Each case is one program that talks to a ping socket through the
 * pingsock_* API only and prints one line per observable.  tests/conformance/
 * run.sh runs it once against the kernel's ping socket and once against
 * pingsockd and diffs the two outputs, so everything printed here must be
 * deterministic: no descriptors, pids, times or automatically chosen
 * identifiers (those are printed as "auto"/"own"), only what the kernel
 * promises.
 *
 * The helpers take the socket's family as a descriptor (struct conf_fam:
 * conf_v4, conf_v6), as the kernel's ping.c keeps IPv6 behind
 * pingv6_ops: the steps an IPv4 case and its IPv6 twin share (steps/)
 * are written once for either family.  The older per-family names
 * (conf_ping, conf_ping6, ...) are those helpers for one family.
 *
 * Header-only: every case is linked alone.  Every helper is static and
 * marked unused so that a case may use any subset of them.
 */
#ifndef CONF_H
#define CONF_H

#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <linux/errqueue.h>
#include <net/if.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* -DCONF_PLAIN: the same case as a plain libc program (plain.h). */
#ifdef CONF_PLAIN
#include "plain.h"
#else
#include "pingsock.h"
#endif

#define CONF_UNUSED __attribute__((unused))

#ifndef IPV6_FLOWINFO
#define IPV6_FLOWINFO 11
#endif
#ifndef IPV6_FLOWINFO_SEND
#define IPV6_FLOWINFO_SEND 33
#endif

/* Every wait is bounded by this (milliseconds). */
#define CONF_WAIT_MS 2000

/*
 * Addresses of the test namespaces (run.sh sets them up).  Every IPv6
 * address there is fixed (no automatic link-local addresses), so
 * addresses, link-local ones included, print deterministically; a scope
 * id prints as the interface's name.
 */
#define CONF_LOCAL "10.201.0.1"
#define CONF_PEER "10.201.0.2"
#define CONF_BCAST "10.201.0.255"
#define CONF_NOROUTE "10.99.0.1"
#define CONF6_LOCAL "fd00:201::1"
#define CONF6_PEER "fd00:201::2"
#define CONF6_LL_LOCAL "fe80::1"	/* on veth0 */
#define CONF6_LL_PEER "fe80::2"		/* the peer's, on its veth1 */
#define CONF6_NOROUTE "fd00:99::1"	/* no default route */
#define CONF6_IF "veth0"

/*
 * The router topology ("// needs: router"; run.sh builds it for such
 * cases):
 *
 *   client 10.77.0.2/24 -- 10.77.0.1/24 router 10.77.1.1/24 -- 10.77.1.2 far
 *                                                                  10.77.1.3
 *
 * The client's default route is via the router; the router's link to the
 * far namespace has MTU 1280; in the router 10.77.5.0/24 is an
 * "unreachable" route, 10.77.6.0/24 a "prohibit" route (both rate-limited
 * per source: burst 5, then 1/s), and 10.78.0.0/16 is local, where
 * tests/lib/icmpforge answers an Echo Request for 10.78.T.C with an ICMP
 * error of type T, code C from 10.77.0.1 (types 3, 4, 5, 11, 12 only; a
 * request for 10.78.0.C gets no answer at all).  IPv6 the same, with the
 * addresses below (no forger, no rate limit).
 */
#define CONF_R_CLIENT "10.77.0.2"
#define CONF_R_ROUTER "10.77.0.1"
#define CONF_R_FAR "10.77.1.2"
#define CONF_R_FAR2 "10.77.1.3"
#define CONF_R_FAR_MTU 1280
#define CONF_R_UNREACH "10.77.5.1"
#define CONF_R_PROHIBIT "10.77.6.1"
#define CONF_R_BLACKHOLE "10.78.0.1"
#define CONF6_R_CLIENT "fd00:77::2"
#define CONF6_R_ROUTER "fd00:77::1"
#define CONF6_R_ROUTER_FAR "fd00:77:1::1"
#define CONF6_R_FAR "fd00:77:1::2"
#define CONF6_R_FAR2 "fd00:77:1::3"
#define CONF6_R_FAR_MTU 1280
#define CONF6_R_UNREACH "fd00:77:5::1"	/* route "unreachable": DU code 0 */
#define CONF6_R_PROHIBIT "fd00:77:6::1"	/* route "prohibit": DU code 1 */

/* ------------------------------------------------------------------ */
/* output */

static CONF_UNUSED __attribute__((format(printf, 1, 2)))
void out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

/* A label built with printf formatting; eight rotating buffers. */
static CONF_UNUSED __attribute__((format(printf, 1, 2)))
const char *L(const char *fmt, ...)
{
	static char bufs[8][256];
	static unsigned next;
	char *b = bufs[next++ % 8];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(b, sizeof(bufs[0]), fmt, ap);
	va_end(ap);
	return b;
}

static CONF_UNUSED const char *conf_errname(int e)
{
	static char other[32];

	switch (e) {
	case 0: return "0";
	case EPERM: return "EPERM";
	case ENOENT: return "ENOENT";
	case ESRCH: return "ESRCH";
	case EINTR: return "EINTR";
	case EIO: return "EIO";
	case ENXIO: return "ENXIO";
	case E2BIG: return "E2BIG";
	case EBADF: return "EBADF";
	case ECHILD: return "ECHILD";
	case EAGAIN: return "EAGAIN";
	case ENOMEM: return "ENOMEM";
	case EACCES: return "EACCES";
	case EFAULT: return "EFAULT";
	case EBUSY: return "EBUSY";
	case EEXIST: return "EEXIST";
	case ENODEV: return "ENODEV";
	case ENOTDIR: return "ENOTDIR";
	case EISDIR: return "EISDIR";
	case EINVAL: return "EINVAL";
	case ENFILE: return "ENFILE";
	case EMFILE: return "EMFILE";
	case ENOTTY: return "ENOTTY";
	case EFBIG: return "EFBIG";
	case ENOSPC: return "ENOSPC";
	case ESPIPE: return "ESPIPE";
	case EROFS: return "EROFS";
	case EPIPE: return "EPIPE";
	case EDOM: return "EDOM";
	case ERANGE: return "ERANGE";
	case ENOSYS: return "ENOSYS";
	case ENOMSG: return "ENOMSG";
	case ENODATA: return "ENODATA";
	case ENONET: return "ENONET";
	case EPROTO: return "EPROTO";
	case EBADMSG: return "EBADMSG";
	case EOVERFLOW: return "EOVERFLOW";
	case ENOTSOCK: return "ENOTSOCK";
	case EDESTADDRREQ: return "EDESTADDRREQ";
	case EMSGSIZE: return "EMSGSIZE";
	case EPROTOTYPE: return "EPROTOTYPE";
	case ENOPROTOOPT: return "ENOPROTOOPT";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case ESOCKTNOSUPPORT: return "ESOCKTNOSUPPORT";
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPFNOSUPPORT: return "EPFNOSUPPORT";
	case EAFNOSUPPORT: return "EAFNOSUPPORT";
	case EADDRINUSE: return "EADDRINUSE";
	case EADDRNOTAVAIL: return "EADDRNOTAVAIL";
	case ENETDOWN: return "ENETDOWN";
	case ENETUNREACH: return "ENETUNREACH";
	case ENETRESET: return "ENETRESET";
	case ECONNABORTED: return "ECONNABORTED";
	case ECONNRESET: return "ECONNRESET";
	case ENOBUFS: return "ENOBUFS";
	case EISCONN: return "EISCONN";
	case ENOTCONN: return "ENOTCONN";
	case ESHUTDOWN: return "ESHUTDOWN";
	case ETIMEDOUT: return "ETIMEDOUT";
	case ECONNREFUSED: return "ECONNREFUSED";
	case EHOSTDOWN: return "EHOSTDOWN";
	case EHOSTUNREACH: return "EHOSTUNREACH";
	case EALREADY: return "EALREADY";
	case EINPROGRESS: return "EINPROGRESS";
	case EREMOTEIO: return "EREMOTEIO";
	default:
		snprintf(other, sizeof(other), "errno%d", e);
		return other;
	}
}

/* The errno of the last failed TRY (0 if it succeeded). */
static int conf_errno CONF_UNUSED;

static CONF_UNUSED long conf_res_(const char *what, long r, int e, bool quiet)
{
	if (r < 0)
		out("%s: -1 %s", what, conf_errname(e));
	else if (quiet)
		out("%s: ok", what);
	else
		out("%s: %ld", what, r);
	conf_errno = r < 0 ? e : 0;
	return r;
}

/*
 * TRY(label, call): run the call, read errno in the next statement,
 * print "label: RET" or "label: -1 ENAME"; evaluates to the return value.
 * TRYQ prints "ok" instead of a non-negative return value (descriptors).
 */
#define TRY(what, expr) ({ long conf_r_ = (long)(expr); \
	int conf_e_ = errno; conf_res_((what), conf_r_, conf_e_, false); })
#define TRYQ(what, expr) ({ long conf_r_ = (long)(expr); \
	int conf_e_ = errno; conf_res_((what), conf_r_, conf_e_, true); })

static CONF_UNUSED void conf_hex(char *dst, size_t dlen, const void *p,
				 size_t n)
{
	const uint8_t *b = p;
	size_t o = 0;

	dst[0] = '\0';
	for (size_t i = 0; i < n && o + 3 < dlen; i++)
		o += (size_t)snprintf(dst + o, dlen - o, "%02x", b[i]);
}

/* ------------------------------------------------------------------ */
/* set-up, options */

static CONF_UNUSED void conf_begin(const char *name)
{
	signal(SIGPIPE, SIG_IGN);
	alarm(30);		/* a hung case dies rather than the suite */
	out("# conformance case %s", name);
}

#define SA(p) ((struct sockaddr *)(p))

static CONF_UNUSED int conf_setint(int fd, int level, int name, int v)
{
	return pingsock_setsockopt(fd, level, name, &v, sizeof(v));
}

/* An interface's index (0 if there is no such interface). */
static CONF_UNUSED unsigned conf_ifidx(const char *name)
{
	return if_nametoindex(name);
}

/* getsockopt of an int-sized option, printed with its optlen. */
static CONF_UNUSED int conf_getint(const char *what, int fd, int level,
				   int name, socklen_t len)
{
	uint8_t buf[64];
	socklen_t l = len;
	int r, e, v = 0;

	memset(buf, 0xaa, sizeof(buf));
	r = pingsock_getsockopt(fd, level, name, buf, &l);
	e = errno;
	if (r < 0) {
		out("%s: -1 %s", what, conf_errname(e));
		return -1;
	}
	if (l == sizeof(int)) {
		memcpy(&v, buf, sizeof(v));
		out("%s: %d optlen=%u value=%d", what, r, (unsigned)l, v);
	} else {
		char hex[140];

		conf_hex(hex, sizeof(hex), buf, l < sizeof(buf) ? l : 0);
		out("%s: %d optlen=%u bytes=%s", what, r, (unsigned)l, hex);
	}
	return v;
}

/* An option by its name, for tables: CONF_OPT(SOL_IP, IP_TTL). */
#define CONF_OPT(level, name) { (level), (name), #name }

/* A socket option, and its name as labels print it. */
struct conf_opt {
	int level, name;
	const char *label;
};

/* conf_getint of each of n options in turn, each by its label. */
static CONF_UNUSED void conf_getint_each(int fd, const struct conf_opt *o,
					 size_t n)
{
	for (size_t i = 0; i < n; i++)
		conf_getint(o[i].label, fd, o[i].level, o[i].name,
			    sizeof(int));
}

/* setsockopt of an int, then getsockopt of it, both printed. */
static CONF_UNUSED void conf_set_get(const char *what, int fd, int level,
				     int name, int v)
{
	TRY(L("%s set %d", what, v), conf_setint(fd, level, name, v));
	conf_getint(L("%s get", what), fd, level, name, sizeof(int));
}

/* conf_set_get for each of n values in turn. */
static CONF_UNUSED void conf_set_get_each(const char *what, int fd,
					  int level, int name, const int *v,
					  size_t n)
{
	for (size_t i = 0; i < n; i++)
		conf_set_get(what, fd, level, name, v[i]);
}

/* conf_set_get_each of an option by its name, with the values listed:
 * CONF_SET_GET_EACH(fd, SOL_IP, IP_TOS, 0x10, 0xff). */
#define CONF_SET_GET_EACH(fd, level, name, ...) \
	conf_set_get_each(#name, (fd), (level), (name), \
			  (const int[]){ __VA_ARGS__ }, \
			  sizeof((const int[]){ __VA_ARGS__ }) / sizeof(int))

/* setsockopt of len bytes at val, printed. */
static CONF_UNUSED void conf_set_len(const char *what, int fd, int level,
				     int name, const void *val, socklen_t len)
{
	TRY(what, pingsock_setsockopt(fd, level, name, val, len));
}

/*
 * setsockopt of the value v given with optlen len: one byte for len 1,
 * else from an int followed by a zero int (so that len 8 reads two).
 */
static CONF_UNUSED void conf_set_optlen(const char *what, int fd, int level,
					int name, int v, socklen_t len)
{
	unsigned char c = (unsigned char)v;
	int wide[2] = { v, 0 };

	TRY(L("%s set %d, optlen %u", what, v, (unsigned)len),
	    pingsock_setsockopt(fd, level, name,
				len == 1 ? (const void *)&c : wide, len));
}

/* getsockopt with each of n optlens in turn ("WHAT get optlen N"). */
static CONF_UNUSED void conf_get_optlens(const char *what, int fd, int level,
					 int name, const int *lens, size_t n)
{
	for (size_t i = 0; i < n; i++)
		conf_getint(L("%s get optlen %d", what, lens[i]), fd, level,
			    name, (socklen_t)lens[i]);
}

/* ------------------------------------------------------------------ */
/* addresses */

static CONF_UNUSED struct sockaddr_in conf_sin(const char *ip, int port)
{
	struct sockaddr_in a;

	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)port);
	if (inet_pton(AF_INET, ip, &a.sin_addr) != 1) {
		fprintf(stderr, "bad address %s\n", ip);
		exit(2);
	}
	return a;
}

/* A sockaddr_in6; scope is an interface index (0: none). */
static CONF_UNUSED struct sockaddr_in6 conf_sin6(const char *ip, int port,
						 unsigned scope)
{
	struct sockaddr_in6 a;

	memset(&a, 0, sizeof(a));
	a.sin6_family = AF_INET6;
	a.sin6_port = htons((uint16_t)port);
	a.sin6_scope_id = scope;
	if (inet_pton(AF_INET6, ip, &a.sin6_addr) != 1) {
		fprintf(stderr, "bad address %s\n", ip);
		exit(2);
	}
	return a;
}

/* A scope id: 0, or the interface's name. */
static CONF_UNUSED const char *conf_scope6(uint32_t id)
{
	static char b[4][IF_NAMESIZE + 16];
	static unsigned next;
	char *s = b[next++ % 4];

	if (!id)
		return "0";
	if (!if_indextoname(id, s))
		snprintf(s, sizeof(b[0]), "ifindex%u", (unsigned)id);
	return s;
}

/* A scope id given as an interface's name or as a number (NULL: 0). */
static CONF_UNUSED unsigned conf_scope_id(const char *dev)
{
	if (!dev)
		return 0;
	if (dev[0] >= '0' && dev[0] <= '9')
		return (unsigned)strtoul(dev, NULL, 10);
	return conf_ifidx(dev);
}

enum { PORT_EXACT = 0, PORT_MASK = 1 };

/*
 * conf_sa6's mask may also have FLOW_MASK: the flow label part of
 * sin6_flowinfo (a received packet's, which the sender's kernel may
 * choose at random) is then printed as "set" or 0, the traffic class
 * exactly.
 */
enum { FLOW_MASK = 2 };

/* Bytes past what came back (up to the room given) still hold 0xaa. */
static CONF_UNUSED bool conf_fill_ok(const void *sa, socklen_t buflen,
				     socklen_t len)
{
	const uint8_t *raw = sa;
	socklen_t copied = len < buflen ? len : buflen;

	for (socklen_t i = copied; i < buflen && i < 128; i++)
		if (raw[i] != 0xaa)
			return false;
	return true;
}

/* A returned address that is not a whole one of the socket's family:
 * its length and (up to 32 of) its bytes, into b. */
static CONF_UNUSED const char *conf_sa_bytes(char *b, size_t size,
					     const void *sa, socklen_t buflen,
					     socklen_t len)
{
	char hex[80];
	socklen_t copied = len < buflen ? len : buflen;

	conf_hex(hex, sizeof(hex), sa, copied < 32 ? copied : 32);
	snprintf(b, size, "len=%u bytes=%s%s", (unsigned)len, hex,
		 conf_fill_ok(sa, buflen, len) ? "" : " (overwrote past len)");
	return b;
}

/* A port (network order) as printed: "auto" for a masked non-zero one. */
static CONF_UNUSED const char *conf_port(char b[16], uint16_t port, int mask)
{
	if ((mask & PORT_MASK) && port)
		snprintf(b, 16, "auto");
	else
		snprintf(b, 16, "%u", ntohs(port));
	return b;
}

/*
 * Describe a returned socket address.  buflen is how much room the
 * caller gave, len what came back; bytes beyond what the kernel wrote
 * must still hold the 0xaa fill.
 */
static CONF_UNUSED const char *conf_sa(const void *sa, socklen_t buflen,
				       socklen_t len, int mask)
{
	static char s[4][200];
	static unsigned next;
	char *b = s[next++ % 4];
	const struct sockaddr_in *in = sa;
	char ip[INET_ADDRSTRLEN], port[16];

	if (buflen < sizeof(*in) || len != sizeof(*in) ||
	    in->sin_family != AF_INET)
		return conf_sa_bytes(b, sizeof(s[0]), sa, buflen, len);
	inet_ntop(AF_INET, &in->sin_addr, ip, sizeof(ip));
	snprintf(b, sizeof(s[0]), "len=16 AF_INET %s port=%s%s%s", ip,
		 conf_port(port, in->sin_port, mask),
		 memcmp(in->sin_zero, "\0\0\0\0\0\0\0\0", 8) ? " sin_zero!=0"
							      : "",
		 conf_fill_ok(sa, buflen, len) ? "" : " (overwrote past len)");
	return b;
}

/*
 * Describe a returned IPv6 socket address (as conf_sa).  Anything that is
 * not a whole AF_INET6 sockaddr_in6 is printed as bytes.  mask:
 * PORT_EXACT or PORT_MASK, optionally | FLOW_MASK.
 */
static CONF_UNUSED const char *conf_sa6(const void *sa, socklen_t buflen,
					socklen_t len, int mask)
{
	static char s[4][240];
	static unsigned next;
	char *b = s[next++ % 4];
	struct sockaddr_in6 in;
	char ip[INET6_ADDRSTRLEN], port[16], flow[40];
	socklen_t copied = len < buflen ? len : buflen;
	uint32_t fi;

	memset(&in, 0, sizeof(in));
	if (copied >= sizeof(in))
		memcpy(&in, sa, sizeof(in));
	if (buflen < sizeof(in) || len != sizeof(in) ||
	    in.sin6_family != AF_INET6)
		return conf_sa_bytes(b, sizeof(s[0]), sa, buflen, len);
	inet_ntop(AF_INET6, &in.sin6_addr, ip, sizeof(ip));
	fi = ntohl(in.sin6_flowinfo);
	if ((mask & FLOW_MASK) && (fi & 0xfffff))
		snprintf(flow, sizeof(flow), "tclass 0x%02x label set",
			 (unsigned)(fi >> 20) & 0xff);
	else
		snprintf(flow, sizeof(flow), "0x%x", (unsigned)fi);
	snprintf(b, sizeof(s[0]),
		 "len=28 AF_INET6 %s port=%s flowinfo=%s scope=%s%s", ip,
		 conf_port(port, in.sin6_port, mask), flow,
		 conf_scope6(in.sin6_scope_id),
		 conf_fill_ok(sa, buflen, len) ? "" : " (overwrote past len)");
	return b;
}

/* The device a socket is bound to (SO_BINDTOIFINDEX), by name. */
static CONF_UNUSED void conf_bound_dev(const char *what, int fd)
{
	int v = -1;
	socklen_t l = sizeof(v);

	if (pingsock_getsockopt(fd, SOL_SOCKET, SO_BINDTOIFINDEX, &v, &l) < 0)
		out("%s: -1 %s", what, conf_errname(errno));
	else
		out("%s: %s", what, conf_scope6((uint32_t)v));
}

/* ------------------------------------------------------------------ */
/* echo requests, checksums */

static CONF_UNUSED uint8_t conf_pat(size_t i, uint16_t seq)
{
	return (uint8_t)(i * 7u + seq);
}

/* Fill an Echo Request of len bytes (header + payload) into buf. */
static CONF_UNUSED void conf_echo(uint8_t *buf, size_t len, uint16_t seq)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = conf_pat(i, seq);
	if (len >= 8) {
		buf[0] = 8;		/* ICMP_ECHO */
		buf[1] = 0;
		buf[2] = 0xde;		/* any checksum: the kernel redoes it */
		buf[3] = 0xad;
		buf[4] = 0xbe;		/* any identifier: the socket's wins */
		buf[5] = 0xef;
		buf[6] = (uint8_t)(seq >> 8);
		buf[7] = (uint8_t)seq;
	}
}

/* Fill an ICMPv6 Echo Request (type 128) of len bytes into buf: even a
 * stub shorter than the header starts with the type. */
static CONF_UNUSED void conf_echo6(uint8_t *buf, size_t len, uint16_t seq)
{
	conf_echo(buf, len, seq);
	if (len >= 1)
		buf[0] = 128;		/* ICMP6_ECHO_REQUEST */
}

static CONF_UNUSED uint8_t conf_big[70000];

/* The one's complement sum of p[0..n) added to s, folded to 16 bits. */
static CONF_UNUSED uint32_t conf_sum16(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		s += (uint32_t)(p[n - 1] << 8);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s;
}

static CONF_UNUSED bool conf_cksum_ok(const uint8_t *p, size_t n)
{
	return conf_sum16(0, p, n) == 0xffff;
}

/*
 * The ICMPv6 checksum covers a pseudo-header with both addresses; the
 * sum is the same whichever is the source.  One of them is the peer's
 * (msg_name), the other is one of this namespace's addresses: the
 * checksum is "ok" when it adds up with any of those.
 */
static CONF_UNUSED bool conf_cksum6_with(const struct in6_addr *a,
					 const struct in6_addr *b,
					 const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (int i = 0; i < 16; i += 2) {
		s += (uint32_t)(a->s6_addr[i] << 8 | a->s6_addr[i + 1]);
		s += (uint32_t)(b->s6_addr[i] << 8 | b->s6_addr[i + 1]);
	}
	s += (uint32_t)(n >> 16) + (uint32_t)(n & 0xffff);
	s += IPPROTO_ICMPV6;
	return conf_sum16(s, p, n) == 0xffff;
}

static CONF_UNUSED bool conf_cksum6_ok(const struct in6_addr *peer,
				       const uint8_t *p, size_t n)
{
	static struct in6_addr locals[32];
	static int nlocal = -1;

	if (nlocal < 0) {
		struct ifaddrs *ifa, *i;

		nlocal = 0;
		if (getifaddrs(&ifa) == 0) {
			for (i = ifa; i && nlocal < 32; i = i->ifa_next)
				if (i->ifa_addr &&
				    i->ifa_addr->sa_family == AF_INET6)
					locals[nlocal++] =
						((struct sockaddr_in6 *)
							 i->ifa_addr)->sin6_addr;
			freeifaddrs(ifa);
		}
	}
	for (int i = 0; i < nlocal; i++)
		if (conf_cksum6_with(peer, &locals[i], p, n))
			return true;
	/* sent to oneself: both addresses are the peer's */
	return conf_cksum6_with(peer, peer, p, n);
}

/* A whole ICMP message's checksum verdict (peer: unused). */
static CONF_UNUSED const char *conf_cksum4(const uint8_t *p, size_t n,
					   const struct in6_addr *peer)
{
	return conf_cksum_ok(p, n) ? "ok" : "bad";
}

/* A whole ICMPv6 message's, against the other end's address peer (NULL
 * if not known: "unchecked"). */
static CONF_UNUSED const char *conf_cksum6(const uint8_t *p, size_t n,
					   const struct in6_addr *peer)
{
	if (!peer)
		return "unchecked";
	return conf_cksum6_ok(peer, p, n) ? "ok" : "bad";
}

/* ------------------------------------------------------------------ */
/* poll, flags */

/* A bit and its name. */
struct conf_bit {
	int bit;
	const char *name;
};

/* The bits of v by name ("A|B"), what no name covers in hex, "0" for
 * none, into b. */
static CONF_UNUSED const char *conf_bits(char *b, size_t size, int v,
					 const struct conf_bit *names,
					 size_t n)
{
	size_t o = 0;

	b[0] = '\0';
	for (size_t i = 0; i < n; i++)
		if (v & names[i].bit) {
			o += (size_t)snprintf(b + o, size - o, "%s%s",
					      o ? "|" : "", names[i].name);
			v &= ~names[i].bit;
		}
	if (v)
		snprintf(b + o, size - o, "%s0x%x", o ? "|" : "", v);
	else if (!o)
		snprintf(b, size, "0");
	return b;
}

static CONF_UNUSED const char *conf_revents(int r)
{
	static char b[160];
	static const struct conf_bit names[] = {
		{ POLLIN, "POLLIN" }, { POLLPRI, "POLLPRI" },
		{ POLLOUT, "POLLOUT" }, { POLLERR, "POLLERR" },
		{ POLLHUP, "POLLHUP" }, { POLLNVAL, "POLLNVAL" },
		{ POLLRDNORM, "POLLRDNORM" }, { POLLRDBAND, "POLLRDBAND" },
		{ POLLWRNORM, "POLLWRNORM" }, { POLLWRBAND, "POLLWRBAND" },
		{ POLLRDHUP, "POLLRDHUP" },
	};

	return conf_bits(b, sizeof(b), r, names,
			 sizeof(names) / sizeof(names[0]));
}

/* pingsock_poll on one descriptor, printed; returns revents (or -1). */
static CONF_UNUSED int conf_poll(const char *what, int fd, short events,
				 int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = events };
	int r, e;

	r = pingsock_poll(&p, 1, timeout_ms);
	e = errno;
	if (r < 0) {
		out("%s: -1 %s", what, conf_errname(e));
		return -1;
	}
	out("%s: %d revents=%s", what, r, conf_revents(p.revents));
	return p.revents;
}

/* Wait (bounded) for something readable without printing. */
static CONF_UNUSED bool conf_wait_in(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return pingsock_poll(&p, 1, timeout_ms) > 0;
}

static CONF_UNUSED const char *conf_msgflags(int f)
{
	static char b[160];
	static const struct conf_bit names[] = {
		{ MSG_OOB, "MSG_OOB" }, { MSG_EOR, "MSG_EOR" },
		{ MSG_TRUNC, "MSG_TRUNC" }, { MSG_CTRUNC, "MSG_CTRUNC" },
		{ MSG_ERRQUEUE, "MSG_ERRQUEUE" },
		{ MSG_CMSG_CLOEXEC, "MSG_CMSG_CLOEXEC" },
	};

	return conf_bits(b, sizeof(b), f, names,
			 sizeof(names) / sizeof(names[0]));
}

/* ------------------------------------------------------------------ */
/* time */

static CONF_UNUSED double conf_now_mono(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A wall-clock time as "within 1 s of now" or not. */
static CONF_UNUSED const char *conf_when(long long sec, long long nsec,
					 long long nsec_max)
{
	struct timespec now;
	double d;

	if (nsec < 0 || nsec >= nsec_max)
		return "bad-subsecond-field";
	clock_gettime(CLOCK_REALTIME, &now);
	d = ((double)now.tv_sec - (double)sec) +
	    ((double)now.tv_nsec - (double)nsec * (1e9 / (double)nsec_max)) /
		    1e9;
	if (d < -0.05)
		return "in-the-future";
	return d <= 1.0 ? "within-1s-of-now" : "stale";
}

/* ------------------------------------------------------------------ */
/* ancillary data */

static CONF_UNUSED const char *conf_level(int l)
{
	static char b[16];

	switch (l) {
	case SOL_SOCKET: return "SOL_SOCKET";
	case SOL_IP: return "SOL_IP";
	case SOL_IPV6: return "SOL_IPV6";
	default: snprintf(b, sizeof(b), "level%d", l); return b;
	}
}

static CONF_UNUSED const char *conf_ctype(int l, int t)
{
	static char b[16];

	if (l == SOL_SOCKET)
		switch (t) {
		case SO_TIMESTAMP_OLD: return "SCM_TIMESTAMP";
		case SO_TIMESTAMPNS_OLD: return "SCM_TIMESTAMPNS";
		case SO_TIMESTAMPING_OLD: return "SCM_TIMESTAMPING";
		case SO_RXQ_OVFL: return "SO_RXQ_OVFL";
		case SCM_RIGHTS: return "SCM_RIGHTS";
		}
	if (l == SOL_IP)
		switch (t) {
		case IP_TTL: return "IP_TTL";
		case IP_TOS: return "IP_TOS";
		case IP_PKTINFO: return "IP_PKTINFO";
		case IP_OPTIONS: return "IP_OPTIONS";
		case IP_RETOPTS: return "IP_RETOPTS";
		case IP_RECVERR: return "IP_RECVERR";
		case IP_ORIGDSTADDR: return "IP_ORIGDSTADDR";
		}
	snprintf(b, sizeof(b), "type%d", t);
	return b;
}

static CONF_UNUSED const char *conf_ctype6(int t)
{
	static char b[16];

	switch (t) {
	case IPV6_HOPLIMIT: return "IPV6_HOPLIMIT";
	case IPV6_TCLASS: return "IPV6_TCLASS";
	case IPV6_PKTINFO: return "IPV6_PKTINFO";
	case IPV6_RECVERR: return "IPV6_RECVERR";
	case IPV6_PATHMTU: return "IPV6_PATHMTU";
	case IPV6_FLOWINFO: return "IPV6_FLOWINFO";
	case IPV6_2292HOPLIMIT: return "IPV6_2292HOPLIMIT";
	case IPV6_2292PKTINFO: return "IPV6_2292PKTINFO";
	case IPV6_HOPOPTS: return "IPV6_HOPOPTS";
	case IPV6_DSTOPTS: return "IPV6_DSTOPTS";
	case IPV6_RTHDR: return "IPV6_RTHDR";
	case IPV6_ORIGDSTADDR: return "IPV6_ORIGDSTADDR";
	default: snprintf(b, sizeof(b), "type%d", t); return b;
	}
}

static CONF_UNUSED const char *conf_ifname(int idx)
{
	static char b[IF_NAMESIZE + 16];

	if (!if_indextoname((unsigned)idx, b))
		snprintf(b, sizeof(b), "ifindex%d", idx);
	return b;
}

typedef const char *conf_sa_fn(const void *sa, socklen_t buflen,
			       socklen_t len, int mask);

/* One control message (h), its data d of dlen bytes (no more than came
 * back), printed. */
typedef void conf_cmsg_fn(const char *what, const struct cmsghdr *h,
			  const uint8_t *d, size_t dlen);

/*
 * Print every control message in the returned control buffer (len is the
 * msg_controllen the call returned), each with one.  Truncated messages
 * are printed by header only, plus their bytes when those are
 * deterministic.
 */
static CONF_UNUSED void conf_cmsg_walk(const char *what, const void *ctl,
				       size_t len, conf_cmsg_fn *one)
{
	const uint8_t *p = ctl;
	size_t off = 0;

	while (len - off >= sizeof(struct cmsghdr)) {
		struct cmsghdr h;
		size_t dlen, avail;

		memcpy(&h, p + off, sizeof(h));
		dlen = h.cmsg_len >= CMSG_LEN(0) ? h.cmsg_len - CMSG_LEN(0)
						 : 0;
		avail = len - off - CMSG_LEN(0);
		if (dlen > avail)
			dlen = avail;
		one(what, &h, p + off + CMSG_LEN(0), dlen);
		if (h.cmsg_len < sizeof(struct cmsghdr))
			break;
		off += CMSG_ALIGN(h.cmsg_len);
		if (off > len)
			break;
	}
	if (off < len && len - off < sizeof(struct cmsghdr) && off != len)
		out("%s: %zu trailing control bytes", what, len - off);
}

/* A message printed by header and (up to 32 of) its bytes; type: the
 * name of its type. */
static CONF_UNUSED void conf_cmsg_bytes(const char *what,
					const struct cmsghdr *h,
					const char *type, const uint8_t *d,
					size_t dlen)
{
	char hex[80];

	conf_hex(hex, sizeof(hex), d, dlen < 32 ? dlen : 32);
	out("%s: cmsg %s/%s len=%zu data=%s", what, conf_level(h->cmsg_level),
	    type, (size_t)h->cmsg_len, hex);
}

/* An int-valued message (IP_TTL, IPV6_HOPLIMIT, ...). */
static CONF_UNUSED void conf_cmsg_int(const char *what,
				      const struct cmsghdr *h,
				      const char *type, const uint8_t *d)
{
	int v;

	memcpy(&v, d, sizeof(v));
	out("%s: cmsg %s/%s len=%zu int %d", what, conf_level(h->cmsg_level),
	    type, (size_t)h->cmsg_len, v);
}

/*
 * An extended error (IP_RECVERR, IPV6_RECVERR; type: its name) and the
 * offender's address after it, printed by sa (salen bytes).
 */
static CONF_UNUSED void conf_cmsg_recverr(const char *what,
					  const struct cmsghdr *h,
					  const char *type, const uint8_t *d,
					  size_t dlen, conf_sa_fn *sa,
					  socklen_t salen)
{
	struct sock_extended_err ee;
	const char *offn = "none";

	memcpy(&ee, d, sizeof(ee));
	if (dlen >= sizeof(ee) + salen)
		offn = sa(d + sizeof(ee), salen, salen, PORT_EXACT);
	out("%s: cmsg %s/%s len=%zu ee_errno=%s "
	    "origin=%u type=%u code=%u pad=%u info=%u data=%u "
	    "offender=[%s]", what, conf_level(h->cmsg_level), type,
	    (size_t)h->cmsg_len, conf_errname((int)ee.ee_errno), ee.ee_origin,
	    ee.ee_type, ee.ee_code, ee.ee_pad, ee.ee_info, ee.ee_data, offn);
}

/*
 * A SOL_SOCKET message: the timestamps (within a second of now or not),
 * anything else (or a truncated timestamp) by its header only.
 */
static CONF_UNUSED void conf_cmsg_socket(const char *what,
					 const struct cmsghdr *h,
					 const uint8_t *d, size_t dlen)
{
	const char *type = conf_ctype(h->cmsg_level, h->cmsg_type);

	if (h->cmsg_type == SO_TIMESTAMP_OLD &&
	    dlen == sizeof(struct timeval)) {
		struct timeval tv;

		memcpy(&tv, d, sizeof(tv));
		out("%s: cmsg SOL_SOCKET/%s len=%zu timeval %s", what, type,
		    (size_t)h->cmsg_len,
		    conf_when(tv.tv_sec, tv.tv_usec, 1000000));
	} else if (h->cmsg_type == SO_TIMESTAMPNS_OLD &&
		   dlen == sizeof(struct timespec)) {
		struct timespec ts;

		memcpy(&ts, d, sizeof(ts));
		out("%s: cmsg SOL_SOCKET/%s len=%zu timespec %s", what, type,
		    (size_t)h->cmsg_len,
		    conf_when(ts.tv_sec, ts.tv_nsec, 1000000000));
	} else {
		out("%s: cmsg SOL_SOCKET/%s len=%zu (%zu data bytes)", what,
		    type, (size_t)h->cmsg_len, dlen);
	}
}

/* A message on an IPv4 socket: SOL_SOCKET and SOL_IP ones decoded. */
static CONF_UNUSED void conf_cmsg4(const char *what, const struct cmsghdr *h,
				   const uint8_t *d, size_t dlen)
{
	const char *type = conf_ctype(h->cmsg_level, h->cmsg_type);

	if (h->cmsg_level == SOL_SOCKET) {
		conf_cmsg_socket(what, h, d, dlen);
	} else if (h->cmsg_level != SOL_IP) {
		conf_cmsg_bytes(what, h, type, d, dlen);
	} else if (h->cmsg_type == IP_TTL && dlen == sizeof(int)) {
		conf_cmsg_int(what, h, type, d);
	} else if (h->cmsg_type == IP_TOS && dlen == 1) {
		out("%s: cmsg SOL_IP/IP_TOS len=%zu byte 0x%02x", what,
		    (size_t)h->cmsg_len, d[0]);
	} else if (h->cmsg_type == IP_PKTINFO &&
		   dlen == sizeof(struct in_pktinfo)) {
		struct in_pktinfo pi;
		char a1[INET_ADDRSTRLEN], a2[INET_ADDRSTRLEN];

		memcpy(&pi, d, sizeof(pi));
		inet_ntop(AF_INET, &pi.ipi_spec_dst, a1, sizeof(a1));
		inet_ntop(AF_INET, &pi.ipi_addr, a2, sizeof(a2));
		out("%s: cmsg SOL_IP/IP_PKTINFO len=%zu if=%s "
		    "spec_dst=%s addr=%s", what, (size_t)h->cmsg_len,
		    conf_ifname(pi.ipi_ifindex), a1, a2);
	} else if (h->cmsg_type == IP_RECVERR &&
		   dlen >= sizeof(struct sock_extended_err)) {
		conf_cmsg_recverr(what, h, type, d, dlen, conf_sa,
				  sizeof(struct sockaddr_in));
	} else if (h->cmsg_type == IP_ORIGDSTADDR &&
		   dlen == sizeof(struct sockaddr_in)) {
		/* The port is the reply's checksum: it depends on the
		 * identifier, so it is printed as "own" (set) or 0. */
		out("%s: cmsg SOL_IP/IP_ORIGDSTADDR len=%zu [%s]", what,
		    (size_t)h->cmsg_len, conf_sa(d, 16, 16, PORT_MASK));
	} else {
		conf_cmsg_bytes(what, h, type, d, dlen);
	}
}

/* A message on an IPv6 socket: the SOL_IPV6 ones here, all others as on
 * an IPv4 socket. */
static CONF_UNUSED void conf_cmsg6(const char *what, const struct cmsghdr *h,
				   const uint8_t *d, size_t dlen)
{
	const char *type = conf_ctype6(h->cmsg_type);
	int t = h->cmsg_type;

	if (h->cmsg_level != SOL_IPV6) {
		conf_cmsg4(what, h, d, dlen);
	} else if ((t == IPV6_HOPLIMIT || t == IPV6_TCLASS ||
		    t == IPV6_2292HOPLIMIT) && dlen == sizeof(int)) {
		conf_cmsg_int(what, h, type, d);
	} else if ((t == IPV6_PKTINFO || t == IPV6_2292PKTINFO) &&
		   dlen == sizeof(struct in6_pktinfo)) {
		struct in6_pktinfo pi;
		char a[INET6_ADDRSTRLEN];

		memcpy(&pi, d, sizeof(pi));
		inet_ntop(AF_INET6, &pi.ipi6_addr, a, sizeof(a));
		out("%s: cmsg SOL_IPV6/%s len=%zu if=%s addr=%s", what, type,
		    (size_t)h->cmsg_len, conf_ifname((int)pi.ipi6_ifindex), a);
	} else if (t == IPV6_FLOWINFO && dlen == 4) {
		uint32_t v;

		/* the flow label may be random: set or not */
		memcpy(&v, d, sizeof(v));
		v = ntohl(v);
		out("%s: cmsg SOL_IPV6/IPV6_FLOWINFO len=%zu tclass "
		    "0x%02x label %s", what, (size_t)h->cmsg_len,
		    (unsigned)(v >> 20) & 0xff, v & 0xfffff ? "set" : "0");
	} else if (t == IPV6_PATHMTU && dlen == sizeof(struct ip6_mtuinfo)) {
		struct ip6_mtuinfo mi;

		memcpy(&mi, d, sizeof(mi));
		out("%s: cmsg SOL_IPV6/IPV6_PATHMTU len=%zu mtu=%u "
		    "addr=[%s]", what, (size_t)h->cmsg_len,
		    (unsigned)mi.ip6m_mtu,
		    conf_sa6(&mi.ip6m_addr, sizeof(mi.ip6m_addr),
			     sizeof(mi.ip6m_addr), PORT_EXACT));
	} else if (t == IPV6_RECVERR &&
		   dlen >= sizeof(struct sock_extended_err)) {
		conf_cmsg_recverr(what, h, type, d, dlen, conf_sa6,
				  sizeof(struct sockaddr_in6));
	} else if (t == IPV6_ORIGDSTADDR &&
		   dlen == sizeof(struct sockaddr_in6)) {
		/* The port: the reply's checksum, as on IPv4. */
		out("%s: cmsg SOL_IPV6/IPV6_ORIGDSTADDR len=%zu [%s]", what,
		    (size_t)h->cmsg_len, conf_sa6(d, 28, 28, PORT_MASK));
	} else {
		conf_cmsg_bytes(what, h, type, d, dlen);
	}
}

/* Every control message of an IPv4 socket's returned control buffer. */
static CONF_UNUSED void conf_cmsgs(const char *what, const void *ctl,
				   size_t len)
{
	conf_cmsg_walk(what, ctl, len, conf_cmsg4);
}

/* Every control message of an IPv6 socket's returned control buffer. */
static CONF_UNUSED void conf_cmsgs6(const char *what, const void *ctl,
				    size_t len)
{
	conf_cmsg_walk(what, ctl, len, conf_cmsg6);
}

/* ------------------------------------------------------------------ */
/* receiving */

static CONF_UNUSED uint8_t conf_rbuf[70000];

struct conf_rx {
	long ret;
	int err;
	int flags;
	size_t ctllen;
	uint8_t ctl[512];
	uint8_t name[128];
	socklen_t namelen;
};

/* One recvmsg into conf_rbuf (len bytes of room), nothing printed. */
static CONF_UNUSED long conf_recvmsg(int fd, size_t len, int flags,
				     size_t ctllen, struct conf_rx *rx)
{
	struct iovec iov = { .iov_base = conf_rbuf, .iov_len = len };
	struct msghdr m;

	memset(rx, 0, sizeof(*rx));
	memset(rx->name, 0xaa, sizeof(rx->name));
	memset(&m, 0, sizeof(m));
	m.msg_name = rx->name;
	m.msg_namelen = sizeof(rx->name);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctllen ? rx->ctl : NULL;
	m.msg_controllen = ctllen;
	m.msg_flags = 0x7fff0000;	/* must be overwritten */
	rx->ret = pingsock_recvmsg(fd, &m, flags);
	rx->err = errno;
	rx->flags = m.msg_flags;
	rx->ctllen = m.msg_controllen;
	rx->namelen = m.msg_namelen;
	return rx->ret;
}

/* No address is needed for an IPv4 checksum. */
static CONF_UNUSED const struct in6_addr *conf_rx_peer4(
	const struct conf_rx *rx)
{
	return NULL;
}

/* The address in a returned msg_name, if it is a whole sockaddr_in6. */
static CONF_UNUSED const struct in6_addr *conf_rx_peer6(
	const struct conf_rx *rx)
{
	static struct in6_addr a;
	struct sockaddr_in6 in;

	if (rx->namelen != sizeof(in))
		return NULL;
	memcpy(&in, rx->name, sizeof(in));
	if (in.sin6_family != AF_INET6)
		return NULL;
	a = in.sin6_addr;
	return &a;
}

/* ------------------------------------------------------------------ */
/* the two families */

/*
 * One family of ping socket: its numbers, names and test addresses, and
 * the operations in which the families differ.  A step shared by an IPv4
 * case and its IPv6 twin takes one of these and nothing else
 * family-specific.
 */
struct conf_fam {
	int af, proto;
	const char *af_name, *proto_name;	/* "AF_INET", "IPPROTO_ICMP" */
	const char *tag;	/* "" or "6", in the labels of conf_fsocket */
	const char *call;	/* the socket() call, as stderr names it */
	const char *ip_open, *ip_close;	/* around an address and ":port" */
	socklen_t salen;	/* sizeof(struct sockaddr_in{,6}) */
	int rx_mask;		/* how a datagram's source address prints */
	/* the test network (run.sh) */
	const char *loopback, *any, *local, *peer, *noroute;
	const char *r_far, *r_far2, *r_unreach, *r_prohibit;
	/* the family's options */
	struct conf_opt recverr;	/* IP_RECVERR */
	struct conf_opt recvhops;	/* IP_RECVTTL */
	struct conf_opt hops;		/* IP_TTL */
	struct conf_opt mtu;		/* IP_MTU */
	struct conf_opt mtu_discover;	/* IP_MTU_DISCOVER */
	const char *pmtudisc;		/* "IP_PMTUDISC" (_DO, _DONT: the
					 * same values in both families) */
	/* an Echo Request of len bytes with sequence seq, into buf */
	void (*echo)(uint8_t *buf, size_t len, uint16_t seq);
	/* a returned address, printed */
	conf_sa_fn *sa;
	/* a whole message's checksum verdict ("ok", "bad", ...) */
	const char *(*cksum)(const uint8_t *p, size_t n,
			     const struct in6_addr *peer);
	/* the address the checksum of what rx got covers */
	const struct in6_addr *(*rx_peer)(const struct conf_rx *rx);
	/* the returned control messages, printed */
	void (*cmsgs)(const char *what, const void *ctl, size_t len);
};

static const struct conf_fam conf_v4 CONF_UNUSED = {
	.af = AF_INET, .proto = IPPROTO_ICMP,
	.af_name = "AF_INET", .proto_name = "IPPROTO_ICMP",
	.tag = "", .call = "pingsock_socket", .ip_open = "", .ip_close = "",
	.salen = sizeof(struct sockaddr_in), .rx_mask = PORT_EXACT,
	.loopback = "127.0.0.1", .any = "0.0.0.0", .local = CONF_LOCAL,
	.peer = CONF_PEER, .noroute = CONF_NOROUTE,
	.r_far = CONF_R_FAR, .r_far2 = CONF_R_FAR2,
	.r_unreach = CONF_R_UNREACH, .r_prohibit = CONF_R_PROHIBIT,
	.recverr = { SOL_IP, IP_RECVERR, "IP_RECVERR" },
	.recvhops = { SOL_IP, IP_RECVTTL, "IP_RECVTTL" },
	.hops = { SOL_IP, IP_TTL, "IP_TTL" },
	.mtu = { SOL_IP, IP_MTU, "IP_MTU" },
	.mtu_discover = { SOL_IP, IP_MTU_DISCOVER, "IP_MTU_DISCOVER" },
	.pmtudisc = "IP_PMTUDISC",
	.echo = conf_echo, .sa = conf_sa, .cksum = conf_cksum4,
	.rx_peer = conf_rx_peer4, .cmsgs = conf_cmsgs,
};

static const struct conf_fam conf_v6 CONF_UNUSED = {
	.af = AF_INET6, .proto = IPPROTO_ICMPV6,
	.af_name = "AF_INET6", .proto_name = "IPPROTO_ICMPV6",
	.tag = "6", .call = "pingsock_socket(AF_INET6)",
	.ip_open = "[", .ip_close = "]",
	.salen = sizeof(struct sockaddr_in6),
	.rx_mask = PORT_EXACT | FLOW_MASK,
	.loopback = "::1", .any = "::", .local = CONF6_LOCAL,
	.peer = CONF6_PEER, .noroute = CONF6_NOROUTE,
	.r_far = CONF6_R_FAR, .r_far2 = CONF6_R_FAR2,
	.r_unreach = CONF6_R_UNREACH, .r_prohibit = CONF6_R_PROHIBIT,
	.recverr = { SOL_IPV6, IPV6_RECVERR, "IPV6_RECVERR" },
	.recvhops = { SOL_IPV6, IPV6_RECVHOPLIMIT, "IPV6_RECVHOPLIMIT" },
	.hops = { SOL_IPV6, IPV6_UNICAST_HOPS, "IPV6_UNICAST_HOPS" },
	.mtu = { SOL_IPV6, IPV6_MTU, "IPV6_MTU" },
	.mtu_discover = { SOL_IPV6, IPV6_MTU_DISCOVER, "IPV6_MTU_DISCOVER" },
	.pmtudisc = "IPV6_PMTUDISC",
	.echo = conf_echo6, .sa = conf_sa6, .cksum = conf_cksum6,
	.rx_peer = conf_rx_peer6, .cmsgs = conf_cmsgs6,
};

/* A socket address of either family, with its length. */
struct conf_addr {
	union {
		struct sockaddr sa;
		struct sockaddr_in in;
		struct sockaddr_in6 in6;
		struct sockaddr_storage ss;	/* zero beyond the address */
	} u;
	socklen_t len;
};

/* ip:port in f (IPv6: with the scope id scope). */
static CONF_UNUSED struct conf_addr conf_addr(const struct conf_fam *f,
					      const char *ip, int port,
					      unsigned scope)
{
	struct conf_addr a;

	memset(&a, 0, sizeof(a));
	if (f->af == AF_INET)
		a.u.in = conf_sin(ip, port);
	else
		a.u.in6 = conf_sin6(ip, port, scope);
	a.len = f->salen;
	return a;
}

/* ip:port as the family writes it ("127.0.0.1:7", "[::1]:7"). */
static CONF_UNUSED const char *conf_hostport(const struct conf_fam *f,
					     const char *ip, int port)
{
	return L("%s%s%s:%d", f->ip_open, ip, f->ip_close, port);
}

/* A row of a table: a label and an address of the test network
 * (ip:port; IPv6: scope dev, an interface's name or a number). */
struct conf_row {
	const char *what, *ip;
	int port;
	const char *dev;
};

static CONF_UNUSED struct conf_addr conf_row_addr(const struct conf_fam *f,
						  const struct conf_row *r)
{
	return conf_addr(f, r->ip, r->port, conf_scope_id(r->dev));
}

/* setsockopt of an int option of the family, printed "LABEL V". */
static CONF_UNUSED long conf_fset(const struct conf_opt *o, int fd, int v)
{
	return TRY(L("%s %d", o->label, v),
		   conf_setint(fd, o->level, o->name, v));
}

/* getsockopt of an int option of the family, printed "PREFIXLABEL". */
static CONF_UNUSED int conf_fget(const char *prefix, const struct conf_opt *o,
				 int fd)
{
	return conf_getint(L("%s%s", prefix, o->label), fd, o->level,
			   o->name, sizeof(int));
}

/* A fresh ping socket of f and type; a case cannot go on without one. */
static CONF_UNUSED int conf_fsocket_type(const struct conf_fam *f, int type)
{
	int fd = pingsock_socket(f->af, type, f->proto);
	int e = errno;

	if (fd < 0) {
		out("socket%s: -1 %s", f->tag, conf_errname(e));
		fprintf(stderr, "%s: %s: %s\n", f->call, strerror(e),
			pingsock_why());
		exit(2);
	}
	return fd;
}

static CONF_UNUSED int conf_fsocket(const struct conf_fam *f)
{
	return conf_fsocket_type(f, SOCK_DGRAM);
}

/* sendto(a) an Echo Request of len bytes with sequence seq. */
static CONF_UNUSED long conf_fping_to(const struct conf_fam *f,
				      const char *what, int fd,
				      const struct conf_addr *a, uint16_t seq,
				      size_t len)
{
	f->echo(conf_big, len, seq);
	return TRY(what, pingsock_sendto(fd, conf_big, len, 0, &a->u.sa,
					 a->len));
}

/* sendto(ip, no scope) an Echo Request of len bytes. */
static CONF_UNUSED long conf_fping(const struct conf_fam *f, const char *what,
				   int fd, const char *ip, uint16_t seq,
				   size_t len)
{
	struct conf_addr a = conf_addr(f, ip, 0, 0);

	return conf_fping_to(f, what, fd, &a, seq, len);
}

/* send() on a connected socket. */
static CONF_UNUSED long conf_fpsend(const struct conf_fam *f,
				    const char *what, int fd, uint16_t seq,
				    size_t len)
{
	f->echo(conf_big, len, seq);
	return TRY(what, pingsock_send(fd, conf_big, len, 0));
}

/* sendmsg of the len bytes in conf_big to a, with the control messages
 * in ctl (ctllen bytes), printed. */
static CONF_UNUSED long conf_sendmsg(const char *what, int fd,
				     const struct conf_addr *a, size_t len,
				     const void *ctl, size_t ctllen)
{
	struct iovec iov = { conf_big, len };
	struct msghdr m;

	memset(&m, 0, sizeof(m));
	m.msg_name = (void *)&a->u;
	m.msg_namelen = a->len;
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = (void *)ctl;
	m.msg_controllen = ctllen;
	return TRY(what, pingsock_sendmsg(fd, &m, 0));
}

/* getsockname (peer=false) or getpeername, printed. */
static CONF_UNUSED int conf_fname(const struct conf_fam *f, const char *what,
				  int fd, bool peer, int mask)
{
	uint8_t buf[128];
	socklen_t len = sizeof(buf);
	int r, e;

	memset(buf, 0xaa, sizeof(buf));
	r = peer ? pingsock_getpeername(fd, SA(buf), &len)
		 : pingsock_getsockname(fd, SA(buf), &len);
	e = errno;
	if (r < 0)
		out("%s: -1 %s", what, conf_errname(e));
	else
		out("%s: %d %s", what, r, f->sa(buf, sizeof(buf), len, mask));
	return r;
}

/*
 * The socket's identifier (local port), host order; 0 if none.  (The
 * identifier is at the same offset in a sockaddr_in6 as in a
 * sockaddr_in.)
 */
static CONF_UNUSED unsigned conf_ident(int fd)
{
	struct sockaddr_in a;
	socklen_t len = sizeof(a);

	memset(&a, 0, sizeof(a));
	if (pingsock_getsockname(fd, SA(&a), &len) < 0)
		return 0;
	return ntohs(a.sin_port);
}

/*
 * Describe the ICMP message in p[0..n) (n bytes returned; full is the
 * datagram's real size when known, else n).  exact: print the identifier's
 * value; otherwise "own" when it is the socket's identifier.  peer: the
 * other end's address, where the family's checksum covers it.
 */
static CONF_UNUSED void conf_ficmp(const struct conf_fam *f, const char *what,
				   int fd, const uint8_t *p, size_t n,
				   size_t full, const struct in6_addr *peer,
				   bool exact)
{
	char idb[32];
	unsigned id, seq;
	bool pay = true;

	if (n < 8) {
		char hex[40];

		conf_hex(hex, sizeof(hex), p, n);
		out("%s: short icmp%s %zu bytes: %s", what, f->tag, n, hex);
		return;
	}
	id = (unsigned)(p[4] << 8 | p[5]);
	seq = (unsigned)(p[6] << 8 | p[7]);
	if (exact)
		snprintf(idb, sizeof(idb), "%u", id);
	else
		snprintf(idb, sizeof(idb), "%s",
			 id && id == conf_ident(fd) ? "own" : "not-own");
	for (size_t i = 8; i < n; i++)
		if (p[i] != conf_pat(i, (uint16_t)seq))
			pay = false;
	out("%s: type=%u code=%u ident=%s seq=%u cksum=%s payload=%s(%zu)",
	    what, p[0], p[1], idb, seq,
	    n == full ? f->cksum(p, n, peer) : "partial",
	    pay ? "ok" : "differs", n - 8);
}

/* The first line of what a recvmsg got: return value, msg_name,
 * msg_flags, msg_controllen. */
static CONF_UNUSED void conf_rx_head(const struct conf_fam *f,
				     const char *what,
				     const struct conf_rx *rx)
{
	out("%s: %ld from %s flags=%s controllen=%zu", what, rx->ret,
	    f->sa(rx->name, sizeof(rx->name), rx->namelen, f->rx_mask),
	    conf_msgflags(rx->flags), rx->ctllen);
}

/* Print what conf_recvmsg got. */
static CONF_UNUSED void conf_fshow_rx(const struct conf_fam *f,
				      const char *what, int fd,
				      const struct conf_rx *rx, size_t room,
				      bool exact)
{
	size_t n;

	if (rx->ret < 0) {
		out("%s: -1 %s", what, conf_errname(rx->err));
		return;
	}
	conf_rx_head(f, what, rx);
	n = (size_t)rx->ret < room ? (size_t)rx->ret : room;
	conf_ficmp(f, what, fd, conf_rbuf, n,
		   rx->flags & MSG_TRUNC ? SIZE_MAX : (size_t)rx->ret,
		   f->rx_peer(rx), exact);
	f->cmsgs(what, rx->ctl, rx->ctllen);
}

/*
 * Wait (bounded) for a datagram, then recvmsg it with room bytes of
 * buffer and ctllen bytes of control buffer and print all of it.
 */
static CONF_UNUSED long conf_freply(const struct conf_fam *f,
				    const char *what, int fd, size_t room,
				    int flags, size_t ctllen, bool exact)
{
	struct conf_rx rx;

	if (!conf_wait_in(fd, CONF_WAIT_MS)) {
		out("%s: nothing within %d ms", what, CONF_WAIT_MS);
		return -1;
	}
	conf_recvmsg(fd, room, flags | MSG_DONTWAIT, ctllen, &rx);
	conf_fshow_rx(f, what, fd, &rx, room, exact);
	return rx.ret;
}

/* Plain reply of up to 70000 bytes, no control buffer. */
static CONF_UNUSED long conf_freply1(const struct conf_fam *f,
				     const char *what, int fd, bool exact)
{
	return conf_freply(f, what, fd, sizeof(conf_rbuf), 0, 0, exact);
}

/* Expect nothing more to arrive within ms milliseconds. */
static CONF_UNUSED void conf_fquiet(const struct conf_fam *f,
				    const char *what, int fd, int ms)
{
	struct conf_rx rx;

	if (!conf_wait_in(fd, ms)) {
		out("%s: nothing more", what);
		return;
	}
	conf_recvmsg(fd, sizeof(conf_rbuf), MSG_DONTWAIT, 0, &rx);
	conf_fshow_rx(f, L("%s: unexpected", what), fd, &rx,
		      sizeof(conf_rbuf), false);
}

/*
 * recvmsg(MSG_ERRQUEUE | MSG_DONTWAIT | flags) with room bytes of buffer
 * and ctllen of control buffer, printed in full: return value, msg_name
 * (the original destination), msg_flags, msg_controllen, the quoted
 * request (sent: the length it was sent with, so that a whole quote has
 * its checksum checked and a partial one says so) and every control
 * message (IP_RECVERR: the extended error and the offender).
 */
static CONF_UNUSED long conf_ferrq(const struct conf_fam *f, const char *what,
				   int fd, size_t room, int flags,
				   size_t ctllen, size_t sent)
{
	struct conf_rx rx;
	size_t n;

	conf_recvmsg(fd, room, flags | MSG_ERRQUEUE | MSG_DONTWAIT, ctllen,
		     &rx);
	if (rx.ret < 0) {
		out("%s: -1 %s", what, conf_errname(rx.err));
		return -1;
	}
	conf_rx_head(f, what, &rx);
	n = (size_t)rx.ret < room ? (size_t)rx.ret : room;
	if (n > 0)
		conf_ficmp(f, what, fd, conf_rbuf, n, sent, f->rx_peer(&rx),
			   false);
	f->cmsgs(what, rx.ctl, rx.ctllen);
	return rx.ret;
}

/* ------------------------------------------------------------------ */
/* the helpers above for IPv4 and for IPv6, by their own names */

static CONF_UNUSED int conf_socket_type(int type)
{
	return conf_fsocket_type(&conf_v4, type);
}

static CONF_UNUSED int conf_socket(void)
{
	return conf_fsocket(&conf_v4);
}

static CONF_UNUSED int conf_socket6_type(int type)
{
	return conf_fsocket_type(&conf_v6, type);
}

static CONF_UNUSED int conf_socket6(void)
{
	return conf_fsocket(&conf_v6);
}

static CONF_UNUSED long conf_ping(const char *what, int fd, const char *ip,
				  uint16_t seq, size_t len)
{
	return conf_fping(&conf_v4, what, fd, ip, seq, len);
}

static CONF_UNUSED long conf_ping6(const char *what, int fd, const char *ip,
				   uint16_t seq, size_t len)
{
	return conf_fping(&conf_v6, what, fd, ip, seq, len);
}

static CONF_UNUSED long conf_ping6_to(const char *what, int fd,
				      const struct sockaddr_in6 *a,
				      uint16_t seq, size_t len)
{
	struct conf_addr ca = { .u.in6 = *a, .len = sizeof(*a) };

	return conf_fping_to(&conf_v6, what, fd, &ca, seq, len);
}

static CONF_UNUSED long conf_psend(const char *what, int fd, uint16_t seq,
				   size_t len)
{
	return conf_fpsend(&conf_v4, what, fd, seq, len);
}

static CONF_UNUSED long conf_psend6(const char *what, int fd, uint16_t seq,
				    size_t len)
{
	return conf_fpsend(&conf_v6, what, fd, seq, len);
}

static CONF_UNUSED int conf_name(const char *what, int fd, bool peer,
				 int mask)
{
	return conf_fname(&conf_v4, what, fd, peer, mask);
}

static CONF_UNUSED int conf_name6(const char *what, int fd, bool peer,
				  int mask)
{
	return conf_fname(&conf_v6, what, fd, peer, mask);
}

static CONF_UNUSED void conf_icmp(const char *what, int fd, const uint8_t *p,
				  size_t n, size_t full, bool exact)
{
	conf_ficmp(&conf_v4, what, fd, p, n, full, NULL, exact);
}

static CONF_UNUSED void conf_icmp6(const char *what, int fd, const uint8_t *p,
				   size_t n, size_t full,
				   const struct in6_addr *peer, bool exact)
{
	conf_ficmp(&conf_v6, what, fd, p, n, full, peer, exact);
}

static CONF_UNUSED void conf_show_rx(const char *what, int fd,
				     const struct conf_rx *rx, size_t room,
				     bool exact)
{
	conf_fshow_rx(&conf_v4, what, fd, rx, room, exact);
}

static CONF_UNUSED void conf_show_rx6(const char *what, int fd,
				      const struct conf_rx *rx, size_t room,
				      bool exact)
{
	conf_fshow_rx(&conf_v6, what, fd, rx, room, exact);
}

static CONF_UNUSED long conf_reply(const char *what, int fd, size_t room,
				   int flags, size_t ctllen, bool exact)
{
	return conf_freply(&conf_v4, what, fd, room, flags, ctllen, exact);
}

static CONF_UNUSED long conf_reply6(const char *what, int fd, size_t room,
				    int flags, size_t ctllen, bool exact)
{
	return conf_freply(&conf_v6, what, fd, room, flags, ctllen, exact);
}

static CONF_UNUSED long conf_reply1(const char *what, int fd, bool exact)
{
	return conf_freply1(&conf_v4, what, fd, exact);
}

static CONF_UNUSED long conf_reply6_1(const char *what, int fd, bool exact)
{
	return conf_freply1(&conf_v6, what, fd, exact);
}

static CONF_UNUSED void conf_quiet(const char *what, int fd, int ms)
{
	conf_fquiet(&conf_v4, what, fd, ms);
}

static CONF_UNUSED void conf_quiet6(const char *what, int fd, int ms)
{
	conf_fquiet(&conf_v6, what, fd, ms);
}

static CONF_UNUSED long conf_errq(const char *what, int fd, size_t room,
				  int flags, size_t ctllen, size_t sent)
{
	return conf_ferrq(&conf_v4, what, fd, room, flags, ctllen, sent);
}

static CONF_UNUSED long conf_errq6(const char *what, int fd, size_t room,
				   int flags, size_t ctllen, size_t sent)
{
	return conf_ferrq(&conf_v6, what, fd, room, flags, ctllen, sent);
}

/* ------------------------------------------------------------------ */
/* the router topology */

/* The address for which icmpforge answers with error type/code. */
static CONF_UNUSED const char *conf_forged(unsigned type, unsigned code)
{
	static char b[8][INET_ADDRSTRLEN];
	static unsigned next;
	char *s = b[next++ % 8];

	snprintf(s, sizeof(b[0]), "10.78.%u.%u", type & 255, code & 255);
	return s;
}

/* Read and discard the whole error queue; returns how many records. */
static CONF_UNUSED int conf_errq_drain(int fd)
{
	struct conf_rx rx;
	int n = 0;

	while (n < 1000 && conf_recvmsg(fd, 1000, MSG_ERRQUEUE | MSG_DONTWAIT,
					512, &rx) >= 0)
		n++;
	return n;
}

static int conf_sentinel_fd CONF_UNUSED = -1;
static uint16_t conf_sentinel_seq CONF_UNUSED;
static bool conf_sentinel_broken CONF_UNUSED;

/*
 * Wait until every ICMP error that what was sent so far can cause has
 * arrived (or been dropped): a second socket ("the sentinel", IP_RECVERR
 * on) sends an Echo Request that icmpforge answers with Port Unreachable
 * and waits (at most 1 s) for that error.  The router and the forger
 * answer in order, so whatever came back for earlier requests has been
 * received by then; 10 ms more cover the relay.  Prints nothing unless the
 * sentinel's own error does not come (then it falls back to waiting
 * 100 ms each time).  Needs the router topology.
 */
static CONF_UNUSED void conf_settle(void)
{
	struct sockaddr_in a = conf_sin(conf_forged(3, 3), 0);
	double end;
	bool got = false;

	if (conf_sentinel_broken) {
		usleep(100000);
		return;
	}
	if (conf_sentinel_fd < 0) {
		conf_sentinel_fd = pingsock_socket(AF_INET, SOCK_DGRAM,
						   IPPROTO_ICMP);
		if (conf_sentinel_fd < 0 ||
		    conf_setint(conf_sentinel_fd, SOL_IP, IP_RECVERR, 1) < 0) {
			out("settle: cannot make the sentinel socket");
			conf_sentinel_broken = true;
			usleep(100000);
			return;
		}
	}
	conf_errq_drain(conf_sentinel_fd);
	conf_echo(conf_big, 16, ++conf_sentinel_seq);
	/* A send that fails with a pending error sends nothing and takes
	 * the error (there should be none, but the sentinel is there for
	 * the order of things, not to judge them): try once more. */
	if (pingsock_sendto(conf_sentinel_fd, conf_big, 16, 0, SA(&a),
			    sizeof(a)) < 0 &&
	    pingsock_sendto(conf_sentinel_fd, conf_big, 16, 0, SA(&a),
			    sizeof(a)) < 0) {
		int e = errno;

		out("settle: the sentinel's sendto failed: %s",
		    conf_errname(e));
		conf_sentinel_broken = true;
		usleep(100000);
		return;
	}
	end = conf_now_mono() + 5.0;	/* a busy machine's daemon too */
	while (!got) {
		struct pollfd p = { .fd = conf_sentinel_fd, .events = POLLIN };
		int left = (int)((end - conf_now_mono()) * 1000);

		if (left <= 0)
			break;
		if (pingsock_poll(&p, 1, left) > 0 && (p.revents & POLLERR))
			got = conf_errq_drain(conf_sentinel_fd) > 0;
	}
	if (!got) {
		out("settle: the sentinel's error did not come within 5000 ms"
		    " (waiting 100 ms from now on)");
		conf_sentinel_broken = true;
		return;
	}
	/* no pending error left behind on the sentinel either */
	{
		int v;
		socklen_t l = sizeof(v);

		pingsock_getsockopt(conf_sentinel_fd, SOL_SOCKET, SO_ERROR,
				    &v, &l);
	}
	usleep(10000);
}

/* Wait (bounded) until poll reports POLLERR on fd; true if it did. */
static CONF_UNUSED bool conf_wait_err(int fd, int timeout_ms)
{
	double end = conf_now_mono() + timeout_ms / 1000.0;

	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int left = (int)((end - conf_now_mono()) * 1000);

		if (left < 0)
			left = 0;
		if (pingsock_poll(&p, 1, left) > 0 && (p.revents & POLLERR))
			return true;
		if (left == 0)
			return false;
		if (p.revents)	/* POLLIN only: wait a little, look again */
			usleep(1000);
	}
}

#endif
