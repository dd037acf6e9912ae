/* SPDX-License-Identifier: ISC */
/*
 * ioctl: SIOCGSTAMP/SIOCGSTAMPNS, the queue ioctls the kernel does not
 * have for ping sockets, FIONBIO, and interface ioctls on the socket.
 */
#include "conf.h"

#include <linux/sockios.h>

static bool stamp(const char *what, int fd, struct timeval *tv)
{
	int r, e;

	memset(tv, 0x55, sizeof(*tv));
	r = pingsock_ioctl(fd, SIOCGSTAMP, tv);
	e = errno;
	if (r < 0) {
		out("%s: -1 %s", what, conf_errname(e));
		return false;
	}
	out("%s: %d %s", what, r, conf_when(tv->tv_sec, tv->tv_usec, 1000000));
	return true;
}

static bool stampns(const char *what, int fd, struct timespec *ts)
{
	int r, e;

	memset(ts, 0x55, sizeof(*ts));
	r = pingsock_ioctl(fd, SIOCGSTAMPNS, ts);
	e = errno;
	if (r < 0) {
		out("%s: -1 %s", what, conf_errname(e));
		return false;
	}
	out("%s: %d %s", what, r,
	    conf_when(ts->tv_sec, ts->tv_nsec, 1000000000));
	return true;
}

static void intioctl(const char *what, int fd, unsigned long req)
{
	int v = 0x5555, r, e;

	r = pingsock_ioctl(fd, req, &v);
	e = errno;
	if (r < 0)
		out("%s: -1 %s", what, conf_errname(e));
	else
		out("%s: %d value=%d", what, r, v);
}

static void stamps(void)
{
	struct timeval tv, tv2;
	struct timespec ts;
	int fd;

	out("## SIOCGSTAMP");
	fd = conf_socket();
	stamp("SIOCGSTAMP on a fresh socket", fd, &tv);
	stampns("SIOCGSTAMPNS on a fresh socket", fd, &ts);
	conf_ping("sendto", fd, "127.0.0.1", 1, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	stamp("SIOCGSTAMP with a reply queued, not read", fd, &tv);
	conf_reply1("recv", fd, false);
	if (stamp("SIOCGSTAMP after the recv", fd, &tv)) {
		stamp("SIOCGSTAMP again", fd, &tv2);
		out("  the same value: %s",
		    tv.tv_sec == tv2.tv_sec && tv.tv_usec == tv2.tv_usec
			    ? "yes" : "no");
	}
	stampns("SIOCGSTAMPNS after the recv", fd, &ts);
	out("  agrees with SIOCGSTAMP: %s",
	    ts.tv_sec == tv.tv_sec && ts.tv_nsec / 1000 == tv.tv_usec ? "yes"
								      : "no");
	TRY("SIOCGSTAMP with a NULL argument",
	    pingsock_ioctl(fd, SIOCGSTAMP, NULL));
	pingsock_close(fd);
}

static void stamp_timestamp(void)
{
	struct timeval tv, tv2;
	struct conf_rx rx;
	int fd;

	out("## SIOCGSTAMP agrees with SO_TIMESTAMP");
	fd = conf_socket();
	TRY("SO_TIMESTAMP 1", conf_setint(fd, SOL_SOCKET, SO_TIMESTAMP, 1));
	stamp("SIOCGSTAMP before any reply", fd, &tv);
	conf_ping("sendto", fd, "127.0.0.1", 2, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	conf_recvmsg(fd, 1000, 0, 512, &rx);
	conf_show_rx("recvmsg", fd, &rx, 1000, false);
	if (stamp("SIOCGSTAMP", fd, &tv)) {
		struct cmsghdr h;
		struct timeval c;

		memcpy(&h, rx.ctl, sizeof(h));
		memcpy(&c, rx.ctl + CMSG_LEN(0), sizeof(c));
		out("  equals the SCM_TIMESTAMP of the reply: %s",
		    rx.ctllen >= CMSG_LEN(sizeof(c)) &&
				    h.cmsg_type == SO_TIMESTAMP_OLD &&
				    c.tv_sec == tv.tv_sec &&
				    c.tv_usec == tv.tv_usec
			    ? "yes" : "no");
	}
	conf_ping("sendto", fd, "127.0.0.1", 3, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	conf_recvmsg(fd, 1000, MSG_PEEK, 512, &rx);
	stamp("SIOCGSTAMP after a MSG_PEEK", fd, &tv2);
	conf_recvmsg(fd, 1000, 0, 512, &rx);
	stamp("SIOCGSTAMP after the recvmsg", fd, &tv2);
	pingsock_close(fd);
}

static void queue_ioctls(int fd)
{
	out("## queue ioctls");
	intioctl("FIONREAD (empty)", fd, FIONREAD);
	intioctl("SIOCOUTQ", fd, SIOCOUTQ);
	conf_ping("sendto", fd, "127.0.0.1", 4, 64);
	conf_wait_in(fd, CONF_WAIT_MS);
	intioctl("FIONREAD (a reply queued)", fd, FIONREAD);
	intioctl("SIOCINQ", fd, SIOCINQ);
	intioctl("SIOCATMARK", fd, SIOCATMARK);
	intioctl("unknown 0x1234", fd, 0x1234);
	conf_reply1("the reply is still there", fd, false);
}

static void fionbio(int fd)
{
	int on = 1;

	out("## FIONBIO");
	TRY("FIONBIO 1", pingsock_ioctl(fd, FIONBIO, &on));
	out("  O_NONBLOCK now %d", !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	TRY("  recv", pingsock_recv(fd, conf_rbuf, 100, 0));
	on = 0;
	TRY("FIONBIO 0", pingsock_ioctl(fd, FIONBIO, &on));
	out("  O_NONBLOCK now %d", !!(fcntl(fd, F_GETFL) & O_NONBLOCK));
	TRY("FIOCLEX", pingsock_ioctl(fd, FIOCLEX, NULL));
	out("  FD_CLOEXEC now %d", !!(fcntl(fd, F_GETFD) & FD_CLOEXEC));
	TRY("FIONCLEX", pingsock_ioctl(fd, FIONCLEX, NULL));
	out("  FD_CLOEXEC now %d", !!(fcntl(fd, F_GETFD) & FD_CLOEXEC));
}

/* An ifreq for the interface name, otherwise zero. */
static struct ifreq ifreq_of(const char *name)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	return ifr;
}

static void interfaces(int fd)
{
	struct ifreq ifr;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
	char ip[INET_ADDRSTRLEN];

	out("## interface ioctls");
	ifr = ifreq_of("lo");
	if (TRY("SIOCGIFINDEX lo", pingsock_ioctl(fd, SIOCGIFINDEX, &ifr)) == 0)
		out("  index %d", ifr.ifr_ifindex);
	ifr = ifreq_of("veth0");
	if (TRY("SIOCGIFADDR veth0", pingsock_ioctl(fd, SIOCGIFADDR,
						    &ifr)) == 0) {
		inet_ntop(AF_INET, &sin->sin_addr, ip, sizeof(ip));
		out("  family %d address %s", sin->sin_family, ip);
	}
	ifr = ifreq_of("veth0");
	if (TRY("SIOCGIFMTU veth0", pingsock_ioctl(fd, SIOCGIFMTU, &ifr)) == 0)
		out("  mtu %d", ifr.ifr_mtu);
	ifr = ifreq_of("nosuch0");
	TRY("SIOCGIFINDEX nosuch0", pingsock_ioctl(fd, SIOCGIFINDEX, &ifr));
	ifr = ifreq_of("lo");
	ifr.ifr_mtu = 1000;
	TRY("SIOCSIFMTU lo (unprivileged)",
	    pingsock_ioctl(fd, SIOCSIFMTU, &ifr));
}

int main(void)
{
	int fd;

	conf_begin("ioctl");
	stamps();
	stamp_timestamp();
	fd = conf_socket();
	queue_ioctls(fd);
	fionbio(fd);
	interfaces(fd);
	pingsock_close(fd);
	return 0;
}
