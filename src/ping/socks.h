/* SPDX-License-Identifier: ISC */
/*
 * socks - the ping sockets of both families, opened as iputils 20221126
 * opens them: before the destination is resolved, an IPv4 one unless -6
 * and an IPv6 one unless -4.  Only the one the destination needs is kept
 * once it is known.
 */
#ifndef PING_SOCKS_H
#define PING_SOCKS_H

#include <netdb.h>

#include "ping/opts.h"

struct ping_socks {
	int fd4;		/* -1: none */
	int fd6;		/* -1: none */
	bool tried6;		/* an IPv6 socket was asked for */
	int family;		/* what resolution may return: -4, -6, or
				 * the one family whose socket opened;
				 * AF_UNSPEC when both did */
};

/*
 * Open them, or exit 2 saying why (pingsock_why()) when the one that
 * had to open did not: the -4/-6 one, or the IPv6 one after the IPv4 one
 * failed.  A socket that need not open fails silently (said with -v).
 */
void socks_open(const struct ping_opts *o, struct ping_socks *s);
/* -Q: IP_TOS on the IPv4 socket, IPV6_TCLASS on the IPv6 one. */
void socks_set_tos(const struct ping_socks *s, int tos);
/*
 * The destination's addresses of both families, in getaddrinfo()'s
 * order; exit 2 with the resolver's complaint.  Warns first, as iputils,
 * about a link-local address without a scope.
 */
struct addrinfo *socks_resolve(const struct ping_socks *s,
			       const char *target);
/* Keep the socket of family, close the other; returns the one kept. */
int socks_keep(struct ping_socks *s, int family);

#endif
