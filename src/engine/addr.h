/* SPDX-License-Identifier: ISC */
/*
 * addr - one address type for both families, so that the engine's tables
 * and matching rules are written once.
 */
#ifndef PS_ADDR_H
#define PS_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

struct ps_addr {
	uint8_t family;		/* AF_INET, AF_INET6, or 0 for "none" */
	uint8_t a[16];		/* IPv4 uses the first 4 bytes */
	uint32_t scope;		/* IPv6 scope id */
};

bool ps_addr_is_any(const struct ps_addr *x);
bool ps_addr_eq(const struct ps_addr *x, const struct ps_addr *y);
bool ps_addr_is_multicast(const struct ps_addr *x);
/* IPv6: link-local unicast, or a link- or interface-local group: an
 * address that means nothing without an interface (a scope id). */
bool ps_addr_needs_scope(const struct ps_addr *x);
/* 255.255.255.255 (IPv4 only). */
bool ps_addr_is_limited_bcast(const struct ps_addr *x);
void ps_addr_v4(struct ps_addr *x, uint32_t be_addr);
/*
 * The unspecified destination means this host: an IPv4 connect or send
 * to 0.0.0.0 reaches the source address src if it has one, else
 * 127.0.0.1 (ip_route_output_key_hash_rcu()); an IPv6 connect to ::
 * reaches ::1.  Any other dst is left as it is.
 */
void ps_addr_this_host(struct ps_addr *dst, const struct ps_addr *src);
uint32_t ps_addr_get_v4(const struct ps_addr *x);
size_t ps_addr_len(int family);

/*
 * Fill a sockaddr_in / sockaddr_in6 for x with the given port (host
 * order).  Returns its length; buf must hold sizeof(struct sockaddr_in6).
 */
socklen_t ps_addr_to_sockaddr(const struct ps_addr *x, uint16_t port,
			      void *buf);

/* "127.0.0.1" or "::1"; buf of at least 64 bytes. */
const char *ps_addr_str(const struct ps_addr *x, char *buf, size_t len);

#endif
