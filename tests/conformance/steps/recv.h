/* SPDX-License-Identifier: ISC */
/*
 * steps/recv.h - the steps of recv.c and recv6.c, for either family:
 * the reply as returned, short buffers, PEEK and TRUNC, waiting
 * (nonblocking, SO_RCVTIMEO), poll readiness.  What only one family
 * checks stays in its case.
 */
#ifndef STEPS_RECV_H
#define STEPS_RECV_H

#include "../conf.h"

/* A case's family, and what it checks beyond what both do. */
struct recv_case {
	const struct conf_fam *f;
	bool plain_poll;	/* libc's poll() too, beside pingsock_poll */
	bool more_waits;	/* the waits of recvmsg and recvfrom too */
};

/* One recvmsg (room bytes, ctllen of control buffer), printed. */
static void recv_show(const struct conf_fam *f, const char *what, int fd,
		      size_t room, int flags, size_t ctllen)
{
	struct conf_rx rx;

	conf_recvmsg(fd, room, flags, ctllen, &rx);
	conf_fshow_rx(f, what, fd, &rx, room, false);
}

/* Queue a reply (sequence seq, 64 bytes) and wait for it. */
static void recv_queue(const struct conf_fam *f, int fd, uint16_t seq)
{
	conf_fping(f, L("sendto seq %u", seq), fd, f->loopback, seq, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
}

/* A fresh socket with a reply queued. */
static int recv_fresh(const struct conf_fam *f, uint16_t seq)
{
	int fd = conf_fsocket(f);

	recv_queue(f, fd, seq);
	return fd;
}

/* libc's poll() on a pingsock socket, if the case checks it. */
static void recv_plain_poll(const struct recv_case *c, const char *what,
			    int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r, e;

	if (!c->plain_poll)
		return;
	r = poll(&p, 1, 0);
	e = errno;
	if (r < 0)
		out("%s: -1 %s", what, conf_errname(e));
	else
		out("%s: %d revents=%s", what, r, conf_revents(p.revents));
}

/* The reply to sequence 1, and poll around it; the socket stays open. */
static int recv_reply(const struct recv_case *c)
{
	const struct conf_fam *f = c->f;
	int fd;

	out("## the reply, recvmsg");
	fd = conf_fsocket(f);
	conf_poll("poll before sending", fd, POLLIN, 0);
	recv_plain_poll(c, "plain poll before sending", fd);
	conf_fping(f, L("sendto %s seq 1 64 bytes", f->loopback), fd,
		   f->loopback, 1, 64);
	conf_poll("poll after the reply", fd, POLLIN, CONF_WAIT_MS);
	recv_plain_poll(c, "plain poll", fd);
	conf_poll("poll POLLIN|POLLOUT", fd, POLLIN | POLLOUT, 0);
	conf_freply(f, "recvmsg", fd, 1000, 0, 0, false);
	conf_poll("poll after reading", fd, POLLIN, 0);
	recv_plain_poll(c, "plain poll after reading", fd);
	TRY("recv MSG_DONTWAIT (nothing)",
	    pingsock_recv(fd, conf_rbuf, 1000, MSG_DONTWAIT));
	return fd;
}

/* recvfrom without an address, then recv (seq, seq + 1); closes fd. */
static void recv_noname(const struct conf_fam *f, int fd, uint16_t seq)
{
	long r;

	recv_queue(f, fd, seq);
	r = TRY("recvfrom, NULL address",
		pingsock_recvfrom(fd, conf_rbuf, 1000, 0, NULL, NULL));
	if (r > 0)
		conf_ficmp(f, "  data", fd, conf_rbuf, (size_t)r, (size_t)r,
			   &in6addr_loopback, false);
	recv_queue(f, fd, (uint16_t)(seq + 1));
	r = TRY("recv", pingsock_recv(fd, conf_rbuf, 1000, 0));
	if (r > 0)
		conf_ficmp(f, "  data", fd, conf_rbuf, (size_t)r, (size_t)r,
			   &in6addr_loopback, false);
	pingsock_close(fd);
}

static void recv_two_pieces(const struct conf_fam *f, uint16_t seq)
{
	uint8_t p1[10], p2[100];
	struct iovec iov[2] = { { p1, sizeof(p1) }, { p2, sizeof(p2) } };
	struct msghdr m;
	long r;
	int fd;

	out("## recvmsg with two pieces, no name");
	fd = recv_fresh(f, seq);
	memset(&m, 0, sizeof(m));
	m.msg_iov = iov;
	m.msg_iovlen = 2;
	m.msg_namelen = 77;
	r = TRY("recvmsg 10+100", pingsock_recvmsg(fd, &m, 0));
	out("  namelen=%u flags=%s controllen=%zu", (unsigned)m.msg_namelen,
	    conf_msgflags(m.msg_flags), (size_t)m.msg_controllen);
	if (r > 10) {
		memcpy(conf_big, p1, 10);
		memcpy(conf_big + 10, p2, (size_t)r - 10);
		conf_ficmp(f, "  data", fd, conf_big, (size_t)r, (size_t)r,
			   &in6addr_loopback, false);
	}
	pingsock_close(fd);
}

/* Short buffers, MSG_TRUNC (sequences seq to seq + 4). */
static void recv_short(const struct conf_fam *f, uint16_t seq)
{
	int fd;

	out("## short buffers");
	fd = recv_fresh(f, seq);
	recv_show(f, "recvmsg 10 bytes of room", fd, 10, 0, 0);
	TRY("then recv MSG_DONTWAIT (rest discarded)",
	    pingsock_recv(fd, conf_rbuf, 1000, MSG_DONTWAIT));
	recv_queue(f, fd, (uint16_t)(seq + 1));
	recv_show(f, "recvmsg 10 bytes of room, MSG_TRUNC", fd, 10,
		  MSG_TRUNC, 0);
	recv_queue(f, fd, (uint16_t)(seq + 2));
	TRY("recv 0 bytes of room", pingsock_recv(fd, conf_rbuf, 0, 0));
	conf_poll("  poll", fd, POLLIN, 0);
	recv_queue(f, fd, (uint16_t)(seq + 3));
	TRY("recv 0 bytes, MSG_TRUNC", pingsock_recv(fd, NULL, 0, MSG_TRUNC));
	recv_queue(f, fd, (uint16_t)(seq + 4));
	TRY("recv 8 bytes, MSG_TRUNC|MSG_PEEK",
	    pingsock_recv(fd, conf_rbuf, 8, MSG_TRUNC | MSG_PEEK));
	recv_show(f, "  then recvmsg", fd, 1000, 0, 0);
	pingsock_close(fd);
}

/* MSG_PEEK, then two replies queued (sequences seq to seq + 2). */
static void recv_peek(const struct conf_fam *f, uint16_t seq)
{
	int fd;

	out("## MSG_PEEK");
	fd = recv_fresh(f, seq);
	recv_show(f, "recvmsg MSG_PEEK", fd, 1000, MSG_PEEK, 0);
	conf_poll("  poll", fd, POLLIN, 0);
	recv_show(f, "recvmsg MSG_PEEK, 20 bytes of room", fd, 20,
		  MSG_PEEK, 0);
	recv_show(f, "recvmsg", fd, 1000, 0, 0);
	TRY("recv MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 1000,
					       MSG_DONTWAIT));
	TRY("recv MSG_PEEK|MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 1000,
						       MSG_PEEK | MSG_DONTWAIT));

	out("## two replies queued");
	conf_fping(f, L("sendto seq %u", seq + 1), fd, f->loopback,
		   (uint16_t)(seq + 1), 64);
	conf_fping(f, L("sendto seq %u", seq + 2), fd, f->loopback,
		   (uint16_t)(seq + 2), 100);
	conf_freply(f, "first", fd, 1000, 0, 0, false);
	conf_poll("  poll", fd, POLLIN, CONF_WAIT_MS);
	conf_freply(f, "second", fd, 1000, 0, 0, false);
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);
}

/* How long the last recv took, and what it returned. */
struct recv_timed {
	long r;
	int e;
	double dt;
};

static struct recv_timed recv_timed(int fd, int flags)
{
	struct recv_timed t;
	double t0 = conf_now_mono();

	t.r = pingsock_recv(fd, conf_rbuf, 1000, flags);
	t.e = errno;
	t.dt = conf_now_mono() - t0;
	return t;
}

/* SO_RCVTIMEO: a wait that times out, one a reply ends (seq). */
static void recv_timeouts(const struct recv_case *c, int fd, uint16_t seq)
{
	struct timeval tv = { 0, 200000 };
	struct recv_timed t;
	struct conf_rx rx;
	double t0;

	TRY("SO_RCVTIMEO 200 ms", pingsock_setsockopt(fd, SOL_SOCKET,
						      SO_RCVTIMEO, &tv,
						      sizeof(tv)));
	t = recv_timed(fd, 0);
	out("recv with SO_RCVTIMEO: %ld %s, waited >= 150 ms: %s, "
	    "< 1.5 s: %s", t.r, t.r < 0 ? conf_errname(t.e) : "",
	    t.dt >= 0.150 ? "yes" : "no", t.dt < 1.5 ? "yes" : "no");
	if (c->more_waits) {
		t0 = conf_now_mono();
		conf_recvmsg(fd, 1000, 0, 0, &rx);
		t.dt = conf_now_mono() - t0;
		out("recvmsg with SO_RCVTIMEO: %ld %s, waited >= 150 ms: %s",
		    rx.ret, rx.ret < 0 ? conf_errname(rx.err) : "",
		    t.dt >= 0.150 ? "yes" : "no");
		t = recv_timed(fd, MSG_DONTWAIT);
		out("recv MSG_DONTWAIT with SO_RCVTIMEO: %ld %s, at once: %s",
		    t.r, t.r < 0 ? conf_errname(t.e) : "",
		    t.dt < 0.1 ? "yes" : "no");
	}
	/* a reply arriving while waiting ends the wait */
	conf_fping(c->f, L("sendto seq %u", seq), fd, c->f->loopback, seq,
		   64);
	tv.tv_sec = 2;
	tv.tv_usec = 0;
	pingsock_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	t0 = conf_now_mono();
	TRY("recv with SO_RCVTIMEO 2 s, reply on its way",
	    pingsock_recv(fd, conf_rbuf, 1000, 0));
	out("  returned before the timeout: %s",
	    conf_now_mono() - t0 < 1.5 ? "yes" : "no");
}

/* Every way of waiting with nothing queued (the reply: seq). */
static void recv_waiting(const struct recv_case *c, uint16_t seq)
{
	const struct conf_fam *f = c->f;
	int fd;

	out("## waiting with nothing queued");
	fd = conf_fsocket(f);
	TRY("recv MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 1000,
					       MSG_DONTWAIT));
	if (c->more_waits) {
		recv_show(f, "recvmsg MSG_DONTWAIT", fd, 1000, MSG_DONTWAIT,
			  0);
	}
	TRY("recv MSG_OOB", pingsock_recv(fd, conf_rbuf, 1000,
					  MSG_OOB | MSG_DONTWAIT));
	recv_show(f, "recvmsg MSG_ERRQUEUE", fd, 1000, MSG_ERRQUEUE, 64);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	TRY("O_NONBLOCK: recv", pingsock_recv(fd, conf_rbuf, 1000, 0));
	if (c->more_waits)
		TRY("O_NONBLOCK: recvfrom",
		    pingsock_recvfrom(fd, conf_rbuf, 1000, 0, NULL, NULL));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	recv_timeouts(c, fd, seq);
	pingsock_close(fd);
}

/* A blocking recvmsg (SO_RCVTIMEO 3 s) wakes up for a reply of len. */
static void recv_blocking(const struct conf_fam *f, const char *title,
			  uint16_t seq, size_t len)
{
	struct timeval tv = { 3, 0 };
	int fd;

	out("## %s", title);
	fd = conf_fsocket(f);
	pingsock_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	conf_fping(f, L("sendto seq %u %zu bytes", seq, len), fd, f->loopback,
		   seq, len);
	recv_show(f, "blocking recvmsg", fd, sizeof(conf_rbuf), 0, 0);
	pingsock_close(fd);
}

#endif
