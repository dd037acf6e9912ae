/* SPDX-License-Identifier: ISC */
/*
 * ops - the requests (wire.h), one procedure each, run as their type's
 * row in the protocol's table allows (wire/types.c, as OpenSSH's monitor
 * table): HELLO first and once; those that name a socket, for a
 * connection that opened or attached it; ATTACH and BROKER_BIND, for one
 * that proves it holds it.  What a procedure answers goes into a struct
 * reply, as that row says the answer is; client.c sends it.
 */
#include "daemon/srv.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "daemon/arena.h"
#include "daemon/broker.h"
#include "daemon/log.h"
#include "engine/policy.h"

typedef void (*op_fn)(struct server *s, struct client *c, struct ssock *ss,
		      const struct wire_req *req, struct reply *r);

static bool gid_ok(const struct server *s, const struct client *c)
{
	return policy_gid_allowed(&s->conf.policy, c->gid, c->groups,
				  c->ngroups);
}

/*
 * The version, and the process's state arena: the one its token names
 * (a later connection of the process, or of a forked child), or a new
 * one, handed out with the answer (and not kept: arena.h).
 */
static void op_hello(struct server *s, struct client *c, struct ssock *ss,
		     const struct wire_req *req, struct reply *r)
{
	c->hello = req->u.version == WIRE_VERSION;
	r->result = c->hello ? 0 : -EPROTO;
	if (c->hello && c->foreign)
		r->result = WIRE_R_FOREIGN_NS;
	if (r->result)
		return;
	c->arena = arena_get(s->arenas, req->nonce, c->uid, &r->fd);
	if (!c->arena) {
		r->result = errno == EMFILE || errno == ENFILE ? -errno : -ENOMEM;
		c->hello = false;
		return;
	}
	memcpy(r->body, arena_token(c->arena), WIRE_NONCE_LEN);
	r->len = WIRE_NONCE_LEN;	/* and the answer slot (client.c) */
}

/* A refusal by a limit: counted (for the user too), and said at a
 * bounded rate. */
int ops_refuse(struct server *s, const struct client *c, int err,
		  const char *why)
{
	struct uident *u = uidtab_get(s->uids, c->uid, false);

	s->stats.refused++;
	if (u)
		u->refused++;
	log_limited_user(u, LOGC_REFUSED, LOG_INFO, "refused socket: uid=%u "
			 "pid=%d: %s", (unsigned)c->uid, (int)c->pid, why);
	return err;
}

/* A socket refused by a limit: counted by its reason (wire.h). */
static int refuse_open(struct server *s, const struct client *c,
		       enum wire_refusal why, int err, const char *text)
{
	s->stats.refused_open[why]++;
	return ops_refuse(s, c, err, text);
}

/* The policy and the shares before a socket is made: 0 or -errno. */
static int open_allowed(struct server *s, const struct client *c,
			bool broker, struct uident *u)
{
	/* One descriptor either way today (srv.h); kept apart all the same. */
	unsigned need = broker ? FDS_BROKER : FDS_RELAY; // NOLINT(bugprone-branch-clone)

	if (!gid_ok(s, c))
		return refuse_open(s, c, WIRE_RF_GROUP, -EACCES,
				   "no group in range");
	if (s->conf.policy.max_sockets &&
	    bsock_at_limit(s, u, s->conf.policy.max_sockets))
		return refuse_open(s, c, WIRE_RF_MAX_SOCKETS, -EMFILE,
				   "max_sockets open");
	if (!uidtab_may_take(s->uids, u, UID_FDS, need, s->fd_budget))
		return refuse_open(s, c, WIRE_RF_FDS, -EMFILE, "the daemon's "
				   "descriptors are short and this user holds "
				   "the most");
	if (broker && bsock_allowed(s, c->uid, false))
		return refuse_open(s, c, WIRE_RF_IDENTS, -EAGAIN, "max_idents "
				   "held, or identifiers short and this user "
				   "holds the most");
	return 0;
}

/* The daemon itself short of memory or descriptors for a socket it
 * would have made: counted, not a limit of the user's. */
static int open_failed(struct server *s, int err)
{
	if (err == -ENOMEM || err == -EMFILE || err == -ENFILE ||
	    err == -ENOBUFS)
		s->stats.refused_open[WIRE_RF_RESOURCES]++;
	return err;
}

static void open_answer(struct reply *r, const struct ssock *nss,
			uint32_t kind, uint32_t slot)
{
	uint32_t body[3] = { nss->handle, kind, slot };

	memcpy(r->body, body, sizeof(body));
	r->len = sizeof(body);
}

static void op_open(struct server *s, struct client *c, struct ssock *ss,
		    const struct wire_req *req, struct reply *r)
{
	bool broker = bsock_wanted(s, c, req);
	struct uident *u = uidtab_get(s->uids, c->uid, true);
	struct ssock *nss;
	uint32_t slot = 0;
	int cfd = -1;

	r->result = u ? open_allowed(s, c, broker, u) : open_failed(s, -ENOMEM);
	if (r->result)
		return;
	if (broker) {
		r->result = open_failed(s, bsock_new(s, c, req, &cfd, &r->fd2,
						     &nss));
		if (r->result)
			return;
		open_answer(r, nss, WIRE_OPEN_BROKER, 0);
		r->fd = cfd;
		return;
	}
	r->result = open_failed(s, ssock_new_relay(s, c, req, &cfd, &slot));
	if (r->result)
		return;
	deliver_watch(s);
	u->nsockets++;
	nss = c->socks[c->nsocks - 1];
	open_answer(r, nss, 0, slot);
	r->fd = cfd;
}

/* A connection that did not open the socket (a forked child's, a process
 * the descriptor was passed to) uses it once it proves it holds it. */
static void op_attach(struct server *s, struct client *c, struct ssock *ss,
		      const struct wire_req *req, struct reply *r)
{
	uint32_t body[3];

	r->result = -EBADF;
	if (ss->broker || !ssock_proven(ss, req->nonce))
		return;
	r->result = sstate_mirror(s, ss, c->arena, &body[2]);
	if (r->result)
		return;
	if (ssock_link(c, ss)) {
		r->result = -ENOMEM;
		return;
	}
	body[0] = ss->handle;
	body[1] = (uint32_t)ps_family(ss->ps);
	memcpy(r->body, body, sizeof(body));
	r->len = sizeof(body);
	r->result = 0;
}

/*
 * Which of the caller's uid's relayed sockets has a data descriptor of
 * this cookie (a program that got it across exec asks, before it writes
 * a proof on it: a descriptor that is not ours must never be written
 * on).  It tells the uid what it may know already (its own sockets'
 * handles) and grants nothing: WIRE_ATTACH still wants the proof.
 */
static void op_find(struct server *s, struct client *c, struct ssock *ss,
		    const struct wire_req *req, struct reply *r)
{
	struct ssock *x = ssock_by_cookie(s, req->u.cookie);
	uint32_t body[3];

	r->result = -ENOENT;
	if (!x || x->broker || x->uid != c->uid)
		return;
	body[0] = x->handle;
	body[1] = (uint32_t)ps_family(x->ps);
	body[2] = ps_type(x->ps) == SOCK_RAW ? WIRE_FIND_RAW : 0;
	memcpy(r->body, body, sizeof(body));
	r->len = sizeof(body);
	r->result = 0;
}

static void op_detach(struct server *s, struct client *c, struct ssock *ss,
		      const struct wire_req *req, struct reply *r)
{
	sstate_detach(s, c, ss, req->rqflags & WIRE_RQ_SOLE);
	r->result = 0;
}

static void op_bind(struct server *s, struct client *c, struct ssock *ss,
		    const struct wire_req *req, struct reply *r)
{
	r->result = ps_bind(s->tab, ss->ps, s->env, req->u.addr.bytes,
			    req->u.addr.len);
}

static void op_connect(struct server *s, struct client *c, struct ssock *ss,
		       const struct wire_req *req, struct reply *r)
{
	struct ps_addr dst;

	if (ps_connect_dest(ss->ps, s->env, req->u.addr.bytes, req->u.addr.len,
			    &dst) &&
	    !policy_dest_allowed(&s->conf.policy, &dst)) {
		r->result = -EACCES;	/* a refused destination network */
		return;
	}
	r->result = ps_connect(s->tab, ss->ps, s->env, req->u.addr.bytes,
			       req->u.addr.len);
}

/*
 * PINGSOCK_IDENT=keep: before its first send, bind the socket to the
 * identifier the program wrote, as bind() with that port would (so the
 * same-uid rule and "already bound: EINVAL" apply).  -EPERM when the
 * policy forbids it; the library then sends as without the variable.
 */
static void op_keepid(struct server *s, struct client *c, struct ssock *ss,
		      const struct wire_req *req, struct reply *r)
{
	struct ps_addr any = { .family = (uint8_t)ps_family(ss->ps) };
	uint8_t sa[sizeof(struct sockaddr_in6)];
	socklen_t len;

	if (!s->conf.policy.ident_keep) {
		r->result = -EPERM;
		return;
	}
	len = ps_addr_to_sockaddr(&any, (uint16_t)req->u.ident, sa);
	r->result = ps_bind(s->tab, ss->ps, s->env, sa, len);
}

/* Put a checked request on the wire; the send's result. */
int32_t ops_finish_send(struct server *s, struct ssock *ss,
			   const struct ps_sendinfo *info, const uint8_t *pkt,
			   uint32_t len)
{
	int err = info->dst.family == AF_INET6
			  ? raw6_send(s->conf.raw6, info, pkt, len)
			  : raw_send(s->conf.raw4, info, pkt, len);
	struct uident *u;

	deliver_local_error(s, ss, info, err);
	if (err) {
		audit_send_failed(s, ss, err);	/* with its record, if any */
		return err;
	}
	ps_sent(ss->ps, info, loop_now_ns() / 1000000000u);
	audit_sent(s, ss, &info->reach);
	ss->last_send_ns = loop_now_ns();
	s->stats.sent++;
	u = uidtab_get(s->uids, ss->uid, false);
	if (u)
		u->requests++;
	/* On loopback the reply is usually queued already: hand it over
	 * before answering, so the client wakes once, not twice. */
	if (info->dst.family == AF_INET6)
		deliver_drain(s, AF_INET6);
	else
		deliver_drain(s, AF_INET);
	return (int32_t)len;
}

static uint64_t interval_ns(const struct server *s)
{
	return (uint64_t)s->conf.policy.min_interval_ms * 1000000u;
}

/* When this socket's next request may go (0: now): min_interval since
 * its last one, and its user's rate. */
static uint64_t due_at(const struct server *s, const struct ssock *ss,
		       const struct uident *u, uint64_t now)
{
	uint64_t due = 0, w;

	if (interval_ns(s) && ss->last_send_ns &&
	    now < ss->last_send_ns + interval_ns(s))
		due = ss->last_send_ns + interval_ns(s);
	w = u ? rate_wait(&u->bucket, now, s->conf.policy.rate,
			  s->conf.policy.burst) : 0;
	if (w && now + w > due)
		due = now + w;
	return due;
}

/*
 * The longest a send may be made to wait: the time of one burst at the
 * user's rate, or min_interval.  Past it the bucket's debt would grow
 * without bound (each waiting send reserves its slot): ENOBUFS, as a full
 * queue says.
 */
static uint64_t wait_max(const struct server *s)
{
	const struct policy *p = &s->conf.policy;
	uint64_t w = p->rate ? (uint64_t)p->burst * 1000000000u / p->rate : 0;

	return w > interval_ns(s) ? w : interval_ns(s);
}

/* Give back a parked send's bytes, and its place in the rate if it did
 * not go (a user's waits grew while its programs gave up and retried). */
void ops_unpark(struct server *s, struct parked *p, bool sent)
{
	struct uident *u = p ? uidtab_get(s->uids, p->uid, false) : NULL;

	if (u)
		u->parked -= u->parked < p->len ? u->parked : p->len;
	if (u && !sent)
		rate_give(&u->bucket, loop_now_ns(), s->conf.policy.rate);
	free(p);
}

/* A send that waits for its time, its bytes counted for its user. */
static struct parked *park(struct server *s, struct ssock *ss,
			   const struct ps_sendinfo *info, uint32_t len,
			   uint64_t due)
{
	struct uident *u = uidtab_get(s->uids, ss->uid, true);
	struct parked *p;

	/* The user's parked bytes are bounded (a connection parks one). */
	if (!u || u->parked + len > PARKED_MAX ||
	    !(p = malloc(sizeof(*p) + len)))
		return NULL;
	u->parked += len;
	p->handle = ss->handle;
	p->serial = ss->serial;
	p->uid = ss->uid;
	p->info = *info;
	p->len = len;
	p->due_ns = due;
	memcpy(p->pkt, s->msgbuf, len);
	return p;
}

static void op_send(struct server *s, struct client *c, struct ssock *ss,
		    const struct wire_req *req, struct reply *r)
{
	const struct wire_req *q = req;
	struct ps_sendinfo info;
	uint32_t len = q->u.send.len;
	struct uident *u;
	uint64_t now, due;
	int err;

	if (len <= WIRE_DATA_MAX)
		memcpy(s->msgbuf, q->u.send.data, len);
	err = ps_send_prepare(s->tab, ss->ps, s->env, q->u.send.flags,
			      q->u.send.namelen == WIRE_NO_NAME ? NULL
								: q->u.send.name,
			      q->u.send.namelen, q->u.send.ctl,
			      q->u.send.ctllen, s->msgbuf,
			      len > WIRE_DATA_MAX ? WIRE_DATA_MAX + 1 : len,
			      &info);
	/* The policy, once the kernel's own checks have passed. */
	if (!err && len > s->conf.policy.max_request)
		err = -EMSGSIZE;
	if (!err && !policy_dest_allowed(&s->conf.policy, &info.reach))
		err = -EACCES;
	if (err)
		audit_send_failed(s, ss, err);	/* audit (not a pending one) */
	/* The pending error (sk_err) is taken by the send, which then
	 * sends nothing; the client may have written anything there. */
	if (!err)
		err = -sstate_take_err(ss);
	if (err) {
		r->result = err;
		return;
	}
	u = uidtab_get(s->uids, ss->uid, true);
	now = loop_now_ns();
	due = due_at(s, ss, u, now);
	/* WIRE_RQ_ASK: not counted; the client looks, then sends again. */
	if (due && ((q->rqflags & WIRE_RQ_ASK) ||
		    (q->u.send.flags & MSG_DONTWAIT))) {
		s->stats.sends_eagain += !(q->rqflags & WIRE_RQ_ASK);
		r->result = q->rqflags & WIRE_RQ_ASK ? WIRE_R_ASKED : -EAGAIN;
		return;
	}
	if (due && due - now > wait_max(s)) {
		s->stats.sends_refused++;
		r->result = ops_refuse(s, c, -ENOBUFS, "sends waiting past one "
				   "burst of the rate");
		return;
	}
	/* Its place in the user's rate is taken now, even if it waits. */
	if (u)
		rate_take(&u->bucket, now, s->conf.policy.rate,
			  s->conf.policy.burst);
	if (due) {
		r->park = park(s, ss, &info, len, due);
		if (r->park) {
			s->stats.sends_delayed++;
			return;
		}
		if (u)
			rate_give(&u->bucket, now, s->conf.policy.rate);
		s->stats.sends_refused++;
		r->result = ops_refuse(s, c, -ENOBUFS, "parked sends' bytes");
		return;
	}
	r->result = ops_finish_send(s, ss, &info, s->msgbuf, len);
}

/* IP_RECVERR or IPV6_RECVERR set to 0 (an int, or a byte, as
 * do_ip_setsockopt() reads it). */
static bool recverr_off(const struct wire_req *req)
{
	int v = 0;

	if (!((req->u.opt.level == SOL_IP && req->u.opt.name == IP_RECVERR) ||
	      (req->u.opt.level == SOL_IPV6 && req->u.opt.name == IPV6_RECVERR)))
		return false;
	if (req->u.opt.len >= sizeof(int))
		memcpy(&v, req->u.opt.val, sizeof(v));
	else if (req->u.opt.len >= 1)
		v = req->u.opt.val[0];
	return v == 0;
}

static void op_setopt(struct server *s, struct client *c, struct ssock *ss,
		      const struct wire_req *req, struct reply *r)
{
	uint32_t label;

	/* A flow label lease answers the label it chose (the kernel
	 * writes it into the caller's request). */
	if (wire_setopt_answers_label(req->u.opt.level, req->u.opt.name)) {
		r->result = ps_flowlabel_opt(ss->ps, s->env, req->u.opt.val,
					     req->u.opt.len, &label);
		memcpy(r->body, &label, sizeof(label));
		r->len = r->result == 0 ? sizeof(label) : 0;
		return;
	}
	r->result = ps_setopt(ss->ps, s->env, req->u.opt.level, req->u.opt.name,
			      req->u.opt.val, req->u.opt.len);
	/* ip_sock_set_recverr(): turned off, it empties the queue. */
	if (r->result == 0 && recverr_off(req))
		sstate_purge(s, ss);
	sstate_publish(ss);
	if (r->result == 0 && req->u.opt.level == SOL_SOCKET &&
	    req->u.opt.name == SO_RCVBUF)
		ssock_size_pair(s, ss);
}

static void op_getopt(struct server *s, struct client *c, struct ssock *ss,
		      const struct wire_req *req, struct reply *r)
{
	uint32_t len = req->u.opt.len;

	/* sk_getsockopt(): reading the pending error takes it. */
	if (req->u.opt.level == SOL_SOCKET && req->u.opt.name == SO_ERROR) {
		int v = sstate_take_err(ss);

		r->len = len < sizeof(v) ? len : sizeof(v);
		memcpy(r->body, &v, r->len);
		r->result = 0;
		return;
	}
	/* The value read as input (wire_getopt_input()) is where the
	 * answer is written, as in the caller's optval. */
	memcpy(r->body, req->u.opt.val,
	       wire_getopt_input(req->u.opt.level, req->u.opt.name, len));
	r->result = ps_getopt(ss->ps, s->env, req->u.opt.level,
			      req->u.opt.name, r->body, &len);
	if (r->result == 0)
		r->len = len;
}

static void op_getname(struct server *s, struct client *c, struct ssock *ss,
		       const struct wire_req *req, struct reply *r)
{
	int n = ps_getname(ss->ps, req->type == WIRE_GETPEER, r->body);

	if (n < 0) {
		r->result = n;
		return;
	}
	r->len = (size_t)n;
	r->result = 0;
}

static void op_shutdown(struct server *s, struct client *c, struct ssock *ss,
			const struct wire_req *req, struct reply *r)
{
	uint32_t was = ps_shutdown_mask(ss->ps);

	r->result = ps_shutdown(ss->ps, req->u.how);
	/* inet_shutdown() wakes every waiter, even with ENOTCONN (a
	 * blocked receive ends): once a change, not a wake-up a call. */
	if (ps_shutdown_mask(ss->ps) != was)
		sstate_wake(ss);
	else
		sstate_publish(ss);
}

/* do_recvmmsg()'s sk_err: set, and no waiter woken (it calls no
 * sk_error_report()); the next call and poll see it. */
static void op_seterr(struct server *s, struct client *c, struct ssock *ss,
		      const struct wire_req *req, struct reply *r)
{
	sstate_set_err(ss, req->u.err, false);
	r->result = 0;
}

/* WIRE_STATS, and WIRE_LOGLOST (a request of its own: wire.h). */
static void op_stats(struct server *s, struct client *c, struct ssock *ss,
		     const struct wire_req *req, struct reply *r)
{
	uint64_t lost = log_lost();
	struct wire_stats st;

	if (req->type == WIRE_LOGLOST) {
		memcpy(r->body, &lost, sizeof(lost));
		r->len = sizeof(lost);
	} else {
		server_stats(s, &st);
		memcpy(r->body, &st, sizeof(st));
		r->len = sizeof(st);
	}
	r->result = 0;
}

/*
 * The live socket table, a page from the cursor (a slot index) on: all
 * sockets for root (SO_PEERCRED uid 0), the caller's own uid's for anyone
 * else.  The header's totals are for everyone, as WIRE_STATS is.  At most
 * TABLE_VISIT slots are looked at a request, so that a user with a few
 * sockets among 20,000 pays a walk of all of them in pages (next, with
 * fewer entries or none), not in one turn of the loop.
 */
#define TABLE_VISIT 4096

static void op_table(struct server *s, struct client *c, struct ssock *ss,
		     const struct wire_req *req, struct reply *r)
{
	static uint8_t page[WIRE_RESP_BODY_MAX];
	struct wire_table_hdr h = { .opened = s->audit.opened,
				    .errors = s->audit.errors };
	bool all = c->uid == 0;
	uint64_t now = loop_now_ns();
	size_t off = sizeof(h);

	if (all)
		h.flags |= WIRE_TABLE_ALL;
	for (uint32_t i = req->u.cursor ? req->u.cursor : 1, n = 0;
	     i < s->nslots; i++) {
		const struct ssock *d = s->slots[i].ss;
		struct wire_table_entry e;

		if (++n > TABLE_VISIT) {
			h.next = i;
			break;
		}
		if (!d || (!all && d->uid != c->uid))
			continue;
		if (h.count == WIRE_TABLE_PAGE) {
			h.next = i;
			break;
		}
		memset(&e, 0, sizeof(e));
		e.handle = d->handle;
		e.uid = (uint32_t)d->uid;
		e.pid = (int32_t)d->pid;
		e.family = (uint8_t)ssock_family(d);
		e.flags = d->dests.capped ? WIRE_TE_DEST_CAPPED : 0;
		if (d->broker)
			e.flags |= WIRE_TE_BROKER;
		e.ident = ssock_ident(d);
		e.destinations = d->dests.n;
		e.clients = (uint32_t)d->nclients;
		e.requests = d->sent;
		e.replies = d->replies;
		e.errors = d->errors;
		e.drops = d->drops;
		e.age_ms = (now - d->opened_ns) / 1000000u;
		if (d->broker)
			bsock_table_counts(s, d, &e);
		memcpy(page + off, &e, sizeof(e));
		off += sizeof(e);
		h.count++;
	}
	memcpy(page, &h, sizeof(h));
	r->ext = page;
	r->len = off;
	r->result = 0;
}

/* What the daemon counts per uid, a page (audit.c). */
static void op_users(struct server *s, struct client *c, struct ssock *ss,
		     const struct wire_req *req, struct reply *r)
{
	audit_users(s, c, req->u.cursor, r);
}

/* bind() of a broker socket not used yet (bsock.c). */
static void op_broker_bind(struct server *s, struct client *c,
			   struct ssock *ss, const struct wire_req *req,
			   struct reply *r)
{
	bsock_rebind(s, ss, req, r);
}

/* MSG_ERRQUEUE: the next record, taken (even for MSG_PEEK, as the kernel
 * takes it): its whole data length, the record, as much data as fits. */
static void op_errq(struct server *s, struct client *c, struct ssock *ss,
		    const struct wire_req *req, struct reply *r)
{
	struct erec *e = ss->broker ? NULL : sstate_dequeue(s, ss);
	uint32_t n;

	if (!e) {
		r->result = -EAGAIN;
		return;
	}
	n = e->len < WIRE_ERRQ_DATA_MAX ? e->len : (uint32_t)WIRE_ERRQ_DATA_MAX;
	memcpy(s->msgbuf, &e->len, 4);
	memcpy(s->msgbuf + 4, &e->dg, WIRE_DGRAM_HDR);
	memcpy(s->msgbuf + 4 + WIRE_DGRAM_HDR, e->data, n);
	free(e);
	r->ext = s->msgbuf;
	r->len = 4 + WIRE_DGRAM_HDR + n;
	r->result = 0;
}

/* Each request's procedure; who may send it when is its row's access
 * rule (wire/types.c), the table OpenSSH's monitor has. */
static const op_fn ops[WIRE_TYPE_END] = {
	[WIRE_HELLO] = op_hello,
	[WIRE_OPEN] = op_open,
	[WIRE_ATTACH] = op_attach,
	[WIRE_DETACH] = op_detach,
	[WIRE_BIND] = op_bind,
	[WIRE_CONNECT] = op_connect,
	[WIRE_SEND] = op_send,
	[WIRE_SETOPT] = op_setopt,
	[WIRE_GETOPT] = op_getopt,
	[WIRE_GETNAME] = op_getname,
	[WIRE_GETPEER] = op_getname,
	[WIRE_SHUTDOWN] = op_shutdown,
	[WIRE_STATS] = op_stats,
	[WIRE_KEEPID] = op_keepid,
	[WIRE_TABLE] = op_table,
	[WIRE_BROKER_BIND] = op_broker_bind,
	[WIRE_ERRQ] = op_errq,
	[WIRE_USERS] = op_users,
	[WIRE_FIND] = op_find,
	[WIRE_LOGLOST] = op_stats,
	[WIRE_SETERR] = op_seterr,
};

int ops_run(struct server *s, struct client *c, const struct wire_req *req,
	    struct reply *r)
{
	const struct wire_req_type *t = wire_req_type(req->type);
	bool first = t && (t->access & WIRE_ACC_FIRST);
	struct ssock *ss = NULL;

	/* HELLO first and once; a client of another namespace is told so
	 * at HELLO (op_hello), and served nothing after it. */
	if (!t || !ops[req->type] || first == c->hello ||
	    (c->foreign && !first))
		return -1;
	if (t->access & (WIRE_ACC_SOCKET | WIRE_ACC_PROVES)) {
		ss = ssock_get(s, req->handle);
		if (!ss)
			r->result = -EBADF;
		else if ((t->access & WIRE_ACC_SOCKET) && !ssock_linked(ss, c) &&
			 !sstate_sole_detach(ss, c, req))
			r->result = WIRE_R_UNATTACHED;
		if (!ss || r->result)
			return 0;
	}
	ops[req->type](s, c, ss, req, r);
	return 0;
}
