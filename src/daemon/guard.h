/* SPDX-License-Identifier: ISC */
/*
 * guard - broker mode's per-packet policy in the kernel (src/bpf/).
 *
 * At start-up, as root: the daemon joins a cgroup of its own, loads the
 * BPF programs (a skeleton the Makefile builds from guard.bpf.c), pins
 * its maps and attaches egress, ingress and release programs to that
 * cgroup.  Every socket the daemon makes belongs to that cgroup for its
 * whole life, whoever holds it, so every brokered socket's packets pass
 * the programs.  The attachment outlives the daemon (a SIGKILL leaves
 * the sockets filtered, by the same pinned maps), and the next daemon
 * replaces the programs in place.  ICMP errors, which reach a socket
 * without its cgroup programs, are checked at netfilter (guardnf.h).
 *
 * After the privilege drop the daemon only reads and writes the maps
 * through the descriptors it kept (the seccomp filter allows those bpf()
 * commands alone).
 */
#ifndef PSD_GUARD_H
#define PSD_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "engine/policy.h"

struct guard;
struct hostenv;

/* A socket's counts, as the close record and the table show them. */
struct guard_tally {
	uint64_t requests, replies, refused, forged;
	uint32_t ndests;
	bool capped;
};

/*
 * As root, before the drop: join p->bpf_cgroup (or the daemon's own
 * cgroup, or a new one), load, pin under p->bpf_pin_dir and attach, and
 * write p's keys.  NULL with err filled (why BPF cannot be had), and
 * *unsafe set if it is because others may touch the pin directory (which
 * a user could arrange, to switch the guard off: the daemon must not run
 * without it then).  A pin directory that is not root's alone, in a
 * parent that is, is moved aside and made again (logged).
 */
struct guard *guard_start(const struct policy *p, bool *unsafe, char *err,
			  size_t errlen);
/* Close the descriptors; the programs stay attached (guard.h above). */
void guard_free(struct guard *g);

/* The policy's per-packet keys, written again (SIGHUP).  0 or -errno. */
int guard_set_policy(struct guard *g, const struct policy *p);

/*
 * Register a socket the daemon made for uid, bound to ident (chosen: by
 * the user's bind; its ICMP errors then go unchecked, guardnf.h), before
 * it is handed out (unregistered ping sockets pass nothing).  *cookie: the
 * socket's, for guard_closed().  0 or -errno.
 */
int guard_add(struct guard *g, int fd, int family, uint16_t ident,
	      bool chosen, uid_t uid, uint64_t *cookie);
/* Every identifier of family that no kernel ping socket is bound to (a bit
 * clear in the 65,536-bit map bound, as /proc/net/icmp lists them) is
 * forgotten: entries a killed daemon left behind go at the next scan. */
void guard_prune_idents(struct guard *g, int family, const uint8_t *bound);

/* Is the socket of cookie open still, as far as the guard knows: its
 * counts live, and its release not seen?  (A release that found the
 * closed map full leaves it live: open until its record goes.) */
bool guard_alive(struct guard *g, uint64_t cookie);
/* The counts so far of a socket still open.  false: none. */
bool guard_live(struct guard *g, uint64_t cookie, struct guard_tally *t);

/* The counts a closed socket left (taken: asked once).  false: none. */
bool guard_closed(struct guard *g, uint64_t cookie, struct guard_tally *t);

/* Once the users map is over half full: every user's bucket and totals
 * that known() says the daemon keeps no state for, deleted (so that the
 * map stays free for the users there are). */
void guard_prune_users(struct guard *g, bool (*known)(void *, uid_t),
		       void *ctx);

/* The close records of sockets known() does not know (an earlier
 * daemon's), deleted: nobody would take them. */
void guard_prune_closed(struct guard *g, bool (*known)(void *, uint64_t),
			void *ctx);

/* A user's totals over its brokered sockets.  false: none yet. */
bool guard_user(struct guard *g, uid_t uid, struct guard_tally *t);

/* The local IPv4 broadcast addresses again (replies to a broadcast come
 * from anyone).  Cheap; called with the daemon's periodic scan. */
void guard_refresh(struct guard *g, struct hostenv *host);

/* The BPF object's bytes (guardelf.c, from the Makefile's skeleton). */
const void *guard_elf(size_t *len);
const void *guard_nf_elf(size_t *len);

/* For the seccomp filter: the bpf() commands guard_* use after the drop. */
extern const int guard_bpf_cmds[];
extern const size_t guard_nbpf_cmds;

#endif
