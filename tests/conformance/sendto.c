/* SPDX-License-Identifier: ISC */
/*
 * sendto / sendmsg: every IPv4 row of the sendto table that needs no ICMP
 * error, each on a fresh socket, with the socket's name afterwards (the
 * first send binds an identifier even when it fails).
 */
// needs: peer (10.201.0.0/24 on veth0, for the directed broadcast)
#include "conf.h"
#include "steps/sendto.h"

#define F (&conf_v4)

static const struct sendto_row sizes[] = {
	{ "64 bytes", "127.0.0.1", NULL, 64, true, 1 },
	{ "8 bytes (no payload)", "127.0.0.1", NULL, 8, true, 2 },
	{ "9 bytes", "127.0.0.1", NULL, 9, true, 3 },
	{ "1472 bytes", "127.0.0.1", NULL, 1472, true, 4 },
	{ "4000 bytes", "127.0.0.1", NULL, 4000, true, 5 },
	{ "65515 bytes (largest)", "127.0.0.1", NULL, 65515, true, 6 },
	{ "65516 bytes", "127.0.0.1", NULL, 65516, false, 7 },
	{ "65535 bytes", "127.0.0.1", NULL, 65535, false, 7 },
	{ "70000 bytes", "127.0.0.1", NULL, 70000, false, 7 },
	{ "7 bytes", "127.0.0.1", NULL, 7, false, 7 },
	{ "1 byte", "127.0.0.1", NULL, 1, false, 7 },
	{ "0 bytes", "127.0.0.1", NULL, 0, false, 7 },
};

static const struct sendto_row destinations[] = {
	{ "127.0.0.2", "127.0.0.2", NULL, 64, true, 11 },
	{ "0.0.0.0", "0.0.0.0", NULL, 64, true, 12 },
	{ "peer 10.201.0.2", CONF_PEER, NULL, 64, true, 13 },
	{ "own 10.201.0.1", CONF_LOCAL, NULL, 64, true, 14 },
	{ "no route 10.99.0.1", CONF_NOROUTE, NULL, 64, false, 15 },
	{ "no route 10.99.0.1, 7 bytes", CONF_NOROUTE, NULL, 7, false, 15 },
	{ "multicast 224.0.0.1", "224.0.0.1", NULL, 64, false, 15 },
};

static const struct sendto_flag flags[] = {
	{ "MSG_OOB", MSG_OOB, false, 17 },
	{ "MSG_DONTWAIT", MSG_DONTWAIT, true, 18 },
	{ "MSG_CONFIRM", MSG_CONFIRM, true, 19 },
	{ "MSG_NOSIGNAL", MSG_NOSIGNAL, true, 20 },
	{ "MSG_DONTROUTE", MSG_DONTROUTE, true, 21 },
	{ "MSG_MORE", MSG_MORE, true, 22 },
	{ "MSG_EOR", MSG_EOR, true, 22 },
	{ "MSG_FASTOPEN", MSG_FASTOPEN, true, 22 },
};

static void header(void)
{
	static const struct {
		const char *what;
		int off;
		uint8_t val;
	} rows[] = {
		{ "type 0 (echo reply)", 0, 0 },
		{ "type 13 (timestamp)", 0, 13 },
		{ "type 42 (extended echo)", 0, 42 },
		{ "type 43", 0, 43 },
		{ "type 128", 0, 128 },
		{ "code 1", 1, 1 },
		{ "code 255", 1, 255 },
	};

	out("## header");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		sendto_hdr(F, rows[i].what, rows[i].off, rows[i].val, true,
			   false);
	sendto_ident_cksum(F);
}

/* Other families, and the broadcast addresses with and without
 * SO_BROADCAST. */
static void addresses(void)
{
	static const char *const what[] = { "addrlen 8", "addrlen 15" };
	static const socklen_t len[] = { 8, 15 };
	struct sockaddr_in a;
	struct sockaddr_in6 a6;

	out("## addresses");
	sendto_lengths(F, what, len, 2, 8);
	memset(&a6, 0, sizeof(a6));
	a6.sin6_family = AF_INET6;
	a6.sin6_addr = in6addr_loopback;
	sendto_full(F, "AF_INET6 ::1", 64, &a6, sizeof(a6), 0, false, false,
		    9);
	a = conf_sin("127.0.0.1", 0);
	a.sin_family = AF_INET6;
	sendto_full(F, "AF_INET6 family, addrlen 16", 64, &a, sizeof(a), 0,
		    false, false, 9);
	a.sin_family = AF_UNSPEC;
	sendto_full(F, "AF_UNSPEC 127.0.0.1", 64, &a, sizeof(a), 0, false,
		    false, 9);
	a = conf_sin("0.0.0.0", 0);
	a.sin_family = AF_UNSPEC;
	sendto_full(F, "AF_UNSPEC 0.0.0.0", 64, &a, sizeof(a), 0, false,
		    false, 9);
	a = conf_sin("127.0.0.1", 7);
	sendto_full(F, "127.0.0.1 port 7", 64, &a, sizeof(a), 0, false, true,
		    10);
	sendto_rows(F, destinations,
		    sizeof(destinations) / sizeof(destinations[0]));
	a = conf_sin(CONF_BCAST, 0);
	sendto_full(F, "directed broadcast 10.201.0.255", 64, &a, sizeof(a),
		    0, false, false, 16);
	sendto_full(F, "directed broadcast 10.201.0.255 with SO_BROADCAST",
		    64, &a, sizeof(a), 0, true, false, 16);
	a = conf_sin("255.255.255.255", 0);
	sendto_full(F, "255.255.255.255", 64, &a, sizeof(a), 0, false, false,
		    16);
	sendto_full(F, "255.255.255.255 with SO_BROADCAST", 64, &a, sizeof(a),
		    0, true, false, 16);
}

/* sendmsg's shapes, then an IP_TTL control message. */
static void sendmsg_ttl(void)
{
	int fd = sendto_sendmsg(F, 25, 8);

	conf_echo(conf_big, 64, 26);
	sendto_cmsg_int(F, "sendmsg cmsg IP_TTL 5", fd, SOL_IP, IP_TTL, 5,
			CMSG_LEN(sizeof(int)));
	conf_reply1("  reply", fd, false);
	sendto_cmsg_int(F, "sendmsg cmsg IP_TTL 0", fd, SOL_IP, IP_TTL, 0,
			CMSG_LEN(sizeof(int)));
	sendto_cmsg_int(F, "sendmsg cmsg IP_TTL 256", fd, SOL_IP, IP_TTL, 256,
			CMSG_LEN(sizeof(int)));
	sendto_cmsg_int(F, "sendmsg cmsg SOL_IP/999", fd, SOL_IP, 999, 256,
			CMSG_LEN(sizeof(int)));
	sendto_cmsg_int(F, "sendmsg cmsg_len 8", fd, SOL_IP, IP_TTL, 256, 8);
	conf_quiet("nothing else arrived", fd, 200);
	pingsock_close(fd);
}

/* A buffer that cannot be read: EFAULT, and the socket goes on. */
static void bad_buffer(void)
{
	struct sockaddr_in a = conf_sin("127.0.0.1", 0);
	int fd = conf_socket();

	out("## a buffer that cannot be read");
	TRY("sendto buffer 0x8", pingsock_sendto(fd, (const void *)8, 64, 0,
						 SA(&a), sizeof(a)));
	conf_ping("sendto 127.0.0.1 after", fd, "127.0.0.1", 28, 64);
	conf_reply1("  reply", fd, false);
	pingsock_close(fd);
}

/* 0.0.0.0 with an IP_PKTINFO interface that does not exist: ENODEV;
 * with one that does, this host: the device's address, or 127.0.0.1. */
static void this_host_dev(int fd, uint32_t ifindex, uint16_t seq)
{
	struct sockaddr_in a = conf_sin("0.0.0.0", 0);
	union {
		char b[CMSG_SPACE(sizeof(struct in_pktinfo))];
		struct cmsghdr align;
	} c;
	struct in_pktinfo pi = { .ipi_ifindex = (int)ifindex };
	struct iovec iov = { .iov_base = conf_big, .iov_len = 64 };
	struct msghdr mh = { .msg_name = &a, .msg_namelen = sizeof(a),
			     .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = c.b, .msg_controllen = sizeof(c.b) };
	struct cmsghdr *h = CMSG_FIRSTHDR(&mh);

	memset(&c, 0, sizeof(c));
	h->cmsg_level = SOL_IP;
	h->cmsg_type = IP_PKTINFO;
	h->cmsg_len = CMSG_LEN(sizeof(pi));
	memcpy(CMSG_DATA(h), &pi, sizeof(pi));
	conf_echo(conf_big, 64, seq);
	TRY(L("sendmsg 0.0.0.0 IP_PKTINFO ifindex %s",
	      ifindex == 99 ? "99" : ifindex == 1 ? "1 (lo)" : "veth0"),
	    pingsock_sendmsg(fd, &mh, 0));
}

static void this_host(void)
{
	int fd = conf_socket();

	out("## 0.0.0.0 through an interface");
	this_host_dev(fd, 99, 29);
	this_host_dev(fd, 1, 30);
	conf_reply1("  reply", fd, false);
	/* Through veth0: the device's address (10.201.0.1), over loopback. */
	this_host_dev(fd, conf_ifidx("veth0"), 31);
	conf_reply1("  reply", fd, false);
	conf_quiet("nothing else arrived", fd, 200);
	pingsock_close(fd);
}

int main(void)
{
	conf_begin("sendto");
	out("## sizes");
	sendto_rows(F, sizes, sizeof(sizes) / sizeof(sizes[0]));
	header();
	addresses();
	sendto_flags(F, flags, sizeof(flags) / sizeof(flags[0]));
	pingsock_close(sendto_pmtu_lo(F, 23, 65515));
	sendmsg_ttl();
	sendto_failed_binds(F, 27);
	bad_buffer();
	this_host();
	return 0;
}
