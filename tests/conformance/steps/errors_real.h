/* SPDX-License-Identifier: ISC */
/*
 * steps/errors_real.h - the steps of errors_real.c and errors6.c, for
 * either family: the errors a real router sends (the router topology):
 * Destination Unreachable from its reject routes, Time Exceeded for a
 * hop limit of 1, Fragmentation Needed (Packet Too Big) from its link of
 * MTU 1280 to the far namespace, and what they do to the socket.
 */
#ifndef STEPS_ERRORS_REAL_H
#define STEPS_ERRORS_REAL_H

#include "../conf.h"

/* A socket with the extended errors and the hop limit of replies on. */
static int errors_recverr_socket(const struct conf_fam *f)
{
	int fd = conf_fsocket(f);

	conf_fset(&f->recverr, fd, 1);
	conf_fset(&f->recvhops, fd, 1);
	return fd;
}

/* The hop limit (TTL) option set to v, printed. */
static void errors_hops(const struct conf_fam *f, int fd, int v)
{
	conf_fset(&f->hops, fd, v);
}

/* An error record read from the queue (request of sent bytes). */
static void errors_errq(const struct conf_fam *f, int fd, size_t room,
			size_t sent)
{
	conf_ferrq(f, "  recvmsg MSG_ERRQUEUE", fd, room, 0, 512, sent);
}

static void errors_so_error(int fd)
{
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
}

/* A route's error with the extended errors on, unconnected. */
static void errors_route_recverr(const struct conf_fam *f, const char *what,
				 const char *dst, uint16_t seq)
{
	int fd;

	out("## %s route, %s on, unconnected", what, f->recverr.label);
	fd = errors_recverr_socket(f);
	conf_fping(f, L("sendto %s", dst), fd, dst, seq, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	errors_errq(f, fd, 1000, 64);
	errors_errq(f, fd, 1000, 64);
	errors_so_error(fd);
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);
}

/* A route's error with the extended errors off, connected: what it
 * does to the next recv, SO_ERROR, poll.  Returns the socket, open. */
static int errors_route_connected(const struct conf_fam *f, const char *what,
				  const char *dst, uint16_t seq)
{
	struct conf_addr a = conf_addr(f, dst, 0, 0);
	int fd = conf_fsocket(f);

	out("## %s route, %s off, connected", what, f->recverr.label);
	TRY(L("connect %s", dst), pingsock_connect(fd, &a.u.sa, a.len));
	conf_fpsend(f, "send", fd, seq, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	/* a hard error fails this send, which then sends nothing; after a
	 * soft one it would cause another error: not sent either way */
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	errors_so_error(fd);
	conf_poll("  poll", fd, POLLIN, 0);
	errors_errq(f, fd, 1000, 64);
	return fd;
}

/* Hop limit 1 to the far host (sequence 700): the router's Time
 * Exceeded, as poll, recv and the error queue see it. */
static void errors_hop1(const struct conf_fam *f, int fd)
{
	errors_hops(f, fd, 1);
	conf_fping(f, L("sendto %s", f->r_far), fd, f->r_far, 700, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	conf_poll("  poll", fd, POLLIN, 0);
	errors_errq(f, fd, 1000, 64);
	errors_errq(f, fd, 1000, 64);
}

/* A 300-byte request (sequence 701): its whole quote. */
static void errors_hop1_300(const struct conf_fam *f, int fd)
{
	conf_fping(f, L("sendto %s 300 bytes", f->r_far), fd, f->r_far, 701,
		   300);
	conf_settle();
	errors_errq(f, fd, 1000, 300);
}

/* Hop limit 2 reaches the far host (seq); closes fd. */
static void errors_hop2(const struct conf_fam *f, int fd, uint16_t seq)
{
	errors_hops(f, fd, 2);
	conf_fping(f, L("sendto %s", f->r_far), fd, f->r_far, seq, 64);
	conf_freply(f, "  reply", fd, 1000, 0, 512, false);
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);
}

/* Hop limit 1 (hop: its name in the title), the extended errors off,
 * connected: a soft error (sequences 710, 711). */
static void errors_hop1_soft(const struct conf_fam *f, const char *hop)
{
	struct conf_addr a = conf_addr(f, f->r_far, 0, 0);
	int fd;

	out("## %s 1, %s off, connected (a soft error)", hop,
	    f->recverr.label);
	fd = conf_fsocket(f);
	errors_hops(f, fd, 1);
	TRY(L("connect %s", f->r_far), pingsock_connect(fd, &a.u.sa, a.len));
	conf_fpsend(f, "send", fd, 710, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_fpsend(f, "send", fd, 711, 64);
	conf_settle();
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
	errors_so_error(fd);
	errors_errq(f, fd, 1000, 64);
	pingsock_close(fd);
}

/* The path MTU discovery mode mode (its name: "DO", ...), printed. */
static void errors_pmtudisc(const struct conf_fam *f, int fd, int mode,
			    const char *name)
{
	const struct conf_opt *o = &f->mtu_discover;

	TRY(L("%s %s_%s", o->label, f->pmtudisc, name),
	    conf_setint(fd, o->level, o->name, mode));
}

/*
 * Path MTU discovery on, big bytes to the far host (sequences 800 to
 * 803): the router's error, the path MTU it leaves (fit bytes fit now;
 * fit_note: why), the local errors after it.
 */
static void errors_too_big(const struct conf_fam *f, size_t big, size_t fit,
			   const char *fit_note)
{
	struct conf_addr far = conf_addr(f, f->r_far, 0, 0);
	char sendto_big[80];
	int fd;

	snprintf(sendto_big, sizeof(sendto_big), "sendto %s %zu bytes",
		 f->r_far, big);
	out("## %s_DO, %zu bytes to %s (the far link's MTU is 1280)",
	    f->pmtudisc, big, f->r_far);
	fd = errors_recverr_socket(f);
	errors_pmtudisc(f, fd, IP_PMTUDISC_DO, "DO");
	conf_fping(f, sendto_big, fd, f->r_far, 800, big);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	errors_errq(f, fd, 2000, big);
	errors_so_error(fd);
	out("# the path MTU is 1280 now: the next one fails at once");
	conf_fping(f, sendto_big, fd, f->r_far, 801, big);
	conf_poll("  poll", fd, POLLIN, 0);
	errors_errq(f, fd, 2000, big);
	errors_errq(f, fd, 2000, big);
	conf_fping(f, L("sendto %s %zu bytes (%s)", f->r_far, fit, fit_note),
		   fd, f->r_far, 802, fit);
	conf_freply(f, "  reply", fd, 2000, 0, 512, false);
	conf_fping(f, L("sendto %s %zu bytes", f->r_far, fit + 1), fd,
		   f->r_far, 803, fit + 1);
	errors_errq(f, fd, 2000, fit + 1);
	TRY(L("connect %s", f->r_far), pingsock_connect(fd, &far.u.sa,
							 far.len));
	conf_fget("  ", &f->mtu, fd);
	pingsock_close(fd);
}

/* With the path MTU known now: big bytes go out fragmented (the default
 * mode, sequence 810; IP_PMTUDISC_DONT, 820). */
static void errors_fragmented(const struct conf_fam *f, size_t big)
{
	int fd;

	out("## %s_WANT (the default), %zu bytes to %s now", f->pmtudisc, big,
	    f->r_far);
	fd = conf_fsocket(f);
	conf_fping(f, L("sendto %s %zu bytes (fragmented)", f->r_far, big), fd,
		   f->r_far, 810, big);
	conf_freply1(f, "  reply", fd, false);
	pingsock_close(fd);

	out("## %s_DONT, %zu bytes to %s now", f->pmtudisc, big, f->r_far);
	fd = conf_fsocket(f);
	errors_pmtudisc(f, fd, IP_PMTUDISC_DONT, "DONT");
	conf_fping(f, L("sendto %s %zu bytes", f->r_far, big), fd, f->r_far,
		   820, big);
	conf_freply1(f, "  reply", fd, false);
	pingsock_close(fd);
}

#endif
