/* SPDX-License-Identifier: ISC */
/*
 * setup - iputils' setup(): what ping does once its header is out, in
 * that order: the interval checks, -d and -r, receive stamps, -m, the
 * send timeout, and (IPv4) -C's connect().
 */
#ifndef PING_SETUP_H
#define PING_SETUP_H

#include "ping/opts.h"
#include "ping/sock.h"

/*
 * Check the interval (-f alone means none, which only root may have)
 * and set the socket's remaining options, or exit 2 as iputils does.
 */
void setup_run(int fd, struct ping_opts *o, const struct ping_target *t);

#endif
