/* SPDX-License-Identifier: ISC */
/*
 * rx - what comes back on the ping socket: Echo Replies (with their
 * control messages: TTL or hop limit, receive stamp); errq.h reads the
 * error queue.
 */
#ifndef PING_RX_H
#define PING_RX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ping/rrts.h"
#include "ping/names.h"
#include "ping/opts.h"
#include "ping/sock.h"
#include "ping/stats.h"

struct rx {
	int fd;
	const struct ping_opts *o;
	const struct ping_target *t;
	struct ping_stats *st;
	struct namer *names;
	const uint8_t *sent;	/* the requests' data, to match replies */
	uint8_t *buf;		/* room for the largest reply */
	size_t buflen;
	bool latency;		/* stamp replies with the clock from now on */
	struct rrts_memory rr;	/* -R: the last route printed */
	int interval;		/* ms between requests now (-A changes it) */
	long rtt_addend;	/* -A: us added for buffer shortages */
};

/*
 * One recvmsg() with flags.  Returns true when something was handled and
 * another read may find more; false when the socket is drained (or a
 * read error was reported).  *pending_err: poll() said POLLERR, so an
 * empty read still looks at the error queue.
 */
bool rx_one(struct rx *r, int flags, bool *pending_err, bool lookups);

/*
 * -A: iputils' update_interval(): the interval becomes the smoothed RTT
 * plus what buffer shortages added (rtt_addend), rounded to ms, and no
 * less than PING_MIN_USER_INTERVAL for users other than root.
 */
void rx_adapt(struct rx *r);

#endif
