/* SPDX-License-Identifier: ISC */
/*
 * test_types - the protocol's table of request types (wire/types.c) and
 * the result space (wire.h: enum wire_result): every type has one whole
 * row, the rows agree with each other where the daemon and the client
 * read the same fact, and SCM_RIGHTS is packed and taken back in order
 * (wire/rights.h).
 */
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "wire/decode.h"
#include "wire/rights.h"
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
	CHECK_EQ(wire_req_type(WIRE_ATTACH)->fds[0], 0);
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

struct taken {
	int fd[8];
	unsigned n;
};

static void take(int fd, unsigned i, void *arg)
{
	struct taken *t = arg;

	if (i < 8)
		t->fd[i] = fd;
	t->n++;
}

/* Packed in order, taken back in order (through a socket pair). */
static void rights_round_trip(void)
{
	int sv[2], p[2], fds[WIRE_RIGHTS_MAX];
	union wire_rights_buf out, in;
	char byte = 'x';
	struct iovec iov = { &byte, 1 };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct taken t = { .n = 0 };
	bool other = true;

	CHECK(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
	CHECK(pipe(p) == 0);
	fds[0] = p[0];
	fds[1] = p[1];
	fds[2] = p[0];
	fds[3] = sv[0];
	CHECK_EQ(wire_rights_pack(&mh, &out, fds, WIRE_RIGHTS_MAX + 1), -1);
	CHECK_EQ(wire_rights_pack(&mh, &out, fds, 0), 0);
	CHECK(mh.msg_control == NULL && mh.msg_controllen == 0);
	CHECK_EQ(wire_rights_pack(&mh, &out, fds, WIRE_RIGHTS_MAX), 0);
	CHECK(sendmsg(sv[0], &mh, 0) == 1);
	mh.msg_control = in.b;
	mh.msg_controllen = sizeof(in.b);
	CHECK(recvmsg(sv[1], &mh, MSG_CMSG_CLOEXEC) == 1);
	CHECK_EQ(wire_rights_each(&mh, take, &t, &other), WIRE_RIGHTS_MAX);
	CHECK(!other);
	CHECK_EQ(t.n, WIRE_RIGHTS_MAX);
	for (unsigned i = 0; i < t.n && i < WIRE_RIGHTS_MAX; i++) {
		struct stat a, b;

		CHECK(fstat(t.fd[i], &a) == 0 && fstat(fds[i], &b) == 0);
		CHECK(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
		close(t.fd[i]);
	}
	close(p[0]);
	close(p[1]);
	close(sv[0]);
	close(sv[1]);
}

int main(void)
{
	TEST(every_type_has_a_row);
	TEST(access_and_results_agree);
	TEST(descriptors_of_rows);
	TEST(result_space);
	TEST(client_results_refused_on_the_wire);
	TEST(rights_round_trip);
	return CHECK_DONE();
}
