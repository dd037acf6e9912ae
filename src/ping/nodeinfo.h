/* SPDX-License-Identifier: ISC */
/*
 * nodeinfo - ping -N: the ICMPv6 node information query (RFC 4620)
 * options of iputils 20221126, parsed with its rules, messages and exit
 * statuses.  Such a query needs a raw ICMPv6 socket, which this ping
 * never opens: once the options are taken, ping refuses the run as
 * iputils does for a user without CAP_NET_RAW (socks.c).
 */
#ifndef PING_NODEINFO_H
#define PING_NODEINFO_H

#include <stdbool.h>

struct ni_query {
	bool given;		/* -N was taken */
	int qtype;		/* enum ni_qtype; -1: none asked yet */
	int subject_type;	/* enum ni_subject; -1: none yet */
	bool subject;		/* a subject was given (and resolved) */
};

void ni_init(struct ni_query *q);
/*
 * One -N argument.  "help" prints the list on stdout and exits 0; an
 * unknown or conflicting one prints it on stderr and exits 2 (after
 * iputils' "Qtype conflict" or "Subject type conflict" on stdout, or
 * the resolver's complaint); a subject name that is no domain name
 * exits 1 or 2, as iputils' IDN and dn_comp() checks do.
 */
void ni_parse(struct ni_query *q, const char *arg);
bool ni_given(const struct ni_query *q);

#endif
