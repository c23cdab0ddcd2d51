// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hj-agent [SOCKET]: ask the ssh agent at SOCKET (default $SSH_AUTH_SOCK)
 * for its identities (SSH2_AGENTC_REQUEST_IDENTITIES, draft-miller-ssh-agent)
 * and print "identities: N" and one "comment: ..." line per key.  Static,
 * for containers without ssh-add.  Exit 0: answered; 2: no connection
 * (errno printed); 3: the connection closed without an answer.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

static int read_full(int fd, void *buf, size_t len)
{
	char *p = buf;

	while (len) {
		ssize_t n = read(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static uint32_t get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

int main(int argc, char **argv)
{
	static const unsigned char req[] = { 0, 0, 0, 1, 11 };
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	const char *path = argc > 1 ? argv[1] : getenv("SSH_AUTH_SOCK");
	unsigned char hdr[4], *msg;
	uint32_t len, n, i, off;
	int fd;

	/* a relay that hangs up is "no answer", not a SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	if (!path || strlen(path) >= sizeof(sa.sun_path)) {
		printf("no socket\n");
		return 2;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		printf("connect: %s\n", strerror(errno));
		return 2;
	}
	if (write(fd, req, sizeof(req)) != (ssize_t)sizeof(req) ||
	    read_full(fd, hdr, 4)) {
		printf("no answer\n");
		return 3;
	}
	len = get32(hdr);
	if (len < 5 || len > 1 << 20 || !(msg = malloc(len)) ||
	    read_full(fd, msg, len) || msg[0] != 12) {
		printf("bad answer\n");
		return 3;
	}
	n = get32(msg + 1);
	printf("identities: %u\n", n);
	for (i = 0, off = 5; i < n; i++) {
		uint32_t l;

		if (off + 4 > len)
			return 3;
		l = get32(msg + off); /* the key blob */
		off += 4 + l;
		if (off + 4 > len)
			return 3;
		l = get32(msg + off); /* the comment */
		if (off + 4 + l > len)
			return 3;
		printf("comment: %.*s\n", (int)l, msg + off + 4);
		off += 4 + l;
	}
	return 0;
}
