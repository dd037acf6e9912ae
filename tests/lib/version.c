/* SPDX-License-Identifier: ISC */
/*
 * version - what pingsock.h and the library say their version is, for
 * tests/integration/version.sh to hold against the Makefile's VERSION.
 * Built twice: by the Makefile (with its -DPINGSOCK_VERSION) and by the
 * test alone against the header as installed (no -D).
 */
#include <stdio.h>

#include "pingsock.h"

int main(void)
{
	printf("header %s\n", PINGSOCK_VERSION);
	printf("parts %d.%d.%d\n", PINGSOCK_VERSION_MAJOR,
	       PINGSOCK_VERSION_MINOR, PINGSOCK_VERSION_PATCH);
	printf("number %d\n", PINGSOCK_VERSION_NUMBER);
	printf("library %s\n", pingsock_version());
	return 0;
}
