/* SPDX-License-Identifier: ISC */
/*
 * psopen - socket(): the checks of __sys_socket() and inet_create(), and
 * the operations a new socket gets: its family's (psock4.c, psock6.c)
 * and its kind's (the ping socket's, psock.c; the raw-socket
 * emulation's, psraw.c).  The one place that knows every variant, above
 * the engine and them (psock_int.h).
 */
#include "engine/psock.h"

#include <errno.h>
#include <stddef.h>
#include <sys/socket.h>

#include "engine/psock4.h"
#include "engine/psock6.h"
#include "engine/psock_int.h"
#include "engine/psraw.h"

static const struct ps_family_ops *family_of(int domain)
{
	static const struct ps_family_ops *const families[] = {
		&ps4_ops, &ps6_ops,
	};

	for (size_t i = 0; i < sizeof(families) / sizeof(families[0]); i++)
		if (families[i]->family == domain)
			return families[i];
	return NULL;
}

int pstab_open(struct pstab *tab, int domain, int type, int protocol,
	       uint32_t uid, struct psock **out)
{
	const struct ps_family_ops *fam = family_of(domain);
	int base = type & 0xf;	/* SOCK_TYPE_MASK */

	/* __sys_socket(), __sock_create(), then inet_create()'s search of
	 * the protocols registered for the type. */
	if (type & ~(0xf | SOCK_NONBLOCK | SOCK_CLOEXEC) || base >= 11)
		return -EINVAL;
	if (!fam)
		return -EAFNOSUPPORT;
	if (base == SOCK_RAW) {
		/* An unprivileged raw socket is EPERM, whatever the
		 * protocol; the emulation knows ICMP and ICMPv6 only. */
		if (!pstab_raw_allowed(tab) || protocol != fam->protocol)
			return -EPERM;
		return ps_create(tab, fam, &psraw_ops, uid, out);
	}
	if (base != SOCK_DGRAM && base != SOCK_STREAM)
		return -ESOCKTNOSUPPORT;
	if (base == SOCK_STREAM || protocol != fam->protocol)
		return -EPROTONOSUPPORT;
	return ps_create(tab, fam, &ps_dgram_ops, uid, out);
}
