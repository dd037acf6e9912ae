/* SPDX-License-Identifier: ISC */
/*
 * defaults: what a fresh ping socket reports before anything is done
 * with it.
 */
#include "conf.h"

#include <linux/sockios.h>

static void tv_opt(const char *what, int fd, int name)
{
	struct timeval tv = { 7, 7 };
	socklen_t l = sizeof(tv);
	int r = pingsock_getsockopt(fd, SOL_SOCKET, name, &tv, &l);
	int e = errno;

	if (r < 0)
		out("%s: -1 %s", what, conf_errname(e));
	else
		out("%s: %d optlen=%u %ld.%06ld", what, r, (unsigned)l,
		    (long)tv.tv_sec, (long)tv.tv_usec);
}

static const struct conf_opt sol_socket[] = {
	CONF_OPT(SOL_SOCKET, SO_RCVBUF),
	CONF_OPT(SOL_SOCKET, SO_SNDBUF),
	CONF_OPT(SOL_SOCKET, SO_REUSEADDR),
	CONF_OPT(SOL_SOCKET, SO_REUSEPORT),
	CONF_OPT(SOL_SOCKET, SO_ERROR),
	CONF_OPT(SOL_SOCKET, SO_BROADCAST),
	CONF_OPT(SOL_SOCKET, SO_KEEPALIVE),
	CONF_OPT(SOL_SOCKET, SO_DONTROUTE),
	CONF_OPT(SOL_SOCKET, SO_PRIORITY),
	CONF_OPT(SOL_SOCKET, SO_RCVLOWAT),
	CONF_OPT(SOL_SOCKET, SO_SNDLOWAT),
	CONF_OPT(SOL_SOCKET, SO_TIMESTAMP),
	CONF_OPT(SOL_SOCKET, SO_TIMESTAMPNS),
	CONF_OPT(SOL_SOCKET, SO_MARK),
	CONF_OPT(SOL_SOCKET, SO_RXQ_OVFL),
	CONF_OPT(SOL_SOCKET, SO_BINDTOIFINDEX),
};

static const struct conf_opt sol_ip[] = {
	CONF_OPT(SOL_IP, IP_TTL),
	CONF_OPT(SOL_IP, IP_TOS),
	CONF_OPT(SOL_IP, IP_RECVERR),
	CONF_OPT(SOL_IP, IP_MTU_DISCOVER),
	CONF_OPT(SOL_IP, IP_RECVTTL),
	CONF_OPT(SOL_IP, IP_RECVTOS),
	CONF_OPT(SOL_IP, IP_PKTINFO),
	CONF_OPT(SOL_IP, IP_RECVOPTS),
	CONF_OPT(SOL_IP, IP_RETOPTS),
	CONF_OPT(SOL_IP, IP_HDRINCL),
	CONF_OPT(SOL_IP, IP_MULTICAST_TTL),
	CONF_OPT(SOL_IP, IP_MULTICAST_LOOP),
	CONF_OPT(SOL_IP, IP_FREEBIND),
	CONF_OPT(SOL_IP, IP_TRANSPARENT),
	CONF_OPT(SOL_IP, IP_BIND_ADDRESS_NO_PORT),
	CONF_OPT(SOL_IP, IP_RECVERR_RFC4884),
	{ SOL_IP, IP_MTU, "IP_MTU (unconnected)" },
};

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* getsockopt into size bytes at buf: what it returns and its optlen. */
static void optlen_of(const char *what, int fd, int level, int name,
		      void *buf, socklen_t size)
{
	socklen_t l = size;
	int r = pingsock_getsockopt(fd, level, name, buf, &l);
	int e = errno;

	if (r < 0)
		out("%s: -1 %s", what, conf_errname(e));
	else
		out("%s: %d optlen=%u", what, r, (unsigned)l);
}

static void socket_level(int fd)
{
	char dev[IF_NAMESIZE] = "xxxx";
	struct linger lg = { 7, 7 };
	socklen_t l = sizeof(lg);
	int r, e;

	out("## SOL_SOCKET");
	conf_getint_each(fd, sol_socket, N(sol_socket));
	tv_opt("SO_RCVTIMEO", fd, SO_RCVTIMEO);
	tv_opt("SO_SNDTIMEO", fd, SO_SNDTIMEO);
	optlen_of("SO_BINDTODEVICE", fd, SOL_SOCKET, SO_BINDTODEVICE, dev,
		  sizeof(dev));
	r = pingsock_getsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, &l);
	e = errno;
	if (r < 0)
		out("SO_LINGER: -1 %s", conf_errname(e));
	else
		out("SO_LINGER: %d optlen=%u onoff=%d linger=%d", r,
		    (unsigned)l, lg.l_onoff, lg.l_linger);
}

static void ip_level(int fd)
{
	uint8_t opts[40];

	out("## SOL_IP");
	conf_getint_each(fd, sol_ip, N(sol_ip));
	optlen_of("IP_OPTIONS", fd, SOL_IP, IP_OPTIONS, opts, sizeof(opts));
}

static void names(int fd)
{
	uint8_t b[128];
	socklen_t l = 4;

	out("## names");
	conf_name("getsockname", fd, false, PORT_EXACT);
	conf_name("getpeername", fd, true, PORT_EXACT);
	memset(b, 0xaa, sizeof(b));
	TRY("getsockname addrlen 4", pingsock_getsockname(fd, SA(b), &l));
	out("  addrlen now %u, bytes %s", (unsigned)l,
	    conf_sa(b, 4, l, PORT_EXACT));
	l = 0;
	TRY("getsockname addrlen 0", pingsock_getsockname(fd, SA(b), &l));
	out("  addrlen now %u", (unsigned)l);
}

static void queues(int fd)
{
	struct conf_rx rx;

	out("## queues");
	conf_poll("poll POLLIN", fd, POLLIN, 0);
	conf_poll("poll POLLIN|POLLOUT", fd, POLLIN | POLLOUT, 0);
	TRY("recv MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 100,
					       MSG_DONTWAIT));
	conf_recvmsg(fd, 100, MSG_ERRQUEUE | MSG_DONTWAIT, 64, &rx);
	out("recvmsg MSG_ERRQUEUE: %ld %s", rx.ret,
	    rx.ret < 0 ? conf_errname(rx.err) : "");
	conf_getint("SO_ERROR again", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
}

int main(void)
{
	int fd;

	conf_begin("defaults");
	fd = conf_socket();
	socket_level(fd);
	ip_level(fd);
	names(fd);
	queues(fd);
	pingsock_close(fd);
	return 0;
}
