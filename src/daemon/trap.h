/* SPDX-License-Identifier: ISC */
/*
 * trap - what the daemon says when its seccomp filter (filter.h) refuses
 * a call: a SIGSYS handler that names the call on stderr, in the
 * --log-file and to syslog, with async-signal-safe calls only (the call
 * may have come from inside malloc() or syslog()), then dies of the
 * signal:
 *
 *   pingsockd: sandbox: forbidden system call execve (59), stopping
 *
 * Built with -DPSD_TESTING (build/tests/lib/pingsockd-sandboxtest only),
 * SIGUSR1 makes the daemon try a forbidden call (PINGSOCKD_TEST_TRY:
 * open of /etc/passwd for writing by default, "hdrincl", "abstract") and
 * SIGUSR2 execve(), to test that the filter stops it.
 */
#ifndef PSD_TRAP_H
#define PSD_TRAP_H

#include <stddef.h>

/* A syslog connection of the handler's own (daemonised, no --log-file):
 * before the chroot. */
void trap_open_syslog(void);
/* The handler (and the test build's triggers), before the filter. */
int trap_install(char *err, size_t errlen);
#ifdef PSD_TESTING
/* The raw socket the test build's "hdrincl" trigger uses. */
void trap_test_raw(int fd);
#endif

#endif
