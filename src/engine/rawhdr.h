/* SPDX-License-Identifier: ISC */
/*
 * rawhdr - the IPv4 header a raw ICMP socket shows in front of each
 * datagram (raw_rcv() queues the packet from its IP header on), rebuilt
 * for the raw-socket emulation (engine/psraw.h) from what the daemon
 * hands over with it in struct wire_dgram: TOS, TTL, source, destination
 * and options, the identification and fragment field and the header
 * checksum (ee_data, ee_info: see wire.h), and a total length of header
 * and ICMP message.  That is the header as the daemon's own raw socket
 * received it, byte for byte (reassembled, as any raw socket sees it).
 * The checksum is the received one, not one computed here: the kernel
 * writes into a Record Route or Timestamp option on local delivery
 * (ip_options_compile()) after it checked the sum, so a raw socket shows
 * such a header with a sum that no longer matches (measured), and so
 * does the emulation.  Pure code.
 */
#ifndef PS_RAWHDR_H
#define PS_RAWHDR_H

#include <stddef.h>
#include <stdint.h>

#include "wire/wire.h"

#define RAWHDR_MAX 60	/* 20 bytes and 40 of options */

/*
 * Write the header for an ICMP message of icmplen bytes (its own length,
 * not what a reader's buffer holds) into out; returns its length.
 */
size_t rawhdr_ipv4(const struct wire_dgram *dg, size_t icmplen, uint8_t *out);

#endif
