/* SPDX-License-Identifier: ISC */
#include "lib/call.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "lib/clock.h"
#include "lib/fdcheck.h"
#include "lib/sys.h"
#include "wire/decode.h"
#include "wire/rights.h"

/*
 * How long the daemon may take to take a request and answer it.
 * pingsockd answers each request at once, but for a send it makes wait
 * for the rate (a blocking send waits as long as that takes, as the
 * kernel's waits for room); an impostor at the socket path could
 * otherwise hold socket(), close() or a MSG_DONTWAIT send for ever, and
 * every fork() of the program behind the locks taken meanwhile.  The
 * receive and send timeouts bound each wait, connect()'s included
 * (a listener that never accepts).
 */
#define CALL_TIMEOUT_S 10

static int set_timeouts(int fd)
{
	struct timeval tv = { .tv_sec = CALL_TIMEOUT_S };

	if (sys_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) ||
	    sys_setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)))
		return -errno;
	return 0;
}

int call_connect(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	size_t n = strlen(path);
	int fd, rc;

	if (n >= sizeof(sun.sun_path))
		return -ENAMETOOLONG;
	memcpy(sun.sun_path, path, n + 1);
	fd = sys_socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	rc = set_timeouts(fd);
	if (rc) {
		sys_close(fd);
		return rc;
	}
	if (sys_connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		/* EAGAIN: the listener took no connection in the time
		 * allowed (its queue full): as good as refused (socket()
		 * never says EAGAIN). */
		rc = errno == EAGAIN ? -ECONNREFUSED : -errno;
		sys_close(fd);
		return rc;
	}
	return fd;
}

int call_hello(int fd, const uint8_t *token, uint8_t *token_out,
	       uint32_t *ans_slot, int *arena_fd)
{
	struct wire_req hello = { .type = WIRE_HELLO,
				  .u.version = WIRE_VERSION };
	uint8_t body[WIRE_NONCE_LEN + 4];
	int fds[CALL_MAX_FDS];
	size_t len = sizeof(body);
	int rc;

	memcpy(hello.nonce, token, WIRE_NONCE_LEN);
	rc = call_exchange(fd, &hello, NULL, 0, body, &len, fds);
	*ans_slot = 0;
	if (rc >= 0) {	/* the row's length, checked (ans_hello) */
		memcpy(token_out, body, WIRE_NONCE_LEN);
		memcpy(ans_slot, body + WIRE_NONCE_LEN, 4);
	}
	*arena_fd = rc >= 0 ? fds[0] : -1;
	for (int i = rc >= 0 ? 1 : 0; i < CALL_MAX_FDS; i++)
		fdcheck_discard(fds[i]);
	return rc;
}

/* A signal ends a wait for room (the send timeout), and each new one
 * would start it again: retried while the time allowed lasts. */
static int xsend(int fd, struct msghdr *mh)
{
	uint64_t until = clock_mono_ns() + (uint64_t)CALL_TIMEOUT_S *
					       1000000000u;
	ssize_t n;

	do {
		n = sys_sendmsg(fd, mh, MSG_NOSIGNAL);
	} while (n < 0 && errno == EINTR && clock_mono_ns() < until);
	return n < 0 ? -1 : 0;
}

/*
 * Wait for the answer.  The daemon answers a client in a tight loop
 * within microseconds, and going to sleep and being woken costs more than
 * that here (tens of microseconds on both sides), so such a client polls
 * without blocking for a short while first (bounded: CALL_SPIN_NS)
 * before sleeping.  Only such a client: spinning burns the processor the
 * daemon and everyone else need, and a process that calls now and then
 * (a ping every 200 ms; two thousand of them) would spin for every call,
 * so a process spins only if its last answer came less than
 * CALL_SPIN_RECENT_NS ago (measured: the 2,000 pings' processor time
 * less by a sixth).  And one thread of the process spins at a time
 * (CALL_SPINNERS); the others sleep at once: threads spinning side by
 * side take the processors the daemon needs to answer them (measured, 8
 * threads on 2 cores: 0.6x the rate of one thread).  Nor does a thread
 * spin while another of its process sleeps for an answer: the sleeper's
 * wake-up needs the processor the spinner holds (measured, 8 threads on
 * 2 cores: a quarter less processor time an echo, and no fewer echoes).
 * A count left raised in a child by a thread that was spinning or
 * sleeping across fork() only stops the child's spinning.
 */
#define CALL_SPIN_NS 50000
#define CALL_SPIN_RECENT_NS 1000000
#define CALL_SPINNERS 1
static atomic_uint spinners;
static atomic_uint sleepers;	/* threads asleep for their answers */
static _Atomic uint64_t last_answer_ns;	/* when the last answer came */

/* May this thread spin for an answer now (t0)?  If so, spin_end()
 * after. */
static bool spin_begin(uint64_t t0)
{
	if (t0 - atomic_load_explicit(&last_answer_ns, memory_order_relaxed) >=
	    CALL_SPIN_RECENT_NS)
		return false;
	if (atomic_fetch_add(&spinners, 1) < CALL_SPINNERS &&
	    atomic_load_explicit(&sleepers, memory_order_relaxed) == 0)
		return true;
	atomic_fetch_sub(&spinners, 1);
	return false;
}

static void spin_end(void)
{
	atomic_fetch_sub(&spinners, 1);
}

static bool spin_for(int fd, struct msghdr *mh, ssize_t *n, uint64_t t0)
{
	uint64_t until = t0 + CALL_SPIN_NS;
	bool got = false;

	if (!spin_begin(t0))
		return false;
	do {
		*n = sys_recvmsg(fd, mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		got = *n >= 0 || (errno != EAGAIN && errno != EINTR);
	} while (!got && clock_mono_ns() <= until);
	spin_end();
	return got;
}

static ssize_t answered(ssize_t n)
{
	atomic_store_explicit(&last_answer_ns, clock_mono_ns(),
			      memory_order_relaxed);
	return n;
}

/* Wait on: a timeout (EAGAIN) ends it, a signal (EINTR) not while the
 * time allowed lasts (signals do not restart a receive with a timeout,
 * and each new one would start it again). */
static bool wait_on(uint64_t until)
{
	return errno == EINTR && clock_mono_ns() < until;
}

/*
 * A blocking send's answer may be held back: pingsockd makes such a send
 * wait for the user's rate or min_interval, as the kernel's own send
 * waits for room in the socket's buffer.  The kernel ends that wait at
 * the socket's SO_SNDTIMEO (EAGAIN) and at a signal (EINTR); the library
 * used to wait for ever, so an impostor that never answered held send()
 * through Ctrl-C.  Now:
 *   - a signal (the receive's EINTR) ends the wait;
 *   - so does the program's SO_SNDTIMEO (read from its descriptor), but
 *     not before CALL_TIMEOUT_S, the channel's own timeout: nothing here
 *     tells a send held back from one a busy daemon has yet to answer,
 *     which the kernel's send would never fail.  (Waiting with the
 *     program's timeout, 200 ms for ping -i 0.2, gave up every send a
 *     busy daemon answered later than that: each a connection dropped
 *     and made again, more load and later answers.)
 * A wait that ends gives the send up: shutdown(SHUT_WR) tells the
 * daemon, which drops the send if it still holds it and closes the
 * connection, so that what comes next says whether it went: its answer
 * (it did, or it was not for this connection: see take_answer()), or
 * the end (it never will: EINTR or EAGAIN).  A daemon that says nothing
 * within CALL_GRACE_NS is taken to have dropped it (an impostor).  The
 * connection is then of no more use (cc->shut): its caller drops it.
 * The kernel restarts its send after an SA_RESTART handler, or a stop,
 * when the socket has no SO_SNDTIMEO; this one cannot tell those from
 * other signals (the channel has a timeout: EINTR for each), and gives a
 * send that the daemon held back up.  A signal that comes while the
 * library is not asleep in that receive (its spin, its writes) is not
 * seen: a window of microseconds that the kernel's send, which looks
 * before it sleeps, does not have.
 */
#define CALL_GRACE_NS 1000000000ull

/*
 * A send that waits as the kernel's blocking send would: no
 * MSG_DONTWAIT, and, for one that went without looking at O_NONBLOCK
 * (WIRE_RQ_ASK), not on a non-blocking socket.  A non-blocking send
 * never ends EINTR or EAGAIN, and waits for the daemon no longer than
 * CALL_TIMEOUT_S.  patient_known(): so far as the request says, without
 * a look (a send that asked is looked at only once its answer is late,
 * plain_recv()); patient(): with it.
 */
static bool patient_known(const struct wire_req *req)
{
	return req->type == WIRE_SEND && !(req->u.send.flags & MSG_DONTWAIT) &&
	       !(req->rqflags & WIRE_RQ_ASK);
}

static bool patient(const struct wire_req *req)
{
	int fl;

	if (req->type != WIRE_SEND || (req->u.send.flags & MSG_DONTWAIT))
		return false;
	if (!(req->rqflags & WIRE_RQ_ASK) || !req->u.send.timeo_fd)
		return true;
	fl = sys_fcntl(*req->u.send.timeo_fd, F_GETFL);
	return fl < 0 || !(fl & O_NONBLOCK);
}

/* The program's SO_SNDTIMEO on *tfd in microseconds: 0 for none, for
 * none that can be read, and for one past 30 years (as good as none). */
static uint64_t sndtimeo_us(const int *tfd)
{
	struct timeval tv = { 0 };
	socklen_t len = sizeof(tv);

	if (!tfd ||
	    sys_getsockopt(*tfd, SOL_SOCKET, SO_SNDTIMEO, &tv, &len) ||
	    len != sizeof(tv) || tv.tv_sec < 0 || tv.tv_sec > 1000000000 ||
	    tv.tv_usec < 0)
		return 0;
	return (uint64_t)tv.tv_sec * 1000000u + (uint64_t)tv.tv_usec;
}

/* The channel's receive timeout: us microseconds (0: none). */
static int set_rcvtimeo(int fd, uint64_t us)
{
	struct timeval tv = { .tv_sec = (time_t)(us / 1000000u),
			      .tv_usec = (suseconds_t)(us % 1000000u) };

	return sys_setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
}

void call_conn_init(struct call_conn *cc, const struct wire_shm *ans)
{
	cc->ans = ans;
	cc->ans_seq = 0;
	cc->timeo_us = (uint64_t)CALL_TIMEOUT_S * 1000000u;
	cc->shut = false;
	cc->why = 0;
}

int call_bound(int fd, struct call_conn *cc)
{
	uint64_t us = (uint64_t)CALL_TIMEOUT_S * 1000000u;

	if (cc->timeo_us == us)
		return 0;
	if (set_rcvtimeo(fd, us))
		return WIRE_R_BROKEN;
	cc->timeo_us = us;
	return 0;
}

/* An answer that is on its way, if it comes before until (poll(), then
 * a read that does not wait: signals meanwhile end nothing, the send's
 * fate is being settled), else -1 with errno EAGAIN; 0 at the end. */
static ssize_t recv_until(int fd, struct msghdr *mh, uint64_t until)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	for (;;) {
		ssize_t n = sys_recvmsg(fd, mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
		uint64_t now, ms;

		if (n >= 0 || (errno != EAGAIN && errno != EINTR))
			return n;
		now = clock_mono_ns();
		if (now >= until) {
			errno = EAGAIN;
			return -1;
		}
		ms = (until - now + 999999) / 1000000;
		(void)sys_poll(&p, 1, ms > INT_MAX ? INT_MAX : (int)ms);
	}
}

/* The wait given up (why: EINTR or EAGAIN), the send too: its answer if
 * it went after all, or -1 with errno why. */
static ssize_t give_up(int fd, struct msghdr *mh, struct call_conn *cc,
		       int why)
{
	ssize_t n;

	cc->shut = true;
	cc->why = why;
	(void)sys_shutdown(fd, SHUT_WR);
	n = recv_until(fd, mh, clock_mono_ns() + CALL_GRACE_NS);
	if (n > 0)
		return n;
	errno = why;
	return -1;
}

/* A blocking send's answer, waited for as above from t0: its length, or
 * -1 with errno EINTR or EAGAIN (given up, not sent), or the channel's
 * error.  err: how a first wait (CALL_TIMEOUT_S) already ended, or 0. */
static ssize_t patient_recv(int fd, struct msghdr *mh, const int *tfd,
			    struct call_conn *cc, uint64_t t0, int err)
{
	(void)call_bound(fd, cc);	/* CALL_TIMEOUT_S first */
	for (;;) {
		ssize_t n = err ? -1 : sys_recvmsg(fd, mh, MSG_CMSG_CLOEXEC);
		uint64_t timeo, used;

		if (err)
			errno = err;
		err = 0;

		if (n >= 0 || (errno != EINTR && errno != EAGAIN))
			return n;
		if (errno == EINTR)
			return give_up(fd, mh, cc, EINTR);
		/* CALL_TIMEOUT_S went by (or what was left of a longer
		 * SO_SNDTIMEO): none, wait on; its end, give up. */
		timeo = sndtimeo_us(tfd);
		used = (clock_mono_ns() - t0) / 1000u;
		if (timeo && timeo <= used)
			return give_up(fd, mh, cc, EAGAIN);
		if (timeo && set_rcvtimeo(fd, timeo - used) == 0)
			cc->timeo_us = timeo - used;
	}
}

/* Any other answer, waited for CALL_TIMEOUT_S from t0, signals meanwhile
 * ending nothing; a send that asked (WIRE_RQ_ASK) and finds, once that
 * wait ends without its answer, that its socket blocks, waits on as
 * patient_recv() does. */
static ssize_t plain_recv(int fd, struct msghdr *mh,
			  const struct wire_req *req, struct call_conn *cc,
			  uint64_t t0)
{
	uint64_t until = t0 + (uint64_t)CALL_TIMEOUT_S * 1000000000u;
	bool ask = cc && (req->rqflags & WIRE_RQ_ASK);
	ssize_t n;

	do {
		n = sys_recvmsg(fd, mh, MSG_CMSG_CLOEXEC);
		if (n < 0 && ask && (errno == EINTR || errno == EAGAIN)) {
			int err = errno;

			ask = false;	/* looked at once */
			if (patient(req))
				return patient_recv(fd, mh,
						    req->u.send.timeo_fd, cc,
						    t0, err);
			errno = err;
		}
	} while (n < 0 && wait_on(until));
	return n;
}

/* A client that does not spin sleeps at once: a look without waiting
 * first would find nothing (the daemon has yet to be scheduled) at the
 * cost of one more system call for every call (measured: 194 of 200
 * pings' sends).  Only a blocking send's answer (patient_recv()) is
 * waited for past CALL_TIMEOUT_S. */
static ssize_t xrecv(int fd, struct msghdr *mh, const struct wire_req *req,
		     struct call_conn *cc)
{
	uint64_t t0 = clock_mono_ns();
	ssize_t n;
	int err;

	if (spin_for(fd, mh, &n, t0))
		return answered(n);
	atomic_fetch_add_explicit(&sleepers, 1, memory_order_relaxed);
	if (cc && patient_known(req))
		n = patient_recv(fd, mh, req->u.send.timeo_fd, cc, t0, 0);
	else
		n = plain_recv(fd, mh, req, cc, t0);
	err = errno;	/* why it failed: take_answer() tells the caller */
	atomic_fetch_sub_explicit(&sleepers, 1, memory_order_relaxed);
	n = answered(n);
	errno = err;
	return n;
}

/* The descriptors that came with an answer, in order: the first
 * CALL_MAX_FDS + 1 kept (one too many says "too many"), the rest closed. */
struct got_fds {
	int fd[CALL_MAX_FDS + 1];
};

static void keep_fd(int fd, unsigned i, void *arg)
{
	struct got_fds *g = arg;

	if (i < CALL_MAX_FDS + 1)
		g->fd[i] = fd;
	else
		fdcheck_discard(fd);
}

/*
 * Is this the answer req must get (wire_check_answer()), with exactly
 * the descriptors it promises, each of its kind?
 */
static bool answer_ok(int fd, const struct wire_req *req,
		      const uint8_t *resp, ssize_t got, const struct msghdr *mh,
		      const struct got_fds *g, unsigned nfds,
		      struct wire_answer *ans)
{
	uid_t listener = FDCHECK_UNMAPPED;

	if (got < 0 || (mh->msg_flags & (MSG_TRUNC | MSG_CTRUNC)) ||
	    wire_check_answer(req, resp, (size_t)got, ans) ||
	    nfds != ans->nfds)
		return false;
	for (unsigned i = 0; i < nfds; i++) {
		if (!fdcheck_kind(g->fd[i], ans->fd_kind[i], ans->fd_family))
			return false;
		/* A pair the daemon made (a socket's data or liveness
		 * descriptor), not an impostor's connection to a third
		 * party, which the library would write its proof to, with
		 * the program's credentials.  (A listener's uid unmapped
		 * here tells nothing: taken as before.) */
		if (ans->fd_kind[i] == WIRE_FD_SEQPACKET &&
		    (!fdcheck_maker(fd, &listener) ||
		     !fdcheck_pair_of(listener, g->fd[i], true)))
			return false;
	}
	return true;
}

/*
 * Read and check the answer to req: its body into body (at most
 * *bodylen bytes: a longer one is malformed), its descriptors into
 * fd_out.  The result, WIRE_R_BROKEN or WIRE_R_MALFORMED, or for a
 * blocking send on cc's connection CALL_R_INTR or CALL_R_TIMEDOUT.
 */
static int take_answer(int fd, const struct wire_req *req, void *body,
		       size_t *bodylen, int *fd_out, struct call_conn *cc)
{
	uint8_t resp[WIRE_RESP_HDR + WIRE_RESP_BODY_MAX];
	/* Room for every descriptor a message can carry: those that did
	 * not fit would be released by the kernel in this thread, and
	 * their sender can make that wait (fdcheck_discard()). */
	union wire_rights_all_buf cbuf;
	struct iovec iov = { .iov_base = resp, .iov_len = sizeof(resp) };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1,
			     .msg_control = cbuf.b,
			     .msg_controllen = sizeof(cbuf.b) };
	struct wire_answer ans;
	struct got_fds g;
	ssize_t got = xrecv(fd, &mh, req, cc);
	unsigned nfds;
	bool other;

	if (got < 0 && cc && (errno == EINTR || errno == EAGAIN)) {
		int why = errno;

		if (patient(req))
			return why == EINTR ? CALL_R_INTR : CALL_R_TIMEDOUT;
	}
	if (got < 0)
		return WIRE_R_BROKEN;
	nfds = wire_rights_each(&mh, keep_fd, &g, &other);
	if (other || !answer_ok(fd, req, resp, got, &mh, &g, nfds, &ans) ||
	    (body && bodylen && ans.len > *bodylen)) {
		for (unsigned i = 0; i < nfds && i <= CALL_MAX_FDS; i++)
			fdcheck_discard(g.fd[i]);
		return got == 0 && nfds == 0 && !other ? WIRE_R_BROKEN
						       : WIRE_R_MALFORMED;
	}
	if (body && bodylen) {
		memcpy(body, ans.body, ans.len);
		*bodylen = ans.len;
	}
	for (unsigned i = 0; i < nfds; i++) {
		if (fd_out)
			fd_out[i] = g.fd[i];
		else
			fdcheck_discard(g.fd[i]);
	}
	/* Given up, and answered "not attached here" (a new connection):
	 * nothing was sent, and the connection is shut for the attach. */
	if (cc && cc->shut && ans.result == WIRE_R_UNATTACHED)
		return cc->why == EINTR ? CALL_R_INTR : CALL_R_TIMEDOUT;
	return ans.result;
}

/* A spinning thread's pause: the other hardware thread of its core
 * gets on meanwhile. */
static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ __volatile__("yield");
#endif
}

/* Send req, with the header's flags rqflags, and its data: 0, -EINVAL
 * (it cannot be encoded), -EFAULT (data cannot be read) or
 * WIRE_R_BROKEN.  A WIRE_SEND's name and control data are gathered
 * from where the caller has them (wire_encode_send_parts()), as its data
 * is: the program's memory, read by the kernel only.  No request
 * carries a descriptor (the daemon refuses them, wire.h). */
static int put_request(int fd, const struct wire_req *req, uint16_t rqflags,
		       const struct iovec *data, int ndata)
{
	uint8_t hdr[WIRE_REQ_HDR + 64 + WIRE_ADDR_MAX + WIRE_OPTVAL_MAX +
		    WIRE_CTL_MAX];
	struct iovec iov[4 + CALL_MAX_DATA];
	struct msghdr mh = { .msg_iov = iov };
	size_t head = 1;
	long n;

	if (req->type == WIRE_SEND) {
		n = wire_encode_send_parts(req, rqflags, hdr, sizeof(hdr), iov);
		head = 4;
	} else {
		n = wire_encode_req_as(req, rqflags, hdr, sizeof(hdr));
		iov[0].iov_base = hdr;
		iov[0].iov_len = (size_t)n;
	}
	if (n < 0 || ndata < 0 || ndata > CALL_MAX_DATA)
		return -EINVAL;
	for (int i = 0; i < ndata; i++)
		iov[head + (size_t)i] = data[i];
	mh.msg_iovlen = head + (size_t)ndata;
	if (xsend(fd, &mh) == 0)
		return 0;
	/* A buffer of the program's that cannot be read: the kernel copies
	 * the whole message before it queues it (unix_dgram_sendmsg()), so
	 * nothing went and the channel is whole; the call fails as the
	 * kernel's own would. */
	return errno == EFAULT ? -EFAULT : WIRE_R_BROKEN;
}

int call_exchange(int fd, const struct wire_req *req,
		  const struct iovec *data, int ndata, void *body,
		  size_t *bodylen, int *fd_out)
{
	int rc;

	for (int i = 0; fd_out && i < CALL_MAX_FDS; i++)
		fd_out[i] = -1;
	rc = put_request(fd, req, req->rqflags, data, ndata);
	return rc ? rc : take_answer(fd, req, body, bodylen, fd_out, NULL);
}

/*
 * Wait (spinning, up to CALL_SPIN_NS from t0) for the answer numbered
 * seq in the answer slot: false if none came in time.  Else *rc is the
 * result, checked as the channel's answer would be (an 8-byte answer of
 * req's type), or WIRE_R_MALFORMED for one no pingsockd gives.
 */
static bool slot_answer(const struct wire_req *req, const struct wire_shm *ans,
			uint32_t seq, uint64_t t0, int *rc)
{
	uint8_t msg[WIRE_RESP_HDR] = { 0 };
	struct wire_answer a;
	uint32_t tries = 0;
	int32_t result;

	while (atomic_load_explicit(&ans->ans_seq, memory_order_acquire) !=
	       seq) {
		/* The clock now and then: a read of memory is far cheaper. */
		if (++tries % 64 == 0 && clock_mono_ns() > t0 + CALL_SPIN_NS)
			return false;
		cpu_relax();
	}
	result = atomic_load_explicit(&ans->ans_result, memory_order_relaxed);
	memcpy(msg, &req->type, 2);
	memcpy(msg + 4, &result, 4);
	*rc = wire_check_answer(req, msg, sizeof(msg), &a) ? WIRE_R_MALFORMED
							  : a.result;
	(void)answered(0);
	return true;
}

int call_send(int fd, const struct wire_req *req, const struct iovec *data,
	      int ndata, struct call_conn *cc)
{
	static const struct wire_req wait = { .type = WIRE_WAIT };
	uint64_t t0 = clock_mono_ns();
	bool got;
	int rc = 0, got_rc;

	/* patient_recv() bounds the channel itself, first. */
	if (!patient_known(req))
		rc = call_bound(fd, cc);
	if (rc)
		return rc;
	if (!cc->ans || req->type != WIRE_SEND || !spin_begin(t0)) {
		rc = put_request(fd, req, req->rqflags, data, ndata);
		return rc ? rc : take_answer(fd, req, NULL, NULL, NULL, cc);
	}
	rc = put_request(fd, req, req->rqflags | WIRE_RQ_SLOT, data, ndata);
	if (rc) {
		spin_end();
		return rc;
	}
	if (++cc->ans_seq == 0)
		cc->ans_seq = 1;	/* never 0: a slot given back reads 0 */
	got = slot_answer(req, cc->ans, cc->ans_seq, t0, &rc);
	spin_end();
	if (got)
		return rc;
	/* Not yet (a send made to wait, a busy daemon): on the channel. */
	rc = put_request(fd, &wait, 0, NULL, 0);
	if (rc == 0)
		rc = take_answer(fd, req, NULL, NULL, NULL, cc);
	/* Given up: but the daemon may have answered in the slot and not
	 * yet the WIRE_WAIT (the send went; "not attached here" says it
	 * did not: take_answer()). */
	if ((rc == CALL_R_INTR || rc == CALL_R_TIMEDOUT) &&
	    slot_answer(req, cc->ans, cc->ans_seq, 0, &got_rc) &&
	    got_rc != WIRE_R_UNATTACHED)
		return got_rc;
	return rc;
}
