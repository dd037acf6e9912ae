/* SPDX-License-Identifier: ISC */
/*
 * recv / recvfrom / recvmsg: the reply as returned, short buffers, PEEK
 * and TRUNC, waiting (nonblocking, SO_RCVTIMEO), poll readiness.
 */
#include "conf.h"
#include "steps/recv.h"

/* recvfrom and the room for the name (sequences 2 to 4). */
static void recvfrom_room(int fd)
{
	uint8_t name[128];
	socklen_t nl = sizeof(name);
	long r;

	out("## recvfrom");
	recv_queue(&conf_v4, fd, 2);
	memset(name, 0xaa, sizeof(name));
	r = TRY("recvfrom", pingsock_recvfrom(fd, conf_rbuf, 1000, 0,
					      SA(name), &nl));
	out("  name %s", conf_sa(name, sizeof(name), nl, PORT_EXACT));
	if (r > 0)
		conf_icmp("  data", fd, conf_rbuf, (size_t)r, (size_t)r, false);
	recv_queue(&conf_v4, fd, 3);
	memset(name, 0xaa, sizeof(name));
	nl = 8;
	TRY("recvfrom, addrlen 8", pingsock_recvfrom(fd, conf_rbuf, 1000, 0,
						     SA(name), &nl));
	out("  name %s", conf_sa(name, 8, nl, PORT_EXACT));
	out("  bytes past 8 untouched: %s",
	    name[8] == 0xaa && name[15] == 0xaa ? "yes" : "no");
	recv_queue(&conf_v4, fd, 4);
	nl = 0;
	TRY("recvfrom, addrlen 0", pingsock_recvfrom(fd, conf_rbuf, 1000, 0,
						     SA(name), &nl));
	out("  addrlen now %u", (unsigned)nl);
}

int main(void)
{
	static const struct recv_case c = {
		.f = &conf_v4, .plain_poll = true, .more_waits = true,
	};
	int fd;

	conf_begin("recv");
	fd = recv_reply(&c);
	recvfrom_room(fd);
	recv_noname(c.f, fd, 5);
	recv_two_pieces(c.f, 7);
	recv_short(c.f, 8);
	recv_peek(c.f, 13);
	recv_waiting(&c, 16);
	recv_blocking(c.f, "a blocking recv wakes up for the reply", 17, 4000);
	return 0;
}
