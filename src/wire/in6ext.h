/* SPDX-License-Identifier: ISC */
/*
 * in6ext - the IPv6 socket options of <linux/in6.h> (and two of
 * <linux/in.h>) that glibc's <netinet/in.h> does not name, named once for every part (the two
 * headers cannot both be included).  The flow label manager's request is
 * part of the socket API the library carries (WIRE_SETOPT), the engine
 * emulates (psflow.c) and the daemon's raw socket uses (raw6.c).
 */
#ifndef PS_WIRE_IN6EXT_H
#define PS_WIRE_IN6EXT_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

/* Two IPv4 ones of <linux/in.h> (Linux 6.3, 6.5) that glibc may lack. */
#ifndef IP_LOCAL_PORT_RANGE
#define IP_LOCAL_PORT_RANGE 51
#endif
#ifndef IP_PROTOCOL
#define IP_PROTOCOL 52
#endif

#ifndef IPV6_FLOWINFO
#define IPV6_FLOWINFO 11	/* receive the flow information (cmsg) */
#endif
#ifndef IPV6_FLOWLABEL_MGR
#define IPV6_FLOWLABEL_MGR 32	/* lease or return a flow label */
#endif
/* RFC 5014 source address preferences (IPV6_ADDR_PREFERENCES, 72). */
#ifndef IPV6_PREFER_SRC_TMP
#define IPV6_PREFER_SRC_TMP 0x0001
#define IPV6_PREFER_SRC_PUBLIC 0x0002
#define IPV6_PREFER_SRC_PUBTMP_DEFAULT 0x0100
#define IPV6_PREFER_SRC_COA 0x0004
#define IPV6_PREFER_SRC_HOME 0x0400
#define IPV6_PREFER_SRC_CGA 0x0008
#define IPV6_PREFER_SRC_NONCGA 0x0800
#endif
#ifndef IPV6_FLOWINFO_SEND
#define IPV6_FLOWINFO_SEND 33	/* send sin6_flowinfo's label */
#endif

/* struct in6_flowlabel_req, the value of IPV6_FLOWLABEL_MGR. */
struct in6ext_flreq {
	struct in6_addr dst;
	uint32_t label;		/* network order */
	uint8_t action, share;
	uint16_t flags, expires, linger;
	uint32_t pad;
};
_Static_assert(sizeof(struct in6ext_flreq) == 32, "<linux/in6.h> layout");
_Static_assert(offsetof(struct in6ext_flreq, label) == 16, "flr_label");

enum { IN6EXT_FL_A_GET = 0, IN6EXT_FL_A_PUT = 1, IN6EXT_FL_A_RENEW = 2 };
enum {
	IN6EXT_FL_F_CREATE = 1, IN6EXT_FL_F_EXCL = 2, IN6EXT_FL_F_REFLECT = 4,
	IN6EXT_FL_F_REMOTE = 8
};
enum {
	IN6EXT_FL_S_EXCL = 1, IN6EXT_FL_S_PROCESS = 2, IN6EXT_FL_S_USER = 3,
	IN6EXT_FL_S_ANY = 255
};

#endif
