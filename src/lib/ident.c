/* SPDX-License-Identifier: ISC */
#include "lib/ident.h"

#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip_icmp.h>
#include <stdint.h>

#include "lib/ucopy.h"

#define ICMP_EXT_ECHO 42	/* RFC 8335 PROBE */
#define ICMP6_EXT_ECHO 160

int ident_of_echo(int family, const struct iovec *iov, size_t niov)
{
	uint8_t hdr[6];
	size_t got = 0;

	for (size_t i = 0; i < niov && got < sizeof(hdr); i++) {
		size_t n = iov[i].iov_len < sizeof(hdr) - got
				   ? iov[i].iov_len : sizeof(hdr) - got;

		if (!ucopy_in(hdr + got, iov[i].iov_base, n))
			return -1;	/* the send will say EFAULT */
		got += n;
	}
	if (got < sizeof(hdr) || hdr[1] != 0)
		return -1;
	if (family == AF_INET6 ? hdr[0] != ICMP6_ECHO_REQUEST &&
					 hdr[0] != ICMP6_EXT_ECHO
			       : hdr[0] != ICMP_ECHO && hdr[0] != ICMP_EXT_ECHO)
		return -1;
	return hdr[4] << 8 | hdr[5];
}
