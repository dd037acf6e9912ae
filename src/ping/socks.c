/* SPDX-License-Identifier: ISC */
/*
 * socks - see socks.h.
 */
#include "ping/socks.h"

#include <arpa/inet.h>
#include <errno.h>
#include <error.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "pingsock.h"

/* requisite: exit when it does not open; loud: say so anyway (-v). */
static int open_one(int family, bool requisite, bool loud)
{
	int proto = family == AF_INET6 ? IPPROTO_ICMPV6 : IPPROTO_ICMP;
	int fd = pingsock_socket(family, SOCK_DGRAM, proto);

	if (fd < 0 && (requisite || loud)) {
		int err = errno;
		const char *why = pingsock_why();

		error(0, err, "socket");
		if (why && *why)
			error(0, 0, "%s", why);
	}
	if (fd < 0 && requisite)
		exit(2);
	return fd;
}

/* One raw socket that did not open: said when requisite or loud (-v);
 * the requisite one ends the run. */
static void raw_refused(bool requisite, bool loud)
{
	if (requisite || loud) {
		error(0, 0, "socktype: SOCK_RAW");
		error(0, EPERM, "socket");
	}
	if (requisite) {
		error(0, 0, "=> missing cap_net_raw+p capability or setuid?");
		exit(2);
	}
}

/*
 * -e 0 and -N: iputils asks for raw sockets then, which this ping never
 * opens (it is no more privileged than its caller, and libpingsock
 * offers ping sockets only).  It answers as iputils answers a user
 * without CAP_NET_RAW, whoever runs it: the IPv4 socket first (said
 * only with -4 or -v), then the IPv6 one, which must open once the
 * IPv4 one has not.
 */
static _Noreturn void refuse_raw(const struct ping_opts *o)
{
	if (o->verbose && o->ident == 0)
		error(0, 0, "WARNING: ident 0 => forcing raw socket");
	if (o->family != AF_INET6)
		raw_refused(o->family == AF_INET, o->verbose);
	raw_refused(true, o->verbose);
	exit(2);	/* not reached */
}

void socks_open(const struct ping_opts *o, struct ping_socks *s)
{
	if (opts_raw_needed(o))
		refuse_raw(o);
	s->fd4 = s->fd6 = -1;
	s->tried6 = false;
	s->family = o->family;
	if (o->family != AF_INET6)
		s->fd4 = open_one(AF_INET, o->family == AF_INET, o->verbose);
	if (o->family != AF_INET) {
		s->tried6 = true;
		s->fd6 = open_one(AF_INET6, s->fd4 < 0, o->verbose);
	}
	/* iputils' "limit address family on single-protocol systems". */
	if (s->family == AF_UNSPEC) {
		if (s->fd4 < 0)
			s->family = AF_INET6;
		else if (s->fd6 < 0)
			s->family = AF_INET;
	}
}

void socks_set_tos(const struct ping_socks *s, int tos)
{
	if (!tos)
		return;
	if (s->fd4 >= 0 && pingsock_setsockopt(s->fd4, IPPROTO_IP, IP_TOS,
					       &tos, sizeof(tos)) < 0)
		error(2, errno, "setsockopt");
	if (s->fd6 >= 0 && pingsock_setsockopt(s->fd6, IPPROTO_IPV6,
					       IPV6_TCLASS, &tos,
					       sizeof(tos)) < 0)
		error(2, errno, "setsockopt");
}

/* A link-local address reaches nothing on a ping socket without a scope. */
static void warn_scope(const struct ping_socks *s, const char *target)
{
	struct in6_addr a;

	if (!s->tried6 || strchr(target, '%') ||
	    inet_pton(AF_INET6, target, &a) <= 0)
		return;
	if (IN6_IS_ADDR_LINKLOCAL(&a) || IN6_IS_ADDR_MC_LINKLOCAL(&a))
		error(0, 0, "Warning: IPv6 link-local address on ICMP datagram "
		      "socket may require ifname or scope-id => use: "
		      "address%%<ifname|scope-id>");
}

struct addrinfo *socks_resolve(const struct ping_socks *s,
			       const char *target)
{
	/* Always both families: getaddrinfo() gives no scope to a
	 * link-local address otherwise (iputils issue 252).  The caller
	 * skips what -4/-6 exclude. */
	struct addrinfo hints = { .ai_family = AF_UNSPEC,
				  .ai_socktype = SOCK_DGRAM,
				  .ai_protocol = IPPROTO_UDP,
				  .ai_flags = AI_CANONNAME };
	struct addrinfo *res;
	int rc;

	warn_scope(s, target);
	rc = getaddrinfo(target, NULL, &hints, &res);
	if (rc)
		error(2, 0, "%s: %s", target, gai_strerror(rc));
	return res;
}

int socks_keep(struct ping_socks *s, int family)
{
	int *keep = family == AF_INET6 ? &s->fd6 : &s->fd4;
	int *drop = family == AF_INET6 ? &s->fd4 : &s->fd6;
	int fd = *keep;

	if (*drop >= 0)
		pingsock_close(*drop);
	*drop = *keep = -1;
	return fd;
}
