/* SPDX-License-Identifier: ISC */
#include "daemon/share.h"

#include <stdlib.h>
#include "daemon/loop.h"

#define SHARE_BUCKETS 256

struct share {
	uid_t uid;
	unsigned refs;			/* connections of uid */
	struct loop_group *g;
	struct share *next;
};

struct shares {
	struct loop *l;
	struct share *b[SHARE_BUCKETS];
};

struct shares *shares_new(struct loop *l)
{
	struct shares *t = calloc(1, sizeof(*t));

	if (t)
		t->l = l;
	return t;
}

void shares_free(struct shares *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < SHARE_BUCKETS; i++)
		while (t->b[i]) {
			struct share *e = t->b[i];

			t->b[i] = e->next;
			loop_group_free(e->g);
			free(e);
		}
	free(t);
}

static struct share **slot(struct shares *t, uid_t uid)
{
	struct share **p = &t->b[(uid * 2654435761u) % SHARE_BUCKETS];

	while (*p && (*p)->uid != uid)
		p = &(*p)->next;
	return p;
}

struct loop_group *share_get(struct shares *t, uid_t uid, bool *made)
{
	struct share **p = slot(t, uid), *e = *p;

	*made = !e;
	if (!e) {
		e = calloc(1, sizeof(*e));
		if (!e)
			return NULL;
		e->g = loop_group_new(t->l);
		if (!e->g) {
			free(e);
			return NULL;
		}
		e->uid = uid;
		*p = e;
	}
	e->refs++;
	return e->g;
}

bool share_put(struct shares *t, uid_t uid)
{
	struct share **p = slot(t, uid), *e = *p;

	if (!e || --e->refs)
		return false;
	*p = e->next;
	loop_group_free(e->g);
	free(e);
	return true;
}
