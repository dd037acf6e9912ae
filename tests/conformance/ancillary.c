/*
 * ancillary: the control messages a reply carries (IP_RECVTTL,
 * IP_RECVTOS, IP_PKTINFO, SO_TIMESTAMP, SO_TIMESTAMPNS), msg_controllen,
 * and what a short control buffer does.
 */
// needs: peer
#include "conf.h"

static void opt(const char *what, int fd, int level, int name, int v)
{
	TRY(what, conf_setint(fd, level, name, v));
}

/* Ping dst, then receive the reply with ctllen bytes of control room. */
static void one(const char *what, int fd, const char *dst, uint16_t seq,
		size_t ctllen, int flags)
{
	conf_ping(L("%s: sendto", what), fd, dst, seq, 64);
	conf_reply(L("%s: recvmsg", what), fd, 1000, flags, ctllen, false);
}

int main(void)
{
	int fd;

	conf_begin("ancillary");

	out("## nothing enabled");
	fd = conf_socket();
	one("no options", fd, "127.0.0.1", 1, 512, 0);
	one("no options, no control buffer", fd, "127.0.0.1", 2, 0, 0);
	pingsock_close(fd);

	out("## IP_RECVTTL");
	fd = conf_socket();
	opt("IP_RECVTTL 1", fd, SOL_IP, IP_RECVTTL, 1);
	one("ttl", fd, "127.0.0.1", 3, 512, 0);
	opt("IP_TTL 3 (outgoing)", fd, SOL_IP, IP_TTL, 3);
	one("ttl, sent with TTL 3", fd, "127.0.0.1", 4, 512, 0);
	opt("IP_RECVTTL 0", fd, SOL_IP, IP_RECVTTL, 0);
	one("ttl off", fd, "127.0.0.1", 5, 512, 0);
	pingsock_close(fd);

	out("## IP_RECVTOS");
	fd = conf_socket();
	opt("IP_RECVTOS 1", fd, SOL_IP, IP_RECVTOS, 1);
	one("tos", fd, "127.0.0.1", 6, 512, 0);
	opt("IP_TOS 0x10 (outgoing)", fd, SOL_IP, IP_TOS, 0x10);
	one("tos, sent with 0x10", fd, "127.0.0.1", 7, 512, 0);
	opt("IP_TOS 0xb9 (outgoing)", fd, SOL_IP, IP_TOS, 0xb9);
	one("tos, sent with 0xb9", fd, "127.0.0.1", 8, 512, 0);
	pingsock_close(fd);

	out("## IP_PKTINFO");
	fd = conf_socket();
	opt("IP_PKTINFO 1", fd, SOL_IP, IP_PKTINFO, 1);
	one("pktinfo", fd, "127.0.0.1", 9, 512, 0);
	one("pktinfo from 127.0.0.2", fd, "127.0.0.2", 10, 512, 0);
	one("pktinfo from the peer", fd, CONF_PEER, 11, 512, 0);
	pingsock_close(fd);

	out("## IP_RECVOPTS, IP_RETOPTS (no options in the reply)");
	fd = conf_socket();
	opt("IP_RECVOPTS 1", fd, SOL_IP, IP_RECVOPTS, 1);
	opt("IP_RETOPTS 1", fd, SOL_IP, IP_RETOPTS, 1);
	one("options", fd, "127.0.0.1", 12, 512, 0);
	pingsock_close(fd);

	out("## SO_TIMESTAMP");
	fd = conf_socket();
	opt("SO_TIMESTAMP 1", fd, SOL_SOCKET, SO_TIMESTAMP, 1);
	one("timestamp", fd, "127.0.0.1", 13, 512, 0);
	pingsock_close(fd);

	out("## SO_TIMESTAMPNS");
	fd = conf_socket();
	opt("SO_TIMESTAMPNS 1", fd, SOL_SOCKET, SO_TIMESTAMPNS, 1);
	one("timestampns", fd, "127.0.0.1", 14, 512, 0);
	pingsock_close(fd);

	out("## SO_TIMESTAMP, then SO_TIMESTAMPNS");
	fd = conf_socket();
	opt("SO_TIMESTAMP 1", fd, SOL_SOCKET, SO_TIMESTAMP, 1);
	opt("SO_TIMESTAMPNS 1", fd, SOL_SOCKET, SO_TIMESTAMPNS, 1);
	conf_getint("  SO_TIMESTAMP", fd, SOL_SOCKET, SO_TIMESTAMP, 4);
	conf_getint("  SO_TIMESTAMPNS", fd, SOL_SOCKET, SO_TIMESTAMPNS, 4);
	one("both", fd, "127.0.0.1", 15, 512, 0);
	pingsock_close(fd);

	out("## SO_TIMESTAMPNS, then SO_TIMESTAMP");
	fd = conf_socket();
	opt("SO_TIMESTAMPNS 1", fd, SOL_SOCKET, SO_TIMESTAMPNS, 1);
	opt("SO_TIMESTAMP 1", fd, SOL_SOCKET, SO_TIMESTAMP, 1);
	conf_getint("  SO_TIMESTAMP", fd, SOL_SOCKET, SO_TIMESTAMP, 4);
	conf_getint("  SO_TIMESTAMPNS", fd, SOL_SOCKET, SO_TIMESTAMPNS, 4);
	one("both", fd, "127.0.0.1", 16, 512, 0);
	opt("SO_TIMESTAMP 0", fd, SOL_SOCKET, SO_TIMESTAMP, 0);
	conf_getint("  SO_TIMESTAMP", fd, SOL_SOCKET, SO_TIMESTAMP, 4);
	conf_getint("  SO_TIMESTAMPNS", fd, SOL_SOCKET, SO_TIMESTAMPNS, 4);
	one("after SO_TIMESTAMP 0", fd, "127.0.0.1", 17, 512, 0);
	pingsock_close(fd);

	out("## everything");
	fd = conf_socket();
	opt("SO_TIMESTAMPNS 1", fd, SOL_SOCKET, SO_TIMESTAMPNS, 1);
	opt("IP_PKTINFO 1", fd, SOL_IP, IP_PKTINFO, 1);
	opt("IP_RECVTTL 1", fd, SOL_IP, IP_RECVTTL, 1);
	opt("IP_RECVTOS 1", fd, SOL_IP, IP_RECVTOS, 1);
	one("all", fd, "127.0.0.1", 18, 512, 0);
	one("all, from the peer", fd, CONF_PEER, 19, 512, 0);
	one("all, MSG_CMSG_CLOEXEC", fd, "127.0.0.1", 20, 512,
	    MSG_CMSG_CLOEXEC);
	one("all, MSG_PEEK", fd, "127.0.0.1", 21, 512, MSG_PEEK);
	conf_reply("  then recvmsg", fd, 1000, 0, 512, false);
	pingsock_close(fd);

	out("## enabled after the reply was queued");
	fd = conf_socket();
	conf_ping("sendto", fd, "127.0.0.1", 22, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	opt("IP_RECVTTL 1", fd, SOL_IP, IP_RECVTTL, 1);
	opt("IP_RECVTOS 1", fd, SOL_IP, IP_RECVTOS, 1);
	opt("SO_TIMESTAMP 1", fd, SOL_SOCKET, SO_TIMESTAMP, 1);
	conf_reply("recvmsg", fd, 1000, 0, 512, false);
	pingsock_close(fd);

	out("## short control buffers (IP_RECVTTL: one cmsg of 20, space 24)");
	fd = conf_socket();
	opt("IP_RECVTTL 1", fd, SOL_IP, IP_RECVTTL, 1);
	{
		static const size_t lens[] = { 0, 8, 15, 16, 18, 20, 23, 24,
					       25 };

		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
			one(L("controllen %zu", lens[i]), fd, "127.0.0.1",
			    (uint16_t)(30 + i), lens[i], 0);
	}
	opt("SO_TIMESTAMP 1", fd, SOL_SOCKET, SO_TIMESTAMP, 1);
	out("(with SO_TIMESTAMP too: cmsgs of 32 and 20, spaces 32 and 24)");
	{
		static const size_t lens[] = { 16, 24, 31, 32, 40, 48, 52, 55,
					       56 };

		for (size_t i = 0; i < sizeof(lens) / sizeof(lens[0]); i++)
			one(L("controllen %zu", lens[i]), fd, "127.0.0.1",
			    (uint16_t)(40 + i), lens[i], 0);
	}
	pingsock_close(fd);
	return 0;
}
