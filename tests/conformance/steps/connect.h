/* SPDX-License-Identifier: ISC */
/*
 * steps/connect.h - the steps of connect.c and connect6.c, for either
 * family: the default destination, names before and after, disconnect,
 * rows of the connect table, shutdown.
 */
#ifndef STEPS_CONNECT_H
#define STEPS_CONNECT_H

#include "../conf.h"

/* Both names of a socket: getsockname (mask) and getpeername. */
static void connect_names(const struct conf_fam *f, int fd, int mask)
{
	conf_fname(f, "getsockname", fd, false, mask);
	conf_fname(f, "getpeername", fd, true, PORT_EXACT);
}

/* connect to ip:port, printed "connect IP:PORT" (port: "IP:PORT"; no
 * port: "IP"). */
static long connect_to(const struct conf_fam *f, int fd, const char *ip,
		       int port, bool show_port)
{
	struct conf_addr a = conf_addr(f, ip, port, 0);

	return TRY(L("connect %s", show_port ? conf_hostport(f, ip, port) : ip),
		   pingsock_connect(fd, &a.u.sa, a.len));
}

/*
 * Connected to the loopback address: sends go there, an explicit address
 * (other) wins; reconnected to port 7, getpeername with short_len bytes
 * of room (sequences 1 to 4).  Returns the socket, open.
 */
static int connect_default(const struct conf_fam *f, const char *other,
			   socklen_t short_len)
{
	uint8_t b[128];
	socklen_t l = short_len;
	int fd;

	out("## connect %s port 0", f->loopback);
	fd = conf_fsocket(f);
	connect_to(f, fd, f->loopback, 0, true);
	connect_names(f, fd, PORT_MASK);
	conf_poll("poll POLLIN|POLLOUT", fd, POLLIN | POLLOUT, 0);
	conf_fpsend(f, "send", fd, 1, 64);
	conf_freply1(f, "reply", fd, false);
	conf_fpsend(f, "send 8 bytes", fd, 2, 8);
	conf_freply1(f, "reply", fd, false);
	conf_fping(f, L("sendto %s (explicit address wins)", other), fd, other,
		   3, 64);
	conf_freply1(f, "reply", fd, false);
	conf_fget("", &f->mtu, fd);
	conf_getint("SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));

	out("## reconnect to %s port 7", f->loopback);
	connect_to(f, fd, f->loopback, 7, true);
	connect_names(f, fd, PORT_MASK);
	memset(b, 0xaa, sizeof(b));
	TRY(L("getpeername addrlen %u", (unsigned)short_len),
	    pingsock_getpeername(fd, SA(b), &l));
	out("  addrlen now %u: %s", (unsigned)l,
	    f->sa(b, short_len, l, PORT_EXACT));
	conf_fpsend(f, "send", fd, 4, 64);
	conf_freply1(f, "reply", fd, false);
	return fd;
}

/* A disconnect (AF_UNSPEC), then sending without a destination
 * (sequence 5) and disconnects with short lengths. */
static void connect_disconnect(const struct conf_fam *f, int fd)
{
	struct sockaddr_storage ss;

	out("## disconnect (AF_UNSPEC)");
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = AF_UNSPEC;
	TRY("connect AF_UNSPEC", pingsock_connect(fd, SA(&ss), sizeof(ss)));
	connect_names(f, fd, PORT_MASK);
	conf_fpsend(f, "send (no destination)", fd, 5, 64);
	conf_fget("", &f->mtu, fd);
	TRY("connect AF_UNSPEC again",
	    pingsock_connect(fd, SA(&ss), sizeof(ss)));
	TRY("connect AF_UNSPEC addrlen 2", pingsock_connect(fd, SA(&ss), 2));
}

/* Bound to bind_ip:port, connected to dst, disconnected: the bound
 * identifier stays. */
static void connect_keeps_bind(const struct conf_fam *f, const char *bind_ip,
			       int port, const char *dst)
{
	struct conf_addr a = conf_addr(f, bind_ip, port, 0);
	struct sockaddr_storage ss;
	int fd = conf_fsocket(f);

	memset(&ss, 0, sizeof(ss));
	TRY(L("bind %s", conf_hostport(f, bind_ip, port)),
	    pingsock_bind(fd, &a.u.sa, a.len));
	connect_to(f, fd, dst, 0, false);
	conf_fname(f, "getsockname", fd, false, PORT_EXACT);
	TRY("connect AF_UNSPEC", pingsock_connect(fd, SA(&ss), sizeof(ss)));
	conf_fname(f, "getsockname", fd, false, PORT_EXACT);
	pingsock_close(fd);
}

/* Connected to the peer: the echo (sequence 7) and the path's MTU. */
static void connect_peer(const struct conf_fam *f)
{
	int fd = conf_fsocket(f);

	out("## connect to the peer");
	connect_to(f, fd, f->peer, 0, false);
	conf_fname(f, "getsockname", fd, false, PORT_MASK);
	conf_fpsend(f, "send", fd, 7, 100);
	conf_freply1(f, "reply", fd, false);
	conf_fget("", &f->mtu, fd);
	pingsock_close(fd);
}

/* A fresh socket, one connect, the names afterwards (and the bound
 * device if dev); closed again. */
static void connect_row(const struct conf_fam *f, const char *what,
			const void *addr, socklen_t len, bool dev)
{
	int fd = conf_fsocket(f);

	TRY(what, pingsock_connect(fd, addr, len));
	conf_fname(f, L("  %s: getsockname", what), fd, false, PORT_MASK);
	conf_fname(f, L("  %s: getpeername", what), fd, true, PORT_EXACT);
	if (dev)
		conf_bound_dev(L("  %s: SO_BINDTOIFINDEX", what), fd);
	pingsock_close(fd);
}

static void connect_rows(const struct conf_fam *f,
			 const struct conf_row *r, size_t n, bool dev)
{
	for (size_t i = 0; i < n; i++) {
		struct conf_addr a = conf_row_addr(f, &r[i]);

		connect_row(f, r[i].what, &a.u, a.len, dev);
	}
}

/* The loopback address with each of n lengths. */
static void connect_lengths(const struct conf_fam *f, const char *const *what,
			    const socklen_t *len, size_t n, bool dev)
{
	struct conf_addr a = conf_addr(f, f->loopback, 0, 0);

	out("## the rows (fresh socket each)");
	for (size_t i = 0; i < n; i++)
		connect_row(f, what[i], &a.u, len[i], dev);
}

/* An unknown family, and AF_UNSPEC on a fresh socket. */
static void connect_families(const struct conf_fam *f, bool dev)
{
	struct conf_addr a = conf_addr(f, f->loopback, 0, 0);
	struct sockaddr_storage ss;

	a.u.sa.sa_family = 99;
	connect_row(f, "family 99", &a.u, a.len, dev);
	memset(&ss, 0, sizeof(ss));
	connect_row(f, "AF_UNSPEC on a fresh socket", &ss, sizeof(ss), dev);
}

/* Connected to the loopback address: shutdown SHUT_RD and SHUT_WR, and
 * a send after it (seq).  Returns the socket, open. */
static int connect_shutdown(const struct conf_fam *f, uint16_t seq)
{
	int fd = conf_fsocket(f);

	out("## shutdown");
	connect_to(f, fd, f->loopback, 0, false);
	TRY("shutdown SHUT_RD", pingsock_shutdown(fd, SHUT_RD));
	conf_poll("poll POLLIN", fd, POLLIN, 0);
	TRY("recv MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 100,
					       MSG_DONTWAIT));
	TRY("shutdown SHUT_WR", pingsock_shutdown(fd, SHUT_WR));
	conf_poll("poll POLLIN|POLLOUT", fd, POLLIN | POLLOUT, 0);
	conf_fpsend(f, "send after SHUT_WR", fd, seq, 64);
	return fd;
}

#endif
