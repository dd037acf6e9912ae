/* SPDX-License-Identifier: ISC */
/*
 * options: setsockopt/getsockopt round trips, limits, errors, optlen
 * handling.
 */
#include "conf.h"
#include "steps/options.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void ttl(int fd)
{
	static const int lens[] = { 1, 2, 0, 8, -1 };

	options_hops_head(&conf_v4, fd);
	conf_getint("IP_TTL get", fd, SOL_IP, IP_TTL, sizeof(int));
	conf_set_optlen("IP_TTL", fd, SOL_IP, IP_TTL, 0, 1);
	conf_set_optlen("IP_TTL", fd, SOL_IP, IP_TTL, 7, 0);
	conf_set_optlen("IP_TTL", fd, SOL_IP, IP_TTL, 7, 2);
	conf_getint("IP_TTL get", fd, SOL_IP, IP_TTL, sizeof(int));
	/* optlen 8 from an 8-byte buffer: the value is its first int. */
	conf_set_optlen("IP_TTL", fd, SOL_IP, IP_TTL, 7, 8);
	options_hops_tail(&conf_v4, fd, lens, N(lens));
}

static void tos(int fd)
{
	unsigned char c = 0x28;

	out("## IP_TOS");
	CONF_SET_GET_EACH(fd, SOL_IP, IP_TOS, 0x10, 0x11, 0xff, 0x1ff, -1);
	conf_set_len("IP_TOS set 0x28, optlen 1", fd, SOL_IP, IP_TOS, &c, 1);
	conf_getint("IP_TOS get", fd, SOL_IP, IP_TOS, sizeof(int));
	conf_getint("IP_TOS get optlen 1", fd, SOL_IP, IP_TOS, 1);
	conf_set_get("IP_TOS", fd, SOL_IP, IP_TOS, 0);
}

static void ip_flags(int fd)
{
	out("## other SOL_IP flags");
	options_recverr(&conf_v4, fd);
	CONF_SET_GET_EACH(fd, SOL_IP, IP_RECVTTL, 1, 0);
	CONF_SET_GET_EACH(fd, SOL_IP, IP_RECVTOS, 1, 0);
	CONF_SET_GET_EACH(fd, SOL_IP, IP_PKTINFO, 1, 0);
	CONF_SET_GET_EACH(fd, SOL_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO,
			  IP_PMTUDISC_DONT, IP_PMTUDISC_PROBE,
			  IP_PMTUDISC_INTERFACE, IP_PMTUDISC_OMIT, 6, -1,
			  IP_PMTUDISC_WANT);
	CONF_SET_GET_EACH(fd, SOL_IP, IP_MULTICAST_TTL, 5, 256);
	CONF_SET_GET_EACH(fd, SOL_IP, IP_MULTICAST_LOOP, 0);
	CONF_SET_GET_EACH(fd, SOL_IP, IP_HDRINCL, 1);
	CONF_SET_GET_EACH(fd, SOL_IP, IP_FREEBIND, 1, 0);
	CONF_SET_GET_EACH(fd, SOL_IP, IP_TRANSPARENT, 1);
	conf_set_get("IP_MTU (read-only)", fd, SOL_IP, IP_MTU, 1000);
	conf_set_get("SOL_IP 9999 (unknown)", fd, SOL_IP, 9999, 1);
}

static void bufs(int fd)
{
	int v = 3000, wide[2] = { 3000, 0 };

	out("## SO_RCVBUF / SO_SNDBUF");
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_RCVBUF, 10000, 1, 0, -1, 1 << 30,
			  65536);
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_SNDBUF, 10000, 1, 1 << 30);
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_RCVBUFFORCE, 10000);
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_SNDBUFFORCE, 10000);
	conf_getint("SO_RCVBUF get optlen 2", fd, SOL_SOCKET, SO_RCVBUF, 2);
	conf_getint("SO_RCVBUF get optlen 8", fd, SOL_SOCKET, SO_RCVBUF, 8);
	conf_set_len("SO_RCVBUF set optlen 2", fd, SOL_SOCKET, SO_RCVBUF, &v,
		     2);
	conf_set_len("SO_RCVBUF set optlen 8", fd, SOL_SOCKET, SO_RCVBUF, wide,
		     8);
	conf_getint("SO_RCVBUF get", fd, SOL_SOCKET, SO_RCVBUF, sizeof(int));
}

static void tv_set_get(const char *what, int fd, int name, long sec,
		       long usec, socklen_t len)
{
	struct timeval tv = { sec, usec };
	socklen_t l = sizeof(tv);
	int r, e;

	TRY(L("%s set %ld s %ld us, optlen %u", what, sec, usec,
	      (unsigned)len),
	    pingsock_setsockopt(fd, SOL_SOCKET, name, &tv, len));
	memset(&tv, 0x55, sizeof(tv));
	r = pingsock_getsockopt(fd, SOL_SOCKET, name, &tv, &l);
	e = errno;
	if (r < 0)
		out("  %s get: -1 %s", what, conf_errname(e));
	else
		out("  %s get: %d optlen=%u %ld.%06ld", what, r, (unsigned)l,
		    (long)tv.tv_sec, (long)tv.tv_usec);
}

static void timeouts(int fd)
{
	static const struct {
		long sec, usec;
		socklen_t len;
	} rcv[] = {
		{ 0, 200000, 16 }, { 5, 0, 16 }, { 0, 1, 16 },
		{ 0, 1000000, 16 }, { 0, -1, 16 }, { -1, 0, 16 },
		{ 1, 0, 8 }, { 1, 0, 32 }, { 0, 0, 16 },
	};

	out("## SO_RCVTIMEO / SO_SNDTIMEO");
	for (size_t i = 0; i < N(rcv); i++)
		tv_set_get("SO_RCVTIMEO", fd, SO_RCVTIMEO, rcv[i].sec,
			   rcv[i].usec, rcv[i].len);
	tv_set_get("SO_SNDTIMEO", fd, SO_SNDTIMEO, 1, 500000, 16);
	tv_set_get("SO_SNDTIMEO", fd, SO_SNDTIMEO, 0, 0, 16);
	conf_getint("SO_RCVTIMEO get optlen 4", fd, SOL_SOCKET, SO_RCVTIMEO,
		    4);
}

static void linger(int fd)
{
	struct linger lg = { 1, 5 };
	socklen_t l = sizeof(lg);
	int r, e;

	conf_set_len("SO_LINGER 1 5", fd, SOL_SOCKET, SO_LINGER, &lg,
		     sizeof(lg));
	memset(&lg, 0, sizeof(lg));
	r = pingsock_getsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, &l);
	e = errno;
	if (r < 0)
		out("SO_LINGER get: -1 %s", conf_errname(e));
	else
		out("SO_LINGER get: %d optlen=%u %d %d", r, (unsigned)l,
		    lg.l_onoff, lg.l_linger);
}

static void sol_socket(int fd)
{
	int v = 1;

	out("## other SOL_SOCKET");
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_REUSEADDR, 0, 5);
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_REUSEPORT, 1);
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_BROADCAST, 1, 0);
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_PRIORITY, 6, 7, 0);
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_MARK, 1);
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_DONTROUTE, 1, 0);
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_KEEPALIVE, 1);
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_RCVLOWAT, 10, 1);
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_TIMESTAMP, 1, 0);
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_TIMESTAMPNS, 1, 0);
	CONF_SET_GET_EACH(fd, SOL_SOCKET, SO_RXQ_OVFL, 1, 0);
	conf_set_get("SO_ERROR (read-only)", fd, SOL_SOCKET, SO_ERROR, 1);
	conf_set_get("SO_DOMAIN (read-only)", fd, SOL_SOCKET, SO_DOMAIN, 1);
	conf_set_get("SOL_SOCKET 9999 (unknown)", fd, SOL_SOCKET, 9999, 1);
	conf_set_len("SO_REUSEADDR set optlen 2", fd, SOL_SOCKET, SO_REUSEADDR,
		     &v, 2);
	conf_set_len("SO_REUSEADDR set optlen 0", fd, SOL_SOCKET, SO_REUSEADDR,
		     &v, 0);
	conf_getint("SO_ERROR get optlen 8", fd, SOL_SOCKET, SO_ERROR, 8);
	conf_getint("SO_ERROR get optlen 1", fd, SOL_SOCKET, SO_ERROR, 1);
	linger(fd);
}

static void bindtodevice(int fd)
{
	char dev[IF_NAMESIZE + 4];
	socklen_t l;
	int r, e;

	out("## SO_BINDTODEVICE");
	conf_set_len("SO_BINDTODEVICE nosuch", fd, SOL_SOCKET, SO_BINDTODEVICE,
		     "nosuch", 7);
	conf_set_len("SO_BINDTODEVICE lo", fd, SOL_SOCKET, SO_BINDTODEVICE,
		     "lo", 3);
	memset(dev, 0, sizeof(dev));
	l = sizeof(dev);
	r = pingsock_getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE, dev, &l);
	e = errno;
	if (r < 0)
		out("  get: -1 %s", conf_errname(e));
	else
		out("  get: %d optlen=%u \"%s\"", r, (unsigned)l, dev);
	conf_getint("  SO_BINDTOIFINDEX", fd, SOL_SOCKET, SO_BINDTOIFINDEX,
		    sizeof(int));
	conf_ping("  sendto 127.0.0.1", fd, "127.0.0.1", 1, 64);
	conf_reply1("  reply", fd, false);
	conf_set_len("SO_BINDTODEVICE veth0 (again, unprivileged)", fd,
		     SOL_SOCKET, SO_BINDTODEVICE, "veth0", 6);
	conf_set_len("SO_BINDTODEVICE \"\" (unbind, unprivileged)", fd,
		     SOL_SOCKET, SO_BINDTODEVICE, "", 0);
}

static void levels(void)
{
	int fd = conf_socket();

	out("## levels");
	conf_set_get("SOL_IPV6 IPV6_V6ONLY", fd, SOL_IPV6, IPV6_V6ONLY, 1);
	conf_set_get("level 1 (IPPROTO_ICMP = SOL_SOCKET) 1 (SO_DEBUG)", fd,
		     IPPROTO_ICMP, 1, 1);
	conf_set_get("SOL_RAW 1 (ICMP_FILTER)", fd, SOL_RAW, 1, 1);
	conf_set_get("IPPROTO_UDP 1", fd, IPPROTO_UDP, 1, 1);
	conf_set_get("level 9999", fd, 9999, 1, 1);
	conf_set_get("level -1", fd, -1, 1, 1);
	pingsock_close(fd);
}

static void take_effect(void)
{
	int fd = conf_socket();

	out("## the options take effect");
	TRY("IP_RECVTTL 1", conf_setint(fd, SOL_IP, IP_RECVTTL, 1));
	TRY("IP_TTL 1", conf_setint(fd, SOL_IP, IP_TTL, 1));
	conf_ping("sendto the peer with TTL 1", fd, CONF_PEER, 2, 64);
	conf_reply("  reply", fd, 1000, 0, 512, false);
	TRY("SO_RCVBUF 1 (minimum)", conf_setint(fd, SOL_SOCKET, SO_RCVBUF, 1));
	/* an empty queue takes one datagram whatever its size (how many
	 * more fit is accounting detail, not tested) */
	conf_ping("sendto 127.0.0.1 4000 bytes", fd, "127.0.0.1", 3, 4000);
	conf_reply("  reply (no control buffer)", fd, sizeof(conf_rbuf), 0, 0,
		   false);
	pingsock_close(fd);
}

int main(void)
{
	int fd;

	conf_begin("options");
	fd = conf_socket();
	ttl(fd);
	tos(fd);
	ip_flags(fd);
	bufs(fd);
	timeouts(fd);
	sol_socket(fd);
	bindtodevice(fd);
	pingsock_close(fd);
	levels();
	take_effect();
	return 0;
}
