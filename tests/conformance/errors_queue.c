/* SPDX-License-Identifier: ISC */
/*
 * errors_queue: the error queue and the pending error as such (issue 5),
 * with errors forged by tests/lib/icmpforge: a reply and an error queued
 * at once, MSG_PEEK, short data and control buffers, short msg_name, two
 * records in order, SO_ERROR clearing, IP_RECVERR switched on or off with
 * an error about, a connected socket with IP_RECVERR, the ancillary data
 * an error record carries, and a blocking read of an empty error queue.
 */
// needs: router (client 10.77.0.2, router 10.77.0.1, forger for 10.78.T.C)
#include "conf.h"

#define PORT_UNREACH "10.78.3.3"	/* ECONNREFUSED, hard */
#define PROTO_UNREACH "10.78.3.2"	/* ENOPROTOOPT, hard */
#define NET_UNREACH "10.78.3.0"		/* ENETUNREACH, soft */

/* The next error record, read whole (the request had 64 bytes). */
static void errq(int fd)
{
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 1000, 0, 512, 64);
}

static void so_error(int fd)
{
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
}

static void recv_dontwait(int fd)
{
	TRY("  recv MSG_DONTWAIT",
	    pingsock_recv(fd, conf_rbuf, 100, MSG_DONTWAIT));
}

static int recverr_socket(void)
{
	int fd = conf_socket();

	TRY("IP_RECVERR 1", conf_setint(fd, SOL_IP, IP_RECVERR, 1));
	return fd;
}

/* Wait (bounded) until both a reply and an error are there. */
static void wait_both(int fd)
{
	double end = conf_now_mono() + 1.0;

	conf_settle();
	while (conf_now_mono() < end) {
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (pingsock_poll(&p, 1, 100) > 0 &&
		    (p.revents & (POLLIN | POLLERR)) == (POLLIN | POLLERR))
			return;
		usleep(2000);
	}
}

/* One error (from dst, sequence seq) on the error queue of fd. */
static void one_error(int fd, const char *dst, uint16_t seq)
{
	conf_ping(L("sendto %s", dst), fd, dst, seq, 64);
	conf_settle();
}

static void reply_and_error(void)
{
	int fd;

	out("## a reply and an error at once; the error queue read first");
	fd = recverr_socket();
	conf_ping("sendto 10.77.1.2", fd, CONF_R_FAR, 1, 64);
	conf_ping(L("sendto %s", PORT_UNREACH), fd, PORT_UNREACH, 2, 64);
	wait_both(fd);
	conf_poll("  poll", fd, POLLIN, 0);
	conf_poll("  poll events=0", fd, 0, 0);
	errq(fd);
	conf_poll("  poll", fd, POLLIN, 0);
	so_error(fd);
	conf_reply("  recvmsg", fd, 1000, 0, 512, false);
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);

	out("## a reply and an error at once; a plain recv first");
	fd = recverr_socket();
	conf_ping("sendto 10.77.1.2", fd, CONF_R_FAR, 3, 64);
	conf_ping(L("sendto %s", PORT_UNREACH), fd, PORT_UNREACH, 4, 64);
	wait_both(fd);
	conf_poll("  poll", fd, POLLIN, 0);
	recv_dontwait(fd);
	conf_poll("  poll", fd, POLLIN, 0);
	conf_reply("  recvmsg", fd, 1000, 0, 512, false);
	conf_poll("  poll", fd, POLLIN, 0);
	recv_dontwait(fd);
	errq(fd);
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);

	out("## a reply queued, the error queue empty");
	fd = recverr_socket();
	conf_ping("sendto 10.77.1.2", fd, CONF_R_FAR, 5, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	conf_poll("  poll", fd, POLLIN, 0);
	errq(fd);
	conf_reply("  recvmsg", fd, 1000, 0, 512, false);
	pingsock_close(fd);
}

static void peek(void)
{
	int fd;

	out("## MSG_PEEK on the error queue");
	fd = recverr_socket();
	one_error(fd, PORT_UNREACH, 10);
	conf_errq("  recvmsg MSG_ERRQUEUE|MSG_PEEK", fd, 1000, MSG_PEEK, 512,
		  64);
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq("  recvmsg MSG_ERRQUEUE|MSG_PEEK", fd, 1000, MSG_PEEK, 512,
		  64);
	errq(fd);
	so_error(fd);
	pingsock_close(fd);
}

/* Short data and control buffers on the error queue (sequences 11 to
 * 16), each on a fresh socket with one record. */
static void short_buffers(void)
{
	enum { NOTHING, ERRQ, SO_ERROR_AFTER };
	static const struct {
		const char *title, *what;	/* what: after the label */
		size_t room;
		int flags;
		size_t ctllen;
		bool recvttl;
		int then;
	} rows[] = {
		{ "a 10-byte buffer on the error queue",
		  " (10 bytes)", 10, 0, 512, false, ERRQ },
		{ "a 10-byte buffer and MSG_TRUNC on the error queue",
		  "|MSG_TRUNC (10 bytes)", 10, MSG_TRUNC, 512, false, NOTHING },
		{ "no data buffer at all on the error queue",
		  " (0 bytes)", 0, 0, 512, false, NOTHING },
		{ "a 40-byte control buffer (the record needs 48)",
		  " (control 40)", 1000, 0, 40, false, ERRQ },
		{ "no control buffer on the error queue",
		  " (no control)", 1000, 0, 0, false, SO_ERROR_AFTER },
		{ "a 24-byte control buffer with IP_RECVTTL (IP_TTL fits, "
		  "IP_RECVERR does not)",
		  " (control 24)", 1000, 0, 24, true, NOTHING },
	};

	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		int fd;

		out("## %s", rows[i].title);
		fd = recverr_socket();
		if (rows[i].recvttl)
			TRY("IP_RECVTTL 1",
			    conf_setint(fd, SOL_IP, IP_RECVTTL, 1));
		one_error(fd, PORT_UNREACH, (uint16_t)(11 + i));
		conf_errq(L("  recvmsg MSG_ERRQUEUE%s", rows[i].what), fd,
			  rows[i].room, rows[i].flags, rows[i].ctllen, 64);
		if (rows[i].then == ERRQ)
			errq(fd);
		else if (rows[i].then == SO_ERROR_AFTER)
			so_error(fd);
		pingsock_close(fd);
	}
}

/* A short msg_name, and none, on the error queue (sequences 17, 18). */
static void short_name(void)
{
	struct conf_rx rx;
	int fd;

	out("## msg_name of 8 bytes, and none, on the error queue");
	fd = recverr_socket();
	one_error(fd, PORT_UNREACH, 17);
	{
		struct iovec iov = { .iov_base = conf_rbuf, .iov_len = 1000 };
		uint8_t name[32], ctl[512];
		struct msghdr m;
		long r;
		int e;

		memset(name, 0xaa, sizeof(name));
		memset(&m, 0, sizeof(m));
		m.msg_name = name;
		m.msg_namelen = 8;
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		m.msg_control = ctl;
		m.msg_controllen = sizeof(ctl);
		r = pingsock_recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT);
		e = errno;
		if (r < 0)
			out("  recvmsg MSG_ERRQUEUE (name 8): -1 %s",
			    conf_errname(e));
		else
			out("  recvmsg MSG_ERRQUEUE (name 8): %ld from %s "
			    "flags=%s controllen=%zu", r,
			    conf_sa(name, 8, m.msg_namelen, PORT_EXACT),
			    conf_msgflags(m.msg_flags),
			    (size_t)m.msg_controllen);
		one_error(fd, PORT_UNREACH, 18);
		m.msg_name = NULL;
		m.msg_namelen = 16;
		m.msg_controllen = sizeof(ctl);
		m.msg_flags = 0;
		r = pingsock_recvmsg(fd, &m, MSG_ERRQUEUE | MSG_DONTWAIT);
		e = errno;
		if (r < 0)
			out("  recvmsg MSG_ERRQUEUE (no name): -1 %s",
			    conf_errname(e));
		else
			out("  recvmsg MSG_ERRQUEUE (no name): %ld namelen=%u "
			    "flags=%s controllen=%zu", r,
			    (unsigned)m.msg_namelen,
			    conf_msgflags(m.msg_flags),
			    (size_t)m.msg_controllen);
	}
	conf_recvmsg(fd, 1000, MSG_ERRQUEUE | MSG_DONTWAIT, 512, &rx);
	out("  recvmsg MSG_ERRQUEUE: %s",
	    rx.ret < 0 ? conf_errname(rx.err) : "a record");
	pingsock_close(fd);
}

static void two_errors(void)
{
	int fd;

	out("## two errors queued, read in order");
	fd = recverr_socket();
	one_error(fd, PORT_UNREACH, 20);
	conf_getint("  SO_ERROR (lets the next send through)", fd, SOL_SOCKET,
		    SO_ERROR, sizeof(int));
	one_error(fd, PROTO_UNREACH, 21);
	conf_poll("  poll", fd, POLLIN, 0);
	recv_dontwait(fd);
	recv_dontwait(fd);
	conf_errq("  recvmsg MSG_ERRQUEUE (the first)", fd, 1000, 0, 512, 64);
	out("# reading a record sets the pending error to the next one's");
	conf_poll("  poll", fd, POLLIN, 0);
	recv_dontwait(fd);
	so_error(fd);
	conf_errq("  recvmsg MSG_ERRQUEUE (the second)", fd, 1000, 0, 512, 64);
	so_error(fd);
	errq(fd);
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);

	out("## two errors queued, the first read, then SO_ERROR");
	fd = recverr_socket();
	one_error(fd, PROTO_UNREACH, 22);
	so_error(fd);
	one_error(fd, NET_UNREACH, 23);
	conf_errq("  recvmsg MSG_ERRQUEUE (the first)", fd, 1000, 0, 512, 64);
	so_error(fd);
	so_error(fd);
	conf_poll("  poll", fd, POLLIN, 0);
	conf_ping("  sendto 10.78.0.1 (no answer)", fd, CONF_R_BLACKHOLE, 24,
		  64);
	conf_errq("  recvmsg MSG_ERRQUEUE (the second)", fd, 1000, 0, 512, 64);
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);
}

static void so_error_clearing(void)
{
	int fd;

	out("## SO_ERROR clears the pending error, not the queue");
	fd = recverr_socket();
	one_error(fd, PORT_UNREACH, 30);
	so_error(fd);
	so_error(fd);
	conf_poll("  poll", fd, POLLIN, 0);
	recv_dontwait(fd);
	conf_ping("  sendto 10.78.0.1 (no answer)", fd, CONF_R_BLACKHOLE, 31,
		  64);
	errq(fd);
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);

	out("## SO_ERROR with a short optlen");
	fd = recverr_socket();
	one_error(fd, PORT_UNREACH, 32);
	conf_getint("  SO_ERROR optlen 2", fd, SOL_SOCKET, SO_ERROR, 2);
	so_error(fd);
	pingsock_close(fd);
}

static void recverr_toggle(void)
{
	int fd;

	out("## IP_RECVERR switched off with a record queued");
	fd = recverr_socket();
	one_error(fd, PORT_UNREACH, 40);
	TRY("  IP_RECVERR 0", conf_setint(fd, SOL_IP, IP_RECVERR, 0));
	conf_poll("  poll", fd, POLLIN, 0);
	errq(fd);
	TRY("  IP_RECVERR 1", conf_setint(fd, SOL_IP, IP_RECVERR, 1));
	errq(fd);
	recv_dontwait(fd);
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);

	out("## IP_RECVERR switched on after the error came");
	fd = conf_socket();
	one_error(fd, PORT_UNREACH, 41);
	TRY("  IP_RECVERR 1", conf_setint(fd, SOL_IP, IP_RECVERR, 1));
	conf_poll("  poll", fd, POLLIN, 0);
	errq(fd);
	so_error(fd);
	pingsock_close(fd);
}

static void connected_recverr(void)
{
	struct sockaddr_in a = conf_sin(NET_UNREACH, 0);
	int fd;

	out("## IP_RECVERR on, connected, a soft error");
	fd = recverr_socket();
	TRY("connect " NET_UNREACH, pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_psend("send", fd, 50, 64);
	conf_settle();
	conf_poll("  poll", fd, POLLIN, 0);
	conf_psend("  send", fd, 51, 64);
	errq(fd);
	errq(fd);
	pingsock_close(fd);
}

static void ancillary(void)
{
	int fd;

	out("## what else an error record carries: IP_RECVTOS, SO_TIMESTAMPNS,"
	    " IP_RECVTTL, IP_RECVORIGDSTADDR");
	fd = recverr_socket();
	TRY("IP_RECVORIGDSTADDR 1",
	    conf_setint(fd, SOL_IP, IP_RECVORIGDSTADDR, 1));
	TRY("IP_RECVTOS 1", conf_setint(fd, SOL_IP, IP_RECVTOS, 1));
	TRY("SO_TIMESTAMPNS 1",
	    conf_setint(fd, SOL_SOCKET, SO_TIMESTAMPNS_OLD, 1));
	TRY("IP_RECVTTL 1", conf_setint(fd, SOL_IP, IP_RECVTTL, 1));
	one_error(fd, PORT_UNREACH, 60);
	errq(fd);
	pingsock_close(fd);

	out("## a local error record with IP_RECVTTL and SO_TIMESTAMPNS");
	fd = recverr_socket();
	TRY("SO_TIMESTAMPNS 1",
	    conf_setint(fd, SOL_SOCKET, SO_TIMESTAMPNS_OLD, 1));
	TRY("IP_RECVTTL 1", conf_setint(fd, SOL_IP, IP_RECVTTL, 1));
	TRY("IP_MTU_DISCOVER IP_PMTUDISC_DO",
	    conf_setint(fd, SOL_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO));
	TRY("IP_RECVORIGDSTADDR 1",
	    conf_setint(fd, SOL_IP, IP_RECVORIGDSTADDR, 1));
	conf_ping("sendto 10.77.1.2 2000 bytes", fd, CONF_R_FAR, 61, 2000);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 3000, 0, 512, 2000);
	pingsock_close(fd);
}

/*
 * traceroute reads the error queue as soon as poll shows POLLERR, then
 * sends its next probe: that send must go out (reading the last record
 * took the pending error with it).
 */
static void fast_reader(void)
{
	struct conf_rx rx;
	int fd, ok = 0, first_err = 0, got = 0;

	out("## each record read as soon as poll shows POLLERR, then a send "
	    "(20 times)");
	fd = recverr_socket();
	for (int i = 0; i < 20; i++) {
		struct sockaddr_in a = conf_sin(PORT_UNREACH, 0);
		struct sockaddr_in b = conf_sin(CONF_R_BLACKHOLE, 0);
		long r;
		int e;

		conf_echo(conf_big, 64, (uint16_t)(70 + i));
		if (pingsock_sendto(fd, conf_big, 64, 0, SA(&a),
				    sizeof(a)) < 0) {
			e = errno;
			out("  sendto %s: -1 %s", PORT_UNREACH,
			    conf_errname(e));
			break;
		}
		if (conf_wait_err(fd, 1000) &&
		    conf_recvmsg(fd, 1000, MSG_ERRQUEUE | MSG_DONTWAIT, 512,
				 &rx) > 0)
			got++;
		r = pingsock_sendto(fd, conf_big, 64, 0, SA(&b), sizeof(b));
		e = errno;
		if (r > 0)
			ok++;
		else if (!first_err)
			first_err = e;
	}
	out("  records read: %d of 20", got);
	if (first_err)
		out("  sends that went out: %d of 20, the first failure %s", ok,
		    conf_errname(first_err));
	else
		out("  sends that went out: %d of 20", ok);
	conf_settle();
	errq(fd);
	so_error(fd);
	pingsock_close(fd);
}

static void blocking_empty(void)
{
	struct timeval tv = { .tv_sec = 0, .tv_usec = 500000 };
	struct conf_rx rx;
	double t0;
	int fd;

	out("## recvmsg MSG_ERRQUEUE without MSG_DONTWAIT on an empty queue "
	    "(SO_RCVTIMEO 0.5 s)");
	fd = recverr_socket();
	TRY("SO_RCVTIMEO 0.5 s", pingsock_setsockopt(fd, SOL_SOCKET,
						    SO_RCVTIMEO_OLD, &tv,
						    sizeof(tv)));
	t0 = conf_now_mono();
	{
		struct iovec iov = { .iov_base = conf_rbuf, .iov_len = 100 };
		struct msghdr m;
		long r;
		int e;

		memset(&m, 0, sizeof(m));
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		r = pingsock_recvmsg(fd, &m, MSG_ERRQUEUE);
		e = errno;
		rx.ret = r;
		rx.err = e;
	}
	if (rx.ret < 0)
		out("  recvmsg MSG_ERRQUEUE: -1 %s", conf_errname(rx.err));
	else
		out("  recvmsg MSG_ERRQUEUE: %ld", rx.ret);
	out("  returned %s", conf_now_mono() - t0 < 0.25 ? "at once"
							  : "after waiting");
	pingsock_close(fd);
}

int main(void)
{
	conf_begin("errors_queue");
	reply_and_error();
	peek();
	short_buffers();
	short_name();
	two_errors();
	so_error_clearing();
	recverr_toggle();
	connected_recverr();
	ancillary();
	fast_reader();
	blocking_empty();
	return 0;
}
