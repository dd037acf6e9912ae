/* SPDX-License-Identifier: ISC */
/*
 * sock - the IPv4 ping socket and its target, set up in iputils' order
 * (which decides which complaint a user sees first), and what IPv6
 * shares (sock6.h has the rest).  Every failure that iputils treats as
 * fatal exits here with its message and status 2.
 */
#ifndef PING_SOCK_H
#define PING_SOCK_H

#include <netdb.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "ping/addr.h"
#include "ping/opts.h"

struct ping_target {
	int family;		/* AF_INET or AF_INET6 */
	socklen_t salen;	/* of dst and src */
	union ping_sa dst;
	union ping_sa src;	/* -I address, or what the route picks */
	char name[NI_MAXHOST];	/* as in "PING name (...)" and the summary */
	bool numeric;		/* given as an address: no reverse lookups */
	bool multicast;		/* -b or a multicast group: iputils'
				 * "multicast", which hides (DUP!) */
	bool anycast;		/* IPv6: the last 64 bits are 0 (a subnet
				 * router anycast address): replies may
				 * come from anywhere */
	uint32_t flowlabel;	/* IPv6 -F: the label in use (network
				 * order); 0: none */
	int nhops;		/* -T tsprespec: the addresses to stamp */
	struct in_addr hops[PING_MAX_TS_HOPS];
	struct sockaddr_in route_dst;	/* IPv4: where the route is asked
				 * for (the destination, or -T
				 * tsprespec's first hop; port 1025),
				 * and where -C connects */
};

/*
 * The IPv4 destination: its spelling when it is an address (iputils
 * keeps "127.1"), else ai's address and canonical name.
 */
void sock_resolve(const char *target, const struct addrinfo *ai,
		  struct ping_target *t);
/* -T tsprespec: the names before the destination, in order. */
void sock_resolve_hops(const struct ping_opts *o, struct ping_target *t);
/*
 * -I, the source address (a UDP route probe, which -b lets reach a
 * broadcast address), the broadcast checks, -M and the bind.  false:
 * there is no route and retry says that iputils would try the next
 * address of the name instead of giving up.
 */
bool sock_route(int fd, const struct ping_opts *o, struct ping_target *t,
		bool retry);
/*
 * Error queue, TTL reporting, -R/-T, buffers, -b, -t.  Returns the
 * bytes of IP options each request carries.
 */
size_t sock_options(int fd, const struct ping_opts *o,
		    const struct ping_target *t);
/*
 * Send and receive buffers for -l requests of -s bytes, each with
 * hdrlen bytes of IP header (iputils' estimate of the kernel's cost;
 * -S sets the send buffer instead), warning when the receive buffer
 * falls short.
 */
void sock_set_bufs(int fd, const struct ping_opts *o, size_t hdrlen);
/*
 * -m on the route probe (a plain socket, probe true) or on the ping
 * socket: iputils only warns when the kernel refuses, and goes on.
 */
void sock_set_mark(int fd, bool probe, const struct ping_opts *o);

#endif
