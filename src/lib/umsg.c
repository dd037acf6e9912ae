/* SPDX-License-Identifier: ISC */
#include "lib/umsg.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/ucopy.h"
#include "wire/wire.h"

#ifndef UIO_MAXIOV
#define UIO_MAXIOV 1024
#endif

/*
 * More control data than a relayed send takes: ENOBUFS (pingsockd(8),
 * DIFFERENCES).  The kernel would have copied the name and the control
 * data in first (up to UMSG_OPTMEM_MAX): what the program does not have
 * is EFAULT before that.
 */
static int ctl_refused(const struct msghdr *m)
{
	if (!ucopy_readable(m->msg_name, m->msg_namelen))
		return -EFAULT;
	if (m->msg_controllen <= INT_MAX &&
	    m->msg_controllen <= UMSG_OPTMEM_MAX &&
	    !ucopy_readable(m->msg_control, m->msg_controllen))
		return -EFAULT;
	return -ENOBUFS;
}

int umsg_send_in(struct umsg_send *s, const struct msghdr *user)
{
	struct msghdr *m = &s->m;
	struct iovec *v = s->iov;

	s->heap = NULL;
	if (!ucopy_in(m, user, sizeof(*m)))
		return -EFAULT;
	/* __copy_msghdr(): no pointer, no name; a negative length is
	 * refused, a longer one than sockaddr_storage cut to it. */
	if (!m->msg_name)
		m->msg_namelen = 0;
	if ((int)m->msg_namelen < 0)
		return -EINVAL;
	if (m->msg_namelen > WIRE_ADDR_MAX)
		m->msg_namelen = WIRE_ADDR_MAX;
	if (!m->msg_namelen)
		m->msg_name = NULL;
	if (m->msg_iovlen > UIO_MAXIOV)
		return ucopy_readable(m->msg_name, m->msg_namelen) ? -EMSGSIZE
							      : -EFAULT;
	if (m->msg_iovlen > UMSG_IOV) {
		s->heap = malloc(m->msg_iovlen * sizeof(*v));
		if (!s->heap)
			return -ENOMEM;
		v = s->heap;
	}
	if (!ucopy_in(v, m->msg_iov, m->msg_iovlen * sizeof(*v)))
		return -EFAULT;
	m->msg_iov = v;
	if (!m->msg_controllen)
		m->msg_control = NULL;
	if (m->msg_controllen > WIRE_CTL_MAX)
		return ctl_refused(m);
	return 0;
}

void umsg_send_done(struct umsg_send *s)
{
	free(s->heap);
	s->heap = NULL;
}
