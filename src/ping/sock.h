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
};

/* A pingsock socket, or exit 2 saying why (pingsock_why()). */
int sock_open(void);
/* -Q: IP_TOS, before anything else, as iputils. */
void sock_set_tos(int fd, int tos);
void sock_resolve(const char *target, struct ping_target *t);
/* -I, the source address (a UDP route probe) and the bind. */
void sock_route(int fd, const struct ping_opts *o, struct ping_target *t);
/* Error queue, TTL reporting, buffers, -t. */
void sock_options(int fd, const struct ping_opts *o);
/* Receive timestamps and the send timeout; false: no timestamps. */
bool sock_timing(int fd, int interval);

#endif
