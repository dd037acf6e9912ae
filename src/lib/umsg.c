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

/*
 * The iovec array this thread's last sendmsg(), and its last recvmsg(),
 * named.  A msghdr off the main thread's stack costs a system call to
 * read, and its iovec array another; where the program names the same
 * array again (one msghdr for its sends and one for its receives, filled
 * for every call, as programs do), both come in one: the guess is read
 * with the msghdr, and taken if the msghdr names it.  A wrong guess costs
 * only the call that was to be made anyway.
 */
struct guess {
	const struct iovec *iov;
	size_t n;
};
static __thread struct guess guess_send, guess_recv;

/* The msghdr at user into *m, with its iovec array into v (UMSG_IOV
 * entries of room) if that is the one g guesses: 1 then, 0 if the array
 * is still to be read, -EFAULT if the msghdr is not there. */
static int msghdr_in(struct msghdr *m, const struct msghdr *user,
		     struct iovec *v, const struct guess *gp)
{
	/* Read once: a signal handler's own call may change the guess
	 * between the read and the comparison (review rev36 F2). */
	const struct guess g0 = *gp, *g = &g0;
	struct iovec l[2], r[2];
	int n = 1, got;

	l[0].iov_base = m;
	l[0].iov_len = sizeof(*m);
	r[0].iov_base = (void *)(uintptr_t)user; // NOLINT(performance-no-int-to-ptr)
	r[0].iov_len = sizeof(*m);
	if (!user)
		return -EFAULT;
	/* Only where a copy cannot fault: without the system calls the
	 * guessed array, maybe unmapped since, would be copied directly
	 * (review rev36 F1). */
	if (g->n && g->n <= UMSG_IOV && ucopy_checked() &&
	    !ucopy_direct(user, sizeof(*m))) {
		l[1].iov_base = v;
		l[1].iov_len = g->n * sizeof(*v);
		r[1].iov_base = (void *)(uintptr_t)g->iov; // NOLINT(performance-no-int-to-ptr)
		r[1].iov_len = g->n * sizeof(*v);
		n = 2;
	}
	got = n == 1 ? (ucopy_in(m, user, sizeof(*m)) ? 1 : 0)
		     : ucopy_inv(l, r, n);
	if (got < 1)
		return -EFAULT;
	return got == 2 && m->msg_iov == g->iov && m->msg_iovlen == g->n;
}

/* import_iovec()'s copy of the array m names into v, unless msghdr_in()
 * brought it (have); it is g's next guess. */
static bool iov_in(struct iovec *v, const struct msghdr *m, int have,
		   struct guess *g)
{
	if (!have && !ucopy_in(v, m->msg_iov, m->msg_iovlen * sizeof(*v)))
		return false;
	if (m->msg_iovlen <= UMSG_IOV) {
		g->iov = m->msg_iov;
		g->n = m->msg_iovlen;
	}
	return true;
}

int umsg_send_in(struct umsg_send *s, const struct msghdr *user)
{
	struct msghdr *m = &s->m;
	struct iovec *v = s->iov;
	int have;

	s->heap = NULL;
	have = msghdr_in(m, user, v, &guess_send);
	if (have < 0)
		return have;
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
	if (!iov_in(v, m, v == s->iov && have, &guess_send))
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

int umsg_recv_in(struct umsg_recv *r, struct msghdr *user)
{
	struct msghdr u;
	int have = msghdr_in(&u, user, r->iov, &guess_recv);

	if (have < 0)
		return have;
	if (!u.msg_name)
		u.msg_namelen = 0;
	if ((int)u.msg_namelen < 0)
		return -EINVAL;
	if (u.msg_iovlen > UIO_MAXIOV)
		return -EMSGSIZE;
	if (u.msg_iovlen > UMSG_IOV
		    ? !ucopy_readable(u.msg_iov,
				      u.msg_iovlen * sizeof(r->iov[0]))
		    : !iov_in(r->iov, &u, have, &guess_recv))
		return -EFAULT;
	r->user = user;
	r->name = u.msg_name;
	r->namelen = u.msg_namelen;
	r->ctl = u.msg_control;
	r->controllen = u.msg_controllen;
	memset(&r->m, 0, sizeof(r->m));
	r->m.msg_iov = u.msg_iovlen > UMSG_IOV ? NULL : r->iov;
	r->m.msg_iovlen = u.msg_iovlen;
	r->m.msg_name = u.msg_name ? &r->sa : NULL;
	r->m.msg_namelen = u.msg_namelen;
	/* The messages of a datagram fit in cbuf whatever the program's
	 * room beyond it: laid out in the smaller room, they end alike. */
	r->m.msg_control = u.msg_control ? r->cbuf : NULL;
	r->m.msg_controllen = u.msg_controllen < sizeof(r->cbuf)
				      ? u.msg_controllen : sizeof(r->cbuf);
	return 0;
}

void umsg_recv_plain(struct umsg_recv *r, void *buf, size_t len, bool name)
{
	memset(&r->m, 0, sizeof(r->m));
	r->user = NULL;
	r->name = NULL;
	r->namelen = 0;
	r->ctl = NULL;
	r->controllen = 0;
	r->iov[0].iov_base = buf;
	r->iov[0].iov_len = len;
	r->m.msg_iov = r->iov;
	r->m.msg_iovlen = 1;
	r->m.msg_name = name ? &r->sa : NULL;
	r->m.msg_namelen = name ? sizeof(r->sa) : 0;
}

/* One more piece of the write-back: ours into the program's user. */
static void piece(struct iovec *l, struct iovec *u, int *n, const void *ours,
		  void *user, size_t len)
{
	l[*n].iov_base = (void *)(uintptr_t)ours; // NOLINT(performance-no-int-to-ptr)
	l[*n].iov_len = len;
	u[*n].iov_base = user;
	u[*n].iov_len = len;
	(*n)++;
}

/*
 * The write-back piece by piece, after the whole of it could not be
 * written: the control messages one by one, as put_cmsg() writes them
 * (and so msg_controllen and MSG_CTRUNC as they come out), then each
 * field, the first that cannot be written ending it with EFAULT.
 */
static int recv_out_slow(struct umsg_recv *r, size_t nl)
{
	int flags = r->m.msg_flags;
	size_t used = r->m.msg_controllen;

	if (r->ctl) {
		flags &= ~MSG_CTRUNC;
		used = cmsg_to_user(&r->co, r->ctl, r->controllen, &flags);
	}
	if (r->name && (!ucopy_out(&r->user->msg_namelen, &r->m.msg_namelen,
				   sizeof(r->m.msg_namelen)) ||
			!ucopy_out(r->name, &r->sa, nl)))
		return -EFAULT;
	if (!ucopy_out(&r->user->msg_flags, &flags, sizeof(flags)) ||
	    !ucopy_out(&r->user->msg_controllen, &used, sizeof(used)))
		return -EFAULT;
	return 0;
}

int umsg_recv_out(struct umsg_recv *r)
{
	struct iovec l[5], u[5];
	size_t nl = r->namelen < r->m.msg_namelen ? r->namelen
						  : r->m.msg_namelen;
	int n = 0;

	/* One call for all of it, the kernel's order kept. */
	if (r->ctl && r->m.msg_controllen)
		piece(l, u, &n, r->cbuf, r->ctl, r->m.msg_controllen);
	if (r->name) {	/* its length first, as move_addr_to_user() */
		piece(l, u, &n, &r->m.msg_namelen, &r->user->msg_namelen,
		      sizeof(r->m.msg_namelen));
		piece(l, u, &n, &r->sa, r->name, nl);
	}
	piece(l, u, &n, &r->m.msg_flags, &r->user->msg_flags,
	      sizeof(r->m.msg_flags));
	piece(l, u, &n, &r->m.msg_controllen, &r->user->msg_controllen,
	      sizeof(r->m.msg_controllen));
	if (ucopy_outv(l, u, n))
		return 0;
	return recv_out_slow(r, nl);
}
