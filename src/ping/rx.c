/* SPDX-License-Identifier: ISC */
/*
 * rx - see rx.h.
 *
 * A ping socket matches replies to the socket by identifier already, so
 * any Echo Reply read here answers one of our requests; it is checked by
 * sequence number and data only, as iputils does on SOCK_DGRAM.
 */
#include "ping/rx.h"

#include <arpa/inet.h>
#include <errno.h>
#include <error.h>
#include <limits.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "ping/echo.h"
#include "ping/errq.h"
#include "ping/output.h"
#include "ping/probe.h"
#include "pingsock.h"

#define CTL_SPACE 4096

struct rx_meta {
	int ttl;		/* none from the kernel: 0 for IPv4, as
				 * iputils, and -1 (not shown) for IPv6 */
	bool have_stamp;
	struct timespec stamp;
	const uint8_t *opts;	/* IP_RETOPTS: the reply's IP options */
	size_t optlen;
};

static void read_cmsgs(struct msghdr *msg, struct rx_meta *m)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c;
	     c = CMSG_NXTHDR(msg, c)) {
		if (((c->cmsg_level == SOL_IP && c->cmsg_type == IP_TTL) ||
		     (c->cmsg_level == SOL_IPV6 &&
		      (c->cmsg_type == IPV6_HOPLIMIT ||
		       c->cmsg_type == IPV6_2292HOPLIMIT))) &&
		    c->cmsg_len >= CMSG_LEN(sizeof(int))) {
			memcpy(&m->ttl, CMSG_DATA(c), sizeof(int));
		} else if (c->cmsg_level == SOL_IP &&
			   c->cmsg_type == IP_RETOPTS &&
			   c->cmsg_len >= CMSG_LEN(0)) {
			m->opts = CMSG_DATA(c);
			m->optlen = c->cmsg_len - CMSG_LEN(0);
		} else if (c->cmsg_level == SOL_SOCKET &&
			   c->cmsg_type == SO_TIMESTAMPNS &&
			   c->cmsg_len >= CMSG_LEN(sizeof(m->stamp))) {
			memcpy(&m->stamp, CMSG_DATA(c), sizeof(m->stamp));
			m->have_stamp = true;
		}
	}
}

/* The kernel's stamp, else the socket's last one, else the clock now. */
static void recv_time(struct rx *r, const struct rx_meta *m,
		      struct timespec *ts)
{
	if (!r->latency && m->have_stamp) {
		*ts = m->stamp;
		return;
	}
	if (!r->latency && pingsock_ioctl(r->fd, SIOCGSTAMPNS, ts) == 0)
		return;
	clock_gettime(CLOCK_REALTIME, ts);
}

/*
 * RTT of a timed reply.  A negative one means the clock stepped back
 * between send and receive: say so, and from then on take receive times
 * from the clock, as iputils does ("taking countermeasures").
 */
static long triptime(struct rx *r, const struct echo_reply *er,
		     struct timespec *rx_ts)
{
	long t = echo_triptime(er, rx_ts);

	while (t < 0) {
		error(0, 0, "Warning: time of day goes back (%ldus), taking "
		      "countermeasures", t);
		t = 0;
		if (r->latency)
			break;
		r->latency = true;
		clock_gettime(CLOCK_REALTIME, rx_ts);
		t = echo_triptime(er, rx_ts);
	}
	return t;
}

/* -f: a mark instead of a line; -a still rings. */
static void flood_reply(const struct rx *r, bool csfailed)
{
	out_flood(csfailed ? "\bC" : "\b \b");
	if (r->o->audible)
		out_flood("\a");
}

/*
 * Whether a reply's source is another than the destination: never for
 * -b and multicast (several hosts answer), nor for an IPv6 subnet-router
 * anycast destination (any router may).
 */
static bool wrong_source(const struct ping_target *t, const union ping_sa *from)
{
	if (t->multicast)
		return false;
	if (t->family == AF_INET6)
		return !t->anycast && !IN6_ARE_ADDR_EQUAL(&from->v6.sin6_addr,
							  &t->dst.v6.sin6_addr);
	return from->v4.sin_addr.s_addr != t->dst.v4.sin_addr.s_addr;
}

/*
 * The line, then (as iputils' parse_reply()) the bell, the IP options
 * and the newline.  For -b and multicast iputils hides (DUP!) unless -v.
 */
static void print_reply(struct rx *r, const struct echo_reply *er,
			const union ping_sa *from,
			const struct rx_meta *m, long t, enum reply_kind kind,
			size_t cc, bool lookups)
{
	const struct ping_opts *o = r->o;
	struct reply_line line = {
		.stamp = o->timestamps,
		.cc = (int)cc,
		.from = namer_sa(r->names, &from->sa, lookups),
		.seq = er->seq,
		/* -v shows the identifier -e asked for (the kernel's
		 * choice is not shown, as in iputils). */
		.ident = o->verbose ? o->ident : -1,
		.ttl = m->ttl,
		.truncated = cc < o->datalen + ECHO_HDRLEN,
		.triptime = r->st->timing ? (t < 0 ? 0 : t) : -1,
		.dup = kind == REPLY_DUP && (!r->t->multicast || o->verbose),
		.csfailed = er->csfailed,
		.wrong_source = wrong_source(r->t, from),
	};

	if (!out_reply(&line))
		return;
	if (o->audible)
		out_bell();
	if (m->opts)
		rrts_print(&r->rr, m->opts, m->optlen, r->names, lookups);
	out_line_end();
}

/*
 * -X: an Extended Echo Reply.  One with an error code (no such
 * interface...) counts as an error, as an ICMP error would: the
 * interface asked about is not there to answer for.
 */
static void handle_probe(struct rx *r, size_t cc, const union ping_sa *from,
			 const struct rx_meta *m, bool lookups)
{
	struct probe_reply pr;
	struct timespec ts;
	enum reply_kind kind = REPLY_NEW;
	uint16_t seq;
	long t;

	if (!probe_parse_reply(r->buf, cc, r->t->family == AF_INET6, &pr))
		return;
	seq = probe_seq16(r->st->ntransmitted, pr.seq);
	recv_time(r, m, &ts);
	t = probe_triptime(pr.seq, &ts);
	if (t < 0)
		t = 0;
	if (pr.code == 0) {
		kind = stats_reply(r->st, seq, t, false);
		if (r->o->adaptive)
			rx_adapt(r);
	} else {
		stats_ack(r->st, seq);
		stats_error(r->st);
	}
	if (r->o->quiet)
		return;
	if (r->o->flood) {
		out_flood(pr.code ? "\bE" : "\b \b");
		return;
	}
	out_probe_reply(r->o->timestamps, (int)cc,
			namer_sa(r->names, &from->sa, lookups), &pr, m->ttl, t,
			kind == REPLY_DUP && (!r->t->multicast || r->o->verbose));
	if (r->o->audible)
		out_bell();
	out_line_end();
}

static void handle_reply(struct rx *r, size_t cc,
			 const union ping_sa *from,
			 const struct rx_meta *m, bool lookups)
{
	bool v6 = r->t->family == AF_INET6;
	struct echo_reply er;
	struct timespec ts;
	enum reply_kind kind;
	long t = -1;

	if (r->o->probe.ctype != PROBE_NONE) {
		handle_probe(r, cc, from, m, lookups);
		return;
	}
	if (!echo_parse(r->buf, cc, &er) ||
	    er.type != (v6 ? ECHO6_REPLY : ICMP_ECHOREPLY))
		return;
	if (v6)
		er.csfailed = false;	/* iputils cannot tell either */
	if (!echo_data_matches(&er, r->sent, r->o->datalen))
		return;		/* not our echo after all */
	recv_time(r, m, &ts);
	if (r->st->timing && er.datalen >= sizeof(struct timeval))
		t = triptime(r, &er, &ts);
	kind = stats_reply(r->st, er.seq, t, er.csfailed);
	if (r->o->adaptive && t >= 0 && kind != REPLY_CORRUPT)
		rx_adapt(r);
	if (r->o->quiet)
		return;
	if (r->o->flood)
		flood_reply(r, er.csfailed);
	else
		print_reply(r, &er, from, m, t, kind, cc, lookups);
}

bool rx_one(struct rx *r, int flags, bool *pending_err, bool lookups)
{
	char ctl[CTL_SPACE];
	union ping_sa from;
	struct iovec iov = { .iov_base = r->buf, .iov_len = r->buflen };
	struct msghdr msg = { .msg_name = &from, .msg_namelen = sizeof(from),
			      .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl,
			      .msg_controllen = sizeof(ctl) };
	struct rx_meta m = { .ttl = r->t->family == AF_INET6 ? -1 : 0 };
	ssize_t cc;

	memset(&from, 0, sizeof(from));
	cc = pingsock_recvmsg(r->fd, &msg, flags);
	if (cc < 0) {
		bool empty = errno == EAGAIN || errno == EWOULDBLOCK;

		if (errno == EINTR || (empty && !*pending_err))
			return false;
		*pending_err = false;
		if (rx_errqueue(r, lookups) == 0 && errno) {
			/* POLLERR with an empty queue is no news. */
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				error(0, errno, "recvmsg");
			return false;
		}
		return true;
	}
	read_cmsgs(&msg, &m);
	handle_reply(r, (size_t)cc, &from, &m, lookups);
	return true;
}

void rx_adapt(struct rx *r)
{
	long est = r->st->rtt ? r->st->rtt / 8 : (long)r->interval * 1000;
	long ms = (est + r->rtt_addend + 500) / 1000;

	if (getuid() != 0 && ms < PING_MIN_USER_INTERVAL)
		ms = PING_MIN_USER_INTERVAL;
	r->interval = ms > INT_MAX ? INT_MAX : (int)ms;
}
