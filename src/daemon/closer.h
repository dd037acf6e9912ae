/* SPDX-License-Identifier: ISC */
/*
 * closer - descriptors that clients can reach are never closed where the
 * close could block the event loop.
 *
 * A client can hand the daemon a descriptor (SCM_RIGHTS) on any unix
 * socket whose other end it holds: its control connection, a socket's
 * data or liveness pair, its error pair.  If the daemon's reference is the
 * last, closing it runs that file's release in the daemon: a TCP socket
 * with SO_LINGER and unacknowledged data, or a FUSE file whose flush the
 * client answers never, blocks as long as the client likes.  Descriptors
 * sitting in a socket's receive queue are released when the socket is
 * closed, so closing the socket itself is enough to block.
 *
 * Two lines of defence:
 *   - SO_PASSRIGHTS off (Linux 6.16) on every such socket of the daemon's,
 *     set on the listener so that accepted connections inherit it: a
 *     sendmsg() with SCM_RIGHTS to the daemon fails with EPERM in the
 *     sender, and no client descriptor ever reaches the daemon;
 *   - on kernels without it, every descriptor that arrives goes to a
 *     thread of its own, which closes them in turn, so that a close that
 *     blocks holds up that thread only (and those queued behind it: see
 *     pingsockd(8), SANDBOX); each is charged to the user who passed it
 *     until it is closed (closer_charge()), so that the user's share of
 *     the daemon's descriptors (uidtab.h) counts them.  The daemon's own
 *     ends of client-reachable sockets are shut for reading, drained of
 *     what came (to the end, told from an empty record by SO_PASSCRED)
 *     and closed; one not drained to the end goes to the thread too
 *     (closer_close_socket()).
 * Receiving goes through closer_recv(), which takes any descriptor that
 * came with a message (MSG_CMSG_CLOEXEC) and hands it to the thread.
 */
#ifndef PSD_CLOSER_H
#define PSD_CLOSER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

/*
 * Probe SO_PASSRIGHTS; without it (or with force_thread, for the tests of
 * the fallback) start the closing thread.  Before the seccomp filter (the
 * thread is made by clone()).  0, or -1 with err filled.
 */
int closer_init(bool force_thread, char *err, size_t errlen);
/* Stop the thread after it has closed everything queued. */
void closer_stop(void);

/* Does the kernel refuse descriptors for us (SO_PASSRIGHTS)? */
bool closer_kernel_refuses(void);

/* No descriptor may be passed to the daemon on fd: SO_PASSRIGHTS off.
 * 0, or -errno where the kernel has it but refused. */
int closer_guard(int fd);

/* Close a descriptor that no client can have put anything in. */
void closer_close(int fd);
/* Close the daemon's end of a socket that owner's client can write to. */
void closer_close_socket(int fd, uid_t owner);
/* The same without reading what is queued there first (a socket that
 * carried descriptors: the thread's close releases them). */
void closer_close_as_is(int fd, uid_t owner);

/*
 * recvmsg() for a client-reachable socket, MSG_DONTWAIT: any descriptor
 * that came with the message goes to the thread, charged to owner, and
 * *passed says how many (never NULL).  mh's control buffer is the
 * caller's or none.
 */
ssize_t closer_recv(int fd, uid_t owner, struct msghdr *mh,
		    unsigned *passed);

/*
 * Descriptors passed by a client are charged to it while they wait for
 * the thread: fn(ctx, owner, +1) as one is queued, fn(ctx, owner, -1) in
 * closer_collect() for each the thread closed since.  Both on the
 * caller's thread (the loop's).
 */
void closer_charge(void (*fn)(void *ctx, uid_t owner, int n), void *ctx);
void closer_collect(void);

#endif
