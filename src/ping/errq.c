/* SPDX-License-Identifier: ISC */
/*
 * errq - see errq.h.
 *
 * The two families differ in small ways that show: an ICMPv6 error does
 * not count as an answer for the "pipe" figure (iputils acknowledges
 * only IPv4 ones), and the texts are ICMPv6's.
 */
#include "ping/errq.h"

#include <arpa/inet.h>
#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include "ping/echo.h"
#include "ping/output.h"
#include "ping/probe.h"
#include "pingsock.h"

static int local_error(struct rx *r, const struct sock_extended_err *e)
{
	if (r->o->quiet)
		return -1;	/* iputils neither prints nor counts it then */
	if (r->o->flood)
		out_flood("E");
	else
		out_local_error((int)e->ee_errno, e->ee_info,
				r->t->family == AF_INET6);
	stats_error(r->st);
	return -1;
}

static void report_icmp_error(struct rx *r, const struct sock_extended_err *e,
			      uint16_t seq, bool lookups)
{
	char gw[sizeof(r->names->text)] = "";
	struct sockaddr_in off;

	memcpy(&off, SO_EE_OFFENDER(e), sizeof(off));
	/* A redirect's new gateway is in ee_info (host order).  It is named
	 * first: the namer keeps one answer, and the offender's must be the
	 * one still valid when the line is printed. */
	if (e->ee_type == ICMP_REDIRECT) {
		struct in_addr g = { .s_addr = htonl(e->ee_info) };

		snprintf(gw, sizeof(gw), "%s",
			 namer_addr(r->names, g, lookups));
	}
	out_icmp_error(r->o->timestamps,
		       namer_addr(r->names, off.sin_addr, lookups), seq,
		       e->ee_type, e->ee_code, e->ee_info, gw);
}

static void report_icmp6_error(struct rx *r,
			       const struct sock_extended_err *e,
			       uint16_t seq, bool lookups)
{
	union ping_sa off;

	memcpy(&off.v6, SO_EE_OFFENDER(e), sizeof(off.v6));
	out_icmp6_error(r->o->timestamps, namer_sa(r->names, &off.sa, lookups),
			seq, e->ee_type, e->ee_code, e->ee_info);
}

/* Whether the record's destination is ours. */
static bool same_target(const struct ping_target *t, const union ping_sa *a)
{
	if (t->family == AF_INET6)
		return IN6_ARE_ADDR_EQUAL(&a->v6.sin6_addr,
					  &t->dst.v6.sin6_addr);
	return a->v4.sin_addr.s_addr == t->dst.v4.sin_addr.s_addr;
}

/* ICMP about a request: the original header and destination come back. */
static int icmp_error(struct rx *r, const struct sock_extended_err *e,
		      const uint8_t *orig, ssize_t len,
		      const union ping_sa *target, bool lookups)
{
	bool v6 = r->t->family == AF_INET6;
	bool probe = r->o->probe.ctype != PROBE_NONE;
	uint16_t seq;

	if (len < ECHO_HDRLEN || !same_target(r->t, target) ||
	    orig[0] != (probe ? (v6 ? PROBE_REQUEST6 : PROBE_REQUEST4)
			      : (v6 ? ECHO6_REQUEST : ICMP_ECHO))) {
		errno = 0;	/* not about us: no error at all */
		return 0;
	}
	seq = (uint16_t)(orig[6] << 8 | orig[7]);
	if (probe)	/* -X: 8 bits of sequence, then the L bit */
		seq = probe_seq16(r->st->ntransmitted, orig[6]);
	if (!v6)
		stats_ack(r->st, seq);
	stats_error(r->st);
	if (probe)
		seq &= 0xff;
	if (r->o->quiet)
		return 1;
	if (r->o->flood)
		out_flood("\bE");
	else if (v6)
		report_icmp6_error(r, e, seq, lookups);
	else
		report_icmp_error(r, e, seq, lookups);
	return 1;
}

static const struct sock_extended_err *find_ee(struct msghdr *msg, bool v6)
{
	const struct sock_extended_err *e = NULL;

	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c;
	     c = CMSG_NXTHDR(msg, c)) {
		if (v6 ? c->cmsg_level == SOL_IPV6 &&
			 c->cmsg_type == IPV6_RECVERR
		       : c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR)
			e = (const struct sock_extended_err *)CMSG_DATA(c);
	}
	return e;
}

int rx_errqueue(struct rx *r, bool lookups)
{
	bool v6 = r->t->family == AF_INET6;
	uint8_t orig[ECHO_HDRLEN];
	char ctl[512];
	union ping_sa target;
	struct iovec iov = { .iov_base = orig, .iov_len = sizeof(orig) };
	struct msghdr msg = { .msg_name = &target,
			      .msg_namelen = sizeof(target),
			      .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl,
			      .msg_controllen = sizeof(ctl) };
	const struct sock_extended_err *e;
	int saved = errno;
	ssize_t n;

	memset(&target, 0, sizeof(target));
	n = pingsock_recvmsg(r->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
	if (n < 0) {
		/* Nothing queued: iputils 20221126 takes it as a local error
		 * (no message); the first error stands. */
		bool empty = errno == EAGAIN || errno == EINTR;

		errno = saved;
		return empty ? -1 : 0;
	}
	e = find_ee(&msg, v6);
	if (!e) {
		errno = 0;	/* a record without its cmsg: ignore it */
		return 0;
	}
	if (e->ee_origin == SO_EE_ORIGIN_LOCAL)
		return local_error(r, e);
	if (e->ee_origin == (v6 ? SO_EE_ORIGIN_ICMP6 : SO_EE_ORIGIN_ICMP))
		return icmp_error(r, e, orig, n, &target, lookups);
	errno = 0;
	return 0;
}
