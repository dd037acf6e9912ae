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
static int *queue;		/* descriptors to close, FIFO */
static size_t qhead, qlen, qcap;
static bool stopping;

static int take(void)
{
	int fd = -1;

	pthread_mutex_lock(&lock);
	while (!qlen && !stopping)
		pthread_cond_wait(&more, &lock);
	if (qlen) {
		fd = queue[qhead];
		qhead = (qhead + 1) % qcap;
		qlen--;
	}
	pthread_mutex_unlock(&lock);
	return fd;
}

/* The thread: close what is queued, in order, until stopped and empty. */
static void *run(void *arg)
{
	int fd;

	(void)arg;
	pthread_mutex_lock(&lock);
	running = true;
	pthread_cond_signal(&up);
	pthread_mutex_unlock(&lock);
	while ((fd = take()) >= 0)
		close(fd);
	return NULL;
}

/* A ring that grows: a blocked close must not lose what queues behind. */
static int put(int fd)
{
	if (qlen == qcap) {
		size_t nc = qcap ? qcap * 2 : 64;
		int *q = malloc(nc * sizeof(*q));

		if (!q)
			return -1;
		for (size_t i = 0; i < qlen; i++)
			q[i] = queue[(qhead + i) % qcap];
		free(queue);
		queue = q;
		qcap = nc;
		qhead = 0;
	}
	queue[(qhead + qlen) % qcap] = fd;
	qlen++;
	return 0;
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
	free(queue);
	queue = NULL;
	qhead = qlen = qcap = 0;
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

void closer_close(int fd)
{
	int queued;

	if (fd < 0)
		return;
	if (!threaded) {
		close(fd);
		return;
	}
	pthread_mutex_lock(&lock);
	queued = put(fd) == 0;
	if (queued)
		pthread_cond_signal(&more);
	pthread_mutex_unlock(&lock);
	if (!queued)
		log_warn("closer: no memory to queue descriptor %d: kept", fd);
}

/* Every descriptor in the message's control data, to the closer. */
static bool pass_on(struct msghdr *mh)
{
	bool any = false;

	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm;
	     cm = CMSG_NXTHDR(mh, cm)) {
		size_t n;

		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		n = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < n; i++) {
			int f;

			memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
			closer_close(f);
			any = true;
		}
	}
	return any;
}

ssize_t closer_recv(int fd, struct msghdr *mh, bool *passed)
{
	union {
		struct cmsghdr align;
		char b[CMSG_SPACE(CTL_FDS * sizeof(int))];
	} cbuf;
	ssize_t n;

	*passed = false;
	if (!mh->msg_control) {
		mh->msg_control = cbuf.b;
		mh->msg_controllen = sizeof(cbuf.b);
	}
	n = recvmsg(fd, mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	if (n >= 0 && mh->msg_controllen)
		*passed = pass_on(mh);
	if (n >= 0 && (mh->msg_flags & MSG_CTRUNC))
		*passed = true;	/* more than fit: closed by the kernel */
	if (mh->msg_control == cbuf.b) {
		mh->msg_control = NULL;
		mh->msg_controllen = 0;
	}
	return n;
}
