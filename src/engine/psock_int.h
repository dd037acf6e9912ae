/*
 * psock_int - the engine's socket, shared by its modules (psock.c: table,
 * bind, connect, send; psopt.c: options).  Not for use outside src/engine.
 */
#ifndef PS_PSOCK_INT_H
#define PS_PSOCK_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "engine/addr.h"
#include "engine/ipopt.h"
#include "engine/psock.h"
#include "engine/reqlog.h"

#define NIDENT 65536

struct psock {
	struct psock *next;	/* in its identifier's chain, newest first */
	void *owner;
	struct reqlog *log;
	uint32_t uid;
	int family;
	uint16_t ident;		/* the kernel's inet_num; 0 = unbound */
	bool hashed;
	bool reuse;		/* SO_REUSEADDR, on from the start */
	bool addr_locked;	/* SOCK_BINDADDR_LOCK */
	bool port_locked;	/* SOCK_BINDPORT_LOCK */
	bool connected;
	bool broadcast;
	bool recverr;
	bool reuseport;
	bool dontroute;
	bool freebind;
	bool bind_no_port;
	bool rfc4884;
	bool rxq_ovfl;
	uint32_t shut;		/* WIRE_SHUT_* */
	struct ps_addr rcv_saddr;	/* replies must be sent to this */
	struct ps_addr saddr;		/* requests come from this */
	struct ps_addr daddr;
	uint16_t dport;
	uint32_t bound_dev;
	int uc_ttl;
	uint8_t tos;
	int mc_ttl;
	uint32_t mc_index;	/* IP_MULTICAST_IF */
	struct ps_addr mc_addr;
	bool mc_loop;
	int pmtudisc;
	uint32_t cmsg;		/* WIRE_CM_* */
	int rcvbuf;
	struct ipopt opts;	/* IP_OPTIONS */
	uint32_t tsflags;	/* SO_TIMESTAMPING */
};


#endif
