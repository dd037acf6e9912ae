/*
 * peer: Echo to the peer namespace over the veth pair (MTU 1500):
 * replies, fragmentation and reassembly, a connected socket.  (Path MTU
 * discovery modes and their errors: pending/pmtu.c, with issue 5.)
 */
// needs: peer (10.201.0.1/24 here, 10.201.0.2/24 in the peer namespace)
#include "conf.h"

int main(void)
{
	struct sockaddr_in a;
	int fd;

	conf_begin("peer");

	out("## plain echo to the peer");
	fd = conf_socket();
	TRY("IP_RECVTTL 1", conf_setint(fd, SOL_IP, IP_RECVTTL, 1));
	conf_ping("sendto 10.201.0.2", fd, CONF_PEER, 1, 64);
	conf_reply("  reply", fd, 1000, 0, 512, false);
	conf_name("getsockname (unconnected: no source address)", fd, false,
		  PORT_MASK);
	conf_ping("sendto 10.201.0.2 8 bytes", fd, CONF_PEER, 2, 8);
	conf_reply("  reply", fd, 1000, 0, 512, false);
	conf_ping("sendto 10.201.0.2 1472 bytes", fd, CONF_PEER, 3, 1472);
	conf_reply("  reply", fd, 2000, 0, 512, false);
	conf_ping("sendto 10.201.0.2 65515 bytes (fragmented)", fd, CONF_PEER,
		  4, 65515);
	conf_reply("  reply", fd, sizeof(conf_rbuf), 0, 512, false);
	conf_quiet("nothing else", fd, 300);
	pingsock_close(fd);

	out("## connected to the peer");
	fd = conf_socket();
	a = conf_sin(CONF_PEER, 0);
	TRY("connect 10.201.0.2", pingsock_connect(fd, SA(&a), sizeof(a)));
	conf_name("getsockname", fd, false, PORT_MASK);
	conf_getint("IP_MTU", fd, SOL_IP, IP_MTU, sizeof(int));
	for (uint16_t s = 5; s < 8; s++) {
		conf_psend(L("send seq %u", s), fd, s, 100);
		conf_reply1("  reply", fd, false);
	}
	pingsock_close(fd);

	return 0;
}
