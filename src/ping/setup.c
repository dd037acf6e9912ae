/* SPDX-License-Identifier: ISC */
/*
 * setup - see setup.h.
 */
#include "ping/setup.h"

#include <errno.h>
#include <error.h>
#include <limits.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "pingsock.h"

/*
 * -f alone means no interval at all, which only root may have
 * (iputils' MINUSERINTERVAL), and the preload's tokens must fit an int
 * of milliseconds.
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

/*
 * -d and -r, whose failure iputils ignores: SO_DEBUG needs
 * CAP_NET_ADMIN, which a user lacks (EACCES), and SO_DONTROUTE keeps
 * IPv4 requests to destinations on a link of ours (the kernel's IPv6
 * ignores it).
 */
static void debug_dontroute(int fd, const struct ping_opts *o)
{
	int on = 1;

	if (o->so_debug)
		(void)pingsock_setsockopt(fd, SOL_SOCKET, SO_DEBUG, &on,
					  sizeof(on));
	if (o->dontroute)
		(void)pingsock_setsockopt(fd, SOL_SOCKET, SO_DONTROUTE, &on,
					  sizeof(on));
}

/* Receive timestamps (not with -U), then -m. */
static void stamps_mark(int fd, const struct ping_opts *o)
{
	int on = 1;

	/* Nanosecond kernel stamps: the RTT then excludes our own wake-up
	 * (and, through pingsockd, the relay's receive side).  -U wants
	 * the time user space sees: no stamps asked for. */
	if (!o->latency && pingsock_setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS,
					       &on, sizeof(on)))
		error(0, 0, "Warning: no SO_TIMESTAMP support, falling back "
		      "to SIOCGSTAMP");
	sock_set_mark(fd, false, o);
}

/* Never block a send for longer than a second, or the interval when
 * that is shorter (a stalled device must not stall ping). */
static void send_timeout(int fd, int interval)
{
	struct timeval tv = { .tv_sec = 1 };

	if (interval < 1000) {
		int ms = interval < PING_SCHED_MIN ? PING_SCHED_MIN : interval;

		tv.tv_sec = 0;
		tv.tv_usec = 1000L * ms;
	}
	(void)pingsock_setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv,
				  sizeof(tv));
}

/*
 * -C: iputils 20221126 connects the IPv4 socket only, to where its route
 * probe connected (the destination, or the first -T hop, port 1025).
 * After -I ADDRESS, when no probe runs, it passes an address it never
 * filled in (whatever its stack holds: most runs EAFNOSUPPORT, some
 * connect nothing); this ping connects where the probe would have.
 */
static void connect_socket(int fd, const struct ping_target *t)
{
	if (pingsock_connect(fd, (const struct sockaddr *)&t->route_dst,
			     sizeof(t->route_dst)) < 0)
		error(2, errno, "connect failed");
}

void setup_run(int fd, struct ping_opts *o, const struct ping_target *t)
{
	check_interval(o);
	debug_dontroute(fd, o);
	stamps_mark(fd, o);
	send_timeout(fd, o->interval);
	if (o->connect_sk && t->family == AF_INET)
		connect_socket(fd, t);
}
