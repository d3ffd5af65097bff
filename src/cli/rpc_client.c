/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rpc_client.c: the CLI's side of utargetd's JSON-RPC 2.0 API (docs/rpc.md):
 * a Unix stream socket, one request per line, one answer per line, in
 * order. Requests are sent whole (a partial write is continued); the answer
 * is read up to its newline within the client's timeout; an answer longer
 * than RPC_MAX_ANSWER is refused. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli/rpc_client.h"

#define RPC_MAX_ANSWER (256u << 20) /* config.get of a very large config fits */

void rpc_client_init(struct rpc_client *c, int timeout_ms)
{
	*c = (struct rpc_client){.fd = -1, .next_id = 1, .timeout_ms = timeout_ms};
}

void rpc_error_clear(struct rpc_error *err)
{
	json_decref(err->data);
	err->data = NULL;
}

static int rpc_terr(struct rpc_error *err, int rc, const char *what)
{
	err->code = 0;
	err->data = NULL;
	snprintf(err->message, sizeof(err->message), "%s%s%s", what, what[0] ? ": " : "",
		 strerror(-rc));
	return rc;
}

int rpc_connect(struct rpc_client *c, const char *path, struct rpc_error *err)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd, rc;

	if (strlen(path) >= sizeof(sa.sun_path))
		return rpc_terr(err, -ENAMETOOLONG, path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return rpc_terr(err, -errno, "socket");
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		rc = -errno;
		close(fd);
		if (rc == -ENOENT || rc == -ECONNREFUSED)
			snprintf(err->message, sizeof(err->message),
				 "cannot reach utargetd at %s: %s (is it running? --socket "
				 "names another socket)",
				 path, strerror(-rc));
		else
			snprintf(err->message, sizeof(err->message),
				 "cannot reach utargetd at %s: %s", path, strerror(-rc));
		err->code = 0;
		err->data = NULL;
		return rc;
	}
	rpc_close(c);
	c->fd = fd;
	c->rlen = 0;
	return 0;
}

void rpc_close(struct rpc_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->rbuf);
	c->rbuf = NULL;
	c->rlen = c->rcap = 0;
}

static long long rpc_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for events on the socket until the deadline. 0, or -ETIMEDOUT. */
static int rpc_wait(struct rpc_client *c, short events, long long deadline)
{
	for (;;) {
		struct pollfd p = {.fd = c->fd, .events = events};
		long long left = deadline - rpc_now_ms();
		int n;

		if (left <= 0)
			return -ETIMEDOUT;
		n = poll(&p, 1, left > 60000 ? 60000 : (int)left);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n > 0)
			return 0;
	}
}

static int rpc_send(struct rpc_client *c, const char *buf, size_t len, long long deadline)
{
	while (len) {
		ssize_t k = send(c->fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		int rc;

		if (k > 0) {
			buf += k;
			len -= (size_t)k;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno != EAGAIN)
			return -errno;
		rc = rpc_wait(c, POLLOUT, deadline);
		if (rc)
			return rc;
	}
	return 0;
}

/* One line of answer (without its newline) in *line, valid until the next
 * call. */
static int rpc_recv_line(struct rpc_client *c, char **line, size_t *len, long long deadline)
{
	for (;;) {
		char *nl = c->rlen ? memchr(c->rbuf, '\n', c->rlen) : NULL;
		ssize_t k;
		int rc;

		if (nl) {
			*line = c->rbuf;
			*len = (size_t)(nl - c->rbuf);
			return 0;
		}
		if (c->rlen == c->rcap) {
			size_t cap = c->rcap ? c->rcap * 2 : 65536;
			char *nb;
			if (c->rcap >= RPC_MAX_ANSWER)
				return -EMSGSIZE;
			nb = realloc(c->rbuf, cap);
			if (!nb)
				return -ENOMEM;
			c->rbuf = nb;
			c->rcap = cap;
		}
		k = recv(c->fd, c->rbuf + c->rlen, c->rcap - c->rlen, MSG_DONTWAIT);
		if (k > 0) {
			c->rlen += (size_t)k;
			continue;
		}
		if (k == 0)
			return -ECONNRESET;
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN)
			return -errno;
		rc = rpc_wait(c, POLLIN, deadline);
		if (rc)
			return rc;
	}
}

/* Drop the line just read from the buffer. */
static void rpc_consume(struct rpc_client *c, size_t len)
{
	size_t n = len + 1;

	memmove(c->rbuf, c->rbuf + n, c->rlen - n);
	c->rlen -= n;
}

static int rpc_answer(json_t *ans, long long id, json_t **result, struct rpc_error *err)
{
	json_t *e, *v = json_object_get(ans, "id");

	if (!json_is_object(ans) || !json_is_integer(v) || json_integer_value(v) != id) {
		err->code = RPC_ERR_PROTOCOL;
		snprintf(err->message, sizeof(err->message),
			 "utargetd sent an answer that does not match the request");
		return -EPROTO;
	}
	e = json_object_get(ans, "error");
	if (e) {
		const char *m = json_string_value(json_object_get(e, "message"));
		err->code = (int)json_integer_value(json_object_get(e, "code"));
		snprintf(err->message, sizeof(err->message), "%s", m ? m : "error");
		err->data = json_incref(json_object_get(e, "data"));
		return 1;
	}
	v = json_object_get(ans, "result");
	if (!v) {
		err->code = RPC_ERR_PROTOCOL;
		snprintf(err->message, sizeof(err->message),
			 "utargetd sent an answer without result or error");
		return -EPROTO;
	}
	*result = json_incref(v);
	return 0;
}

int rpc_call(struct rpc_client *c, const char *method, json_t *params, json_t **result,
	     struct rpc_error *err)
{
	long long id = c->next_id++, deadline = rpc_now_ms() + c->timeout_ms;
	json_t *req, *ans;
	json_error_t jerr;
	char *text, *line = NULL;
	size_t len;
	int rc;

	*result = NULL;
	err->data = NULL;
	err->code = 0;
	if (c->fd < 0) {
		json_decref(params);
		snprintf(err->message, sizeof(err->message), "not connected to utargetd");
		return -ENOTCONN;
	}
	req = json_pack("{s:s, s:I, s:s, s:o}", "jsonrpc", "2.0", "id", (json_int_t)id, "method",
			method, "params", params ? params : json_object());
	if (!req)
		return rpc_terr(err, -ENOMEM, "");
	/* compact: JSON escapes newlines inside strings, so it is one line */
	text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (!text)
		return rpc_terr(err, -ENOMEM, "");
	len = strlen(text);
	text[len] = '\n';
	rc = rpc_send(c, text, len + 1, deadline);
	free(text);
	if (rc == 0)
		rc = rpc_recv_line(c, &line, &len, deadline);
	if (rc) {
		const char *what = rc == -ETIMEDOUT  ? "utargetd did not answer in time"
				   : rc == -EMSGSIZE ? "utargetd's answer is too long"
						     : "lost the connection to utargetd";
		snprintf(err->message, sizeof(err->message), "%s (%s)", what, strerror(-rc));
		err->code = 0;
		rpc_close(c);
		return rc;
	}
	ans = json_loadb(line, len, 0, &jerr);
	rpc_consume(c, len);
	if (!ans) {
		snprintf(err->message, sizeof(err->message), "utargetd sent invalid JSON: %s",
			 jerr.text);
		err->code = RPC_ERR_PROTOCOL;
		return -EPROTO;
	}
	rc = rpc_answer(ans, id, result, err);
	json_decref(ans);
	return rc;
}
