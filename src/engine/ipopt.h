/* SPDX-License-Identifier: ISC */
/*
 * ipopt - IPv4 options a ping socket's user sets with IP_OPTIONS (or per
 * packet with an IP_RETOPTS control message): checked as the kernel's
 * ip_options_get()/ip_options_compile() check them, and handed to the raw
 * socket, whose kernel path builds them into each request exactly as for
 * a ping socket.
 */
#ifndef PS_IPOPT_H
#define PS_IPOPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define IPOPT_MAX 40

struct ipopt {
	uint8_t b[IPOPT_MAX];
	size_t len;		/* a multiple of 4; 0: none */
	size_t rr_at, ts_at;	/* offsets of record route, timestamp */
	uint8_t rr_slot;	/* its pointer, if it has room; else 0 */
	uint8_t ts_slot;
	uint8_t ts_slots;	/* 1: time only; 2: address and time */
};

/* 0, or -EINVAL for options an unprivileged caller may not set. */
int ipopt_set(struct ipopt *opt, const uint8_t *val, size_t len);
/* getsockopt(IP_OPTIONS): writes opt->len bytes, returns that. */
size_t ipopt_get(const struct ipopt *opt, uint8_t *out);

#endif
