/* SPDX-License-Identifier: ISC */
/*
 * pmtu: path MTU discovery modes to the peer over the veth pair (MTU
 * 1500) and the local EMSGSIZE error they give (issue 5).
 */
// needs: peer (10.201.0.1/24 here, 10.201.0.2/24 in the peer namespace)
#include "conf.h"

static void errqueue(const char *what, int fd)
{
	struct conf_rx rx;

	conf_recvmsg(fd, 1000, MSG_ERRQUEUE | MSG_DONTWAIT, 512, &rx);
	if (rx.ret < 0) {
		out("%s: -1 %s", what, conf_errname(rx.err));
		return;
	}
	out("%s: %ld from %s flags=%s controllen=%zu", what, rx.ret,
	    conf_sa(rx.name, sizeof(rx.name), rx.namelen, PORT_EXACT),
	    conf_msgflags(rx.flags), rx.ctllen);
	if (rx.ret > 0)
		conf_icmp(what, fd, conf_rbuf, (size_t)rx.ret, (size_t)rx.ret,
			  false);
	conf_cmsgs(what, rx.ctl, rx.ctllen);
}

static void pmtu_mode(const char *name, int mode)
{
	int fd = conf_socket();

	out("## %s", name);
	TRY(L("IP_MTU_DISCOVER %s", name),
	    conf_setint(fd, SOL_IP, IP_MTU_DISCOVER, mode));
	if (conf_ping("sendto 1480 bytes (1500 with the IP header)", fd,
		      CONF_PEER, 20, 1480) > 0)
		conf_reply1("  reply", fd, false);
	if (conf_ping("sendto 1481 bytes", fd, CONF_PEER, 21, 1481) > 0)
		conf_reply1("  reply", fd, false);
	if (conf_ping("sendto 4000 bytes", fd, CONF_PEER, 22, 4000) > 0)
		conf_reply1("  reply", fd, false);
	conf_quiet("  nothing else", fd, 100);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	pingsock_close(fd);
}

int main(void)
{
	struct sockaddr_in a;
	int fd;

	conf_begin("pmtu");

	pmtu_mode("IP_PMTUDISC_DONT", IP_PMTUDISC_DONT);
	pmtu_mode("IP_PMTUDISC_WANT", IP_PMTUDISC_WANT);
	pmtu_mode("IP_PMTUDISC_DO", IP_PMTUDISC_DO);
	pmtu_mode("IP_PMTUDISC_PROBE", IP_PMTUDISC_PROBE);
	pmtu_mode("IP_PMTUDISC_INTERFACE", IP_PMTUDISC_INTERFACE);
	pmtu_mode("IP_PMTUDISC_OMIT", IP_PMTUDISC_OMIT);

	out("## IP_PMTUDISC_DO with IP_RECVERR: the local error is queued");
	fd = conf_socket();
	TRY("IP_MTU_DISCOVER IP_PMTUDISC_DO",
	    conf_setint(fd, SOL_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO));
	TRY("IP_RECVERR 1", conf_setint(fd, SOL_IP, IP_RECVERR, 1));
	conf_ping("sendto 2000 bytes", fd, CONF_PEER, 30, 2000);
	conf_poll("  poll", fd, POLLIN, 0);
	errqueue("  recvmsg MSG_ERRQUEUE", fd);
	errqueue("  recvmsg MSG_ERRQUEUE again", fd);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	TRY("  recv MSG_DONTWAIT", pingsock_recv(fd, conf_rbuf, 100,
						 MSG_DONTWAIT));
	conf_ping("sendto 100 bytes", fd, CONF_PEER, 31, 100);
	conf_reply1("  reply", fd, false);
	a = conf_sin(CONF_PEER, 0);
	TRY("connect 10.201.0.2", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_psend("send 3000 bytes (connected)", fd, 32, 3000);
	errqueue("  recvmsg MSG_ERRQUEUE", fd);
	conf_psend("send 100 bytes", fd, 33, 100);
	conf_reply1("  reply", fd, false);
	pingsock_close(fd);
	return 0;
}
