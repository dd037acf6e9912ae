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

int main(void)
{
	int fd;

	conf_begin("defaults");
	fd = conf_socket();

	out("## SOL_SOCKET");
	conf_getint("SO_RCVBUF", fd, SOL_SOCKET, SO_RCVBUF, sizeof(int));
	conf_getint("SO_SNDBUF", fd, SOL_SOCKET, SO_SNDBUF, sizeof(int));
	conf_getint("SO_REUSEADDR", fd, SOL_SOCKET, SO_REUSEADDR, sizeof(int));
	conf_getint("SO_REUSEPORT", fd, SOL_SOCKET, SO_REUSEPORT, sizeof(int));
	conf_getint("SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	conf_getint("SO_BROADCAST", fd, SOL_SOCKET, SO_BROADCAST, sizeof(int));
	conf_getint("SO_KEEPALIVE", fd, SOL_SOCKET, SO_KEEPALIVE, sizeof(int));
	conf_getint("SO_DONTROUTE", fd, SOL_SOCKET, SO_DONTROUTE, sizeof(int));
	conf_getint("SO_PRIORITY", fd, SOL_SOCKET, SO_PRIORITY, sizeof(int));
	conf_getint("SO_RCVLOWAT", fd, SOL_SOCKET, SO_RCVLOWAT, sizeof(int));
	conf_getint("SO_SNDLOWAT", fd, SOL_SOCKET, SO_SNDLOWAT, sizeof(int));
	conf_getint("SO_TIMESTAMP", fd, SOL_SOCKET, SO_TIMESTAMP, sizeof(int));
	conf_getint("SO_TIMESTAMPNS", fd, SOL_SOCKET, SO_TIMESTAMPNS,
		    sizeof(int));
	conf_getint("SO_MARK", fd, SOL_SOCKET, SO_MARK, sizeof(int));
	conf_getint("SO_RXQ_OVFL", fd, SOL_SOCKET, SO_RXQ_OVFL, sizeof(int));
	conf_getint("SO_BINDTOIFINDEX", fd, SOL_SOCKET, SO_BINDTOIFINDEX,
		    sizeof(int));
	tv_opt("SO_RCVTIMEO", fd, SO_RCVTIMEO);
	tv_opt("SO_SNDTIMEO", fd, SO_SNDTIMEO);
	{
		char dev[IF_NAMESIZE] = "xxxx";
		socklen_t l = sizeof(dev);
		int r = pingsock_getsockopt(fd, SOL_SOCKET, SO_BINDTODEVICE,
					    dev, &l);
		int e = errno;

		if (r < 0)
			out("SO_BINDTODEVICE: -1 %s", conf_errname(e));
		else
			out("SO_BINDTODEVICE: %d optlen=%u", r, (unsigned)l);
	}
	{
		struct linger lg = { 7, 7 };
		socklen_t l = sizeof(lg);
		int r = pingsock_getsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, &l);
		int e = errno;

		if (r < 0)
			out("SO_LINGER: -1 %s", conf_errname(e));
		else
			out("SO_LINGER: %d optlen=%u onoff=%d linger=%d", r,
			    (unsigned)l, lg.l_onoff, lg.l_linger);
	}

	out("## SOL_IP");
	conf_getint("IP_TTL", fd, SOL_IP, IP_TTL, sizeof(int));
	conf_getint("IP_TOS", fd, SOL_IP, IP_TOS, sizeof(int));
	conf_getint("IP_RECVERR", fd, SOL_IP, IP_RECVERR, sizeof(int));
	conf_getint("IP_MTU_DISCOVER", fd, SOL_IP, IP_MTU_DISCOVER,
		    sizeof(int));
	conf_getint("IP_RECVTTL", fd, SOL_IP, IP_RECVTTL, sizeof(int));
	conf_getint("IP_RECVTOS", fd, SOL_IP, IP_RECVTOS, sizeof(int));
	conf_getint("IP_PKTINFO", fd, SOL_IP, IP_PKTINFO, sizeof(int));
	conf_getint("IP_RECVOPTS", fd, SOL_IP, IP_RECVOPTS, sizeof(int));
	conf_getint("IP_RETOPTS", fd, SOL_IP, IP_RETOPTS, sizeof(int));
	conf_getint("IP_HDRINCL", fd, SOL_IP, IP_HDRINCL, sizeof(int));
	conf_getint("IP_MULTICAST_TTL", fd, SOL_IP, IP_MULTICAST_TTL,
		    sizeof(int));
	conf_getint("IP_MULTICAST_LOOP", fd, SOL_IP, IP_MULTICAST_LOOP,
		    sizeof(int));
	conf_getint("IP_FREEBIND", fd, SOL_IP, IP_FREEBIND, sizeof(int));
	conf_getint("IP_TRANSPARENT", fd, SOL_IP, IP_TRANSPARENT, sizeof(int));
	conf_getint("IP_BIND_ADDRESS_NO_PORT", fd, SOL_IP,
		    IP_BIND_ADDRESS_NO_PORT, sizeof(int));
	conf_getint("IP_RECVERR_RFC4884", fd, SOL_IP, IP_RECVERR_RFC4884,
		    sizeof(int));
	conf_getint("IP_MTU (unconnected)", fd, SOL_IP, IP_MTU, sizeof(int));
	{
		uint8_t opts[40];
		socklen_t l = sizeof(opts);
		int r = pingsock_getsockopt(fd, SOL_IP, IP_OPTIONS, opts, &l);
		int e = errno;

		if (r < 0)
			out("IP_OPTIONS: -1 %s", conf_errname(e));
		else
			out("IP_OPTIONS: %d optlen=%u", r, (unsigned)l);
	}

	out("## names");
	conf_name("getsockname", fd, false, PORT_EXACT);
	conf_name("getpeername", fd, true, PORT_EXACT);
	{
		uint8_t b[128];
		socklen_t l = 4;

		memset(b, 0xaa, sizeof(b));
		TRY("getsockname addrlen 4",
		    pingsock_getsockname(fd, SA(b), &l));
		out("  addrlen now %u, bytes %s", (unsigned)l,
		    conf_sa(b, 4, l, PORT_EXACT));
		l = 0;
		TRY("getsockname addrlen 0",
		    pingsock_getsockname(fd, SA(b), &l));
		out("  addrlen now %u", (unsigned)l);
	}

	out("## queues");
	conf_poll("poll POLLIN", fd, POLLIN, 0);
	conf_poll("poll POLLIN|POLLOUT", fd, POLLIN | POLLOUT, 0);
	TRY("recv MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 100,
					       MSG_DONTWAIT));
	{
		struct conf_rx rx;

		conf_recvmsg(fd, 100, MSG_ERRQUEUE | MSG_DONTWAIT, 64, &rx);
		out("recvmsg MSG_ERRQUEUE: %ld %s", rx.ret,
		    rx.ret < 0 ? conf_errname(rx.err) : "");
	}
	conf_getint("SO_ERROR again", fd, SOL_SOCKET, SO_ERROR, sizeof(int));

	pingsock_close(fd);
	return 0;
}
