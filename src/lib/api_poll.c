/* SPDX-License-Identifier: ISC */
/*
 * api_poll - pingsock_poll(): poll() that also reports what a relayed
 * socket's data descriptor cannot show by itself (its state slot), and
 * wakes when an error arrives (the daemon's wake-up on the data
 * descriptor, which is not data: relay_data_queued()).  The shim's poll,
 * ppoll, select and pselect are pollset_call(): the same as poll() or as
 * ppoll(), with its timeout and signal mask (shimapi.h).
 *
 * The program's array is read and written as the kernel's do_sys_poll()
 * reads and writes it (ucopy.h), so that memory the program does not
 * have is EFAULT, not a crash; and a call that is not the library's is
 * decided without allocating (a signal handler may poll other
 * descriptors while its thread is in malloc()).
 */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>

#include "lib/backend.h"
#include "lib/clock.h"
#include "lib/errq.h"
#include "lib/fdtab.h"
#include "lib/inherit.h"
#include "lib/relay.h"
#include "lib/shimapi.h"
#include "pingsock.h"
#include "lib/sys.h"
#include "lib/ucopy.h"

#define EXPORT __attribute__((visibility("default")))
/* Looks without waiting that found the state slot changed, in a row,
 * before a wait gives up (poll_wait). */
#define POLL_STALE_MAX 64
/* The program's array is looked at this many entries at a time, on the
 * stack; one no longer is copied there whole. */
#define POLL_LOCAL 128
/* revents written back in pieces of this many a system call on the stack
 * (more, up to IOV_MAX, with memory for them). */
#define POLL_OUT_BATCH 64

/* A relayed socket (fdent of kind FDK_NONE otherwise). */
static bool relayed(int fd, struct fdent *e)
{
	(void)backend_lookup(fd, e);
	return fdkind_relayed(e->kind);
}

/* Nothing of the library's among fds: no lookup needed. */
static bool none_ours(const struct pollfd *fds, nfds_t nfds)
{
	for (nfds_t i = 0; i < nfds; i++) {
		enum fdkind k = fdtab_kind(fds[i].fd);

		if (fdkind_relayed(k) || k == FDK_INHERITED ||
		    (k == FDK_NONE && fds[i].fd >= 0 && fdtab_has_sockets()))
			return false;
	}
	return true;
}

/*
 * What the kernel's datagram_poll() reports for a daemon socket that the
 * data descriptor cannot show by itself: POLLERR while an error is
 * pending or queued; after shutdown(SHUT_RD) readable (EOF); after both
 * directions, POLLHUP.  (The EPOLL* values of these bits are the same.)
 */
unsigned pollsynth(const struct fdent *ent, unsigned events)
{
	uint32_t shut;
	unsigned ev = 0;

	if (!ent->shm)
		return 0;
	if (errq_pollerr(ent))
		ev |= POLLERR;
	shut = atomic_load(&ent->shm->shutdown);
	if (shut & WIRE_SHUT_RD)
		ev |= (POLLIN | POLLRDNORM | POLLRDHUP) & events;
	if (shut == (WIRE_SHUT_RD | WIRE_SHUT_WR))
		ev |= POLLHUP;
	return ev;
}

static short synth_events(const struct pollfd *p, const struct fdent *ent)
{
	return (short)pollsynth(ent, (unsigned short)p->events);
}

/* The daemon sockets among fds: a copy of fds to poll, each relayed
 * socket's entry (FDK_NONE for any other descriptor). */
struct pollset {
	struct pollfd *all;
	struct fdent *ents;
};

/* What the program did not ask for but a relayed socket's poll needs:
 * POLLIN, by which a wake-up for an error comes. */
static int pollset_build(struct pollset *ps, const struct pollfd *fds,
			 nfds_t nfds)
{
	ps->all = calloc(nfds + 1, sizeof(*ps->all));
	ps->ents = calloc(nfds + 1, sizeof(*ps->ents));
	if (!ps->all || !ps->ents)
		return -1;
	memcpy(ps->all, fds, nfds * sizeof(*fds));
	for (nfds_t i = 0; i < nfds; i++) {
		if (!relayed(fds[i].fd, &ps->ents[i])) {
			ps->ents[i].kind = FDK_NONE;
			continue;
		}
		ps->all[i].events |= POLLIN;
	}
	return 0;
}

static void pollset_free(struct pollset *ps)
{
	free(ps->all);
	free(ps->ents);
}

/*
 * A relayed socket's events: POLLIN only for a datagram and if asked,
 * and what its state slot says.  A datagram the program did not ask
 * about would wake every round: POLLIN is no longer waited for then
 * (an error is still seen when the wait ends).
 */
static short relayed_events(const struct pollfd *p, struct pollfd *got,
			    const struct fdent *ent)
{
	unsigned ev = (unsigned short)got->revents;
	const unsigned in = POLLIN | POLLRDNORM;

	if ((ev & in) && !relay_data_queued(p->fd, ent))
		ev &= ~in;
	if ((ev & in) && !(p->events & POLLIN))
		got->events &= (short)~POLLIN;
	ev &= (unsigned short)p->events | POLLERR | POLLHUP | POLLNVAL;
	return (short)(ev | synth_events(p, ent));
}

/* Fold what poll() and the state slots say into fds; count ready ones. */
static int pollset_merge(struct pollset *ps, struct pollfd *fds, nfds_t nfds)
{
	int n = 0;

	for (nfds_t i = 0; i < nfds; i++) {
		fds[i].revents = ps->ents[i].kind == FDK_NONE
					 ? ps->all[i].revents
					 : relayed_events(&fds[i], &ps->all[i],
							  &ps->ents[i]);
		if (fds[i].revents)
			n++;
	}
	return n;
}

static bool any_synth(const struct pollset *ps, const struct pollfd *fds,
		      nfds_t nfds)
{
	for (nfds_t i = 0; i < nfds; i++)
		if (ps->ents[i].kind != FDK_NONE && synth_events(&fds[i], &ps->ents[i]))
			return true;
	return false;
}

static int64_t now_ns(void)
{
	return (int64_t)clock_mono_ns();
}

/* ppoll's timeout for what is left until deadline (-1: none: NULL). */
static const struct timespec *time_left(int64_t deadline, struct timespec *ts)
{
	int64_t left;

	if (deadline < 0)
		return NULL;
	left = deadline > 0 ? deadline - now_ns() : 0;
	if (left < 0)
		left = 0;
	ts->tv_sec = left / 1000000000;
	ts->tv_nsec = left % 1000000000;
	return ts;
}

/*
 * One wait inside, for what is left until deadline (none when ready: a
 * socket is known ready): with p, ppoll (mask: the caller's, or NULL);
 * otherwise poll (in milliseconds, rounded up), as pingsock_poll() has
 * always waited, so that nothing changes for it, not even the system
 * call a seccomp filter sees.
 */
static int wait_once(struct pollfd *all, nfds_t nfds, int64_t deadline,
		     bool ready, const sigset_t *mask, bool p)
{
	static const struct timespec zero;
	struct timespec ts;
	const struct timespec *left = ready ? &zero : time_left(deadline, &ts);

	/* A descriptor already known ready is polled without the mask:
	 * the kernel reports a ready one rather than a pending signal
	 * (which stays pending). */
	if (p)
		return sys_ppoll(all, nfds, left, ready ? NULL : mask);
	if (!left)
		return sys_poll(all, nfds, -1);
	if (left->tv_sec >= INT_MAX / 1000 - 1)
		return sys_poll(all, nfds, INT_MAX);
	return sys_poll(all, nfds,
			(int)(left->tv_sec * 1000 +
			      (left->tv_nsec + 999999) / 1000000));
}

/*
 * The wait, until deadline (CLOCK_MONOTONIC ns; -1: none; 0: no wait);
 * p: as ppoll() with mask.  Every wait inside with a mask is the real
 * ppoll() with it, so that the mask is changed atomically with the
 * wait, as the kernel's ppoll does it: a signal the mask unblocks,
 * pending before or arriving meanwhile, ends it with EINTR.  What runs
 * between two waits (a wake-up that turned out stale) runs under the
 * thread's own mask: such a signal (if that mask blocks it) stays
 * pending until the next wait.
 */
static int poll_wait(struct pollfd *fds, nfds_t nfds, int64_t deadline,
		     const sigset_t *mask, bool p)
{
	struct pollset ps;
	int n;

	if (pollset_build(&ps, fds, nfds)) {
		pollset_free(&ps);
		errno = ENOMEM;
		return -1;
	}
	/* A wake-up that turns out stale (its error already taken) would
	 * make this return early with nothing ready; so would a state
	 * slot that showed something (a look without waiting) and no
	 * longer does when merged (another holder took the error; an
	 * impostor that flips it): wait on while time is left, a bounded
	 * number of times for the second (never "timed out" before the
	 * time, nor for a wait without end). */
	for (int stale = 0;;) {
		bool synth = any_synth(&ps, fds, nfds);
		int r = wait_once(ps.all, nfds, deadline, synth, mask, p);

		if (r < 0) {
			pollset_free(&ps);
			return -1;
		}
		n = pollset_merge(&ps, fds, nfds);
		if (n || deadline == 0 ||
		    (deadline > 0 && now_ns() >= deadline) ||
		    (r == 0 && (!synth || ++stale > POLL_STALE_MAX)))
			break;
	}
	pollset_free(&ps);
	return n;
}

/* The absolute deadline of a timeout (-1 none, 0 no wait). */
static int64_t deadline_of(const struct timespec *ts)
{
	/* Past this, never (the kernel saturates such a timeout too). */
	const time_t never = (time_t)(INT64_MAX / 1000000000 / 2);

	if (!ts || ts->tv_sec >= never)
		return -1;
	if (ts->tv_sec == 0 && ts->tv_nsec == 0)
		return 0;
	return now_ns() + (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

/* The program's call itself, for the kernel to answer: nothing of the
 * library's among the descriptors, or an array it would not read. */
static int pass_on(struct pollfd *fds, nfds_t nfds, const struct poll_call *c)
{
	if (c->p)
		return sys_ppoll(fds, nfds, c->ts, c->mask);
	return sys_poll(fds, nfds, c->timeout);
}

/* Does the wait need the library for any of these (a copy)? */
static bool call_ours(const struct poll_call *c, const struct pollfd *fds,
		      nfds_t nfds)
{
	return c->ours ? c->ours(fds, nfds) : !none_ours(fds, nfds);
}

/* Is the call the library's?  The program's array read into local, as
 * the kernel reads it, POLL_LOCAL entries at a time: no allocation.
 * False too where it is not all there (the kernel's EFAULT). */
static bool scan_ours(const struct pollfd *user, nfds_t nfds,
		      struct pollfd *local, const struct poll_call *c)
{
	for (nfds_t i = 0; i < nfds; i += POLL_LOCAL) {
		nfds_t k = nfds - i < POLL_LOCAL ? nfds - i : POLL_LOCAL;

		if (!ucopy_in(local, user + i, k * sizeof(*local)))
			return false;
		if (call_ours(c, local, k))
			return true;
	}
	return false;
}

/* One batch of revents into the program's array (l, r: room for k). */
static bool revents_batch(struct pollfd *user, const struct pollfd *ours,
			  nfds_t from, size_t k, struct iovec *l,
			  struct iovec *r)
{
	for (size_t j = 0; j < k; j++) {
		l[j].iov_base = (void *)(uintptr_t)&ours[from + j].revents; // NOLINT(performance-no-int-to-ptr)
		l[j].iov_len = sizeof(ours[0].revents);
		r[j].iov_base = &user[from + j].revents;
		r[j].iov_len = sizeof(user[0].revents);
	}
	return ucopy_outv(l, r, (int)k);
}

/* Each revents back into the program's array, and only that field, as
 * do_sys_poll() writes it (the program may change the others while it
 * waits): false where the array cannot take it (EFAULT, after the
 * wait, as the kernel's). */
static bool revents_out(struct pollfd *user, const struct pollfd *ours,
			nfds_t nfds)
{
	struct iovec sl[POLL_OUT_BATCH], sr[POLL_OUT_BATCH], *l = sl, *r = sr;
	size_t batch = POLL_OUT_BATCH;
	bool ok = true;

	if (nfds > POLL_OUT_BATCH) {
		size_t want = nfds < IOV_MAX ? nfds : IOV_MAX;
		struct iovec *v = malloc(2 * want * sizeof(*v));

		if (v) {
			l = v, r = v + want, batch = want;
		}
	}
	for (nfds_t i = 0; ok && i < nfds; i += batch)
		ok = revents_batch(user, ours, i,
				   nfds - i < batch ? nfds - i : batch, l, r);
	if (l != sl)
		free(l);
	return ok;
}

static int64_t deadline_of_call(const struct poll_call *c)
{
	if (c->p)
		return deadline_of(c->ts);
	if (c->timeout <= 0)
		return c->timeout < 0 ? -1 : 0;
	return now_ns() + (int64_t)c->timeout * 1000000;
}

/* The wait on a copy of the program's array (or the caller's own, own),
 * its results written back as do_sys_poll() writes them: every revents,
 * 0 after a signal, and EFAULT where they cannot be. */
static int poll_copy(struct pollfd *user, struct pollfd *fds, nfds_t nfds,
		     const struct poll_call *c)
{
	int n = poll_wait(fds, nfds, deadline_of_call(c), c->mask, c->p);
	int saved = errno;

	if (user == fds || (n < 0 && saved != EINTR))
		return n;
	for (nfds_t i = 0; n < 0 && i < nfds; i++)
		fds[i].revents = 0;
	if (!revents_out(user, fds, nfds)) {
		errno = EFAULT;
		return -1;
	}
	errno = saved;
	return n;
}

/* The whole of the program's array, once the call is the library's. */
static struct pollfd *whole(const struct pollfd *user, nfds_t nfds,
			    struct pollfd *local, bool *gone)
{
	struct pollfd *copy;

	*gone = false;
	if (nfds <= POLL_LOCAL)
		return local;	/* scan_ours() read it all */
	copy = malloc(nfds * sizeof(*copy));
	if (copy && !ucopy_in(copy, user, nfds * sizeof(*copy))) {
		free(copy);
		*gone = true;	/* unmapped meanwhile: the kernel's EFAULT */
		return NULL;
	}
	return copy;
}

int pollset_call(struct pollfd *fds, nfds_t nfds, const struct poll_call *c)
{
	struct pollfd local[POLL_LOCAL], *copy;
	bool gone;
	int n;

	inherit_scan();	/* what came across exec is ours too */
	/* No relayed socket: nothing for the library to do in any wait,
	 * and the program's array is the kernel's alone to read. */
	if (!fdtab_has_relayed())
		return pass_on(fds, nfds, c);
	if (c->own)
		return call_ours(c, fds, nfds) ? poll_copy(fds, fds, nfds, c)
					       : pass_on(fds, nfds, c);
	if (!scan_ours(fds, nfds, local, c))
		return pass_on(fds, nfds, c);
	copy = whole(fds, nfds, local, &gone);
	if (!copy) {
		if (gone)
			return pass_on(fds, nfds, c);
		errno = ENOMEM;
		return -1;
	}
	n = poll_copy(fds, copy, nfds, c);
	if (copy != local)
		free(copy);
	return n;
}

EXPORT int pingsock_poll(struct pollfd *fds, nfds_t nfds, int timeout)
{
	const struct poll_call c = { .timeout = timeout };

	return pollset_call(fds, nfds, &c);
}
