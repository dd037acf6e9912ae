/*
 * names - how ping prints an address it heard from: "a.b.c.d", or
 * "name (a.b.c.d)" after a reverse lookup, as iputils' pr_addr().
 */
#ifndef PING_NAMES_H
#define PING_NAMES_H

#include <netdb.h>
#include <netinet/in.h>
#include <stdbool.h>

struct namer {
	bool numeric;		/* -n, or the target was given as an address */
	bool have_last;
	struct in_addr last;
	char text[NI_MAXHOST + INET_ADDRSTRLEN + 4];
};

void namer_init(struct namer *n, bool numeric);
/*
 * The text for addr, valid until the next call.  lookup false skips the
 * reverse lookup (iputils skips it once the run is ending), but a name
 * found earlier for the same address is still used.
 */
const char *namer_addr(struct namer *n, struct in_addr addr, bool lookup);

#endif
