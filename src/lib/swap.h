/* SPDX-License-Identifier: ISC */
/*
 * swap - a new socket in the place of an old one, in this whole process.
 *
 * A kernel socket cannot be bound twice, so broker mode binds a fresh
 * socket by replacing it (broker.h).  For the program not to see that,
 * the new socket takes over everything of the old one the process holds:
 * every descriptor of the same open file (dup, dup2, F_DUPFD: each keeps
 * its number and its FD_CLOEXEC), every epoll registration of one of
 * them (the same events and data, read from the kernel's own list in
 * /proc/self/fdinfo, so that a registration made in any way is found),
 * and the open file's status flags and signal owner.
 *
 * What it cannot reach: copies held by other processes (after fork, or
 * passed over a socket), and, without /proc, descriptors the library
 * was not told about and every epoll registration.
 */
#ifndef PS_LIB_SWAP_H
#define PS_LIB_SWAP_H

#include <stddef.h>

/*
 * nfd's socket in the place of fd's (and of every other descriptor of
 * fd's open file; known[0..nknown) are those the library knows of, the
 * only ones found without /proc).  0, or -errno when fd itself could not
 * take it; nfd stays the caller's.
 */
int swap_socket(int fd, int nfd, const int *known, size_t nknown);

#endif
