/* SPDX-License-Identifier: ISC */
/*
 * pingsock-run - runs a program, and every process and thread it starts,
 * so that its ping sockets come from pingsockd's broker mode, whatever
 * the program is written in and however it is linked (Go, static
 * binaries, programs with file capabilities: all that LD_PRELOAD does
 * not reach).
 *
 * How: the child installs a seccomp filter (under no_new_privs) that
 * sends socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP), its IPv6 twin and
 * bind() to this process (SECCOMP_RET_USER_NOTIF); this process asks the
 * daemon for a kernel ping socket, as the library's broker backend does,
 * and installs it in the caller (SECCOMP_IOCTL_NOTIF_ADDFD), which sees
 * its socket() return it.  Everything else the program does is the
 * kernel's, untouched.
 *
 *   main.c    the command line, what the kernel and the daemon allow,
 *             the child, its exit status passed on
 *   filter.c  the child's filter, its listener handed to the parent
 *   super.c   the supervisor: the calls the filter sends, the sockets'
 *             liveness descriptors
 */
#ifndef PS_RUN_RUN_H
#define PS_RUN_RUN_H

#include <stdbool.h>
#include <sys/types.h>

/* The families whose ping sockets the kernel refuses this user. */
struct run_families {
	bool v4, v6;
};

/*
 * In the child: no_new_privs, the filter for fam's sockets and for
 * bind(), and its listener sent on sock.  0, or -errno.
 */
int filter_install(const struct run_families *fam, int sock);
/* In the parent: the listener the child sent on sock; -errno if none. */
int filter_receive(int sock);

/*
 * Serve the calls the filter sends, and forward the signals that arrive
 * on sigfd, until child ends; its wait status.
 */
int super_run(int listener, pid_t child, int sigfd);

#endif
