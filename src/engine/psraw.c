/* SPDX-License-Identifier: ISC */
/*
 * psraw - the Echo-only emulation of a raw ICMP socket (see psraw.h):
 * a kind of socket for the engine (psock_int.h), with its state, its
 * identifiers, and the calls where a raw socket differs from a ping
 * socket.  Everything else is the ping socket's (psock.c).
 */
#include "engine/psraw.h"

#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

#include "engine/icmp.h"
#include "engine/psock_int.h"
#include "wire/wire.h"

/* <linux/icmp.h> and <netinet/icmp6.h>, named here to need neither. */
#define RAW_ICMP_FILTER 1	/* SOL_RAW: struct icmp_filter */
#define RAW_ICMP6_FILTER 1	/* SOL_ICMPV6: struct icmp6_filter */
#define RAW_CSUM_OFFSET 2	/* where ICMPv6 has its checksum */

struct psraw {
	struct psock sk;	/* first: the engine's socket */
	uint32_t filter;	/* ICMP_FILTER: bit t set drops type t < 32 */
	uint32_t filter6[8];	/* ICMP6_FILTER: bit t set blocks type t */
	int csum6;		/* IPV6_CHECKSUM as set: 2, or -1 */
	/* The sockets of its further identifiers (a raw socket is rare:
	 * a fixed array costs 2 KiB, and no allocation on a send). */
	struct psock *extra[PSRAW_MAX_IDENTS - 1];
	unsigned nextra;
};

static struct psraw *raw_of(struct psock *sk)
{
	return (struct psraw *)((char *)sk - offsetof(struct psraw, sk));
}

static const struct psraw *craw_of(const struct psock *sk)
{
	return (const struct psraw *)((const char *)sk -
				      offsetof(struct psraw, sk));
}

static void raw_init(struct psock *sk)
{
	raw_of(sk)->csum6 = RAW_CSUM_OFFSET;
}

/* Its further identifiers go with it. */
static void raw_destroy(struct pstab *tab, struct psock *sk)
{
	struct psraw *r = raw_of(sk);

	for (unsigned i = 0; i < r->nextra; i++)
		ps_release(tab, r->extra[i]);
	r->nextra = 0;
}

/* The "port" getsockname() shows: the protocol, as inet_create() sets. */
static uint16_t raw_port(const struct psock *sk)
{
	return (uint16_t)sk->fam->protocol;
}

/* ---- identifiers ---- */

static struct psock *find_ident(const struct psock *sk, uint16_t ident)
{
	const struct psraw *r = craw_of(sk);

	for (unsigned i = 0; i < r->nextra; i++)
		if (r->extra[i]->ident == ident)
			return r->extra[i];
	return NULL;
}

/* The socket whose identifier a sent request carries (its log). */
static struct psock *raw_sender(struct psock *sk, uint16_t ident)
{
	struct psock *ex = sk->ident == ident ? NULL : find_ident(sk, ident);

	return ex ? ex : sk;
}

/*
 * An extra socket answers for one more identifier of sk: replies and
 * errors are looked up by the bound address and device too, so it has
 * sk's (again at each send: bind() and SO_BINDTODEVICE may have changed
 * them since).
 */
static void inherit(struct psock *ex, const struct psock *sk)
{
	ex->rcv_saddr = sk->rcv_saddr;
	ex->saddr = sk->saddr;
	ex->addr_locked = sk->addr_locked;
	ex->bound_dev = sk->bound_dev;
	ex->reuse = sk->reuse;
	ex->owner = sk->owner;
	ex->pid = sk->pid;
}

/* get_port() for this identifier, as bind() would: EADDRINUSE. */
static int bind_ident(struct pstab *tab, struct psock *sk, uint16_t ident)
{
	if (ps_hash_ident(tab, sk, ident))
		return -EADDRINUSE;
	sk->port_locked = true;
	return 0;
}

static int add_extra(struct pstab *tab, struct psock *sk, uint16_t ident)
{
	struct psraw *r = raw_of(sk);
	struct psock *ex;
	int err;

	if (r->nextra >= PSRAW_MAX_IDENTS - 1)
		return -EADDRINUSE;
	err = ps_alloc(tab, sk->fam, &ps_dgram_ops, sk->uid, &ex);
	if (err)
		return -ENOBUFS;
	inherit(ex, sk);
	ex->parent = sk;
	err = bind_ident(tab, ex, ident);
	if (err) {
		ps_release(tab, ex);
		return err;
	}
	r->extra[r->nextra++] = ex;
	return 0;
}

/*
 * The identifier a request carries belongs to the socket, or is bound to
 * it now: the socket's own first, then an extra one per identifier.
 */
static int claim_ident(struct pstab *tab, struct psock *sk, uint16_t ident)
{
	struct psock *ex;

	/* 0 is the table's "unbound", never an identifier (the kernel's
	 * ping sockets skip it too). */
	if (ident == 0)
		return -EADDRINUSE;
	if (sk->ident == ident)
		return 0;
	ex = find_ident(sk, ident);
	if (ex) {
		inherit(ex, sk);
		return 0;
	}
	if (sk->ident == 0)
		return bind_ident(tab, sk, ident);
	return add_extra(tab, sk, ident);
}

/* ---- sending ---- */

static int raw_prepare_send(struct pstab *tab, struct psock *sk,
			    const struct ps_env *env, int flags,
			    const uint8_t *name, uint32_t namelen,
			    const uint8_t *ctl, uint32_t ctllen, uint8_t *msg,
			    uint32_t len, struct ps_sendinfo *info)
{
	uint8_t written[4];
	uint16_t ident;
	int err;

	memset(info, 0, sizeof(*info));
	/* raw_sendmsg() and rawv6_sendmsg(): the length, then MSG_OOB. */
	if (len > WIRE_DATA_MAX)
		return -EMSGSIZE;
	if (flags & MSG_OOB)
		return -EOPNOTSUPP;
	/* The emulation's one rule of its own: Echo only. */
	if (len < ICMP_HDR_LEN || !icmp_echo_type_ok(sk->family, msg[0], msg[1]))
		return -EPERM;
	ident = (uint16_t)(msg[4] << 8 | msg[5]);
	err = claim_ident(tab, sk, ident);
	if (err)
		return err;
	memcpy(written, msg + 2, sizeof(written));
	/* The ping socket's checks, options and route, from the socket's
	 * own identifier (which the request then carries). */
	err = ps_dgram_send_prepare(tab, sk, env, flags, name, namelen, ctl,
				    ctllen, msg, len, info);
	if (err)
		return err;
	/* Then the program's bytes again: its identifier, and on IPv4 its
	 * checksum, right or wrong, as a raw socket sends them.  ICMPv6
	 * keeps the zero the daemon's raw socket computes over. */
	memcpy(msg + 4, written + 2, 2);
	if (sk->family == AF_INET)
		memcpy(msg + 2, written, 2);
	info->ident = ident;
	return 0;
}

/* ---- bind ---- */

/* raw_bind(): any address the host has, a group or broadcast address
 * (then sent from the route's), or any where non-local binds are on. */
static int bind4(const struct psock *sk, const struct ps_env *env,
		 const uint8_t *sa, uint32_t len, struct ps_addr *a,
		 bool *send_any)
{
	struct sockaddr_in sin;
	int t;

	if (len < sizeof(sin))
		return -EINVAL;
	memcpy(&sin, sa, sizeof(sin));
	ps_addr_v4(a, sin.sin_addr.s_addr);
	if (ps_addr_is_any(a))
		return 0;
	t = env->addr_type(env->ctx, a, sk->bound_dev);
	*send_any = t == PS_RTN_MULTICAST || t == PS_RTN_BROADCAST;
	if (t == PS_RTN_LOCAL || *send_any || sk->freebind ||
	    env->nonlocal_bind)
		return 0;
	return -EADDRNOTAVAIL;
}

/* rawv6_bind(): EINVAL for the length and the family, then the ping
 * socket's check of the address (scope, device, ours). */
static int bind6(const struct psock *sk, const struct ps_env *env,
		 const uint8_t *sa, uint32_t len, struct ps_addr *a,
		 uint32_t *dev)
{
	uint16_t family, ident;

	if (len < sizeof(struct sockaddr_in6) - sizeof(uint32_t))
		return -EINVAL;
	memcpy(&family, sa, sizeof(family));
	if (family != AF_INET6)
		return -EINVAL;
	return sk->fam->check_bind(sk, env, sa, len, a, &ident, dev);
}

static int raw_bind_addr(struct pstab *tab, struct psock *sk,
			 const struct ps_env *env, const uint8_t *sa,
			 uint32_t len)
{
	struct psraw *r = raw_of(sk);
	struct ps_addr a;
	uint32_t dev = sk->bound_dev;
	bool send_any = false;
	int err;

	/* sk_state != TCP_CLOSE: a connected raw socket binds no more. */
	if (sk->connected)
		return -EINVAL;
	err = sk->family == AF_INET6 ? bind6(sk, env, sa, len, &a, &dev)
				     : bind4(sk, env, sa, len, &a, &send_any);
	if (err)
		return err;
	sk->bound_dev = dev;
	sk->rcv_saddr = sk->saddr = a;
	if (send_any)
		memset(sk->saddr.a, 0, sizeof(sk->saddr.a));
	sk->addr_locked = !ps_addr_is_any(&a);
	for (unsigned i = 0; i < r->nextra; i++)
		inherit(r->extra[i], sk);
	return 0;
}

/* ---- receiving ---- */

static bool raw_delivers(const struct psock *sk, uint8_t type)
{
	const struct psraw *r = craw_of(sk);

	if (sk->family == AF_INET6)	/* icmpv6_filter() */
		return !(r->filter6[type >> 5] & (1u << (type & 31)));
	return type >= 32 || !(r->filter & (1u << type));	/* icmp_filter() */
}

/* raw_err() leaves Source Quench and Redirect out of the error queue
 * and the pending error (a ping socket reports them); rawv6_err() does
 * not. */
static bool raw_error_ignored(const struct psock *sk, uint8_t type)
{
	return sk->family == AF_INET && (type == 4 || type == 5);
}

/* The datagrams of a raw IPv4 socket come with their IP header, those
 * of a raw ICMPv6 socket without. */
static bool raw_rx_iphdr(const struct psock *sk)
{
	return sk->family == AF_INET;
}

/* ---- options ---- */

/* raw_seticmpfilter(), rawv6_seticmpfilter(): as much as was given,
 * up to the filter's size, over what was there. */
static int set_filter(void *filter, size_t size, const uint8_t *val,
		      uint32_t len)
{
	memcpy(filter, val, len < size ? len : size);
	return 0;
}

static int get_filter(const void *filter, size_t size, uint8_t *val,
		      uint32_t *len)
{
	if (*len > size)
		*len = (uint32_t)size;
	memcpy(val, filter, *len);
	return 0;
}

/* do_rawv6_setsockopt(): IPV6_HDRINCL and IPV6_CHECKSUM, an int each. */
static int set_raw6(struct psock *sk, int level, int name,
		    const uint8_t *val, uint32_t len)
{
	int v;

	if (len < sizeof(int))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	if (name == IPV6_HDRINCL)
		return v ? -EPERM : 0;
	/* RFC 3542: not at IPPROTO_IPV6 on an ICMPv6 socket. */
	if (level == SOL_IPV6 || (v > 0 && (v & 1)))
		return -EINVAL;
	if (v >= 0 && v != RAW_CSUM_OFFSET)
		return -EINVAL;	/* the emulation sums at offset 2 only */
	raw_of(sk)->csum6 = v < 0 ? -1 : v;
	return 0;
}

static int set4(struct psock *sk, int level, int name, const uint8_t *val,
		uint32_t len)
{
	struct psraw *r = raw_of(sk);

	/* A header of the program's own would let it send anything. */
	if (level == SOL_IP && name == IP_HDRINCL)
		return ps_ip_int_val(val, len) ? -EPERM : 0;
	if (level == SOL_RAW)
		return name == RAW_ICMP_FILTER
			       ? set_filter(&r->filter, sizeof(r->filter), val,
					    len)
			       : -ENOPROTOOPT;
	return PS_PASS;
}

static int set6(struct psock *sk, int level, int name, const uint8_t *val,
		uint32_t len)
{
	struct psraw *r = raw_of(sk);

	if (level == SOL_ICMPV6)
		return name == RAW_ICMP6_FILTER
			       ? set_filter(r->filter6, sizeof(r->filter6), val,
					    len)
			       : -ENOPROTOOPT;
	if ((level == SOL_RAW || level == SOL_IPV6) &&
	    (name == IPV6_CHECKSUM || name == IPV6_HDRINCL))
		return set_raw6(sk, level, name, val, len);
	return level == SOL_RAW ? -ENOPROTOOPT : PS_PASS;
}

static int raw_setopt(struct psock *sk, int level, int name,
		      const uint8_t *val, uint32_t len)
{
	return sk->family == AF_INET6 ? set6(sk, level, name, val, len)
				      : set4(sk, level, name, val, len);
}

/* An int, cut to the caller's length as the kernel cuts it. */
static int get_int(int v, uint8_t *val, uint32_t *len)
{
	if (*len > sizeof(v))
		*len = sizeof(v);
	memcpy(val, &v, *len);
	return 0;
}

static int get6(const struct psock *sk, int level, int name, uint8_t *val,
		uint32_t *len)
{
	const struct psraw *r = craw_of(sk);

	if (level == SOL_ICMPV6)
		return name == RAW_ICMP6_FILTER
			       ? get_filter(r->filter6, sizeof(r->filter6), val,
					    len)
			       : -ENOPROTOOPT;
	if ((level == SOL_RAW || level == SOL_IPV6) && name == IPV6_CHECKSUM)
		return get_int(r->csum6, val, len);
	if ((level == SOL_RAW || level == SOL_IPV6) && name == IPV6_HDRINCL)
		return get_int(0, val, len);
	return level == SOL_RAW ? -ENOPROTOOPT : PS_PASS;
}

static int raw_getopt(const struct psock *sk, int level, int name,
		      uint8_t *val, uint32_t *len)
{
	const struct psraw *r = craw_of(sk);

	if (sk->family == AF_INET6)
		return get6(sk, level, name, val, len);
	if (level == SOL_RAW)
		return name == RAW_ICMP_FILTER
			       ? get_filter(&r->filter, sizeof(r->filter), val,
					    len)
			       : -ENOPROTOOPT;
	return PS_PASS;	/* IP_HDRINCL reads 0 there */
}

/*
 * The emulated raw socket: a ping socket underneath (its socket first in
 * struct psraw), whose connect() binds no identifier (its sends name
 * theirs), and which receives errors whole as datagrams, through its
 * filter, as a raw socket does.
 */
const struct ps_kind_ops psraw_ops = {
	.type = SOCK_RAW,
	.size = sizeof(struct psraw),
	.connect_binds = false,
	.init = raw_init,
	.destroy = raw_destroy,
	.bind_addr = raw_bind_addr,
	.prepare_send = raw_prepare_send,
	.sender = raw_sender,
	.port = raw_port,
	.setopt = raw_setopt,
	.getopt = raw_getopt,
	.delivers = raw_delivers,
	.error_datagram = raw_delivers,
	.error_ignored = raw_error_ignored,
	.rx_iphdr = raw_rx_iphdr,
};
