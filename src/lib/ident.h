/* SPDX-License-Identifier: ISC */
/*
 * ident - the identifier a program wrote into its Echo Request, for
 * PINGSOCK_IDENT=keep (a relayed socket asks the daemon to bind it, a
 * broker socket is rebound to it).
 */
#ifndef PS_LIB_IDENT_H
#define PS_LIB_IDENT_H

#include <stddef.h>
#include <sys/uio.h>

/* The identifier of the Echo Request (or PROBE) in iov (the program's
 * memory, ucopy.h), or -1. */
int ident_of_echo(int family, const struct iovec *iov, size_t niov);

#endif
