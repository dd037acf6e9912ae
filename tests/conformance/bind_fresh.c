/* SPDX-License-Identifier: ISC */
/*
 * bind_fresh: what a socket carries into its first bind().  Before the
 * bind: a dup() of it, an epoll registration of each copy, O_NONBLOCK and
 * FD_CLOEXEC, an option (the hop limit).  After it, all of that is as it
 * was, on both copies: the name, the option, the flags, epoll's events,
 * the replies.  IPv4 and IPv6.  (Socket filters and group memberships:
 * bind_fresh_filter.)
 *
 * pingsockd's broker mode hands out its sockets bound already, and a
 * bind before first use gets a new socket in place of the old one
 * (pingsockd(8), BROKER MODE): this is the case that it must not show.
 * What it cannot reach is a copy in another process (the forked child's
 * line; broker-differences.sed).
 */
#include "conf.h"

#include <sys/epoll.h>

#define PORT 40123

static void flags_show(const char *who, int fd)
{
	int fl = fcntl(fd, F_GETFL), fdfl = fcntl(fd, F_GETFD);

	out("%s: O_NONBLOCK %d, FD_CLOEXEC %d", who, !!(fl & O_NONBLOCK),
	    !!(fdfl & FD_CLOEXEC));
}

/* What one epoll_wait reports, in the order of the registrations' data
 * (the kernel's order is its own). */
static void epoll_show(const char *what, int ep, int ms)
{
	struct epoll_event ev[4];
	int n = epoll_wait(ep, ev, 4, ms);
	char b[128] = "";
	size_t o = 0;

	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (ev[j].data.u64 < ev[i].data.u64) {
				struct epoll_event t = ev[i];

				ev[i] = ev[j];
				ev[j] = t;
			}
	for (int i = 0; i < n && o < sizeof(b) - 32; i++)
		o += (size_t)snprintf(b + o, sizeof(b) - o, " [%llu %s]",
				      (unsigned long long)ev[i].data.u64,
				      conf_revents((int)ev[i].events));
	out("%s: %d%s", what, n, b);
}

/* A copy in another process: a child forked before the bind reads the
 * name of its copy once the parent has bound. */
static pid_t child_start(int fd, int go[2], int port)
{
	pid_t pid;
	char c;

	if (pipe(go) < 0)
		return -1;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		if (read(go[0], &c, 1) == 1)
			out("forked child: its copy has the bound identifier: %s",
			    conf_ident(fd) == (unsigned)port ? "yes" : "no");
		_exit(0);
	}
	close(go[0]);
	return pid;
}

static void child_finish(pid_t pid, int go[2])
{
	int st;

	if (write(go[1], "g", 1) != 1)
		out("child: write failed");
	close(go[1]);
	if (pid > 0)
		waitpid(pid, &st, 0);
}

static void prepare(const struct conf_fam *f, int fd, int d, int ep)
{
	struct epoll_event e = { .events = EPOLLIN };
	int fl = fcntl(fd, F_GETFL);

	e.data.u64 = 1;
	TRY("epoll_ctl ADD the socket", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e));
	e.data.u64 = 2;
	TRY("epoll_ctl ADD the dup", epoll_ctl(ep, EPOLL_CTL_ADD, d, &e));
	TRY("fcntl O_NONBLOCK", fcntl(fd, F_SETFL, fl | O_NONBLOCK));
	TRY("fcntl FD_CLOEXEC", fcntl(fd, F_SETFD, FD_CLOEXEC));
	conf_fset(&f->hops, fd, 7);
}

static void after(const struct conf_fam *f, int fd, int d, int ep)
{
	conf_fname(f, "getsockname (socket)", fd, false, PORT_EXACT);
	conf_fname(f, "getsockname (dup)", d, false, PORT_EXACT);
	flags_show("socket", fd);
	flags_show("dup", d);
	conf_fget("dup ", &f->hops, d);
	epoll_show("epoll_wait, nothing sent", ep, 100);
	conf_fping(f, "echo on the dup", d, f->loopback, 1, 64);
	epoll_show("epoll_wait, a reply queued", ep, CONF_WAIT_MS);
	conf_freply1(f, "reply on the socket", fd, false);
	conf_fping(f, "echo on the socket", fd, f->loopback, 2, 64);
	conf_freply1(f, "reply on the dup", d, false);
	conf_fquiet(f, "socket", fd, 200);
	epoll_show("epoll_wait, all read", ep, 100);
}

static void run(const struct conf_fam *f)
{
	struct conf_addr a = conf_addr(f, f->loopback, PORT, 0);
	int fd = conf_fsocket(f), d = dup(fd), go[2];
	int ep = epoll_create1(EPOLL_CLOEXEC);
	pid_t pid;

	out("## %s", f->af_name);
	out("dup: %s", d >= 0 ? "ok" : "failed");
	prepare(f, fd, d, ep);
	pid = child_start(fd, go, PORT);
	TRY(L("bind %s", conf_hostport(f, f->loopback, PORT)),
	    pingsock_bind(fd, &a.u.sa, a.len));
	child_finish(pid, go);
	after(f, fd, d, ep);
	TRY("close dup", pingsock_close(d));
	TRY("close socket", pingsock_close(fd));
	close(ep);
}

/* A socket alone (no copy keeps the socket it had before the bind alive),
 * in two epolls, one of them edge-triggered and one-shot. */
static void alone(const struct conf_fam *f)
{
	struct conf_addr a = conf_addr(f, f->loopback, PORT + 1, 0);
	struct epoll_event e = { .events = EPOLLIN };
	int fd = conf_fsocket(f), ep = epoll_create1(0), ep2 = epoll_create1(0);

	out("## %s, a socket alone", f->af_name);
	e.data.u64 = 3;
	TRY("epoll_ctl ADD", epoll_ctl(ep, EPOLL_CTL_ADD, fd, &e));
	e.events = EPOLLIN | EPOLLET | EPOLLONESHOT;
	e.data.u64 = 4;
	TRY("epoll_ctl ADD (ET, one-shot)",
	    epoll_ctl(ep2, EPOLL_CTL_ADD, fd, &e));
	e.events = EPOLLIN | EPOLLOUT | EPOLLET | EPOLLONESHOT;
	e.data.u64 = 5;
	TRY("epoll_ctl MOD (ET, one-shot, EPOLLOUT)",
	    epoll_ctl(ep2, EPOLL_CTL_MOD, fd, &e));
	TRY(L("bind %s", conf_hostport(f, f->loopback, PORT + 1)),
	    pingsock_bind(fd, &a.u.sa, a.len));
	epoll_show("epoll_wait, nothing sent", ep, 100);
	conf_fping(f, "echo", fd, f->loopback, 1, 64);
	epoll_show("epoll_wait, a reply queued", ep, CONF_WAIT_MS);
	epoll_show("second epoll", ep2, CONF_WAIT_MS);
	epoll_show("second epoll again (one-shot)", ep2, 100);
	conf_freply1(f, "reply", fd, false);
	TRY("epoll_ctl DEL", epoll_ctl(ep, EPOLL_CTL_DEL, fd, NULL));
	TRY("close", pingsock_close(fd));
	close(ep);
	close(ep2);
}

int main(void)
{
	conf_begin("bind_fresh");
	run(&conf_v4);
	run(&conf_v6);
	alone(&conf_v4);
	alone(&conf_v6);
	return 0;
}
