/* SPDX-License-Identifier: ISC */
/*
 * raw6 - the daemon's raw ICMPv6 socket, as raw.h is for ICMP: one
 * socket (ICMP6_FILTER passes Echo Replies, Extended Echo Replies and the
 * error types), which also sends; the options a raw socket cannot take per packet (path MTU
 * discovery, multicast loop) are set on it before each send that needs
 * other values (the daemon is one thread).  The kernel computes the
 * ICMPv6 checksum.
 */
#ifndef PSD_RAW6_H
#define PSD_RAW6_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "daemon/rawio.h"
#include "engine/psock.h"

struct raw6;

struct raw6 *raw6_open(char *err, size_t errlen);
void raw6_close(struct raw6 *r);
int raw6_fd(const struct raw6 *r);
int raw6_listen(struct raw6 *r, bool on);	/* as raw_listen */
int raw6_send(struct raw6 *r, const struct ps_sendinfo *info,
	      const uint8_t *msg, size_t len);
int raw6_recv(struct raw6 *r, struct raw_pkt *pkts, int max);

#endif
