#include "daemon/uidtab.h"

#include <stdlib.h>

#define UID_BUCKETS 256

struct uidtab {
	struct uident *b[UID_BUCKETS];
	unsigned n;
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

void uidtab_prune(struct uidtab *t, uint64_t now)
{
	for (int i = 0; i < UID_BUCKETS; i++) {
		struct uident **p = &t->b[i];

		while (*p) {
			struct uident *e = *p;

			if (e->nsockets == 0 && rate_idle(&e->bucket, now)) {
				*p = e->next;
				free(e);
				t->n--;
			} else {
				p = &e->next;
			}
		}
	}
}

unsigned uidtab_count(const struct uidtab *t)
{
	return t->n;
}
