/* SPDX-License-Identifier: ISC */
/*
 * psflow - IPv6 flow label leases (IPV6_FLOWLABEL_MGR), as the kernel's
 * ip6_flowlabel.c keeps them: one table for the daemon (the kernel's is
 * per network namespace), each label with its share mode and owner, and
 * the labels each socket holds.  A socket connected with
 * IPV6_FLOWINFO_SEND must hold the label it names.  A lease released by
 * its last holder lingers for its linger time (at least 6 s) and until
 * its expiry, as the kernel keeps it; now_ms is a monotonic clock in ms.
 */
#ifndef PS_PSFLOW_H
#define PS_PSFLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct psflow;
struct psock;

/* seed: any value; it only spreads the labels handed out for "any". */
struct psflow *psflow_new(uint32_t seed);
void psflow_free(struct psflow *f);

/*
 * setsockopt(IPV6_FLOWLABEL_MGR) with the caller's struct
 * in6_flowlabel_req (len bytes).  0 or -errno; *label is the label
 * leased (network order), to be written back when the caller asked for
 * any (0).  state_ranges: net.ipv6.flowlabel_state_ranges (a get of a
 * label with bit 0x80000 is ERANGE).
 */
int psflow_opt(struct psflow *f, struct psock *sk, const uint8_t *req,
	       uint32_t len, bool state_ranges, uint64_t now_ms,
	       uint32_t *label);
/* getsockopt(IPV6_FLOWLABEL_MGR): buf holds the request (*len bytes)
 * and gets the answer; 0 or -errno. */
int psflow_query(struct psflow *f, const struct psock *sk, uint8_t *buf,
		 uint32_t *len, uint64_t now_ms);
/* Does sk hold label (network order, label bits only)? */
bool psflow_held(const struct psock *sk, uint32_t label);
/* The socket is closing: it gives up its leases (which linger). */
void psflow_release_all(struct psflow *f, struct psock *sk, uint64_t now_ms);
/* Leases in the table, held or lingering (expired ones go at the next
 * request). */
size_t psflow_count(const struct psflow *f);
/* Test hook: leases looked at, ever. */
uint64_t psflow_steps(const struct psflow *f);

#endif
