/* SPDX-License-Identifier: ISC */
/*
 * guardnf - broker mode's check of the ICMP errors that quote a brokered
 * socket's requests (src/bpf/guard_nf.bpf.c), at netfilter's LOCAL_IN
 * hook of the daemon's network namespace (a BPF link, Linux 6.4 and
 * later).  An error reaches a ping socket's error queue without passing
 * the socket's cgroup programs (guard.h), so it is checked here, before
 * the kernel looks for the socket.
 *
 * Loaded after guard.h's object, from the same pin directory: it shares
 * that object's users and idents maps (their descriptors).  Its links are pinned there too
 * (nf_link4, nf_link6), so that they outlive the daemon as the cgroup
 * attachments do; the next daemon's links replace them.
 */
#ifndef PSD_GUARDNF_H
#define PSD_GUARDNF_H

#include <stddef.h>
#include <stdint.h>

struct guardnf;

/* As root: load (with guard.h's users and idents maps, by descriptor),
 * attach for IPv4 and IPv6, pin.  NULL with err filled. */
struct guardnf *guardnf_start(const char *pin_dir, int users, int idents,
			      char *err, size_t errlen);
/* Errors dropped since the maps were made. */
uint64_t guardnf_drops(const struct guardnf *n);
/* The descriptors closed; the pinned links stay. */
void guardnf_free(struct guardnf *n);

#endif
