/* SPDX-License-Identifier: ISC */
/*
 * loop - the run: send a request every interval, read what comes back,
 * stop on -c, -w, -W or SIGINT, print the statistics.  SIGQUIT prints
 * the status line and goes on.
 */
#ifndef PING_LOOP_H
#define PING_LOOP_H

#include <stdint.h>

#include "ping/rx.h"

/*
 * Run until done; pkt holds the request's data after its header room.
 * Returns the exit status: 0 if anything answered (and, with -w, all of
 * -c did), 1 otherwise.
 */
int loop_run(struct rx *rx, uint8_t *pkt);

#endif
