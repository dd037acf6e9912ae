/* SPDX-License-Identifier: ISC */
/*
 * epoll - epoll_ctl and the epoll_wait family for pingsockd's sockets.
 *
 * The kernel's epoll watches a daemon socket's data descriptor directly,
 * so replies wake it as they would a kernel ping socket.  What the data
 * descriptor cannot show is what the socket's state slot holds: POLLERR
 * (a pending error, or records on the error queue) and the shutdown
 * states.  So a shimmed descriptor is registered with the shim's own tag
 * instead of the program's epoll_data, and always for EPOLLIN too: an
 * error arrives as a wake-up on the data descriptor (wire.h), which is
 * not data.  The wait translates each tagged event back: the program's
 * epoll_data, the events it asked for (EPOLLIN only for a datagram:
 * relay_data_queued()), plus what the state slot says (pollsynth).
 * Level-triggered registrations are also checked before and after the
 * wait, so that a pending error keeps being reported while nothing new
 * arrives, as the kernel's epoll reports it.
 *
 * The signal mask of epoll_pwait/epoll_pwait2 is the real call's, on
 * each wait inside, so it is set atomically with the wait as the
 * kernel sets it; nothing here touches the thread's own mask.  A wait
 * for a registration already known ready has timeout 0, which the
 * kernel's epoll never ends with EINTR: the ready event is reported and
 * a pending signal stays pending, as on the kernel's own socket.
 *
 * Copies.  The registrations belong to the epoll set, not to a number:
 * each set is known by one of its descriptors (its key, ereg.epfd), and
 * its other descriptors are listed as its copies.  A copy made through
 * the shim (dup, dup2, dup3, F_DUPFD) is listed when it is made; one
 * made behind its back (the dup system call, SCM_RIGHTS) is found by
 * kcmp (epcopy.c): in epoll_ctl on a shimmed socket, or when a wait
 * through an unknown number returns one of the shim's tags (so that a
 * wait through any other set pays nothing).  Closing a set's key (close,
 * dup2 or dup3 over it, close_range) hands its registrations to a copy,
 * a listed one or one found in /proc/self/fd; only the last one forgets
 * them.  fork needs nothing: the child has the parent's registrations
 * in its own memory, and neither closing its copy touches the other's.
 *
 * Numbers.  The kernel's registration is (open file, number): closing
 * the number while a copy (dup) keeps the socket open leaves it, and
 * its events keep coming, reported with the program's data; the number
 * may then be given to another descriptor, whose own it is.  So each
 * registration keeps the identity of the socket it was added for, and
 * nothing is done through its number (EPOLL_CTL_MOD, a look at the
 * queue) unless that still names it: epoll_ctl finds a registration by
 * number and socket, as the kernel does, and the queue is looked at
 * through another copy.  Such a registration can no longer be changed
 * (EPOLLIN taken out or put back, EPOLLONESHOT re-armed), by the shim
 * or the program, until a copy of the socket is put back on the number.
 *
 * Limits: what one process changes with epoll_ctl in a set it shares
 * with another (after fork) is not seen by the other's shim; a set kept
 * across exec reports the shim's tags, not the program's data, for
 * shimmed sockets (the new program's shim never saw them); without kcmp
 * a copy made behind the shim's back is not found.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "lib/backend.h"
#include "lib/clock.h"
#include "lib/fdtab.h"
#include "lib/lock.h"
#include "lib/relay.h"
#include "lib/shimapi.h"
#include "lib/ucopy.h"
#include "shim/shim.h"

#define SHIM_EXPORT __attribute__((visibility("default")))

/* Tag: magic in the high half, slot << 1 in the low half. */
#define EP_MAGIC 0x70734b54u
#define EP_TAG(slot) ((uint64_t)EP_MAGIC << 32 | (uint64_t)(slot) << 1)
#define EP_FLAGS (EPOLLET | EPOLLONESHOT | EPOLLEXCLUSIVE | EPOLLWAKEUP)

struct ereg {
	int epfd;		/* the set's key; -1: free slot */
	int fd;			/* the number it was added with */
	dev_t dev;		/* ... and the socket it named then (the */
	ino_t ino;		/* kernel's registration is (file, fd)) */
	struct wire_shm *shm;	/* the socket's state slot */
	uint32_t events;	/* as the program gave them */
	epoll_data_t data;	/* the program's */
	bool fired;		/* EPOLLONESHOT: reported, not re-armed */
	bool in_off;		/* EPOLLIN, not asked for, taken out of the
				 * kernel's registration while a datagram
				 * is queued (it would wake every wait) */
	unsigned gen;		/* the wait that gave it an output entry */
	int out;		/* ... at this index */
};

/* The other descriptors of a set with registrations (its key's). */
struct ecopy {
	int fd;			/* -1: free slot */
	int key;
};

/* regs, nregs, wait_gen, copies, ncopies: under LOCK_SHIM_EPOLL. */
static struct ereg *regs;
static size_t nregs;
static unsigned wait_gen;
static struct ecopy *copies;
static size_t ncopies;
/* Registrations in use: while none, a wait through an unknown number
 * needs no look at its events. */
static _Atomic unsigned nlive;

/* Looks without waiting that found the state slot changed, in a row,
 * before a wait gives up (ours_wait). */
#define EP_STALE_MAX 64

/* Epoll descriptors (keys and copies) of a set with a shimmed
 * registration, for the fast path. */
#define EP_MAP_FDS 65536
static _Atomic unsigned char watched[EP_MAP_FDS];

/* Under the lock. */
static bool epfd_has_regs(int epfd)
{
	if (epfd < 0)
		return false;	/* (a free slot's) */
	for (size_t i = 0; i < nregs; i++)
		if (regs[i].epfd == epfd)
			return true;
	return false;
}

/* Under the lock: the copy entry of fd, or NULL. */
static struct ecopy *copy_find(int fd)
{
	if (fd < 0)
		return NULL;
	for (size_t i = 0; i < ncopies; i++)
		if (copies[i].fd == fd)
			return &copies[i];
	return NULL;
}

static bool epfd_watched(int epfd)
{
	bool any;

	if (epfd < 0)
		return false;
	if (epfd < EP_MAP_FDS)
		return atomic_load_explicit(&watched[epfd],
					    memory_order_relaxed);
	lock_take(LOCK_SHIM_EPOLL);
	any = epfd_has_regs(epfd) || copy_find(epfd);
	lock_give(LOCK_SHIM_EPOLL);
	return any;
}

static void set_watched(int epfd, bool on)
{
	if (epfd >= 0 && epfd < EP_MAP_FDS)
		atomic_store_explicit(&watched[epfd], on, memory_order_relaxed);
}

/*
 * The registration of fd in epfd's set, as the kernel finds it: by the
 * number and the socket it names now (one whose number was closed while
 * a copy kept the socket open lives on, as the kernel's does, but the
 * number may have been given to another socket since).
 */
static struct ereg *reg_find(int epfd, int fd)
{
	int saved = errno;
	struct stat st;

	if (fstat(fd, &st) < 0) {
		errno = saved;
		return NULL;
	}
	for (size_t i = 0; i < nregs; i++)
		if (regs[i].epfd == epfd && regs[i].fd == fd &&
		    regs[i].dev == st.st_dev && regs[i].ino == st.st_ino)
			return &regs[i];
	return NULL;
}

/* Does r's number still name its socket?  Closed while a copy keeps the
 * socket open, it may be another descriptor's now (a pipe, a socket the
 * program registered too), which the shim must not touch. */
static bool reg_named(const struct ereg *r)
{
	int saved = errno;
	struct stat st;
	bool same = fstat(r->fd, &st) == 0 && st.st_dev == r->dev &&
		    st.st_ino == r->ino;

	errno = saved;
	return same;
}

/* A descriptor of r's socket to look at its queue with: its number while
 * that names it, or another copy; -1: none. */
static int reg_sock_fd(const struct ereg *r)
{
	struct fdent ent = { .dev = r->dev, .ino = r->ino };

	return reg_named(r) ? r->fd : fdtab_fd_of(&ent);
}

static long reg_alloc(void)
{
	struct ereg *r;
	size_t n, slot;

	for (size_t i = 0; i < nregs; i++)
		if (regs[i].epfd < 0)
			return (long)i;
	n = nregs ? 2 * nregs : 16;
	r = realloc(regs, n * sizeof(*r));
	if (!r)
		return -1;
	for (size_t i = nregs; i < n; i++)
		r[i] = (struct ereg){ .epfd = -1, .fd = -1 };
	regs = r;
	slot = nregs;
	nregs = n;
	return (long)slot;
}

/* Forget the registration here (the kernel's is the caller's). */
static void reg_free(struct ereg *r)
{
	if (r->epfd >= 0)
		atomic_fetch_sub(&nlive, 1);
	*r = (struct ereg){ .epfd = -1, .fd = -1 };
}

/* ---- copies of a set ---- */

/* Under the lock: the key of epfd's set, or -1 (not known). */
static int key_of(int epfd)
{
	const struct ecopy *c;

	if (epfd < 0)
		return -1;
	if (epfd_has_regs(epfd))
		return epfd;
	c = copy_find(epfd);
	return c ? c->key : -1;
}

static void number_closed(int fd, int other, int lo, int hi);

/* Under the lock: fd (a new number) is another descriptor of key's set. */
static void copy_add(int fd, int key)
{
	struct ecopy *c, *grown;
	size_t n;

	/* A number the kernel just gave out: what was known under it was
	 * closed behind the shim's back. */
	if (fd != key)
		number_closed(fd, -1, fd, fd);
	c = copy_find(fd);
	for (size_t i = 0; !c && i < ncopies; i++)
		if (copies[i].fd < 0)
			c = &copies[i];
	if (!c) {
		n = ncopies ? 2 * ncopies : 8;
		grown = realloc(copies, n * sizeof(*grown));
		if (!grown)
			return;	/* unknown then, as a copy made elsewhere */
		for (size_t i = ncopies; i < n; i++)
			grown[i] = (struct ecopy){ .fd = -1, .key = -1 };
		copies = grown;
		c = &copies[ncopies];
		ncopies = n;
	}
	*c = (struct ecopy){ .fd = fd, .key = key };
	set_watched(fd, true);
}

/* Under the lock: key's set has no registration left; its copies go. */
static void key_gone(int key)
{
	for (size_t i = 0; i < ncopies; i++)
		if (copies[i].key == key) {
			set_watched(copies[i].fd, false);
			copies[i] = (struct ecopy){ .fd = -1, .key = -1 };
		}
	set_watched(key, false);
}

/* Under the lock: to (a copy) becomes the key of key's set. */
static void rekey(int key, int to)
{
	struct ecopy *c = copy_find(to);

	if (c)
		*c = (struct ecopy){ .fd = -1, .key = -1 };
	for (size_t i = 0; i < nregs; i++)
		if (regs[i].epfd == key)
			regs[i].epfd = to;
	for (size_t i = 0; i < ncopies; i++)
		if (copies[i].key == key)
			copies[i].key = to;
	set_watched(to, true);
}

/*
 * Under the lock: the key of epfd's set for epoll_ctl on a shimmed
 * socket; a number not known yet is asked about (kcmp) against every
 * set's key, and becomes a copy of the one it is, or a key itself.
 */
static int ctl_key(int epfd)
{
	int key = key_of(epfd), tried = -1;

	for (size_t i = 0; key < 0 && i < nregs; i++) {
		int k = regs[i].epfd;

		if (k < 0 || k == tried)
			continue;
		tried = k;
		if (shim_same_file(epfd, k)) {
			copy_add(epfd, k);
			key = k;
		}
	}
	return key < 0 ? epfd : key;
}

/* A registration made before its socket had a slot (an inherited socket
 * past the daemon's bound: relay.c, relay_adopt) learns the slot once
 * the socket has one, for what the slot tells (POLLERR, shutdown). */
static void reg_refresh(struct ereg *r)
{
	if (!r->shm)
		r->shm = fdtab_slot_of(r->dev, r->ino);
}

static uint32_t synth(struct ereg *r)
{
	struct fdent ent;

	reg_refresh(r);
	ent = (struct fdent){ .shm = r->shm };

	return pollsynth(&ent, r->events);
}

/* Under the lock; ent: fd's entry, looked up before it was taken; key:
 * epfd's set's. */
static int ctl_add(int epfd, int key, int fd, const struct epoll_event *ev,
		   const struct fdent *ent)
{
	struct epoll_event mine = { .events = ev->events | EPOLLIN };
	struct ereg *r;
	long slot;

	slot = reg_alloc();
	if (slot < 0) {
		errno = ENOMEM;
		return -1;
	}
	r = &regs[slot];
	mine.data.u64 = EP_TAG(slot);
	if (real_epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &mine) < 0)
		return -1;
	*r = (struct ereg){ .epfd = key, .fd = fd, .dev = ent->dev,
			    .ino = ent->ino, .shm = ent->shm,
			    .events = ev->events, .data = ev->data };
	atomic_fetch_add(&nlive, 1);
	set_watched(key, true);
	set_watched(epfd, true);
	return 0;
}

static int ctl_mod(int epfd, int key, int fd, const struct epoll_event *ev)
{
	struct ereg *r = reg_find(key, fd);
	struct epoll_event mine = { .events = ev->events | EPOLLIN };

	if (!r) {
		/* Not registered through the shim: the kernel's ENOENT. */
		return real_epoll_ctl(epfd, EPOLL_CTL_MOD, fd,
					   (struct epoll_event *)ev);
	}
	mine.data.u64 = EP_TAG(r - regs);
	if (real_epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &mine) < 0)
		return -1;
	r->events = ev->events;
	r->data = ev->data;
	r->fired = false;
	return 0;
}

static int ctl_del(int epfd, int key, int fd, struct epoll_event *ev)
{
	struct ereg *r = reg_find(key, fd);
	int rc = real_epoll_ctl(epfd, EPOLL_CTL_DEL, fd, ev);

	if (r && rc == 0) {
		reg_free(r);
		if (!epfd_has_regs(key))
			key_gone(key);
	}
	return rc;
}

SHIM_EXPORT int epoll_ctl(int epfd, int op, int fd, struct epoll_event *ev)
{
	struct epoll_event copy;
	struct fdent ent;
	int rc, key;

	shim_init();
	if (!fdkind_relayed(shim_kind(fd)))
		return real_epoll_ctl(epfd, op, fd, ev);
	/* The event as the kernel takes it, first, for every op but DEL:
	 * one the program does not have is its EFAULT. */
	if (op != EPOLL_CTL_DEL) {
		if (!ucopy_in(&copy, ev, sizeof(copy)))
			return real_epoll_ctl(epfd, op, fd, ev);
		ev = &copy;
	}
	/* Before the lock: a stale entry found here is released, which
	 * takes the lock itself (shim_epoll_forget_sock). */
	if (op == EPOLL_CTL_ADD) {
		(void)backend_lookup(fd, &ent);
		if (!fdkind_relayed(ent.kind))
			return real_epoll_ctl(epfd, op, fd, ev);
	}
	lock_take(LOCK_SHIM_EPOLL);
	key = ctl_key(epfd);
	switch (op) {
	case EPOLL_CTL_ADD:
		rc = ctl_add(epfd, key, fd, ev, &ent);
		break;
	case EPOLL_CTL_MOD:
		rc = ctl_mod(epfd, key, fd, ev);
		break;
	case EPOLL_CTL_DEL:
		rc = ctl_del(epfd, key, fd, ev);
		break;
	default:
		rc = real_epoll_ctl(epfd, op, fd, ev);	/* EINVAL */
		break;
	}
	lock_give(LOCK_SHIM_EPOLL);
	SHIM_LOGRC(rc, "epoll_ctl(%d, %d, %d)", epfd, op, fd);
	return rc;
}

/* ---- waiting ---- */

/*
 * The kernel's registration of r: the program's events, and EPOLLIN
 * unless in_off.  Only through its number while that names its socket:
 * otherwise the registration cannot be reached (the kernel's epoll_ctl
 * cannot either), and stays as it is.
 */
static void reg_arm(int epfd, struct ereg *r, bool in_off)
{
	struct epoll_event mine = { .events = r->events | (in_off ? 0 : EPOLLIN),
				    .data.u64 = EP_TAG(r - regs) };

	if (!reg_named(r))
		return;
	r->in_off = in_off;
	real_epoll_ctl(epfd, EPOLL_CTL_MOD, r->fd, &mine);
}

/*
 * Of what the kernel reported for r's descriptor, what the program asked
 * for (always EPOLLERR and EPOLLHUP); EPOLLIN only for a datagram.  A
 * datagram the program did not ask about would wake every wait: EPOLLIN
 * is taken out until the queue is empty (wait_begin()).
 */
static uint32_t asked(int epfd, struct ereg *r, uint32_t got)
{
	struct fdent ent = { .shm = r->shm };
	const uint32_t in = EPOLLIN | EPOLLRDNORM;
	int fd = (got & in) ? reg_sock_fd(r) : -1;

	if (fd >= 0 && !relay_data_queued(fd, &ent))
		got &= ~in;
	if ((got & in) && !(r->events & EPOLLIN) && !(r->events & EPOLLET))
		reg_arm(epfd, r, true);
	return got & ((r->events & ~EP_FLAGS) | EPOLLERR | EPOLLHUP);
}

/* Before a wait: EPOLLIN back where the queue it was taken out for is
 * empty now, so that an error's wake-up wakes the wait again. */
static void wait_begin(int epfd)
{
	char c;

	for (size_t i = 0; i < nregs; i++) {
		struct ereg *r = &regs[i];

		if (r->epfd == epfd && r->in_off && reg_named(r) &&
		    real_recv(r->fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) < 0 &&
		    errno == EAGAIN)
			reg_arm(epfd, r, false);
	}
}

/* One program-visible event for r, merged with an earlier one this wait. */
static int emit(struct epoll_event *out, int n, struct ereg *r, uint32_t bits)
{
	if (!bits)
		return n;
	if (r->gen == wait_gen) {
		out[r->out].events |= bits;
		return n;
	}
	r->gen = wait_gen;
	r->out = n;
	out[n].events = bits;
	out[n].data = r->data;
	if (r->events & EPOLLONESHOT)
		r->fired = true;
	return n + 1;
}

static bool level_ready(int epfd)
{
	for (size_t i = 0; i < nregs; i++) {
		struct ereg *r = &regs[i];

		if (r->epfd == epfd && !(r->events & EPOLLET) && !r->fired &&
		    synth(r))
			return true;
	}
	return false;
}

/*
 * May r's event (bits, if any) go to ev[at]?  Below n, where the kernel
 * has just written, yes; past them the kernel wrote nothing this wait,
 * so the event is copied first as its ep_send_events() copies one: into
 * an array the program does not have, not at all (false: EFAULT if it
 * is the first, as the kernel's).
 */
static bool writable_at(struct epoll_event *ev, int at, int n,
			const struct ereg *r, uint32_t bits)
{
	struct epoll_event e = { .events = bits, .data = r->data };

	return at < n || !bits || ucopy_out(&ev[at], &e, sizeof(e));
}

/*
 * Rewrite the n events the kernel gave into what the program sees;
 * returns their number (at most max), or -1 (EFAULT) where the first
 * cannot be written.  Under the lock; epfd: the set's key.
 */
static int translate(int epfd, struct epoll_event *ev, int n, int max)
{
	int out = 0;

	if (epfd < 0)
		return n;	/* the set's registrations are gone */
	wait_gen++;
	for (int i = 0; i < n; i++) {
		struct epoll_event e = ev[i];
		uint64_t slot = (e.data.u64 & 0xffffffffu) >> 1;
		struct ereg *r;
		uint32_t bits;

		if (e.data.u64 >> 32 != EP_MAGIC || slot >= nregs) {
			ev[out++] = e;	/* not a shimmed registration */
			continue;
		}
		r = &regs[slot];
		if (r->epfd != epfd || (r->fired && r->gen != wait_gen))
			continue;	/* gone, or one-shot already fired */
		bits = asked(epfd, r, e.events) | synth(r);
		if (!bits && (r->events & EPOLLONESHOT))
			reg_arm(epfd, r, r->in_off);	/* fired for nothing */
		out = emit(ev, out, r, bits);
	}
	for (size_t i = 0; i < nregs && out < max; i++) {
		struct ereg *r = &regs[i];
		uint32_t bits;

		if (r->epfd != epfd || (r->events & EPOLLET) || r->fired ||
		    r->gen == wait_gen)
			continue;
		bits = synth(r);
		if (!writable_at(ev, out, n, r, bits))
			return out ? out : (errno = EFAULT, -1);
		out = emit(ev, out, r, bits);
	}
	return out;
}

enum wait_kind { W_WAIT, W_PWAIT, W_PWAIT2 };

struct wait_call {
	enum wait_kind kind;
	const sigset_t *mask;
	int64_t deadline;	/* CLOCK_MONOTONIC ns; -1: none */
};

static int64_t now_ns(void)
{
	return (int64_t)clock_mono_ns();
}

/* The real call, for what is left of the time (0 when ready is set). */
static int real_wait(const struct wait_call *w, int epfd,
		     struct epoll_event *ev, int max, bool ready)
{
	int64_t left = -1;
	struct timespec ts;

	if (ready)
		left = 0;
	else if (w->deadline >= 0)
		left = w->deadline > now_ns() ? w->deadline - now_ns() : 0;
	if (w->kind == W_PWAIT2) {
		ts.tv_sec = left < 0 ? 0 : left / 1000000000;
		ts.tv_nsec = left < 0 ? 0 : left % 1000000000;
		return real_epoll_pwait2(epfd, ev, max,
					      left < 0 ? NULL : &ts, w->mask);
	}
	int ms = left < 0 ? -1 : (int)((left + 999999) / 1000000);

	if (w->kind == W_PWAIT)
		return real_epoll_pwait(epfd, ev, max, ms, w->mask);
	return real_epoll_wait(epfd, ev, max, ms);
}

static bool timed_out(const struct wait_call *w)
{
	return w->deadline == 0 || (w->deadline > 0 && now_ns() >= w->deadline);
}

/* A wait through epfd, a descriptor of a set with registrations. */
static int ours_wait(const struct wait_call *w, int epfd,
		     struct epoll_event *ev, int max)
{
	bool ready;
	int n, key;

	for (int stale = 0;;) {
		/* Its key again each time: a copy's close may change it. */
		lock_take(LOCK_SHIM_EPOLL);
		key = key_of(epfd);
		wait_begin(key);
		ready = key >= 0 && level_ready(key);
		lock_give(LOCK_SHIM_EPOLL);
		n = real_wait(w, epfd, ev, max, ready);
		if (n < 0)
			return n;
		lock_take(LOCK_SHIM_EPOLL);
		n = translate(key_of(epfd), ev, n, max);
		lock_give(LOCK_SHIM_EPOLL);
		/* Only stale wake-ups came, or the state slot that showed
		 * something (a look without waiting) no longer does
		 * (another holder took the error; an impostor that flips
		 * it): wait on while time is left, a bounded number of
		 * times for the second (never 0 before the time). */
		if (n || timed_out(w) || (ready && ++stale > EP_STALE_MAX))
			return n;
	}
}

/* Does any event carry the shim's tag? */
static bool tagged(const struct epoll_event *ev, int n)
{
	for (int i = 0; i < n; i++)
		if (ev[i].data.u64 >> 32 == EP_MAGIC)
			return true;
	return false;
}

/*
 * Under the lock: epfd, a number not known, returned the shim's tags.  A
 * copy of a set made behind the shim's back (kcmp says) becomes one of
 * its listed copies; its key, or -1 (the program's own data, or a set
 * of another process's shim: left as they are).
 */
static int adopt(int epfd, const struct epoll_event *ev, int n)
{
	for (int i = 0; i < n; i++) {
		uint64_t slot = (ev[i].data.u64 & 0xffffffffu) >> 1;
		int key;

		if (ev[i].data.u64 >> 32 != EP_MAGIC || slot >= nregs)
			continue;
		key = regs[slot].epfd;
		if (key >= 0 && shim_same_file(epfd, key)) {
			copy_add(epfd, key);
			return key;
		}
	}
	return -1;
}

/*
 * A wait while the shim has registrations.  Through a number it does not
 * know, the real call; what it returns is looked at only in memory (no
 * system call for the program's other sets), and a tag found there makes
 * it a copy of that set from then on.
 */
static int any_wait(const struct wait_call *w, int epfd,
		    struct epoll_event *ev, int max)
{
	int n, key;

	if (epfd_watched(epfd))
		return ours_wait(w, epfd, ev, max);
	n = real_wait(w, epfd, ev, max, false);
	if (n <= 0 || !tagged(ev, n))
		return n;
	lock_take(LOCK_SHIM_EPOLL);
	key = adopt(epfd, ev, n);
	if (key >= 0)
		n = translate(key, ev, n, max);
	lock_give(LOCK_SHIM_EPOLL);
	if (key < 0 || n || timed_out(w))
		return n;
	return ours_wait(w, epfd, ev, max);
}

/* Nothing of the shim's to do: no registration anywhere. */
static bool none_live(void)
{
	return atomic_load_explicit(&nlive, memory_order_relaxed) == 0;
}

static int64_t deadline_ms(int ms)
{
	if (ms < 0)
		return -1;
	return ms == 0 ? 0 : now_ns() + (int64_t)ms * 1000000;
}

SHIM_EXPORT int epoll_wait(int epfd, struct epoll_event *ev, int max, int ms)
{
	struct wait_call w = { W_WAIT, NULL, 0 };
	int rc;

	shim_init();
	if (lock_held() || max <= 0 || none_live())
		return real_epoll_wait(epfd, ev, max, ms);
	w.deadline = deadline_ms(ms);
	rc = any_wait(&w, epfd, ev, max);
	SHIM_LOGRC(rc, "epoll_wait(%d, %d, %d ms)", epfd, max, ms);
	return rc;
}

SHIM_EXPORT int epoll_pwait(int epfd, struct epoll_event *ev, int max, int ms,
			    const sigset_t *mask)
{
	struct wait_call w = { W_PWAIT, mask, 0 };
	int rc;

	shim_init();
	if (lock_held() || max <= 0 || none_live())
		return real_epoll_pwait(epfd, ev, max, ms, mask);
	w.deadline = deadline_ms(ms);
	rc = any_wait(&w, epfd, ev, max);
	SHIM_LOGRC(rc, "epoll_pwait(%d, %d, %d ms)", epfd, max, ms);
	return rc;
}

SHIM_EXPORT int epoll_pwait2(int epfd, struct epoll_event *ev, int max,
			     const struct timespec *ts, const sigset_t *mask)
{
	struct wait_call w = { W_PWAIT2, mask, -1 };
	struct timespec t;
	int rc;

	shim_init();
	/* The timeout is copied first, as the kernel's: one the program
	 * does not have is its EFAULT. */
	if (lock_held() || max <= 0 || none_live() || !shim_real.epoll_pwait2 ||
	    (ts && !ucopy_in(&t, ts, sizeof(t))))
		return shim_real.epoll_pwait2
			       ? real_epoll_pwait2(epfd, ev, max, ts, mask)
			       : (errno = ENOSYS, -1);
	if (ts && (t.tv_sec < 0 || t.tv_nsec < 0 || t.tv_nsec >= 1000000000)) {
		errno = EINVAL;
		return -1;
	}
	/* Past about 146 years, never (as the kernel saturates one). */
	if (ts && t.tv_sec < (time_t)(INT64_MAX / 1000000000 / 2))
		w.deadline = t.tv_sec == 0 && t.tv_nsec == 0
				     ? 0
				     : now_ns() + t.tv_sec * 1000000000 +
					       t.tv_nsec;
	rc = any_wait(&w, epfd, ev, max);
	SHIM_LOGRC(rc, "epoll_pwait2(%d, %d)", epfd, max);
	return rc;
}

/* ---- forgetting ---- */

/* The socket's registrations: by its slot, and by its data descriptor's
 * identity (one made before the socket had a slot has none). */
void shim_epoll_forget_sock(const struct fdent *ent)
{
	const struct wire_shm *shm = ent->shm;

	lock_take(LOCK_SHIM_EPOLL);
	for (size_t i = 0; i < nregs; i++) {
		int epfd = regs[i].epfd;
		bool same = (shm && regs[i].shm == shm) ||
			    (regs[i].dev == ent->dev &&
			     regs[i].ino == ent->ino);

		if (epfd < 0 || !same)
			continue;
		reg_free(&regs[i]);
		if (!epfd_has_regs(epfd))
			key_gone(epfd);
	}
	lock_give(LOCK_SHIM_EPOLL);
}

bool shim_epoll_is_watched(int epfd)
{
	return !none_live() && epfd_watched(epfd);
}

/* Under the lock: a listed copy of key's set outside [lo, hi], or -1. */
static int copy_outside(int key, int lo, int hi)
{
	for (size_t i = 0; i < ncopies; i++)
		if (copies[i].key == key && copies[i].fd >= 0 &&
		    (copies[i].fd < lo || copies[i].fd > hi))
			return copies[i].fd;
	return -1;
}

/*
 * Under the lock: the number fd, one of [lo, hi], is being closed.  A
 * copy is only unlisted; a key hands its set's registrations on to a
 * copy outside the range (a listed one, or other: found in
 * /proc/self/fd; -1 none), and the last number forgets them.
 */
static void number_closed(int fd, int other, int lo, int hi)
{
	struct ecopy *c = copy_find(fd);
	int to;

	set_watched(fd, false);
	if (c) {
		*c = (struct ecopy){ .fd = -1, .key = -1 };
		return;
	}
	if (!epfd_has_regs(fd))
		return;
	to = copy_outside(fd, lo, hi);
	if (to < 0)
		to = other;
	if (to >= 0) {
		rekey(fd, to);
		return;
	}
	for (size_t i = 0; i < nregs; i++)
		if (regs[i].epfd == fd)
			reg_free(&regs[i]);
	key_gone(fd);
}

/* fd, one of [lo, hi] (all being closed), is an epoll descriptor. */
static void closing_in(int fd, int lo, int hi)
{
	int other = -1;
	bool lone;

	lock_take(LOCK_SHIM_EPOLL);
	lone = epfd_has_regs(fd) && copy_outside(fd, lo, hi) < 0;
	lock_give(LOCK_SHIM_EPOLL);
	/* Its last number the shim knows: is there one it does not?  Not
	 * under the lock (it reads /proc), and only here (it costs). */
	if (lone)
		other = shim_find_epoll_copy(fd, lo, hi);
	lock_take(LOCK_SHIM_EPOLL);
	number_closed(fd, other, lo, hi);
	lock_give(LOCK_SHIM_EPOLL);
}

void shim_epoll_closing(int epfd)
{
	closing_in(epfd, epfd, epfd);
}

/* Under the lock: the smallest number of a set in [lo, hi], or -1. */
static int next_known(int lo, int hi)
{
	int best = -1;

	for (size_t i = 0; i < nregs; i++) {
		int k = regs[i].epfd;

		if (k >= lo && k <= hi && (best < 0 || k < best))
			best = k;
	}
	for (size_t i = 0; i < ncopies; i++) {
		int k = copies[i].fd;

		if (k >= lo && k <= hi && (best < 0 || k < best))
			best = k;
	}
	return best;
}

void shim_epoll_closing_range(unsigned first, unsigned last)
{
	int lo, hi = last > INT_MAX ? INT_MAX : (int)last;

	if (none_live() || first > INT_MAX)
		return;
	for (lo = (int)first; lo <= hi;) {
		int fd;

		lock_take(LOCK_SHIM_EPOLL);
		fd = next_known(lo, hi);
		lock_give(LOCK_SHIM_EPOLL);
		if (fd < 0)
			break;
		closing_in(fd, (int)first, hi);
		if (fd == INT_MAX)
			break;
		lo = fd + 1;
	}
}

void shim_epoll_copied(int from, int to)
{
	int key;

	if (to < 0 || to == from || !shim_epoll_is_watched(from))
		return;
	lock_take(LOCK_SHIM_EPOLL);
	key = key_of(from);
	if (key >= 0)
		copy_add(to, key);
	lock_give(LOCK_SHIM_EPOLL);
}
