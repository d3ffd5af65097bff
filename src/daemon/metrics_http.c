/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics_http.c: the Prometheus endpoint (docs/config.md "metrics").
 * libmicrohttpd runs one internal thread: it accepts, parses and answers;
 * the reactors never wait for it. Only GET /metrics is served (404 for
 * another path, 405 for another method). The text is rendered on reactor 0,
 * where the configuration and the statistics are read (rpc/metrics.h): the
 * HTTP thread posts a message there and waits for the text at most
 * METRICS_RENDER_TIMEOUT_S (503 after that, or while stopping).
 *
 * What a peer can make the daemon hold is capped globally and per source
 * address: METRICS_CONN_MAX connections in all, METRICS_CONN_PER_IP from
 * one address, each closed after METRICS_IDLE_S seconds without traffic,
 * METRICS_CONN_MEMORY bytes of request buffer each (a larger request is
 * refused by libmicrohttpd); one scrape is rendered at a time (one thread). */
#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "daemon/metrics_http.h"
#include "lib/log.h"
#include "lib/reactor.h"
#include "rpc/metrics.h"

#define METRICS_CONN_MAX	 16u
#define METRICS_CONN_PER_IP	 4u
#define METRICS_IDLE_S		 10u
#define METRICS_CONN_MEMORY	 (16u * 1024u)
#define METRICS_RENDER_TIMEOUT_S 5

/* A scrape waiting for reactor 0: freed by whichever side lets go last. */
struct scrape {
	struct reactor_msg m;
	int refs;
	bool done;
	int rc;
	char *text;
	size_t len;
};

static struct {
	struct MHD_Daemon *d;
	struct reactor *r0;
	const char *version;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	bool stopping;
} mx = {.mu = PTHREAD_MUTEX_INITIALIZER};

static void scrape_put_locked(struct scrape *s)
{
	if (--s->refs == 0) {
		free(s->text);
		free(s);
	}
}

/* On reactor 0. */
static void scrape_render(struct reactor_msg *m)
{
	struct scrape *s = (struct scrape *)m;
	char *text = NULL;
	size_t len = 0;
	int rc = rpc_metrics_render(mx.version, &text, &len);

	pthread_mutex_lock(&mx.mu);
	s->rc = rc;
	s->text = text;
	s->len = len;
	s->done = true;
	pthread_cond_broadcast(&mx.cv);
	scrape_put_locked(s);
	pthread_mutex_unlock(&mx.mu);
}

/* On the HTTP thread: the text (malloc'ed) or NULL. */
static char *scrape(size_t *len)
{
	struct scrape *s = calloc(1, sizeof(*s));
	struct timespec until;
	char *text = NULL;

	if (!s)
		return NULL;
	s->refs = 2;
	s->m.fn = scrape_render;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += METRICS_RENDER_TIMEOUT_S;
	reactor_post(mx.r0, &s->m);
	pthread_mutex_lock(&mx.mu);
	while (!s->done && !mx.stopping)
		if (pthread_cond_timedwait(&mx.cv, &mx.mu, &until) == ETIMEDOUT)
			break;
	if (s->done && !s->rc) {
		text = s->text;
		*len = s->len;
		s->text = NULL;
	}
	scrape_put_locked(s);
	pthread_mutex_unlock(&mx.mu);
	return text;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *body)
{
	struct MHD_Response *r =
	    MHD_create_response_from_buffer(strlen(body), (void *)body, MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET");
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
			      const char *method, const char *version, const char *upload,
			      size_t *upload_size, void **state)
{
	struct MHD_Response *r;
	enum MHD_Result ret;
	size_t len = 0;
	char *text;

	(void)cls;
	(void)version;
	(void)upload;
	(void)upload_size;
	(void)state;
	if (strcmp(url, "/metrics") != 0)
		return reply(c, MHD_HTTP_NOT_FOUND, "not found: only /metrics is served\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0)
		return reply(c, MHD_HTTP_METHOD_NOT_ALLOWED, "method not allowed: GET only\n");
	text = scrape(&len);
	if (!text)
		return reply(c, MHD_HTTP_SERVICE_UNAVAILABLE, "statistics unavailable\n");
	r = MHD_create_response_from_buffer(len, text, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(text);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; version=0.0.4; charset=utf-8");
	ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* "a.b.c.d:port" or "[v6]:port" (cfg_portal_valid() checked it). */
static int parse_addr(const char *addr, struct sockaddr_storage *ss, bool *v6)
{
	const char *colon = strrchr(addr, ':');
	char host[64];
	size_t hl;
	long port;

	if (!colon)
		return -EINVAL;
	port = strtol(colon + 1, NULL, 10);
	hl = (size_t)(colon - addr);
	if (port < 1 || port > 65535 || hl == 0 || hl >= sizeof(host))
		return -EINVAL;
	memset(ss, 0, sizeof(*ss));
	if (addr[0] == '[') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		if (hl < 3 || addr[hl - 1] != ']')
			return -EINVAL;
		memcpy(host, addr + 1, hl - 2);
		host[hl - 2] = '\0';
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*v6 = true;
		return inet_pton(AF_INET6, host, &s6->sin6_addr) == 1 ? 0 : -EINVAL;
	}
	struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

	memcpy(host, addr, hl);
	host[hl] = '\0';
	s4->sin_family = AF_INET;
	s4->sin_port = htons((uint16_t)port);
	*v6 = false;
	return inet_pton(AF_INET, host, &s4->sin_addr) == 1 ? 0 : -EINVAL;
}

int utd_metrics_start(struct reactor *r0, const char *addr, const char *version)
{
	struct sockaddr_storage ss;
	bool v6 = false;
	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
	int rc = parse_addr(addr, &ss, &v6);

	if (rc) {
		log_err("metrics: bad listen address \"%s\"", addr);
		return rc;
	}
	if (v6)
		flags |= MHD_USE_IPv6;
	mx.r0 = r0;
	mx.version = version;
	mx.stopping = false;
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&mx.cv, &ca);
		pthread_condattr_destroy(&ca);
	}
	errno = 0;
	mx.d = MHD_start_daemon(flags, 0, NULL, NULL, handle, NULL, MHD_OPTION_SOCK_ADDR,
				(struct sockaddr *)&ss, MHD_OPTION_CONNECTION_LIMIT,
				(unsigned)METRICS_CONN_MAX, MHD_OPTION_PER_IP_CONNECTION_LIMIT,
				(unsigned)METRICS_CONN_PER_IP, MHD_OPTION_CONNECTION_TIMEOUT,
				(unsigned)METRICS_IDLE_S, MHD_OPTION_CONNECTION_MEMORY_LIMIT,
				(size_t)METRICS_CONN_MEMORY, MHD_OPTION_END);
	if (!mx.d) {
		rc = errno ? -errno : -EADDRINUSE;
		log_err("metrics: cannot listen on %s: %s", addr, strerror(-rc));
		pthread_cond_destroy(&mx.cv);
		return rc;
	}
	log_info("metrics: serving http://%s/metrics", addr);
	return 0;
}

void utd_metrics_stop(void)
{
	if (!mx.d)
		return;
	pthread_mutex_lock(&mx.mu);
	mx.stopping = true;
	pthread_cond_broadcast(&mx.cv);
	pthread_mutex_unlock(&mx.mu);
	MHD_stop_daemon(mx.d);
	mx.d = NULL;
	pthread_cond_destroy(&mx.cv);
}
