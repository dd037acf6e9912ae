/* SPDX-License-Identifier: ISC */
#include "engine/icmperr.h"

#include <errno.h>
#include <netinet/in.h>

enum {
	T_DEST_UNREACH = 3, T_SOURCE_QUENCH = 4, T_REDIRECT = 5,
	T_TIME_EXCEEDED = 11, T_PARAMPROB = 12,
	C_FRAG_NEEDED = 4, C_EXC_FRAGTIME = 1, NR_UNREACH = 15,
};

/* icmp_err_convert[]: Destination Unreachable code -> errno, fatal. */
static const struct {
	int err;
	bool hard;
} unreach[NR_UNREACH + 1] = {
	{ ENETUNREACH, false },	 /* 0 network unreachable */
	{ EHOSTUNREACH, false }, /* 1 host unreachable */
	{ ENOPROTOOPT, true },	 /* 2 protocol unreachable */
	{ ECONNREFUSED, true },	 /* 3 port unreachable */
	{ EMSGSIZE, true },	 /* 4 fragmentation needed */
	{ EOPNOTSUPP, false },	 /* 5 source route failed */
	{ ENETUNREACH, true },	 /* 6 network unknown */
	{ EHOSTDOWN, true },	 /* 7 host unknown */
	{ ENONET, true },	 /* 8 source host isolated */
	{ ENETUNREACH, true },	 /* 9 network prohibited */
	{ EHOSTUNREACH, true },	 /* 10 host prohibited */
	{ ENETUNREACH, false },	 /* 11 network unreachable for TOS */
	{ EHOSTUNREACH, false }, /* 12 host unreachable for TOS */
	{ EHOSTUNREACH, true },	 /* 13 communication prohibited */
	{ EHOSTUNREACH, true },	 /* 14 host precedence violation */
	{ EHOSTUNREACH, true },	 /* 15 precedence cutoff */
};

static bool dest_unreach(uint8_t code, uint32_t raw_info, int pmtudisc,
			 int no_pmtu_disc, struct icmp_verdict *v)
{
	if (code > NR_UNREACH)
		return false;	/* icmp_unreach() drops unknown codes */
	if (code == C_FRAG_NEEDED) {
		/* ip_no_pmtu_disc 2, and 3 for protocols without strict
		 * tag validation (ICMP among them), drop it. */
		if (no_pmtu_disc == 2 || no_pmtu_disc == 3)
			return false;
		/* Path MTU discovery: reported unless the socket asked not
		 * to do it.  (The kernel updates the route's MTU itself.) */
		if (pmtudisc == IP_PMTUDISC_DONT)
			return false;
		v->info = raw_info & 0xffff;
	}
	v->err = unreach[code].err;
	v->hard = unreach[code].hard;
	return true;
}

bool icmp4_error_verdict(uint8_t type, uint8_t code, uint32_t raw_info,
			 int pmtudisc, int no_pmtu_disc,
			 struct icmp_verdict *v)
{
	v->err = 0;
	v->hard = false;
	v->info = 0;
	switch (type) {
	case T_DEST_UNREACH:
		return dest_unreach(code, raw_info, pmtudisc, no_pmtu_disc, v);
	case T_TIME_EXCEEDED:
		if (code == C_EXC_FRAGTIME)
			return false;	/* icmp_unreach() ignores these */
		v->err = EHOSTUNREACH;
		return true;
	case T_PARAMPROB:
		v->err = EPROTO;
		v->hard = true;
		v->info = raw_info >> 24;	/* the pointer */
		return true;
	case T_SOURCE_QUENCH:
		/* Not an error, but ping wants to see it: the kernel's own
		 * "fake errno". */
		v->err = EREMOTEIO;
		return true;
	case T_REDIRECT:
		v->err = EREMOTEIO;
		v->info = raw_info;	/* the gateway, host order */
		return true;
	default:
		return false;
	}
}

enum {
	T6_DEST_UNREACH = 1, T6_PKT_TOOBIG = 2, T6_TIME_EXCEED = 3,
	T6_PARAMPROB = 4,
};

/* tab_unreach[] of net/ipv6/icmp.c: codes 0..6; later ones EPROTO. */
static const struct {
	int err;
	bool hard;
} unreach6[] = {
	{ ENETUNREACH, false },	 /* 0 no route */
	{ EACCES, true },	 /* 1 administratively prohibited */
	{ EHOSTUNREACH, false }, /* 2 beyond scope of source address */
	{ EHOSTUNREACH, false }, /* 3 address unreachable */
	{ ECONNREFUSED, true },	 /* 4 port unreachable */
	{ EACCES, true },	 /* 5 source address failed policy */
	{ EACCES, true },	 /* 6 reject route */
};

bool icmp6_error_verdict(uint8_t type, uint8_t code, uint32_t raw_info,
			 struct icmp_verdict *v)
{
	if (type >= 128)
		return false;
	v->err = EPROTO;	/* unknown error types: soft EPROTO */
	v->hard = false;
	v->info = raw_info;
	switch (type) {
	case T6_DEST_UNREACH:
		v->hard = true;
		if (code < sizeof(unreach6) / sizeof(unreach6[0])) {
			v->err = unreach6[code].err;
			v->hard = unreach6[code].hard;
		}
		break;
	case T6_PKT_TOOBIG:
		v->err = EMSGSIZE;
		break;
	case T6_PARAMPROB:
		v->hard = true;
		break;
	case T6_TIME_EXCEED:
		v->err = EHOSTUNREACH;
		break;
	default:
		break;
	}
	return true;
}
