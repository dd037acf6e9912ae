/* SPDX-License-Identifier: ISC */
/*
 * peer6: Echo to the peer namespace over the veth pair (MTU 1500) by
 * IPv6: its global and its link-local address, sizes up to fragmentation
 * and reassembly, the path MTU discovery modes at the link MTU, a
 * connected socket, and all-nodes multicast with and without loopback.
 */
// needs: peer (fd00:201::1/fe80::1 on veth0, the peer fd00:201::2/fe80::2)
#include "conf.h"
#include "steps/peer.h"

/* Collect replies for ms milliseconds; print their sources, sorted. */
static void replies_sorted(const char *what, int fd, int ms)
{
	char lines[8][200];
	int n = 0;
	double end = conf_now_mono() + ms / 1000.0;

	for (;;) {
		struct conf_rx rx;
		int left = (int)((end - conf_now_mono()) * 1000);

		if (left <= 0 || n == 8 || !conf_wait_in(fd, left))
			break;
		if (conf_recvmsg(fd, 2000, MSG_DONTWAIT, 0, &rx) < 0)
			break;
		snprintf(lines[n++], sizeof(lines[0]),
			 "%ld bytes type=%u from %s", rx.ret, conf_rbuf[0],
			 conf_sa6(rx.name, sizeof(rx.name), rx.namelen,
				  PORT_EXACT | FLOW_MASK));
	}
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (strcmp(lines[i], lines[j]) > 0) {
				char t[200];

				memcpy(t, lines[i], sizeof(t));
				memcpy(lines[i], lines[j], sizeof(t));
				memcpy(lines[j], t, sizeof(t));
			}
	out("%s: %d replies", what, n);
	for (int i = 0; i < n; i++)
		out("%s: %s", what, lines[i]);
}

static void pmtu_mode(const char *name, int mode)
{
	int fd = conf_socket6();

	out("## %s", name);
	TRY(L("IPV6_MTU_DISCOVER %s", name),
	    conf_setint(fd, SOL_IPV6, IPV6_MTU_DISCOVER, mode));
	TRY("IPV6_RECVERR 1", conf_setint(fd, SOL_IPV6, IPV6_RECVERR, 1));
	if (conf_ping6("sendto 1460 bytes (1500 with the IPv6 header)", fd,
		       CONF6_PEER, 20, 1460) > 0)
		conf_reply6_1("  reply", fd, false);
	if (conf_ping6("sendto 1461 bytes", fd, CONF6_PEER, 21, 1461) > 0)
		conf_reply6_1("  reply", fd, false);
	else
		conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 100, 0, 512, 1461);
	if (conf_ping6("sendto 4000 bytes", fd, CONF6_PEER, 22, 4000) > 0)
		conf_reply6_1("  reply", fd, false);
	else
		conf_errq6("  recvmsg MSG_ERRQUEUE", fd, 100, 0, 512, 4000);
	conf_quiet6("  nothing else", fd, 100);
	conf_getint("  SO_ERROR", fd, SOL_SOCKET, SO_ERROR, sizeof(int));
	pingsock_close(fd);
}

static const struct peer_size sizes[] = {
	{ 8, "", 1000 },
	{ 1452, "", 2000 },
	{ 1460, " (1500 with the header)", 2000 },
	{ 1461, " (fragmented)", 2000 },
	{ 65000, " (fragmented)", 0 },
	{ 65535, " (fragmented)", 0 },
};

static void link_local(unsigned veth0)
{
	struct sockaddr_in6 a = conf_sin6(CONF6_LL_PEER, 0, veth0);
	int fd = conf_socket6();

	out("## the peer's link-local address");
	TRY("IPV6_RECVPKTINFO 1",
	    conf_setint(fd, SOL_IPV6, IPV6_RECVPKTINFO, 1));
	conf_ping6_to("sendto fe80::2%veth0", fd, &a, 10, 64);
	conf_reply6("  reply", fd, 1000, 0, 512, false);
	conf_ping6_to("sendto fe80::2%veth0 4000 bytes (fragmented)", fd, &a,
		      11, 4000);
	conf_reply6("  reply", fd, sizeof(conf_rbuf), 0, 512, false);
	conf_name6("getsockname (no bound device from a scoped sendto)", fd,
		   false, PORT_MASK);
	pingsock_close(fd);
}

static void multicast(unsigned veth0)
{
	struct sockaddr_in6 a = conf_sin6("ff02::1", 0, veth0);
	int fd = conf_socket6();

	out("## all-nodes multicast ff02::1 on veth0");
	conf_ping6_to("sendto ff02::1%veth0 (loopback on)", fd, &a, 30, 64);
	replies_sorted("  replies", fd, 400);
	TRY("IPV6_MULTICAST_LOOP 0",
	    conf_setint(fd, SOL_IPV6, IPV6_MULTICAST_LOOP, 0));
	conf_ping6_to("sendto ff02::1%veth0 (loopback off)", fd, &a, 31, 64);
	replies_sorted("  replies", fd, 400);
	TRY("IPV6_MULTICAST_IF veth0",
	    conf_setint(fd, SOL_IPV6, IPV6_MULTICAST_IF, (int)veth0));
	a = conf_sin6("ff02::1", 0, 0);
	conf_ping6_to("sendto ff02::1 without scope (IPV6_MULTICAST_IF)", fd,
		      &a, 32, 64);
	replies_sorted("  replies", fd, 400);
	pingsock_close(fd);
}

int main(void)
{
	unsigned veth0 = conf_ifidx(CONF6_IF);

	conf_begin("peer6");
	peer_sizes(&conf_v6, sizes, sizeof(sizes) / sizeof(sizes[0]));
	link_local(veth0);
	peer_connected(&conf_v6, 12);
	pmtu_mode("IPV6_PMTUDISC_DONT", IPV6_PMTUDISC_DONT);
	pmtu_mode("IPV6_PMTUDISC_WANT", IPV6_PMTUDISC_WANT);
	pmtu_mode("IPV6_PMTUDISC_DO", IPV6_PMTUDISC_DO);
	pmtu_mode("IPV6_PMTUDISC_PROBE", IPV6_PMTUDISC_PROBE);
	pmtu_mode("IPV6_PMTUDISC_INTERFACE", IPV6_PMTUDISC_INTERFACE);
	pmtu_mode("IPV6_PMTUDISC_OMIT", IPV6_PMTUDISC_OMIT);
	multicast(veth0);
	return 0;
}
