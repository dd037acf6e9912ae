/* SPDX-License-Identifier: ISC */
/*
 * rangekeep - broker mode's claim on net.ipv4.ping_group_range.
 *
 * In broker mode only pingsockd may make kernel ping sockets: the range of
 * its network namespace is set to the daemon's own group, "G G".  The
 * sysctl is owned by root, and the daemon drops root: so the claim forks a
 * keeper first, a child that keeps uid 0 but nothing else (no capability,
 * no groups but G, no_new_privs, a seccomp filter allowing reads and
 * writes on the descriptors it holds and exit).  It holds the sysctl open
 * and waits for the daemon's end of a pipe to close, which happens however
 * the daemon ends; then it puts the previous range back, unless someone
 * changed the range meanwhile, and exits.
 */
#ifndef PSD_RANGEKEEP_H
#define PSD_RANGEKEEP_H

#include <stddef.h>
#include <sys/types.h>

/*
 * As root.  Refuses (-1, err filled) when the range admits any group but
 * G already: another administrator gave ping sockets to those groups, and
 * broker mode would take them away.  A range of exactly "G G" (a previous
 * daemon that was killed) is taken over; the range restored is then the
 * closed "1 0".  On success the range is "G G" and the keeper runs.
 */
int rangekeep_claim(gid_t gid, char *err, size_t errlen);

/* The range as the kernel prints it, e.g. "1\t0"; "" when unreadable. */
void rangekeep_read(char *buf, size_t len);

#endif
