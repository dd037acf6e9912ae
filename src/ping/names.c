/*
 * names - see names.h.
 *
 * The last answer is cached: replies mostly come from one address, and a
 * resolver round trip per reply would show in the timings of the lines
 * that follow.
 */
#include "ping/names.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

void namer_init(struct namer *n, bool numeric)
{
	memset(n, 0, sizeof(*n));
	n->numeric = numeric;
}

const char *namer_addr(struct namer *n, struct in_addr addr, bool lookup)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr = addr };
	char num[INET_ADDRSTRLEN];
	char name[NI_MAXHOST] = "";

	if (n->have_last && n->last.s_addr == addr.s_addr)
		return n->text;
	n->have_last = true;
	n->last = addr;
	inet_ntop(AF_INET, &addr, num, sizeof(num));
	/* Without NI_NAMEREQD an address with no name comes back as itself,
	 * and iputils then prints "a.b.c.d (a.b.c.d)": so do we. */
	if (lookup && !n->numeric &&
	    getnameinfo((struct sockaddr *)&sin, sizeof(sin), name,
			sizeof(name), NULL, 0, 0) != 0)
		name[0] = '\0';
	if (name[0])
		snprintf(n->text, sizeof(n->text), "%s (%s)", name, num);
	else
		snprintf(n->text, sizeof(n->text), "%s", num);
	return n->text;
}
