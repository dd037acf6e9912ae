/*
 * recv / recvfrom / recvmsg: the reply as returned, short buffers, PEEK
 * and TRUNC, waiting (nonblocking, SO_RCVTIMEO), poll readiness.
 */
#include "conf.h"

static int fresh_with_reply(const char *what, uint16_t seq, size_t len)
{
	int fd = conf_socket();

	conf_ping(what, fd, "127.0.0.1", seq, len);
	conf_wait_in(fd, CONF_WAIT_MS);
	return fd;
}

static void plain_poll(const char *what, int fd, int timeout)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int r = poll(&p, 1, timeout);
	int e = errno;

	if (r < 0)
		out("%s: -1 %s", what, conf_errname(e));
	else
		out("%s: %d revents=%s", what, r, conf_revents(p.revents));
}

int main(void)
{
	struct conf_rx rx;
	int fd;

	conf_begin("recv");

	out("## the reply, recvmsg");
	fd = conf_socket();
	conf_poll("poll before sending", fd, POLLIN, 0);
	plain_poll("plain poll before sending", fd, 0);
	conf_ping("sendto 127.0.0.1 seq 1 64 bytes", fd, "127.0.0.1", 1, 64);
	conf_poll("poll after the reply", fd, POLLIN, CONF_WAIT_MS);
	plain_poll("plain poll", fd, 0);
	conf_poll("poll POLLIN|POLLOUT", fd, POLLIN | POLLOUT, 0);
	conf_reply("recvmsg", fd, 1000, 0, 0, false);
	conf_poll("poll after reading", fd, POLLIN, 0);
	plain_poll("plain poll after reading", fd, 0);
	TRY("recv MSG_DONTWAIT (nothing)",
	    pingsock_recv(fd, conf_rbuf, 1000, MSG_DONTWAIT));

	out("## recvfrom");
	conf_ping("sendto seq 2", fd, "127.0.0.1", 2, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	{
		uint8_t name[128];
		socklen_t nl = sizeof(name);
		long r;

		memset(name, 0xaa, sizeof(name));
		r = TRY("recvfrom", pingsock_recvfrom(fd, conf_rbuf, 1000, 0,
						      SA(name), &nl));
		out("  name %s", conf_sa(name, sizeof(name), nl, PORT_EXACT));
		if (r > 0)
			conf_icmp("  data", fd, conf_rbuf, (size_t)r,
				  (size_t)r, false);
		conf_ping("sendto seq 3", fd, "127.0.0.1", 3, 64);
		conf_wait_in(fd, CONF_WAIT_MS);
		memset(name, 0xaa, sizeof(name));
		nl = 8;
		TRY("recvfrom, addrlen 8", pingsock_recvfrom(fd, conf_rbuf,
							     1000, 0, SA(name),
							     &nl));
		out("  name %s", conf_sa(name, 8, nl, PORT_EXACT));
		out("  bytes past 8 untouched: %s",
		    name[8] == 0xaa && name[15] == 0xaa ? "yes" : "no");
		conf_ping("sendto seq 4", fd, "127.0.0.1", 4, 64);
		conf_wait_in(fd, CONF_WAIT_MS);
		nl = 0;
		TRY("recvfrom, addrlen 0", pingsock_recvfrom(fd, conf_rbuf,
							     1000, 0, SA(name),
							     &nl));
		out("  addrlen now %u", (unsigned)nl);
		conf_ping("sendto seq 5", fd, "127.0.0.1", 5, 64);
		conf_wait_in(fd, CONF_WAIT_MS);
		r = TRY("recvfrom, NULL address",
			pingsock_recvfrom(fd, conf_rbuf, 1000, 0, NULL, NULL));
		if (r > 0)
			conf_icmp("  data", fd, conf_rbuf, (size_t)r,
				  (size_t)r, false);
		conf_ping("sendto seq 6", fd, "127.0.0.1", 6, 64);
		conf_wait_in(fd, CONF_WAIT_MS);
		r = TRY("recv", pingsock_recv(fd, conf_rbuf, 1000, 0));
		if (r > 0)
			conf_icmp("  data", fd, conf_rbuf, (size_t)r,
				  (size_t)r, false);
	}
	pingsock_close(fd);

	out("## recvmsg with two pieces, no name");
	fd = fresh_with_reply("sendto seq 7", 7, 64);
	{
		uint8_t a[10], b[100];
		struct iovec iov[2] = { { a, sizeof(a) }, { b, sizeof(b) } };
		struct msghdr m;
		long r;

		memset(&m, 0, sizeof(m));
		m.msg_iov = iov;
		m.msg_iovlen = 2;
		m.msg_namelen = 77;
		r = TRY("recvmsg 10+100", pingsock_recvmsg(fd, &m, 0));
		out("  namelen=%u flags=%s controllen=%zu", (unsigned)m.msg_namelen,
		    conf_msgflags(m.msg_flags), (size_t)m.msg_controllen);
		if (r > 10) {
			memcpy(conf_big, a, 10);
			memcpy(conf_big + 10, b, (size_t)r - 10);
			conf_icmp("  data", fd, conf_big, (size_t)r, (size_t)r,
				  false);
		}
	}
	pingsock_close(fd);

	out("## short buffers");
	fd = fresh_with_reply("sendto seq 8", 8, 64);
	conf_recvmsg(fd, 10, 0, 0, &rx);
	conf_show_rx("recvmsg 10 bytes of room", fd, &rx, 10, false);
	TRY("then recv MSG_DONTWAIT (rest discarded)",
	    pingsock_recv(fd, conf_rbuf, 1000, MSG_DONTWAIT));
	conf_ping("sendto seq 9", fd, "127.0.0.1", 9, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	conf_recvmsg(fd, 10, MSG_TRUNC, 0, &rx);
	conf_show_rx("recvmsg 10 bytes of room, MSG_TRUNC", fd, &rx, 10, false);
	conf_ping("sendto seq 10", fd, "127.0.0.1", 10, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	TRY("recv 0 bytes of room", pingsock_recv(fd, conf_rbuf, 0, 0));
	conf_poll("  poll", fd, POLLIN, 0);
	conf_ping("sendto seq 11", fd, "127.0.0.1", 11, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	TRY("recv 0 bytes, MSG_TRUNC", pingsock_recv(fd, NULL, 0, MSG_TRUNC));
	conf_ping("sendto seq 12", fd, "127.0.0.1", 12, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	TRY("recv 8 bytes, MSG_TRUNC|MSG_PEEK",
	    pingsock_recv(fd, conf_rbuf, 8, MSG_TRUNC | MSG_PEEK));
	conf_recvmsg(fd, 1000, 0, 0, &rx);
	conf_show_rx("  then recvmsg", fd, &rx, 1000, false);
	pingsock_close(fd);

	out("## MSG_PEEK");
	fd = fresh_with_reply("sendto seq 13", 13, 64);
	conf_recvmsg(fd, 1000, MSG_PEEK, 0, &rx);
	conf_show_rx("recvmsg MSG_PEEK", fd, &rx, 1000, false);
	conf_poll("  poll", fd, POLLIN, 0);
	conf_recvmsg(fd, 20, MSG_PEEK, 0, &rx);
	conf_show_rx("recvmsg MSG_PEEK, 20 bytes of room", fd, &rx, 20, false);
	conf_recvmsg(fd, 1000, 0, 0, &rx);
	conf_show_rx("recvmsg", fd, &rx, 1000, false);
	TRY("recv MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 1000,
					       MSG_DONTWAIT));
	TRY("recv MSG_PEEK|MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 1000,
						       MSG_PEEK | MSG_DONTWAIT));

	out("## two replies queued");
	conf_ping("sendto seq 14", fd, "127.0.0.1", 14, 64);
	conf_ping("sendto seq 15", fd, "127.0.0.1", 15, 100);
	conf_reply("first", fd, 1000, 0, 0, false);
	conf_poll("  poll", fd, POLLIN, CONF_WAIT_MS);
	conf_reply("second", fd, 1000, 0, 0, false);
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);

	out("## waiting with nothing queued");
	fd = conf_socket();
	TRY("recv MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 1000,
					       MSG_DONTWAIT));
	conf_recvmsg(fd, 1000, MSG_DONTWAIT, 0, &rx);
	conf_show_rx("recvmsg MSG_DONTWAIT", fd, &rx, 1000, false);
	TRY("recv MSG_OOB", pingsock_recv(fd, conf_rbuf, 1000,
					  MSG_OOB | MSG_DONTWAIT));
	conf_recvmsg(fd, 1000, MSG_ERRQUEUE, 64, &rx);
	conf_show_rx("recvmsg MSG_ERRQUEUE", fd, &rx, 1000, false);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	TRY("O_NONBLOCK: recv", pingsock_recv(fd, conf_rbuf, 1000, 0));
	TRY("O_NONBLOCK: recvfrom", pingsock_recvfrom(fd, conf_rbuf, 1000, 0,
						      NULL, NULL));
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	{
		struct timeval tv = { 0, 200000 };
		double t0, dt;
		long r;
		int e;

		TRY("SO_RCVTIMEO 200 ms",
		    pingsock_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
					sizeof(tv)));
		t0 = conf_now_mono();
		r = pingsock_recv(fd, conf_rbuf, 1000, 0);
		e = errno;
		dt = conf_now_mono() - t0;
		out("recv with SO_RCVTIMEO: %ld %s, waited >= 150 ms: %s, "
		    "< 1.5 s: %s", r, r < 0 ? conf_errname(e) : "",
		    dt >= 0.150 ? "yes" : "no", dt < 1.5 ? "yes" : "no");
		t0 = conf_now_mono();
		conf_recvmsg(fd, 1000, 0, 0, &rx);
		dt = conf_now_mono() - t0;
		out("recvmsg with SO_RCVTIMEO: %ld %s, waited >= 150 ms: %s",
		    rx.ret, rx.ret < 0 ? conf_errname(rx.err) : "",
		    dt >= 0.150 ? "yes" : "no");
		t0 = conf_now_mono();
		r = pingsock_recv(fd, conf_rbuf, 1000, MSG_DONTWAIT);
		e = errno;
		dt = conf_now_mono() - t0;
		out("recv MSG_DONTWAIT with SO_RCVTIMEO: %ld %s, at once: %s",
		    r, r < 0 ? conf_errname(e) : "", dt < 0.1 ? "yes" : "no");
		/* a reply arriving while waiting ends the wait */
		conf_ping("sendto seq 16", fd, "127.0.0.1", 16, 64);
		tv.tv_sec = 2;
		tv.tv_usec = 0;
		pingsock_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				    sizeof(tv));
		t0 = conf_now_mono();
		r = TRY("recv with SO_RCVTIMEO 2 s, reply on its way",
			pingsock_recv(fd, conf_rbuf, 1000, 0));
		dt = conf_now_mono() - t0;
		out("  returned before the timeout: %s", dt < 1.5 ? "yes" : "no");
	}
	pingsock_close(fd);

	out("## a blocking recv wakes up for the reply");
	fd = conf_socket();
	{
		struct timeval tv = { 3, 0 };

		pingsock_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				    sizeof(tv));
		conf_ping("sendto seq 17 4000 bytes", fd, "127.0.0.1", 17, 4000);
		conf_recvmsg(fd, sizeof(conf_rbuf), 0, 0, &rx);
		conf_show_rx("blocking recvmsg", fd, &rx, sizeof(conf_rbuf),
			     false);
	}
	pingsock_close(fd);
	return 0;
}
