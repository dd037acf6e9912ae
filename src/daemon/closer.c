/* SPDX-License-Identifier: ISC */
#include "daemon/closer.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "daemon/log.h"
#include "wire/rights.h"

#ifndef SO_PASSRIGHTS
#define SO_PASSRIGHTS 83	/* Linux 6.16, asm-generic/socket.h */
#endif
#define CTL_FDS 253		/* SCM_MAX_FD: all a message can carry */

static bool refuses;		/* SO_PASSRIGHTS works */
static bool threaded;		/* the closing thread runs */
static pthread_t thread;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t more = PTHREAD_COND_INITIALIZER;
static pthread_cond_t up = PTHREAD_COND_INITIALIZER;
static bool running;		/* the thread has reached run() */
static bool stopping;

/* A descriptor to close, and whom it is charged to. */
struct job {
	int fd;
	uid_t owner;
};

/* A ring that grows: a blocked close must not lose what queues behind. */
struct ring {
	struct job *j;
	size_t head, len, cap;
};

static struct ring queue;	/* to close, in order */
static void (*charge)(void *ctx, uid_t owner, int n);	/* closer_charge() */
static void *charge_ctx;
static struct ring done;	/* closed, not yet reported (closer_collect) */

static int put(struct ring *r, struct job j)
{
	if (r->len == r->cap) {
		size_t nc = r->cap ? r->cap * 2 : 64;
		struct job *q = malloc(nc * sizeof(*q));

		if (!q)
			return -1;
		for (size_t i = 0; i < r->len; i++)
			q[i] = r->j[(r->head + i) % r->cap];
		free(r->j);
		r->j = q;
		r->cap = nc;
		r->head = 0;
	}
	r->j[(r->head + r->len) % r->cap] = j;
	r->len++;
	return 0;
}

static struct job pop(struct ring *r)
{
	struct job j = r->j[r->head];

	r->head = (r->head + 1) % r->cap;
	r->len--;
	return j;
}

static struct job take(void)
{
	struct job j = { .fd = -1 };

	pthread_mutex_lock(&lock);
	while (!queue.len && !stopping)
		pthread_cond_wait(&more, &lock);
	if (queue.len)
		j = pop(&queue);
	pthread_mutex_unlock(&lock);
	return j;
}

/* The thread: close what is queued, in order, until stopped and empty;
 * say what was closed (closer_collect()).  A report it has no memory
 * for is lost: the charge then stays, which errs on the safe side. */
static void *run(void *arg)
{
	struct job j;

	(void)arg;
	pthread_mutex_lock(&lock);
	running = true;
	pthread_cond_signal(&up);
	pthread_mutex_unlock(&lock);
	while ((j = take()).fd >= 0) {
		close(j.fd);
		pthread_mutex_lock(&lock);
		(void)put(&done, j);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

static bool probe(void)
{
	int sv[2], off = 0;
	bool ok;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return false;
	ok = setsockopt(sv[0], SOL_SOCKET, SO_PASSRIGHTS, &off,
			sizeof(off)) == 0;
	close(sv[0]);
	close(sv[1]);
	return ok;
}

int closer_init(bool force_thread, char *err, size_t errlen)
{
	sigset_t none, was;
	int rc;

	refuses = !force_thread && probe();
	if (refuses)
		return 0;
	/* The thread takes no signal (it inherits this mask): SIGTERM and
	 * SIGHUP are the loop's (signalfd), which blocks them only later;
	 * one delivered here would end the daemon (SIGHUP's default) without
	 * its clean stop.  SIGSYS stays open, so that a forbidden call of
	 * the thread is said before the daemon dies of it. */
	sigfillset(&none);
	sigdelset(&none, SIGSYS);
	pthread_sigmask(SIG_SETMASK, &none, &was);
	rc = pthread_create(&thread, NULL, run, NULL);
	pthread_sigmask(SIG_SETMASK, &was, NULL);
	if (rc) {
		snprintf(err, errlen, "starting the closing thread: %s",
			 strerror(rc));
		return -1;
	}
	/* The new thread makes system calls of its own before run() (glibc's
	 * start_thread: rseq, set_robust_list) with every signal blocked;
	 * under the seccomp filter that follows, each would be a SIGSYS that
	 * kills the daemon without a word.  Wait until they are done. */
	pthread_mutex_lock(&lock);
	while (!running)
		pthread_cond_wait(&up, &lock);
	pthread_mutex_unlock(&lock);
	threaded = true;
	log_info("no SO_PASSRIGHTS%s: descriptors from clients are closed "
		 "by a thread of their own", force_thread ? " (forced)" : "");
	return 0;
}

void closer_stop(void)
{
	if (!threaded)
		return;
	pthread_mutex_lock(&lock);
	stopping = true;
	pthread_cond_signal(&more);
	pthread_mutex_unlock(&lock);
	pthread_join(thread, NULL);
	threaded = running = false;
	free(queue.j);
	free(done.j);
	memset(&queue, 0, sizeof(queue));
	memset(&done, 0, sizeof(done));
}

bool closer_kernel_refuses(void)
{
	return refuses;
}

int closer_guard(int fd)
{
	int off = 0;

	if (!refuses)
		return 0;
	return setsockopt(fd, SOL_SOCKET, SO_PASSRIGHTS, &off, sizeof(off))
		       ? -errno : 0;
}

/* To the thread, charged to owner; false if it could not be queued. */
static bool queue_job(int fd, uid_t owner)
{
	bool queued;

	pthread_mutex_lock(&lock);
	queued = put(&queue, (struct job){ fd, owner }) == 0;
	if (queued)
		pthread_cond_signal(&more);
	pthread_mutex_unlock(&lock);
	if (!queued)
		log_warn("closer: no memory to queue descriptor %d", fd);
	return queued;
}

void closer_close(int fd)
{
	if (fd < 0)
		return;
	if (!threaded)
		close(fd);
	else
		queue_job(fd, (uid_t)-1);
}

/*
 * Without SO_PASSRIGHTS: refuse what comes from now on (a send to a
 * socket shut for reading fails, EPIPE, and the check and the queueing
 * take the same lock) and take what came, each descriptor to the thread,
 * made harmless there (defuse()).  An empty record reads as 0, as the end
 * does: with SO_PASSCRED each record, an empty one too, comes with the
 * sender's credentials, and a read with no control data at all is the
 * end.  A pending error (ECONNRESET: the client hung up with an answer
 * unread) is reported once, by the first read.  Drained to the end, the
 * socket is closed here; otherwise it goes to the thread too, charged to
 * its owner until closed, and whatever is left in it is released there.
 * A record that carried descriptors ends the drain as well: up to 4096
 * of them, 253 descriptors each, were all taken in the loop (40 ms for
 * 70 of them, and the daemon's descriptors gone for everyone).
 */
#define DRAIN_MAX 4096		/* records; a client's send buffer holds fewer */

static bool drained(int fd, uid_t owner)
{
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(CTL_FDS * sizeof(int)) +
		       CMSG_SPACE(sizeof(struct ucred))];
	} cbuf;
	char junk[64] = { 0 };	/* only received into */
	int one = 1, errors = 0;

	if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof(one)))
		return false;
	for (int i = 0; i < DRAIN_MAX; i++) {
		struct iovec iov = { junk, sizeof(junk) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
				     .msg_control = cbuf.b,
				     .msg_controllen = sizeof(cbuf.b) };
		unsigned n;
		ssize_t got = closer_recv(fd, owner, &mh, &n);

		if (got == 0 && mh.msg_controllen == 0)
			return true;
		if ((got < 0 && ++errors > 1) || n)
			return false;	/* descriptors: the rest to the thread */
	}
	return false;
}

/* The end of a socket that owner's client can write to, to the thread. */
static void hand_over(int fd, uid_t owner)
{
	/* The client sees its end now, not when the thread gets to it. */
	shutdown(fd, SHUT_WR);
	if (queue_job(fd, owner)) {
		if (charge && owner != (uid_t)-1)
			charge(charge_ctx, owner, 1);
	} else {
		close(fd);	/* no memory: as before the thread */
	}
}

/* A socket's end: read to its end first (drain), or not. */
static void close_socket(int fd, uid_t owner, bool drain)
{
	if (fd < 0)
		return;
	if (!threaded) {
		close(fd);
		return;
	}
	shutdown(fd, SHUT_RD);
	if (drain && drained(fd, owner)) {
		close(fd);
		return;
	}
	hand_over(fd, owner);
}

void closer_close_socket(int fd, uid_t owner)
{
	close_socket(fd, owner, true);
}

void closer_close_as_is(int fd, uid_t owner)
{
	close_socket(fd, owner, false);
}

void closer_charge(void (*fn)(void *ctx, uid_t owner, int n), void *ctx)
{
	charge = fn;
	charge_ctx = ctx;
}

void closer_collect(void)
{
	if (!threaded)
		return;
	pthread_mutex_lock(&lock);
	while (done.len) {
		struct job j = pop(&done);

		if (j.owner != (uid_t)-1 && charge)
			charge(charge_ctx, j.owner, -1);
	}
	pthread_mutex_unlock(&lock);
}

/*
 * A socket with SO_LINGER and unacknowledged data (a TCP connection whose
 * peer does not read) makes its last close wait: made an abortive close
 * (linger 0: a reset), it returns at once.  The thread still closes it,
 * since other kinds of files can block on close too (a FUSE file).
 */
static void defuse(int fd)
{
	struct linger now = { 1, 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &now, sizeof(now));
}

struct pass {
	uid_t owner;
	unsigned any;
};

/* One descriptor a client passed: to the thread, charged to its owner. */
static void pass_one(int f, unsigned i, void *arg)
{
	struct pass *p = arg;

	defuse(f);
	if (!threaded)
		close(f);	/* cannot be: the kernel refuses */
	else if (queue_job(f, p->owner) && charge && p->owner != (uid_t)-1)
		charge(charge_ctx, p->owner, 1);
	p->any += threaded;
}

/* Every descriptor in the message's control data, to the thread,
 * charged to owner: how many. */
static unsigned pass_on(struct msghdr *mh, uid_t owner)
{
	struct pass p = { .owner = owner };

	wire_rights_each(mh, pass_one, &p, NULL);
	return p.any;
}

ssize_t closer_recv(int fd, uid_t owner, struct msghdr *mh, unsigned *passed)
{
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(CTL_FDS * sizeof(int)) +
		       CMSG_SPACE(sizeof(struct ucred))];
	} cbuf;
	ssize_t n;

	*passed = 0;
	if (!mh->msg_control) {
		mh->msg_control = cbuf.b;
		mh->msg_controllen = sizeof(cbuf.b);
	}
	n = recvmsg(fd, mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n >= 0 && mh->msg_controllen)
		*passed = pass_on(mh, owner);
	if (n >= 0 && (mh->msg_flags & MSG_CTRUNC) && !*passed)
		*passed = 1;	/* more than fit: cannot be (SCM_MAX_FD) */
	if (mh->msg_control == cbuf.b) {
		mh->msg_control = NULL;
		mh->msg_controllen = 0;
	}
	return n;
}
