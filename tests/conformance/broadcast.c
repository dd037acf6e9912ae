/* SPDX-License-Identifier: ISC */
/*
 * broadcast: Echo Requests to the subnet's broadcast address and to the
 * all-hosts group 224.0.0.1, answered by this host and by the peer (both
 * namespaces answer broadcast echoes here).  Answers may come in either
 * order, so their sources are printed sorted.
 */
// needs: peer (10.201.0.1/24 here, 10.201.0.2/24 in the peer namespace)
#include "conf.h"

#include <arpa/inet.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Every answer within 500 ms: its source and sequence, sorted. */
static void answers(const char *what, int fd)
{
	char seen[8][64];
	size_t n = 0;

	while (n < 8 && conf_wait_in(fd, 500)) {
		struct conf_rx rx;
		struct sockaddr_in sin;
		char a[INET_ADDRSTRLEN];

		if (conf_recvmsg(fd, 512, MSG_DONTWAIT, 0, &rx) < 8)
			break;
		memcpy(&sin, rx.name, sizeof(sin));
		inet_ntop(AF_INET, &sin.sin_addr, a, sizeof(a));
		snprintf(seen[n++], sizeof(seen[0]), "from %s seq %u len %ld", a,
			 (unsigned)(conf_rbuf[6] << 8 | conf_rbuf[7]), rx.ret);
	}
	qsort(seen, n, sizeof(seen[0]), cmp_str);
	out("%s: %zu answers", what, n);
	for (size_t i = 0; i < n; i++)
		out("  %s", seen[i]);
}

int main(void)
{
	struct in_addr local;
	int fd;

	conf_begin("broadcast");

	out("## directed broadcast");
	fd = conf_socket();
	conf_ping("without SO_BROADCAST", fd, "10.201.0.255", 1, 64);
	TRY("SO_BROADCAST 1", conf_setint(fd, SOL_SOCKET, SO_BROADCAST, 1));
	conf_ping("with SO_BROADCAST", fd, "10.201.0.255", 2, 64);
	answers("  answers", fd);
	conf_ping("unicast to the peer, SO_BROADCAST still on", fd, CONF_PEER,
		  3, 64);
	answers("  answers", fd);
	pingsock_close(fd);

	out("## multicast 224.0.0.1 on veth0");
	fd = conf_socket();
	inet_pton(AF_INET, "10.201.0.1", &local);
	TRY("IP_MULTICAST_IF 10.201.0.1",
	    pingsock_setsockopt(fd, SOL_IP, IP_MULTICAST_IF, &local,
				sizeof(local)));
	conf_ping("sendto 224.0.0.1", fd, "224.0.0.1", 4, 64);
	answers("  answers (loop on)", fd);
	TRY("IP_MULTICAST_LOOP 0", conf_setint(fd, SOL_IP, IP_MULTICAST_LOOP, 0));
	conf_ping("sendto 224.0.0.1", fd, "224.0.0.1", 5, 64);
	answers("  answers (loop off)", fd);
	TRY("IP_MULTICAST_TTL 0", conf_setint(fd, SOL_IP, IP_MULTICAST_TTL, 0));
	TRY("IP_MULTICAST_LOOP 1", conf_setint(fd, SOL_IP, IP_MULTICAST_LOOP, 1));
	conf_ping("sendto 224.0.0.1, TTL 0", fd, "224.0.0.1", 6, 64);
	answers("  answers (TTL 0: this host only)", fd);
	pingsock_close(fd);
	return 0;
}
