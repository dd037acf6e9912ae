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
		/* The daemon drains it as it comes: a moment, at most. */
		if (sys_poll(&pfd, 1, 1000) <= 0)
			break;
	}
	return -ECONNRESET;
}

/*
 * The daemon keeps a socket's last few proofs (four), read when an
 * attach asks: more processes than that attaching one socket at once (a
 * pre-fork server's workers making their first call together) pushed
 * out each other's, and the attach of a process whose proof went failed
 * EBADF (measured: of 32 children of one process attaching at once, 9 to
 * 27 failed ECONNRESET; of 200, up to 178).  So the processes holding a
 * socket attach it one at a time: each holds a POSIX record lock on its
 * descriptor meanwhile.  Such a lock belongs to the process (a child
 * made by fork() does not share its parent's, as it would an flock() or
 * an open file description's lock), on a byte far past any a program
 * would lock (a program's own lock there would be released with it).
 * It is taken without blocking, tried again after pauses that double
 * (ATTACH_LOCK_PAUSE_NS, up to ATTACH_LOCK_WAIT_NS in all): a holder of
 * the socket that keeps it held delays the others' attach by that much,
 * never more.  And an attach whose proof went all the same (a holder
 * that writes junk, the lock not had) is tried again with a fresh one,
 * after a random pause of up to ATTACH_PAUSE_NS << try.  A handle that
 * is not a socket of the daemon's fails before any attach.
 */
/* The last byte but one an off_t can name. */
#define ATTACH_LOCK_AT \
	((off_t)(((uint64_t)1 << (sizeof(off_t) * 8 - 1)) - 2))
#define ATTACH_LOCK_PAUSE_NS 20000u
#define ATTACH_LOCK_WAIT_NS 2000000000ull
#define ATTACH_TRIES 4
#define ATTACH_PAUSE_NS 100000u

static void pause_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000u),
			       .tv_nsec = (long)(ns % 1000000000u) };

	(void)nanosleep(&ts, NULL);	/* a signal only shortens it */
}

static bool attach_lock(int fd, short type)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET,
			    .l_start = ATTACH_LOCK_AT, .l_len = 1 };

	return sys_fcntl(fd, F_SETLK, &fl) == 0;
}

/* The lock, if it can be had in ATTACH_LOCK_WAIT_NS: held or not. */
static bool attach_lock_take(int fd)
{
	uint64_t until = clock_mono_ns() + ATTACH_LOCK_WAIT_NS;
	uint64_t pause = ATTACH_LOCK_PAUSE_NS;

	while (!attach_lock(fd, F_WRLCK)) {
		/* Not a socket's lock to wait for (EINVAL, ENOLCK...). */
		if ((errno != EAGAIN && errno != EACCES) ||
		    clock_mono_ns() >= until)
			return false;
		pause_ns(pause);
		if (pause < ATTACH_LOCK_WAIT_NS / 64)
			pause *= 2;
	}
	return true;
}

static void attach_pause(int try)
{
	uint16_t r = 0;

	if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r))
		r = (uint16_t)clock_mono_ns();
	pause_ns(((uint64_t)ATTACH_PAUSE_NS << try) * r / 65536u);
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
	size_t blen = 0;
	int rc = -EBADF;
	bool locked;

	lock_take(LOCK_ATTACH);
	locked = attach_lock_take(fd);
	for (int try = 0; try < ATTACH_TRIES && rc == -EBADF; try++) {
		if (try)
			attach_pause(try);
		blen = 3 * sizeof(*body);
		rc = relay_prove(fd, req.nonce);
		if (rc == 0)
			rc = conn_exchange(c, &req, NULL, 0, body, &blen,
					   NULL);
	}
	if (locked)
		(void)attach_lock(fd, F_UNLCK);
	lock_give(LOCK_ATTACH);
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
	int rc = attach_call(c, fd, ent->handle, body);

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
		if (rc < 0)
			fdtab_remove(fd, &gone);	/* nothing to release */
	}
	conn_give(c);
	lock_leave();
	return rc;
}
