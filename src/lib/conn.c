/* SPDX-License-Identifier: ISC */
#include "lib/conn.h"
#include "lib/shimapi.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>

#include "lib/clock.h"
#include "lib/env.h"
#include "lib/fdcheck.h"
#include "lib/state.h"
#include "lib/sys.h"
#include "pingsock.h"

/* A slot of the pool; its fd is a connection when idle or busy. */
enum conn_state {
	CONN_FREE = 0,
	CONN_DIALLING,		/* a thread is making it, the pool unlocked */
	CONN_IDLE,
	CONN_BUSY,		/* a thread holds it for a call */
};

struct conn {
	enum conn_state state;
	int fd;
	bool broken;		/* broke, or spoke out of protocol */
	uint64_t idle_ns;	/* given back then (clock_mono_ns()) */
	struct call_conn cc;	/* its answer slot, its timeout (call.h) */
};

/*
 * The pool.  mu guards every slot's state and the counts; a connection
 * itself is used only by the thread that holds it (CONN_BUSY), without
 * the lock, so that a call that waits for its answer holds up nobody.
 */
static struct {
	pthread_mutex_t mu;
	pthread_cond_t back;	/* a connection came back, or a dial failed */
	struct conn c[CONN_POOL_MAX];
	unsigned n;		/* slots dialling or holding a connection */
	uint64_t grow_after;	/* no second dial before then (a refusal) */
} pool = { .mu = PTHREAD_MUTEX_INITIALIZER,
	   .back = PTHREAD_COND_INITIALIZER };

/* The slot this thread used last: its sockets are attached there. */
static __thread int last_slot = -1;
static __thread int dial_error;

const char *conn_path(void)
{
	const char *p = env_get(ENV_SOCKET);

	return p && *p ? p : PINGSOCK_DEFAULT_SOCKET;
}

size_t conn_fds(int *out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&pool.mu);
	for (int i = 0; i < CONN_POOL_MAX; i++) {
		const struct conn *c = &pool.c[i];

		if (c->state != CONN_IDLE && c->state != CONN_BUSY)
			continue;
		if (n < max)
			out[n] = c->fd;
		n++;
	}
	pthread_mutex_unlock(&pool.mu);
	return n;
}

/* The thread holds c (CONN_BUSY): its fd stays open meanwhile. */
bool conn_listener_uid(const struct conn *c, uid_t *uid)
{
	return fdcheck_maker(c->fd, uid);
}

/* A slot's connection closed, or its dial given up (the lock held). */
static void drop(struct conn *c)
{
	/* What the daemon left unread there goes with it, descriptors
	 * and all: let go of those here, not in the kernel's close. */
	if (c->state == CONN_IDLE || c->state == CONN_BUSY) {
		fdcheck_drain(c->fd);
		sys_close(c->fd);
	}
	c->fd = -1;
	c->state = CONN_FREE;
	c->broken = false;
	pool.n--;
}

static void atfork_prepare(void) { pthread_mutex_lock(&pool.mu); }
static void atfork_parent(void) { pthread_mutex_unlock(&pool.mu); }

/*
 * The child's copies of the parent's connections are the parent's: it
 * closes them now (the parent goes on using its own), and its first
 * call dials afresh.  The threads that held or were dialling them exist
 * only in the parent, and so do any waiters on the condition.
 */
static void atfork_child(void)
{
	for (int i = 0; i < CONN_POOL_MAX; i++) {
		struct conn *c = &pool.c[i];

		if (c->state == CONN_IDLE || c->state == CONN_BUSY)
			sys_close(c->fd);
		c->state = CONN_FREE;
		c->fd = -1;
		c->broken = false;
	}
	pool.n = 0;
	pool.grow_after = 0;
	pthread_cond_init(&pool.back, NULL);
	pthread_mutex_unlock(&pool.mu);
}

/*
 * Registered at load, before lock.c's handlers (a constructor that runs
 * first: priority 101), so that a fork takes the library's locks first
 * and the pool's last, the order a thread takes them in (inherit.c holds
 * LOCK_INHERIT while it takes a connection, and gives the connection
 * back under it).  Registered at the first call, as it was, it ran
 * first: a fork during an inherited descriptor's first call then held
 * the pool's lock waiting for LOCK_INHERIT, and the call, for ever,
 * the pool's lock (forkattach heldexec).
 */
__attribute__((constructor(101))) static void conn_setup(void)
{
	pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

int conn_move_high(int fd)
{
	int high = sys_fcntl(fd, F_DUPFD_CLOEXEC, CONN_HIGH_FD);

	if (high < 0)
		return fd;	/* a low limit: keep it where it is */
	sys_close(fd);
	return high;
}

int conn_dial_error(void)
{
	return dial_error;
}

/*
 * What a failed HELLO means to the program.  A daemon short of descriptors
 * or memory says so, and socket() says it as the kernel would (an
 * impostor can say it too, and gains nothing by it); closed at once is a
 * refusal; anything else (another protocol version, an answer that is not
 * pingsockd's) is EPROTO.
 */
static int hello_error(int rc)
{
	switch (rc) {
	case WIRE_R_FOREIGN_NS:
	case -EMFILE:
	case -ENFILE:
	case -ENOMEM:
	case -ENOBUFS:
		return rc;
	case WIRE_R_BROKEN:
		return -ECONNREFUSED;
	default:
		return -EPROTO;
	}
}

/* Connect and say hello: the descriptor (*ans: its answer slot, or
 * NULL), -errno or WIRE_R_FOREIGN_NS. */
static int dial(const struct wire_shm **ans)
{
	int fd = call_connect(conn_path()), rc;

	*ans = NULL;
	if (fd < 0)
		return fd;
	rc = state_hello(fd, ans);
	if (rc < 0) {
		fdcheck_drain(fd);
		sys_close(fd);
		return hello_error(rc);
	}
	return conn_move_high(fd);
}

/* An idle connection, this thread's last one first; NULL if none. */
static struct conn *pick_idle(void)
{
	if (last_slot >= 0 && pool.c[last_slot].state == CONN_IDLE)
		return &pool.c[last_slot];
	for (int i = 0; i < CONN_POOL_MAX; i++)
		if (pool.c[i].state == CONN_IDLE)
			return &pool.c[i];
	return NULL;
}

/* May this thread dial one more?  The first always; more only up to
 * the pool's size, and not right after the daemon refused one. */
static bool may_dial(void)
{
	if (pool.n == 0)
		return true;
	return pool.n < CONN_POOL_MAX && clock_mono_ns() >= pool.grow_after;
}

/*
 * Dial a new connection into a free slot, the lock released meanwhile
 * (a connect can wait for the daemon's accept).  0 with *out held, or
 * why not.  (A fork while the lock is released leaves the child a copy
 * of the descriptor being made: close-on-exec, and closed at its exit.)
 */
static int grow(struct conn **out)
{
	const struct wire_shm *ans;
	struct conn *c = NULL;
	int fd;

	for (int i = 0; i < CONN_POOL_MAX && !c; i++)
		if (pool.c[i].state == CONN_FREE)
			c = &pool.c[i];
	if (!c)
		return -EAGAIN;	/* cannot be: pool.n < CONN_POOL_MAX */
	c->state = CONN_DIALLING;
	pool.n++;
	pthread_mutex_unlock(&pool.mu);
	fd = dial(&ans);
	pthread_mutex_lock(&pool.mu);
	if (fd >= 0) {
		c->fd = fd;
		call_conn_init(&c->cc, ans);
		c->state = CONN_BUSY;
		*out = c;
		return 0;
	}
	drop(c);
	/* Refused (max_connections, the descriptor share), or the daemon
	 * is gone: make do with the connections there are for a while.
	 * Waiters may have to dial now if there are none. */
	pool.grow_after = clock_mono_ns() + CONN_GROW_PAUSE_NS;
	pthread_cond_broadcast(&pool.back);
	return fd;
}

int conn_take(struct conn **out)
{
	struct conn *c;
	int rc;

	pthread_mutex_lock(&pool.mu);
	for (;;) {
		c = pick_idle();
		if (c) {
			c->state = CONN_BUSY;
			break;
		}
		if (!may_dial()) {
			pthread_cond_wait(&pool.back, &pool.mu);
			continue;
		}
		rc = grow(&c);
		if (rc == 0)
			break;
		if (pool.n == 0) {
			pthread_mutex_unlock(&pool.mu);
			dial_error = rc;
			return WIRE_R_NODAEMON;
		}
	}
	last_slot = (int)(c - pool.c);
	pthread_mutex_unlock(&pool.mu);
	*out = c;
	return 0;
}

void conn_give(struct conn *c)
{
	uint64_t now;

	pthread_mutex_lock(&pool.mu);
	now = clock_mono_ns();
	if (c->broken) {
		/* The daemon went away, or is not one to talk to: a later
		 * call dials afresh. */
		drop(c);
	} else {
		c->state = CONN_IDLE;
		c->idle_ns = now;
	}
	/* Connections left idle since a burst of calls are given back to
	 * the daemon (each is one of the user's max_connections); the one
	 * just returned stays. */
	for (int i = 0; i < CONN_POOL_MAX; i++) {
		struct conn *o = &pool.c[i];

		if (o != c && o->state == CONN_IDLE &&
		    o->idle_ns + CONN_IDLE_NS < now)
			drop(o);
	}
	pthread_cond_signal(&pool.back);
	pthread_mutex_unlock(&pool.mu);
}

const struct wire_shm *conn_ans(const struct conn *c)
{
	return c->cc.ans;
}

int conn_exchange(struct conn *c, const struct wire_req *req,
		  const struct iovec *data, int ndata, void *body,
		  size_t *bodylen, int *fd_out)
{
	int rc;

	for (int i = 0; fd_out && i < CONN_MAX_FDS; i++)
		fd_out[i] = -1;
	if (c->broken)
		return WIRE_R_BROKEN;
	if (req->type == WIRE_SEND && !body && !fd_out) {
		rc = call_send(c->fd, req, data, ndata, &c->cc);
	} else {
		rc = call_bound(c->fd, &c->cc);
		if (rc == 0)
			rc = call_exchange(c->fd, req, data, ndata, body,
					   bodylen, fd_out);
	}
	/* A send that gave up waiting shut the connection for writing
	 * (call.h), whether it went or not. */
	if (rc == WIRE_R_BROKEN || rc == WIRE_R_MALFORMED || c->cc.shut)
		c->broken = true;
	if (rc == CALL_R_INTR || rc == CALL_R_TIMEDOUT)
		return rc == CALL_R_INTR ? -EINTR : -EAGAIN;
	return rc == WIRE_R_MALFORMED ? -EPROTO : rc;
}

int conn_call(const struct wire_req *req, const struct iovec *data,
	      int ndata, void *body, size_t *bodylen, int *fd_out)
{
	struct conn *c;
	int rc;

	for (int i = 0; fd_out && i < CONN_MAX_FDS; i++)
		fd_out[i] = -1;
	rc = conn_take(&c);
	if (rc)
		return rc;
	rc = conn_exchange(c, req, data, ndata, body, bodylen, fd_out);
	conn_give(c);
	return rc;
}
