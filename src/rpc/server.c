/* SPDX-License-Identifier: GPL-2.0-or-later */
/* server.c: the control socket (docs/rpc.md "Transport").
 *
 * AF_UNIX stream socket, mode 0600, peers checked with SO_PEERCRED (root or
 * the daemon's user). Framing: one JSON text per line each way. A line over
 * RPC_MAX_REQUEST is answered -32600 and the connection closed (its end
 * cannot be found).
 *
 * Group commit: requests that change the configuration are prepared as
 * they are read (each its own all-or-nothing transaction, seeing the ones
 * before it) and answered only after every transaction prepared in this
 * reactor iteration has been made durable with one journal write and
 * committed (a deferred item at the end of the iteration). A request that
 * only reads first commits what is pending, so that it never sees a state
 * that is not durable. A method that answers later without the journal
 * (call->start, e.g. reservation.clear waiting for the core's state file)
 * holds its place the same way. Answers leave each connection in request
 * order.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "config/ctl.h"
#include "lib/list.h"
#include "lib/log.h"
#include "lib/reactor.h"
#include "rpc/rpc.h"

#define RPC_READ_CHUNK	    65536
#define RPC_IDLE_COMPACT_NS (1000ull * 1000000ull) /* compact 1 s after the last change */

struct rpc_client;

/* One line's answer: a single response, or a batch's array. */
struct rpc_line {
	struct list_node node; /* client->lines */
	json_t *resp;	       /* NULL: notification(s) only, nothing to send */
	unsigned waiting;      /* calls still waiting for their commit */
	bool close_after;      /* send, then close the connection */
};

/* A prepared change waiting for the group commit. */
struct rpc_pending {
	struct list_node node; /* srv.pending */
	struct rpc_client *client;
	struct rpc_line *line;
	json_t *slot_array; /* batch: the array; else NULL */
	size_t slot;	    /* index in it */
	json_t *id;
	struct rpc_call call;
};

struct rpc_client {
	struct list_node node; /* srv.clients */
	struct reactor_fd rfd;
	char *in;
	size_t inlen, incap;
	char *out;
	size_t outlen, outoff, outcap;
	struct list_node lines;
	unsigned refs; /* pending entries */
	bool dead;     /* closed; freed once refs is 0 */
	bool closing;  /* close after the output drains */
};

static struct {
	struct reactor *r;
	struct reactor_fd lfd;
	int fd;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	char version[64];
	struct list_node clients;
	struct list_node pending;
	struct reactor_defer flush;
	struct reactor_timer idle;
	uint64_t started_ns;
	bool running;
} srv = {.fd = -1};

const char *rpc_server_path(void)
{
	return srv.path;
}

const char *rpc_server_version(void)
{
	return srv.version;
}

double rpc_server_uptime(void)
{
	return (double)(reactor_now_ns() - srv.started_ns) / 1e9;
}

/* ---- errors ---- */
int rpc_fail(struct rpc_call *call, int code, json_t *data, const char *fmt, ...)
{
	va_list ap;

	call->code = code;
	va_start(ap, fmt);
	vsnprintf(call->msg, sizeof(call->msg), fmt, ap);
	va_end(ap);
	json_decref(call->data);
	call->data = data;
	return -1;
}

int rpc_fail_cfg(struct rpc_call *call, int rc, const struct cfg_err *err, bool runtime)
{
	json_t *data = json_object();
	int code;

	switch (rc) {
	case -ENOENT:
		code = runtime ? RPC_APPLY_FAILED : RPC_NOT_FOUND;
		break;
	case -EEXIST:
		code = RPC_EXISTS;
		break;
	case -EBUSY:
		code = RPC_IN_USE;
		break;
	case -ENOMEM:
		code = RPC_INTERNAL_ERROR;
		break;
	case -EOPNOTSUPP:
		code = RPC_NOT_SUPPORTED;
		break;
	case -EPERM: /* a rule of the running side (e.g. shrinking without force) */
		code = RPC_CONFIG_INVALID;
		break;
	default:
		code = runtime ? RPC_APPLY_FAILED : RPC_CONFIG_INVALID;
		break;
	}
	if (data) {
		if (err->path[0])
			json_object_set_new(data, "path", json_string(err->path));
		if (err->line > 0)
			json_object_set_new(data, "line", json_integer(err->line));
		json_object_set_new(data, "message", json_string(err->msg));
		if (runtime)
			json_object_set_new(data, "errno", json_integer(-rc));
	}
	return rpc_fail(call, code, data, "%s%s%s", err->path, err->path[0] ? ": " : "",
			err->msg[0] ? err->msg : strerror(-rc));
}

static json_t *rpc_error_obj(int code, const char *msg, json_t *data)
{
	json_t *e = json_pack("{s:i,s:s}", "code", code, "message", msg);

	if (e && data)
		json_object_set(e, "data", data);
	return e;
}

static json_t *rpc_response(json_t *id, json_t *result, json_t *error)
{
	json_t *r = json_object();

	if (!r)
		return NULL;
	json_object_set_new(r, "jsonrpc", json_string("2.0"));
	json_object_set(r, "id", id ? id : json_null());
	if (error)
		json_object_set_new(r, "error", error);
	else
		json_object_set_new(r, "result", result ? result : json_object());
	return r;
}

static json_t *call_response(json_t *id, struct rpc_call *call)
{
	if (call->code)
		return rpc_response(id, NULL, rpc_error_obj(call->code, call->msg, call->data));
	if (!call->m || !call->m->secrets)
		rpc_redact(call->result);
	return rpc_response(id, json_incref(call->result), NULL);
}

/* ---- output ---- */
static void client_close(struct rpc_client *cl);

static void client_want_out(struct rpc_client *cl)
{
	if (!cl->dead)
		reactor_fd_mod(&cl->rfd, cl->closing ? REACTOR_OUT : REACTOR_IN | REACTOR_OUT);
}

static int client_queue(struct rpc_client *cl, const char *s, size_t n)
{
	if (cl->outlen + n + 1 > cl->outcap) {
		size_t cap = (cl->outlen + n + 1) * 2;
		char *nb = realloc(cl->out, cap);

		if (!nb)
			return -ENOMEM;
		cl->out = nb;
		cl->outcap = cap;
	}
	memcpy(cl->out + cl->outlen, s, n);
	cl->outlen += n;
	cl->out[cl->outlen++] = '\n';
	return 0;
}

/* Send the answers that are complete, in order. */
static void client_emit(struct rpc_client *cl)
{
	while (!list_empty(&cl->lines)) {
		struct rpc_line *l = list_first_entry(&cl->lines, struct rpc_line, node);
		char *text = NULL;

		if (l->waiting)
			break;
		list_del(&l->node);
		if (l->resp && !cl->dead) {
			text = json_dumps(l->resp, JSON_COMPACT);
			if (!text || client_queue(cl, text, strlen(text)))
				cl->closing = true; /* cannot answer: end the connection */
			free(text);
		}
		if (l->close_after)
			cl->closing = true;
		json_decref(l->resp);
		free(l);
	}
	if (!cl->dead && (cl->outlen > cl->outoff || cl->closing))
		client_want_out(cl);
}

/* The call's answer goes to its place in the line (or its batch), which
 * is sent once nothing before it is still waiting. */
static void pending_answer(struct rpc_pending *p)
{
	if (p->id) {
		json_t *resp = call_response(p->id, &p->call);

		if (p->slot_array)
			json_array_set_new(p->slot_array, p->slot, resp ? resp : json_null());
		else
			p->line->resp = resp;
	}
	p->line->waiting--;
}

/* p answered: freed with its call, its client's reference dropped (the
 * client freed too when it closed meanwhile), what is complete sent. */
static void pending_end(struct rpc_pending *p)
{
	struct rpc_client *cl = p->client;

	rpc_call_clear(&p->call);
	json_decref(p->id);
	free(p);
	cl->refs--;
	client_emit(cl);
	if (cl->dead && !cl->refs)
		client_close(cl);
}

/* ---- the group commit ---- */
static void pending_finish(struct rpc_pending *p, int rc, const struct cfg_err *err)
{
	struct rpc_call *call = &p->call;

	if (rc) {
		call->code = RPC_PERSIST_FAILED;
		snprintf(call->msg, sizeof(call->msg), "not made durable, rolled back: %s",
			 err->msg);
		json_decref(call->data);
		call->data = json_pack("{s:s,s:i}", "message", err->msg, "errno", -rc);
	} else {
		json_t *effects = json_array();

		for (size_t i = 0; effects && i < call->txn.n; i++) {
			const char *e = cfg_ctl_effect(call->txn.v[i]);
			char what[512];

			if (!e[0])
				continue;
			cfg_chg_describe(call->txn.v[i], what, sizeof(what));
			json_array_append_new(effects,
					      json_pack("{s:s,s:s}", "change", what, "effect", e));
		}
		call->result = call->finish ? call->finish(call) : json_object();
		if (!call->result && !call->code)
			rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
		if (call->result && json_is_object(call->result) && json_array_size(effects))
			json_object_set(call->result, "effects", effects);
		json_decref(effects);
	}
	pending_answer(p);
}

static void server_commit(void)
{
	struct rpc_pending *p, *tmp;
	struct cfg_txn **v;
	struct cfg_err err = {0};
	size_t n = 0, k = 0;
	bool compact = false;
	int rc;

	if (list_empty(&srv.pending))
		return;
	list_for_each_entry(p, &srv.pending, node) n++;
	v = calloc(n, sizeof(*v));
	if (v) {
		list_for_each_entry(p, &srv.pending, node)
		{
			v[k++] = &p->call.txn;
			compact |= p->call.compact;
		}
		rc = cfg_ctl_commit(v, n, &err);
		free(v);
	} else {
		struct list_node *it;

		/* cannot even list them: roll back, newest first */
		rc = -ENOMEM;
		snprintf(err.msg, sizeof(err.msg), "out of memory");
		for (it = srv.pending.prev; it != &srv.pending; it = it->prev)
			cfg_ctl_rollback(&list_entry(it, struct rpc_pending, node)->call.txn);
	}
	list_for_each_entry_safe(p, tmp, &srv.pending, node)
	{
		list_del(&p->node);
		pending_finish(p, rc, &err);
		cfg_ctl_done(&p->call.txn);
		pending_end(p);
	}
	if (!rc) {
		if (compact) {
			if (cfg_ctl_save(&err))
				log_warn("config: %s", err.msg);
		} else {
			cfg_ctl_maybe_compact(false);
		}
		reactor_timer_arm(srv.r, &srv.idle, RPC_IDLE_COMPACT_NS);
	}
}

static void server_flush_cb(struct reactor_defer *d)
{
	(void)d;
	server_commit();
}

static void server_idle_cb(struct reactor_timer *t)
{
	(void)t;
	if (list_empty(&srv.pending))
		cfg_ctl_maybe_compact(true);
}

/* ---- answers that come later (call->start, or the group commit) ---- */

/* call moved to the heap, holding its place in line (slot of slot_array
 * for a batch) and a reference on its client; NULL when out of memory. */
static struct rpc_pending *pending_new(struct rpc_client *cl, struct rpc_line *line,
				       json_t *slot_array, size_t slot, json_t *id,
				       const struct rpc_call *call)
{
	struct rpc_pending *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	list_init(&p->node);
	p->client = cl;
	p->line = line;
	p->slot_array = slot_array;
	p->slot = slot;
	p->id = id ? json_incref(id) : NULL;
	p->call = *call;
	cl->refs++;
	line->waiting++;
	return p;
}

/* Move call to the heap and start it: true when its answer is pending;
 * false: answer now (call holds the error). */
static bool start_later(struct rpc_client *cl, struct rpc_line *line, json_t *slot_array,
			size_t slot, json_t *id, struct rpc_call *call)
{
	struct rpc_pending *p = pending_new(cl, line, slot_array, slot, id, call);

	if (!p) {
		rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
		return false;
	}
	/* not on srv.pending: no commit */
	if (p->call.start(&p->call) == 0)
		return true;
	*call = p->call;
	cl->refs--;
	line->waiting--;
	json_decref(p->id);
	free(p);
	return false;
}

void rpc_call_done(struct rpc_call *call)
{
	struct rpc_pending *p = container_of(call, struct rpc_pending, call);

	if (!call->result && !call->code)
		rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	pending_answer(p);
	pending_end(p);
}

/* ---- requests ---- */
static bool valid_id(const json_t *id)
{
	return !id || json_is_string(id) || json_is_integer(id) || json_is_real(id) ||
	       json_is_null(id);
}

/* Handle one request object. Returns the response (NULL: none yet, or a
 * notification) ; *pending set when its answer waits for the commit. */
static json_t *handle_request(struct rpc_client *cl, struct rpc_line *line, json_t *slot_array,
			      size_t slot, json_t *req)
{
	struct rpc_call call = {0};
	json_t *id, *method, *params, *resp;
	size_t failed;
	int rc;

	if (!json_is_object(req))
		return rpc_response(
		    NULL, NULL, rpc_error_obj(RPC_INVALID_REQUEST, "not a request object", NULL));
	id = json_object_get(req, "id");
	method = json_object_get(req, "method");
	params = json_object_get(req, "params");
	if (!valid_id(id) || !json_is_string(json_object_get(req, "jsonrpc")) ||
	    strcmp(json_string_value(json_object_get(req, "jsonrpc")), "2.0") != 0 ||
	    !json_is_string(method))
		return rpc_response(
		    valid_id(id) ? id : NULL, NULL,
		    rpc_error_obj(RPC_INVALID_REQUEST,
				  "a JSON-RPC 2.0 request needs \"jsonrpc\": \"2.0\" "
				  "and a string \"method\"",
				  NULL));
	call.m = rpc_method_find(json_string_value(method));
	if (!call.m) {
		if (!id)
			return NULL;
		return rpc_response(id, NULL,
				    rpc_error_obj(RPC_METHOD_NOT_FOUND, "method not found", NULL));
	}
	if (params && !json_is_object(params)) {
		if (!id)
			return NULL;
		return rpc_response(
		    id, NULL,
		    rpc_error_obj(RPC_INVALID_PARAMS, "params must be an object (by name)", NULL));
	}
	call.params = params ? json_incref(params) : json_object();
	if (!call.m->mutating)
		server_commit(); /* reads see durable state only */
	rc = rpc_call_run(&call);
	if (!rc && call.start) {
		if (start_later(cl, line, slot_array, slot, id, &call))
			return NULL;
	} else if (!rc && call.txn.n && !call.dry_run) {
		struct rpc_pending *p;
		struct cfg_err err;
		bool runtime = false;

		if (!call.prepared)
			rc = cfg_ctl_prepare(&call.txn, false, &failed, &runtime, &err);
		if (rc) {
			char what[512];

			rpc_fail_cfg(&call, rc, &err, runtime);
			if (failed < call.txn.n && call.data) {
				cfg_chg_describe(call.txn.v[failed], what, sizeof(what));
				json_object_set_new(call.data, "change", json_string(what));
			}
		} else {
			p = pending_new(cl, line, slot_array, slot, id, &call);
			if (!p) {
				cfg_ctl_rollback(&call.txn);
				rpc_fail(&call, RPC_INTERNAL_ERROR, NULL, "out of memory");
			} else {
				list_add_tail(&srv.pending, &p->node);
				reactor_defer(srv.r, &srv.flush);
				return NULL;
			}
		}
	} else if (!rc && call.finish && !call.result) {
		/* nothing to change (e.g. a reload with no difference) */
		call.result = call.finish(&call);
	}
	resp = id ? call_response(id, &call) : NULL;
	rpc_call_clear(&call);
	return resp;
}

static void handle_line(struct rpc_client *cl, const char *text, size_t len)
{
	struct rpc_line *line = calloc(1, sizeof(*line));
	json_error_t jerr;
	json_t *doc;

	if (!line) {
		cl->closing = true;
		return;
	}
	list_add_tail(&cl->lines, &line->node);
	line->waiting = 1; /* until handled */
	doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!doc) {
		char msg[256];

		snprintf(msg, sizeof(msg), "parse error: %s", jerr.text);
		line->resp = rpc_response(NULL, NULL, rpc_error_obj(RPC_PARSE_ERROR, msg, NULL));
	} else if (json_is_array(doc)) {
		size_t n = json_array_size(doc);

		if (!n) {
			line->resp = rpc_response(
			    NULL, NULL, rpc_error_obj(RPC_INVALID_REQUEST, "empty batch", NULL));
		} else {
			json_t *arr = json_array();
			size_t i;
			json_t *req;

			line->resp = arr;
			json_array_foreach(doc, i, req)
			{
				json_t *r;

				if (!arr)
					break;
				json_array_append_new(arr, json_null()); /* the slot */
				r = handle_request(cl, line, arr, json_array_size(arr) - 1, req);
				if (r)
					json_array_set_new(arr, json_array_size(arr) - 1, r);
				else if (!json_is_object(req) || !json_object_get(req, "id"))
					/* a notification: no answer, no slot */
					json_array_remove(arr, json_array_size(arr) - 1);
			}
			/* notifications only: nothing is sent */
			if (arr && !json_array_size(arr)) {
				json_decref(arr);
				line->resp = NULL;
			}
		}
	} else {
		line->resp = handle_request(cl, line, NULL, 0, doc);
	}
	json_decref(doc);
	line->waiting--;
	client_emit(cl);
}

/* ---- connections ---- */
static void client_close(struct rpc_client *cl)
{
	struct rpc_line *l, *tmp;

	if (!cl->dead) {
		cl->dead = true;
		reactor_fd_del(&cl->rfd);
		close(cl->rfd.fd);
		list_del(&cl->node);
	}
	if (cl->refs)
		return; /* its pending changes still commit; freed after */
	list_for_each_entry_safe(l, tmp, &cl->lines, node)
	{
		list_del(&l->node);
		json_decref(l->resp);
		free(l);
	}
	free(cl->in);
	free(cl->out);
	free(cl);
}

static void client_read(struct rpc_client *cl)
{
	for (;;) {
		ssize_t r;
		char *nl;

		if (cl->incap - cl->inlen < RPC_READ_CHUNK) {
			size_t cap = cl->incap ? cl->incap * 2 : 2 * RPC_READ_CHUNK;
			char *nb;

			if (cap > RPC_MAX_REQUEST + 2 * RPC_READ_CHUNK)
				cap = RPC_MAX_REQUEST + 2 * RPC_READ_CHUNK;
			if (cap <= cl->incap) {
				/* a line longer than allowed: answer once and close */
				struct rpc_line *line = calloc(1, sizeof(*line));

				if (line) {
					line->resp = rpc_response(
					    NULL, NULL,
					    rpc_error_obj(RPC_INVALID_REQUEST,
							  "request too large (16 MiB per line)",
							  NULL));
					line->close_after = true;
					list_add_tail(&cl->lines, &line->node);
				}
				cl->closing = true;
				cl->inlen = 0;
				client_emit(cl);
				return;
			}
			nb = realloc(cl->in, cap);
			if (!nb) {
				client_close(cl);
				return;
			}
			cl->in = nb;
			cl->incap = cap;
		}
		r = read(cl->rfd.fd, cl->in + cl->inlen, cl->incap - cl->inlen);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (r < 0) {
			client_close(cl);
			return;
		}
		if (r == 0) {
			/* the peer is done sending (a half-close): answer what it
			 * asked, then close */
			cl->closing = true;
			cl->inlen = 0;
			if (list_empty(&cl->lines) && cl->outlen == cl->outoff)
				client_close(cl);
			else
				reactor_fd_mod(&cl->rfd, REACTOR_OUT);
			return;
		}
		cl->inlen += (size_t)r;
		/* every complete line */
		size_t start = 0;
		while (!cl->closing && (nl = memchr(cl->in + start, '\n', cl->inlen - start))) {
			size_t len = (size_t)(nl - (cl->in + start));

			if (len > RPC_MAX_REQUEST) {
				cl->inlen = start; /* handled below as too large */
				break;
			}
			if (len && !(len == 1 && cl->in[start] == '\r'))
				handle_line(cl, cl->in + start, len);
			start += len + 1;
			if (cl->dead)
				return;
		}
		memmove(cl->in, cl->in + start, cl->inlen - start);
		cl->inlen -= start;
		if (cl->closing)
			return;
	}
}

/* false when the connection was closed (cl may be gone) */
static bool client_write(struct rpc_client *cl)
{
	while (cl->outoff < cl->outlen) {
		ssize_t w =
		    send(cl->rfd.fd, cl->out + cl->outoff, cl->outlen - cl->outoff, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return true;
		if (w < 0) {
			client_close(cl);
			return false;
		}
		cl->outoff += (size_t)w;
	}
	cl->outoff = cl->outlen = 0;
	if (cl->closing) {
		if (!list_empty(&cl->lines))
			return true; /* answers still to come: client_emit asks for OUT */
		client_close(cl);
		return false;
	}
	reactor_fd_mod(&cl->rfd, REACTOR_IN);
	return true;
}

static void client_cb(struct reactor_fd *h, uint32_t revents)
{
	struct rpc_client *cl = container_of(h, struct rpc_client, rfd);

	if ((revents & REACTOR_OUT) && !client_write(cl))
		return;
	if ((revents & (REACTOR_IN | REACTOR_HUP | REACTOR_ERR)) && !cl->closing)
		client_read(cl);
}

/* SO_PEERCRED: root, or the user the daemon runs as. */
static bool peer_allowed(int fd, uid_t *uid)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) < 0)
		return false;
	*uid = cr.uid;
	return cr.uid == 0 || cr.uid == geteuid();
}

static void accept_cb(struct reactor_fd *h, uint32_t revents)
{
	(void)revents;
	for (int i = 0; i < 16; i++) {
		int fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct rpc_client *cl;
		uid_t uid = (uid_t)-1;

		if (fd < 0)
			return;
		if (!peer_allowed(fd, &uid)) {
			static const char deny[] =
			    "{\"error\":{\"code\":-32008,\"message\":\"permission denied\"},"
			    "\"id\":null,\"jsonrpc\":\"2.0\"}\n";

			log_warn("rpc: connection from uid %d refused (root or uid %d only)",
				 (int)uid, (int)geteuid());
			if (send(fd, deny, sizeof(deny) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				log_debug("rpc: %s", strerror(errno));
			close(fd);
			continue;
		}
		cl = calloc(1, sizeof(*cl));
		if (!cl) {
			close(fd);
			continue;
		}
		list_init(&cl->lines);
		if (reactor_fd_add(srv.r, &cl->rfd, fd, REACTOR_IN, client_cb)) {
			close(fd);
			free(cl);
			continue;
		}
		list_add_tail(&srv.clients, &cl->node);
	}
}

/* The socket's directory (only its last component is created, 0700). */
static int make_dir_of(const char *path)
{
	char dir[sizeof(srv.path)];
	char *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return 0;
	*slash = '\0';
	if (stat(dir, &st) == 0)
		return S_ISDIR(st.st_mode) ? 0 : -ENOTDIR;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

int rpc_server_start(struct reactor *r, const struct rpc_server_opts *o)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	size_t len = strlen(o->path);
	mode_t old;
	int fd, rc;

	if (len == 0 || len >= sizeof(sa.sun_path)) {
		log_err("rpc: socket path \"%s\" is too long (at most %zu bytes)", o->path,
			sizeof(sa.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	memcpy(sa.sun_path, o->path, len);
	rc = make_dir_of(o->path);
	if (rc) {
		log_err("rpc: cannot create the directory of %s: %s", o->path, strerror(-rc));
		return rc;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	/* a socket left by a daemon that died; a live one answers connect() */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(fd);
		log_err("rpc: %s is in use by another utargetd", o->path);
		return -EADDRINUSE;
	}
	unlink(o->path);
	close(fd);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	old = umask(0177); /* created 0600: no window with a wider mode */
	rc = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (rc < 0 || chmod(o->path, 0600) < 0 || listen(fd, 64) < 0) {
		rc = -errno;
		log_err("rpc: cannot listen on %s: %s", o->path, strerror(-rc));
		close(fd);
		return rc;
	}
	srv.r = r;
	srv.fd = fd;
	snprintf(srv.path, sizeof(srv.path), "%s", o->path);
	snprintf(srv.version, sizeof(srv.version), "%s", o->version ? o->version : "");
	list_init(&srv.clients);
	list_init(&srv.pending);
	reactor_defer_init(&srv.flush, server_flush_cb);
	reactor_timer_init(&srv.idle, server_idle_cb);
	srv.started_ns = reactor_now_ns();
	rc = reactor_fd_add(r, &srv.lfd, fd, REACTOR_IN, accept_cb);
	if (rc) {
		close(fd);
		unlink(o->path);
		srv.fd = -1;
		return rc;
	}
	srv.running = true;
	cfg_ctl_set_flush(server_commit);
	log_info("rpc: control socket %s", srv.path);
	return 0;
}

void rpc_server_stop(void)
{
	struct rpc_client *cl, *tmp;

	if (!srv.running)
		return;
	server_commit(); /* answers of what is pending */
	cfg_ctl_set_flush(NULL);
	reactor_defer_cancel(&srv.flush);
	reactor_timer_cancel(&srv.idle);
	list_for_each_entry_safe(cl, tmp, &srv.clients, node) client_close(cl);
	reactor_fd_del(&srv.lfd);
	close(srv.fd);
	unlink(srv.path);
	srv.fd = -1;
	srv.running = false;
	/* the journal into the file before exit */
	cfg_ctl_maybe_compact(true);
}
