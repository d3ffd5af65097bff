/* SPDX-License-Identifier: GPL-2.0-or-later */
/* methods_session.c: iSCSI sessions and connections: list them (with
 * what each negotiated, its login time and its counters), end them:
 * by default with a target-initiated logout (RFC 7143 11.9.1: AsyncEvent 1,
 * the initiator logs out within "timeout" seconds, else it is dropped), or
 * at once with "mode": "drop"; the answer's "action" says which. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric/iscsi/iscsi.h"
#include "rpc/iscsi_stats.h"
#include "rpc/rpc.h"

static const char *digest(bool crc32c)
{
	return crc32c ? "CRC32C" : "None"; /* the key's values (RFC 7143 13.1) */
}

/* A connection: where, its state, and what it negotiated (RFC 7143 13:
 * the digests and each side's MaxRecvDataSegmentLength are per
 * connection). */
static json_t *conn_json(const struct iscsi_conn_info *c)
{
	return json_pack("{s:i,s:s,s:s,s:s,s:s,s:s,s:{s:I,s:I},s:i,s:i}", "cid", c->cid, "peer",
			 c->peer, "local", c->local, "state", c->state, "header_digest",
			 digest(c->header_digest), "data_digest", digest(c->data_digest),
			 "max_recv_data_segment_length", "target", (json_int_t)c->max_recv_dsl,
			 "initiator", (json_int_t)c->max_send_dsl, "reactor", (int)c->reactor,
			 "socket_reactor", (int)c->socket_reactor);
}

static json_t *session_json(const struct iscsi_session_info *s)
{
	char isid[13], login[32];
	json_t *o, *conns = json_array();

	for (size_t i = 0; i < 6; i++)
		snprintf(isid + 2 * i, 3, "%02x", s->isid[i]);
	rpc_iso8601(s->login_time, login, sizeof(login));
	for (size_t i = 0; conns && i < s->nconns; i++)
		json_array_append_new(conns, conn_json(&s->conns[i]));
	o = json_pack("{s:i,s:s,s:s,s:i,s:s,s:s,s:s,s:b,s:s,s:s,s:o}", "tsih", s->tsih, "type",
		      s->discovery ? "discovery" : "normal", "target", s->target, "tpgt", s->tpgt,
		      "initiator", s->initiator, "initiator_alias", s->initiator_alias, "isid",
		      isid, "logged_in", s->logged_in, "state", s->state ? s->state : "free",
		      "login_time", login, "connections", conns ? conns : json_array());
	if (o)
		json_object_set_new(o, "negotiated",
				    json_pack("{s:I,s:I,s:b,s:b,s:i,s:i}", "max_burst_length",
					      (json_int_t)s->max_burst_length, "first_burst_length",
					      (json_int_t)s->first_burst_length, "initial_r2t",
					      s->initial_r2t, "immediate_data", s->immediate_data,
					      "error_recovery_level", (int)s->error_recovery_level,
					      "max_connections", (int)s->max_connections));
	if (o)
		json_object_set_new(o, "stats", rpc_session_counters_json(s));
	return o;
}

static int m_list(struct rpc_call *call)
{
	const char *target = json_string_value(json_object_get(call->params, "target"));
	struct iscsi_session_info *s = NULL;
	size_t n = 0;
	json_t *a;

	if (iscsi_session_list(&s, &n))
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	a = json_array();
	for (size_t i = 0; a && i < n; i++)
		if (!target || strcmp(s[i].target, target) == 0)
			json_array_append_new(a, session_json(&s[i]));
	free(s);
	call->result = a;
	return a ? 0 : rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
}

static int no_session(struct rpc_call *call, json_int_t tsih, int cid)
{
	char what[32];

	snprintf(what, sizeof(what), "%lld", (long long)tsih);
	return rpc_fail(
	    call, RPC_NOT_FOUND,
	    json_pack("{s:s,s:s}", "kind", cid < 0 ? "session" : "connection", "name", what),
	    "no session with TSIH %s%s", what, cid < 0 ? "" : " and that connection");
}

/* session.close / connection.close: a target-initiated logout (RFC 7143
 * 11.9.1 AsyncEvent 1, the default), a drop announced first (AsyncEvent 3
 * or 2 with Time2Wait "wait"), or a plain drop */
static int end(struct rpc_call *call, int cid)
{
	json_int_t tsih = json_integer_value(json_object_get(call->params, "tsih"));
	const char *mode = rpc_str(call, "mode");
	json_t *tv = json_object_get(call->params, "timeout");
	json_t *wv = json_object_get(call->params, "wait");
	json_int_t timeout = tv ? json_integer_value(tv) : 10;
	json_int_t wait = wv ? json_integer_value(wv) : 2;
	bool logout = !mode || !strcmp(mode, "logout");
	bool announce = mode && !strcmp(mode, "announce");
	const char *action = logout ? "logout requested" : announce ? "drop announced" : "dropped";
	int rc;

	if (mode && !logout && !announce && strcmp(mode, "drop"))
		return rpc_fail(call, RPC_INVALID_PARAMS, json_pack("{s:s}", "param", "mode"),
				"mode: \"logout\", \"announce\" or \"drop\"");
	if (timeout < 1 || timeout > 3600)
		return rpc_fail(call, RPC_INVALID_PARAMS, json_pack("{s:s}", "param", "timeout"),
				"timeout: 1..3600 seconds");
	if (wait < 0 || wait > 3600)
		return rpc_fail(call, RPC_INVALID_PARAMS, json_pack("{s:s}", "param", "wait"),
				"wait: 0..3600 seconds (Time2Wait)");
	rc = -ENOENT;
	if (tsih >= 1 && tsih <= 65535 && cid <= 65535)
		rc = logout	? iscsi_session_logout((uint16_t)tsih, cid, (uint16_t)timeout)
		     : announce ? iscsi_session_drop_announced((uint16_t)tsih, cid, (uint16_t)wait)
				: iscsi_session_drop((uint16_t)tsih, cid);
	if (rc)
		return no_session(call, tsih, cid);
	call->result = json_pack("{s:I,s:s}", "tsih", tsih, "action", action);
	if (call->result && cid >= 0)
		json_object_set_new(call->result, "cid", json_integer(cid));
	if (call->result && logout)
		json_object_set_new(call->result, "timeout", json_integer(timeout));
	if (call->result && announce)
		json_object_set_new(call->result, "wait", json_integer(wait));
	return 0;
}

/* session.renegotiate: AsyncEvent 4 (RFC 7143 11.9.1) */
static int m_renegotiate(struct rpc_call *call)
{
	json_int_t tsih = json_integer_value(json_object_get(call->params, "tsih"));
	json_t *cv = json_object_get(call->params, "cid");
	json_int_t cid = cv ? json_integer_value(cv) : -1;
	int rc = -ENOENT;

	if (cv && (cid < 0 || cid > 65535))
		return rpc_fail(call, RPC_INVALID_PARAMS, json_pack("{s:s}", "param", "cid"),
				"cid: 0..65535");
	if (tsih >= 1 && tsih <= 65535)
		rc = iscsi_session_renegotiate((uint16_t)tsih, (int)cid);
	if (rc)
		return no_session(call, tsih, (int)cid);
	call->result =
	    json_pack("{s:I,s:s}", "tsih", tsih, "action", "parameter negotiation requested");
	if (call->result && cv)
		json_object_set_new(call->result, "cid", json_integer(cid));
	return 0;
}

static int m_close(struct rpc_call *call)
{
	return end(call, -1);
}

static int m_conn_close(struct rpc_call *call)
{
	json_int_t cid = json_integer_value(json_object_get(call->params, "cid"));

	if (cid < 0 || cid > 65535)
		return rpc_fail(call, RPC_INVALID_PARAMS, json_pack("{s:s}", "param", "cid"),
				"cid: 0..65535");
	return end(call, (int)cid);
}

static const struct rpc_param p_list[] = {
    {.name = "target", .type = RPC_T_STRING},
    {0},
};
static const struct rpc_param p_close[] = {
    {.name = "tsih", .type = RPC_T_INTEGER, .required = true},
    {.name = "mode", .type = RPC_T_STRING},
    {.name = "timeout", .type = RPC_T_INTEGER},
    {.name = "wait", .type = RPC_T_INTEGER},
    {0},
};
static const struct rpc_param p_conn[] = {
    {.name = "tsih", .type = RPC_T_INTEGER, .required = true},
    {.name = "cid", .type = RPC_T_INTEGER, .required = true},
    {.name = "mode", .type = RPC_T_STRING},
    {.name = "timeout", .type = RPC_T_INTEGER},
    {.name = "wait", .type = RPC_T_INTEGER},
    {0},
};
static const struct rpc_param p_reneg[] = {
    {.name = "tsih", .type = RPC_T_INTEGER, .required = true},
    {.name = "cid", .type = RPC_T_INTEGER},
    {0},
};

const struct rpc_method rpc_methods_session[] = {
    {.name = "session.list", .fn = m_list, .params = p_list},
    {.name = "session.close", .fn = m_close, .params = p_close},
    {.name = "connection.close", .fn = m_conn_close, .params = p_conn},
    {.name = "session.renegotiate", .fn = m_renegotiate, .params = p_reneg},
    {0},
};
