/* SPDX-License-Identifier: ISC */
/*
 * steps/demux.h - the steps of demux.c and demux6.c, for either family:
 * replies reach the socket whose identifier they carry, and only that
 * one; the bound address and device filter them.
 */
#ifndef STEPS_DEMUX_H
#define STEPS_DEMUX_H

#include "../conf.h"

/* bind to ip:port, printed "WHO: bind IP:PORT". */
static void demux_bind(const struct conf_fam *f, const char *who, int fd,
		       const char *ip, int port)
{
	struct conf_addr a = conf_addr(f, ip, port, 0);

	TRY(L("%s: bind %s", who, conf_hostport(f, ip, port)),
	    pingsock_bind(fd, &a.u.sa, a.len));
}

/*
 * A and B bound explicitly to port and port + 1 (sequences 1 to 3; A's
 * second to third_dst), then a third socket with an automatic identifier
 * beside them (4 to 6): each gets its own replies only.
 */
static void demux_bound(const struct conf_fam *f, int port,
			const char *third_dst)
{
	int a = conf_fsocket(f), b = conf_fsocket(f), c;

	out("## two explicitly bound identifiers");
	demux_bind(f, "A", a, f->any, port);
	demux_bind(f, "B", b, f->any, port + 1);
	conf_fping(f, "A: sendto seq 1", a, f->loopback, 1, 64);
	conf_fping(f, "B: sendto seq 2", b, f->loopback, 2, 80);
	conf_fping(f, "A: sendto seq 3", a, third_dst, 3, 64);
	conf_freply1(f, "A: reply", a, true);
	conf_freply1(f, "A: reply", a, true);
	conf_freply1(f, "B: reply", b, true);
	conf_fquiet(f, "A", a, 300);
	conf_fquiet(f, "B", b, 0);

	out("## a third socket sees nothing of theirs");
	c = conf_fsocket(f);
	conf_fping(f, "C: sendto seq 4 (auto identifier)", c, f->loopback, 4,
		   64);
	conf_fping(f, "A: sendto seq 5", a, f->loopback, 5, 64);
	conf_fping(f, "B: sendto seq 6", b, f->peer, 6, 64);
	conf_freply1(f, "C: reply", c, false);
	conf_freply1(f, "A: reply", a, true);
	conf_freply1(f, "B: reply", b, true);
	out("  C's identifier differs from A's and B's: %s",
	    conf_ident(c) != (unsigned)port &&
	    conf_ident(c) != (unsigned)port + 1 ? "yes" : "no");
	conf_fquiet(f, "A", a, 300);
	conf_fquiet(f, "B", b, 0);
	conf_fquiet(f, "C", c, 0);
	pingsock_close(a);
	pingsock_close(b);
	pingsock_close(c);
}

/* Two sockets with automatic identifiers (sequences 7, 8); both stay
 * open. */
static void demux_auto(const struct conf_fam *f, int *a, int *b)
{
	out("## automatic identifiers");
	*a = conf_fsocket(f);
	*b = conf_fsocket(f);
	conf_fping(f, "A: sendto seq 7", *a, f->loopback, 7, 64);
	conf_fping(f, "B: sendto seq 8", *b, f->loopback, 8, 64);
	out("  identifiers differ: %s",
	    conf_ident(*a) != conf_ident(*b) ? "yes" : "no");
	conf_freply1(f, "B: reply", *b, false);
	conf_freply1(f, "A: reply", *a, false);
	conf_fquiet(f, "A", *a, 300);
	conf_fquiet(f, "B", *b, 0);
}

/* Bound to the loopback address and port: its own echo (seq) comes
 * back.  Returns the socket, open. */
static int demux_bound_loopback(const struct conf_fam *f, int port,
				uint16_t seq)
{
	int a;

	out("## bound address filters replies");
	a = conf_fsocket(f);
	demux_bind(f, "A", a, f->loopback, port);
	conf_fping(f, L("A: sendto %s", f->loopback), a, f->loopback, seq,
		   64);
	conf_freply1(f, "A: reply", a, true);
	return a;
}

/* Bound to the local address and port: echoes to the peer (seq) and to
 * the loopback address (seq + 1). */
static void demux_bound_local(const struct conf_fam *f, int port,
			      uint16_t seq)
{
	int a = conf_fsocket(f);

	demux_bind(f, "A", a, f->local, port);
	conf_fping(f, L("A: sendto %s", f->peer), a, f->peer, seq, 64);
	conf_freply1(f, "A: reply", a, true);
	conf_fping(f, L("A: sendto %s", f->loopback), a, f->loopback,
		   (uint16_t)(seq + 1), 64);
	conf_freply1(f, "A: reply", a, true);
	conf_fquiet(f, "A", a, 300);
	pingsock_close(a);
}

/* Bound to lo: the loopback address answers (seq), the peer (seq + 1)
 * not, within ms. */
static void demux_device_lo(const struct conf_fam *f, uint16_t seq, int ms)
{
	int a;

	out("## bound device filters replies");
	a = conf_fsocket(f);
	TRY("A: SO_BINDTODEVICE lo", pingsock_setsockopt(a, SOL_SOCKET,
							 SO_BINDTODEVICE, "lo",
							 3));
	conf_fping(f, L("A: sendto %s", f->loopback), a, f->loopback, seq, 64);
	conf_freply1(f, "A: reply", a, false);
	conf_fping(f, L("A: sendto %s (bound to lo)", f->peer), a, f->peer,
		   (uint16_t)(seq + 1), 64);
	conf_fquiet(f, "A", a, ms);
	pingsock_close(a);
}

#endif
