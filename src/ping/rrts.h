/* SPDX-License-Identifier: ISC */
/*
 * rrts - the IPv4 options of -R (record route) and -T (timestamps):
 * the bytes given to IP_OPTIONS, and the "RR:" / "TS:" lines printed
 * after a reply from what IP_RETOPTS hands back, as iputils 20221126's
 * pr_options() prints them.
 */
#ifndef PING_RRTS_H
#define PING_RRTS_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ping/names.h"

#define RRTS_SPACE 40		/* the most an IPv4 header holds */

/*
 * -R: a NOP, then a record-route option with room for nine addresses.
 * Returns the bytes to give IP_OPTIONS.
 */
size_t rrts_build_rr(uint8_t buf[RRTS_SPACE]);

/*
 * -T: a timestamp option of type ts_type (enum ping_ts); for tsprespec
 * with the n addresses to be stamped.  Returns the bytes to give
 * IP_OPTIONS (the option's own length, as iputils passes it).
 */
size_t rrts_build_ts(uint8_t buf[RRTS_SPACE], int ts_type,
		      const struct in_addr *hops, int n);

/* What iputils remembers between replies to say "(same route)". */
struct rrts_memory {
	int rrlen;
	uint8_t rr[RRTS_SPACE];
};

/*
 * Print the options of one reply (nothing when there are none), as
 * text that continues the reply's line: each option starts a new line,
 * but a route already printed is "(same route)" on the reply's own.
 * Addresses are named as the replies' (lookups: as for namer_addr()).
 */
void rrts_print(struct rrts_memory *mem, const uint8_t *opts, size_t len,
		 struct namer *names, bool lookups);

#endif
