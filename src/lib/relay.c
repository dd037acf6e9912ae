/* SPDX-License-Identifier: ISC */
#include "lib/relay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/clock.h"
#include "lib/conn.h"
#include "lib/fdcheck.h"
#include "lib/lock.h"
#include "lib/state.h"
#include "lib/sys.h"

int relay_conn_call(const struct wire_req *req, const struct iovec *data,
		    int ndata, void *body, size_t *bodylen, int *fd_out)
{
	int rc;

	lock_enter();
	rc = conn_call(req, data, ndata, body, bodylen, fd_out);
	lock_leave();
	return rc;
}

/* A nonce no other process can guess. */
static int make_nonce(uint8_t *nonce)
{
	size_t got = 0;

	while (got < WIRE_NONCE_LEN) {
		ssize_t n = getrandom(nonce + got, WIRE_NONCE_LEN - got, 0);

		if (n < 0 && errno != EINTR)
			return -errno;
		if (n > 0)
			got += (size_t)n;
	}
	return 0;
}

int relay_prove(int fd, uint8_t *nonce)
{
	struct wire_proof pf = { .magic = WIRE_PROOF_MAGIC };
	struct pollfd pfd = { .fd = fd, .events = POLLOUT };
	int rc = make_nonce(nonce);

	if (rc)
		return rc;
	memcpy(pf.nonce, nonce, WIRE_NONCE_LEN);
	for (int tries = 0; tries < 2; tries++) {
		ssize_t n = sys_send(fd, &pf, sizeof(pf), MSG_DONTWAIT | MSG_NOSIGNAL);

		if (n == (ssize_t)sizeof(pf))
			return 0;
		if (n >= 0 || errno != EAGAIN)
			break;
		/* Full: the daemon reads what is queued at the next
		 * attach (another holder's), so wait a moment for it. */
		if (sys_poll(&pfd, 1, 1000) <= 0)
			break;
	}
	return -ECONNRESET;
}

/*
 * The daemon reads a socket's proofs when an attach asks, in the order
 * written, up to the one asked for; it keeps four it read but was not
 * asked for (ssock.c: proof_read()).  Processes attaching one socket at
 * once (a pre-fork server's workers making their first call together)
 * whose requests overtake each other can still push out each other's,
 * and the attach of a process whose proof went fails EBADF (measured
 * with 1,000 children of one process attaching at once and none holding
 * the lock below: 314 to 930 failed ECONNRESET).  So the processes holding a
 * socket attach it one at a time: each holds a POSIX record lock on its
 * descriptor meanwhile.  Such a lock belongs to the process (a child
 * made by fork() does not share its parent's, as it would an flock() or
 * an open file description's lock), on a byte that fits any off_t and
 * that no program locks on a socket (a program's own lock there would be
 * released with it).
 *
 * It is taken without blocking, and tried again after pauses that
 * double, for as long as the holder changes at least every
 * ATTACH_LOCK_WAIT_NS, and ATTACH_LOCK_MAX_NS at most.  Measured: 1,000
 * children attaching at once take 0.5 s, 2 s in the sanitizer build;
 * with a quarter of a second in all, the late ones went without the
 * lock, and 576 and 881 of them failed there.  With a quarter of a
 * second for each holder, one holder held up for longer on a busy
 * machine (312 to 448 ms) sent all the others in without it at once
 * (627 to 911 failed in 8 runs of 30); hence a second.  The holder is
 * the one F_GETLK names (none, and no wait past ATTACH_LOCK_WAIT_NS,
 * for one in another pid namespace).  A holder of the socket that keeps
 * the lock delays each of the others' first calls on it by
 * ATTACH_LOCK_WAIT_NS; several that take turns (any process can fork),
 * by ATTACH_LOCK_MAX_NS; they then go without it.  Meanwhile the caller
 * holds one of the pool's connections (conn.h), not the other sockets'
 * attaches nor fork(): the lock is waited for before LOCK_ATTACH.
 * (Threads of one process share it: LOCK_ATTACH orders them.)
 */
#define ATTACH_LOCK_AT ((off_t)0x7ffffffe)
#define ATTACH_LOCK_PAUSE_NS 20000u
#define ATTACH_LOCK_PAUSE_MAX_NS 5000000u	/* about 5 ms between tries, at most */
#define ATTACH_LOCK_WAIT_NS 1000000000ull
#define ATTACH_LOCK_MAX_NS 5000000000ull

static bool attach_lock(int fd, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET,
			    .l_start = ATTACH_LOCK_AT, .l_len = 1 };

	return sys_fcntl(fd, F_SETLK, &fl) == 0;
}

/* Who holds the lock: a pid, or 0 (none now, or one this process cannot
 * name: another pid namespace's). */
static pid_t attach_lock_holder(int fd)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
			    .l_start = ATTACH_LOCK_AT, .l_len = 1 };

	if (sys_fcntl(fd, F_GETLK, &fl) || fl.l_type == F_UNLCK)
		return 0;
	return fl.l_pid > 0 ? fl.l_pid : 0;
}

/*
 * The lock, if it can be had: held or not.  Each holder in turn gets
 * ATTACH_LOCK_WAIT_NS (a queue of attachers moves on; one that keeps the
 * lock does not), all of them ATTACH_LOCK_MAX_NS.
 */
static bool attach_lock_take(int fd)
{
	uint64_t now = clock_mono_ns(), until = now + ATTACH_LOCK_WAIT_NS;
	uint64_t end = now + ATTACH_LOCK_MAX_NS;
	uint64_t pause = ATTACH_LOCK_PAUSE_NS;
	struct timespec ts = { 0 };
	pid_t last = 0, holder;

	while (!attach_lock(fd, F_WRLCK)) {
		/* Only another process's lock is waited for (EAGAIN); a
		 * refusal (a security module's EACCES, ENOLCK) is not. */
		if (errno != EAGAIN)
			return false;
		now = clock_mono_ns();
		holder = attach_lock_holder(fd);
		if (holder != 0 && holder != last) {
			last = holder;
			until = now + ATTACH_LOCK_WAIT_NS;
		}
		if (now >= until || now >= end)
			return false;
		ts.tv_nsec = (long)pause;
		(void)nanosleep(&ts, NULL);	/* a signal shortens it */
		if (pause < ATTACH_LOCK_PAUSE_MAX_NS)
			pause *= 2;
	}
	return true;
}

/*
 * One proof and its WIRE_ATTACH at a time in this process (LOCK_ATTACH):
 * two threads attaching one socket at once (on two connections of the
 * pool) would push out each other's proofs.  Attaching is rare (a
 * socket's first call on a connection) and quick (never parked), so one
 * lock for all sockets costs nothing; a thread holds its connection
 * while it waits here, and the holder of this lock needs no other.
 */
/* The proof, and WIRE_ATTACH on the connection that did not know it. */
static int attach_call(struct conn *c, int fd, uint32_t handle,
		       uint32_t *body)
{
	struct wire_req req = { .type = WIRE_ATTACH, .handle = handle };
	size_t blen = 3 * sizeof(*body);
	bool locked = attach_lock_take(fd);
	int rc;

	lock_take(LOCK_ATTACH);
	rc = relay_prove(fd, req.nonce);
	if (rc == 0)
		rc = conn_exchange(c, &req, NULL, 0, body, &blen, NULL);
	lock_give(LOCK_ATTACH);
	if (locked)
		(void)attach_lock(fd, F_UNLCK);
	if (rc >= 0 && blen != 3 * sizeof(*body))
		rc = -EPROTO;
	return rc;
}

/*
 * WIRE_ATTACH: this connection learns the socket's handle, and the
 * socket's slot in the process's arena.  The exchange checked the
 * answer's form (handle, family, slot); what must match the socket is
 * checked here.
 */
static int attach(struct conn *c, int fd, struct fdent *ent)
{
	uint32_t body[3] = { 0, 0, 0 };
	struct wire_shm *shm = NULL;
	struct stat st;
	int rc;

	/* The proof is written on fd: still this socket's descriptor?
	 * Another thread may have closed it meanwhile, and the number gone
	 * to a file of the program's own. */
	if (fstat(fd, &st) || st.st_dev != ent->dev || st.st_ino != ent->ino)
		return -EBADF;
	rc = attach_call(c, fd, ent->handle, body);

	if (rc >= 0 && body[1] != (uint32_t)ent->family)
		rc = -EPROTO;
	if (rc >= 0 && (!(shm = state_slot(body[2])) ||
			fdtab_slot_clash(fd, shm)))
		rc = -EPROTO;
	if (rc >= 0) {
		ent->handle = body[0];
		fdtab_set_attached(fd, body[0], getpid(), shm, ent);
	}
	if (rc < 0)
		return rc == -EBADF || rc == WIRE_R_BROKEN ? -ECONNRESET : rc;
	return 0;
}

/*
 * The call, and when this connection does not know the socket, the
 * proof, WIRE_ATTACH and the call again: all on one connection of the
 * pool, held throughout, so that what is attached is where it is used.
 */
int relay_call(int fd, struct fdent *ent, struct wire_req *req,
	       const struct iovec *data, int ndata, void *body,
	       size_t *bodylen)
{
	size_t cap = bodylen ? *bodylen : 0;
	struct conn *c;
	int rc;

	lock_enter();
	rc = conn_take(&c);
	if (rc) {
		lock_leave();
		return -ECONNRESET;	/* no daemon */
	}
	for (int tries = 0; tries < 2; tries++) {
		req->handle = ent->handle;
		if (bodylen)
			*bodylen = cap;
		rc = conn_exchange(c, req, data, ndata, body, bodylen, NULL);
		if (rc != WIRE_R_UNATTACHED)
			break;
		rc = attach(c, fd, ent);
		if (rc < 0)
			break;
		rc = WIRE_R_UNATTACHED;
	}
	conn_give(c);
	lock_leave();
	if (rc == WIRE_R_UNATTACHED || rc == WIRE_R_BROKEN)
		rc = -ECONNRESET;
	return rc;
}

/* WIRE_FIND: which of our uid's relayed sockets fd's cookie names. */
static int find_call(struct conn *c, uint64_t cookie, struct fdent *ent)
{
	struct wire_req req = { .type = WIRE_FIND };
	uint32_t body[3] = { 0, 0, 0 };
	size_t blen = sizeof(body);
	int rc;

	req.u.cookie = cookie;
	rc = conn_exchange(c, &req, NULL, 0, body, &blen, NULL);
	if (rc < 0)
		return rc;
	if (blen != sizeof(body))
		return -EPROTO;
	ent->kind = body[2] & WIRE_FIND_RAW ? FDK_RAW : FDK_RELAY;
	ent->family = (int)body[1];
	ent->handle = body[0];
	return 0;
}

/*
 * May the daemon at the other end of c claim the inherited descriptor
 * fd, and so have a proof written on it?  A pair's SO_PEERCRED is its
 * maker's; a connection's, the listener's.  The claim alone is not
 * enough: an impostor at the socket path (any uid that bound it) would
 * claim every cookie (they are guessable) to have the library write, at
 * a time of its choosing, into a pair the program got from a third
 * party (root, systemd, another user).  So:
 *   - a root listener is pingsockd's, or systemd's for it (socket
 *     activation): no impostor is root.  The pairs are then the daemon's
 *     user's, made after it dropped root (measured: listener uid 0,
 *     pairs uid pingsock), which the library does not know: the claim
 *     is taken, as pingsockd answers for the caller's uid only;
 *   - a listener of any other uid is a daemon started without root (its
 *     unit's User=), which listens and makes its pairs as that one user
 *     (measured: both uid pingsock), or an impostor: only a pair that
 *     very uid made is claimed, so an impostor can be written to only on
 *     pairs of its own.
 * The program's own pairs were left out before (inherit.c, made_by_us).
 * Uids as this namespace sees them: in a user namespace that maps
 * neither, an impostor's and a third party's would both read as
 * FDCHECK_UNMAPPED and look alike, so a listener of that uid is never
 * trusted.  That costs only the re-attach across exec (the descriptor
 * stays a plain AF_UNIX socket), and only to an unmapped root listener
 * or a daemon run as nobody, which pingsockd refuses without
 * --allow-shared-user.
 */
static bool made_by_listener(const struct conn *c, int fd)
{
	uid_t listener;

	return conn_listener_uid(c, &listener) &&
	       fdcheck_pair_of(listener, fd, false);
}

/*
 * Only once the daemon has said that fd is one of our uid's sockets, and
 * fd's pair is one that daemon can have made (made_by_listener), is
 * anything written on it (attach's proof): any other descriptor is the
 * program's own, and its protocol is none of ours.  The daemon is not
 * even asked about one it cannot have made.
 *
 * A socket the daemon found but could not attach (for want of room: its
 * bound of processes a socket, ENOBUFS, or memory; a proof lost in a
 * crowd; the daemon gone meanwhile) is still ours: it keeps its entry,
 * unattached, and each call tries the attach again (relay_call) and
 * fails with that errno until it works, as the daemon's manual says.
 * Taken for the program's own, its calls went to the kernel as an
 * AF_UNIX socket's (EOPNOTSUPP) and its reads returned the daemon's
 * datagrams, for good.  Only a descriptor that is no longer the one
 * found (EBADF: closed meanwhile) or an answer that does not fit it
 * (EPROTO) lets it go.
 */
int relay_adopt(int fd, uint64_t cookie)
{
	struct fdent ent = { .livefd = -1 }, gone;
	struct conn *c;
	int rc;

	lock_enter();
	rc = conn_take(&c);
	if (rc) {
		lock_leave();
		return -ECONNRESET;
	}
	rc = made_by_listener(c, fd) ? find_call(c, cookie, &ent) : -ENOENT;
	if (rc == 0 && fdtab_add(fd, &ent) != 0)
		rc = -ENOMEM;
	if (rc == 0) {
		rc = attach(c, fd, &ent);
		if (rc == -EBADF || rc == -EPROTO)
			fdtab_remove(fd, &gone);	/* nothing to release */
		else
			rc = 0;	/* ours, attached or not yet: see above */
	}
	conn_give(c);
	lock_leave();
	return rc;
}
