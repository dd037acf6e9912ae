/* SPDX-License-Identifier: ISC */
/*
 * options_router: IP options through a router: record route shows the
 * router on the way out and back, timestamps only shows one stamp per
 * host (values masked), and an IP_PMTUDISC_DO send of 1400 bytes over
 * the MTU-1280 link.
 */
// needs: router (client 10.77.0.2, router 10.77.0.1/10.77.1.1, far 10.77.1.2)
#include "conf.h"

/* Timestamp option: pointer, overflow and flags; stamps only counted. */
static void show_ts(const char *what, const struct conf_rx *rx)
{
	const uint8_t *p = rx->ctl;
	size_t off = 0;

	while (rx->ctllen - off >= sizeof(struct cmsghdr)) {
		struct cmsghdr h;
		const uint8_t *d;

		memcpy(&h, p + off, sizeof(h));
		if (h.cmsg_len < sizeof(h) || h.cmsg_len > rx->ctllen - off)
			break;
		d = p + off + CMSG_LEN(0);
		if (h.cmsg_level == SOL_IP && h.cmsg_len >= CMSG_LEN(4) &&
		    d[0] == 68)
			out("%s: cmsg %s len=%zu ts option len=%u ptr=%u oflw=%u flags=%u stamps=%u",
			    what, conf_ctype(h.cmsg_level, h.cmsg_type),
			    (size_t)h.cmsg_len, d[1], d[2], d[3] >> 4, d[3] & 15,
			    (unsigned)(d[2] - 5) / 4);
		else
			out("%s: cmsg %s len=%zu", what,
			    conf_ctype(h.cmsg_level, h.cmsg_type), (size_t)h.cmsg_len);
		off += CMSG_ALIGN(h.cmsg_len);
	}
}

int main(void)
{
	uint8_t rr[40] = { 7, 39, 4 }, ts[40] = { 68, 40, 5, 0 };
	struct conf_rx rx;
	int fd;

	conf_begin("options_router");

	out("## record route to the far host");
	fd = conf_socket();
	TRY("IP_OPTIONS record route",
	    pingsock_setsockopt(fd, SOL_IP, IP_OPTIONS, rr, sizeof(rr)));
	TRY("IP_RECVOPTS 1", conf_setint(fd, SOL_IP, IP_RECVOPTS, 1));
	conf_ping("sendto 10.77.1.2", fd, "10.77.1.2", 1, 64);
	conf_reply("  reply", fd, 512, 0, 512, false);
	pingsock_close(fd);

	out("## timestamps only");
	fd = conf_socket();
	TRY("IP_OPTIONS timestamps",
	    pingsock_setsockopt(fd, SOL_IP, IP_OPTIONS, ts, sizeof(ts)));
	TRY("IP_RETOPTS 1", conf_setint(fd, SOL_IP, IP_RETOPTS, 1));
	conf_ping("sendto 10.77.1.2", fd, "10.77.1.2", 2, 64);
	if (conf_wait_in(fd, CONF_WAIT_MS)) {
		conf_recvmsg(fd, 512, MSG_DONTWAIT, 512, &rx);
		out("  reply: %ld", rx.ret);
		show_ts("  reply", &rx);
	}
	pingsock_close(fd);

	out("## IP_PMTUDISC_DO, 1400 bytes over the 1280 link");
	fd = conf_socket();
	TRY("IP_MTU_DISCOVER DO",
	    conf_setint(fd, SOL_IP, IP_MTU_DISCOVER, IP_PMTUDISC_DO));
	TRY("IP_RECVERR 1", conf_setint(fd, SOL_IP, IP_RECVERR, 1));
	conf_ping("sendto 10.77.1.2 1400 bytes", fd, "10.77.1.2", 3, 1400);
	conf_poll("  poll", fd, POLLIN, 1000);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1400);
	conf_ping("again", fd, "10.77.1.2", 4, 1400);
	conf_errq("  recvmsg MSG_ERRQUEUE", fd, 2000, 0, 512, 1400);
	pingsock_close(fd);
	return 0;
}
