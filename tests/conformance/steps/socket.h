/* SPDX-License-Identifier: ISC */
/*
 * steps/socket.h - the steps of socket.c and socket6.c, for either
 * family: creating ping sockets (types, protocols, flags) and what the
 * new socket says about itself.
 */
#ifndef STEPS_SOCKET_H
#define STEPS_SOCKET_H

#include "../conf.h"

/* One socket() call that may or may not make a socket. */
struct socket_kind {
	const char *what;
	int domain, type, proto;
};

/*
 * The socket itself: what socket() returns and SO_TYPE, SO_PROTOCOL,
 * SO_DOMAIN, SO_ACCEPTCONN.  Returns the socket; without one the case
 * ends here.
 */
static int socket_itself(const struct conf_fam *f)
{
	int fd;

	out("## the socket itself");
	fd = TRYQ(L("socket(%s, SOCK_DGRAM, %s)", f->af_name, f->proto_name),
		  pingsock_socket(f->af, SOCK_DGRAM, f->proto));
	if (fd < 0) {
		fprintf(stderr, "%s\n", pingsock_why());
		exit(2);
	}
	out("pingsock_backend: %s", pingsock_backend(fd) ? "a pingsock socket"
							 : "NONE");
	conf_getint("SO_TYPE", fd, SOL_SOCKET, SO_TYPE, sizeof(int));
	conf_getint("SO_PROTOCOL", fd, SOL_SOCKET, SO_PROTOCOL, sizeof(int));
	conf_getint("SO_DOMAIN", fd, SOL_SOCKET, SO_DOMAIN, sizeof(int));
	conf_getint("SO_ACCEPTCONN", fd, SOL_SOCKET, SO_ACCEPTCONN,
		    sizeof(int));
	return fd;
}

static void socket_close_twice(int fd)
{
	TRY("close", pingsock_close(fd));
	TRY("close again", pingsock_close(fd));
}

/* A socket of type (with flags): its file flags as made. */
static void socket_flags_of(const struct conf_fam *f, const char *what,
			    int type)
{
	int fd, fl, fdfl, e;

	fd = pingsock_socket(f->af, type, f->proto);
	e = errno;
	if (fd < 0) {
		out("%s: -1 %s", what, conf_errname(e));
		return;
	}
	fl = fcntl(fd, F_GETFL);
	fdfl = fcntl(fd, F_GETFD);
	out("%s: ok O_NONBLOCK=%d FD_CLOEXEC=%d O_RDWR=%d", what,
	    !!(fl & O_NONBLOCK), !!(fdfl & FD_CLOEXEC),
	    (fl & O_ACCMODE) == O_RDWR);
	TRY(L("%s: close", what), pingsock_close(fd));
}

static void socket_flags(const struct conf_fam *f)
{
	out("## flags");
	socket_flags_of(f, "SOCK_DGRAM", SOCK_DGRAM);
	socket_flags_of(f, "SOCK_DGRAM|SOCK_NONBLOCK",
			SOCK_DGRAM | SOCK_NONBLOCK);
	socket_flags_of(f, "SOCK_DGRAM|SOCK_CLOEXEC",
			SOCK_DGRAM | SOCK_CLOEXEC);
	socket_flags_of(f, "SOCK_DGRAM|SOCK_NONBLOCK|SOCK_CLOEXEC",
			SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC);
	socket_flags_of(f, "SOCK_DGRAM|0x10 (bad flag)", SOCK_DGRAM | 0x10);
}

/* Other kinds of socket: each call, and the socket closed if made. */
static void socket_kinds(const struct socket_kind *k, size_t n)
{
	out("## other kinds");
	for (size_t i = 0; i < n; i++) {
		int fd = TRYQ(k[i].what, pingsock_socket(k[i].domain,
							 k[i].type,
							 k[i].proto));

		if (fd >= 0)
			pingsock_close(fd);
	}
}

#endif
