/* SPDX-License-Identifier: ISC */
/*
 * guard_maps - the maps both BPF objects of the guard use (guard.bpf.c,
 * guard_nf.bpf.c): defined alike in each, pinned by name, so that the
 * second object loaded reuses the first one's (src/daemon/guard.c).
 */
#ifndef PS_GUARD_MAPS_H
#define PS_GUARD_MAPS_H

/* Each user's rate bucket and totals. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, GUARD_UIDS);
	__type(key, __u32);
	__type(value, struct guard_user);
} users SEC(".maps");

/* The requests sent from each brokered identifier (the daemon makes the
 * entry when it hands a socket out, and deletes it when no socket holds
 * the identifier; at most 65,536 a family). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 2 * 65536);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, struct guard_ident);
	__type(value, struct guard_reqs);
} idents SEC(".maps");

#endif
