/* SPDX-License-Identifier: ISC */
#include "engine/rawhdr.h"

#include <netinet/in.h>
#include <string.h>


size_t rawhdr_ipv4(const struct wire_dgram *dg, size_t icmplen, uint8_t *out)
{
	/* Options come from a real header (a multiple of 4 bytes); pad
	 * anything else with End of Options, as a header must be. */
	size_t optlen = dg->optlen <= 40 ? dg->optlen : 40;
	size_t hlen = 20 + ((optlen + 3) & ~(size_t)3);
	size_t tot = hlen + icmplen;
	memset(out, 0, hlen);
	out[0] = (uint8_t)(0x40 | hlen / 4);
	out[1] = dg->tos;
	out[2] = (uint8_t)((tot > 0xFFFF ? 0xFFFF : tot) >> 8);
	out[3] = (uint8_t)(tot > 0xFFFF ? 0xFF : tot);
	memcpy(out + 4, &dg->ee_data, 4);	/* id, flags and offset */
	out[8] = dg->ttl;
	out[9] = IPPROTO_ICMP;
	memcpy(out + 10, (const uint8_t *)&dg->ee_info + 2, 2);	/* sum */
	memcpy(out + 12, dg->src, 4);
	memcpy(out + 16, dg->dst, 4);
	memcpy(out + 20, dg->opts, optlen);
	return hlen;
}
