/* SPDX-License-Identifier: ISC */
/*
 * opts - ping's command line, parsed with iputils 20221126's rules and
 * error messages (ping/ping.c and iputils_common.c of that release).
 */
#ifndef PING_OPTS_H
#define PING_OPTS_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ping/nodeinfo.h"
#include "ping/probe.h"

#define PING_DEFAULT_DATALEN	56
#define PING_DEFAULT_INTERVAL	1000	/* ms */
#define PING_DEFAULT_LINGER	10000	/* ms: -W, iputils' MAXWAIT */
#define PING_MIN_USER_INTERVAL	2	/* ms: iputils' MINUSERINTERVAL */
#define PING_PATTERN_MAX	16	/* bytes of -p, as iputils */
#define PING_SCHED_MIN		10	/* ms: iputils' MININTERVAL, the
					 * shortest wait it schedules */
#define PING_MAX_PRELOAD	65536	/* -l: iputils' MAX_DUP_CHK */
#define PING_MAX_USER_PRELOAD	3	/* -l for users other than root */
#define PING_FLOWLABEL_MASK	0xfffff	/* -F: the 20 bits of a label */
#define PING_MAX_TS_HOPS	4	/* -T tsprespec: addresses before
					 * the destination */
#define PING_IDENT_MAX		65535	/* -e: iputils' IDENTIFIER_MAX */

/* -T: the timestamp option's flag values (RFC 791); -1: no -T. */
enum ping_ts { PING_TS_NONE = -1, PING_TS_TSONLY = 0,
	       PING_TS_TSANDADDR = 1, PING_TS_PRESPEC = 3 };

struct ping_opts {
	int family;		/* -4: AF_INET, -6: AF_INET6, else AF_UNSPEC */
	long count;		/* -c: stop after this many replies; 0: never */
	long deadline;		/* -w: seconds; 0: none */
	int interval;		/* -i: ms between requests */
	int linger;		/* -W: ms to wait when nothing came back */
	size_t datalen;		/* -s: data bytes after the ICMP header */
	int ttl;		/* -t; -1: the kernel's default */
	int tos;		/* -Q (IPv6: the traffic class); 0: leave it
				 * alone, as iputils does */
	bool flowinfo;		/* -F was given */
	uint32_t flowlabel;	/* -F: host order, 20 bits; 0: the kernel
				 * picks one */
	bool quiet;		/* -q */
	bool numeric;		/* -n */
	bool audible;		/* -a */
	bool outstanding;	/* -O */
	bool timestamps;	/* -D */
	bool broadcast;		/* -b */
	bool flood;		/* -f */
	bool interval_given;	/* -i was given (-f keeps it then) */
	bool latency;		/* -U: receive times from the clock */
	bool verbose;		/* -v */
	bool adaptive;		/* -A: the interval follows the RTT */
	bool connect_sk;	/* -C: connect() the IPv4 socket */
	bool so_debug;		/* -d: SO_DEBUG */
	bool dontroute;		/* -r: SO_DONTROUTE */
	bool noloop;		/* -L: no IP(V6)_MULTICAST_LOOP */
	bool mark_set;		/* -m was given */
	uint32_t mark;		/* -m: SO_MARK */
	int sndbuf;		/* -S: SO_SNDBUF; 0: iputils' estimate */
	long ident;		/* -e: bind to this identifier; -1: none,
				 * 0: a raw socket (which this ping has
				 * not) */
	struct ni_query ni;	/* -N: also a raw socket's */
	bool rroute;		/* -R */
	int ts_type;		/* -T, enum ping_ts */
	int pmtudisc;		/* -M: IP_PMTUDISC_* (the IPV6_PMTUDISC_*
				 * values are the same); -1: leave it */
	int preload;		/* -l: requests sent at once; 1 without */
	int nextra;		/* names given before the destination */
	int nhops;		/* -T tsprespec: hops[] before target */
	const char *hops[PING_MAX_TS_HOPS];
	bool have_pattern;	/* -p was given (even empty: data stays 0) */
	int pattern_len;	/* bytes in pattern */
	uint8_t pattern[PING_PATTERN_MAX];
	const char *device;	/* -I NAME, or the %NAME of -I ADDRESS%NAME */
	struct in_addr source;	/* -I IPv4 ADDRESS; 0.0.0.0: none */
	struct in6_addr source6;	/* -I IPv6 ADDRESS; :: none */
	bool strict_source;	/* -I ADDRESS (either family) or -B: bind
				 * to it, or to the route's source (for -B,
				 * or for the other family) */
	struct probe_ident probe;	/* -X; ctype PROBE_NONE without */
	const char *target;
};

/*
 * Fill o from argv, or exit: 2 after usage or a bad value, 1 for the
 * errors iputils reports through its strtol_or_err() (and for a missing
 * destination), 0 after -V.
 */
void opts_parse(int argc, char **argv, struct ping_opts *o);

/*
 * More than one name is only for -T tsprespec (at most 4 before the
 * destination) to an IPv4 destination: the usage text otherwise.
 * Called where iputils looks, once the destination is resolved.
 */
void opts_check_targets(const struct ping_opts *o, int family);

/* -e 0 or -N: what iputils does needs a raw socket. */
bool opts_raw_needed(const struct ping_opts *o);

/* The usage text on stderr, exit 2. */
_Noreturn void opts_usage(void);

#endif
