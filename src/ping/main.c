/* SPDX-License-Identifier: ISC */
/*
 * ping - a setuid-less ping on libpingsock, output-compatible with
 * iputils ping 20221126.
 *
 * The order of the steps is iputils': it decides which complaint comes
 * first when several things are wrong (a bad -p before a missing socket,
 * the socket before name resolution, the header before the -i check).
 */
#include <errno.h>
#include <error.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ping/echo.h"
#include "ping/loop.h"
#include "ping/names.h"
#include "ping/opts.h"
#include "ping/output.h"
#include "ping/probe.h"
#include "ping/rx.h"
#include "ping/setup.h"
#include "ping/sock.h"
#include "ping/sock6.h"
#include "ping/socks.h"
#include "ping/stats.h"
#include "pingsock.h"

/* Room for a reply: iputils' MAXIPLEN + MAXICMPLEN beyond the data. */
#define REPLY_SLACK (60 + 76)

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		error(2, errno, "memory allocation failed");
	return p;
}

/* Requests with their data filled in once; the header goes in per send. */
static uint8_t *make_request(const struct ping_opts *o)
{
	size_t len = ECHO_HDRLEN + o->datalen;
	uint8_t *pkt = xmalloc(len < PROBE_MAXLEN ? PROBE_MAXLEN : len);

	echo_fill(pkt + ECHO_HDRLEN, o->datalen, o->pattern, o->pattern_len,
		  o->have_pattern);
	if (o->have_pattern && !o->quiet)
		out_pattern(o->pattern, o->pattern_len);
	return pkt;
}

/* IPv4: iputils' ping4_run() up to the header; false: try the next. */
static bool prepare4(int fd, struct ping_opts *o, const struct addrinfo *ai,
		     struct ping_target *t, size_t *optlen)
{
	sock_resolve(o->target, ai, t);
	opts_check_targets(o, AF_INET);
	sock_resolve_hops(o, t);
	if (!sock_route(fd, o, t, ai->ai_next != NULL))
		return false;
	*optlen = sock_options(fd, o, t);
	return true;
}

/* IPv6: iputils' ping6_run() up to the header; false: try the next. */
static bool prepare6(int fd, struct ping_opts *o, const struct addrinfo *ai,
		     struct ping_target *t)
{
	sock6_resolve(o->target, ai, t);
	if (!sock6_route(fd, o, t, ai->ai_next != NULL))
		return false;
	sock6_options(fd, o, t);
	return true;
}

/*
 * The sockets, the destination and every option, in iputils' order:
 * the addresses of the name are tried in turn while the route probe
 * finds no route to one and there is another.  Those of a family that
 * -4/-6 (or a missing socket) excludes are skipped, and when the last
 * is one of them iputils gives the resolver's "Address family for
 * hostname not supported".
 */
static int prepare(struct ping_opts *o, struct ping_target *t,
		   size_t *optlen)
{
	struct ping_socks s;
	struct addrinfo *res, *ai;
	bool done = false;

	memset(t, 0, sizeof(*t));
	socks_open(o, &s);
	if (o->verbose)
		out_verbose_socket(s.fd4, o->family != AF_INET6, s.fd6,
				   s.tried6, s.family);
	socks_set_tos(&s, o->tos);
	res = socks_resolve(&s, o->target);
	*optlen = 0;
	for (ai = res; ai && !done; ai = ai->ai_next) {
		if (o->verbose)
			out_verbose_target(ai->ai_family, ai->ai_canonname);
		if (s.family != AF_UNSPEC && s.family != ai->ai_family) {
			if (!ai->ai_next)
				error(2, 0, "%s: %s", o->target,
				      gai_strerror(EAI_ADDRFAMILY));
			continue;
		}
		if (ai->ai_family == AF_INET)
			done = prepare4(s.fd4, o, ai, t, optlen);
		else if (ai->ai_family == AF_INET6)
			done = prepare6(s.fd6, o, ai, t);
		else
			error(2, 0, "unknown protocol family: %d",
			      ai->ai_family);
	}
	freeaddrinfo(res);
	return socks_keep(&s, t->family);
}

/* "PING ..." in the family's form. */
static void header(const struct ping_opts *o, const struct ping_target *t,
		   struct namer *names, size_t optlen)
{
	bool from = o->device || o->strict_source;
	char src[NI_MAXHOST];

	if (o->probe.ctype != PROBE_NONE) {
		namer_numeric(&t->dst.sa, src, sizeof(src));
		out_probe_header(t->name, src, t->family == AF_INET6,
				 &o->probe);
		return;
	}
	if (t->family == AF_INET) {
		out_header(t->name, t->dst.v4.sin_addr, from,
			   t->src.v4.sin_addr, o->device, o->datalen, optlen);
		return;
	}
	namer_numeric(&t->src.sa, src, sizeof(src));
	out_header6(t->name, namer_sa(names, &t->dst.sa, true), t->flowlabel,
		    from, src, o->device, o->datalen);
}

int main(int argc, char **argv)
{
	static struct ping_stats st;	/* 8 KiB of duplicate bitmap */
	struct ping_opts o;
	struct ping_target t;
	struct namer names;
	struct rx rx;
	uint8_t *pkt;
	size_t optlen;
	int fd, rc;

	opts_parse(argc, argv, &o);
	pkt = make_request(&o);
	fd = prepare(&o, &t, &optlen);
	/* Probes carry no send time: it is kept by sequence instead. */
	stats_init(&st, o.probe.ctype != PROBE_NONE || echo_timed(o.datalen));
	namer_init(&names, o.numeric || t.numeric);
	rx = (struct rx){ .fd = fd, .o = &o, .t = &t, .st = &st,
			  .names = &names, .sent = pkt + ECHO_HDRLEN,
			  .buflen = (o.datalen < PROBE_MAXLEN ? PROBE_MAXLEN
							      : o.datalen) +
				    REPLY_SLACK,
			  .latency = o.latency };
	rx.buf = xmalloc(rx.buflen);
	header(&o, &t, &names, optlen);
	setup_run(fd, &o, &t);
	rx.interval = o.interval;
	rc = loop_run(&rx, pkt);
	pingsock_close(fd);
	free(rx.buf);
	free(pkt);
	return rc;
}
