/*
 * recv6: the IPv6 reply as returned (type 129, the sockaddr_in6 of its
 * source), short name and data buffers, PEEK and TRUNC, waiting
 * (nonblocking, SO_RCVTIMEO), poll readiness.
 */
// needs: peer (fe80::2 on the peer's veth1, for a scoped source)
#include "conf.h"

static int fresh_with_reply(const char *what, uint16_t seq, size_t len)
{
	int fd = conf_socket6();

	conf_ping6(what, fd, "::1", seq, len);
	conf_wait_in(fd, CONF_WAIT_MS);
	return fd;
}

static void one_recvfrom(const char *what, int fd, socklen_t nl0)
{
	uint8_t name[128];
	socklen_t nl = nl0;
	long r;

	memset(name, 0xaa, sizeof(name));
	r = TRY(what, pingsock_recvfrom(fd, conf_rbuf, 1000, 0, SA(name),
					&nl));
	out("  addrlen now %u: %s", (unsigned)nl,
	    conf_sa6(name, nl0, nl, PORT_EXACT));
	out("  byte past the room untouched: %s",
	    name[nl0] == 0xaa ? "yes" : "no");
	if (r > 0)
		conf_icmp6("  data", fd, conf_rbuf, (size_t)r, (size_t)r,
			   &in6addr_loopback, false);
}

int main(void)
{
	struct conf_rx rx;
	struct sockaddr_in6 a;
	int fd;

	conf_begin("recv6");

	out("## the reply, recvmsg");
	fd = conf_socket6();
	conf_poll("poll before sending", fd, POLLIN, 0);
	conf_ping6("sendto ::1 seq 1 64 bytes", fd, "::1", 1, 64);
	conf_poll("poll after the reply", fd, POLLIN, CONF_WAIT_MS);
	conf_poll("poll POLLIN|POLLOUT", fd, POLLIN | POLLOUT, 0);
	conf_reply6("recvmsg", fd, 1000, 0, 0, false);
	conf_poll("poll after reading", fd, POLLIN, 0);
	TRY("recv MSG_DONTWAIT (nothing)",
	    pingsock_recv(fd, conf_rbuf, 1000, MSG_DONTWAIT));

	out("## recvfrom and the name's room");
	conf_ping6("sendto seq 2", fd, "::1", 2, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	one_recvfrom("recvfrom, addrlen 28", fd, 28);
	conf_ping6("sendto seq 3", fd, "::1", 3, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	one_recvfrom("recvfrom, addrlen 16 (a sockaddr_in's room)", fd, 16);
	conf_ping6("sendto seq 4", fd, "::1", 4, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	one_recvfrom("recvfrom, addrlen 8", fd, 8);
	conf_ping6("sendto seq 5", fd, "::1", 5, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	one_recvfrom("recvfrom, addrlen 0", fd, 0);
	conf_ping6("sendto seq 6", fd, "::1", 6, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	one_recvfrom("recvfrom, addrlen 100", fd, 100);
	conf_ping6("sendto seq 7", fd, "::1", 7, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	{
		long r = TRY("recvfrom, NULL address",
			     pingsock_recvfrom(fd, conf_rbuf, 1000, 0, NULL,
					       NULL));

		if (r > 0)
			conf_icmp6("  data", fd, conf_rbuf, (size_t)r,
				   (size_t)r, &in6addr_loopback, false);
	}
	conf_ping6("sendto seq 8", fd, "::1", 8, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	{
		long r = TRY("recv", pingsock_recv(fd, conf_rbuf, 1000, 0));

		if (r > 0)
			conf_icmp6("  data", fd, conf_rbuf, (size_t)r,
				   (size_t)r, &in6addr_loopback, false);
	}
	pingsock_close(fd);

	out("## the sources' names");
	fd = conf_socket6();
	conf_ping6("sendto fd00:201::1 (own)", fd, CONF6_LOCAL, 9, 64);
	conf_reply6("  reply", fd, 1000, 0, 0, false);
	conf_ping6("sendto fd00:201::2 (the peer)", fd, CONF6_PEER, 10, 64);
	conf_reply6("  reply", fd, 1000, 0, 0, false);
	a = conf_sin6(CONF6_LL_PEER, 0, conf_ifidx(CONF6_IF));
	conf_ping6_to("sendto fe80::2%veth0 (the peer, link-local)", fd, &a,
		      11, 64);
	conf_reply6("  reply", fd, 1000, 0, 0, false);
	a = conf_sin6(CONF6_LL_LOCAL, 0, conf_ifidx(CONF6_IF));
	conf_ping6_to("sendto fe80::1%veth0 (own, link-local)", fd, &a, 12,
		      64);
	conf_reply6("  reply", fd, 1000, 0, 0, false);
	TRY("IPV6_FLOWINFO_SEND 1",
	    conf_setint(fd, SOL_IPV6, IPV6_FLOWINFO_SEND, 1));
	conf_ping6("sendto ::1 with IPV6_FLOWINFO_SEND", fd, "::1", 13, 64);
	conf_reply6("  reply", fd, 1000, 0, 0, false);
	pingsock_close(fd);

	out("## recvmsg with two pieces, no name");
	fd = fresh_with_reply("sendto seq 20", 20, 64);
	{
		uint8_t p1[10], p2[100];
		struct iovec iov[2] = { { p1, sizeof(p1) }, { p2, sizeof(p2) } };
		struct msghdr m;
		long r;

		memset(&m, 0, sizeof(m));
		m.msg_iov = iov;
		m.msg_iovlen = 2;
		m.msg_namelen = 77;
		r = TRY("recvmsg 10+100", pingsock_recvmsg(fd, &m, 0));
		out("  namelen=%u flags=%s controllen=%zu",
		    (unsigned)m.msg_namelen, conf_msgflags(m.msg_flags),
		    (size_t)m.msg_controllen);
		if (r > 10) {
			memcpy(conf_big, p1, 10);
			memcpy(conf_big + 10, p2, (size_t)r - 10);
			conf_icmp6("  data", fd, conf_big, (size_t)r,
				   (size_t)r, &in6addr_loopback, false);
		}
	}
	pingsock_close(fd);

	out("## short buffers");
	fd = fresh_with_reply("sendto seq 21", 21, 64);
	conf_recvmsg(fd, 10, 0, 0, &rx);
	conf_show_rx6("recvmsg 10 bytes of room", fd, &rx, 10, false);
	TRY("then recv MSG_DONTWAIT (rest discarded)",
	    pingsock_recv(fd, conf_rbuf, 1000, MSG_DONTWAIT));
	conf_ping6("sendto seq 22", fd, "::1", 22, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	conf_recvmsg(fd, 10, MSG_TRUNC, 0, &rx);
	conf_show_rx6("recvmsg 10 bytes of room, MSG_TRUNC", fd, &rx, 10,
		      false);
	conf_ping6("sendto seq 23", fd, "::1", 23, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	TRY("recv 0 bytes of room", pingsock_recv(fd, conf_rbuf, 0, 0));
	conf_poll("  poll", fd, POLLIN, 0);
	conf_ping6("sendto seq 24", fd, "::1", 24, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	TRY("recv 0 bytes, MSG_TRUNC", pingsock_recv(fd, NULL, 0, MSG_TRUNC));
	conf_ping6("sendto seq 25", fd, "::1", 25, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	TRY("recv 8 bytes, MSG_TRUNC|MSG_PEEK",
	    pingsock_recv(fd, conf_rbuf, 8, MSG_TRUNC | MSG_PEEK));
	conf_recvmsg(fd, 1000, 0, 0, &rx);
	conf_show_rx6("  then recvmsg", fd, &rx, 1000, false);
	pingsock_close(fd);

	out("## MSG_PEEK");
	fd = fresh_with_reply("sendto seq 26", 26, 64);
	conf_recvmsg(fd, 1000, MSG_PEEK, 0, &rx);
	conf_show_rx6("recvmsg MSG_PEEK", fd, &rx, 1000, false);
	conf_poll("  poll", fd, POLLIN, 0);
	conf_recvmsg(fd, 20, MSG_PEEK, 0, &rx);
	conf_show_rx6("recvmsg MSG_PEEK, 20 bytes of room", fd, &rx, 20,
		      false);
	conf_recvmsg(fd, 1000, 0, 0, &rx);
	conf_show_rx6("recvmsg", fd, &rx, 1000, false);
	TRY("recv MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 1000,
					       MSG_DONTWAIT));
	TRY("recv MSG_PEEK|MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 1000,
						       MSG_PEEK | MSG_DONTWAIT));

	out("## two replies queued");
	conf_ping6("sendto seq 27", fd, "::1", 27, 64);
	conf_ping6("sendto seq 28", fd, "::1", 28, 100);
	conf_reply6("first", fd, 1000, 0, 0, false);
	conf_poll("  poll", fd, POLLIN, CONF_WAIT_MS);
	conf_reply6("second", fd, 1000, 0, 0, false);
	conf_poll("  poll", fd, POLLIN, 0);
	pingsock_close(fd);

	out("## waiting with nothing queued");
	fd = conf_socket6();
	TRY("recv MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 1000,
					       MSG_DONTWAIT));
	TRY("recv MSG_OOB", pingsock_recv(fd, conf_rbuf, 1000,
					  MSG_OOB | MSG_DONTWAIT));
	conf_recvmsg(fd, 1000, MSG_ERRQUEUE, 64, &rx);
	conf_show_rx6("recvmsg MSG_ERRQUEUE", fd, &rx, 1000, false);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	TRY("O_NONBLOCK: recv", pingsock_recv(fd, conf_rbuf, 1000, 0));
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
		conf_ping6("sendto seq 29", fd, "::1", 29, 64);
		tv.tv_sec = 2;
		tv.tv_usec = 0;
		pingsock_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				    sizeof(tv));
		t0 = conf_now_mono();
		r = TRY("recv with SO_RCVTIMEO 2 s, reply on its way",
			pingsock_recv(fd, conf_rbuf, 1000, 0));
		dt = conf_now_mono() - t0;
		out("  returned before the timeout: %s",
		    dt < 1.5 ? "yes" : "no");
	}
	pingsock_close(fd);

	out("## a blocking recv wakes up for a big reply");
	fd = conf_socket6();
	{
		struct timeval tv = { 3, 0 };

		pingsock_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv,
				    sizeof(tv));
		conf_ping6("sendto seq 30 20000 bytes", fd, "::1", 30, 20000);
		conf_recvmsg(fd, sizeof(conf_rbuf), 0, 0, &rx);
		conf_show_rx6("blocking recvmsg", fd, &rx, sizeof(conf_rbuf),
			      false);
	}
	pingsock_close(fd);
	return 0;
}
