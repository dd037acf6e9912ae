/* SPDX-License-Identifier: ISC */
/*
 * sstate - a relayed socket's state that its holders read without asking
 * (the pending error, the count of records, the receive options, the
 * shutdown states), kept here and copied into its slot of the arena of
 * each process that uses the socket; and its error queue, which the
 * daemon keeps and hands out a record at a time (WIRE_ERRQ), so that the
 * socket costs no descriptor but its data pair's end.  A program waiting
 * for an error is woken by a WIRE_DG_WAKE on the data pair.
 */
#include "daemon/srv.h"

#include <errno.h>
#include <linux/errqueue.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "daemon/arena.h"

/* What a record weighs against the socket's receive buffer: its bytes
 * and about what the kernel's sk_buff around them costs (truesize). */
#define EREC_OVERHEAD 512u

static void publish_to(const struct ssock *ss, struct wire_shm *w)
{
	atomic_store(&w->cmsg, ps_cmsg_flags(ss->ps));
	atomic_store(&w->tsflags, ps_tsflags(ss->ps));
	atomic_store(&w->shutdown, ps_shutdown_mask(ss->ps));
	atomic_store(&w->errq, ss->eq_n);
	atomic_store(&w->wakes, ss->wakes);
	/* Last: a reader that sees the error sees the rest of it. */
	atomic_store(&w->err, ss->err);
}

void sstate_publish(struct ssock *ss)
{
	for (uint32_t i = 0; i < ss->nmirrors; i++)
		publish_to(ss, arena_slot(ss->mirrors[i].a, ss->mirrors[i].slot));
}

/* arena_evict()'s owner is a socket, its idx-th mirror going: the last
 * one takes its place. */
static void forget_mirror(void *owner, uint32_t idx, void *arg)
{
	struct ssock *ss = owner;
	uint32_t last = --ss->nmirrors;

	(void)arg;
	if (idx == last)
		return;
	ss->mirrors[idx] = ss->mirrors[last];
	arena_slot_move(ss->mirrors[idx].a, ss->mirrors[idx].slot, idx);
}

/* Room for one more mirror of ss: a lingering arena holding one gives
 * its slots back if ss has SSTATE_MAX_MIRRORS.  0 or -ENOBUFS. */
static int mirror_room(struct server *s, struct ssock *ss)
{
	if (ss->nmirrors < SSTATE_MAX_MIRRORS)
		return 0;
	for (uint32_t i = 0; i < ss->nmirrors; i++) {
		if (arena_lingers(ss->mirrors[i].a)) {
			arena_evict(s->arenas, ss->mirrors[i].a, forget_mirror,
				    NULL);
			return 0;
		}
	}
	return -ENOBUFS;
}

int sstate_mirror(struct server *s, struct ssock *ss, struct arena *a,
		  uint32_t *slot)
{
	int err;

	for (uint32_t i = 0; i < ss->nmirrors; i++) {
		if (ss->mirrors[i].a == a) {
			*slot = ss->mirrors[i].slot;
			return 0;
		}
	}
	err = mirror_room(s, ss);
	if (err)
		return err;
	if (ss->nmirrors == ss->capmirrors) {
		uint32_t n = ss->capmirrors ? 2 * ss->capmirrors : 2;
		struct mirror *m = realloc(ss->mirrors, n * sizeof(*m));

		if (!m)
			return -ENOMEM;
		ss->mirrors = m;
		ss->capmirrors = n;
	}
	*slot = arena_slot_take(a, ss, ss->nmirrors);
	if (!*slot)
		return -ENOBUFS;
	ss->mirrors[ss->nmirrors++] = (struct mirror){ .a = a, .slot = *slot };
	publish_to(ss, arena_slot(a, *slot));
	return 0;
}

bool sstate_sole_detach(const struct ssock *ss, const struct client *c,
			const struct wire_req *req)
{
	if (req->type != WIRE_DETACH || !(req->rqflags & WIRE_RQ_SOLE) ||
	    !c->arena)
		return false;
	for (uint32_t i = 0; i < ss->nmirrors; i++)
		if (ss->mirrors[i].a == c->arena)
			return true;
	return false;
}

void sstate_detach(struct server *s, struct client *c, struct ssock *ss,
		   bool sole)
{
	struct arena *a = c->arena;

	ssock_unlink(c, ss);
	if (!sole || !a)
		return;
	/* From the end: an unlink moves the last one into the gap. */
	for (size_t i = ss->nclients; i-- > 0;)
		if (ss->clients[i]->arena == a)
			ssock_unlink(ss->clients[i], ss);
	for (uint32_t i = 0; i < ss->nmirrors; i++) {
		if (ss->mirrors[i].a == a) {
			uint32_t slot = ss->mirrors[i].slot;

			forget_mirror(ss, i, NULL);
			arena_slot_give(s->arenas, a, slot);
			return;
		}
	}
}

void sstate_linger(struct server *s, struct arena *a)
{
	struct arena *old;
	unsigned n;

	if (!arena_will_linger(a))
		return;
	old = arena_lingerer(s->arenas, arena_uid(a), false, &n);
	if (old && n >= ARENA_LINGER_UID)
		arena_evict(s->arenas, old, forget_mirror, NULL);
	old = arena_lingerer(s->arenas, 0, true, &n);
	if (old && n >= ARENA_LINGER_ALL)
		arena_evict(s->arenas, old, forget_mirror, NULL);
}

static void uid_bytes(struct server *s, uid_t uid, int64_t n)
{
	struct uident *u = uidtab_get(s->uids, uid, false);

	if (u)
		u->errq = (uint32_t)((int64_t)u->errq + n < 0
					     ? 0 : (int64_t)u->errq + n);
}

void sstate_purge(struct server *s, struct ssock *ss)
{
	while (ss->eq) {
		struct erec *r = ss->eq;

		ss->eq = r->next;
		free(r);
	}
	uid_bytes(s, ss->uid, -(int64_t)ss->eq_bytes);
	ss->eq_tail = NULL;
	ss->eq_n = ss->eq_bytes = 0;
	sstate_publish(ss);
}

void sstate_free(struct server *s, struct ssock *ss)
{
	sstate_purge(s, ss);
	for (uint32_t i = 0; i < ss->nmirrors; i++)
		arena_slot_give(s->arenas, ss->mirrors[i].a,
				ss->mirrors[i].slot);
	free(ss->mirrors);
	ss->mirrors = NULL;
	ss->nmirrors = ss->capmirrors = 0;
}

/* Wake whoever waits on the data pair: a wake-up the readers skip.  A
 * full queue needs none (the waiter has something to read). */
void sstate_wake(struct ssock *ss)
{
	struct wire_dgram dg;

	memset(&dg, 0, sizeof(dg));
	dg.kind = WIRE_DG_WAKE;
	ss->wakes++;
	sstate_publish(ss);
	(void)send(ss->fd, &dg, sizeof(dg), MSG_DONTWAIT | MSG_NOSIGNAL);
}

void sstate_set_err(struct ssock *ss, int err, bool wakeup)
{
	ss->err = err;
	if (wakeup)
		sstate_wake(ss);
	else
		sstate_publish(ss);
}

int sstate_take_err(struct ssock *ss)
{
	int err = ss->err;

	if (err) {
		ss->err = 0;
		sstate_publish(ss);
	}
	return err;
}

/* The receive buffer as the kernel sizes it: net.core.rmem_default
 * until SO_RCVBUF, which it doubles (sock_setsockopt()), at least
 * SOCK_MIN_RCVBUF. */
#define RCVBUF_DEFAULT 212992u
#define RCVBUF_MIN 2304u

static uint64_t rcvbuf_of(const struct ssock *ss)
{
	int v = ps_rcvbuf(ss->ps);
	uint64_t b = v > 0 ? 2 * (uint64_t)v : RCVBUF_DEFAULT;

	return b < RCVBUF_MIN ? RCVBUF_MIN : b;
}

/* sock_queue_err_skb(): refused past the receive buffer; here also past
 * the user's share of the daemon's memory. */
static bool eq_room(struct server *s, const struct ssock *ss, uint32_t w)
{
	struct uident *u = uidtab_get(s->uids, ss->uid, true);

	return u && (uint64_t)ss->eq_bytes + w < rcvbuf_of(ss) &&
	       (uint64_t)u->errq + w <= ERRQ_UID_MAX;
}

int sstate_queue_err(struct server *s, struct ssock *ss, int err,
		     const struct wire_dgram *dg, const void *data, size_t len)
{
	ss->err = err;
	return sstate_queue(s, ss, dg, data, len);
}

int sstate_queue(struct server *s, struct ssock *ss,
		 const struct wire_dgram *dg, const void *data, size_t len)
{
	uint32_t w = (uint32_t)(len + sizeof(struct erec) + EREC_OVERHEAD);
	struct erec *r;

	if (len > WIRE_DATA_MAX || !eq_room(s, ss, w) ||
	    !(r = malloc(sizeof(*r) + len))) {
		ss->drops++;
		return -1;
	}
	r->next = NULL;
	r->len = (uint32_t)len;
	r->dg = *dg;
	if (len)
		memcpy(r->data, data, len);
	if (ss->eq_tail)
		ss->eq_tail->next = r;
	else
		ss->eq = r;
	ss->eq_tail = r;
	ss->eq_n++;
	ss->eq_bytes += w;
	uid_bytes(s, ss->uid, w);
	sstate_wake(ss);
	return 0;
}

/* is_icmp_err_skb() */
static bool from_icmp(const struct wire_dgram *dg)
{
	return dg->ee_origin == SO_EE_ORIGIN_ICMP ||
	       dg->ee_origin == SO_EE_ORIGIN_ICMP6;
}

/*
 * sock_dequeue_err_skb(): once a record is taken, the pending error
 * becomes that of the next record if it is from ICMP, or is cleared if
 * the one taken was from ICMP and no ICMP record follows.
 */
struct erec *sstate_dequeue(struct server *s, struct ssock *ss)
{
	struct erec *r = ss->eq;
	uint32_t w;

	if (!r)
		return NULL;
	w = (uint32_t)(r->len + sizeof(struct erec) + EREC_OVERHEAD);
	ss->eq = r->next;
	if (!ss->eq)
		ss->eq_tail = NULL;
	ss->eq_n--;
	ss->eq_bytes -= w;
	uid_bytes(s, ss->uid, -(int64_t)w);
	if (ss->eq && from_icmp(&ss->eq->dg))
		ss->err = (int32_t)ss->eq->dg.ee_errno;
	else if (from_icmp(&r->dg))
		ss->err = 0;
	sstate_publish(ss);
	return r;
}
