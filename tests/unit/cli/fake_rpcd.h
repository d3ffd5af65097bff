/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_rpcd.h: a stand-in for utargetd's JSON-RPC socket in the CLI's unit
 * tests. A thread accepts connections on a Unix socket in /tmp, records
 * every request ({method, params}) and answers from a table set by the
 * test: method -> {"result": ...} or {"error": {...}}; a method not in the
 * table gets {"result": {}}. Misbehaviours for the client's error paths:
 * FAKE_CLOSE (close instead of answering), FAKE_GARBAGE (a line that is not
 * JSON), FAKE_WRONG_ID, FAKE_SILENT (never answer), FAKE_SPLIT (the answer
 * in one-byte writes). */
#ifndef UT_TEST_FAKE_RPCD_H
#define UT_TEST_FAKE_RPCD_H

#include <errno.h>
#include <jansson.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "lib/compiler.h"

enum fake_mode { FAKE_NORMAL, FAKE_CLOSE, FAKE_GARBAGE, FAKE_WRONG_ID, FAKE_SILENT, FAKE_SPLIT };

struct fake_rpcd {
	char path[108];
	int lfd;
	pthread_t th;
	pthread_mutex_t lock;
	json_t *requests; /* [{method, params}] */
	json_t *answers;  /* method -> answer object */
	enum fake_mode mode;
	volatile bool stop;
};

static void fake_send(int fd, const char *s, size_t n, bool split)
{
	while (n) {
		ssize_t k = send(fd, s, split ? 1 : n, MSG_NOSIGNAL);
		if (k <= 0)
			return;
		s += k;
		n -= (size_t)k;
	}
}

static void fake_answer(struct fake_rpcd *f, int fd, const char *line, size_t len)
{
	json_t *req = json_loadb(line, len, 0, NULL), *ans, *canned;
	const char *method;
	char *text;

	if (!req)
		return;
	method = json_string_value(json_object_get(req, "method"));
	pthread_mutex_lock(&f->lock);
	json_array_append_new(f->requests, json_pack("{s:s, s:O}", "method", method ? method : "",
						     "params", json_object_get(req, "params")));
	canned = json_object_get(f->answers, method ? method : "");
	ans = json_pack("{s:s, s:O}", "jsonrpc", "2.0", "id", json_object_get(req, "id"));
	if (canned)
		json_object_update(ans, canned);
	else
		json_object_set_new(ans, "result", json_object());
	pthread_mutex_unlock(&f->lock);
	if (f->mode == FAKE_WRONG_ID)
		json_object_set_new(ans, "id", json_integer(987654));
	text = json_dumps(ans, JSON_COMPACT);
	switch (f->mode) {
	case FAKE_GARBAGE:
		fake_send(fd, "this is not json\n", 17, false);
		break;
	case FAKE_SILENT:
	case FAKE_CLOSE:
		break;
	default:
		fake_send(fd, text, strlen(text), f->mode == FAKE_SPLIT);
		fake_send(fd, "\n", 1, false);
	}
	free(text);
	json_decref(ans);
	json_decref(req);
}

static void *fake_main(void *arg)
{
	struct fake_rpcd *f = arg;

	while (!f->stop) {
		struct pollfd p = {.fd = f->lfd, .events = POLLIN};
		char buf[65536];
		size_t n = 0;
		int fd;

		if (poll(&p, 1, 50) <= 0)
			continue;
		fd = accept(f->lfd, NULL, NULL);
		if (fd < 0)
			continue;
		for (;;) {
			struct pollfd q = {.fd = fd, .events = POLLIN};
			char *nl;
			ssize_t k;

			if (f->stop)
				break;
			if (poll(&q, 1, 50) <= 0)
				continue;
			k = recv(fd, buf + n, sizeof(buf) - n, 0);
			if (k <= 0)
				break;
			n += (size_t)k;
			while ((nl = memchr(buf, '\n', n))) {
				size_t len = (size_t)(nl - buf);
				fake_answer(f, fd, buf, len);
				memmove(buf, nl + 1, n - len - 1);
				n -= len + 1;
				if (f->mode == FAKE_CLOSE)
					break;
			}
			if (f->mode == FAKE_CLOSE || n == sizeof(buf))
				break;
		}
		close(fd);
	}
	return NULL;
}

static void fake_start(struct fake_rpcd *f)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};

	memset(f, 0, sizeof(*f));
	pthread_mutex_init(&f->lock, NULL);
	f->requests = json_array();
	f->answers = json_object();
	snprintf(f->path, sizeof(f->path), "/tmp/utarget-fake-%d-%p.sock", (int)getpid(),
		 (void *)f);
	unlink(f->path);
	memcpy(sa.sun_path, f->path, strlen(f->path) + 1);
	f->lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (f->lfd < 0 || bind(f->lfd, (struct sockaddr *)&sa, sizeof(sa)) || listen(f->lfd, 8) ||
	    pthread_create(&f->th, NULL, fake_main, f)) {
		fprintf(stderr, "fake_rpcd: %s\n", strerror(errno));
		abort();
	}
}

static void fake_stop(struct fake_rpcd *f)
{
	f->stop = true;
	pthread_join(f->th, NULL);
	close(f->lfd);
	unlink(f->path);
	json_decref(f->requests);
	json_decref(f->answers);
	pthread_mutex_destroy(&f->lock);
}

/* The answer to method: a JSON text ({"result": ...} or {"error": ...}). */
static void fake_set(struct fake_rpcd *f, const char *method, const char *answer)
{
	json_t *a = json_loads(answer, 0, NULL);

	if (!a) {
		fprintf(stderr, "fake_set: bad JSON %s\n", answer);
		abort();
	}
	pthread_mutex_lock(&f->lock);
	json_object_set_new(f->answers, method, a);
	pthread_mutex_unlock(&f->lock);
}

/* The i-th request recorded, as compact JSON (sorted keys), malloc'ed. */
UT_UNUSED static char *fake_request(struct fake_rpcd *f, size_t i)
{
	char *s;

	pthread_mutex_lock(&f->lock);
	s = json_dumps(json_array_get(f->requests, i), JSON_COMPACT | JSON_SORT_KEYS);
	pthread_mutex_unlock(&f->lock);
	return s;
}

UT_UNUSED static size_t fake_count(struct fake_rpcd *f)
{
	size_t n;

	pthread_mutex_lock(&f->lock);
	n = json_array_size(f->requests);
	pthread_mutex_unlock(&f->lock);
	return n;
}

#endif
