/* SPDX-License-Identifier: ISC */
/*
 * conn - the process's control connections to pingsockd: a small pool.
 *
 * A call holds one connection for its request and answer (call.h does
 * the exchange); calls of other threads use other connections meanwhile,
 * so that no call waits for another's answer - above all not for a send
 * the daemon parks until the rate limit or min_interval lets it go,
 * which can take seconds.  The first call dials the first connection;
 * another is dialled only when every one the process has is busy, up to
 * CONN_POOL_MAX.  Past that (or when the daemon refuses one more: its
 * per-user max_connections, its descriptor share) a call waits for a
 * connection to come back.  Connections idle for CONN_IDLE_NS beyond the
 * first are closed.  A socket opened on one connection is attached to
 * another the first time it is used there (relay.c: the proof and
 * WIRE_ATTACH), as after fork.  After fork() the child has none of the
 * parent's connections: its first call dials afresh.
 */
#ifndef PS_CONN_H
#define PS_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "lib/call.h"
#include "wire/wire.h"

#define CONN_MAX_FDS CALL_MAX_FDS

/*
 * Why a pool, and not one connection with requests tagged and answered
 * out of order: the daemon stays as it is - one request at a time per
 * connection, a parked send stops the reading of its connection, answers
 * in order - and so does every bound it keeps on a client.  Each
 * connection is one of the user's max_connections and takes FDS_CONN of
 * its descriptor share, so the daemon itself bounds the pool: a dial it
 * refuses is closed at once, and the process makes do with the
 * connections it has (and does not ask again for CONN_GROW_PAUSE_NS).
 */
/* Eight: measured with 8 threads (one socket each, 2 cores, relay),
 * four connections made half the threads wait on the pool's lock and
 * condition for each call: 40k echoes/s and 0.9 s of the client's
 * processor for 40,000; with eight, 50k/s and 0.6 s. */
#define CONN_POOL_MAX 8
#define CONN_IDLE_NS 10000000000ull	/* 10 s */
#define CONN_GROW_PAUSE_NS 1000000000ull	/* 1 s */

struct conn;

/*
 * Take a connection for this thread's calls: 0 with *out set, or
 * WIRE_R_NODAEMON when the process has none and none can be made
 * (conn_dial_error() says why).  Waits while every connection is busy
 * and no other can be had.  Give it back with conn_give().
 */
int conn_take(struct conn **out);

/* c's answer slot in the arena it said HELLO with, or NULL. */
const struct wire_shm *conn_ans(const struct conn *c);

/*
 * Send req, followed by the bytes of data[0..ndata) (WIRE_SEND), on the
 * connection and wait for the answer: call_exchange() (call.h), which
 * checks it whole before anything of it is used.  Returns the answer's
 * result (>= 0, -errno from the daemon, or WIRE_R_UNATTACHED for a
 * request that names a socket), -EPROTO for a malformed answer (its
 * descriptors closed), WIRE_R_BROKEN when the connection broke, or
 * -EINTR or -EAGAIN for a blocking send that gave up waiting for its
 * answer (call_send()).  The connection is closed when given back after
 * any of the last four.
 */
int conn_exchange(struct conn *c, const struct wire_req *req,
		  const struct iovec *data, int ndata, void *body,
		  size_t *bodylen, int *fd_out);

void conn_give(struct conn *c);

/*
 * One request on a connection of the pool: conn_take(), conn_exchange(),
 * conn_give().  WIRE_R_NODAEMON when the daemon cannot be reached.  All
 * the WIRE_R_* values are outside the range of -errno, so that a
 * daemon's own -ECONNREFUSED (a pending error) is never taken for them.
 */
int conn_call(const struct wire_req *req, const struct iovec *data,
	      int ndata, void *body, size_t *bodylen, int *fd_out);

/*
 * The library's own descriptors (the connections, each socket's error
 * queue) are moved up to CONN_HIGH_FD or above when the limit allows, so
 * that the descriptors a program sees are numbered as they would be with
 * the kernel's sockets.  Returns the descriptor to use.
 */
#define CONN_HIGH_FD 512
int conn_move_high(int fd);

/*
 * Why the calling thread's last attempt to reach the daemon failed: a
 * -errno, or WIRE_R_FOREIGN_NS when the daemon serves only its own
 * network namespace and this process is in another.
 */
int conn_dial_error(void);

/*
 * The uid that listens at the other end of c (fdcheck_maker() of the
 * connection): root when pingsockd or systemd made the listening socket
 * as root, the daemon's own user when it was started without root, an
 * impostor's uid when one bound the path.  false: not known.
 */
bool conn_listener_uid(const struct conn *c, uid_t *uid);

/* The socket path in use (PINGSOCK_SOCKET or the default). */
const char *conn_path(void);

#endif
