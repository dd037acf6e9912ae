/* SPDX-License-Identifier: ISC */
/*
 * optgen - socket options of a relayed socket answered in the library
 * (optgen.c says which and why).
 */
#ifndef PS_LIB_OPTGEN_H
#define PS_LIB_OPTGEN_H

#include <stdbool.h>
#include <sys/socket.h>

#define OPTGEN_PASS 1	/* not answered here: the daemon's */

/* A generic socket-layer option: the data descriptor answers it. */
bool optgen_local(int level, int name);

/* setsockopt/getsockopt answered here: 0, -errno, or OPTGEN_PASS. */
int optgen_set(int family, int level, int name, const void *val,
	       socklen_t len);
int optgen_get(int family, int level, int name, void *val,
	       socklen_t *len);

/* The daemon's answer rc to an option at SOL_IP or SOL_IPV6, with the
 * kernel's EPERM where netfilter or IPsec would have refused the
 * caller. */
int optgen_other(int family, int level, int name, bool set, int rc);

#endif
