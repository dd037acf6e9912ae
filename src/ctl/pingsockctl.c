/*
 * pingsockctl - ask a running pingsockd how it is doing.
 *
 *   pingsockctl [--socket PATH] status
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "pingsock.h"
#include "wire/wire.h"

static int call(int fd, uint16_t type, void *body, size_t *blen)
{
	struct wire_req req = { .type = type, .u.version = WIRE_VERSION };
	uint8_t buf[WIRE_REQ_HDR + 64], resp[WIRE_RESP_HDR + 512];
	long n = wire_encode_req(&req, buf, sizeof(buf));
	ssize_t got;
	int32_t result;

	if (n < 0 || send(fd, buf, (size_t)n, MSG_NOSIGNAL) != n)
		return -ECONNRESET;
	got = recv(fd, resp, sizeof(resp), 0);
	if (got < (ssize_t)WIRE_RESP_HDR)
		return -ECONNRESET;
	memcpy(&result, resp + 4, 4);
	if (body) {
		size_t len = (size_t)got - WIRE_RESP_HDR;

		*blen = len < *blen ? len : *blen;
		memcpy(body, resp + WIRE_RESP_HDR, *blen);
	}
	return result;
}

static int dial(const char *path)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd;

	if (strlen(path) >= sizeof(sun.sun_path)) {
		fprintf(stderr, "pingsockctl: %s: path too long\n", path);
		exit(2);
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		fprintf(stderr, "pingsockctl: %s: %s (is pingsockd running?)\n",
			path, strerror(errno));
		exit(1);
	}
	if (call(fd, WIRE_HELLO, NULL, NULL) != 0) {
		fprintf(stderr, "pingsockctl: %s: the daemon did not accept "
			"protocol version %d\n", path, WIRE_VERSION);
		exit(1);
	}
	return fd;
}

static int status(int fd)
{
	struct wire_stats st;
	size_t len = sizeof(st);
	int rc = call(fd, WIRE_STATS, &st, &len);

	if (rc != 0 || len != sizeof(st)) {
		fprintf(stderr, "pingsockctl: status: %s\n", strerror(-rc));
		return 1;
	}
	printf("clients %llu\nsockets %llu\nidents %llu\nsent %llu\n"
	       "replies %llu\ndropped %llu\nbad_packets %llu\n"
	       "protocol_errors %llu\n",
	       (unsigned long long)st.clients, (unsigned long long)st.sockets,
	       (unsigned long long)st.idents, (unsigned long long)st.sent,
	       (unsigned long long)st.replies, (unsigned long long)st.dropped,
	       (unsigned long long)st.bad_packets,
	       (unsigned long long)st.proto_errors);
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: pingsockctl [--socket PATH] status\n"
		   "Show a running pingsockd's counters.\n"
		   "  -s, --socket PATH  the daemon's socket (default: "
		   "$PINGSOCK_SOCKET or %s)\n", PINGSOCK_DEFAULT_SOCKET);
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *path = getenv("PINGSOCK_SOCKET");
	int ch, fd, rc;

	if (!path || !*path)
		path = PINGSOCK_DEFAULT_SOCKET;
	while ((ch = getopt_long(argc, argv, "s:h", lo, NULL)) != -1) {
		if (ch == 's') {
			path = optarg;
		} else {
			usage(ch == 'h' ? stdout : stderr);
			return ch == 'h' ? 0 : 2;
		}
	}
	if (optind + 1 != argc || strcmp(argv[optind], "status") != 0) {
		usage(stderr);
		return 2;
	}
	fd = dial(path);
	rc = status(fd);
	close(fd);
	return rc;
}
