/* SPDX-License-Identifier: ISC */
/*
 * hostenv - what the engine asks of the host (struct ps_env): address
 * types from the kernel's FIB over rtnetlink, the route and source address
 * a connect() would get (an unconnected UDP socket asked to connect), the
 * default TTL, and the identifiers the kernel's own ping sockets hold.
 * Everything is opened before privileges are dropped.
 */
#ifndef PSD_HOSTENV_H
#define PSD_HOSTENV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine/psock.h"

struct hostenv;

struct hostenv *hostenv_open(char *err, size_t errlen);
void hostenv_close(struct hostenv *h);
const struct ps_env *hostenv_env(struct hostenv *h);

/* Inodes a scan keeps at most: sockets of the daemon's uid, its own and
 * those an earlier daemon handed out that live on (thousands, after a
 * restart under load: a fixed room for 64 more than its own made every
 * scan incomplete, and no closed socket was let go of). */
#define HOSTENV_INOS_MAX (1u << 20)

/* What a read of /proc/net/icmp gives. */
struct hostenv_scan {
	uint8_t *bitmap;	/* 8192 bytes: identifiers bound */
	uint32_t owner;		/* the uid whose sockets' inodes are wanted */
	unsigned long *inos;	/* appended, the array grown as needed up to
				 * HOSTENV_INOS_MAX (NULL and cap 0: none
				 * wanted); the caller frees it */
	size_t n, cap;
	bool overflow;		/* more than HOSTENV_INOS_MAX, or no memory */
};

/*
 * Re-read /proc/net/icmp (icmp6 for AF_INET6): the identifiers the
 * kernel's ping sockets are bound to, and the inodes of those that owner
 * made (the daemon's own, in broker mode: that they are listed says they
 * still exist).  Returns 0 or -1.
 */
int hostenv_kernel_scan(struct hostenv *h, int family,
			struct hostenv_scan *sc);

/* The IPv4 broadcast addresses of this namespace's interfaces (network
 * order), at most max of them: how many. */
size_t hostenv_broadcasts(struct hostenv *h, uint32_t *out, size_t max);

#endif
