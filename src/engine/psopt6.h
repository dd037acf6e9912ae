/* SPDX-License-Identifier: ISC */
/*
 * psopt6 - SOL_IPV6 socket options of an IPv6 ping socket: the IPv6
 * family's option hooks (psock6.c puts them in its operations; psopt.c
 * does SOL_SOCKET and SOL_IP).  Other levels: PS_PASS.
 */
#ifndef PS_PSOPT6_H
#define PS_PSOPT6_H

#include <stdint.h>

#include "engine/psock.h"

/* Join (or leave) an IPv6 group on a device (0: any), as
 * ipv6_sock_mc_join() and ipv6_sock_mc_drop() do: 0 or -errno. */
int ps6_mc_group(struct psock *sk, const struct ps_env *env, bool join,
		 const uint8_t group[16], uint32_t idx);
int ps6_setopt(struct psock *sk, const struct ps_env *env, int level,
	       int name, const uint8_t *val, uint32_t len);
int ps6_getopt(const struct psock *sk, const struct ps_env *env, int level,
	       int name, uint8_t *val, uint32_t *len);
/* setsockopt(SOL_IPV6, IPV6_FLOWLABEL_MGR), and ps_flowlabel_opt(). */
int ps6_flowlabel(struct psock *sk, const struct ps_env *env,
		  const uint8_t *val, uint32_t len, uint32_t *label);

#endif
