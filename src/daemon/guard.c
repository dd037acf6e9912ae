/* SPDX-License-Identifier: ISC */
#include "daemon/guard.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/guard_abi.h"
#include "daemon/bpfload.h"
#include "daemon/guardcg.h"
#include "daemon/guardnf.h"
#include "daemon/hostenv.h"
#include "daemon/log.h"
#include "daemon/mapwalk.h"

#define BPF_FS_MAGIC_ 0xcafe4a11

struct guard {
	struct bpf_object *obj;
	int conf, nets4, nets6, bcast4, socks, users, closed, live, idents;
	struct guardnf *nf;	/* the ICMP errors' check; NULL: none */
	uint32_t bcast[64];	/* what bcast4 holds now */
	size_t nbcast;
};

/* The bpf() commands used after the drop (filter.c allows these). */
const int guard_bpf_cmds[] = {
	BPF_MAP_LOOKUP_ELEM, BPF_MAP_UPDATE_ELEM, BPF_MAP_DELETE_ELEM,
	BPF_MAP_GET_NEXT_KEY,
};
const size_t guard_nbpf_cmds = sizeof(guard_bpf_cmds) /
			       sizeof(guard_bpf_cmds[0]);

/* ---- load, pin, attach ---- */

/*
 * The pins may go only where no user can unlink or replace them: dir
 * root's alone (no symbolic link), in a parent that is root's and either
 * writable by root alone or sticky (a BPF file system's root is 1777).
 */
static bool owned_safe(const char *path, int flags, bool sticky_ok)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | flags);
	struct stat st;
	bool ok = fd >= 0 && fstat(fd, &st) == 0 && st.st_uid == 0 &&
		  (!(st.st_mode & (S_IWGRP | S_IWOTH)) ||
		   (sticky_ok && (st.st_mode & S_ISVTX)));

	if (fd >= 0)
		close(fd);
	return ok;
}

/*
 * dir is there, in a safe parent, but not root's alone: any user may make
 * it first in a BPF file system's root (1777), and the guard was then
 * given up for everyone.  It is moved aside in parent (under a name
 * without a dot: a BPF file system refuses those) with whatever is in it,
 * and made again; a user making it again in between is outrun a few
 * times, then the daemon gives up.  0, or -1 with err filled.
 */
static int pin_dir_retake(const char *parent, const char *dir, char *err,
			  size_t errlen)
{
	const char *slash = strrchr(dir, '/'), *name = slash ? slash + 1 : dir;
	int p = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = -1;
	char aside[NAME_MAX + 1];

	for (unsigned i = 0; p >= 0 && i < 8 && rc; i++) {
		snprintf(aside, sizeof(aside), "%.200s_not_roots_%ld_%u", name,
			 (long)getpid(), i);
		if (renameat2(p, name, p, aside, RENAME_NOREPLACE) == 0) {
			log_warn("guard: %s was not root's alone: moved to "
				 "%s/%s", dir, parent, aside);
			rc = mkdirat(p, name, 0700);
		} else if (errno != EEXIST) {
			break;
		}
	}
	if (rc || !owned_safe(dir, O_NOFOLLOW, false)) {
		snprintf(err, errlen, "%s: not root's alone, and it could not "
			 "be moved aside: %s", dir, strerror(errno));
		rc = -1;
	}
	if (p >= 0)
		close(p);
	return rc;
}

/* The pin directory, on a BPF file system, made if missing (0700).  0,
 * -1 (no BPF file system there, or it could not be made), or -2 when
 * others may touch it and that could not be undone (err filled). */
static int pin_dir(const char *dir, char *err, size_t errlen)
{
	char parent[POLICY_PATH_MAX], *slash;
	struct statfs sf;

	snprintf(parent, sizeof(parent), "%s", dir);
	slash = strrchr(parent, '/');
	if (slash && slash != parent)
		*slash = '\0';
	if (statfs(parent, &sf) || sf.f_type != BPF_FS_MAGIC_) {
		snprintf(err, errlen, "%s is not on a BPF file system (mount "
			 "-t bpf bpf %s)", dir, parent);
		return -1;
	}
	if (!owned_safe(parent, 0, true)) {
		snprintf(err, errlen, "%s: not root's alone, or others may "
			 "rename in it", parent);
		return -2;
	}
	if (mkdir(dir, 0700) && errno != EEXIST) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!owned_safe(dir, O_NOFOLLOW, false) &&
	    pin_dir_retake(parent, dir, err, errlen))
		return -2;
	return 0;
}

/* Is the program id one of ours (by name), to be replaced? */
static int ours(uint32_t id, const char *name)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	int fd = bpf_prog_get_fd_by_id(id);

	if (fd < 0)
		return -1;
	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(fd, &info, &len) ||
	    strncmp(info.name, name, sizeof(info.name)) != 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * prog on cgroup cg at type, then the last daemon's copies off: the
 * sockets are never without one.
 */
static int attach(int cg, struct bpf_program *prog, enum bpf_attach_type type,
		  char *err, size_t errlen)
{
	uint32_t ids[256], n = 256;
	int old[256], nold = 0, rc;
	const char *name = bpf_program__name(prog);

	/* Every old copy must be found, or two would run on each packet. */
	if (bpf_prog_query(cg, type, 0, NULL, ids, &n)) {
		snprintf(err, errlen, "listing the cgroup's programs: %s",
			 strerror(errno));
		return -1;
	}
	for (uint32_t i = 0; i < n && nold < 256; i++) {
		int fd = ours(ids[i], name);

		if (fd >= 0)
			old[nold++] = fd;
	}
	rc = bpf_prog_attach(bpf_program__fd(prog), cg, type,
			     BPF_F_ALLOW_MULTI);
	if (rc)
		snprintf(err, errlen, "attaching %s: %s", name, strerror(errno));
	for (int i = 0; i < nold; i++) {
		if (!rc)
			bpf_prog_detach2(old[i], cg, type);
		close(old[i]);
	}
	return rc;
}

/* One program, by name, on the cgroup. */
static int attach_one(struct bpf_object *obj, int cg, const char *name,
		      enum bpf_attach_type type, char *err, size_t errlen)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(obj, name);

	if (!prog) {
		snprintf(err, errlen, "BPF object: no program %s", name);
		return -1;
	}
	return attach(cg, prog, type, err, errlen);
}

static int attach_all(struct bpf_object *obj, int cg, char *err,
		      size_t errlen)
{
	return attach_one(obj, cg, "ps_egress", BPF_CGROUP_INET_EGRESS, err,
			  errlen) ||
	       attach_one(obj, cg, "ps_ingress", BPF_CGROUP_INET_INGRESS, err,
			  errlen) ||
	       attach_one(obj, cg, "ps_release", BPF_CGROUP_INET_SOCK_RELEASE,
			  err, errlen) ? -1 : 0;
}

/* Every entry of a hash map with keys of klen bytes, deleted. */
static void clear_map(int map, size_t klen)
{
	uint8_t key[64] = { 0 };

	if (klen > sizeof(key))
		return;
	while (bpf_map_get_next_key(map, NULL, key) == 0 &&
	       bpf_map_delete_elem(map, key) == 0)
		;
}

/* The maps' descriptors, by name: 0, or -1 if one is missing. */
static int take_fds(struct guard *g)
{
	struct bpf_object *o = g->obj;

	g->conf = bpf_object__find_map_fd_by_name(o, "conf");
	g->nets4 = bpf_object__find_map_fd_by_name(o, "nets4");
	g->nets6 = bpf_object__find_map_fd_by_name(o, "nets6");
	g->bcast4 = bpf_object__find_map_fd_by_name(o, "bcast4");
	g->socks = bpf_object__find_map_fd_by_name(o, "socks");
	g->users = bpf_object__find_map_fd_by_name(o, "users");
	g->closed = bpf_object__find_map_fd_by_name(o, "closed");
	g->live = bpf_object__find_map_fd_by_name(o, "live");
	g->idents = bpf_object__find_map_fd_by_name(o, "idents");
	return g->conf < 0 || g->nets4 < 0 || g->nets6 < 0 || g->bcast4 < 0 ||
	       g->socks < 0 || g->users < 0 || g->closed < 0 || g->live < 0 ||
	       g->idents < 0 ? -1 : 0;
}

/* The ICMP errors' check (guardnf.h): without it, the rest still holds. */
static void start_nf(struct guard *g, const char *dir)
{
	char err[512];

	g->nf = guardnf_start(dir, g->users, g->idents, err, sizeof(err));
	if (!g->nf)
		log_warn("broker: ICMP errors quoting brokered sockets' requests "
			 "are not checked (%s): they reach the sockets as on "
			 "the kernel's own", err);
}

struct guard *guard_start(const struct policy *p, bool *unsafe, char *err,
			  size_t errlen)
{
	struct guard *g = calloc(1, sizeof(*g));
	const void *elf;
	size_t len;
	int cg = -1;

	*unsafe = false;
	if (!g) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	switch (pin_dir(p->bpf_pin_dir, err, errlen)) {
	case 0:
		break;
	case -2:
		*unsafe = true;
		goto fail;
	default:
		goto fail;
	}
	elf = guard_elf(&len);
	g->obj = bpfload_open(elf, len, "guard", p->bpf_pin_dir, 0, 0, NULL, 0,
			      err, errlen);
	if (!g->obj)
		goto fail;
	if (take_fds(g)) {
		snprintf(err, errlen, "BPF object: a map is missing");
		goto fail;
	}
	clear_map(g->bcast4, sizeof(uint32_t));	/* guard_refresh() fills it */
	/* The keys first: the programs refuse everything until ready. */
	if (guard_set_policy(g, p)) {
		snprintf(err, errlen, "writing the BPF maps: %s",
			 strerror(errno));
		goto fail;
	}
	cg = guardcg_pick(p, err, errlen);
	if (cg < 0 || attach_all(g->obj, cg, err, errlen))
		goto fail;
	close(cg);
	start_nf(g, p->bpf_pin_dir);
	return g;
fail:
	if (cg >= 0)
		close(cg);
	guard_free(g);
	return NULL;
}

void guard_free(struct guard *g)
{
	if (!g)
		return;
	guardnf_free(g->nf);
	if (g->obj)
		bpf_object__close(g->obj);	/* attachments stay */
	free(g);
}

/* ---- the policy's keys ---- */

/* Is there a deny line for n's network too?  (Deny wins.) */
static bool denied_too(const struct policy *p, const struct policy_net *n)
{
	for (unsigned i = 0; i < p->nnets; i++)
		if (!p->nets[i].allow && p->nets[i].plen == n->plen &&
		    ps_addr_eq(&p->nets[i].addr, &n->addr))
			return true;
	return false;
}

static int put_net(struct guard *g, const struct policy *p,
		   const struct policy_net *n)
{
	uint8_t v = n->allow ? GUARD_NET_ALLOW : GUARD_NET_DENY;

	if (n->allow && denied_too(p, n))
		return 0;
	if (n->addr.family == AF_INET6) {
		struct guard_net6 k = { .prefixlen = n->plen };

		memcpy(k.addr, n->addr.a, 16);
		return bpf_map_update_elem(g->nets6, &k, &v, BPF_ANY);
	}
	struct guard_net4 k = { .prefixlen = n->plen };

	memcpy(k.addr, n->addr.a, 4);
	return bpf_map_update_elem(g->nets4, &k, &v, BPF_ANY);
}

/* Is the trie key (of the family's size) one of p's networks? */
static bool in_policy(const struct policy *p, int family, uint32_t plen,
		      const uint8_t *addr)
{
	size_t alen = family == AF_INET6 ? 16 : 4;

	for (unsigned i = 0; i < p->nnets; i++)
		if (p->nets[i].addr.family == family &&
		    p->nets[i].plen == plen &&
		    !memcmp(p->nets[i].addr.a, addr, alen))
			return true;
	return false;
}

/* The entries of a trie that p no longer has, deleted (after the new
 * ones are in: no moment without a line that stays). */
static void prune(int map, const struct policy *p, int family)
{
	uint8_t key[sizeof(struct guard_net6)] = { 0 }, next[sizeof(key)] = { 0 };
	bool first = true;

	while (bpf_map_get_next_key(map, first ? NULL : key, next) == 0) {
		uint32_t plen;

		memcpy(&plen, next, sizeof(plen));
		memcpy(key, next, sizeof(key));
		first = false;
		if (!in_policy(p, family, plen, next + 4))
			first = bpf_map_delete_elem(map, next) == 0;
	}
}

int guard_set_policy(struct guard *g, const struct policy *p)
{
	struct guard_conf c = {
		.rate = p->rate, .burst = p->burst,
		.min_interval_ms = p->min_interval_ms,
		.max_request = p->max_request, .any_allow = p->any_allow,
		.ready = 1, .nets = p->nnets,
	};
	struct guard_conf old = { 0 }, during;
	uint32_t zero = 0;

	/* While the networks change, the stricter of the two any_allow: a
	 * moment with the old lines gone and the new not yet in force may
	 * refuse a send either policy allows, never pass one both refuse. */
	bpf_map_lookup_elem(g->conf, &zero, &old);
	/* A new generation at each write: the answers sockets cached under
	 * an older one are looked up again (never 0: "none"). */
	c.gen = old.gen + 2 ? old.gen + 2 : 1;
	during = c;
	during.gen = c.gen - 1 ? c.gen - 1 : UINT32_MAX;
	during.any_allow = old.any_allow || c.any_allow;
	during.nets = old.nets + c.nets;	/* the trie is looked in */
	if (bpf_map_update_elem(g->conf, &zero, &during, BPF_ANY))
		return -errno;
	for (unsigned i = 0; i < p->nnets; i++)
		if (put_net(g, p, &p->nets[i]))
			return -errno;
	prune(g->nets4, p, AF_INET);
	prune(g->nets6, p, AF_INET6);
	return bpf_map_update_elem(g->conf, &zero, &c, BPF_ANY) ? -errno : 0;
}

/* ---- sockets and counts ---- */

/* The identifier's entry, for the errors' check, made afresh: the daemon
 * gives out only identifiers no kernel socket holds, so an entry there
 * is a gone socket's. */
static int add_ident(struct guard *g, int family, uint16_t ident,
		     bool chosen, uid_t uid)
{
	struct guard_ident k = { .ident = ident, .family = (uint8_t)family };
	struct guard_reqs *v = calloc(1, sizeof(*v));
	int rc = 0;

	if (!v)
		return -ENOMEM;
	v->uid = (uint32_t)uid;
	v->flags = chosen ? GUARD_IDENT_CHOSEN : 0;
	if (bpf_map_update_elem(g->idents, &k, v, BPF_ANY))
		rc = -errno;
	free(v);
	return rc;
}

/* The user's bucket and totals, made by the daemon (the programs make
 * one only for a socket an earlier daemon handed out): a map full of
 * other uids refuses this socket, not another user's sends. */
static int add_user(struct guard *g, uid_t uid)
{
	struct guard_user u = { 0 };
	uint32_t key = (uint32_t)uid;

	if (bpf_map_update_elem(g->users, &key, &u, BPF_NOEXIST) &&
	    errno != EEXIST)
		return -errno;
	return 0;
}

/* bpf() for mapwalk_prune(): the map is a descriptor. */
static int walk_next(void *map, const void *key, void *next)
{
	return bpf_map_get_next_key(*(int *)map, key, next) ? -1 : 0;
}

static int walk_del(void *map, const void *key)
{
	return bpf_map_delete_elem(*(int *)map, key) ? -1 : 0;
}

static const struct mapwalk_ops walk_ops = { walk_next, walk_del };

struct uid_known_ctx {
	bool (*known)(void *, uid_t);
	void *ctx;
};

static bool uid_unknown(void *ctx, const void *key)
{
	const struct uid_known_ctx *k = ctx;
	uint32_t uid;

	memcpy(&uid, key, sizeof(uid));
	return !k->known(k->ctx, (uid_t)uid);
}

void guard_prune_users(struct guard *g, bool (*known)(void *, uid_t),
		       void *ctx)
{
	struct uid_known_ctx k = { known, ctx };
	uint32_t key = 0, next = 0, n = 0;

	/* Only past half full: a bucket deleted is a bucket refilled, so
	 * users the daemon does not know (sockets an earlier daemon handed
	 * out) keep theirs while there is room. */
	while (bpf_map_get_next_key(g->users, n ? &key : NULL, &next) == 0 &&
	       n <= GUARD_UIDS / 2) {
		key = next;
		n++;
	}
	if (n <= GUARD_UIDS / 2)
		return;
	mapwalk_prune(&walk_ops, &g->users, sizeof(uint32_t),
		      2 * (size_t)GUARD_UIDS + 2, uid_unknown, &k);
}

struct unbound {
	int family;
	const uint8_t *bound;
};

static bool ident_unbound(void *ctx, const void *key)
{
	const struct unbound *u = ctx;
	struct guard_ident id;

	memcpy(&id, key, sizeof(id));
	return id.family == u->family &&
	       !(u->bound[id.ident / 8] & (1u << (id.ident % 8)));
}

void guard_prune_idents(struct guard *g, int family, const uint8_t *bound)
{
	struct unbound u = { family, bound };

	/* Twice the map's size: a walk that others send back to its start
	 * a few times still ends. */
	mapwalk_prune(&walk_ops, &g->idents, sizeof(struct guard_ident),
		      4 * 65536 + 2, ident_unbound, &u);
}

int guard_add(struct guard *g, int fd, int family, uint16_t ident,
	      bool chosen, uid_t uid, uint64_t *cookie)
{
	struct guard_sock *v = calloc(1, sizeof(*v));
	struct guard_counts zero = { 0 };
	socklen_t len = sizeof(*cookie);
	int rc = 0;

	if (!v)
		return -ENOMEM;
	v->uid = (uint32_t)uid;
	if (getsockopt(fd, SOL_SOCKET, SO_COOKIE, cookie, &len) ||
	    bpf_map_update_elem(g->live, cookie, &zero, BPF_ANY) ||
	    bpf_map_update_elem(g->socks, &fd, v, BPF_NOEXIST))
		rc = -errno;
	free(v);
	if (rc && *cookie)
		bpf_map_delete_elem(g->live, cookie);
	rc = rc ? rc : add_user(g, uid);
	return rc ? rc : add_ident(g, family, ident, chosen, uid);
}

static void tally(struct guard_tally *t, const struct guard_counts *c)
{
	t->requests = c->requests;
	t->replies = c->replies;
	t->refused = c->refused;
	t->forged = c->forged;
	t->ndests = c->ndests;
	t->capped = c->capped != 0;
}

bool guard_live(struct guard *g, uint64_t cookie, struct guard_tally *t)
{
	struct guard_counts c = { 0 };	/* filled by the kernel */

	if (bpf_map_lookup_elem(g->live, &cookie, &c))
		return false;
	tally(t, &c);
	return true;
}

bool guard_alive(struct guard *g, uint64_t cookie)
{
	struct guard_closed rec = { 0 };
	struct guard_counts c = { 0 };

	return bpf_map_lookup_elem(g->closed, &cookie, &rec) != 0 &&
	       bpf_map_lookup_elem(g->live, &cookie, &c) == 0;
}

bool guard_closed(struct guard *g, uint64_t cookie, struct guard_tally *t)
{
	struct guard_closed rec = { 0 };	/* filled by the kernel */
	bool found;

	if (bpf_map_lookup_elem(g->closed, &cookie, &rec) == 0) {
		bpf_map_delete_elem(g->closed, &cookie);
		tally(t, &rec.c);
		found = true;
	} else {
		/* The release program found closed full: the last copy. */
		found = guard_live(g, cookie, t);
	}
	bpf_map_delete_elem(g->live, &cookie);
	return found;
}

struct known_ctx {
	bool (*known)(void *, uint64_t);
	void *ctx;
};

static bool cookie_unknown(void *ctx, const void *key)
{
	const struct known_ctx *k = ctx;
	uint64_t cookie;

	memcpy(&cookie, key, sizeof(cookie));
	return !k->known(k->ctx, cookie);
}

void guard_prune_closed(struct guard *g, bool (*known)(void *, uint64_t),
			void *ctx)
{
	struct known_ctx k = { known, ctx };

	mapwalk_prune(&walk_ops, &g->closed, sizeof(uint64_t),
		      2 * (size_t)GUARD_LIVE + 2, cookie_unknown, &k);
}

bool guard_user(struct guard *g, uid_t uid, struct guard_tally *t)
{
	struct guard_user u = { 0 };	/* filled by the kernel */
	uint32_t key = (uint32_t)uid;

	if (bpf_map_lookup_elem(g->users, &key, &u))
		return false;
	memset(t, 0, sizeof(*t));
	t->requests = u.requests;
	t->replies = u.replies;
	t->refused = u.refused;
	t->forged = u.forged;
	return true;
}

void guard_refresh(struct guard *g, struct hostenv *host)
{
	uint32_t now[64];
	size_t n = hostenv_broadcasts(host, now, 64);
	uint8_t one = 1;

	for (size_t i = 0; i < n; i++)
		bpf_map_update_elem(g->bcast4, &now[i], &one, BPF_ANY);
	for (size_t i = 0; i < g->nbcast; i++) {
		bool kept = false;

		for (size_t j = 0; j < n && !kept; j++)
			kept = now[j] == g->bcast[i];
		if (!kept)
			bpf_map_delete_elem(g->bcast4, &g->bcast[i]);
	}
	memcpy(g->bcast, now, n * sizeof(now[0]));
	g->nbcast = n;
}
