/* SPDX-License-Identifier: ISC */
#include "lib/cmsg.h"

#include "engine/addr.h"
#include "lib/ucopy.h"
#include "wire/in6ext.h"

#include <netinet/in.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

void cmsg_begin(struct cmsg_out *o, const struct msghdr *msg)
{
	o->p = msg->msg_control;
	o->left = msg->msg_control ? msg->msg_controllen : 0;
	o->used = 0;
	o->flags = 0;
	o->keep = msg->msg_control != NULL;
	o->n = 0;
	o->dlen = 0;
}

/*
 * put_cmsg(): one message at p, with left bytes of room there, into this
 * process's memory or (user) the program's.  The bytes it takes, 0 for
 * none: no room (MSG_CTRUNC), or a copy to the program's memory that
 * failed (put_cmsg()'s EFAULT, which its callers ignore).
 */
static size_t put_one(char *p, size_t left, const struct cmsg_rec *r,
		      const void *data, bool user, int *flags)
{
	struct cmsghdr h;
	size_t cmlen = CMSG_LEN(r->len);

	if (!p || left < sizeof(h)) {
		*flags |= MSG_CTRUNC;
		return 0;
	}
	if (left < cmlen) {
		*flags |= MSG_CTRUNC;
		cmlen = left;
	}
	h.cmsg_level = r->level;
	h.cmsg_type = r->type;
	h.cmsg_len = cmlen;
	if (user) {
		struct iovec l[2] = {
			{ .iov_base = &h, .iov_len = sizeof(h) },
			{ .iov_base = (void *)(uintptr_t)data, // NOLINT(performance-no-int-to-ptr)
			  .iov_len = cmlen - sizeof(h) },
		};
		struct iovec u[2] = {
			{ .iov_base = p, .iov_len = sizeof(h) },
			{ .iov_base = p + sizeof(h),
			  .iov_len = cmlen - sizeof(h) },
		};

		if (!ucopy_outv(l, u, 2))
			return 0;
	} else {
		memcpy(p, &h, sizeof(h));
		memcpy(p + sizeof(h), data, cmlen - sizeof(h));
	}
	return CMSG_SPACE(r->len) < left ? CMSG_SPACE(r->len) : left;
}

void cmsg_put(struct cmsg_out *o, int level, int type, const void *data,
	      size_t len)
{
	struct cmsg_rec r = { .level = level, .type = type,
			      .len = (uint16_t)len };
	size_t step;

	if (o->keep && o->n < CMSG_REC_MAX &&
	    len <= CMSG_REC_DATA - o->dlen) {
		r.off = (uint16_t)o->dlen;
		memcpy(o->data + o->dlen, data, len);
		o->rec[o->n++] = r;
		o->dlen += len;
	}
	step = put_one(o->p, o->left, &r, data, false, &o->flags);
	if (step) {
		o->p += step;
		o->left -= step;
		o->used += step;
	}
}

size_t cmsg_to_user(const struct cmsg_out *o, void *ctl, size_t controllen,
		    int *flags)
{
	char *p = ctl;
	size_t left = ctl ? controllen : 0, used = 0;

	for (unsigned i = 0; i < o->n; i++) {
		size_t step = put_one(p, left, &o->rec[i],
				      o->data + o->rec[i].off, true, flags);

		p += step;
		left -= step;
		used += step;
	}
	return used;
}

/* __sock_recv_timestamp(): one software stamp, in the form asked for. */
static void put_stamp(struct cmsg_out *o, const struct wire_dgram *dg,
		      uint32_t flags)
{
	bool is_new = flags & WIRE_CM_TSTAMP_NEW;

	if (!(flags & WIRE_CM_TIMESTAMP))
		return;
	if (flags & WIRE_CM_TIMESTAMPNS) {
		int64_t ts[2] = { dg->ts_sec, dg->ts_nsec };

		cmsg_put(o, SOL_SOCKET,
			 is_new ? SO_TIMESTAMPNS_NEW : SO_TIMESTAMPNS_OLD, ts,
			 sizeof(ts));
	} else {
		int64_t tv[2] = { dg->ts_sec, dg->ts_nsec / 1000 };

		cmsg_put(o, SOL_SOCKET,
			 is_new ? SO_TIMESTAMP_NEW : SO_TIMESTAMP_OLD, tv,
			 sizeof(tv));
	}
}

/* ip_cmsg_recv_offset(): in the kernel's order of flags. */
static void put_ip(struct cmsg_out *o, const struct wire_dgram *dg,
		   uint32_t flags)
{
	if (flags & WIRE_CM_PKTINFO) {
		struct in_pktinfo pi;

		memset(&pi, 0, sizeof(pi));
		/* ping_rcv() does not prepare a spec_dst: it stays 0. */
		pi.ipi_ifindex = (int)dg->ifindex;
		memcpy(&pi.ipi_addr, dg->dst, 4);
		cmsg_put(o, SOL_IP, IP_PKTINFO, &pi, sizeof(pi));
	}
	if (flags & WIRE_CM_TTL) {
		int ttl = dg->ttl;

		cmsg_put(o, SOL_IP, IP_TTL, &ttl, sizeof(ttl));
	}
	if (flags & WIRE_CM_TOS)
		cmsg_put(o, SOL_IP, IP_TOS, &dg->tos, 1);
	if ((flags & WIRE_CM_RECVOPTS) && dg->optlen)
		cmsg_put(o, SOL_IP, IP_RECVOPTS, dg->opts, dg->optlen);
	if ((flags & WIRE_CM_RETOPTS) && dg->optlen) {
		/* ip_options_echo() then ip_options_undo(): for record route
		 * and timestamps the options as received, padded to 4. */
		uint8_t opts[40] = { 0 };
		size_t n = ((size_t)dg->optlen + 3) & ~(size_t)3;

		memcpy(opts, dg->opts, dg->optlen);
		cmsg_put(o, SOL_IP, IP_RETOPTS, opts, n > 40 ? 40 : n);
	}
	if (flags & WIRE_CM_ORIGDST) {
		struct sockaddr_in sin;

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_port = dg->l4sum;
		memcpy(&sin.sin_addr, dg->dst, 4);
		cmsg_put(o, SOL_IP, IP_ORIGDSTADDR, &sin, sizeof(sin));
	}
}

/* SO_TIMESTAMPING's receive software stamp: ts[0] of three. */
static void put_timestamping(struct cmsg_out *o, const struct wire_dgram *dg,
			     uint32_t flags, uint32_t tsflags)
{
	int64_t ts[6] = { dg->ts_sec, dg->ts_nsec, 0, 0, 0, 0 };

	if (!(tsflags & WIRE_TS_SOFTWARE) ||
	    (!(tsflags & WIRE_TS_RX_SOFTWARE) &&
	     (tsflags & WIRE_TS_OPT_RX_FILTER)))
		return;
	cmsg_put(o, SOL_SOCKET,
		 flags & WIRE_CM_TSTAMPING_NEW ? SO_TIMESTAMPING_NEW
					       : SO_TIMESTAMPING_OLD,
		 ts, sizeof(ts));
}

bool cmsg_takes_stamp(uint32_t flags, uint32_t tsflags)
{
	return (flags & WIRE_CM_TIMESTAMP) ||
	       (tsflags & (WIRE_TS_RX_SOFTWARE | WIRE_TS_SOFTWARE));
}

/* The reply's destination and incoming interface (IPV6_PKTINFO, or its
 * RFC 2292 name). */
static void put_pktinfo6(struct cmsg_out *o, int type,
			 const struct wire_dgram *dg)
{
	struct in6_pktinfo pi;

	memset(&pi, 0, sizeof(pi));
	pi.ipi6_ifindex = dg->ifindex;
	memcpy(&pi.ipi6_addr, dg->dst, 16);
	cmsg_put(o, SOL_IPV6, type, &pi, sizeof(pi));
}

static void put_int6(struct cmsg_out *o, int type, int v)
{
	cmsg_put(o, SOL_IPV6, type, &v, sizeof(v));
}

/* The reply's destination, with a scope for a link-local one
 * (ipv6_iface_scope_id()), and the port as the kernel reports it. */
static void put_origdst6(struct cmsg_out *o, const struct wire_dgram *dg)
{
	struct sockaddr_in6 sin6;

	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	sin6.sin6_port = dg->l4sum;
	memcpy(&sin6.sin6_addr, dg->dst, 16);
	if (IN6_IS_ADDR_LINKLOCAL(&sin6.sin6_addr) ||
	    IN6_IS_ADDR_MC_LINKLOCAL(&sin6.sin6_addr))
		sin6.sin6_scope_id = dg->ifindex;
	cmsg_put(o, SOL_IPV6, IPV6_ORIGDSTADDR, &sin6, sizeof(sin6));
}

/* ip6_datagram_recv_common_ctl() then _specific_ctl(), in their order. */
static void put_ip6(struct cmsg_out *o, const struct wire_dgram *dg,
		    uint32_t flags)
{
	if (flags & WIRE_CM_PKTINFO6)
		put_pktinfo6(o, IPV6_PKTINFO, dg);
	if (flags & WIRE_CM_HOPLIMIT)
		put_int6(o, IPV6_HOPLIMIT, dg->ttl);
	if (flags & WIRE_CM_TCLASS)
		put_int6(o, IPV6_TCLASS, dg->tos);
	/* Only when there is some: class and label bits of the header. */
	if ((flags & WIRE_CM_FLOWINFO) && dg->flowinfo)
		cmsg_put(o, SOL_IPV6, IPV6_FLOWINFO, &dg->flowinfo,
			 sizeof(dg->flowinfo));
	/* The RFC 2292 names come after the others. */
	if (flags & WIRE_CM_PKTINFO2292)
		put_pktinfo6(o, IPV6_2292PKTINFO, dg);
	if (flags & WIRE_CM_HOPLIMIT2292)
		put_int6(o, IPV6_2292HOPLIMIT, dg->ttl);
	if (flags & WIRE_CM_ORIGDST6)
		put_origdst6(o, dg);
}

void cmsg_from_dgram(struct cmsg_out *o, const struct wire_dgram *dg,
		     uint32_t flags, uint32_t tsflags)
{
	put_stamp(o, dg, flags);
	put_timestamping(o, dg, flags, tsflags);
	if (dg->family == AF_INET)
		put_ip(o, dg, flags);
	else if (dg->family == AF_INET6)
		put_ip6(o, dg, flags);
}

/* msg_name: a reply's source, port 0; a record's, the destination of
 * the request it is about (with, from an IPv6 local error, that
 * request's type and code in the port), copied as far as it fits;
 * msg_namelen: its full length.  IPv6: the flow information too with
 * IPV6_FLOWINFO_SEND (flags). */
void cmsg_fill_name(const struct wire_dgram *dg, struct msghdr *msg,
		    uint32_t flags)
{
	bool rec = dg->kind == WIRE_DG_ERROR;
	struct ps_addr a;
	uint8_t sa[sizeof(struct sockaddr_in6)];
	socklen_t salen, n;

	if (!msg->msg_name)
		return;
	memset(&a, 0, sizeof(a));
	a.family = dg->family;
	memcpy(a.a, rec ? dg->req_dst : dg->src, sizeof(a.a));
	a.scope = rec ? dg->req_dst_scope : dg->src_scope;
	salen = ps_addr_to_sockaddr(&a, rec ? dg->req_typecode : 0, sa);
	if (dg->family == AF_INET6 && (flags & WIRE_CM_SNDFLOW) &&
	    dg->kind == WIRE_DG_REPLY)
		memcpy(sa + offsetof(struct sockaddr_in6, sin6_flowinfo),
		       &dg->flowinfo, sizeof(dg->flowinfo));
	n = msg->msg_namelen < salen ? msg->msg_namelen : salen;
	memcpy(msg->msg_name, sa, n);
	msg->msg_namelen = salen;
}
