/* SPDX-License-Identifier: ISC */
/*
 * deliver - what the raw sockets receive, to the socket it answers: an
 * Echo Reply (or PROBE reply) onto its data descriptor, an ICMP error
 * as the kernel's ping_err() treats it (pending error, error-queue
 * record), each only to a socket that sent the request it answers
 * (pstab_lookup()).  And the error-queue record of a send refused for its
 * size (ip_local_error()).
 */
#include "daemon/srv.h"

#include <errno.h>
#include <sys/epoll.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include "daemon/log.h"
#include "daemon/raw.h"
#include "daemon/raw6.h"
#include "engine/icmp.h"
#include "engine/icmperr.h"

/*
 * Broker mode: the raw sockets see every ICMP message of the namespace,
 * the replies to brokered sockets too, and would take a copy of each.
 * They are watched only while relay sockets exist, or always for a
 * family that broker mode does not serve; what queued meanwhile (nothing
 * a relay socket asked for) is dropped when they are watched again.
 */
static void watch_one(struct server *s, int family, bool *on, bool want)
{
	int fd = family == AF_INET6 ? s->raw6_fd : s->raw_fd;
	struct loop_handler *h = family == AF_INET6 ? &s->raw6_h : &s->raw_h;
	char junk[256];
	int err;

	if (fd < 0 || *on == want)
		return;
	/* The ICMP filter keeps the kernel from copying each packet to
	 * the raw socket at all; the loop, from waking for any. */
	err = family == AF_INET6 ? raw6_listen(s->conf.raw6, want)
				 : raw_listen(s->conf.raw4, want);
	if (err)
		log_warn("raw socket filter: %s", strerror(-err));
	if (want) {
		while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) >= 0)
			;
		if (loop_watch(s->loop, fd, EPOLLIN, h) != 0)
			return;
	} else {
		loop_forget(s->loop, fd);
	}
	*on = want;
}

void deliver_watch(struct server *s)
{
	bool relay = pstab_sockets(s->tab) > 0;

	watch_one(s, AF_INET, &s->raw_on, relay || !s->conf.broker.v4);
	watch_one(s, AF_INET6, &s->raw6_on, relay || !s->conf.broker.v6);
}

static void fill_dgram(struct wire_dgram *dg, const struct icmp_pkt *p,
		       const struct raw_pkt *rp)
{
	memset(dg, 0, sizeof(*dg));
	dg->kind = WIRE_DG_REPLY;
	dg->family = p->src.family;
	dg->ttl = p->ttl;
	dg->tos = p->tos;
	dg->flowinfo = p->flowinfo;
	dg->ifindex = rp->ifindex;
	memcpy(dg->src, p->src.a, sizeof(dg->src));
	memcpy(dg->dst, p->dst.a, sizeof(dg->dst));
	dg->src_scope = p->src.scope;
	/* ip_cmsg_recv_dstaddr() reports the transport's second 16 bits,
	 * for ICMP the checksum, as IP(V6)_ORIGDSTADDR's port. */
	if (p->icmplen >= 4)
		memcpy(&dg->l4sum, p->icmp + 2, sizeof(dg->l4sum));
	dg->ts_sec = rp->stamp.tv_sec;
	dg->ts_nsec = rp->stamp.tv_nsec;
	if (p->optlen && p->optlen <= sizeof(dg->opts)) {	/* IPv6: none */
		dg->optlen = (uint8_t)p->optlen;
		memcpy(dg->opts, p->opts, p->optlen);
	}
}

/* The received ICMP message onto the socket's data descriptor. */
static bool queue_dgram(struct server *s, struct ssock *ss,
			const struct psock *ps, const struct icmp_pkt *p,
			const struct raw_pkt *rp)
{
	struct wire_dgram dg;
	struct iovec iov[2];
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };

	fill_dgram(&dg, p, rp);
	/* A socket that shows the IPv4 header (an emulated raw socket)
	 * gets what the library cannot know otherwise (engine/rawhdr.h). */
	if (ps_rx_iphdr(ps) && p->src.family == AF_INET && rp->len >= 12) {
		memcpy(&dg.ee_data, rp->data + 4, 4);
		memcpy(&dg.ee_info, rp->data + 8, 4);
	}
	iov[0].iov_base = &dg;
	iov[0].iov_len = sizeof(dg);
	iov[1].iov_base = (void *)p->icmp;
	iov[1].iov_len = p->icmplen;
	if (sendmsg(ss->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		ss->drops++;	/* its queue is full: like a full rcvbuf */
		s->stats.dropped++;
		return false;
	}
	return true;
}

static void deliver_reply(struct server *s, const struct icmp_pkt *p,
			  const struct raw_pkt *rp)
{
	struct psock *ps = pstab_lookup(s->tab, p, rp->ifindex);
	struct ssock *ss;

	if (!ps) {
		s->stats.dropped++;	/* nobody asked: stray or forged */
		return;
	}
	/* The deny list holds for who answers too: a broadcast or a group
	 * the policy allows is answered by every host of the link, those of
	 * a denied network among them (and a reload may deny a destination
	 * after its request went). */
	if (!policy_dest_allowed(&s->conf.policy, &p->src)) {
		s->stats.dropped++;
		return;
	}
	ss = ps_owner(ps);
	if (!ps_delivers(ps, p->type))
		return;		/* its ICMP_FILTER: not a drop */
	if (queue_dgram(s, ss, ps, p, rp)) {
		ss->replies++;
		s->stats.replies++;
	}
}

/* ping_err(): an ICMP error quoting one of this socket's requests. */
static void deliver_error(struct server *s, const struct icmp_pkt *p,
			  const struct raw_pkt *rp)
{
	struct psock *ps = pstab_lookup(s->tab, p, rp->ifindex);
	struct icmp_verdict v;
	struct wire_dgram dg;
	struct ssock *ss;

	if (!ps) {
		s->stats.dropped++;	/* for nobody, or forged */
		return;
	}
	ss = ps_owner(ps);
	/* The error itself, whole, to a socket that takes it so (an
	 * emulated raw socket); then the error queue as for any. */
	if (ps_error_datagram(ps, p->type))
		queue_dgram(s, ss, ps, p, rp);
	if (ps_error_ignored(ps, p->type))
		return;
	if (p->src.family == AF_INET6 && p->type == 2)	/* Packet Too Big */
		ps_pmtu_changed(ps, &p->q_dst);
	if (p->src.family == AF_INET6 ?
		    !icmp6_error_verdict(p->type, p->code, p->info, &v) :
		    !icmp4_error_verdict(p->type, p->code, p->info,
					 ps_pmtudisc(ps), s->env->no_pmtu_disc,
					 &v))
		return;
	switch (ps_error_action(ps, v.hard)) {
	case PS_ERR_DROP:
		return;
	case PS_ERR_SET:
		audit_error(s, ss);
		sstate_set_err(ss, v.err, true);
		return;
	case PS_ERR_QUEUE:
		fill_dgram(&dg, p, rp);
		dg.kind = WIRE_DG_ERROR;
		/* msg_name: the destination of the request it is about. */
		memcpy(dg.req_dst, p->q_dst.a, sizeof(dg.req_dst));
		dg.req_dst_scope = 0;
		dg.ee_errno = (uint32_t)v.err;
		dg.ee_origin = SO_EE_ORIGIN_ICMP;
		dg.ee_type = p->type;
		dg.ee_code = p->code;
		dg.ee_info = v.info;
		dg.offender_family = AF_INET;
		memcpy(dg.offender, p->src.a, sizeof(dg.offender));
		if (p->src.family == AF_INET6) {
			/* ipv6_recv_error(): scope ids of link-local
			 * addresses are the incoming interface. */
			dg.ee_origin = SO_EE_ORIGIN_ICMP6;
			dg.offender_family = AF_INET6;
			dg.req_dst_scope = ps_addr_needs_scope(&p->q_dst)
						   ? rp->ifindex : 0;
			dg.offender_scope = p->src.scope;
		}
		/* The pending error first: a reader woken by the record
		 * finds both.  One copy into the socket's slots for the
		 * two (the queue's wake-up writes them; a refused record
		 * none, and so this does). */
		audit_error(s, ss);
		if (sstate_queue_err(s, ss, v.err, &dg, p->q_icmp,
				     p->q_icmplen) < 0)
			sstate_publish(ss);
		return;
	}
}

/*
 * ip_local_error(): a send refused for its size under IP_PMTUDISC_DO (or
 * over 0xFFFF in all) also leaves a record, without data or offender.
 */
void deliver_local_error(struct server *s, struct ssock *ss,
			const struct ps_sendinfo *info, int err)
{
	struct wire_dgram dg;
	struct timespec now;
	int mtu;

	if (err != -EMSGSIZE || !ps_local_errors(ss->ps))
		return;
	mtu = s->env->route_mtu(s->env->ctx, &info->dst, info->ifindex);
	/* ip6_append_data(): IPV6_MTU lowers the MTU a send must fit. */
	if (info->frag_size > 0 && (mtu <= 0 || info->frag_size < mtu))
		mtu = info->frag_size;
	clock_gettime(CLOCK_REALTIME, &now);
	memset(&dg, 0, sizeof(dg));
	dg.kind = WIRE_DG_ERROR;
	dg.family = info->reach.family;
	memcpy(dg.req_dst, info->reach.a, sizeof(dg.req_dst));
	dg.req_dst_scope = info->reach.scope;
	/* ipv6_local_error(): the port is the flow's, which for ICMPv6 is
	 * where the type and code sit. */
	if (dg.family == AF_INET6)
		dg.req_typecode = (uint16_t)(info->type << 8 | info->code);
	dg.ts_sec = now.tv_sec;
	dg.ts_nsec = now.tv_nsec;
	dg.ee_errno = EMSGSIZE;
	dg.ee_origin = SO_EE_ORIGIN_LOCAL;
	dg.ee_info = mtu > 0 ? (uint32_t)mtu : 0;
	sstate_queue(s, ss, &dg, NULL, 0);
}

static void on_packet(struct server *s, const struct raw_pkt *rp, int family)
{
	struct icmp_pkt p;
	enum icmp_parse_result res =
		family == AF_INET6 ? icmp6_parse(rp->data, rp->len, &rp->m6, &p)
				   : icmp4_parse(rp->data, rp->len, &p);

	if (res != ICMP_PARSE_OK) {
		s->stats.bad_packets++;
		return;
	}
	if (p.kind == ICMP_K_REPLY)
		deliver_reply(s, &p, rp);
	else if (p.kind == ICMP_K_ERROR)
		deliver_error(s, &p, rp);
}

/* What a raw socket of family has queued, a batch at a time (bounded:
 * the loop goes on to its clients in between), by count and by time: a
 * packet whose identifier many sockets share costs a look at each. */
#define MAX_RAW_BATCHES 16
#define MAX_DRAIN_NS 1000000u

void deliver_drain(struct server *s, int family)
{
	struct raw_pkt pkts[RAW_BATCH];
	uint64_t t0 = loop_now_ns();

	for (int b = 0; b < MAX_RAW_BATCHES &&
			(b == 0 || loop_now_ns() - t0 < MAX_DRAIN_NS); b++) {
		int n = family == AF_INET6
				? (s->conf.raw6 ? raw6_recv(s->conf.raw6, pkts,
							    RAW_BATCH) : 0)
				: raw_recv(s->conf.raw4, pkts, RAW_BATCH);

		for (int i = 0; i < n; i++)
			on_packet(s, &pkts[i], family);
		if (n < RAW_BATCH)
			break;
	}
}

void deliver_raw4(void *data, uint32_t events)
{
	(void)events;
	deliver_drain(data, AF_INET);
}

void deliver_raw6(void *data, uint32_t events)
{
	(void)events;
	deliver_drain(data, AF_INET6);
}
