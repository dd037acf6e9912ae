/* SPDX-License-Identifier: ISC */
/*
 * ssock - the sockets the daemon serves: their handles (a slot and its
 * generation), the connections that may use each, and relayed sockets
 * (the engine's socket and the data pair; its state is sstate.c's).
 * A process that did not open a socket proves that it holds it by writing
 * a nonce on its descriptor (ssock_proven()).
 */
#include "daemon/srv.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>
#include "daemon/closer.h"
#include "daemon/share.h"

/* A handle: a slot's index and its generation, never 0. */
#define HANDLE_IDX_BITS 20
#define HANDLE_IDX_MASK ((1u << HANDLE_IDX_BITS) - 1)

static int ptrset_add(void ***arr, size_t *n, size_t *cap, void *p)
{
	for (size_t i = 0; i < *n; i++)
		if ((*arr)[i] == p)
			return 0;
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 4;
		void **a = realloc(*arr, nc * sizeof(*a));

		if (!a)
			return -1;
		*arr = a;
		*cap = nc;
	}
	(*arr)[(*n)++] = p;
	return 0;
}

static bool ptrset_del(void **arr, size_t *n, const void *p)
{
	for (size_t i = 0; i < *n; i++) {
		if (arr[i] == p) {
			arr[i] = arr[--*n];
			return true;
		}
	}
	return false;
}

static bool ptrset_has(void *const *arr, size_t n, const void *p)
{
	for (size_t i = 0; i < n; i++)
		if (arr[i] == p)
			return true;
	return false;
}

int ssock_link(struct client *c, struct ssock *ss)
{
	if (ptrset_add((void ***)&c->socks, &c->nsocks, &c->capsocks, ss))
		return -1;
	if (ptrset_add((void ***)&ss->clients, &ss->nclients, &ss->capclients,
		       c)) {
		ptrset_del((void **)c->socks, &c->nsocks, ss);
		return -1;
	}
	return 0;
}

void ssock_unlink(struct client *c, struct ssock *ss)
{
	ptrset_del((void **)c->socks, &c->nsocks, ss);
	ptrset_del((void **)ss->clients, &ss->nclients, c);
}

bool ssock_linked(const struct ssock *ss, const struct client *c)
{
	return ptrset_has((void *const *)ss->clients, ss->nclients, c);
}

int ssock_slot(struct server *s, struct ssock *ss)
{
	uint32_t idx = s->free_head;

	if (idx == 0) {
		uint32_t n = s->nslots ? s->nslots * 2 : 64;
		struct slot *t;

		if (n > HANDLE_IDX_MASK)
			return -1;
		t = realloc(s->slots, n * sizeof(*t));
		if (!t)
			return -1;
		memset(t + s->nslots, 0, (n - s->nslots) * sizeof(*t));
		/* Slot 0 is never used, so that no handle is 0. */
		for (uint32_t i = n - 1; i >= (s->nslots ? s->nslots : 1); i--) {
			t[i].next_free = s->free_head;
			s->free_head = i;
		}
		s->slots = t;
		s->nslots = n;
		idx = s->free_head;
	}
	s->free_head = s->slots[idx].next_free;
	s->slots[idx].ss = ss;
	s->slots[idx].gen = (s->slots[idx].gen + 1) & (UINT32_MAX >> HANDLE_IDX_BITS);
	ss->handle = s->slots[idx].gen << HANDLE_IDX_BITS | idx;
	ss->serial = ++s->serials;
	return 0;
}

void ssock_unslot(struct server *s, uint32_t handle)
{
	uint32_t idx = handle & HANDLE_IDX_MASK;

	if (idx == 0 || idx >= s->nslots)
		return;
	s->slots[idx].ss = NULL;
	s->slots[idx].next_free = s->free_head;
	s->free_head = idx;
}

struct ssock *ssock_get(const struct server *s, uint32_t handle)
{
	uint32_t idx = handle & HANDLE_IDX_MASK;

	if (idx == 0 || idx >= s->nslots || !s->slots[idx].ss ||
	    s->slots[idx].ss->handle != handle)
		return NULL;
	return s->slots[idx].ss;
}

/* The user's share of the daemon's descriptors, taken or given back. */
void ssock_fds(struct server *s, uid_t uid, int n)
{
	struct uident *u = uidtab_get(s->uids, uid, n > 0);

	if (u)
		uidtab_add(s->uids, u, UID_FDS, n);
}

/*
 * The index by cookie.  WIRE_FIND is any client's to ask, as often as it
 * likes: a walk over every socket (20,000 here, each a cache miss) would
 * let one user spend the daemon's time that others wait for.  2^14
 * chains, about one socket each at this machine's descriptor limit; the
 * kernel hands cookies out in sequence, and Fibonacci hashing spreads
 * those evenly, and no client chooses them.
 */
#define COOKIE_BITS 14

static size_t cookie_chain(uint64_t cookie)
{
	return (size_t)((cookie * 0x9E3779B97F4A7C15ull) >> (64 - COOKIE_BITS));
}

static void cookie_add(struct server *s, struct ssock *ss)
{
	struct ssock **chain = &s->by_cookie[cookie_chain(ss->cookie)];

	ss->cookie_next = *chain;
	*chain = ss;
}

static void cookie_del(struct server *s, struct ssock *ss)
{
	if (!ss->cookie || !s->by_cookie)
		return;
	for (struct ssock **p = &s->by_cookie[cookie_chain(ss->cookie)]; *p;
	     p = &(*p)->cookie_next)
		if (*p == ss) {
			*p = ss->cookie_next;
			return;
		}
}

struct ssock *ssock_by_cookie(const struct server *s, uint64_t cookie)
{
	if (!s->by_cookie || !cookie)
		return NULL;
	for (struct ssock *x = s->by_cookie[cookie_chain(cookie)]; x;
	     x = x->cookie_next)
		if (x->cookie == cookie)
			return x;
	return NULL;
}

/*
 * A socket's pair end is watched in its user's share of the loop
 * (share.h; a share for its sockets, beside the one for its
 * connections): a user's hang-ups, thousands at once when a process with
 * as many sockets ends, are served a quantum a turn, not ahead of every
 * other user's requests (8,000 closed at once held another user's ping
 * 35-61 ms).  The share's descriptor is charged to the user as its
 * connections' is.
 */
int ssock_watch(struct server *s, struct ssock *ss)
{
	struct uident *u = uidtab_get(s->uids, ss->uid, false);
	bool made;

	ss->grp = share_get(s->sock_shares, ss->uid, &made);
	if (!ss->grp)
		return -1;
	if (made && u)
		uidtab_add(s->uids, u, UID_FDS, 1);
	if (loop_group_watch(ss->grp, ss->fd, SSOCK_WATCH, &ss->h) == 0)
		return 0;
	if (share_put(s->sock_shares, ss->uid) && u)
		uidtab_add(s->uids, u, UID_FDS, -1);
	ss->grp = NULL;
	return -1;
}

void ssock_unwatch(struct server *s, struct ssock *ss)
{
	struct uident *u;

	if (!ss->grp)
		return;
	loop_group_forget(ss->grp, ss->fd, &ss->h);
	u = uidtab_get(s->uids, ss->uid, false);
	if (share_put(s->sock_shares, ss->uid) && u)
		uidtab_add(s->uids, u, UID_FDS, -1);
	ss->grp = NULL;
}

void ssock_release(struct server *s, struct ssock *ss)
{
	audit_close(ss);
	while (ss->nclients)
		ssock_unlink(ss->clients[0], ss);
	free(ss->clients);
	audit_forget_dests(s, ss);
	free(ss->proofs);
	sstate_free(s, ss);
	cookie_del(s, ss);
	ssock_unslot(s, ss->handle);
	pstab_close(s->tab, ss->ps);
	/* Also leaves the loop; what a client queued there goes with it
	 * (closer.h).  A send of its still waiting finds the handle gone. */
	ssock_unwatch(s, ss);
	if (ss->tainted)
		closer_close_as_is(ss->fd, ss->uid);
	else
		closer_close_socket(ss->fd, ss->uid);
	free(ss);
}

/*
 * A new data pair's base: the default for the uid's first
 * PAIRBUF_UID_FULL, PAIRBUF_SMALL past them (srv.h: a user's sockets by
 * the thousand, their replies unread, held gigabytes of the daemon's
 * memory).  Set either way, not left at net.core.wmem_default, which
 * may be more.  0, or -ENOBUFS if it could not be set.
 */
static int pair_take_base(struct server *s, struct ssock *ss)
{
	struct uident *u = uidtab_get(s->uids, ss->uid, false);
	int v;

	ss->pair_small = !u || u->pairs_full >= PAIRBUF_UID_FULL;
	if (!ss->pair_small)
		u->pairs_full++;
	/* SO_SNDBUF doubles it (up to twice net.core.wmem_max) */
	v = (int)(ss->pair_small ? PAIRBUF_SMALL : PAIRBUF_DEFAULT) / 2;
	return setsockopt(ss->fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) ? -ENOBUFS
									: 0;
}

/* Its place at the default base, if it had one, given back. */
static void pair_put_base(struct server *s, struct ssock *ss)
{
	struct uident *u = uidtab_get(s->uids, ss->uid, false);

	if (!ss->pair_small && u && u->pairs_full)
		u->pairs_full--;
	ss->pair_small = true;		/* given back once */
}

/* A relayed socket is gone (its last descriptor closed). */
void ssock_free(struct server *s, struct ssock *ss)
{
	struct uident *u = uidtab_get(s->uids, ss->uid, false);

	if (u && u->nsockets)
		u->nsockets--;
	if (u)
		u->pairbuf -= ss->pair_extra < u->pairbuf ? ss->pair_extra
							  : u->pairbuf;
	pair_put_base(s, ss);
	ssock_fds(s, ss->uid, -FDS_RELAY);
	ssock_release(s, ss);
	deliver_watch(s);
}

/*
 * The kernel gives a ping socket twice what SO_RCVBUF asks (up to twice
 * net.core.rmem_max); our end's send buffer, which bounds the queue of
 * replies, gets the same, but past its base (the default, or
 * PAIRBUF_SMALL: pair_take_base()) only within the uid's
 * PAIRBUF_UID_EXTRA: the memory is the daemon's, and one user's sockets
 * with 4 MiB asked and their replies unread held 8 MiB each of it (200
 * of them: 1.6 GB).  Past the share, the queue is shorter than the
 * kernel's: replies beyond it are dropped, as on a full receive queue.
 */
void ssock_size_pair(struct server *s, struct ssock *ss)
{
	struct uident *u = uidtab_get(s->uids, ss->uid, false);
	uint32_t others = u && u->pairbuf > ss->pair_extra
				  ? u->pairbuf - ss->pair_extra : 0;
	uint32_t base = ss->pair_small ? PAIRBUF_SMALL : PAIRBUF_DEFAULT;
	uint64_t want = 2 * (uint64_t)(uint32_t)ps_rcvbuf(ss->ps);
	uint64_t most = base + (u ? PAIRBUF_UID_EXTRA - others : 0);
	int v = (int)((want < most ? want : most) / 2), got = 0;
	socklen_t len = sizeof(got);

	if (v < (int)(PAIRBUF_LEAST + 1) / 2)
		v = (int)(PAIRBUF_LEAST + 1) / 2;	/* PAIRBUF_LEAST */

	/* setsockopt(SO_SNDBUF) doubles what it is given, up to twice
	 * net.core.wmem_max: what it gave is read back. */
	if (setsockopt(ss->fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) != 0 ||
	    getsockopt(ss->fd, SOL_SOCKET, SO_SNDBUF, &got, &len) != 0)
		return;
	ss->pair_extra = got > (int)base ? (uint32_t)got - base : 0;
	if (u)
		u->pairbuf = others + ss->pair_extra;
}

/*
 * A socketpair for a client: pair[0] the daemon's end, non-blocking and
 * refusing descriptors (closer.h).  -errno (EMFILE, ENFILE or ENOBUFS).
 */
int ssock_pair(int pair[2])
{
	int err = 0;

	pair[0] = pair[1] = -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pair) != 0)
		err = errno == EMFILE || errno == ENFILE ? -errno : -ENOBUFS;
	else if (fcntl(pair[0], F_SETFL, O_NONBLOCK) != 0 ||
		 closer_guard(pair[0]) != 0)
		err = -ENOBUFS;
	if (err && pair[0] >= 0) {
		close(pair[0]);
		close(pair[1]);
		pair[0] = pair[1] = -1;
	}
	return err;
}

/* The client's end's cookie: WIRE_FIND's key. */
static int pair_cookie(int fd, uint64_t *cookie)
{
	socklen_t len = sizeof(*cookie);

	if (getsockopt(fd, SOL_SOCKET, SO_COOKIE, cookie, &len) != 0 ||
	    len != sizeof(*cookie) || *cookie == 0)
		return -ENOBUFS;
	return 0;
}

/* The client wrote on its data descriptor, or let go of it. */
static void on_data(void *data, uint32_t events)
{
	struct ssock *ss = data;

	if (events & (EPOLLHUP | EPOLLRDHUP | EPOLLERR))
		ssock_free(ss->srv, ss);
}

/* Create the socket and its data pair; *client_fd is the client's end. */
int ssock_new_relay(struct server *s, struct client *c,
		     const struct wire_req *req, int *client_fd, uint32_t *slot)
{
	struct ssock *ss;
	int pair[2] = { -1, -1 }, err;
	bool based = false;

	if (!s->by_cookie)
		s->by_cookie = calloc((size_t)1 << COOKIE_BITS,
				      sizeof(void *));	/* chain heads */
	ss = s->by_cookie ? calloc(1, sizeof(*ss)) : NULL;
	if (!ss)
		return -ENOMEM;
	err = pstab_open(s->tab, req->u.open.domain, req->u.open.type,
			 req->u.open.protocol, c->uid, &ss->ps);
	if (!err && ps_family(ss->ps) == AF_INET6 && !s->conf.raw6) {
		pstab_close(s->tab, ss->ps);
		err = -EAFNOSUPPORT;	/* as a kernel without IPv6 says */
	}
	if (err) {
		free(ss);
		return err;
	}
	err = ssock_pair(pair);
	if (!err)
		err = pair_cookie(pair[1], &ss->cookie);
	if (!err)
		err = sstate_mirror(s, ss, c->arena, slot);
	if (err)
		goto fail;
	ss->h.proc = on_data;
	ss->h.data = ss;
	ss->srv = s;
	ss->fd = pair[0];
	ss->uid = c->uid;
	ss->pid = c->pid;
	err = pair_take_base(s, ss);
	based = true;
	if (err)
		goto fail;
	ps_set_owner(ss->ps, ss);
	ps_set_pid(ss->ps, (int32_t)c->pid);
	if (ssock_slot(s, ss)) {
		err = -ENOMEM;
		goto fail;
	}
	if (ssock_watch(s, ss) || ssock_link(c, ss)) {
		ssock_unwatch(s, ss);
		ssock_unslot(s, ss->handle);
		err = -ENOMEM;
		goto fail;
	}
	*client_fd = pair[1];
	cookie_add(s, ss);
	ss->opened_ns = loop_now_ns();
	ssock_fds(s, ss->uid, FDS_RELAY);
	audit_open(s, ss);
	return 0;
fail:
	if (based)
		pair_put_base(s, ss);
	if (pair[0] >= 0)
		close(pair[0]);
	if (pair[1] >= 0)
		close(pair[1]);
	sstate_free(s, ss);
	pstab_close(s->tab, ss->ps);
	free(ss);
	return err;
}

/* Equal nonces?  In a time that does not tell how much of one matched. */
static bool same_nonce(const uint8_t *a, const uint8_t *b)
{
	uint8_t d = 0;

	for (size_t i = 0; i < WIRE_NONCE_LEN; i++)
		d |= a[i] ^ b[i];
	return d == 0;
}

/* Where a proof read but not (yet) asked for goes: a free slot (room
 * made for SSOCK_PROOFS_MAX at the fifth), or the oldest kept; NULL
 * when there is none and no memory for one. */
static struct ssock_proof *proof_slot(struct ssock *ss)
{
	struct ssock_proof *old = NULL, *np;
	size_t n;

	for (unsigned i = 0; i < ss->nproofs; i++) {
		if (!ss->proofs[i].at)
			return &ss->proofs[i];
		if (!old || ss->proofs[i].at < old->at)
			old = &ss->proofs[i];
	}
	if (ss->nproofs == SSOCK_PROOFS_MAX)
		return old;
	n = ss->nproofs ? SSOCK_PROOFS_MAX : SSOCK_PROOFS_FEW;
	np = realloc(ss->proofs, n * sizeof(*np));
	if (!np)
		return old;
	memset(np + ss->nproofs, 0, (n - ss->nproofs) * sizeof(*np));
	ss->proofs = np;
	old = &np[ss->nproofs];
	ss->nproofs = (uint8_t)n;
	return old;
}

static void proof_keep(struct ssock *ss, const uint8_t *nonce)
{
	struct ssock_proof *p;

	if (++ss->proof_seq == 0) {	/* after 2^32 proofs: all forgotten */
		for (unsigned i = 0; i < ss->nproofs; i++)
			ss->proofs[i].at = 0;
		ss->proof_seq = 1;
	}
	p = proof_slot(ss);
	if (p) {
		memcpy(p->nonce, nonce, WIRE_NONCE_LEN);
		p->at = ss->proof_seq;
	}
}

/*
 * What the client wrote on the socket's own descriptor: nothing is read
 * from there but proofs of holding it (wire.h: struct wire_proof), in
 * the order written, up to the one the request names and no further
 * (SSOCK_PROOFS_MAX records at most).  Those before it are kept for
 * their own requests (all that one read takes); those after it stay
 * queued for theirs.  Reading all there was at each request, and keeping
 * the last four, lost a proof whenever four more came before its
 * request: of 1,000 children of one process attaching at once, 485 to
 * 881 failed.  And a wrong nonce, which any user may send for any
 * handle, reads all that is queued: with four kept, another user's one
 * request spoilt the attaches of a socket's holders (4 of 8 failed).
 * Proofs still go when more than SSOCK_PROOFS_MAX are read before
 * their requests come (the oldest first).
 */
static bool proof_read(struct ssock *ss, const uint8_t *nonce)
{
	for (int i = 0; i < SSOCK_PROOFS_MAX && !ss->tainted; i++) {
		struct wire_proof pf = { .magic = 0 };
		struct iovec iov = { .iov_base = &pf, .iov_len = sizeof(pf) };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		unsigned passed;
		ssize_t n = closer_recv(ss->fd, ss->uid, &mh, &passed);

		/* An empty record is skipped (a hang-up, which reads the
		 * same, comes to the loop as EPOLLRDHUP). */
		if (n < 0)
			return false;	/* none (yet) */
		/* Descriptors, 253 a record (a kernel without
		 * SO_PASSRIGHTS): the loop took up to 64 times as many at
		 * each attach, and its descriptors ran out for everyone. */
		if (passed) {
			ss->tainted = true;
			return false;
		}
		if ((size_t)n == sizeof(pf) && pf.magic == WIRE_PROOF_MAGIC &&
		    !(mh.msg_flags & MSG_TRUNC)) {
			if (same_nonce(pf.nonce, nonce))
				return true;
			proof_keep(ss, pf.nonce);
		}
	}
	return false;
}

/* Did the caller prove that it holds the socket?  The proof it names is
 * used up; a wrong nonce uses up none (whoever sends it: any connection
 * may name any handle here). */
bool ssock_proven(struct ssock *ss, const uint8_t *nonce)
{
	if (ss->tainted)
		return false;
	for (unsigned i = 0; i < ss->nproofs; i++)
		if (ss->proofs[i].at && same_nonce(ss->proofs[i].nonce, nonce)) {
			memset(&ss->proofs[i], 0, sizeof(ss->proofs[i]));
			return true;
		}
	return proof_read(ss, nonce);
}
