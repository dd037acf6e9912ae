/* SPDX-License-Identifier: ISC */
/*
 * errq - the ping socket's error queue (IP_RECVERR, IPV6_RECVERR): ICMP
 * and ICMPv6 errors about our requests, and local errors, reported and
 * counted as iputils 20221126's receive_error_msg() does for each family.
 */
#ifndef PING_ERRQ_H
#define PING_ERRQ_H

#include <stdbool.h>

#include "ping/rx.h"

/*
 * Read one record from the error queue and report it.  > 0: an ICMP
 * error about one of our requests; < 0: a local error, or an empty queue
 * (errno is then left as it was); 0: nothing of ours, errno then says
 * why (0: a record for someone else).
 */
int rx_errqueue(struct rx *r, bool lookups);

#endif
