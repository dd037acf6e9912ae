/* SPDX-License-Identifier: ISC */
/*
 * exec: a ping socket that is not close-on-exec survives exec, as any
 * descriptor does: the program exec'd (this one again, in its "child"
 * mode, with the descriptor numbers in argv) sends, receives, polls,
 * reads the name of and closes the sockets it got, IPv4 and IPv6; the
 * parent's copies work on after it.  And a program's own socketpairs
 * (SOCK_SEQPACKET, which a relayed socket's descriptor also is, and
 * SOCK_DGRAM) that cross the same exec are left alone: what was queued
 * on them is read intact on the other side of the exec, and nothing
 * else was written on them.
 */
#include "conf.h"

#include <stdlib.h>

static int child_status(pid_t pid)
{
	int st = 0;

	if (waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The socket's identifier (its port), or -1. */
static int ident_of(int fd)
{
	struct sockaddr_in6 a;
	socklen_t len = sizeof(a);

	memset(&a, 0, sizeof(a));
	if (pingsock_getsockname(fd, SA(&a), &len) < 0)
		return -1;
	return ntohs(a.sin6_family == AF_INET6 ? a.sin6_port
			: ((struct sockaddr_in *)&a)->sin_port);
}

/* What is queued on the program's own socketpair end: one message. */
static void pair_read(const char *what, int fd)
{
	char b[64];
	ssize_t n = recv(fd, b, sizeof(b) - 1, MSG_DONTWAIT);
	int e = errno;

	if (n < 0) {
		out("%s: -1 %s", what, conf_errname(e));
		return;
	}
	b[n] = 0;
	out("%s: %zd \"%s\"", what, n, b);
}

static int child(char **argv)
{
	int fd4 = atoi(argv[2]), fd6 = atoi(argv[3]);
	int sp = atoi(argv[4]), dp = atoi(argv[5]);

	out("## the exec'd program");
	out("child: same identifier (IPv4): %d", ident_of(fd4) == atoi(argv[6]));
	out("child: same identifier (IPv6): %d", ident_of(fd6) == atoi(argv[7]));
	conf_name("child: getsockname", fd4, false, PORT_MASK);
	conf_name6("child: getsockname6", fd6, false, PORT_MASK);
	conf_getint("child: SO_TYPE", fd4, SOL_SOCKET, SO_TYPE, sizeof(int));
	conf_getint("child: SO_PROTOCOL (IPv6)", fd6, SOL_SOCKET, SO_PROTOCOL,
		    sizeof(int));
	conf_poll("child: poll, nothing queued", fd4, POLLIN, 0);
	conf_ping("child: sendto seq 2", fd4, "127.0.0.1", 2, 64);
	conf_poll("child: poll", fd4, POLLIN, CONF_WAIT_MS);
	conf_reply1("child: reply", fd4, false);
	conf_ping6("child: sendto6 seq 2", fd6, "::1", 2, 64);
	conf_reply6_1("child: reply6", fd6, false);
	conf_ping("child: sendto seq 3 (the parent reads)", fd4, "127.0.0.1",
		  3, 64);
	pair_read("child: its seqpacket pair", sp);
	pair_read("child: its dgram pair", dp);
	pair_read("child: its seqpacket pair again", sp);
	TRY("child: close", pingsock_close(fd4));
	TRY("child: close6", pingsock_close(fd6));
	return 0;
}

static void parent(int fd4, int fd6, int *sp, int *dp)
{
	char a[8][16];
	pid_t pid;

	snprintf(a[0], sizeof(a[0]), "%d", fd4);
	snprintf(a[1], sizeof(a[1]), "%d", fd6);
	snprintf(a[2], sizeof(a[2]), "%d", sp[1]);
	snprintf(a[3], sizeof(a[3]), "%d", dp[1]);
	snprintf(a[4], sizeof(a[4]), "%d", ident_of(fd4));
	snprintf(a[5], sizeof(a[5]), "%d", ident_of(fd6));
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", "exec", "child", a[0], a[1], a[2],
		      a[3], a[4], a[5], (char *)NULL);
		_exit(127);
	}
	out("child exited %d", child_status(pid));
}

int main(int argc, char **argv)
{
	int fd4, fd6, sp[2], dp[2];

	if (argc == 8 && strcmp(argv[1], "child") == 0)
		return child(argv);
	conf_begin("exec");
	fd4 = conf_socket();
	fd6 = conf_socket6();
	out("FD_CLOEXEC: %d %d", fcntl(fd4, F_GETFD) & FD_CLOEXEC,
	    fcntl(fd6, F_GETFD) & FD_CLOEXEC);
	if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp) ||
	    socketpair(AF_UNIX, SOCK_DGRAM, 0, dp)) {
		out("socketpair failed");
		return 2;
	}
	TRY("queue on the seqpacket pair", send(sp[0], "seqpacket", 9, 0));
	TRY("queue on the dgram pair", send(dp[0], "dgram", 5, 0));
	conf_ping("parent: sendto seq 1", fd4, "127.0.0.1", 1, 64);
	conf_reply1("parent: reply", fd4, false);
	conf_ping6("parent: sendto6 seq 1", fd6, "::1", 1, 64);
	conf_reply6_1("parent: reply6", fd6, false);

	out("## fork and exec");
	parent(fd4, fd6, sp, dp);

	out("## the parent's copies after the child closed its own");
	conf_reply1("parent: reply (the child's seq 3)", fd4, false);
	conf_ping("parent: sendto seq 4", fd4, "127.0.0.1", 4, 64);
	conf_reply1("parent: reply", fd4, false);
	conf_ping6("parent: sendto6 seq 4", fd6, "::1", 4, 64);
	conf_reply6_1("parent: reply6", fd6, false);
	conf_quiet("parent", fd4, 100);
	conf_quiet6("parent", fd6, 100);
	pair_read("parent: written on its seqpacket pair", sp[0]);
	pair_read("parent: written on its dgram pair", dp[0]);
	return 0;
}
