/* SPDX-License-Identifier: ISC */
/*
 * pscmsg - a sender's control messages, walked as for_each_cmsghdr() and
 * CMSG_OK() walk them, and the SOL_SOCKET ones checked as
 * __sock_cmsg_send() checks them, for both families' sends (psock4.c,
 * psock6.c).
 */
#ifndef PS_PSCMSG_H
#define PS_PSCMSG_H

#include <stdint.h>
#include <sys/socket.h>

/*
 * SOL_SOCKET messages are checked here, those of level given to fn,
 * others skipped.  The first error ends the walk.
 */
int ps_cmsg_walk(const uint8_t *ctl, uint32_t len, int level,
		 int (*fn)(void *arg, const struct cmsghdr *h,
			   const uint8_t *data),
		 void *arg);

#endif
