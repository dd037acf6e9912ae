/* SPDX-License-Identifier: ISC */
#include "daemon/raw6.h"

#include <errno.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "wire/in6ext.h"

/* Flow labels the raw socket leases to put clients' labels on the wire
 * (the kernel's limit per unprivileged socket is about this many). */
#define RAW6_LABELS 32
#define RAW6_RCVBUF (8 << 20)

struct raw6 {
	int fd;
	int pmtudisc, mc_loop, frag;	/* what the socket has now */
	uint32_t labels[RAW6_LABELS];	/* flow labels it leased */
	unsigned nlabels;
	struct rawio_batch *batch;
};

/* Echo Reply, Extended Echo Reply and every error type (below 128). */
static void recv_filter(struct icmp6_filter *f)
{
	ICMP6_FILTER_SETBLOCKALL(f);
	for (int t = 1; t < 128; t++)
		ICMP6_FILTER_SETPASS(t, f);
	ICMP6_FILTER_SETPASS(ICMP6_ECHO_REPLY, f);
	ICMP6_FILTER_SETPASS(161, f);	/* Extended Echo Reply (RFC 8335) */
}

struct raw6 *raw6_open(char *err, size_t errlen)
{
	struct icmp6_filter f;
	struct raw6 *r = calloc(1, sizeof(*r));

	if (!r || !(r->batch = rawio_batch_new())) {
		snprintf(err, errlen, "out of memory");
		free(r);
		return NULL;
	}
	r->pmtudisc = IPV6_PMTUDISC_WANT;
	r->mc_loop = 1;
	r->fd = socket(AF_INET6, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       IPPROTO_ICMPV6);
	if (r->fd < 0) {
		snprintf(err, errlen, "raw ICMPv6 socket: %s", strerror(errno));
		raw6_close(r);
		return NULL;
	}
	recv_filter(&f);
	rawio_queues(r->fd, RAW6_RCVBUF, RAW6_RCVBUF);
	if (setsockopt(r->fd, IPPROTO_ICMPV6, ICMP6_FILTER, &f, sizeof(f)) ||
	    rawio_set_int(r->fd, SOL_SOCKET, SO_TIMESTAMPNS_OLD, 1) ||
	    rawio_set_int(r->fd, SOL_IPV6, IPV6_RECVPKTINFO, 1) ||
	    rawio_set_int(r->fd, SOL_IPV6, IPV6_RECVHOPLIMIT, 1) ||
	    rawio_set_int(r->fd, SOL_IPV6, IPV6_RECVTCLASS, 1) ||
	    rawio_set_int(r->fd, SOL_IPV6, IPV6_FLOWINFO, 1) ||
	    rawio_set_int(r->fd, SOL_IPV6, IPV6_FLOWINFO_SEND, 1)) {
		snprintf(err, errlen, "raw ICMPv6 socket options: %s",
			 strerror(errno));
		raw6_close(r);
		return NULL;
	}
	return r;
}

void raw6_close(struct raw6 *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	rawio_batch_free(r->batch);
	free(r);
}

int raw6_fd(const struct raw6 *r)
{
	return r->fd;
}

int raw6_listen(struct raw6 *r, bool on)
{
	struct icmp6_filter f;

	if (on)
		recv_filter(&f);
	else
		ICMP6_FILTER_SETBLOCKALL(&f);
	return setsockopt(r->fd, IPPROTO_ICMPV6, ICMP6_FILTER, &f, sizeof(f))
		       ? -errno : 0;
}

/* A socket-wide option, changed only when this send needs another. */
static int want(int fd, int name, int *cur, int val)
{
	if (*cur == val)
		return 0;
	if (rawio_set_int(fd, SOL_IPV6, name, val))
		return -errno;
	*cur = val;
	return 0;
}

/*
 * A raw socket may only send a flow label it has leased: lease each one
 * a client uses (shared with anyone), once.  false: it cannot be had
 * (held exclusively elsewhere, or too many): the packet goes without.
 */
static bool have_label(struct raw6 *r, uint32_t label)
{
	struct in6ext_flreq req;

	for (unsigned i = 0; i < r->nlabels; i++)
		if (r->labels[i] == label)
			return true;
	if (r->nlabels == RAW6_LABELS)
		return false;
	memset(&req, 0, sizeof(req));
	req.label = label;
	req.action = IN6EXT_FL_A_GET;
	req.share = IN6EXT_FL_S_ANY;
	req.flags = IN6EXT_FL_F_CREATE;
	if (setsockopt(r->fd, SOL_IPV6, IPV6_FLOWLABEL_MGR, &req, sizeof(req)))
		return false;
	r->labels[r->nlabels++] = label;
	return true;
}

int raw6_send(struct raw6 *r, const struct ps_sendinfo *info,
	      const uint8_t *msg, size_t len)
{
	struct sockaddr_in6 to = { .sin6_family = AF_INET6 };
	struct iovec iov = { .iov_base = (void *)msg, .iov_len = len };
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
		       3 * CMSG_SPACE(sizeof(int))];
	} cbuf;
	struct msghdr mh = { .msg_name = &to, .msg_namelen = sizeof(to),
			     .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf.b };
	size_t used = 0;
	int tclass = info->tos, df = 1, err;

	memset(&cbuf, 0, sizeof(cbuf));
	memcpy(&to.sin6_addr, info->dst.a, 16);
	to.sin6_scope_id = info->dst.scope;
	if (info->flowlabel && have_label(r, info->flowlabel))
		to.sin6_flowinfo = info->flowlabel;
	if (!ps_addr_is_any(&info->src) || info->ifindex) {
		struct in6_pktinfo pi;

		memset(&pi, 0, sizeof(pi));
		pi.ipi6_ifindex = info->ifindex;
		if (!ps_addr_is_any(&info->src))
			memcpy(&pi.ipi6_addr, info->src.a, 16);
		rawio_add_cmsg(&mh, &used, SOL_IPV6, IPV6_PKTINFO,
		               &pi, sizeof(pi));
	}
	if (info->ttl >= 0)
		rawio_add_cmsg(&mh, &used, SOL_IPV6, IPV6_HOPLIMIT,
		               &info->ttl, sizeof(int));
	if (tclass)
		rawio_add_cmsg(&mh, &used, SOL_IPV6, IPV6_TCLASS,
		               &tclass, sizeof(int));
	if (info->dontfrag)
		rawio_add_cmsg(&mh, &used, SOL_IPV6, IPV6_DONTFRAG,
		               &df, sizeof(int));
	mh.msg_controllen = used;
	if (!used)
		mh.msg_control = NULL;
	if (info->pmtudisc < IPV6_PMTUDISC_DONT ||
	    info->pmtudisc > IPV6_PMTUDISC_OMIT)
		return -EINVAL;
	err = want(r->fd, IPV6_MTU_DISCOVER, &r->pmtudisc, info->pmtudisc);
	if (!err)
		err = want(r->fd, IPV6_MULTICAST_LOOP, &r->mc_loop,
			   info->mc_loop);
	if (!err)	/* IPV6_MTU: the socket's cap on fragment size */
		err = want(r->fd, IPV6_MTU, &r->frag, info->frag_size);
	if (err)
		return err;
	if (sendmsg(r->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0)
		return -errno;
	return 0;
}

static void read_cmsgs(struct msghdr *mh, struct raw_pkt *p)
{
	for (struct cmsghdr *c = CMSG_FIRSTHDR(mh); c; c = CMSG_NXTHDR(mh, c)) {
		int v;

		if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SO_TIMESTAMPNS_OLD) {
			memcpy(&p->stamp, CMSG_DATA(c), sizeof(p->stamp));
			continue;
		}
		if (c->cmsg_level != SOL_IPV6)
			continue;
		switch (c->cmsg_type) {
		case IPV6_PKTINFO: {
			struct in6_pktinfo pi;

			memcpy(&pi, CMSG_DATA(c), sizeof(pi));
			p->ifindex = (uint32_t)pi.ipi6_ifindex;
			p->m6.dst.family = AF_INET6;
			memcpy(p->m6.dst.a, &pi.ipi6_addr, 16);
			break;
		}
		case IPV6_HOPLIMIT:
			memcpy(&v, CMSG_DATA(c), sizeof(v));
			p->m6.hoplimit = (uint8_t)v;
			break;
		case IPV6_TCLASS:
			memcpy(&v, CMSG_DATA(c), sizeof(v));
			p->m6.tclass = (uint8_t)v;
			break;
		case IPV6_FLOWINFO:
			memcpy(&p->m6.flowinfo, CMSG_DATA(c), 4);
			break;
		default:
			break;
		}
	}
}

/* The sender's address, then the control messages. */
static void read_pkt(struct msghdr *mh, struct raw_pkt *p)
{
	const struct sockaddr_in6 *from = mh->msg_name;

	p->m6.src.family = AF_INET6;
	memcpy(p->m6.src.a, &from->sin6_addr, 16);
	p->m6.src.scope = from->sin6_scope_id;
	read_cmsgs(mh, p);
}

int raw6_recv(struct raw6 *r, struct raw_pkt *pkts, int max)
{
	return rawio_recv(r->batch, r->fd, pkts, max, read_pkt);
}
