/* SPDX-License-Identifier: ISC */
/*
 * sock (pingsock-run) - the sockets handed to the supervised program:
 * made by the daemon through the library, installed in the caller, and
 * remembered by inode with their liveness descriptor, which the
 * supervisor holds: the daemon counts a socket (max_sockets, the audit
 * record's duration) until that descriptor closes, which it does once
 * the socket is gone from /proc/net/icmp{,6} (the program closed it:
 * looked for every second), or when the supervisor ends.
 */
#ifndef PS_RUN_SOCK_H
#define PS_RUN_SOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

struct run_sock;

/*
 * A ping socket from the daemon for the caller's socket(domain, type,
 * protocol), installed as its result (notification id of listener lfd).
 * 0 once installed (the call answered), or -errno for the call.
 */
int sock_install(int lfd, uint64_t id, int domain, int type, int protocol);

/* The socket ofd (a copy of the caller's descriptor) if it is ours. */
struct run_sock *sock_find(int ofd);

/*
 * The program binds socket rs (its descriptor fd, a copy here: ofd), to
 * addr: as the library's broker backend does, the first bind is the
 * daemon's, which makes a new socket bound as asked to take the old
 * one's place (installed at fd, with its options copied); a bind to the
 * wildcard address and identifier 0 keeps the socket the daemon made
 * bound so already.  0 or -errno for the call.
 */
int sock_bind(struct run_sock *rs, int ofd, const void *addr,
	      socklen_t len, int lfd, uint64_t id, int fd, bool cloexec);

/*
 * IPV6_V6ONLY on socket rs: the daemon bound it, and the kernel allows
 * the option only before, so it is kept here, as the library's broker
 * backend keeps it (it changes nothing for a ping socket but what
 * getsockopt() shows); once the program bound it, the kernel's EINVAL.
 * set: *val is the new value; else *val gets it.  0 or -errno.
 */
int sock_v6only(struct run_sock *rs, bool set, int *val);
bool sock_is_v6(const struct run_sock *rs);

/* How many are remembered; forget those gone (at most once a second). */
unsigned sock_count(void);
void sock_scan(void);
/* The supervisor ends: every liveness descriptor closed. */
void sock_forget_all(void);

#endif
