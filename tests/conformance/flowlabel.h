/* SPDX-License-Identifier: ISC */
/*
 * flowlabel.h - IPV6_FLOWLABEL_MGR's request, for the flowlabel_* cases:
 * struct in6_flowlabel_req of <linux/in6.h> (which clashes with libc's
 * <netinet/in.h>) and its actions, flags and share modes.
 */
#ifndef CONF_FLOWLABEL_H
#define CONF_FLOWLABEL_H

#include <netinet/in.h>
#include <stdint.h>

#ifndef IPV6_FLOWLABEL_MGR
#define IPV6_FLOWLABEL_MGR 32
#endif

struct flreq {
	struct in6_addr dst;
	uint32_t label;		/* network order */
	uint8_t action, share;
	uint16_t flags, expires, linger;
	uint32_t pad;
};

enum { A_GET = 0, A_PUT = 1, A_RENEW = 2 };
enum { F_CREATE = 1, F_EXCL = 2 };
enum { S_EXCL = 1, S_PROCESS = 2, S_USER = 3, S_ANY = 255 };
#define CX (F_CREATE | F_EXCL)

#endif
