/* SPDX-License-Identifier: ISC */
/*
 * sock6 - the IPv6 ping socket and its target, set up in the order of
 * iputils 20221126's ping6_run(), with its messages; every failure it
 * treats as fatal exits here with status 2.
 */
#ifndef PING_SOCK6_H
#define PING_SOCK6_H

#include <netdb.h>
#include <stdbool.h>

#include "ping/opts.h"
#include "ping/sock.h"

/*
 * The destination from ai.  iputils names it as it was given, and looks
 * no names up when that has a colon (an address).
 */
void sock6_resolve(const char *target, const struct addrinfo *ai,
		   struct ping_target *t);
/*
 * -I (a device: IPV6_PKTINFO and SO_BINDTODEVICE), the source (a UDP
 * route probe, except to a link-local address: iputils leaves it ::
 * then), the multicast checks, -M and the bind.  false: there is no
 * route and retry says that iputils would try the name's next address.
 */
bool sock6_route(int fd, const struct ping_opts *o, struct ping_target *t,
		 bool retry);
/*
 * The error queue, buffers, -t (hop limits), hop limit reporting and -F
 * (the flow label the kernel grants goes into t).
 */
void sock6_options(int fd, const struct ping_opts *o, struct ping_target *t);

#endif
