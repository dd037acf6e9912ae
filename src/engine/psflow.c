/* SPDX-License-Identifier: ISC */
#include "engine/psflow.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "engine/psock_int.h"
#include "wire/in6ext.h"

#define FL_LABEL_MASK htonl(0x000FFFFFu)
#define FL_MAX_LINGER 150	/* seconds, without CAP_NET_ADMIN */

struct flent {
	uint32_t label;		/* network order */
	uint8_t share;
	uint32_t uid;
	int32_t pid;
	unsigned users;
};

struct psflow {
	struct flent *v;
	size_t n, cap;
	uint32_t rng;		/* xorshift32 state, never 0 */
};

struct psflow *psflow_new(uint32_t seed)
{
	struct psflow *f = calloc(1, sizeof(struct psflow));

	if (f)
		f->rng = seed ? seed : 0x9e3779b9u;
	return f;
}

void psflow_free(struct psflow *f)
{
	if (f)
		free(f->v);
	free(f);
}

static struct flent *lookup(struct psflow *f, uint32_t label)
{
	for (size_t i = 0; i < f->n; i++)
		if (f->v[i].label == label)
			return &f->v[i];
	return NULL;
}

static void drop_user(struct psflow *f, uint32_t label)
{
	struct flent *e = lookup(f, label);

	if (e && --e->users == 0)
		*e = f->v[--f->n];
}

bool psflow_held(const struct psock *sk, uint32_t label)
{
	for (unsigned i = 0; i < sk->nfl; i++)
		if (sk->fl[i] == label)
			return true;
	return false;
}

static int link_label(struct psock *sk, uint32_t label)
{
	if (sk->nfl >= PS_MAX_FLOWLABELS)
		return -ENOBUFS;
	sk->fl[sk->nfl++] = label;
	return 0;
}

/* A label nobody holds, for a request of label 0 (fl_intern() picks
 * one at random; any unused one will do, unguessable or not). */
static uint32_t fresh_label(struct psflow *f)
{
	for (;;) {
		uint32_t r;

		f->rng ^= f->rng << 13;
		f->rng ^= f->rng >> 17;
		f->rng ^= f->rng << 5;
		r = f->rng & FL_LABEL_MASK;
		if (r && !lookup(f, r))
			return r;
	}
}

/* fl_create(): the share modes an unprivileged socket may ask for. */
static int check_share(uint8_t share)
{
	switch (share) {
	case IN6EXT_FL_S_EXCL:
	case IN6EXT_FL_S_PROCESS:
	case IN6EXT_FL_S_USER:
	case IN6EXT_FL_S_ANY:
		return 0;
	default:
		return -EINVAL;
	}
}

/* May sk share the existing lease e, asked with share mode share? */
static bool may_share(const struct flent *e, const struct psock *sk,
		      uint8_t share)
{
	if (e->share == IN6EXT_FL_S_EXCL || e->share != share)
		return false;
	if (share == IN6EXT_FL_S_PROCESS && e->pid != sk->pid)
		return false;
	return !(share == IN6EXT_FL_S_USER && e->uid != sk->uid);
}

static int fl_get(struct psflow *f, struct psock *sk, const struct in6ext_flreq *q,
		  uint32_t *label)
{
	struct flent *e, *grown;
	int err;

	if (q->flags & IN6EXT_FL_F_REFLECT)
		return -EPERM;	/* net.ipv6.flowlabel_consistency is on */
	if (q->label & ~FL_LABEL_MASK)
		return -EINVAL;
	err = check_share(q->share);
	if (err)
		return err;
	if (q->label) {
		if (psflow_held(sk, q->label) && (q->flags & IN6EXT_FL_F_EXCL))
			return -EEXIST;
		e = lookup(f, q->label);
		if (e) {
			if (q->flags & IN6EXT_FL_F_EXCL)
				return -EEXIST;
			if (!may_share(e, sk, q->share))
				return -EPERM;
			err = link_label(sk, q->label);
			if (!err)
				e->users++;
			*label = q->label;
			return err;
		}
	}
	if (!(q->flags & IN6EXT_FL_F_CREATE))
		return -ENOENT;
	if (sk->nfl >= PS_MAX_FLOWLABELS)
		return -ENOBUFS;
	if (f->n == f->cap) {
		size_t cap = f->cap ? 2 * f->cap : 16;

		grown = realloc(f->v, cap * sizeof(*grown));
		if (!grown)
			return -ENOMEM;
		f->v = grown;
		f->cap = cap;
	}
	e = &f->v[f->n++];
	*e = (struct flent){ .label = q->label ? q->label : fresh_label(f),
			     .share = q->share, .uid = sk->uid,
			     .pid = sk->pid, .users = 1 };
	*label = e->label;
	return link_label(sk, e->label);
}

static int fl_put(struct psflow *f, struct psock *sk, uint32_t label)
{
	for (unsigned i = 0; i < sk->nfl; i++) {
		if (sk->fl[i] != label)
			continue;
		if ((sk->flow_label & FL_LABEL_MASK) == label)
			sk->flow_label &= ~FL_LABEL_MASK;
		sk->fl[i] = sk->fl[--sk->nfl];
		drop_user(f, label);
		return 0;
	}
	return -ESRCH;
}

int psflow_opt(struct psflow *f, struct psock *sk, const uint8_t *req,
	       uint32_t len, uint32_t *label)
{
	struct in6ext_flreq q;

	*label = 0;
	if (len < sizeof(q))
		return -EINVAL;
	memcpy(&q, req, sizeof(q));
	switch (q.action) {
	case IN6EXT_FL_A_GET:
		return fl_get(f, sk, &q, label);
	case IN6EXT_FL_A_PUT:
		if (q.flags & IN6EXT_FL_F_REFLECT)
			return -ENOPROTOOPT;	/* not a TCP socket */
		return fl_put(f, sk, q.label);
	case IN6EXT_FL_A_RENEW:
		if (!psflow_held(sk, q.label))
			return -ESRCH;
		return q.linger > FL_MAX_LINGER || q.expires > FL_MAX_LINGER
			       ? -EPERM : 0;
	default:
		return -EINVAL;
	}
}

void psflow_release_all(struct psflow *f, struct psock *sk)
{
	while (sk->nfl)
		drop_user(f, sk->fl[--sk->nfl]);
}
