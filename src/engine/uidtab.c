/* SPDX-License-Identifier: ISC */
#include "engine/uidtab.h"

#include <stdlib.h>

#define UID_BUCKETS 256

struct uidtab {
	struct uident *b[UID_BUCKETS];
	unsigned n;
	unsigned total[UID_SHARES];	/* enum uid_share */
};

struct uidtab *uidtab_new(void)
{
	return calloc(1, sizeof(struct uidtab));
}

void uidtab_free(struct uidtab *t)
{
	if (!t)
		return;
	for (int i = 0; i < UID_BUCKETS; i++) {
		struct uident *e = t->b[i], *nx;

		for (; e; e = nx) {
			nx = e->next;
			free(e);
		}
	}
	free(t);
}

struct uident *uidtab_get(struct uidtab *t, uid_t uid, bool create)
{
	struct uident **head = &t->b[uid % UID_BUCKETS], *e;

	for (e = *head; e; e = e->next)
		if (e->uid == uid)
			return e;
	if (!create || !(e = calloc(1, sizeof(*e))))
		return NULL;
	e->uid = uid;
	e->next = *head;
	*head = e;
	t->n++;
	return e;
}

/* Nothing of the user's log budgets to remember: each full again, and
 * nothing held back that a summary has still to say. */
static bool logs_idle(const struct uident *e, uint64_t now)
{
	if (e->audit.opened || e->audit.closed ||
	    !rate_idle(&e->audit.bucket, now))
		return false;
	for (int i = 0; i < UID_LOG_CLASSES; i++)
		if (e->logq[i].held || !rate_idle(&e->logq[i].bucket, now))
			return false;
	return true;
}

static bool unused(const struct uident *e, uint64_t now)
{
	return !e->conns && !e->nsockets && !e->idents && !e->fds &&
	       !e->reqlog_kib && !e->parked && !e->errq &&
	       rate_idle(&e->bucket, now) && rate_idle(&e->dials, now) &&
	       logs_idle(e, now);
}

void uidtab_prune(struct uidtab *t, uint64_t now)
{
	for (int i = 0; i < UID_BUCKETS; i++) {
		struct uident **p = &t->b[i];

		while (*p) {
			struct uident *e = *p;

			if (unused(e, now)) {
				*p = e->next;
				free(e);
				t->n--;
			} else {
				p = &e->next;
			}
		}
	}
}

void uidtab_each(struct uidtab *t, void (*fn)(struct uident *e, void *ctx),
		 void *ctx)
{
	for (int i = 0; i < UID_BUCKETS; i++)
		for (struct uident *e = t->b[i]; e; e = e->next)
			fn(e, ctx);
}

unsigned uidtab_count(const struct uidtab *t)
{
	return t->n;
}

size_t uidtab_page(const struct uidtab *t, uid_t from,
		   const struct uident **out, size_t max, bool *more)
{
	size_t n = 0;

	*more = false;
	/* An insertion into the sorted page; one past it says "more". */
	for (int i = 0; i < UID_BUCKETS; i++) {
		for (const struct uident *e = t->b[i]; e; e = e->next) {
			size_t j;

			if (e->uid < from)
				continue;
			if (n == max && (!max || e->uid > out[n - 1]->uid)) {
				*more = true;
				continue;
			}
			*more |= n == max;
			j = n < max ? n++ : n - 1;
			for (; j > 0 && out[j - 1]->uid > e->uid; j--)
				out[j] = out[j - 1];
			out[j] = e;
		}
	}
	return n;
}

static unsigned *field(struct uident *e, enum uid_share what)
{
	return what == UID_FDS ? &e->fds
	       : what == UID_IDENTS ? &e->idents : &e->reqlog_kib;
}

static unsigned value(const struct uident *e, enum uid_share what)
{
	return what == UID_FDS ? e->fds
	       : what == UID_IDENTS ? e->idents : e->reqlog_kib;
}

void uidtab_add(struct uidtab *t, struct uident *e, enum uid_share what,
		int n)
{
	unsigned *f = field(e, what);

	/* Never below zero, in the user's count or in the total. */
	if (n < 0 && (unsigned)-n > *f)
		n = -(int)*f;
	*f += (unsigned)n;
	t->total[what] += (unsigned)n;
}

unsigned uidtab_total(const struct uidtab *t, enum uid_share what)
{
	return t->total[what];
}

bool uidtab_may_take(const struct uidtab *t, const struct uident *e,
		     enum uid_share what, unsigned want, unsigned cap)
{
	unsigned used = t->total[what], holders = 0;
	unsigned mine = e ? value(e, what) : 0;

	if (used + want > cap)
		return false;
	if (cap - used - want >= UID_RESERVE(cap))
		return true;
	/* Short: the average over the users holding any, e counted. */
	for (int i = 0; i < UID_BUCKETS; i++)
		for (const struct uident *x = t->b[i]; x; x = x->next)
			if (value(x, what) || x == e)
				holders++;
	if (!e)
		holders++;
	/* Users who come one after another are each below the average of
	 * those before them: without the second rule they took it all. */
	return (unsigned long long)mine * (holders ? holders : 1) < used &&
	       (unsigned long long)mine * (holders + 1) < cap - used;
}
