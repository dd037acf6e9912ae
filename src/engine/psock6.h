/* SPDX-License-Identifier: ISC */
/*
 * psock6 - the IPv6 family's operations of the engine (psock_int.h):
 * what an IPv6 ping socket does where IPv4 differs (its options are
 * psopt6's).
 */
#ifndef PS_PSOCK6_H
#define PS_PSOCK6_H

struct ps_family_ops;

extern const struct ps_family_ops ps6_ops;

#endif
