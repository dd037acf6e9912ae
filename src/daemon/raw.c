/* SPDX-License-Identifier: ISC */
#include "daemon/raw.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/icmp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define RAW_RCVBUF (8 << 20)

#define NPMTU (IP_PMTUDISC_OMIT + 1)

/*
 * Two sockets.  The receiver also sends every request with the default
 * options; one more socket sends the others, its SO_BROADCAST,
 * IP_MTU_DISCOVER and IP_MULTICAST_LOOP (which a raw socket cannot take
 * per packet; TTL, TOS, source and device go per packet) set right
 * before the send when they differ (the daemon is one thread).  Not one
 * socket per combination: every raw ICMP socket of the namespace is
 * looked at for every ICMP packet it receives, pingsockd's or not
 * (raw_v4_input(); measured: 23 more of them cost the kernel's own ping
 * sockets in the namespace 12 % of their echo rate on loopback).
 */
struct raw_opts {
	int broadcast, pmtudisc, mc_loop, mc_ttl;
};

struct raw {
	int fd;			/* receives; sends for the default options */
	int alt;		/* sends for any other options */
	struct raw_opts fd_now, alt_now;	/* what each has set */
	struct rawio_batch *batch;
};

/* A classic BPF program of one instruction: accept nothing. */
static int drop_all(int fd)
{
	struct sock_filter insn = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog prog = { .len = 1, .filter = &insn };

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

static int open_one(uint32_t filter, char *err, size_t errlen)
{
	struct icmp_filter f = { .data = filter };
	int fd = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
			IPPROTO_ICMP);

	if (fd < 0) {
		snprintf(err, errlen, "raw ICMP socket: %s%s", strerror(errno),
			 errno == EPERM ? " (pingsockd must start as root or "
					  "with CAP_NET_RAW)" : "");
		return -1;
	}
	if (setsockopt(fd, SOL_RAW, ICMP_FILTER, &f, sizeof(f))) {
		snprintf(err, errlen, "raw socket options: %s", strerror(errno));
		close(fd);
		return -1;
	}
	return fd;
}

/* Pass Echo Reply and the errors; Extended Echo Reply (43) is above the
 * filter's 32 types and always passes. */
static uint32_t recv_filter(void)
{
	return ~((1u << ICMP_ECHOREPLY) | (1u << ICMP_DEST_UNREACH) |
		 (1u << ICMP_SOURCE_QUENCH) | (1u << ICMP_REDIRECT) |
		 (1u << ICMP_TIME_EXCEEDED) | (1u << ICMP_PARAMETERPROB));
}

static int recv_options(int fd, char *err, size_t errlen)
{
	rawio_queues(fd, RAW_RCVBUF, RAW_RCVBUF);
	if (rawio_set_int(fd, SOL_SOCKET, SO_TIMESTAMPNS_OLD, 1) ||
	    rawio_set_int(fd, SOL_IP, IP_PKTINFO, 1)) {
		snprintf(err, errlen, "raw socket options: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* The second sender; it receives nothing. */
static int open_alt(char *err, size_t errlen)
{
	int fd = open_one(~0u, err, errlen);

	if (fd < 0)
		return -1;
	if (drop_all(fd)) {
		snprintf(err, errlen, "raw socket options: %s", strerror(errno));
		close(fd);
		return -1;
	}
	rawio_set_int(fd, SOL_SOCKET, SO_RCVBUF, 0);
	rawio_queues(fd, 0, RAW_RCVBUF);
	return fd;
}

/* One option, set only if it differs from *cur.  0 or -errno. */
static int set_if(int fd, int level, int name, int *cur, int v)
{
	if (*cur == v)
		return 0;
	if (rawio_set_int(fd, level, name, v))
		return -errno;
	*cur = v;
	return 0;
}

/* Set on fd each option of want that differs from *now. 0 or -errno. */
static int opts_apply(int fd, struct raw_opts *now, const struct raw_opts *want)
{
	int rc = set_if(fd, SOL_SOCKET, SO_BROADCAST, &now->broadcast,
			want->broadcast);

	rc = rc ? rc : set_if(fd, SOL_IP, IP_MTU_DISCOVER, &now->pmtudisc,
			      want->pmtudisc);
	rc = rc ? rc : set_if(fd, SOL_IP, IP_MULTICAST_LOOP, &now->mc_loop,
			      want->mc_loop);
	return rc ? rc : set_if(fd, SOL_IP, IP_MULTICAST_TTL, &now->mc_ttl,
				want->mc_ttl);
}

/* Every option set to its default explicitly (a fresh socket's
 * IP_MTU_DISCOVER follows net.ipv4.ip_no_pmtu_disc).  0 or -errno. */
static int opts_init(int fd, struct raw_opts *now)
{
	static const struct raw_opts dflt = { .broadcast = 0,
					      .pmtudisc = IP_PMTUDISC_WANT,
					      .mc_loop = 1, .mc_ttl = 1 };

	*now = (struct raw_opts){ -1, -1, -1, -1 };
	return opts_apply(fd, now, &dflt);
}

struct raw *raw_open(int family, char *err, size_t errlen)
{
	struct raw *r;

	if (family != AF_INET) {
		snprintf(err, errlen, "raw socket: family %d unsupported", family);
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (!r || !(r->batch = rawio_batch_new())) {
		snprintf(err, errlen, "out of memory");
		free(r);
		return NULL;
	}
	r->alt = -1;
	r->fd = open_one(recv_filter(), err, errlen);
	if (r->fd < 0 || recv_options(r->fd, err, errlen) ||
	    (r->alt = open_alt(err, errlen)) < 0 ||
	    opts_init(r->fd, &r->fd_now) || opts_init(r->alt, &r->alt_now)) {
		if (r->fd >= 0 && r->alt >= 0)
			snprintf(err, errlen, "raw socket options: %s",
				 strerror(errno));
		raw_close(r);
		return NULL;
	}
	return r;
}

void raw_close(struct raw *r)
{
	if (!r)
		return;
	if (r->alt >= 0)
		close(r->alt);
	if (r->fd >= 0)
		close(r->fd);
	rawio_batch_free(r->batch);
	free(r);
}

int raw_fd(const struct raw *r)
{
	return r->fd;
}

int raw_listen(struct raw *r, bool on)
{
	struct icmp_filter f = { .data = on ? recv_filter() : ~0u };

	return setsockopt(r->fd, SOL_RAW, ICMP_FILTER, &f, sizeof(f)) ? -errno
								       : 0;
}

/* The socket for info's options, set as they must be: fd or -errno. */
static int raw_sender(struct raw *r, const struct ps_sendinfo *info)
{
	struct raw_opts want = { .broadcast = info->broadcast,
				 .pmtudisc = info->pmtudisc,
				 .mc_loop = info->mc_loop };
	bool dflt = !want.broadcast && want.pmtudisc == IP_PMTUDISC_WANT &&
		    want.mc_loop;
	struct raw_opts *now = dflt ? &r->fd_now : &r->alt_now;
	int fd = dflt ? r->fd : r->alt, rc;

	if (info->pmtudisc < 0 || info->pmtudisc >= NPMTU)
		return -EINVAL;
	/* IP_MULTICAST_TTL counts only for a group without IP_TTL. */
	want.mc_ttl = ps_addr_is_multicast(&info->dst) && info->ttl < 0
			      ? info->mc_ttl : now->mc_ttl;
	rc = opts_apply(fd, now, &want);
	return rc ? rc : fd;
}

int raw_send(struct raw *r, const struct ps_sendinfo *info,
	     const uint8_t *msg, size_t len)
{
	struct sockaddr_in to = { .sin_family = AF_INET };
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(sizeof(int)) * 2 +
		       CMSG_SPACE(sizeof(struct in_pktinfo)) + CMSG_SPACE(40)];
	} cbuf;
	struct msghdr mh = { .msg_name = &to, .msg_namelen = sizeof(to),
			     .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf.b };
	size_t used = 0;
	int fd;

	memset(&cbuf, 0, sizeof(cbuf));
	memcpy(&to.sin_addr, info->dst.a, 4);
	if (info->ttl >= 0)
		rawio_add_cmsg(&mh, &used, SOL_IP, IP_TTL,
		               &info->ttl, sizeof(int));
	if (info->tos)
		rawio_add_cmsg(&mh, &used, SOL_IP, IP_TOS,
		               &info->tos, sizeof(int));
	if (!ps_addr_is_any(&info->src) || info->ifindex) {
		struct in_pktinfo pi;

		memset(&pi, 0, sizeof(pi));
		pi.ipi_ifindex = (int)info->ifindex;
		memcpy(&pi.ipi_spec_dst, info->src.a, 4);
		rawio_add_cmsg(&mh, &used, SOL_IP, IP_PKTINFO, &pi, sizeof(pi));
	}
	if (info->optlen)	/* built into the header as for a ping socket */
		rawio_add_cmsg(&mh, &used, SOL_IP, IP_RETOPTS,
		               info->opts, info->optlen);
	mh.msg_controllen = used;
	if (!used)
		mh.msg_control = NULL;
	fd = raw_sender(r, info);
	if (fd < 0)
		return fd;
	/* raw_sendmsg() routes on-link only for MSG_DONTROUTE, as
	 * ping_v4_sendmsg() does for the socket's SO_DONTROUTE: an off-link
	 * destination fails with the kernel's ENETUNREACH. */
	if (sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL |
			     (info->dontroute ? MSG_DONTROUTE : 0)) < 0)
		return -errno;
	return 0;
}

static void read_cmsgs(struct msghdr *mh, struct raw_pkt *p)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		if (c->cmsg_level == SOL_IP && c->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			p->ifindex = (uint32_t)pi.ipi_ifindex;
		} else if (c->cmsg_level == SOL_SOCKET &&
			   c->cmsg_type == SO_TIMESTAMPNS_OLD) {
			memcpy(&p->stamp, CMSG_DATA(c), sizeof(p->stamp));
		}
	}
}

int raw_recv(struct raw *r, struct raw_pkt *pkts, int max)
{
	return rawio_recv(r->batch, r->fd, pkts, max, read_cmsgs);
}
