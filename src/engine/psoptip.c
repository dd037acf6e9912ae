/* SPDX-License-Identifier: ISC */
/*
 * psoptip - SOL_IP options kept and read back (psoptip.h), with
 * do_ip_setsockopt()'s checks: an int, or one byte for the small ones.
 */
#include "engine/psoptip.h"

#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <string.h>

#include "engine/psock_int.h"
#include "wire/in6ext.h"


/* Boolean options set with any length (none reads as 0). */
static bool *flag_of(struct psock *sk, int name)
{
	switch (name) {
	case IP_PASSSEC: return &sk->ipx.passsec;
	case IP_CHECKSUM: return &sk->ipx.checksum;
	case IP_RECVFRAGSIZE: return &sk->ipx.fragsize;
	default: return NULL;
	}
}

/* IP_UNICAST_IF: a device index in network order, or 0 for none. */
static int set_uc_index(struct psock *sk, const struct ps_env *env,
			const uint8_t *val, uint32_t len)
{
	uint32_t idx;
	char name[IF_NAMESIZE];

	if (len != sizeof(idx))
		return -EINVAL;
	memcpy(&idx, val, sizeof(idx));
	idx = ntohl(idx);
	if (idx && env->dev_name(env->ctx, idx, name) != 0)
		return -EADDRNOTAVAIL;
	if (idx && sk->bound_dev && idx != sk->bound_dev)
		return -EINVAL;
	sk->uc_index = idx;
	return 0;
}

static int set_port_range(struct psock *sk, const uint8_t *val, uint32_t len)
{
	uint32_t v;
	uint16_t lo, hi;

	if (len != sizeof(v))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	lo = (uint16_t)v;
	hi = (uint16_t)(v >> 16);
	if (lo && hi && lo > hi)
		return -EINVAL;
	sk->ipx.port_range = v;
	return 0;
}

int ps_ip_kept_set(struct psock *sk, const struct ps_env *env, int name,
		   const uint8_t *val, uint32_t len)
{
	int v = ps_ip_int_val(val, len);
	bool *flag = flag_of(sk, name);

	if (flag) {
		*flag = v != 0;
		return 0;
	}
	switch (name) {
	case IP_ROUTER_ALERT:
		return -EINVAL;	/* ip_ra_control(): raw sockets only */
	case IP_PROTOCOL:
		return -ENOPROTOOPT;	/* read only */
	case IP_MINTTL:
		if (len < 1 || v < 0 || v > 255)
			return -EINVAL;
		sk->ipx.minttl = (uint8_t)v;
		return 0;
	case IP_MULTICAST_ALL:
		if (len < 1 || (v != 0 && v != 1))
			return -EINVAL;
		sk->ipx.mc_all = v;
		return 0;
	case IP_UNICAST_IF:
		return set_uc_index(sk, env, val, len);
	case IP_LOCAL_PORT_RANGE:
		return set_port_range(sk, val, len);
	default:
		return PS_PASS;
	}
}

int ps_ip_kept_get(const struct psock *sk, int name, int *v)
{
	switch (name) {
	case IP_PASSSEC: *v = sk->ipx.passsec; return 0;
	case IP_CHECKSUM: *v = sk->ipx.checksum; return 0;
	case IP_RECVFRAGSIZE: *v = sk->ipx.fragsize; return 0;
	case IP_ROUTER_ALERT: *v = 0; return 0;
	/* inet_num, which for a ping socket is its identifier. */
	case IP_PROTOCOL: *v = sk->ident; return 0;
	case IP_MINTTL: *v = sk->ipx.minttl; return 0;
	case IP_MULTICAST_ALL: *v = sk->ipx.mc_all; return 0;
	case IP_UNICAST_IF: *v = (int)htonl(sk->uc_index); return 0;
	case IP_LOCAL_PORT_RANGE: *v = (int)sk->ipx.port_range; return 0;
	default: return -ENOPROTOOPT;
	}
}
