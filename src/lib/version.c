/* SPDX-License-Identifier: ISC */
/*
 * version - pingsock_version(): the library's own version, for a program
 * that wants to know which library it runs with (the header's
 * PINGSOCK_VERSION says which it was built against).
 */
#include "pingsock.h"

#define EXPORT __attribute__((visibility("default")))

EXPORT const char *pingsock_version(void)
{
	return PINGSOCK_VERSION;
}
