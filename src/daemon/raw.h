/* SPDX-License-Identifier: ISC */
/*
 * raw - the daemon's raw ICMP sockets: the only network privilege it has,
 * opened at start-up and kept.
 *
 * One socket receives (ICMP_FILTER passes only Echo Replies and the error
 * types, with SO_TIMESTAMPNS and IP_PKTINFO) and sends the requests of
 * ping sockets with the default options; a second one sends the others,
 * its SO_BROADCAST (without it the kernel answers EACCES for a broadcast
 * route, as for the ping socket), IP_MTU_DISCOVER and IP_MULTICAST_LOOP
 * set before each send as the request needs.  The second one filters out
 * everything it would receive.  Two, not one a combination: the kernel
 * looks at every raw ICMP socket of the namespace for every ICMP packet.
 */
#ifndef PSD_RAW_H
#define PSD_RAW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/rawio.h"
#include "engine/psock.h"

struct raw;

struct raw *raw_open(int family, char *err, size_t errlen);
void raw_close(struct raw *r);
int raw_fd(const struct raw *r);
/*
 * on: the filter of Echo Replies and errors; off: every type the ICMP
 * filter can name refused, so that the kernel does not even queue them
 * (broker mode while no relayed socket exists).  0 or -errno.
 */
int raw_listen(struct raw *r, bool on);

/* Send an ICMP message as info says.  0 or -errno (never blocks). */
int raw_send(struct raw *r, const struct ps_sendinfo *info,
	     const uint8_t *msg, size_t len);

/*
 * Receive up to one batch of datagrams without blocking; fills pkts
 * (pointers valid until the next call).  Returns the count (0: none) or
 * -errno.
 */
int raw_recv(struct raw *r, struct raw_pkt *pkts, int max);

#endif
