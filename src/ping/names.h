/* SPDX-License-Identifier: ISC */
/*
 * names - how ping prints an address it heard from: "a.b.c.d", or
 * "name (a.b.c.d)" after a reverse lookup, as iputils' pr_addr(); an
 * IPv6 address with a scope keeps it ("fe80::1%eth0").
 */
#ifndef PING_NAMES_H
#define PING_NAMES_H

#include <netdb.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>

#include "ping/addr.h"

struct namer {
	bool numeric;		/* -n, or the target was given as an address */
	bool have_last;
	union ping_sa last;	/* family, address and scope only */
	char text[2 * NI_MAXHOST + 4];
};

void namer_init(struct namer *n, bool numeric);
/*
 * The text for an AF_INET or AF_INET6 address, valid until the next
 * call.  lookup false skips the reverse lookup (iputils skips it once
 * the run is ending), but a name found earlier for the same address is
 * still used.
 */
const char *namer_sa(struct namer *n, const struct sockaddr *sa,
		     bool lookup);
/* The same for an IPv4 address. */
const char *namer_addr(struct namer *n, struct in_addr addr, bool lookup);
/* The address alone, as getnameinfo(NI_NUMERICHOST) spells it. */
void namer_numeric(const struct sockaddr *sa, char *buf, size_t len);

#endif
