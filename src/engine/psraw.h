/* SPDX-License-Identifier: ISC */
/*
 * psraw - an Echo-only emulation of the raw ICMP socket, for programs
 * that know no other way to ping (busybox ping, liboping/oping):
 * socket(AF_INET, SOCK_RAW, IPPROTO_ICMP) and socket(AF_INET6, SOCK_RAW,
 * IPPROTO_ICMPV6) opened through pingsockd (PINGSOCK_RAW=echo, allowed by
 * the config key raw_compat).
 *
 * Such a socket is a ping socket of the engine underneath, with these
 * differences, as the kernel's raw socket has them where the emulation
 * can follow it (net/ipv4/raw.c, net/ipv6/raw.c):
 *
 *  - sends: only Echo Request and RFC 8335 Extended Echo Request, code 0
 *    (anything else: EPERM, before any other check but the length and
 *    MSG_OOB); the identifier the program wrote is kept, which binds it
 *    to the socket at the first send that names it, under bind()'s
 *    same-uid rule (taken by another uid: EADDRINUSE; 0, the table's
 *    "unbound": EADDRINUSE too).  A socket may own several identifiers
 *    (liboping writes one per host): the first is the socket's own, each
 *    further one an extra engine socket, which the lookup of replies and
 *    errors finds like any other and answers with the socket itself (its
 *    filter, error queue and owner).  The IPv4 message goes out as
 *    written, checksum included (a raw IPv4 socket sends what it is
 *    given: with a wrong sum the receiver drops it, measured); ICMPv6's
 *    sum is computed (a raw ICMPv6 socket always computes it at offset 2).
 *  - bind() binds an address only and may be repeated (raw_bind());
 *    connect() binds no identifier; getsockname() shows the protocol as
 *    the port, as inet_create() sets inet_num for raw sockets.
 *  - options: SO_TYPE is SOCK_RAW; ICMP_FILTER (SOL_RAW) and ICMP6_FILTER
 *    (IPPROTO_ICMPV6) as the kernel stores them; IP_HDRINCL and
 *    IPV6_HDRINCL refused with EPERM unless 0; IPV6_CHECKSUM at SOL_RAW
 *    accepts 2 (the default) and -1, both meaning "computed", odd values
 *    EINVAL as in the kernel, other offsets EINVAL (the emulation's only
 *    sum is at offset 2); at IPPROTO_IPV6 EINVAL, as RFC 3542 says.
 *  - receives: the daemon asks the socket before it queues a reply
 *    (ps_delivers(): ICMP_FILTER, ICMP6_FILTER) and whether an ICMP
 *    error also comes as a datagram, whole (ps_error_datagram(), as a
 *    raw socket receives errors); the library puts the IPv4 header in
 *    front (ps_rx_iphdr(), engine/rawhdr.h).  Only replies and errors
 *    that answer one of the socket's own requests arrive, as for every
 *    pingsock socket: never another uid's traffic, never Echo Requests,
 *    never other ICMP.
 */
#ifndef PS_PSRAW_H
#define PS_PSRAW_H

/* Identifiers one emulated raw socket may own. */
#define PSRAW_MAX_IDENTS 256

struct ps_kind_ops;

/* The emulation as a kind of socket of the engine (psock_int.h), which
 * pstab_open() gives a SOCK_RAW socket where pstab_allow_raw() allows. */
extern const struct ps_kind_ops psraw_ops;

#endif
