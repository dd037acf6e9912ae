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
#include <linux/errqueue.h>
#include <linux/sockios.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>

#include "ping/echo.h"
#include "ping/output.h"
#include "pingsock.h"

#define CTL_SPACE 4096

struct rx_meta {
	int ttl;		/* 0 when the kernel gave none, as iputils */
	bool have_stamp;
	struct timespec stamp;
	const uint8_t *opts;	/* IP_RETOPTS: the reply's IP options */
	size_t optlen;
};

static void read_cmsgs(struct msghdr *msg, struct rx_meta *m)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(msg); c;
	     c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_TTL &&
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
 * The line, then (as iputils' parse_reply()) the bell, the IP options
 * and the newline.  For -b and multicast iputils hides (DUP!) unless -v
 * and never says (DIFFERENT ADDRESS!): several hosts answer.
 */
static void print_reply(struct rx *r, const struct echo_reply *er,
			const struct sockaddr_in *from,
			const struct rx_meta *m, long t, enum reply_kind kind,
			size_t cc, bool lookups)
{
	const struct ping_opts *o = r->o;
	bool multi = r->t->multicast;
	struct reply_line line = {
		.stamp = o->timestamps,
		.cc = (int)cc,
		.from = namer_addr(r->names, from->sin_addr, lookups),
		.seq = er->seq,
		.ttl = m->ttl,
		.truncated = cc < o->datalen + ECHO_HDRLEN,
		.triptime = r->st->timing ? (t < 0 ? 0 : t) : -1,
		.dup = kind == REPLY_DUP && (!multi || o->verbose),
		.csfailed = er->csfailed,
		.wrong_source = !multi && from->sin_addr.s_addr !=
					  r->t->dst.sin_addr.s_addr,
	};

	if (!out_reply(&line))
		return;
	if (o->audible)
		out_bell();
	if (m->opts)
		rrts_print(&r->rr, m->opts, m->optlen, r->names, lookups);
	out_line_end();
}

static void handle_reply(struct rx *r, size_t cc,
			 const struct sockaddr_in *from,
			 const struct rx_meta *m, bool lookups)
{
	struct echo_reply er;
	struct timespec ts;
	enum reply_kind kind;
	long t = -1;

	if (!echo_parse(r->buf, cc, &er) || er.type != ICMP_ECHOREPLY)
		return;
	if (!echo_data_matches(&er, r->sent, r->o->datalen))
		return;		/* not our echo after all */
	recv_time(r, m, &ts);
	if (r->st->timing && er.datalen >= sizeof(struct timeval))
		t = triptime(r, &er, &ts);
	kind = stats_reply(r->st, er.seq, t, er.csfailed);
	if (r->o->quiet)
		return;
	if (r->o->flood)
		flood_reply(r, er.csfailed);
	else
		print_reply(r, &er, from, m, t, kind, cc, lookups);
}

static int local_error(struct rx *r, const struct sock_extended_err *e)
{
	if (r->o->quiet)
		return -1;	/* iputils neither prints nor counts it then */
	if (r->o->flood)
		out_flood("E");
	else
		out_local_error((int)e->ee_errno, e->ee_info);
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

/* ICMP about a request: the original header and destination come back. */
static int icmp_error(struct rx *r, const struct sock_extended_err *e,
		      const uint8_t *orig, ssize_t len,
		      const struct sockaddr_in *target, bool lookups)
{
	uint16_t seq;

	if (len < ECHO_HDRLEN ||
	    target->sin_addr.s_addr != r->t->dst.sin_addr.s_addr ||
	    orig[0] != ICMP_ECHO) {
		errno = 0;	/* not about us: no error at all */
		return 0;
	}
	seq = (uint16_t)(orig[6] << 8 | orig[7]);
	stats_ack(r->st, seq);
	stats_error(r->st);
	if (r->o->quiet)
		return 1;
	if (r->o->flood)
		out_flood("\bE");
	else
		report_icmp_error(r, e, seq, lookups);
	return 1;
}

int rx_errqueue(struct rx *r, bool lookups)
{
	uint8_t orig[ECHO_HDRLEN];
	char ctl[512];
	struct sockaddr_in target;
	struct iovec iov = { .iov_base = orig, .iov_len = sizeof(orig) };
	struct msghdr msg = { .msg_name = &target,
			      .msg_namelen = sizeof(target),
			      .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl,
			      .msg_controllen = sizeof(ctl) };
	const struct sock_extended_err *e = NULL;
	int saved = errno;
	ssize_t n;

	n = pingsock_recvmsg(r->fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT);
	if (n < 0) {
		/* Nothing queued: iputils 20221126 takes it as a local error
		 * (no message); the first error stands. */
		bool empty = errno == EAGAIN || errno == EINTR;

		errno = saved;
		return empty ? -1 : 0;
	}
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c;
	     c = CMSG_NXTHDR(&msg, c))
		if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_RECVERR)
			e = (const struct sock_extended_err *)CMSG_DATA(c);
	if (!e) {
		errno = 0;	/* a record without its cmsg: ignore it */
		return 0;
	}
	if (e->ee_origin == SO_EE_ORIGIN_LOCAL)
		return local_error(r, e);
	if (e->ee_origin == SO_EE_ORIGIN_ICMP)
		return icmp_error(r, e, orig, n, &target, lookups);
	errno = 0;
	return 0;
}

bool rx_one(struct rx *r, int flags, bool *pending_err, bool lookups)
{
	char ctl[CTL_SPACE];
	struct sockaddr_in from;
	struct iovec iov = { .iov_base = r->buf, .iov_len = r->buflen };
	struct msghdr msg = { .msg_name = &from, .msg_namelen = sizeof(from),
			      .msg_iov = &iov, .msg_iovlen = 1,
			      .msg_control = ctl,
			      .msg_controllen = sizeof(ctl) };
	struct rx_meta m = { .ttl = 0 };
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
