/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics_http.h: GET /metrics over HTTP (libmicrohttpd, its own thread),
 * the text rendered on reactor 0 by rpc_metrics_render(). */
#ifndef UT_DAEMON_METRICS_HTTP_H
#define UT_DAEMON_METRICS_HTTP_H

/* Listen on addr ("a.b.c.d:port" or "[v6]:port", checked by the config);
 * r0 renders. 0 or -errno (logged). */
struct reactor;
int utd_metrics_start(struct reactor *r0, const char *addr, const char *version);
/* Stop listening, end the connections (NULL-safe, idempotent). */
void utd_metrics_stop(void);

#endif
