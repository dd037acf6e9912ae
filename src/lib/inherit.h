/* SPDX-License-Identifier: ISC */
/*
 * inherit - ping sockets a program got across exec.  The kernel's ping
 * socket survives exec unless it is close-on-exec; so must the library's.
 * A relayed socket's descriptor is one end of an AF_UNIX socketpair that
 * the new program's table does not know: it is found by its SO_COOKIE
 * (pingsockd answers WIRE_FIND for its caller's uid only) and attached
 * as a forked child's socket is, with a proof of holding it.  Nothing is
 * ever written on a descriptor the daemon has not claimed, nor on a pair
 * a process of the caller's own uid made (SO_PEERCRED), nor, unless the
 * listener at the socket path is root, on a pair some uid other than the
 * listener's made, whatever an impostor daemon claims: a program's own
 * socketpairs, and those it got from a third party, are left alone.  A
 * kernel ping socket (the kernel's own or a broker socket) is learnt as
 * FDK_KERNEL: it works across exec by itself.
 */
#ifndef PS_LIB_INHERIT_H
#define PS_LIB_INHERIT_H

#include "lib/fdtab.h"

/*
 * Once per process image: look at the descriptors it holds.  A kernel
 * ping socket gets its entry (FDK_KERNEL); an AF_UNIX SOCK_SEQPACKET
 * socket, which may be a relayed socket's, gets one of FDK_INHERITED,
 * and nothing more happens to it until its first use: no connection to
 * the daemon, no descriptor of the library's in a program that never
 * uses what it inherited.  The preload scans when it is loaded (a
 * program's calls on an unknown descriptor are not the preload's
 * business); the library on its first call about a descriptor its table
 * does not know, so a program that never makes one pays nothing.
 */
void inherit_scan(void);

/*
 * fd is FDK_INHERITED and about to be used: ask pingsockd whether it is
 * one of the caller's uid's relayed sockets (by its SO_COOKIE, without a
 * byte written on it), and if so attach it (relay_adopt: a socket found
 * but not attached for want of room is the daemon's all the same);
 * otherwise it is the program's own and loses its entry.  Its kind after
 * that.
 */
enum fdkind inherit_resolve(int fd);

#endif
