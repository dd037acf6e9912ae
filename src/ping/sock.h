/*
 * sock - the ping socket and the target, set up in iputils' order (which
 * decides which complaint a user sees first).  Every failure that
 * iputils treats as fatal exits here with its message and status 2.
 */
#ifndef PING_SOCK_H
#define PING_SOCK_H

#include <netdb.h>
#include <netinet/in.h>
#include <stdbool.h>

#include "ping/opts.h"

struct ping_target {
	struct sockaddr_in dst;
	struct sockaddr_in src;	/* -I address, or what the route picks */
	char name[NI_MAXHOST];	/* as in "PING name (...)" and the summary */
	bool numeric;		/* given as an address: no reverse lookups */
	bool multicast;		/* -b or a multicast group: iputils'
				 * "multicast", which hides (DUP!) */
	int nhops;		/* -T tsprespec: the addresses to stamp */
	struct in_addr hops[PING_MAX_TS_HOPS];
};

/* A pingsock socket, or exit 2 saying why (pingsock_why()). */
int sock_open(void);
/* -Q: IP_TOS, before anything else, as iputils. */
void sock_set_tos(int fd, int tos);
void sock_resolve(const char *target, struct ping_target *t);
/* -T tsprespec: the names before the destination, in order. */
void sock_resolve_hops(const struct ping_opts *o, struct ping_target *t);
/*
 * -I, the source address (a UDP route probe, which -b lets reach a
 * broadcast address), the broadcast checks, -M and the bind.
 */
void sock_route(int fd, const struct ping_opts *o, struct ping_target *t);
/*
 * Error queue, TTL reporting, -R/-T, buffers, -b, -t.  Returns the
 * bytes of IP options each request carries.
 */
size_t sock_options(int fd, const struct ping_opts *o,
		    const struct ping_target *t);
/* Receive timestamps (not with -U) and the send timeout; false: no
 * kernel timestamps. */
bool sock_timing(int fd, int interval, bool latency);

#endif
