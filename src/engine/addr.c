/* SPDX-License-Identifier: ISC */
#include "engine/addr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

size_t ps_addr_len(int family)
{
	return family == AF_INET6 ? 16 : 4;
}

bool ps_addr_is_any(const struct ps_addr *x)
{
	static const uint8_t zero[16];

	return memcmp(x->a, zero, ps_addr_len(x->family)) == 0;
}

bool ps_addr_eq(const struct ps_addr *x, const struct ps_addr *y)
{
	return x->family == y->family &&
	       memcmp(x->a, y->a, ps_addr_len(x->family)) == 0;
}

bool ps_addr_is_multicast(const struct ps_addr *x)
{
	if (x->family == AF_INET6)
		return x->a[0] == 0xff;
	return (x->a[0] & 0xf0) == 0xe0;
}

bool ps_addr_needs_scope(const struct ps_addr *x)
{
	if (x->family != AF_INET6)
		return false;
	if (x->a[0] == 0xfe && (x->a[1] & 0xc0) == 0x80)
		return true;
	return x->a[0] == 0xff && ((x->a[1] & 0x0f) == 1 || (x->a[1] & 0x0f) == 2);
}

bool ps_addr_is_limited_bcast(const struct ps_addr *x)
{
	return x->family == AF_INET && ps_addr_get_v4(x) == htonl(INADDR_BROADCAST);
}

void ps_addr_v4(struct ps_addr *x, uint32_t be_addr)
{
	memset(x, 0, sizeof(*x));
	x->family = AF_INET;
	memcpy(x->a, &be_addr, 4);
}

void ps_addr_this_host(struct ps_addr *dst, const struct ps_addr *src)
{
	if (!ps_addr_is_any(dst))
		return;
	if (dst->family == AF_INET6)
		dst->a[15] = 1;
	else if (src->family == AF_INET && !ps_addr_is_any(src))
		*dst = *src;
	else if (dst->family == AF_INET)
		ps_addr_v4(dst, htonl(INADDR_LOOPBACK));
}

uint32_t ps_addr_get_v4(const struct ps_addr *x)
{
	uint32_t v;

	memcpy(&v, x->a, 4);
	return v;
}

socklen_t ps_addr_to_sockaddr(const struct ps_addr *x, uint16_t port,
			      void *buf)
{
	if (x->family == AF_INET6) {
		struct sockaddr_in6 s6;

		memset(&s6, 0, sizeof(s6));
		s6.sin6_family = AF_INET6;
		s6.sin6_port = htons(port);
		memcpy(&s6.sin6_addr, x->a, 16);
		s6.sin6_scope_id = x->scope;
		memcpy(buf, &s6, sizeof(s6));
		return sizeof(s6);
	}
	struct sockaddr_in s4;

	memset(&s4, 0, sizeof(s4));
	s4.sin_family = AF_INET;
	s4.sin_port = htons(port);
	memcpy(&s4.sin_addr, x->a, 4);
	memcpy(buf, &s4, sizeof(s4));
	return sizeof(s4);
}

const char *ps_addr_str(const struct ps_addr *x, char *buf, size_t len)
{
	if (!inet_ntop(x->family == AF_INET6 ? AF_INET6 : AF_INET, x->a, buf,
		       (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}
