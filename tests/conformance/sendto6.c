/*
 * sendto6 / sendmsg on IPv6 ping sockets: sizes, the header checks, the
 * destination address (lengths, families, v4-mapped, scope ids), flags,
 * path MTU discovery on lo, sendmsg shapes; each row on a fresh socket,
 * with the socket's name afterwards (the first send binds an identifier
 * even when it fails).
 */
// needs: peer (fd00:201::1 and fe80::1 on veth0, the peer fd00:201::2 and fe80::2)
#include "conf.h"

/* One sendto of an Echo Request of len bytes; the name afterwards; the
 * reply if one is expected. */
static void row_full(const char *what, size_t len, const void *dst,
		     socklen_t dstlen, int flags, bool want_reply,
		     uint16_t seq)
{
	int fd = conf_socket6();

	conf_echo6(conf_big, len, seq);
	TRY(what, pingsock_sendto(fd, conf_big, len, flags, dst, dstlen));
	conf_name6(L("  %s: getsockname", what), fd, false, PORT_MASK);
	if (want_reply)
		conf_reply6_1(L("  %s: reply", what), fd, false);
	pingsock_close(fd);
}

static void row_to(const char *what, const char *ip, unsigned scope,
		   size_t len, bool want_reply, uint16_t seq)
{
	struct sockaddr_in6 a = conf_sin6(ip, 0, scope);

	row_full(what, len, &a, sizeof(a), 0, want_reply, seq);
}

/* An Echo Request to ::1 with one header byte changed. */
static void row_hdr(const char *what, int off, uint8_t val, bool reply)
{
	struct sockaddr_in6 a = conf_sin6("::1", 0, 0);
	int fd = conf_socket6();

	conf_echo6(conf_big, 64, 30);
	conf_big[off] = val;
	TRY(what, pingsock_sendto(fd, conf_big, 64, 0, SA(&a), sizeof(a)));
	if (reply)
		conf_quiet6(L("  %s: answer", what), fd, 300);
	pingsock_close(fd);
}

/* sendmsg with one control message of level/type and an int value. */
static void cmsg_int(const char *what, int fd, int level, int type, int v,
		     size_t cmsglen, uint16_t seq)
{
	union {
		char b[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} cb;
	struct sockaddr_in6 a = conf_sin6("::1", 0, 0);
	struct iovec iov = { conf_big, 64 };
	struct msghdr m;
	struct cmsghdr *c;

	memset(&cb, 0, sizeof(cb));
	memset(&m, 0, sizeof(m));
	conf_echo6(conf_big, 64, seq);
	m.msg_name = &a;
	m.msg_namelen = sizeof(a);
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cb.b;
	m.msg_controllen = sizeof(cb.b);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = cmsglen;
	memcpy(CMSG_DATA(c), &v, sizeof(v));
	if (TRY(what, pingsock_sendmsg(fd, &m, 0)) > 0)
		conf_reply6("  reply", fd, 1000, 0, 0, false);
}

int main(void)
{
	struct sockaddr_in6 a;
	struct sockaddr_in a4;
	struct sockaddr_storage ss;
	unsigned veth0 = conf_ifidx(CONF6_IF), lo = conf_ifidx("lo");
	int fd;

	conf_begin("sendto6");

	out("## sizes (to ::1, lo has MTU 65536)");
	row_to("64 bytes", "::1", 0, 64, true, 1);
	row_to("8 bytes (no payload)", "::1", 0, 8, true, 2);
	row_to("9 bytes", "::1", 0, 9, true, 3);
	row_to("1452 bytes", "::1", 0, 1452, true, 4);
	row_to("4000 bytes", "::1", 0, 4000, true, 5);
	row_to("65496 bytes (65536 with the IPv6 header)", "::1", 0, 65496,
	       true, 6);
	row_to("65497 bytes (fragmented)", "::1", 0, 65497, true, 7);
	row_to("65535 bytes (largest)", "::1", 0, 65535, true, 8);
	row_to("65536 bytes", "::1", 0, 65536, false, 9);
	row_to("70000 bytes", "::1", 0, 70000, false, 9);
	row_to("7 bytes", "::1", 0, 7, false, 9);
	row_to("1 byte", "::1", 0, 1, false, 9);
	row_to("0 bytes", "::1", 0, 0, false, 9);

	out("## header");
	row_hdr("type 8 (IPv4 echo request)", 0, 8, false);
	row_hdr("type 129 (echo reply)", 0, 129, false);
	row_hdr("type 0", 0, 0, false);
	row_hdr("type 1 (destination unreachable)", 0, 1, false);
	row_hdr("type 130 (MLD query)", 0, 130, false);
	row_hdr("type 135 (neighbour solicitation)", 0, 135, false);
	row_hdr("type 160 (extended echo request)", 0, 160, true);
	row_hdr("type 161 (extended echo reply)", 0, 161, false);
	row_hdr("code 1", 1, 1, false);
	row_hdr("code 255", 1, 255, false);
	/* identifier and checksum as given are ignored */
	{
		int s = conf_socket6();

		a = conf_sin6("::1", 0, 0);
		conf_echo6(conf_big, 64, 0x1234);
		conf_big[2] = conf_big[3] = 0;
		conf_big[4] = conf_big[5] = 0;
		TRY("ident 0, checksum 0, seq 0x1234",
		    pingsock_sendto(s, conf_big, 64, 0, SA(&a), sizeof(a)));
		conf_reply6_1("  reply", s, false);
		conf_echo6(conf_big, 64, 0xffff);
		TRY("seq 0xffff", pingsock_sendto(s, conf_big, 64, 0, SA(&a),
						  sizeof(a)));
		conf_reply6_1("  reply", s, false);
		conf_echo6(conf_big, 64, 0);
		TRY("seq 0", pingsock_sendto(s, conf_big, 64, 0, SA(&a),
					     sizeof(a)));
		conf_reply6_1("  reply", s, false);
		pingsock_close(s);
	}

	out("## address lengths and families");
	row_full("no address", 64, NULL, 0, 0, false, 10);
	a = conf_sin6("::1", 0, 0);
	row_full("address, addrlen 0", 64, &a, 0, 0, false, 10);
	row_full("addrlen 24 (RFC 2133 size)", 64, &a, 24, 0, false, 10);
	row_full("addrlen 27", 64, &a, 27, 0, false, 10);
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &a, sizeof(a));
	row_full("addrlen 128", 64, &ss, sizeof(ss), 0, true, 11);
	row_full("addrlen 129", 64, &ss, 129, 0, false, 11);
	a4 = conf_sin("127.0.0.1", 0);
	row_full("AF_INET 127.0.0.1 addrlen 16", 64, &a4, sizeof(a4), 0,
		 false, 12);
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &a4, sizeof(a4));
	row_full("AF_INET 127.0.0.1 addrlen 28", 64, &ss, sizeof(a), 0, false,
		 12);
	a = conf_sin6("::1", 0, 0);
	a.sin6_family = AF_UNSPEC;
	row_full("AF_UNSPEC ::1", 64, &a, sizeof(a), 0, false, 12);
	a = conf_sin6("::1", 7, 0);
	row_full("[::1]:7", 64, &a, sizeof(a), 0, true, 13);
	a = conf_sin6("::1", 0, 0);
	a.sin6_flowinfo = htonl(0x12345);
	row_full("::1 with flowinfo 0x12345", 64, &a, sizeof(a), 0, true, 13);

	out("## destinations");
	row_to("::", "::", 0, 64, false, 14);
	row_to("own fd00:201::1", CONF6_LOCAL, 0, 64, true, 15);
	row_to("peer fd00:201::2", CONF6_PEER, 0, 64, true, 16);
	row_to("v4-mapped ::ffff:127.0.0.1", "::ffff:127.0.0.1", 0, 64, false,
	       17);
	row_to("v4-mapped ::ffff:0.0.0.0", "::ffff:0.0.0.0", 0, 64, false,
	       17);
	row_to("v4-compatible ::127.0.0.1", "::127.0.0.1", 0, 64, false, 17);
	row_to("no route fd00:99::1", CONF6_NOROUTE, 0, 64, false, 17);
	row_to("no route fd00:99::1, 7 bytes", CONF6_NOROUTE, 0, 7, false, 17);
	row_to("no route 2001:db8::1", "2001:db8::1", 0, 64, false, 17);
	row_to("link-local fe80::2 without scope", CONF6_LL_PEER, 0, 64,
	       false, 18);
	row_to("link-local fe80::2 scope veth0", CONF6_LL_PEER, veth0, 64,
	       true, 19);
	row_to("link-local fe80::2 scope 9999", CONF6_LL_PEER, 9999, 64, false,
	       20);
	row_to("own link-local fe80::1 scope veth0", CONF6_LL_LOCAL, veth0,
	       64, true, 21);
	row_to("global fd00:201::2 scope lo (scope ignored)", CONF6_PEER, lo,
	       64, true, 22);
	row_to("global fd00:201::2 scope 9999 (scope ignored)", CONF6_PEER,
	       9999, 64, true, 23);
	row_to("multicast ff02::1 without scope", "ff02::1", 0, 64, false, 24);

	out("## flags");
	a = conf_sin6("::1", 0, 0);
	row_full("MSG_OOB", 64, &a, sizeof(a), MSG_OOB, false, 30);
	row_full("MSG_DONTWAIT", 64, &a, sizeof(a), MSG_DONTWAIT, true, 31);
	row_full("MSG_CONFIRM", 64, &a, sizeof(a), MSG_CONFIRM, true, 32);
	row_full("MSG_NOSIGNAL", 64, &a, sizeof(a), MSG_NOSIGNAL, true, 33);
	row_full("MSG_DONTROUTE", 64, &a, sizeof(a), MSG_DONTROUTE, true, 34);
	row_full("MSG_MORE", 64, &a, sizeof(a), MSG_MORE, true, 35);
	row_full("MSG_EOR", 64, &a, sizeof(a), MSG_EOR, true, 36);

	out("## path MTU discovery on lo");
	fd = conf_socket6();
	TRY("IPV6_MTU_DISCOVER IPV6_PMTUDISC_DO",
	    conf_setint(fd, SOL_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DO));
	conf_ping6("4000 bytes", fd, "::1", 40, 4000);
	conf_reply6_1("  reply", fd, false);
	conf_ping6("65496 bytes", fd, "::1", 41, 65496);
	conf_reply6_1("  reply", fd, false);
	conf_ping6("65497 bytes", fd, "::1", 42, 65497);
	conf_errq6("  recvmsg MSG_ERRQUEUE (IPV6_RECVERR off)", fd, 100, 0,
		   512, 65497);
	TRY("IPV6_RECVERR 1", conf_setint(fd, SOL_IPV6, IPV6_RECVERR, 1));
	conf_ping6("65497 bytes", fd, "::1", 43, 65497);
	conf_poll("  poll", fd, POLLIN, 0);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 100, 0, 512, 65497);
	conf_errq6("  recvmsg MSG_ERRQUEUE again", fd, 100, 0, 512, 65497);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	TRY("IPV6_MTU_DISCOVER IPV6_PMTUDISC_PROBE",
	    conf_setint(fd, SOL_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_PROBE));
	conf_ping6("65497 bytes", fd, "::1", 44, 65497);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 100, 0, 512, 65497);
	TRY("IPV6_MTU_DISCOVER IPV6_PMTUDISC_DONT",
	    conf_setint(fd, SOL_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DONT));
	conf_ping6("65497 bytes", fd, "::1", 45, 65497);
	conf_reply6_1("  reply", fd, false);
	TRY("IPV6_DONTFRAG 1", conf_setint(fd, SOL_IPV6, IPV6_DONTFRAG, 1));
	conf_ping6("65497 bytes with IPV6_DONTFRAG", fd, "::1", 46, 65497);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 100, 0, 512, 65497);
	/* the local error's msg_name port is the request's type and code
	 * (they share the flow's port field): 128/0 gives 32768, 160/0 this */
	{
		struct sockaddr_in6 l = conf_sin6("::1", 0, 0);

		conf_echo6(conf_big, 65497, 47);
		conf_big[0] = 160;
		TRY("65497 bytes of type 160 with IPV6_DONTFRAG",
		    pingsock_sendto(fd, conf_big, 65497, 0, SA(&l),
				    sizeof(l)));
		conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 100, 0, 512, 65497);
	}
	conf_quiet6("  nothing else", fd, 100);
	pingsock_close(fd);

	out("## sendmsg");
	fd = conf_socket6();
	{
		struct iovec iov[3];
		struct msghdr m;

		a = conf_sin6("::1", 0, 0);
		conf_echo6(conf_big, 64, 50);
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
		conf_reply6_1("  reply", fd, false);
		m.msg_namelen = 0;
		TRY("sendmsg namelen 0", pingsock_sendmsg(fd, &m, 0));
		m.msg_name = NULL;
		m.msg_namelen = sizeof(a);
		TRY("sendmsg name NULL", pingsock_sendmsg(fd, &m, 0));
		m.msg_name = &a;
		m.msg_namelen = 24;
		TRY("sendmsg namelen 24", pingsock_sendmsg(fd, &m, 0));
		m.msg_namelen = sizeof(a);
		m.msg_iovlen = 0;
		TRY("sendmsg no iov", pingsock_sendmsg(fd, &m, 0));
		iov[0].iov_len = 0;
		iov[1].iov_base = conf_big;
		iov[1].iov_len = 8;
		iov[2].iov_len = 0;
		m.msg_iovlen = 3;
		TRY("sendmsg 0+8+0", pingsock_sendmsg(fd, &m, 0));
		conf_reply6_1("  reply", fd, false);
	}
	cmsg_int("sendmsg cmsg SOL_IPV6/9999", fd, SOL_IPV6, 9999, 1,
		 CMSG_LEN(sizeof(int)), 51);
	cmsg_int("sendmsg cmsg SOL_IPV6/IPV6_HOPLIMIT cmsg_len 8", fd,
		 SOL_IPV6, IPV6_HOPLIMIT, 5, 8, 52);
	cmsg_int("sendmsg cmsg SOL_IP/IP_TTL 5 (other level)", fd, SOL_IP,
		 IP_TTL, 5, CMSG_LEN(sizeof(int)), 53);
	cmsg_int("sendmsg cmsg level 9999", fd, 9999, 1, 5,
		 CMSG_LEN(sizeof(int)), 54);
	conf_quiet6("nothing else arrived", fd, 200);
	pingsock_close(fd);

	out("## the identifier a failed send binds stays");
	fd = conf_socket6();
	a = conf_sin6(CONF6_NOROUTE, 0, 0);
	conf_echo6(conf_big, 64, 60);
	TRY("sendto fd00:99::1", pingsock_sendto(fd, conf_big, 64, 0, SA(&a),
						 sizeof(a)));
	{
		unsigned id1 = conf_ident(fd);

		conf_ping6("then sendto ::1", fd, "::1", 61, 64);
		out("  same identifier as after the failed send: %s",
		    id1 && id1 == conf_ident(fd) ? "yes" : "no");
		conf_reply6_1("  reply", fd, false);
	}
	pingsock_close(fd);
	return 0;
}
