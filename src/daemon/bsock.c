/* SPDX-License-Identifier: ISC */
/*
 * bsock - broker sockets: a kernel ping socket the daemon made, bound and
 * handed out (broker.h), and the record it keeps of it.  Every kernel
 * socket counts for max_sockets and max_idents for as long as it exists,
 * whoever holds it: the kernel lists each ping socket in /proc/net/icmp
 * until its last descriptor is closed, and bsock_scan() reads that list
 * (bscan.c).
 */
#include "daemon/srv.h"

#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "daemon/broker.h"
#include "daemon/hostenv.h"
#include "daemon/log.h"

static void on_live(void *data, uint32_t events);

/* Does broker mode serve this socket of this client? */
bool bsock_wanted(const struct server *s, const struct client *c,
		     const struct wire_req *req)
{
	const struct broker_plan *b = &s->conf.broker;
	int family = req->u.open.domain;
	int base = req->u.open.type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (base != SOCK_DGRAM || policy_uid_relayed(&s->conf.policy, c->uid))
		return false;
	/* mode auto without the BPF guard: per-packet keys, then relay
	 * (mode broker keeps brokering, as the log said at start). */
	if (!s->conf.guard && s->conf.policy.mode == POLICY_AUTO &&
	    policy_per_packet(&s->conf.policy))
		return false;
	if (family == AF_INET)
		return b->v4 && req->u.open.protocol == IPPROTO_ICMP;
	return family == AF_INET6 && b->v6 &&
	       req->u.open.protocol == IPPROTO_ICMPV6;
}

/*
 * Who holds each identifier among our kernel sockets, by family: a uid
 * and how many, so that broker_holds() costs one look, not a walk of
 * every record (an explicit bind asks twice; 10,000 of them walked
 * 10,000 records each).  The same-uid rule keeps one uid on an
 * identifier; should two ever hold one (BHOLD_MIXED), or the table not
 * be there (no memory at the first socket), the walk answers.
 */
struct bhold {
	uid_t uid;
	uint32_t n;		/* and BHOLD_MIXED */
};
#define BHOLD_MIXED 0x80000000u
#define NIDENTS ((size_t)65536)

static struct bhold *bhold_of(const struct server *s, int family,
			      uint16_t ident)
{
	return s->bholds ? &s->bholds[(family == AF_INET6) * NIDENTS + ident]
			 : NULL;
}

static void bhold_add(struct server *s, const struct ssock *ss, int k)
{
	struct bhold *h;

	if (!s->bholds && !s->bholds_off) {
		s->bholds = calloc(2 * NIDENTS, sizeof(*s->bholds));
		s->bholds_off = !s->bholds;	/* for good: counts would miss */
	}
	h = bhold_of(s, ss->family, ss->k[k].ident);
	if (!h)
		return;
	if ((h->n & ~BHOLD_MIXED) == 0)
		*h = (struct bhold){ .uid = ss->uid };
	else if (h->uid != ss->uid)
		h->n |= BHOLD_MIXED;
	h->n++;
}

static void bhold_sub(struct server *s, const struct ssock *ss, int k)
{
	struct bhold *h = bhold_of(s, ss->family, ss->k[k].ident);

	if (h && (h->n & ~BHOLD_MIXED) && (--h->n & ~BHOLD_MIXED) == 0)
		h->n = 0;
}

/* Count a kernel socket the client now holds: slot k of ss. */
static void bsock_take(struct server *s, struct ssock *ss, int k, int fd,
		       uint16_t ident, uint64_t cookie)
{
	struct uident *u = uidtab_get(s->uids, ss->uid, true);
	struct stat st;

	/* An inode that is never listed, if fstat() could fail: then the
	 * next scan lets go of it, and the counts stay right. */
	ss->k[k].ino = fstat(fd, &st) == 0 ? st.st_ino : (ino_t)-1;
	ss->k[k].ident = ident;
	ss->k[k].cookie = cookie;
	ss->k[k].missed = 0;
	bhold_add(s, ss, k);
	s->nbroker++;
	if (u) {
		/* A place kept for the record (bsock_drop()) is taken up
		 * again by the socket a bind gave it, not counted twice. */
		if (ss->count_kept)
			ss->count_kept = false;
		else
			u->nsockets++;
		u->nbroker++;
		uidtab_add(s->uids, u, UID_IDENTS, 1);
	}
	/* Relay sockets keep off it until /proc/net/icmp is read again. */
	pstab_add_foreign(s->tab, ss->family, ident);
}

/* What the guard counted for a socket that is gone, into ss's totals. */
static void bsock_tally(struct server *s, struct ssock *ss, int k)
{
	struct guard_tally t;

	if (!s->conf.guard || !ss->k[k].cookie ||
	    !guard_closed(s->conf.guard, ss->k[k].cookie, &t))
		return;
	ss->sent += t.requests;
	ss->replies += t.replies;
	ss->errors += t.refused;
	ss->drops += t.forged;
	ss->dests.n += t.ndests;
	ss->dests.capped |= t.capped;
}

void bsock_table_counts(struct server *s, const struct ssock *ss,
			struct wire_table_entry *e)
{
	struct guard_tally t;

	for (int k = 0; s->conf.guard && k < 2; k++) {
		if (!ss->k[k].ino || !ss->k[k].cookie ||
		    !guard_live(s->conf.guard, ss->k[k].cookie, &t))
			continue;
		e->requests += t.requests;
		e->replies += t.replies;
		e->errors += t.refused;
		e->drops += t.forged;
		e->destinations += t.ndests;
		if (t.capped)
			e->flags |= WIRE_TE_DEST_CAPPED;
	}
}

/*
 * A kernel socket of ss is gone (or the record is): no longer counted.
 * But while the record lives (its holder keeps the liveness pair), its
 * last socket's place in its user's sockets stays taken (count_kept):
 * a user who closed each socket and kept its pair had records without
 * bound, and the daemon's descriptors with them (rv13: 153 records at
 * max_sockets 3).
 */
void bsock_drop(struct server *s, struct ssock *ss, int k)
{
	struct uident *u = uidtab_get(s->uids, ss->uid, false);
	bool keep = !ss->live_gone && !ss->k[!k].ino;

	if (!ss->k[k].ino)
		return;
	bsock_tally(s, ss, k);	/* its identifier goes at the scan's prune */
	bhold_sub(s, ss, k);
	ss->k[k].ino = 0;
	s->nbroker--;
	if (u) {
		if (u->nsockets && !keep)
			u->nsockets--;
		if (u->nbroker)
			u->nbroker--;
		uidtab_add(s->uids, u, UID_IDENTS, -1);
	}
	ss->count_kept |= keep && u;
}

static void bsock_forget(struct server *s, struct ssock *ss)
{
	struct uident *u = uidtab_get(s->uids, ss->uid, false);

	ss->live_gone = true;	/* the record goes: nothing kept */
	bsock_drop(s, ss, 0);
	bsock_drop(s, ss, 1);
	if (ss->count_kept && u && u->nsockets)
		u->nsockets--;
	ss->count_kept = false;
}

/* broker_holds() the long way: every record.  (The test build says how
 * many it looked at: broker.sh counts them.) */
static bool holds_walk(const struct server *s, int family, uid_t uid,
		       bool mine, uint16_t ident)
{
	bool found = false;
	uint32_t i;

	for (i = 1; i < s->nslots && !found; i++) {
		const struct ssock *d = s->slots[i].ss;

		if (!d || !d->broker || d->family != family ||
		    (d->uid == uid) != mine)
			continue;
		for (int k = 0; k < 2; k++)
			if (d->k[k].ino && d->k[k].ident == ident)
				found = true;
	}
#ifdef PSD_TESTING
	log_info("test: broker_holds looked at %u records", i - 1);
#endif
	return found;
}

/* Does a kernel socket of ours hold ident: one of uid's (mine), or of
 * another uid's (!mine)?  Of family, or (AF_UNSPEC) of either: IPv4 and
 * IPv6 ping sockets share their identifiers in the kernel's table. */
static bool broker_holds(const struct server *s, int family, uid_t uid,
			 bool mine, uint16_t ident)
{
	static const int fams[2] = { AF_INET, AF_INET6 };

	for (int f = 0; f < 2; f++) {
		const struct bhold *h = bhold_of(s, fams[f], ident);

		if (family && family != fams[f])
			continue;
		if (!h || (h->n & BHOLD_MIXED)) {
			if (holds_walk(s, fams[f], uid, mine, ident))
				return true;
			continue;
		}
#ifdef PSD_TESTING
		log_info("test: broker_holds answered by the index");
#endif
		if (h->n && (h->uid == uid) == mine)
			return true;
	}
	return false;
}

/*
 * The same-uid rule: an identifier that a relay socket or another uid's
 * broker socket holds is refused, whatever SO_REUSEADDR says.
 */
static bool bsock_ident_taken(const struct server *s, int family, uid_t uid,
			      uint16_t ident)
{
	return pstab_ident_used(s->tab, family, ident) ||
	       broker_holds(s, family, uid, false, ident);
}

struct pick_ctx {
	const struct server *s;
	int family;
};

/*
 * An automatic identifier: one nobody holds, as far as we know: no relayed
 * socket of the family, and no kernel ping socket of either family (the
 * kernel's table is one for both, ping_get_port()), ours (bsock_take())
 * or another's (the last read of /proc/net/icmp and icmp6).  Asking the
 * kernel for held ones wasted its tries: once the rover came round to the
 * identifiers of long-lived sockets, socket() failed with EADDRINUSE.
 */
static bool ident_free(void *ctx, uint16_t ident)
{
	const struct pick_ctx *pc = ctx;
	const struct pstab *tab = pc->s->tab;

	return !pstab_ident_used(tab, pc->family, ident) &&
	       !pstab_ident_foreign(tab, AF_INET, ident) &&
	       !pstab_ident_foreign(tab, AF_INET6, ident);
}

/*
 * Does the user hold max sockets?  Its broker sockets may have gone since
 * the last look (the kernel says so in /proc/net/icmp, before or without
 * a hang-up of the liveness pair): look again, if the daemon may.
 */
bool bsock_at_limit(struct server *s, struct uident *u, unsigned max)
{
	if (u->nsockets < max)
		return false;
	if (u->nbroker && bsock_scan_allowed(s, loop_now_ns()))
		bsock_scan(s);
	return u->nsockets >= max;
}

/*
 * May the user hold one more kernel socket, with an identifier?  A
 * replacement (a bind before first use) may go one past max_sockets for
 * as long as the socket it replaces exists: the library closes that one
 * at once, and the count is read afresh when it matters.
 */
int bsock_allowed(struct server *s, uid_t uid, bool replacement)
{
	const struct policy *p = &s->conf.policy;
	struct uident *u = uidtab_get(s->uids, uid, true);
	unsigned max = p->max_sockets + (replacement ? 1 : 0);

	if (!u)
		return -ENOMEM;
	if (p->max_sockets && bsock_at_limit(s, u, max))
		return -EMFILE;
	if ((p->max_idents && u->idents >= p->max_idents) ||
	    !uidtab_may_take(s->uids, u, UID_IDENTS, 1, 65535))
		return -EAGAIN;
	return 0;
}

/* A kernel socket bound as o and sa say, for family; broker.h. */
static int bsock_bind(struct server *s, int family,
		      const struct broker_bindopts *o, const uint8_t *sa,
		      uint32_t len, int *fd, uint16_t *ident)
{
	struct pick_ctx pc = { s, family };
	struct broker_pick pick = {
		&s->brover[family == AF_INET6], ident_free, &pc,
	};

	return broker_bind(family, o, sa, len, &pick, fd, ident);
}

/*
 * Register fd with the guard for uid (before it is handed out: the guard
 * passes nothing on a ping socket it does not know); chosen: bound to the
 * identifier the user asked for.  *cookie: 0 without
 * a guard.  The socket is closed on failure.
 */
static int bsock_register(struct server *s, uid_t uid, int family,
			  uint16_t ident, bool chosen, int fd,
			  uint64_t *cookie)
{
	int rc;

	*cookie = 0;
	if (!s->conf.guard)
		return 0;
	rc = guard_add(s->conf.guard, fd, family, ident, chosen, uid, cookie);
	if (rc) {
		log_warn("broker: registering a socket with the BPF guard: %s",
			 strerror(-rc));
		close(fd);
	}
	return rc;
}

/*
 * A kernel ping socket, bound, and the liveness pair whose hang-up says
 * the client let go of it: *sock_fd and *live_fd go to the client.
 */
int bsock_new(struct server *s, struct client *c,
		     const struct wire_req *req, int *sock_fd, int *live_fd,
		     struct ssock **out)
{
	static const struct broker_bindopts dflt = { .reuse = true };
	struct sockaddr_in6 any = { .sin6_family = (sa_family_t)req->u.open.domain };
	uint32_t alen = req->u.open.domain == AF_INET6 ? sizeof(any)
						     : sizeof(struct sockaddr_in);
	struct ssock *ss = calloc(1, sizeof(*ss));
	int pair[2] = { -1, -1 }, fd = -1, err;
	uint16_t ident = 0;
	uint64_t cookie = 0;

	if (!ss)
		return -ENOMEM;
	err = bsock_bind(s, req->u.open.domain, &dflt, (uint8_t *)&any, alen,
			 &fd, &ident);
	if (!err && (err = bsock_register(s, c->uid, req->u.open.domain, ident,
					  false, fd, &cookie)))
		fd = -1;
	if (!err)
		err = ssock_pair(pair);
	ss->h.proc = on_live;
	ss->h.data = ss;
	ss->srv = s;
	ss->fd = pair[0];
	ss->broker = true;
	ss->family = (uint8_t)req->u.open.domain;
	ss->uid = c->uid;
	ss->pid = c->pid;
	if (!err && ssock_slot(s, ss))
		err = -ENOMEM;
	if (!err && ssock_watch(s, ss)) {
		ssock_unslot(s, ss->handle);
		err = -ENOMEM;
	}
	if (err) {
		if (fd >= 0)
			close(fd);
		if (pair[0] >= 0)
			close(pair[0]);
		if (pair[1] >= 0)
			close(pair[1]);
		free(ss);
		return err;
	}
	bsock_take(s, ss, 0, fd, ident, cookie);
	ssock_fds(s, ss->uid, FDS_BROKER);
	ss->opened_ns = loop_now_ns();
	audit_open(s, ss);
	*sock_fd = fd;
	*live_fd = pair[1];
	*out = ss;
	return 0;
}

/* The kernel's errors come before EADDRINUSE: try the address alone. */
static int bsock_refuse_taken(struct server *s, const struct ssock *ss,
			      const struct broker_bindopts *o,
			      const struct wire_req *req)
{
	uint8_t sa[WIRE_ADDR_MAX];
	uint16_t ident;
	int fd, rc;

	memcpy(sa, req->u.addr.bytes, req->u.addr.len);
	memset(sa + offsetof(struct sockaddr_in, sin_port), 0, 2);
	rc = bsock_bind(s, ss->family, o, sa, req->u.addr.len, &fd, &ident);
	if (rc)
		return rc;
	close(fd);
	return -EADDRINUSE;
}

/* Checks before a bind of a fresh broker socket: 0 or -errno. */
static int rebind_allowed(struct server *s, struct ssock *ss,
			  const struct wire_req *req)
{
	/* A record whose liveness pair hung up may go at the next scan:
	 * nobody holds it to ask. */
	if (!ss->broker || ss->live_gone || !ssock_proven(ss, req->nonce))
		return -EBADF;
	if (ss->rebound)
		return -EINVAL;		/* as the kernel's: bound already */
	if ((req->flags & WIRE_BB_KEEPID) && !s->conf.policy.ident_keep)
		return -EPERM;		/* as WIRE_KEEPID */
	return bsock_allowed(s, ss->uid, true);
}

/*
 * bind() of a socket not used yet: a new kernel socket bound as asked
 * takes its place (the library puts it on the same descriptor); the old
 * one counts until it is gone.  Once a socket.
 */
void bsock_rebind(struct server *s, struct ssock *ss,
		  const struct wire_req *req, struct reply *r)
{
	struct broker_bindopts o = {
		.reuse = (req->flags & WIRE_BB_REUSE) != 0,
		.freebind = (req->flags & WIRE_BB_FREEBIND) != 0,
		.ifindex = req->ifindex,
	};
	int want = broker_sa_ident(req->u.addr.bytes, req->u.addr.len), nfd;
	uint16_t ident;
	uint64_t cookie;

	r->result = rebind_allowed(s, ss, req);
	if (r->result)
		return;
	if (want > 0 && bsock_ident_taken(s, ss->family, ss->uid,
					  (uint16_t)want)) {
		r->result = bsock_refuse_taken(s, ss, &o, req);
		return;
	}
	/* Shared (the kernel lets it, under SO_REUSEADDR) only with one
	 * of the uid's own sockets. */
	o.share = want > 0 && broker_holds(s, AF_UNSPEC, ss->uid, true,
					   (uint16_t)want);
	r->result = bsock_bind(s, ss->family, &o, req->u.addr.bytes,
			       req->u.addr.len, &nfd, &ident);
	if (!r->result)
		r->result = bsock_register(s, ss->uid, ss->family, ident,
					   want > 0, nfd, &cookie);
	if (r->result)
		return;
	/* k[1] is free (once a socket); the old socket keeps its count
	 * there until it is gone. */
	ss->k[1] = ss->k[0];
	bsock_take(s, ss, 0, nfd, ident, cookie);
	ss->rebound = true;
	log_debug("socket %u (uid %u): bound again, to identifier %u",
		  ss->handle, (unsigned)ss->uid, ident);
	r->fd = nfd;
}

/*
 * The client let go of its liveness descriptor: the record goes when its
 * kernel sockets are gone too (a scan, soon).
 */
static void on_live(void *data, uint32_t events)
{
	struct ssock *ss = data;

	if (!(events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR)))
		return;
	ss->live_gone = true;
	ssock_unwatch(ss->srv, ss);
	bsock_scan_soon(ss->srv);
}

/* A broker record is gone: its kernel sockets no longer counted. */
void bsock_free(struct server *s, struct ssock *ss)
{
	bsock_forget(s, ss);
	ssock_fds(s, ss->uid, -FDS_BROKER);
	ssock_release(s, ss);
}
