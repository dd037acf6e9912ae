/*
 * sendto / sendmsg: every IPv4 row of the sendto table that needs no ICMP
 * error, each on a fresh socket, with the socket's name afterwards (the
 * first send binds an identifier even when it fails).
 */
// needs: peer (10.201.0.0/24 on veth0, for the directed broadcast)
#include "conf.h"

static int sock_bcast(bool bcast)
{
	int fd = conf_socket();

	if (bcast && conf_setint(fd, SOL_SOCKET, SO_BROADCAST, 1) < 0)
		out("SO_BROADCAST: -1 %s", conf_errname(errno));
	return fd;
}

/* One sendto of an Echo Request of len bytes; the name afterwards;
 * the reply if one is expected.  Returns the fd, still open, if keep. */
static int row_full(const char *what, size_t len, const void *dst,
		    socklen_t dstlen, int flags, bool bcast, bool want_reply,
		    uint16_t seq)
{
	int fd = sock_bcast(bcast);

	conf_echo(conf_big, len, seq);
	TRY(what, pingsock_sendto(fd, conf_big, len, flags, dst, dstlen));
	conf_name(L("  %s: getsockname", what), fd, false, PORT_MASK);
	if (want_reply)
		conf_reply1(L("  %s: reply", what), fd, false);
	pingsock_close(fd);
	return 0;
}

static void row_to(const char *what, const char *ip, size_t len,
		   bool want_reply, uint16_t seq)
{
	struct sockaddr_in a = conf_sin(ip, 0);

	row_full(what, len, &a, sizeof(a), 0, false, want_reply, seq);
}

/* An Echo Request with one header byte changed. */
static void row_hdr(const char *what, int off, uint8_t val)
{
	struct sockaddr_in a = conf_sin("127.0.0.1", 0);
	int fd = conf_socket();

	conf_echo(conf_big, 64, 30);
	conf_big[off] = val;
	TRY(what, pingsock_sendto(fd, conf_big, 64, 0, SA(&a), sizeof(a)));
	conf_name(L("  %s: getsockname", what), fd, false, PORT_MASK);
	pingsock_close(fd);
}

int main(void)
{
	struct sockaddr_in a;
	struct sockaddr_in6 a6;
	struct sockaddr_storage ss;
	int fd;

	conf_begin("sendto");

	out("## sizes");
	row_to("64 bytes", "127.0.0.1", 64, true, 1);
	row_to("8 bytes (no payload)", "127.0.0.1", 8, true, 2);
	row_to("9 bytes", "127.0.0.1", 9, true, 3);
	row_to("1472 bytes", "127.0.0.1", 1472, true, 4);
	row_to("4000 bytes", "127.0.0.1", 4000, true, 5);
	row_to("65515 bytes (largest)", "127.0.0.1", 65515, true, 6);
	row_to("65516 bytes", "127.0.0.1", 65516, false, 7);
	row_to("65535 bytes", "127.0.0.1", 65535, false, 7);
	row_to("70000 bytes", "127.0.0.1", 70000, false, 7);
	row_to("7 bytes", "127.0.0.1", 7, false, 7);
	row_to("1 byte", "127.0.0.1", 1, false, 7);
	row_to("0 bytes", "127.0.0.1", 0, false, 7);

	out("## header");
	row_hdr("type 0 (echo reply)", 0, 0);
	row_hdr("type 13 (timestamp)", 0, 13);
	row_hdr("type 42 (extended echo)", 0, 42);
	row_hdr("type 43", 0, 43);
	row_hdr("type 128", 0, 128);
	row_hdr("code 1", 1, 1);
	row_hdr("code 255", 1, 255);
	/* identifier and checksum as given are ignored */
	{
		int s = conf_socket();

		a = conf_sin("127.0.0.1", 0);
		conf_echo(conf_big, 64, 0x1234);
		conf_big[2] = conf_big[3] = 0;
		conf_big[4] = conf_big[5] = 0;
		TRY("ident 0, checksum 0, seq 0x1234",
		    pingsock_sendto(s, conf_big, 64, 0, SA(&a), sizeof(a)));
		conf_reply1("  reply", s, false);
		conf_echo(conf_big, 64, 0xffff);
		TRY("seq 0xffff", pingsock_sendto(s, conf_big, 64, 0, SA(&a),
						  sizeof(a)));
		conf_reply1("  reply", s, false);
		conf_echo(conf_big, 64, 0);
		TRY("seq 0", pingsock_sendto(s, conf_big, 64, 0, SA(&a),
					     sizeof(a)));
		conf_reply1("  reply", s, false);
		pingsock_close(s);
	}

	out("## addresses");
	row_full("no address", 64, NULL, 0, 0, false, false, 8);
	a = conf_sin("127.0.0.1", 0);
	row_full("address, addrlen 0", 64, &a, 0, 0, false, false, 8);
	row_full("addrlen 8", 64, &a, 8, 0, false, false, 8);
	row_full("addrlen 15", 64, &a, 15, 0, false, false, 8);
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &a, sizeof(a));
	row_full("addrlen 128", 64, &ss, sizeof(ss), 0, false, true, 9);
	row_full("addrlen 129", 64, &ss, 129, 0, false, false, 9);
	memset(&a6, 0, sizeof(a6));
	a6.sin6_family = AF_INET6;
	a6.sin6_addr = in6addr_loopback;
	row_full("AF_INET6 ::1", 64, &a6, sizeof(a6), 0, false, false, 9);
	a = conf_sin("127.0.0.1", 0);
	a.sin_family = AF_INET6;
	row_full("AF_INET6 family, addrlen 16", 64, &a, sizeof(a), 0, false,
		 false, 9);
	a.sin_family = AF_UNSPEC;
	row_full("AF_UNSPEC 127.0.0.1", 64, &a, sizeof(a), 0, false, false, 9);
	a = conf_sin("0.0.0.0", 0);
	a.sin_family = AF_UNSPEC;
	row_full("AF_UNSPEC 0.0.0.0", 64, &a, sizeof(a), 0, false, false, 9);
	a = conf_sin("127.0.0.1", 7);
	row_full("127.0.0.1 port 7", 64, &a, sizeof(a), 0, false, true, 10);
	row_to("127.0.0.2", "127.0.0.2", 64, true, 11);
	row_to("0.0.0.0", "0.0.0.0", 64, true, 12);
	row_to("peer 10.201.0.2", CONF_PEER, 64, true, 13);
	row_to("own 10.201.0.1", CONF_LOCAL, 64, true, 14);
	row_to("no route 10.99.0.1", CONF_NOROUTE, 64, false, 15);
	row_to("no route 10.99.0.1, 7 bytes", CONF_NOROUTE, 7, false, 15);
	row_to("multicast 224.0.0.1", "224.0.0.1", 64, false, 15);
	a = conf_sin(CONF_BCAST, 0);
	row_full("directed broadcast 10.201.0.255", 64, &a, sizeof(a), 0,
		 false, false, 16);
	row_full("directed broadcast 10.201.0.255 with SO_BROADCAST", 64, &a,
		 sizeof(a), 0, true, false, 16);
	a = conf_sin("255.255.255.255", 0);
	row_full("255.255.255.255", 64, &a, sizeof(a), 0, false, false, 16);
	row_full("255.255.255.255 with SO_BROADCAST", 64, &a, sizeof(a), 0,
		 true, false, 16);

	out("## flags");
	a = conf_sin("127.0.0.1", 0);
	row_full("MSG_OOB", 64, &a, sizeof(a), MSG_OOB, false, false, 17);
	row_full("MSG_DONTWAIT", 64, &a, sizeof(a), MSG_DONTWAIT, false, true,
		 18);
	row_full("MSG_CONFIRM", 64, &a, sizeof(a), MSG_CONFIRM, false, true,
		 19);
	row_full("MSG_NOSIGNAL", 64, &a, sizeof(a), MSG_NOSIGNAL, false, true,
		 20);
	row_full("MSG_DONTROUTE", 64, &a, sizeof(a), MSG_DONTROUTE, false,
		 true, 21);
	row_full("MSG_MORE", 64, &a, sizeof(a), MSG_MORE, false, true, 22);
	row_full("MSG_EOR", 64, &a, sizeof(a), MSG_EOR, false, true, 22);
	row_full("MSG_FASTOPEN", 64, &a, sizeof(a), MSG_FASTOPEN, false, true,
		 22);

	out("## path MTU discovery on lo");
	fd = conf_socket();
	TRY("IP_MTU_DISCOVER IP_PMTUDISC_DO",
	    conf_setint(fd, SOL_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO));
	conf_ping("4000 bytes", fd, "127.0.0.1", 23, 4000);
	conf_reply1("  reply", fd, false);
	conf_ping("65515 bytes", fd, "127.0.0.1", 24, 65515);
	conf_reply1("  reply", fd, false);
	pingsock_close(fd);

	out("## sendmsg");
	fd = conf_socket();
	{
		struct iovec iov[3];
		struct msghdr m;

		a = conf_sin("127.0.0.1", 0);
		conf_echo(conf_big, 64, 25);
		iov[0].iov_base = conf_big;
		iov[0].iov_len = 3;
		iov[1].iov_base = conf_big + 3;
		iov[1].iov_len = 5;
		iov[2].iov_base = conf_big + 8;
		iov[2].iov_len = 56;
		memset(&m, 0, sizeof(m));
		m.msg_name = &a;
		m.msg_namelen = sizeof(a);
		m.msg_iov = iov;
		m.msg_iovlen = 3;
		TRY("sendmsg 3 pieces (3+5+56)", pingsock_sendmsg(fd, &m, 0));
		conf_reply1("  reply", fd, false);
		m.msg_namelen = 0;
		TRY("sendmsg namelen 0", pingsock_sendmsg(fd, &m, 0));
		m.msg_name = NULL;
		m.msg_namelen = sizeof(a);
		TRY("sendmsg name NULL", pingsock_sendmsg(fd, &m, 0));
		m.msg_name = &a;
		m.msg_namelen = 8;
		TRY("sendmsg namelen 8", pingsock_sendmsg(fd, &m, 0));
		m.msg_namelen = sizeof(a);
		m.msg_iovlen = 0;
		TRY("sendmsg no iov", pingsock_sendmsg(fd, &m, 0));
		iov[0].iov_len = 0;
		iov[1].iov_base = conf_big;
		iov[1].iov_len = 8;
		iov[2].iov_len = 0;
		m.msg_iovlen = 3;
		TRY("sendmsg 0+8+0", pingsock_sendmsg(fd, &m, 0));
		conf_reply1("  reply", fd, false);
		/* a control message on send: IP_TTL */
		{
			union {
				char b[CMSG_SPACE(sizeof(int))];
				struct cmsghdr align;
			} cb;
			struct cmsghdr *c;
			int ttl = 5;

			memset(&cb, 0, sizeof(cb));
			iov[0].iov_base = conf_big;
			iov[0].iov_len = 64;
			conf_echo(conf_big, 64, 26);
			m.msg_iovlen = 1;
			m.msg_control = cb.b;
			m.msg_controllen = sizeof(cb.b);
			c = CMSG_FIRSTHDR(&m);
			c->cmsg_level = SOL_IP;
			c->cmsg_type = IP_TTL;
			c->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(c), &ttl, sizeof(ttl));
			TRY("sendmsg cmsg IP_TTL 5", pingsock_sendmsg(fd, &m, 0));
			conf_reply1("  reply", fd, false);
			ttl = 0;
			memcpy(CMSG_DATA(c), &ttl, sizeof(ttl));
			TRY("sendmsg cmsg IP_TTL 0", pingsock_sendmsg(fd, &m, 0));
			ttl = 256;
			memcpy(CMSG_DATA(c), &ttl, sizeof(ttl));
			TRY("sendmsg cmsg IP_TTL 256", pingsock_sendmsg(fd, &m, 0));
			c->cmsg_type = 999;
			TRY("sendmsg cmsg SOL_IP/999", pingsock_sendmsg(fd, &m, 0));
			c->cmsg_type = IP_TTL;
			c->cmsg_len = 8;
			TRY("sendmsg cmsg_len 8", pingsock_sendmsg(fd, &m, 0));
		}
	}
	conf_quiet("nothing else arrived", fd, 200);
	pingsock_close(fd);

	out("## the identifier a failed send binds stays");
	fd = conf_socket();
	a = conf_sin(CONF_NOROUTE, 0);
	conf_echo(conf_big, 64, 27);
	TRY("sendto 10.99.0.1", pingsock_sendto(fd, conf_big, 64, 0, SA(&a),
						sizeof(a)));
	{
		unsigned id1 = conf_ident(fd);

		conf_ping("then sendto 127.0.0.1", fd, "127.0.0.1", 28, 64);
		out("  same identifier as after the failed send: %s",
		    id1 && id1 == conf_ident(fd) ? "yes" : "no");
		conf_reply1("  reply", fd, false);
	}
	pingsock_close(fd);
	return 0;
}
