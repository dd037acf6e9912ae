/* SPDX-License-Identifier: ISC */
/*
 * sendto6 / sendmsg on IPv6 ping sockets: sizes, the header checks, the
 * destination address (lengths, families, v4-mapped, scope ids), flags,
 * path MTU discovery on lo, sendmsg shapes; each row on a fresh socket,
 * with the socket's name afterwards (the first send binds an identifier
 * even when it fails).
 */
// needs: peer (fd00:201::1 and fe80::1 on veth0, the peer fd00:201::2 and fe80::2)
#include "conf.h"
#include "steps/sendto.h"

#define F (&conf_v6)

static const struct sendto_row sizes[] = {
	{ "64 bytes", "::1", NULL, 64, true, 1 },
	{ "8 bytes (no payload)", "::1", NULL, 8, true, 2 },
	{ "9 bytes", "::1", NULL, 9, true, 3 },
	{ "1452 bytes", "::1", NULL, 1452, true, 4 },
	{ "4000 bytes", "::1", NULL, 4000, true, 5 },
	{ "65496 bytes (65536 with the IPv6 header)", "::1", NULL, 65496, true,
	  6 },
	{ "65497 bytes (fragmented)", "::1", NULL, 65497, true, 7 },
	{ "65535 bytes (largest)", "::1", NULL, 65535, true, 8 },
	{ "65536 bytes", "::1", NULL, 65536, false, 9 },
	{ "70000 bytes", "::1", NULL, 70000, false, 9 },
	{ "7 bytes", "::1", NULL, 7, false, 9 },
	{ "1 byte", "::1", NULL, 1, false, 9 },
	{ "0 bytes", "::1", NULL, 0, false, 9 },
};

static const struct sendto_row destinations[] = {
	{ "::", "::", NULL, 64, false, 14 },
	{ "own fd00:201::1", CONF6_LOCAL, NULL, 64, true, 15 },
	{ "peer fd00:201::2", CONF6_PEER, NULL, 64, true, 16 },
	{ "v4-mapped ::ffff:127.0.0.1", "::ffff:127.0.0.1", NULL, 64, false,
	  17 },
	{ "v4-mapped ::ffff:0.0.0.0", "::ffff:0.0.0.0", NULL, 64, false, 17 },
	{ "v4-compatible ::127.0.0.1", "::127.0.0.1", NULL, 64, false, 17 },
	{ "no route fd00:99::1", CONF6_NOROUTE, NULL, 64, false, 17 },
	{ "no route fd00:99::1, 7 bytes", CONF6_NOROUTE, NULL, 7, false, 17 },
	{ "no route 2001:db8::1", "2001:db8::1", NULL, 64, false, 17 },
	{ "link-local fe80::2 without scope", CONF6_LL_PEER, NULL, 64, false,
	  18 },
	{ "link-local fe80::2 scope veth0", CONF6_LL_PEER, "veth0", 64, true,
	  19 },
	{ "link-local fe80::2 scope 9999", CONF6_LL_PEER, "9999", 64, false,
	  20 },
	{ "own link-local fe80::1 scope veth0", CONF6_LL_LOCAL, "veth0", 64,
	  true, 21 },
	{ "global fd00:201::2 scope lo (scope ignored)", CONF6_PEER, "lo", 64,
	  true, 22 },
	{ "global fd00:201::2 scope 9999 (scope ignored)", CONF6_PEER, "9999",
	  64, true, 23 },
	{ "multicast ff02::1 without scope", "ff02::1", NULL, 64, false, 24 },
};

static const struct sendto_flag flags[] = {
	{ "MSG_OOB", MSG_OOB, false, 30 },
	{ "MSG_DONTWAIT", MSG_DONTWAIT, true, 31 },
	{ "MSG_CONFIRM", MSG_CONFIRM, true, 32 },
	{ "MSG_NOSIGNAL", MSG_NOSIGNAL, true, 33 },
	{ "MSG_DONTROUTE", MSG_DONTROUTE, true, 34 },
	{ "MSG_MORE", MSG_MORE, true, 35 },
	{ "MSG_EOR", MSG_EOR, true, 36 },
};

static void header(void)
{
	static const struct {
		const char *what;
		int off;
		uint8_t val;
		bool answer;
	} rows[] = {
		{ "type 8 (IPv4 echo request)", 0, 8, false },
		{ "type 129 (echo reply)", 0, 129, false },
		{ "type 0", 0, 0, false },
		{ "type 1 (destination unreachable)", 0, 1, false },
		{ "type 130 (MLD query)", 0, 130, false },
		{ "type 135 (neighbour solicitation)", 0, 135, false },
		{ "type 160 (extended echo request)", 0, 160, true },
		{ "type 161 (extended echo reply)", 0, 161, false },
		{ "code 1", 1, 1, false },
		{ "code 255", 1, 255, false },
	};

	out("## header");
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		sendto_hdr(F, rows[i].what, rows[i].off, rows[i].val, false,
			   rows[i].answer);
	sendto_ident_cksum(F);
}

static void lengths_families(void)
{
	static const char *const what[] = { "addrlen 24 (RFC 2133 size)",
					    "addrlen 27" };
	static const socklen_t len[] = { 24, 27 };
	struct sockaddr_in6 a;
	struct sockaddr_in a4;
	struct sockaddr_storage ss;

	out("## address lengths and families");
	sendto_lengths(F, what, len, 2, 10);
	a4 = conf_sin("127.0.0.1", 0);
	sendto_full(F, "AF_INET 127.0.0.1 addrlen 16", 64, &a4, sizeof(a4), 0,
		    false, false, 12);
	memset(&ss, 0, sizeof(ss));
	memcpy(&ss, &a4, sizeof(a4));
	sendto_full(F, "AF_INET 127.0.0.1 addrlen 28", 64, &ss, sizeof(a), 0,
		    false, false, 12);
	a = conf_sin6("::1", 0, 0);
	a.sin6_family = AF_UNSPEC;
	sendto_full(F, "AF_UNSPEC ::1", 64, &a, sizeof(a), 0, false, false,
		    12);
	a = conf_sin6("::1", 7, 0);
	sendto_full(F, "[::1]:7", 64, &a, sizeof(a), 0, false, true, 13);
	a = conf_sin6("::1", 0, 0);
	a.sin6_flowinfo = htonl(0x12345);
	sendto_full(F, "::1 with flowinfo 0x12345", 64, &a, sizeof(a), 0,
		    false, true, 13);
}

/* A send of seq that fails locally, and the error record it leaves. */
static void local_error(int fd, const char *what, uint16_t seq)
{
	conf_ping6(what, fd, "::1", seq, 65497);
	conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 100, 0, 512, 65497);
}

static void pmtu_lo(void)
{
	int fd = sendto_pmtu_lo(F, 40, 65496);

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
	local_error(fd, "65497 bytes", 44);
	TRY("IPV6_MTU_DISCOVER IPV6_PMTUDISC_DONT",
	    conf_setint(fd, SOL_IPV6, IPV6_MTU_DISCOVER, IPV6_PMTUDISC_DONT));
	conf_ping6("65497 bytes", fd, "::1", 45, 65497);
	conf_reply6_1("  reply", fd, false);
	TRY("IPV6_DONTFRAG 1", conf_setint(fd, SOL_IPV6, IPV6_DONTFRAG, 1));
	local_error(fd, "65497 bytes with IPV6_DONTFRAG", 46);
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
}

/* sendmsg with one control message of level/type and an int value. */
static void cmsg_int(const char *what, int fd, int level, int type, int v,
		     size_t cmsglen, uint16_t seq)
{
	conf_echo6(conf_big, 64, seq);
	if (sendto_cmsg_int(F, what, fd, level, type, v, cmsglen) > 0)
		conf_reply6("  reply", fd, 1000, 0, 0, false);
}

static void sendmsg_cmsgs(void)
{
	int fd = sendto_sendmsg(F, 50, 24);

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
}

int main(void)
{
	conf_begin("sendto6");
	out("## sizes (to ::1, lo has MTU 65536)");
	sendto_rows(F, sizes, sizeof(sizes) / sizeof(sizes[0]));
	header();
	lengths_families();
	out("## destinations");
	sendto_rows(F, destinations,
		    sizeof(destinations) / sizeof(destinations[0]));
	sendto_flags(F, flags, sizeof(flags) / sizeof(flags[0]));
	pmtu_lo();
	sendmsg_cmsgs();
	sendto_failed_binds(F, 60);
	return 0;
}
