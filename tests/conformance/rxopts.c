/* SPDX-License-Identifier: ISC */
/*
 * rxopts: SO_TIMESTAMPING receive stamps (flags, both option names, the
 * control message), SO_RXQ_OVFL (which ping sockets do not report), a
 * large reply into the smallest receive buffer, and the errno of
 * broadcast and multicast destinations.
 */
// needs: peer (10.201.0.1/24 here, 10.201.0.2/24 in the peer namespace)
#include "conf.h"

#include <arpa/inet.h>
#include <linux/net_tstamp.h>

/* Print the control messages, stamps as "within 1 s" rather than values. */
static void show_stamps(const char *what, const struct conf_rx *rx)
{
	const uint8_t *p = rx->ctl;
	size_t off = 0;

	out("%s: %ld controllen=%zu", what, rx->ret, rx->ctllen);
	while (rx->ctllen - off >= sizeof(struct cmsghdr)) {
		struct cmsghdr h;
		int64_t ts[6];

		memcpy(&h, p + off, sizeof(h));
		if (h.cmsg_len < sizeof(h) || h.cmsg_len > rx->ctllen - off)
			break;
		if (h.cmsg_level == SOL_SOCKET &&
		    (h.cmsg_type == SO_TIMESTAMPING_OLD ||
		     h.cmsg_type == SO_TIMESTAMPING_NEW) &&
		    h.cmsg_len == CMSG_LEN(sizeof(ts))) {
			memcpy(ts, p + off + CMSG_LEN(0), sizeof(ts));
			out("  cmsg SOL_SOCKET/%s len=%zu ts0 %s ts1 %lld.%lld ts2 %lld.%lld",
			    h.cmsg_type == SO_TIMESTAMPING_OLD ? "SO_TIMESTAMPING_OLD"
							       : "SO_TIMESTAMPING_NEW",
			    (size_t)h.cmsg_len,
			    conf_when(ts[0], ts[1], 1000000000LL),
			    (long long)ts[2], (long long)ts[3],
			    (long long)ts[4], (long long)ts[5]);
		} else {
			out("  cmsg %s len=%zu", conf_ctype(h.cmsg_level, h.cmsg_type),
			    (size_t)h.cmsg_len);
		}
		off += CMSG_ALIGN(h.cmsg_len);
	}
}

static void stamping(const char *what, int name, int flags)
{
	struct conf_rx rx;
	int fd = conf_socket();

	TRY(L("%s: set 0x%x", what, flags),
	    pingsock_setsockopt(fd, SOL_SOCKET, name, &flags, sizeof(flags)));
	conf_getint(L("%s: get", what), fd, SOL_SOCKET, name, 8);
	conf_ping(L("%s: sendto", what), fd, "127.0.0.1", 1, 64);
	if (conf_wait_in(fd, CONF_WAIT_MS)) {
		conf_recvmsg(fd, 512, MSG_DONTWAIT, 256, &rx);
		show_stamps(L("%s: reply", what), &rx);
	}
	pingsock_close(fd);
}

static void bad_flags(void)
{
	int fd = conf_socket();
	int bad[] = { 1 << 19, 1 << 16, 1 << 12, 1 << 15 };
	struct so_timestamping st = { SOF_TIMESTAMPING_RX_SOFTWARE, 0 };

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		TRY(L("SO_TIMESTAMPING 0x%x", bad[i]),
		    pingsock_setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING_OLD,
					&bad[i], sizeof(int)));
	TRY("SO_TIMESTAMPING optlen 2",
	    pingsock_setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING_OLD, bad, 2));
	TRY("SO_TIMESTAMPING struct so_timestamping",
	    pingsock_setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPING_OLD, &st,
				sizeof(st)));
	conf_getint("  get", fd, SOL_SOCKET, SO_TIMESTAMPING_OLD, 8);
	conf_getint("  get optlen 4", fd, SOL_SOCKET, SO_TIMESTAMPING_OLD, 4);
	pingsock_close(fd);
}

static void rxq_ovfl(void)
{
	struct conf_rx rx;
	int fd = conf_socket();

	out("## SO_RXQ_OVFL after drops");
	TRY("SO_RXQ_OVFL 1", conf_setint(fd, SOL_SOCKET, SO_RXQ_OVFL, 1));
	TRY("SO_RCVBUF 1", conf_setint(fd, SOL_SOCKET, SO_RCVBUF, 1));
	for (uint16_t s = 1; s <= 20; s++)
		conf_ping(L("send seq %u", s), fd, "127.0.0.1", s, 1000);
	if (conf_wait_in(fd, CONF_WAIT_MS)) {
		conf_recvmsg(fd, 2000, MSG_DONTWAIT, 256, &rx);
		show_stamps("first reply", &rx);
	}
	pingsock_close(fd);
}

/* The smallest receive buffer still takes one reply of any size: the
 * relay's data pair refused one longer than its buffer (EMSGSIZE). */
static void big_reply_small_rcvbuf(void)
{
	struct conf_rx rx;
	int fd = conf_socket();

	out("## a 60,000-byte reply with SO_RCVBUF 1");
	TRY("SO_RCVBUF 1", conf_setint(fd, SOL_SOCKET, SO_RCVBUF, 1));
	conf_ping("send 60000", fd, "127.0.0.1", 1, 60000);
	if (conf_wait_in(fd, CONF_WAIT_MS)) {
		conf_recvmsg(fd, 65536, MSG_DONTWAIT, 0, &rx);
		out("reply: %ld", rx.ret);
	} else {
		out("reply: none");
	}
	pingsock_close(fd);
}

static void destinations(void)
{
	int fd = conf_socket();

	out("## broadcast and multicast destinations");
	conf_ping("directed broadcast without SO_BROADCAST", fd, "10.201.0.255",
		  1, 64);
	TRY("SO_BROADCAST 1", conf_setint(fd, SOL_SOCKET, SO_BROADCAST, 1));
	conf_ping("directed broadcast with SO_BROADCAST", fd, "10.201.0.255",
		  2, 64);
	conf_ping("255.255.255.255 (no default route)", fd, "255.255.255.255",
		  3, 64);
	conf_ping("224.0.0.1 (no route)", fd, "224.0.0.1", 4, 64);
	pingsock_close(fd);
}

static void mc_if(const char *what, int fd, const void *v, socklen_t len)
{
	TRY(what, pingsock_setsockopt(fd, SOL_IP, IP_MULTICAST_IF, v, len));
	conf_getint(L("  %s: get", what), fd, SOL_IP, IP_MULTICAST_IF, 4);
}

static void multicast_if(void)
{
	struct in_addr local = { 0 }, other = { 0 }, any = { 0 };
	struct ip_mreqn byidx = { .imr_ifindex = 1 };	/* lo */
	struct ip_mreqn noidx = { .imr_ifindex = 9999 };
	int fd = conf_socket();

	out("## IP_MULTICAST_IF");
	inet_pton(AF_INET, "10.201.0.1", &local);
	inet_pton(AF_INET, "10.201.0.77", &other);
	mc_if("by our address", fd, &local, sizeof(local));
	conf_ping("  224.0.0.1", fd, "224.0.0.1", 5, 64);
	mc_if("by an address not ours", fd, &other, sizeof(other));
	mc_if("by index (mreqn)", fd, &byidx, sizeof(byidx));
	conf_ping("  224.0.0.1", fd, "224.0.0.1", 6, 64);
	mc_if("by an unknown index", fd, &noidx, sizeof(noidx));
	mc_if("optlen 2", fd, &local, 2);
	mc_if("INADDR_ANY: cleared", fd, &any, sizeof(any));
	conf_ping("  224.0.0.1", fd, "224.0.0.1", 7, 64);
	TRY("IP_MULTICAST_TTL 3", conf_setint(fd, SOL_IP, IP_MULTICAST_TTL, 3));
	TRY("IP_MULTICAST_LOOP 0", conf_setint(fd, SOL_IP, IP_MULTICAST_LOOP, 0));
	mc_if("by our address again", fd, &local, sizeof(local));
	conf_ping("  224.0.0.1", fd, "224.0.0.1", 8, 64);
	pingsock_close(fd);
}

int main(void)
{
	conf_begin("rxopts");

	out("## SO_TIMESTAMPING");
	stamping("rx software + software", SO_TIMESTAMPING_OLD,
		 SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE);
	stamping("NEW, rx software + software", SO_TIMESTAMPING_NEW,
		 SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE);
	stamping("rx software only", SO_TIMESTAMPING_OLD,
		 SOF_TIMESTAMPING_RX_SOFTWARE);
	bad_flags();
	rxq_ovfl();
	big_reply_small_rcvbuf();
	destinations();
	multicast_if();
	return 0;
}
