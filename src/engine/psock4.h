/* SPDX-License-Identifier: ISC */
/*
 * psock4 - the IPv4 family's operations of the engine (psock_int.h):
 * what an IPv4 ping socket does where IPv6 differs.
 */
#ifndef PS_PSOCK4_H
#define PS_PSOCK4_H

struct ps_family_ops;

extern const struct ps_family_ops ps4_ops;

#endif
