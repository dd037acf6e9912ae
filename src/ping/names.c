/* SPDX-License-Identifier: ISC */
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

void namer_init(struct namer *n, bool numeric)
{
	memset(n, 0, sizeof(*n));
	n->numeric = numeric;
}

/* What identifies an address: its family, its bytes, an IPv6 scope. */
static void normalise(const struct sockaddr *sa, union ping_sa *key)
{
	memset(key, 0, sizeof(*key));
	if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;

		key->v6.sin6_family = AF_INET6;
		key->v6.sin6_addr = s6->sin6_addr;
		key->v6.sin6_scope_id = s6->sin6_scope_id;
	} else {
		key->v4.sin_family = AF_INET;
		key->v4.sin_addr = ((const struct sockaddr_in *)sa)->sin_addr;
	}
}

static bool same_key(const union ping_sa *a, const union ping_sa *b)
{
	if (a->sa.sa_family != b->sa.sa_family)
		return false;
	if (a->sa.sa_family == AF_INET6)
		return IN6_ARE_ADDR_EQUAL(&a->v6.sin6_addr, &b->v6.sin6_addr) &&
		       a->v6.sin6_scope_id == b->v6.sin6_scope_id;
	return a->v4.sin_addr.s_addr == b->v4.sin_addr.s_addr;
}

static socklen_t sa_len(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6)
					 : sizeof(struct sockaddr_in);
}

void namer_numeric(const struct sockaddr *sa, char *buf, size_t len)
{
	if (getnameinfo(sa, sa_len(sa), buf, (socklen_t)len, NULL, 0,
			NI_NUMERICHOST) != 0)
		snprintf(buf, len, "?");
}

const char *namer_sa(struct namer *n, const struct sockaddr *sa,
		     bool lookup)
{
	union ping_sa key;
	char num[NI_MAXHOST];
	char name[NI_MAXHOST] = "";

	normalise(sa, &key);
	if (n->have_last && same_key(&n->last, &key))
		return n->text;
	n->have_last = true;
	n->last = key;
	namer_numeric(&key.sa, num, sizeof(num));
	/* Without NI_NAMEREQD an address with no name comes back as itself,
	 * and iputils then prints "a.b.c.d (a.b.c.d)": so do we. */
	if (lookup && !n->numeric &&
	    getnameinfo(&key.sa, sa_len(sa), name,
			sizeof(name), NULL, 0, 0) != 0)
		name[0] = '\0';
	if (name[0])
		snprintf(n->text, sizeof(n->text), "%s (%s)", name, num);
	else
		snprintf(n->text, sizeof(n->text), "%s", num);
	return n->text;
}

const char *namer_addr(struct namer *n, struct in_addr addr, bool lookup)
{
	struct sockaddr_in sin = { .sin_family = AF_INET, .sin_addr = addr };

	return namer_sa(n, (const struct sockaddr *)&sin, lookup);
}
