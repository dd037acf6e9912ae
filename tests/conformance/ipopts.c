/* SPDX-License-Identifier: ISC */
/*
 * ipopts: IP_OPTIONS (record route, timestamp, bad options), their
 * getsockopt, the reply's options as IP_RECVOPTS and IP_RETOPTS, and a
 * per-packet IP_RETOPTS control message; source routes, which an
 * unprivileged caller may not set (EPERM).  Timestamps' values vary, so
 * only their acceptance and lengths are printed.
 */
// needs: peer (10.201.0.1/24 here, 10.201.0.2/24 in the peer namespace)
#include "conf.h"

#define RR_9 { 7, 39, 4 }	/* record route with room for 9 addresses */

static void set_opts(const char *what, int fd, const uint8_t *o, size_t n)
{
	TRY(what, pingsock_setsockopt(fd, SOL_IP, IP_OPTIONS, o, (socklen_t)n));
}

static void get_opts(const char *what, int fd, socklen_t room)
{
	uint8_t b[64];
	socklen_t l = room;
	char hex[160];
	int r, e;

	memset(b, 0xaa, sizeof(b));
	r = pingsock_getsockopt(fd, SOL_IP, IP_OPTIONS, b, &l);
	e = errno;
	if (r < 0) {
		out("%s: -1 %s", what, conf_errname(e));
		return;
	}
	conf_hex(hex, sizeof(hex), b, l);
	out("%s: 0 optlen=%u bytes=%s", what, (unsigned)l, hex);
}

static void echo_with_opts(const char *what, const char *ip, uint16_t seq)
{
	uint8_t rr[40] = RR_9;
	int fd = conf_socket();

	set_opts(L("%s: IP_OPTIONS record route", what), fd, rr, sizeof(rr));
	TRY(L("%s: IP_RECVOPTS 1", what), conf_setint(fd, SOL_IP, IP_RECVOPTS, 1));
	TRY(L("%s: IP_RETOPTS 1", what), conf_setint(fd, SOL_IP, IP_RETOPTS, 1));
	conf_ping(L("%s: sendto %s", what, ip), fd, ip, seq, 64);
	conf_reply(L("%s: reply", what), fd, 512, 0, 512, false);
	pingsock_close(fd);
}

static void per_packet(void)
{
	uint8_t rr[CMSG_SPACE(12)] = { 0 }, data[64];
	struct sockaddr_in a = conf_sin("127.0.0.1", 0);
	struct iovec iov = { .iov_base = data, .iov_len = sizeof(data) };
	struct msghdr m = { .msg_name = &a, .msg_namelen = sizeof(a),
			    .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = rr, .msg_controllen = sizeof(rr) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	static const uint8_t opt[12] = { 7, 11, 4 };
	int fd = conf_socket();

	out("## per packet: IP_RETOPTS control message");
	c->cmsg_level = SOL_IP;
	c->cmsg_type = IP_RETOPTS;
	c->cmsg_len = CMSG_LEN(sizeof(opt));
	memcpy(CMSG_DATA(c), opt, sizeof(opt));
	TRY("IP_RECVOPTS 1", conf_setint(fd, SOL_IP, IP_RECVOPTS, 1));
	conf_echo(data, sizeof(data), 7);
	TRY("sendmsg with a record route option", pingsock_sendmsg(fd, &m, 0));
	conf_reply("  reply", fd, 512, 0, 512, false);
	((uint8_t *)CMSG_DATA(c))[1] = 2;	/* a record route of 2 bytes */
	conf_echo(data, sizeof(data), 8);
	TRY("sendmsg with a bad option", pingsock_sendmsg(fd, &m, 0));
	conf_quiet("  nothing", fd, 200);
	/* A loose source route through 127.0.0.1: refused to an
	 * unprivileged caller. */
	memcpy(CMSG_DATA(c), (const uint8_t[12]){ 131, 7, 4, 127, 0, 0, 1 },
	       12);
	conf_echo(data, sizeof(data), 9);
	TRY("sendmsg with a loose source route", pingsock_sendmsg(fd, &m, 0));
	conf_quiet("  nothing", fd, 200);
	pingsock_close(fd);
}

/* Source routes: well formed, refused (EPERM); malformed, EINVAL. */
static void source_routes(int fd)
{
	static const uint8_t lsrr[8] = { 131, 7, 4, 10, 0, 0, 1, 0 };
	static const uint8_t ssrr[8] = { 137, 7, 4, 10, 0, 0, 1, 0 };
	static const uint8_t ptr8[8] = { 131, 7, 8, 10, 0, 0, 1, 0 };
	static const uint8_t short3[4] = { 131, 3, 4, 0 };
	static const uint8_t rr_lsrr[12] = { 7, 3, 4, 131, 7, 4, 10, 0, 0,
					     1, 0, 0 };

	set_opts("loose source route", fd, lsrr, sizeof(lsrr));
	set_opts("strict source route", fd, ssrr, sizeof(ssrr));
	set_opts("source route, pointer 8", fd, ptr8, sizeof(ptr8));
	set_opts("source route of length 3", fd, short3, sizeof(short3));
	set_opts("record route, then a source route", fd, rr_lsrr,
		 sizeof(rr_lsrr));
	get_opts("  get after the source routes", fd, 40);
}

int main(void)
{
	uint8_t rr[40] = RR_9, big[44] = { 1 };
	uint8_t ts[12] = { 68, 12, 5, 0 };		/* timestamps only */
	uint8_t tsa[20] = { 68, 20, 5, 1 };		/* address and time */
	uint8_t bad_rr[4] = { 7, 2, 4 }, unknown[4] = { 130, 4, 0, 0 };
	uint8_t nops[3] = { 1, 1, 1 }, ra[4] = { 148, 4, 0, 0 };
	int fd;

	conf_begin("ipopts");

	out("## setting and reading IP_OPTIONS");
	fd = conf_socket();
	get_opts("none set", fd, 40);
	set_opts("record route, 40 bytes", fd, rr, sizeof(rr));
	get_opts("  get", fd, 40);
	get_opts("  get, 8 bytes of room", fd, 8);
	set_opts("3 NOOPs (padded)", fd, nops, sizeof(nops));
	get_opts("  get", fd, 40);
	set_opts("router alert", fd, ra, sizeof(ra));
	get_opts("  get", fd, 40);
	set_opts("timestamps only", fd, ts, sizeof(ts));
	get_opts("  get", fd, 40);
	set_opts("timestamps and addresses", fd, tsa, sizeof(tsa));
	get_opts("  get", fd, 40);
	set_opts("44 bytes", fd, big, sizeof(big));
	set_opts("record route of length 2", fd, bad_rr, sizeof(bad_rr));
	set_opts("security (130)", fd, unknown, sizeof(unknown));
	get_opts("  get after the failures", fd, 40);
	source_routes(fd);
	set_opts("none (length 0)", fd, NULL, 0);
	get_opts("  get", fd, 40);
	pingsock_close(fd);

	out("## record route on the wire");
	echo_with_opts("loopback", "127.0.0.1", 1);
	echo_with_opts("peer", CONF_PEER, 2);
	per_packet();
	return 0;
}
