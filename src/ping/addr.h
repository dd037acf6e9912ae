/* SPDX-License-Identifier: ISC */
/*
 * addr - a socket address of either family, the one type ping keeps
 * its destination, its source and the addresses it hears from in.
 */
#ifndef PING_ADDR_H
#define PING_ADDR_H

#include <netinet/in.h>
#include <sys/socket.h>

union ping_sa {
	struct sockaddr sa;
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

#endif
