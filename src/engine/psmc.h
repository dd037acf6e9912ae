/* SPDX-License-Identifier: ISC */
/*
 * psmc - multicast group membership and source filters of a ping socket
 * (psmc.c says what is kept and why).  Pure code.
 */
#ifndef PS_ENGINE_PSMC_H
#define PS_ENGINE_PSMC_H

#include <stdint.h>

struct psock;
struct ps_env;

/* setsockopt/getsockopt of a membership option at SOL_IP or SOL_IPV6:
 * 0, -errno, or PS_PASS for any other option.  A get reads its request
 * from val (the group) and writes the answer over it. */
int ps_mc_setopt(struct psock *sk, const struct ps_env *env, int level,
		 int name, const uint8_t *val, uint32_t len);
int ps_mc_getopt(struct psock *sk, const struct ps_env *env, int level,
		 int name, uint8_t *val, uint32_t *len);

#endif
