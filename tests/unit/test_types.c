/*
 * test_types - the protocol's table of request types (wire/types.c) and
 * the result space (wire.h: enum wire_result): every type has one whole
 * row, and the rows agree with each other where the daemon and the
 * client read the same fact.
 */
#include <stdbool.h>

#include "check.h"
#include "wire/decode.h"
#include "wire/wire.h"

/* Every type from 1 to the end has a row with a name of its own. */
static void every_type_has_a_row(void)
{
	CHECK(wire_req_type(0) == NULL);
	CHECK(wire_req_type(WIRE_TYPE_END) == NULL);
	CHECK(wire_req_type(0xFFFF) == NULL);
	for (unsigned t = 1; t < WIRE_TYPE_END; t++) {
		const struct wire_req_type *r = wire_req_type(t);

		CHECK(r != NULL);
		if (!r)
			continue;
		CHECK(r->name && *r->name);
		CHECK(strcmp(wire_type_name(t), r->name) == 0);
		CHECK(r->ok >= WIRE_OK_ZERO && r->ok <= WIRE_OK_SENT);
		for (unsigned u = 1; u < t; u++)
			CHECK(strcmp(wire_req_type(u)->name, r->name) != 0);
	}
	CHECK(strcmp(wire_type_name(0), "unknown") == 0);
}

/*
 * The daemon answers WIRE_R_UNATTACHED exactly to the requests that name
 * an attached socket, and the client accepts it exactly there; HELLO is
 * alone first, and alone may say WIRE_R_FOREIGN_NS.
 */
static void access_and_results_agree(void)
{
	for (unsigned t = 1; t < WIRE_TYPE_END; t++) {
		const struct wire_req_type *r = wire_req_type(t);
		bool sock = (r->access & WIRE_ACC_SOCKET) != 0;

		CHECK_EQ(r->also == WIRE_R_UNATTACHED, sock);
		CHECK_EQ((r->access & WIRE_ACC_FIRST) != 0, t == WIRE_HELLO);
		CHECK_EQ(r->also == WIRE_R_FOREIGN_NS, t == WIRE_HELLO);
		CHECK(!(sock && (r->access & WIRE_ACC_PROVES)));
	}
	CHECK(wire_req_type(WIRE_ATTACH)->access & WIRE_ACC_PROVES);
	CHECK(wire_req_type(WIRE_BROKER_BIND)->access & WIRE_ACC_PROVES);
}

/* Descriptors: at most WIRE_ANS_FDS, each a known kind, 0-ended. */
static void descriptors_of_rows(void)
{
	for (unsigned t = 1; t < WIRE_TYPE_END; t++) {
		const struct wire_req_type *r = wire_req_type(t);
		bool ended = false;

		for (unsigned i = 0; i < WIRE_ANS_FDS; i++) {
			if (!r->fds[i])
				ended = true;
			else
				CHECK(!ended && r->fds[i] <= WIRE_FD_ICMP);
		}
	}
	CHECK_EQ(wire_req_type(WIRE_ATTACH)->fds[0], WIRE_FD_SHM);
	CHECK_EQ(wire_req_type(WIRE_ATTACH)->fds[1], WIRE_FD_SEQPACKET);
	CHECK_EQ(wire_req_type(WIRE_BROKER_BIND)->fds[0], WIRE_FD_ICMP);
}

/* The values beyond -errno: below its range, and each its own. */
static void result_space(void)
{
	static const int32_t r[] = { WIRE_R_UNATTACHED, WIRE_R_FOREIGN_NS,
				     WIRE_R_NODAEMON, WIRE_R_BROKEN,
				     WIRE_R_MALFORMED };
	size_t n = sizeof(r) / sizeof(r[0]);

	for (size_t i = 0; i < n; i++) {
		CHECK(r[i] < -WIRE_ERRNO_MAX);
		for (size_t j = 0; j < i; j++)
			CHECK(r[i] != r[j]);
	}
}

/* What the client's own results are, the daemon never answers. */
static void client_results_refused_on_the_wire(void)
{
	static const int32_t own[] = { WIRE_R_NODAEMON, WIRE_R_BROKEN,
				       WIRE_R_MALFORMED };
	uint8_t msg[WIRE_RESP_HDR] = { 0 };
	struct wire_answer ans;

	for (unsigned t = 1; t < WIRE_TYPE_END; t++) {
		struct wire_req req = { .type = (uint16_t)t };
		uint16_t type = (uint16_t)t;

		memcpy(msg, &type, 2);
		for (size_t i = 0; i < sizeof(own) / sizeof(own[0]); i++) {
			memcpy(msg + 4, &own[i], 4);
			CHECK_EQ(wire_check_answer(&req, msg, sizeof(msg), &ans),
				 -1);
		}
	}
}

int main(void)
{
	TEST(every_type_has_a_row);
	TEST(access_and_results_agree);
	TEST(descriptors_of_rows);
	TEST(result_space);
	TEST(client_results_refused_on_the_wire);
	return CHECK_DONE();
}
