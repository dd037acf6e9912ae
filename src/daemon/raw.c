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
 * Sending sockets, one per combination of the per-socket options that a
 * raw socket cannot take per packet: SO_BROADCAST, IP_MTU_DISCOVER and
 * IP_MULTICAST_LOOP.  (TTL, TOS, source and device go per packet.)  All
 * are opened at start-up, while we may; all but the receiving one drop
 * whatever they would receive.
 */
struct raw {
	int fd;			/* receives; sends for the default options */
	int send[2][NPMTU][2];	/* [broadcast][pmtudisc][mc_loop] */
	int mc_ttl[2][NPMTU][2];	/* each one's IP_MULTICAST_TTL now */
	struct rawio_batch *batch;
};

/* A classic BPF program of one instruction: accept nothing. */
static int drop_all(int fd)
{
	struct sock_filter insn = BPF_STMT(BPF_RET | BPF_K, 0);
	struct sock_fprog prog = { .len = 1, .filter = &insn };

	return setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
}

static int open_one(uint32_t filter, int broadcast, char *err, size_t errlen)
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
	if (setsockopt(fd, SOL_RAW, ICMP_FILTER, &f, sizeof(f)) ||
	    (broadcast && rawio_set_int(fd, SOL_SOCKET, SO_BROADCAST, 1))) {
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

/* The sender for one combination; it receives nothing. */
static int open_sender(int broadcast, int pmtudisc, int mc_loop, char *err,
		       size_t errlen)
{
	int fd = open_one(~0u, broadcast, err, errlen);

	if (fd < 0)
		return -1;
	if (drop_all(fd) ||
	    rawio_set_int(fd, SOL_IP, IP_MTU_DISCOVER, pmtudisc) ||
	    rawio_set_int(fd, SOL_IP, IP_MULTICAST_LOOP, mc_loop)) {
		snprintf(err, errlen, "raw socket options: %s", strerror(errno));
		close(fd);
		return -1;
	}
	rawio_set_int(fd, SOL_SOCKET, SO_RCVBUF, 0);
	rawio_queues(fd, 0, RAW_RCVBUF);
	return fd;
}

static int open_senders(struct raw *r, char *err, size_t errlen)
{
	for (int b = 0; b < 2; b++)
		for (int m = 0; m < NPMTU; m++)
			for (int l = 0; l < 2; l++) {
				/* The default combination is the receiver's. */
				if (!b && m == IP_PMTUDISC_WANT && l)
					r->send[b][m][l] = r->fd;
				else
					r->send[b][m][l] =
						open_sender(b, m, l, err, errlen);
				if (r->send[b][m][l] < 0)
					return -1;
			}
	return 0;
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
	memset(r->send, 0xff, sizeof(r->send));	/* all -1 */
	for (int b = 0; b < 2; b++)
		for (int m = 0; m < NPMTU; m++)
			for (int l = 0; l < 2; l++)
				r->mc_ttl[b][m][l] = 1;	/* the default */
	r->fd = open_one(recv_filter(), 0, err, errlen);
	if (r->fd < 0 || recv_options(r->fd, err, errlen) ||
	    open_senders(r, err, errlen)) {
		raw_close(r);
		return NULL;
	}
	return r;
}

void raw_close(struct raw *r)
{
	if (!r)
		return;
	for (int b = 0; b < 2; b++)
		for (int m = 0; m < NPMTU; m++)
			for (int l = 0; l < 2; l++)
				if (r->send[b][m][l] >= 0 && r->send[b][m][l] != r->fd)
					close(r->send[b][m][l]);
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
	if (info->pmtudisc < 0 || info->pmtudisc >= NPMTU)
		return -EINVAL;
	fd = r->send[info->broadcast][info->pmtudisc][info->mc_loop];
	if (ps_addr_is_multicast(&info->dst) && info->ttl < 0) {
		int *cur = &r->mc_ttl[info->broadcast][info->pmtudisc][info->mc_loop];

		/* The daemon is one thread: set it right before the send. */
		if (*cur != info->mc_ttl) {
			if (rawio_set_int(fd, SOL_IP, IP_MULTICAST_TTL,
					  info->mc_ttl))
				return -errno;
			*cur = info->mc_ttl;
		}
	}
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
