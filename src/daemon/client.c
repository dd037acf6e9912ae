/* SPDX-License-Identifier: ISC */
/*
 * client - the control connections, one per client process: accepting
 * them (credentials, network namespace, the user's share), reading one
 * request at a time, answering it (ops.c runs it) on the channel or, for
 * a send that asks, in the connection's answer slot of its arena (wire.h:
 * WIRE_RQ_SLOT, WIRE_WAIT), and the send that waits for its time (rate,
 * min_interval: a timer; the client is not read meanwhile).  A client
 * that sends garbage or does not read its answers is disconnected; the
 * daemon goes on.
 */
#include "daemon/srv.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include "daemon/arena.h"
#include "daemon/closer.h"
#include "daemon/log.h"
#include "daemon/share.h"
#include "wire/rights.h"

/* A client waits for each answer, so a second read right after one
 * request would almost always find nothing: take one request per event
 * (epoll is level-triggered and reports the rest). */
#define MAX_REQS_PER_WAKE 1
#define MAX_GROUPS 65536
#define ACCEPT_PAUSE_NS 100000000u	/* after EMFILE from accept */
#ifndef SO_NETNS_COOKIE
#define SO_NETNS_COOKIE 71	/* Linux 5.14 */
#endif

static void on_client(void *data, uint32_t events);

static int send_reply(struct client *c, uint16_t type, const struct reply *r)
{
	uint8_t hdr[WIRE_RESP_HDR];
	uint16_t zero = 0;
	struct iovec iov[2] = {
		{ .iov_base = hdr, .iov_len = sizeof(hdr) },
		{ .iov_base = (void *)(r->ext ? r->ext : r->body),
		  .iov_len = r->len },
	};
	union wire_rights_buf cbuf;
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = 2 };
	int fds[WIRE_RIGHTS_MAX];
	unsigned nfds = 0;

	memcpy(hdr, &type, 2);
	memcpy(hdr + 2, &zero, 2);
	memcpy(hdr + 4, &r->result, 4);
	/* In the order the request type's row says (wire/types.c). */
	if (r->fd >= 0)
		fds[nfds++] = r->fd;
	if (r->fd2 >= 0)
		fds[nfds++] = r->fd2;
	wire_rights_pack(&mh, &cbuf, fds, nfds);
	/* A client waits for each answer: a full queue means it is not
	 * following the protocol. */
	return sendmsg(c->fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) < 0 ? -1 : 0;
}

/*
 * A send's answer in the connection's answer slot (wire.h: the result,
 * then the count with release, so that a client that sees the count
 * sees the result), kept for a WIRE_WAIT.
 */
static void answer_in_slot(struct client *c, int32_t result)
{
	struct wire_shm *w = arena_slot(c->arena, c->ans_slot);

	if (++c->ans_seq == 0)
		c->ans_seq = 1;
	atomic_store_explicit(&w->ans_result, result, memory_order_relaxed);
	atomic_store_explicit(&w->ans_seq, c->ans_seq, memory_order_release);
	c->ans_last = result;
	c->ans_waitable = true;
}

/* A waiting send is due, in its user's turn: send it, answer, read that
 * client again. */
static void send_parked(struct server *s, struct client *c)
{
	struct parked *p = c->park;
	struct reply r = { .fd = -1, .fd2 = -1 };
	struct ssock *ss = ssock_get(s, p->handle);

	/* Its socket may have gone meanwhile, and its handle be another's
	 * now (its serial says so). */
	bool live = ss && ss->serial == p->serial;

	r.result = live ? ops_finish_send(s, ss, &p->info, p->pkt, p->len)
			: -EBADF;
	c->park = NULL;
	c->park_due = false;
	ops_unpark(s, p, live);
	loop_group_change(c->grp, c->fd, EPOLLIN, &c->h);
	if (c->park_slot)
		answer_in_slot(c, r.result);
	else if (send_reply(c, WIRE_SEND, &r))
		client_free(s, c);
}

/*
 * Its time came.  Not sent from the timer: the timers due are all run at
 * once, outside every user's share of the loop, and sends of one period
 * come due together the next (min_interval): one user's 3,000 waiting
 * sends went in one go, 512 of them in 37 ms, and other users' requests
 * waited behind them (p99 2 ms, max 16 ms).  The connection is made
 * ready instead (EPOLLOUT: it has room for the answer, as it waits for
 * nothing else), and its user's group serves it in its turn.
 */
static void fire_parked(void *data)
{
	struct client *c = data;

	c->park_due = true;
	if (loop_group_change(c->grp, c->fd, EPOLLOUT | EPOLLRDHUP, &c->h))
		send_parked(c->srv, c);
}

/* The client waits for its answer: not read until the send goes, but
 * watched for its shutdown(SHUT_WR), which gives the send up (a signal
 * or its SO_SNDTIMEO ended the program's wait: lib/call.c).  The send
 * is then dropped and the connection closed, so that the client reads
 * either its answer (the send went first) or the end (it never will):
 * this loop orders the two, and the client knows which. */
static int park(struct server *s, struct client *c, struct parked *p)
{
	c->park = p;
	c->park_timer.proc = fire_parked;
	c->park_timer.data = c;
	if (loop_at(s->loop, &c->park_timer, p->due_ns) ||
	    loop_group_change(c->grp, c->fd, EPOLLRDHUP, &c->h)) {
		loop_cancel(s->loop, &c->park_timer);
		c->park = NULL;
		return -1;
	}
	return 0;
}

/* How a request went: answered (or parked), or the client must go. */
enum dispatch_rc {
	DISPATCH_DONE = 0,
	DISPATCH_REFUSED,	/* for what it asked (ops_run()) */
	DISPATCH_STUCK,		/* its answer could not be queued */
};

/* The answer slot's protocol (wire.h): WIRE_RQ_SLOT only on a
 * connection that has a slot, WIRE_WAIT only after such a send, once. */
static bool slot_in_turn(const struct client *c, const struct wire_req *req)
{
	if ((req->rqflags & WIRE_RQ_SLOT) && !c->ans_slot)
		return false;
	return req->type != WIRE_WAIT || c->ans_waitable;
}

/* HELLO's answer, after the token: the connection's answer slot, none
 * (0) if the arena is full (its sends are then answered on the
 * channel). */
static void give_answer_slot(struct client *c, struct reply *r)
{
	c->ans_slot = arena_slot_take(c->arena, NULL, 0);
	memcpy(r->body + r->len, &c->ans_slot, 4);
	r->len += 4;
}

/* WIRE_WAIT: the last send answered in the slot, answered again on the
 * channel as that send. */
static enum dispatch_rc answer_wait(struct client *c)
{
	struct reply r = { .result = c->ans_last, .fd = -1, .fd2 = -1 };

	c->ans_waitable = false;
	return send_reply(c, WIRE_SEND, &r) ? DISPATCH_STUCK : DISPATCH_DONE;
}

/* Run a decoded request and answer it (or park it). */
static enum dispatch_rc dispatch(struct server *s, struct client *c,
				 const struct wire_req *req)
{
	struct reply r = { .fd = -1, .fd2 = -1 };
	bool in_slot = req->rqflags & WIRE_RQ_SLOT;  /* slot_in_turn() checks */
	enum dispatch_rc rc;

	if (!slot_in_turn(c, req))
		return DISPATCH_REFUSED;
	if (req->type == WIRE_WAIT)
		return answer_wait(c);
	if (ops_run(s, c, req, &r))
		return DISPATCH_REFUSED;
	if (req->type == WIRE_HELLO && r.result == 0)
		give_answer_slot(c, &r);
	c->park_slot = in_slot;
	if (r.park && park(s, c, r.park) == 0)
		return DISPATCH_DONE;
	if (r.park) {
		ops_unpark(s, r.park, false);
		r.result = -ENOBUFS;
	}
	rc = DISPATCH_DONE;
	if (in_slot)
		answer_in_slot(c, r.result);
	else if (send_reply(c, req->type, &r))
		rc = DISPATCH_STUCK;
	if (r.fd >= 0)
		close(r.fd);
	if (r.fd2 >= 0)
		close(r.fd2);
	return rc;
}

/* A connection of uid's is gone: its place and descriptor given back,
 * and its user's group's if it was the last (grp: it had a share). */
static void conn_release(struct server *s, uid_t uid, bool grp)
{
	struct uident *u = uidtab_get(s->uids, uid, false);
	int fds = FDS_CONN + (grp && share_put(s->shares, uid) ? 1 : 0);

	if (u) {
		u->conns -= u->conns ? 1 : 0;
		uidtab_add(s->uids, u, UID_FDS, -fds);
	}
}

void client_free(struct server *s, struct client *c)
{
	loop_cancel(s->loop, &c->park_timer);
	ops_unpark(s, c->park, false);
	while (c->nsocks)
		ssock_unlink(c, c->socks[0]);
	free(c->socks);
	if (c->ans_slot)
		arena_slot_give(s->arenas, c->arena, c->ans_slot);
	sstate_linger(s, c->arena);
	arena_put(s->arenas, c->arena);
	free(c->groups);
	if (s->clients == c)
		s->clients = c->next;
	else if (c->prev)
		c->prev->next = c->next;
	if (c->next)
		c->next->prev = c->prev;
	s->nclients--;
	loop_group_forget(c->grp, c->fd, &c->h);
	conn_release(s, c->uid, true);
	closer_close_socket(c->fd, c->uid);	/* and what it queued */
	free(c);
}

static void protocol_error(struct server *s, struct client *c, const char *why)
{
	s->stats.proto_errors++;
	log_limited_user(uidtab_get(s->uids, c->uid, false), LOGC_PROTOCOL,
			 LOG_WARNING, "disconnecting uid=%u pid=%d: %s",
			 (unsigned)c->uid, (int)c->pid, why);
	client_free(s, c);
}

static void on_client(void *data, uint32_t events)
{
	struct client *c = data;
	struct server *s = c->srv;

	/* A client whose send is parked is not read (park() asks for its
	 * shutdown alone, and for EPOLLOUT once the send is due:
	 * fire_parked()), but epoll reports its hang-up all the same: it is
	 * gone, and its send with it.  Reading on would take its next request
	 * and park that one over the first, which would leak.  Any other
	 * client that hung up is gone too: what it left unread no caller
	 * waits for (each waits for its answer), and a send answered in
	 * the slot would not fail to tell us so, as a written answer does. */
	if ((events & (EPOLLHUP | EPOLLERR | EPOLLRDHUP)) ||
	    (c->park && !c->park_due)) {
		client_free(s, c);
		return;
	}
	if (c->park) {
		send_parked(s, c);
		return;
	}
	for (int i = 0; i < MAX_REQS_PER_WAKE; i++) {
		struct iovec iov = { .iov_base = s->reqbuf,
				     .iov_len = WIRE_MSG_MAX };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		struct wire_req req;
		unsigned passed;
		ssize_t n = closer_recv(c->fd, c->uid, &mh, &passed);
		enum dispatch_rc rc;

		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			return;
		if (n <= 0) {
			client_free(s, c);	/* gone */
			return;
		}
		/* No request carries a descriptor (wire.h). */
		if (passed || (mh.msg_flags & MSG_TRUNC) ||
		    wire_decode_req(s->reqbuf, (size_t)n, &req)) {
			protocol_error(s, c, passed ? "passed a descriptor"
						    : "malformed request");
			return;
		}
		rc = dispatch(s, c, &req);
		if (rc != DISPATCH_DONE) {
			protocol_error(s, c, rc == DISPATCH_STUCK
				       ? "not reading its answers"
				       : c->foreign ? "another network namespace"
				       : req.type < WIRE_TYPE_END && c->hello
				       ? "request not allowed now" : "bad request");
			return;
		}
	}
	(void)events;
}

/* SO_PEERGROUPS, growing the buffer until it fits. */
static int peer_groups(int fd, struct client *c)
{
	socklen_t len = 64 * sizeof(gid_t);

	for (;;) {
		gid_t *g = realloc(c->groups, len ? len : sizeof(gid_t));

		if (!g)
			return -1;
		c->groups = g;
		if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, g, &len) == 0) {
			c->ngroups = len / sizeof(gid_t);
			return 0;
		}
		if (errno != ERANGE || len > MAX_GROUPS * sizeof(gid_t))
			return -1;
	}
}

/*
 * The network namespace the client's socket was made in (the accepted
 * end is made in the connecting socket's): a cookie the client cannot
 * choose.  Unknown is foreign (fail closed).
 */
static bool foreign_ns(const struct server *s, int fd)
{
	uint64_t cookie = 0;
	socklen_t len = sizeof(cookie);

	return getsockopt(fd, SOL_SOCKET, SO_NETNS_COOKIE, &cookie, &len) ||
	       cookie != s->netns;
}

/* The user's connections past max_connections, or the descriptors short
 * and this user holding the most: refused (closed at once). */
static bool conn_refused(struct server *s, const struct client *c)
{
	struct uident *u = uidtab_get(s->uids, c->uid, true);
	uint32_t max = s->conf.policy.max_connections;

	if (u && (!max || u->conns < max) &&
	    uidtab_may_take(s->uids, u, UID_FDS, FDS_CONN, s->fd_budget)) {
		u->conns++;
		uidtab_add(s->uids, u, UID_FDS, FDS_CONN);
		return false;
	}
	s->stats.refused++;
	if (u)
		u->refused++;
	log_limited_user(u, LOGC_REFUSED, LOG_INFO, "refused connection: "
			 "uid=%u pid=%d: %s", (unsigned)c->uid, (int)c->pid,
			 !u ? "no memory" : max && u->conns >= max
			 ? "max_connections" : "the daemon's descriptors are "
			 "short and this user holds the most");
	return true;
}

/* Watch a new connection in its user's group.  0 or -1. */
static int share_in(struct server *s, struct client *c)
{
	struct uident *u;
	bool made;

	c->grp = share_get(s->shares, c->uid, &made);
	if (!c->grp)
		return -1;
	u = uidtab_get(s->uids, c->uid, false);
	if (made && u)
		uidtab_add(s->uids, u, UID_FDS, 1);	/* the group's */
	return loop_group_watch(c->grp, c->fd, EPOLLIN, &c->h);
}

/*
 * A user's new connections: CONN_BURST at once, then CONN_RATE a second.
 * The listener's queue is one for all users, and each connection costs
 * the loop its set-up and its end: one process dialling and hanging up
 * in a loop held every other user's requests back (a ping's round trip
 * 0.12 -> 1.5 ms, socket() 0.17 -> 3.9 ms, up to 110 ms).  Past it a
 * connection is closed at once, before the rest of the set-up.  (2,000
 * pings started at once need 2,000.)
 */
#define CONN_RATE 1000
#define CONN_BURST 4096

static bool dial_refused(struct server *s, uid_t uid)
{
	struct uident *u = uidtab_get(s->uids, uid, true);
	uint64_t now = loop_now_ns();

	if (!u || rate_wait(&u->dials, now, CONN_RATE, CONN_BURST)) {
		s->stats.refused++;
		if (u)
			u->refused++;
		log_limited_user(u, LOGC_REFUSED, LOG_INFO, "refused "
				 "connection: uid=%u: more than %u new "
				 "connections a second", (unsigned)uid,
				 CONN_RATE);
		return true;
	}
	rate_take(&u->dials, now, CONN_RATE, CONN_BURST);
	return false;
}

/* A new connection: its credentials, its namespace, the user's share. */
static struct client *client_new(struct server *s, int fd)
{
	struct client *c = calloc(1, sizeof(*c));
	struct ucred cred;
	socklen_t clen = sizeof(cred);
	bool cred_ok = c && getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred,
				       &clen) == 0;

	if (cred_ok && dial_refused(s, cred.uid)) {
		c->uid = cred.uid;
		goto fail;
	}
	if (!cred_ok || peer_groups(fd, c)) {
		log_limited(LOGC_ACCEPT, LOG_WARNING, "new client: %s",
			    strerror(errno));
		goto fail;
	}
	c->h.proc = on_client;
	c->h.data = c;
	c->srv = s;
	c->fd = fd;
	c->uid = cred.uid;
	c->gid = cred.gid;
	c->pid = cred.pid;
	c->foreign = foreign_ns(s, fd);
	if (c->foreign) {
		s->stats.refused_netns++;
		log_limited_user(uidtab_get(s->uids, c->uid, false),
				 LOGC_REFUSED, LOG_INFO, "refused client: "
				 "uid=%u pid=%d: in another network namespace",
				 (unsigned)c->uid, (int)c->pid);
	}
	if (conn_refused(s, c))
		goto fail;
	if (share_in(s, c) == 0)
		return c;
	conn_release(s, c->uid, c->grp != NULL);
fail:
	/* c->uid is the peer's once its credentials were read. */
	closer_close_socket(fd, c && cred_ok ? c->uid : (uid_t)-1);
	if (c)
		free(c->groups);
	free(c);
	return NULL;
}

/* accept() ran out of descriptors: stop listening for a while, rather
 * than be woken for the same connection again and again. */
static void pause_listening(struct server *s)
{
	if (!s->listen_on)
		return;
	loop_forget(s->loop, s->listen_fd);
	s->listen_on = false;
	loop_at(s->loop, &s->listen_timer, loop_now_ns() + ACCEPT_PAUSE_NS);
}

void client_listen_timer(void *data)
{
	struct server *s = data;

	if (!s->listen_on &&
	    loop_watch(s->loop, s->listen_fd, EPOLLIN, &s->listen_h) == 0)
		s->listen_on = true;
}

int client_connect(struct server *s, int fd)
{
	struct client *c = client_new(s, fd);

	if (!c)
		return -1;
	c->next = s->clients;
	if (s->clients)
		s->clients->prev = c;
	s->clients = c;
	s->nclients++;
	return 0;
}

/*
 * New connections, a few a turn of the loop (the listener is watched
 * level-triggered: the rest come next turn), so that users' requests are
 * served between them.
 */
#define ACCEPTS_PER_TURN 8

void client_accept(void *data, uint32_t events)
{
	struct server *s = data;

	(void)events;
	for (int i = 0; i < ACCEPTS_PER_TURN; i++) {
		int fd = accept4(s->listen_fd, NULL, NULL,
				 SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (fd < 0) {
			if (errno == EMFILE || errno == ENFILE ||
			    errno == ENOBUFS || errno == ENOMEM)
				pause_listening(s);
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				log_limited(LOGC_ACCEPT, LOG_WARNING,
					    "accept: %s", strerror(errno));
			return;
		}
		client_connect(s, fd);
	}
}
