/* SPDX-License-Identifier: ISC */
/*
 * psoptip - the SOL_IP options that a ping socket keeps and reads back
 * but that change nothing it sends or receives here, and the two that
 * only answer (IP_ROUTER_ALERT, IP_PROTOCOL).  Pure code.
 */
#ifndef PS_ENGINE_PSOPTIP_H
#define PS_ENGINE_PSOPTIP_H

#include <stdbool.h>
#include <stdint.h>

struct psock;
struct ps_env;

struct psoptip {
	uint32_t port_range;	/* IP_LOCAL_PORT_RANGE (lo | hi << 16):
				 * ping_get_port() has its own range */
	uint8_t minttl;		/* IP_MINTTL (ping_rcv() ignores it) */
	bool mc_all;		/* IP_MULTICAST_ALL */
	bool passsec;		/* IP_PASSSEC (no security labels here) */
	bool checksum;		/* IP_CHECKSUM */
	bool fragsize;		/* IP_RECVFRAGSIZE */
};

/* setsockopt at SOL_IP: 0, -errno, or PS_PASS for another option. */
int ps_ip_kept_set(struct psock *sk, const struct ps_env *env, int name,
		   const uint8_t *val, uint32_t len);
/* getsockopt at SOL_IP as an int: 0, or -ENOPROTOOPT for another. */
int ps_ip_kept_get(const struct psock *sk, int name, int *v);

#endif
