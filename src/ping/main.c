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
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "ping/echo.h"
#include "ping/loop.h"
#include "ping/names.h"
#include "ping/opts.h"
#include "ping/output.h"
#include "ping/rx.h"
#include "ping/sock.h"
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
	uint8_t *pkt = xmalloc(ECHO_HDRLEN + o->datalen);

	echo_fill(pkt + ECHO_HDRLEN, o->datalen, o->pattern, o->pattern_len,
		  o->have_pattern);
	if (o->have_pattern && !o->quiet)
		out_pattern(o->pattern, o->pattern_len);
	return pkt;
}

/*
 * iputils' setup(), after the header: -f alone means no interval at all,
 * which only root may have (MINUSERINTERVAL), and the preload's tokens
 * must fit an int of milliseconds.
 */
static void check_interval(struct ping_opts *o)
{
	if (o->flood && !o->interval_given)
		o->interval = 0;
	if (getuid() != 0 && o->interval < PING_MIN_USER_INTERVAL)
		error(2, 0, "cannot flood; minimal interval allowed for user "
		      "is %dms", PING_MIN_USER_INTERVAL);
	if (o->interval >= INT_MAX / o->preload)
		error(2, 0, "illegal preload and/or interval: %d",
		      o->interval);
}

/* The socket, the destination and every option, in iputils' order. */
static int prepare(struct ping_opts *o, struct ping_target *t,
		   size_t *optlen)
{
	int fd = sock_open();

	if (o->verbose)
		out_verbose_socket(fd);
	if (o->tos)
		sock_set_tos(fd, o->tos);
	sock_resolve(o->target, t);
	if (o->verbose)
		out_verbose_target(t->name);
	opts_check_targets(o);
	sock_resolve_hops(o, t);
	sock_route(fd, o, t);
	*optlen = sock_options(fd, o, t);
	return fd;
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
	stats_init(&st, echo_timed(o.datalen));
	namer_init(&names, o.numeric || t.numeric);
	rx = (struct rx){ .fd = fd, .o = &o, .t = &t, .st = &st,
			  .names = &names, .sent = pkt + ECHO_HDRLEN,
			  .buflen = o.datalen + REPLY_SLACK,
			  .latency = o.latency };
	rx.buf = xmalloc(rx.buflen);
	out_header(t.name, t.dst.sin_addr, o.device || o.strict_source,
		   t.src.sin_addr, o.device, o.datalen, optlen);
	check_interval(&o);
	(void)sock_timing(fd, o.interval, o.latency);
	rc = loop_run(&rx, pkt);
	pingsock_close(fd);
	free(rx.buf);
	free(pkt);
	return rc;
}
