/* SPDX-License-Identifier: ISC */
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

/* One step of a section: an option set (what: its label), or (level -1)
 * an echo to dst whose reply is read with ctllen bytes of control room. */
struct step {
	const char *what;
	int level, name, v;
	const char *dst;
	size_t ctllen;
};

#define OPT(what, level, name, v) { what, level, name, v, NULL, 0 }
#define ECHO(what, dst, ctllen) { what, -1, 0, 0, dst, ctllen }
#define LO "127.0.0.1"

/* Sections of steps on a fresh socket each, the echoes numbered from 1. */
static const struct {
	const char *title;
	struct step steps[6];
} sections[] = {
	{ "nothing enabled", {
		ECHO("no options", LO, 512),
		ECHO("no options, no control buffer", LO, 0) } },
	{ "IP_RECVTTL", {
		OPT("IP_RECVTTL 1", SOL_IP, IP_RECVTTL, 1),
		ECHO("ttl", LO, 512),
		OPT("IP_TTL 3 (outgoing)", SOL_IP, IP_TTL, 3),
		ECHO("ttl, sent with TTL 3", LO, 512),
		OPT("IP_RECVTTL 0", SOL_IP, IP_RECVTTL, 0),
		ECHO("ttl off", LO, 512) } },
	{ "IP_RECVTOS", {
		OPT("IP_RECVTOS 1", SOL_IP, IP_RECVTOS, 1),
		ECHO("tos", LO, 512),
		OPT("IP_TOS 0x10 (outgoing)", SOL_IP, IP_TOS, 0x10),
		ECHO("tos, sent with 0x10", LO, 512),
		OPT("IP_TOS 0xb9 (outgoing)", SOL_IP, IP_TOS, 0xb9),
		ECHO("tos, sent with 0xb9", LO, 512) } },
	{ "IP_PKTINFO", {
		OPT("IP_PKTINFO 1", SOL_IP, IP_PKTINFO, 1),
		ECHO("pktinfo", LO, 512),
		ECHO("pktinfo from 127.0.0.2", "127.0.0.2", 512),
		ECHO("pktinfo from the peer", CONF_PEER, 512) } },
	{ "IP_RECVOPTS, IP_RETOPTS (no options in the reply)", {
		OPT("IP_RECVOPTS 1", SOL_IP, IP_RECVOPTS, 1),
		OPT("IP_RETOPTS 1", SOL_IP, IP_RETOPTS, 1),
		ECHO("options", LO, 512) } },
	{ "IP_RECVORIGDSTADDR", {
		OPT("IP_RECVORIGDSTADDR 1", SOL_IP, IP_RECVORIGDSTADDR, 1),
		ECHO("origdstaddr", LO, 512),
		ECHO("origdstaddr from the peer", CONF_PEER, 512) } },
	{ "SO_TIMESTAMP", {
		OPT("SO_TIMESTAMP 1", SOL_SOCKET, SO_TIMESTAMP, 1),
		ECHO("timestamp", LO, 512) } },
	{ "SO_TIMESTAMPNS", {
		OPT("SO_TIMESTAMPNS 1", SOL_SOCKET, SO_TIMESTAMPNS, 1),
		ECHO("timestampns", LO, 512) } },
};

/* The sections (sequences 1 to 14). */
static void run_sections(void)
{
	uint16_t seq = 1;

	for (size_t i = 0; i < sizeof(sections) / sizeof(sections[0]); i++) {
		int fd = conf_socket();

		out("## %s", sections[i].title);
		for (const struct step *s = sections[i].steps;
		     s < sections[i].steps + 6 && s->what; s++)
			if (s->level < 0)
				one(s->what, fd, s->dst, seq++, s->ctllen, 0);
			else
				opt(s->what, fd, s->level, s->name, s->v);
		pingsock_close(fd);
	}
}

/* Both timestamp options, as set. */
static void timestamps(int fd)
{
	conf_getint("  SO_TIMESTAMP", fd, SOL_SOCKET, SO_TIMESTAMP, 4);
	conf_getint("  SO_TIMESTAMPNS", fd, SOL_SOCKET, SO_TIMESTAMPNS, 4);
}

/* SO_TIMESTAMP and SO_TIMESTAMPNS both on, in either order (sequences
 * 15 to 17). */
static void both_timestamps(void)
{
	int fd;

	out("## SO_TIMESTAMP, then SO_TIMESTAMPNS");
	fd = conf_socket();
	opt("SO_TIMESTAMP 1", fd, SOL_SOCKET, SO_TIMESTAMP, 1);
	opt("SO_TIMESTAMPNS 1", fd, SOL_SOCKET, SO_TIMESTAMPNS, 1);
	timestamps(fd);
	one("both", fd, LO, 15, 512, 0);
	pingsock_close(fd);

	out("## SO_TIMESTAMPNS, then SO_TIMESTAMP");
	fd = conf_socket();
	opt("SO_TIMESTAMPNS 1", fd, SOL_SOCKET, SO_TIMESTAMPNS, 1);
	opt("SO_TIMESTAMP 1", fd, SOL_SOCKET, SO_TIMESTAMP, 1);
	timestamps(fd);
	one("both", fd, LO, 16, 512, 0);
	opt("SO_TIMESTAMP 0", fd, SOL_SOCKET, SO_TIMESTAMP, 0);
	timestamps(fd);
	one("after SO_TIMESTAMP 0", fd, LO, 17, 512, 0);
	pingsock_close(fd);
}

/* Everything on at once (sequences 18 to 21). */
static void everything(void)
{
	int fd;

	out("## everything");
	fd = conf_socket();
	opt("SO_TIMESTAMPNS 1", fd, SOL_SOCKET, SO_TIMESTAMPNS, 1);
	opt("IP_PKTINFO 1", fd, SOL_IP, IP_PKTINFO, 1);
	opt("IP_RECVTTL 1", fd, SOL_IP, IP_RECVTTL, 1);
	opt("IP_RECVTOS 1", fd, SOL_IP, IP_RECVTOS, 1);
	one("all", fd, LO, 18, 512, 0);
	one("all, from the peer", fd, CONF_PEER, 19, 512, 0);
	one("all, MSG_CMSG_CLOEXEC", fd, LO, 20, 512, MSG_CMSG_CLOEXEC);
	one("all, MSG_PEEK", fd, LO, 21, 512, MSG_PEEK);
	conf_reply("  then recvmsg", fd, 1000, 0, 512, false);
	pingsock_close(fd);
}

/* Options switched on after the reply was queued (sequence 22). */
static void after_queued(void)
{
	int fd;

	out("## enabled after the reply was queued");
	fd = conf_socket();
	conf_ping("sendto", fd, LO, 22, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	opt("IP_RECVTTL 1", fd, SOL_IP, IP_RECVTTL, 1);
	opt("IP_RECVTOS 1", fd, SOL_IP, IP_RECVTOS, 1);
	opt("SO_TIMESTAMP 1", fd, SOL_SOCKET, SO_TIMESTAMP, 1);
	conf_reply("recvmsg", fd, 1000, 0, 512, false);
	pingsock_close(fd);
}

/* Echoes with each of n control buffer lengths (sequences seq on). */
static void ctl_lens(int fd, const size_t *lens, size_t n, uint16_t seq)
{
	for (size_t i = 0; i < n; i++)
		one(L("controllen %zu", lens[i]), fd, LO, (uint16_t)(seq + i),
		    lens[i], 0);
}

static void short_ctl(void)
{
	static const size_t one_ttl[] = { 0, 8, 15, 16, 18, 20, 23, 24, 25 };
	static const size_t ts_ttl[] = { 16, 24, 31, 32, 40, 48, 52, 55, 56 };
	int fd;

	out("## short control buffers (IP_RECVTTL: one cmsg of 20, space 24)");
	fd = conf_socket();
	opt("IP_RECVTTL 1", fd, SOL_IP, IP_RECVTTL, 1);
	ctl_lens(fd, one_ttl, sizeof(one_ttl) / sizeof(one_ttl[0]), 30);
	opt("SO_TIMESTAMP 1", fd, SOL_SOCKET, SO_TIMESTAMP, 1);
	out("(with SO_TIMESTAMP too: cmsgs of 32 and 20, spaces 32 and 24)");
	ctl_lens(fd, ts_ttl, sizeof(ts_ttl) / sizeof(ts_ttl[0]), 40);
	pingsock_close(fd);
}

int main(void)
{
	conf_begin("ancillary");
	run_sections();
	both_timestamps();
	everything();
	after_queued();
	short_ctl();
	return 0;
}
