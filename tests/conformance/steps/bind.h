/* SPDX-License-Identifier: ISC */
/*
 * steps/bind.h - the steps of bind.c and bind6.c, for either family:
 * rows of the bind table (each on a fresh socket, with the name it
 * leaves), the identifier's life cycle, what the bound address does to
 * sending.
 */
#ifndef STEPS_BIND_H
#define STEPS_BIND_H

#include "../conf.h"

/*
 * A fresh socket, one bind, the resulting name; closed again.  The port
 * is printed exactly with PORT_EXACT.
 */
static void bind_row(const struct conf_fam *f, const char *what,
		     const void *addr, socklen_t len, int mask)
{
	int fd = conf_fsocket(f);

	TRY(what, pingsock_bind(fd, addr, len));
	conf_fname(f, L("  %s: getsockname", what), fd, false, mask);
	pingsock_close(fd);
}

/* The rows r; the port is printed exactly when one was asked for. */
static void bind_rows(const struct conf_fam *f, const struct conf_row *r,
		      size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct conf_addr a = conf_row_addr(f, &r[i]);

		bind_row(f, r[i].what, &a.u, a.len,
			 r[i].port ? PORT_EXACT : PORT_MASK);
	}
}

/* The loopback address with each of n lengths, none at all, a
 * sockaddr_storage's 128 and one more. */
static void bind_lengths(const struct conf_fam *f, const char *const *what,
			 const socklen_t *len, size_t n)
{
	struct conf_addr a = conf_addr(f, f->loopback, 0, 0);

	for (size_t i = 0; i < n; i++)
		bind_row(f, what[i], &a.u, len[i], PORT_MASK);
	bind_row(f, "NULL addr, addrlen 0", NULL, 0, PORT_MASK);
	bind_row(f, "addrlen 128 (sockaddr_storage)", &a.u, sizeof(a.u.ss),
		 PORT_MASK);
	bind_row(f, "addrlen 129", &a.u, 129, PORT_MASK);
}

/* bind, printed "WHAT IP:PORT". */
static long bind_to(const struct conf_fam *f, const char *what, int fd,
		    const char *ip, int port)
{
	struct conf_addr a = conf_addr(f, ip, port, 0);

	return TRY(L("%s %s", what, conf_hostport(f, ip, port)),
		   pingsock_bind(fd, &a.u.sa, a.len));
}

/* Bound to the loopback address and port, then to port2 and again to
 * port.  Returns the socket, open. */
static int bind_rebind(const struct conf_fam *f, int port, int port2)
{
	struct conf_addr a = conf_addr(f, f->loopback, port, 0);
	int fd;

	out("## %s, rebind, a second socket, close",
	    conf_hostport(f, f->loopback, port));
	fd = conf_fsocket(f);
	bind_to(f, "bind", fd, f->loopback, port);
	conf_fname(f, "getsockname", fd, false, PORT_EXACT);
	conf_fname(f, "getpeername", fd, true, PORT_EXACT);
	bind_to(f, "bind again", fd, f->loopback, port2);
	TRY("bind again, same address", pingsock_bind(fd, &a.u.sa, a.len));
	return fd;
}

/* The bound socket still works (sequence 11); after its close another
 * may bind its address. */
static void bind_after_close(const struct conf_fam *f, int fd, int port)
{
	conf_fping(f, L("bound socket: sendto %s", f->loopback), fd,
		   f->loopback, 11, 64);
	conf_freply1(f, "bound socket: reply", fd, true);
	TRY("close", pingsock_close(fd));
	fd = conf_fsocket(f);
	bind_to(f, "after close: bind", fd, f->loopback, port);
	conf_fname(f, "getsockname", fd, false, PORT_EXACT);
	pingsock_close(fd);
}

/*
 * bind after a sendto (sequence 12) bound an identifier (the name
 * printed before too if name_before), and after a connect.
 */
static void bind_after_ident(const struct conf_fam *f, int port,
			     bool name_before)
{
	struct conf_addr a = conf_addr(f, f->loopback, 0, 0);
	int fd;

	out("## bind after the socket got an identifier");
	fd = conf_fsocket(f);
	conf_fping(f, L("sendto %s (auto-binds)", f->loopback), fd,
		   f->loopback, 12, 64);
	conf_freply1(f, "reply", fd, false);
	if (name_before)
		conf_fname(f, "getsockname", fd, false, PORT_MASK);
	a = conf_addr(f, f->loopback, port, 0);
	TRY("bind after sendto", pingsock_bind(fd, &a.u.sa, a.len));
	conf_fname(f, "getsockname", fd, false, PORT_MASK);
	pingsock_close(fd);
	fd = conf_fsocket(f);
	a = conf_addr(f, f->loopback, 0, 0);
	TRY(L("connect %s", f->loopback), pingsock_connect(fd, &a.u.sa, a.len));
	a = conf_addr(f, f->loopback, port + 1, 0);
	TRY("bind after connect", pingsock_bind(fd, &a.u.sa, a.len));
	conf_fname(f, "getsockname", fd, false, PORT_MASK);
	pingsock_close(fd);
}

/*
 * Bound to the local address (port), echoes to the loopback address
 * (sequence 13) and the peer (14) come back; bound to the loopback
 * address (port + 1), one to the peer (15) does not.
 */
static void bind_sending(const struct conf_fam *f, int port)
{
	int fd;

	out("## what the bound address does to sending");
	fd = conf_fsocket(f);
	bind_to(f, "bind", fd, f->local, port);
	conf_fping(f, L("sendto %s", f->loopback), fd, f->loopback, 13, 64);
	conf_freply1(f, "reply", fd, true);
	conf_fping(f, L("sendto %s", f->peer), fd, f->peer, 14, 64);
	conf_freply1(f, "reply", fd, true);
	pingsock_close(fd);
	fd = conf_fsocket(f);
	bind_to(f, "bind", fd, f->loopback, port + 1);
	conf_fping(f, L("sendto %s from %s", f->peer, f->loopback), fd,
		   f->peer, 15, 64);
	conf_fquiet(f, "after it", fd, 300);
	pingsock_close(fd);
}

#endif
