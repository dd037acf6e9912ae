/*
 * psopt6 - SOL_IPV6 socket options of an IPv6 ping socket (psopt.c does
 * SOL_SOCKET and SOL_IP and calls these for SOL_IPV6).
 */
#ifndef PS_PSOPT6_H
#define PS_PSOPT6_H

#include <stdint.h>

#include "engine/psock.h"

int ps6_setopt(struct psock *sk, const struct ps_env *env, int name,
	       const uint8_t *val, uint32_t len);
int ps6_getopt(const struct psock *sk, const struct ps_env *env, int name,
	       uint8_t *val, uint32_t *len);

#endif
