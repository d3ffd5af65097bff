/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iscsi_stats.c: the iSCSI fabric's statistics as JSON (iscsi_stats.h):
 * the instance's and the target nodes' login, logout and failure counters
 * (fabric/iscsi/counters.c, RFC 7147), each portal group's SCSI target
 * port counters (RFC 4455 scsiTgtPortTable), and each session's and
 * connection's PDU and error counters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rpc/iscsi_stats.h"

static const char *const outcome_keys[ISCSI_LOGIN_OUTCOMES] = {
    [ISCSI_LOGIN_ACCEPTED] = "accepts",
    [ISCSI_LOGIN_REDIRECTED] = "redirects",
    [ISCSI_LOGIN_AUTHN_FAILED] = "authentication_failures",
    [ISCSI_LOGIN_AUTHZ_FAILED] = "authorization_failures",
    [ISCSI_LOGIN_NEG_FAILED] = "negotiation_failures",
    [ISCSI_LOGIN_OTHER_FAILED] = "other_failures",
};
static const char *const outcome_types[ISCSI_LOGIN_OUTCOMES] = {
    [ISCSI_LOGIN_ACCEPTED] = "accepted",	   [ISCSI_LOGIN_REDIRECTED] = "redirect",
    [ISCSI_LOGIN_AUTHN_FAILED] = "authentication", [ISCSI_LOGIN_AUTHZ_FAILED] = "authorization",
    [ISCSI_LOGIN_NEG_FAILED] = "negotiation",	   [ISCSI_LOGIN_OTHER_FAILED] = "other",
};
static const char *const fail_types[ISCSI_FAIL_KINDS] = {
    [ISCSI_FAIL_NONE] = "none",	      [ISCSI_FAIL_DIGEST] = "digest",
    [ISCSI_FAIL_TIMEOUT] = "timeout", [ISCSI_FAIL_FORMAT] = "format",
    [ISCSI_FAIL_OTHER] = "other",
};

void rpc_iso8601(int64_t t, char *buf, size_t size)
{
	time_t tt = (time_t)t;
	struct tm tm;

	buf[0] = '\0';
	if (gmtime_r(&tt, &tm))
		strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static json_t *failure_json(const struct iscsi_failure_info *f, const char *const *types,
			    unsigned ntypes)
{
	char when[32];

	if (!f->set || f->kind >= ntypes)
		return json_null();
	rpc_iso8601(f->time, when, sizeof(when));
	return json_pack("{s:s,s:s,s:s,s:s}", "type", types[f->kind], "time", when, "initiator",
			 f->initiator, "address", f->address);
}

static json_t *login_json(const struct iscsi_login_stats *l)
{
	json_t *o = json_object();

	for (unsigned k = 0; o && k < ISCSI_LOGIN_OUTCOMES; k++)
		json_object_set_new(o, outcome_keys[k], json_integer((json_int_t)l->outcome[k]));
	if (o)
		json_object_set_new(o, "last_failure",
				    failure_json(&l->last, outcome_types, ISCSI_LOGIN_OUTCOMES));
	return o;
}

static json_t *logout_json(const struct iscsi_login_stats *l)
{
	return json_pack("{s:I,s:I}", "normal", (json_int_t)l->logout_normal, "other",
			 (json_int_t)l->logout_other);
}

json_t *rpc_iscsi_instance_json(void)
{
	struct iscsi_instance_stats st;
	char start[32];

	iscsi_instance_stats(&st);
	rpc_iso8601(st.start_time, start, sizeof(start));
	return json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:o}", "start_time", start,
			 "sessions", (json_int_t)st.sessions, "discovery_sessions",
			 (json_int_t)st.discovery_sessions, "connections",
			 (json_int_t)st.connections, "session_failures",
			 (json_int_t)st.session_failures, "digest_errors",
			 (json_int_t)st.failures[ISCSI_FAIL_DIGEST], "connection_timeouts",
			 (json_int_t)st.failures[ISCSI_FAIL_TIMEOUT], "format_errors",
			 (json_int_t)st.failures[ISCSI_FAIL_FORMAT], "last_failure",
			 failure_json(&st.last, fail_types, ISCSI_FAIL_KINDS), "login",
			 login_json(&st.login), "logout", logout_json(&st.login));
}

static json_t *target_json(const struct iscsi_target_stats *t)
{
	json_t *tpgs = json_array();

	for (size_t i = 0; tpgs && i < t->ntpgs; i++)
		json_array_append_new(tpgs,
				      json_pack("{s:i,s:i,s:I,s:I,s:I}", "tag", (int)t->tpgs[i].tag,
						"rel_port_id", (int)t->tpgs[i].rel_port_id,
						"commands", (json_int_t)t->tpgs[i].commands,
						"read_bytes", (json_int_t)t->tpgs[i].read_bytes,
						"write_bytes", (json_int_t)t->tpgs[i].write_bytes));
	return json_pack("{s:s,s:s,s:I,s:o,s:o,s:o}", "name", t->name, "alias", t->alias,
			 "sessions", (json_int_t)t->sessions, "login", login_json(&t->login),
			 "logout", logout_json(&t->login), "portal_groups",
			 tpgs ? tpgs : json_array());
}

json_t *rpc_iscsi_targets_json(const char *only, int *rc)
{
	struct iscsi_target_stats *v;
	size_t n;
	json_t *a;

	*rc = iscsi_target_stats_list(only, &v, &n);
	if (*rc)
		return NULL;
	a = json_array();
	for (size_t i = 0; a && i < n; i++)
		json_array_append_new(a, target_json(&v[i]));
	iscsi_target_stats_free(v, n);
	if (!a)
		*rc = -ENOMEM;
	return a;
}

json_t *rpc_session_counters_json(const struct iscsi_session_info *s)
{
	return json_pack(
	    "{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}",
	    "commands", (json_int_t)s->commands, "read_bytes", (json_int_t)s->read_bytes,
	    "write_bytes", (json_int_t)s->write_bytes, "command_pdus", (json_int_t)s->command_pdus,
	    "response_pdus", (json_int_t)s->response_pdus, "tx_data_bytes",
	    (json_int_t)s->tx_data_bytes, "rx_data_bytes", (json_int_t)s->rx_data_bytes,
	    "digest_errors", (json_int_t)s->digest_errors, "connection_timeouts",
	    (json_int_t)s->connection_timeouts, "format_errors", (json_int_t)s->format_errors,
	    "snacks", (json_int_t)s->snacks, "retransmitted_pdus",
	    (json_int_t)s->retransmitted_pdus, "retransmitted_bytes",
	    (json_int_t)s->retransmitted_bytes, "retried_commands", (json_int_t)s->retried_commands,
	    "retain_evicted", (json_int_t)s->retain_evicted, "data_acks", (json_int_t)s->data_acks,
	    "connection_recoveries", (json_int_t)s->connection_recoveries, "tasks_reassigned",
	    (json_int_t)s->tasks_reassigned, "tasks_expired", (json_int_t)s->tasks_expired);
}

static json_t *conn_json(const struct iscsi_conn_info *c)
{
	return json_pack("{s:i,s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:I,s:I}", "cid", (int)c->cid, "peer",
			 c->peer, "local", c->local, "state", c->state, "header_digest",
			 c->header_digest ? "CRC32C" : "None", "data_digest",
			 c->data_digest ? "CRC32C" : "None", "rx_pdus", (json_int_t)c->rx_pdus,
			 "tx_pdus", (json_int_t)c->tx_pdus, "rx_bytes", (json_int_t)c->rx_bytes,
			 "tx_bytes", (json_int_t)c->tx_bytes);
}

static json_t *session_json(const struct iscsi_session_info *s)
{
	char isid[13], login[32];
	json_t *o, *conns = json_array(), *ctr;

	for (size_t i = 0; i < 6; i++)
		snprintf(isid + 2 * i, 3, "%02x", s->isid[i]);
	rpc_iso8601(s->login_time, login, sizeof(login));
	for (size_t i = 0; conns && i < s->nconns; i++)
		json_array_append_new(conns, conn_json(&s->conns[i]));
	o = json_pack("{s:i,s:s,s:s,s:s,s:i,s:b,s:s,s:o}", "tsih", (int)s->tsih, "target",
		      s->target, "initiator", s->initiator, "isid", isid, "tpgt", (int)s->tpgt,
		      "discovery", s->discovery, "login_time", login, "connections",
		      conns ? conns : json_array());
	ctr = rpc_session_counters_json(s);
	if (o && ctr)
		json_object_update(o, ctr);
	json_decref(ctr);
	return o;
}

json_t *rpc_iscsi_sessions_json(const char *only)
{
	struct iscsi_session_info *s;
	size_t n;
	json_t *a;

	if (iscsi_session_list(&s, &n))
		return NULL;
	a = json_array();
	for (size_t i = 0; a && i < n; i++)
		if (!only || strcmp(s[i].target, only) == 0)
			json_array_append_new(a, session_json(&s[i]));
	free(s);
	return a;
}
