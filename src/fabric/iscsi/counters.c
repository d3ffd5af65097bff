/* SPDX-License-Identifier: GPL-2.0-or-later */
/* counters.c: the iSCSI-MIB's login, logout and failure statistics of the
 * instance and its target nodes (counters.h), and their snapshots for the
 * control plane (iscsi.h: iscsi_instance_stats(), iscsi_target_stats_list()).
 *
 * RFC 7147 says what each counts:
 * - iscsiTgtLoginAccepts .. iscsiTgtLoginOtherFails: Login Responses the
 *   target sent, by outcome; a login is counted on the target node its
 *   TargetName named (a discovery login, or one naming no known target, on
 *   the instance: "login" in the instance's snapshot);
 * - iscsiTgtLogoutNormals / Others: Logout Requests received with reason
 *   code 0 (close the session) / any other;
 * - iscsiInstSsnFailures and iscsiInstSsnDigestErrors, ...CxnTimeoutErrors,
 *   ...FormatErrors: logged-in sessions that failed (their last connection
 *   ended without a logout), and of them those ended by a digest error, a
 *   timeout, a format (protocol) error; iscsiInstLastSsnFailureType and
 *   ...RmtNodeName: the last one;
 * - iscsiSsnCxnDigestErrors, ...CxnTimeoutErrors, ...FormatErrors: per
 *   session, PDUs with a digest error, connections that timed out (NOP-In
 *   without an answer), PDUs with a protocol error. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/counters.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"

static struct {
	pthread_mutex_t lock; /* leaf: the "last" records */
	int64_t start_time;
	_Atomic uint64_t session_failures;
	_Atomic uint64_t failures[ISCSI_FAIL_KINDS];
	struct iscsi_failure_info last;
	struct iscsi_login_counters login; /* logins that reached no target */
} ctr = {.lock = PTHREAD_MUTEX_INITIALIZER};

void iscsi_counters_start(void)
{
	ctr.start_time = (int64_t)time(NULL);
}

static enum iscsi_login_outcome login_outcome(enum iscsi_login_status st)
{
	switch (st) {
	case ISCSI_LS_SUCCESS:
		return ISCSI_LOGIN_ACCEPTED;
	case ISCSI_LS_TARGET_MOVED_TEMP:
	case ISCSI_LS_TARGET_MOVED_PERM:
		return ISCSI_LOGIN_REDIRECTED;
	case ISCSI_LS_AUTH_FAILURE:
		return ISCSI_LOGIN_AUTHN_FAILED;
	case ISCSI_LS_AUTHZ_FAILURE:
		return ISCSI_LOGIN_AUTHZ_FAILED;
	case ISCSI_LS_INITIATOR_ERROR:
	case ISCSI_LS_UNSUPPORTED_VERSION:
	case ISCSI_LS_MISSING_PARAMETER:
	case ISCSI_LS_CANT_INCLUDE:
	case ISCSI_LS_SESSION_TYPE_UNSUPPORTED:
	case ISCSI_LS_INVALID_DURING_LOGIN:
		return ISCSI_LOGIN_NEG_FAILED;
	default:
		return ISCSI_LOGIN_OTHER_FAILED;
	}
}

static void peer_address(const struct iscsi_conn *c, char *buf, size_t size)
{
	const struct sockaddr_storage *sa = &c->peer_sa;

	buf[0] = '\0';
	if (sa->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, buf,
			  (socklen_t)size);
	else if (sa->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, buf,
			  (socklen_t)size);
}

static void failure_note(struct iscsi_failure_info *f, uint8_t kind, const char *initiator,
			 const struct iscsi_conn *c)
{
	struct iscsi_failure_info v = {.set = true, .kind = kind, .time = (int64_t)time(NULL)};

	/* the name is the peer's bytes, not yet checked: escaped as in logs */
	log_escape(v.initiator, sizeof(v.initiator), initiator, strlen(initiator));
	if (c)
		peer_address(c, v.address, sizeof(v.address));
	pthread_mutex_lock(&ctr.lock);
	*f = v;
	pthread_mutex_unlock(&ctr.lock);
}

/* c->target is set from TargetName resolution on and kept (referenced)
 * until c goes: a login that got that far counts on its target. */
static struct iscsi_login_counters *counters_of(const struct iscsi_conn *c)
{
	return c->target ? &c->target->counters : &ctr.login;
}

void iscsi_count_login(struct iscsi_conn *c, enum iscsi_login_status st)
{
	struct iscsi_login_counters *lc = counters_of(c);
	enum iscsi_login_outcome o = login_outcome(st);

	atomic_fetch_add_explicit(&lc->outcome[o], 1, memory_order_relaxed);
	if (o != ISCSI_LOGIN_ACCEPTED)
		failure_note(&lc->last, (uint8_t)o, c->login ? c->login->neg.initiator_name : "",
			     c);
}

void iscsi_count_logout(struct iscsi_conn *c, uint8_t reason)
{
	struct iscsi_login_counters *lc = counters_of(c);

	atomic_fetch_add_explicit(reason == ISCSI_LOGOUT_CLOSE_SESSION ? &lc->logout_normal
								       : &lc->logout_other,
				  1, memory_order_relaxed);
}

void iscsi_count_conn_error(struct iscsi_conn *c, enum iscsi_fail_kind kind)
{
	struct iscsi_session *s = c->sess;

	c->fail_kind = (uint8_t)kind; /* cleared by the next PDU received (conn.c) */
	if (!s)
		return;
	switch (kind) {
	case ISCSI_FAIL_DIGEST:
		iscsi_session_count(&s->stat_digest_errors, 1);
		break;
	case ISCSI_FAIL_TIMEOUT:
		iscsi_session_count(&s->stat_cxn_timeouts, 1);
		break;
	case ISCSI_FAIL_FORMAT:
		iscsi_session_count(&s->stat_format_errors, 1);
		break;
	default:
		break;
	}
}

void iscsi_count_session_failed(struct iscsi_session *s, const struct iscsi_conn *c)
{
	uint8_t kind = c->fail_kind != ISCSI_FAIL_NONE ? c->fail_kind : ISCSI_FAIL_OTHER;

	atomic_fetch_add_explicit(&ctr.session_failures, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&ctr.failures[kind], 1, memory_order_relaxed);
	failure_note(&ctr.last, kind, s->initiator_name, c);
}

void iscsi_login_counters_read(struct iscsi_login_counters *lc, struct iscsi_login_stats *out)
{
	for (unsigned o = 0; o < ISCSI_LOGIN_OUTCOMES; o++)
		out->outcome[o] = atomic_load_explicit(&lc->outcome[o], memory_order_relaxed);
	out->logout_normal = atomic_load_explicit(&lc->logout_normal, memory_order_relaxed);
	out->logout_other = atomic_load_explicit(&lc->logout_other, memory_order_relaxed);
	pthread_mutex_lock(&ctr.lock);
	out->last = lc->last;
	pthread_mutex_unlock(&ctr.lock);
}

void iscsi_instance_stats(struct iscsi_instance_stats *out)
{
	memset(out, 0, sizeof(*out));
	out->start_time = ctr.start_time;
	pthread_mutex_lock(&iscsi_global.lock);
	out->sessions = iscsi_global.nsessions - iscsi_global.ndiscovery;
	out->discovery_sessions = iscsi_global.ndiscovery;
	out->connections = iscsi_global.nconns;
	pthread_mutex_unlock(&iscsi_global.lock);
	out->session_failures = atomic_load_explicit(&ctr.session_failures, memory_order_relaxed);
	for (unsigned k = 0; k < ISCSI_FAIL_KINDS; k++)
		out->failures[k] = atomic_load_explicit(&ctr.failures[k], memory_order_relaxed);
	pthread_mutex_lock(&ctr.lock);
	out->last = ctr.last;
	pthread_mutex_unlock(&ctr.lock);
	iscsi_login_counters_read(&ctr.login, &out->login);
}

void iscsi_target_stats_free(struct iscsi_target_stats *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].tpgs);
	free(v);
}

/* Under iscsi_global.lock (it keeps t and its portal groups). */
static int target_fill(struct iscsi_target *t, struct iscsi_target_stats *out)
{
	struct iscsi_tpg *g;
	size_t n = 0;

	snprintf(out->name, sizeof(out->name), "%s", t->name);
	snprintf(out->alias, sizeof(out->alias), "%s", t->alias);
	out->sessions = t->nsessions;
	iscsi_login_counters_read(&t->counters, &out->login);
	list_for_each_entry(g, &t->tpgs, node) n += !g->removed;
	out->tpgs = calloc(n ? n : 1, sizeof(*out->tpgs));
	if (!out->tpgs)
		return -ENOMEM;
	list_for_each_entry(g, &t->tpgs, node)
	{
		struct iscsi_tpg_stats *ts = &out->tpgs[out->ntpgs];
		struct scsi_tport_stats ps;

		if (g->removed || out->ntpgs == n)
			continue;
		scsi_tport_stats(g->tport, &ps);
		ts->tag = g->tag;
		ts->rel_port_id = ps.rel_port_id;
		ts->commands = ps.cmds;
		ts->read_bytes = ps.read_bytes;
		ts->write_bytes = ps.write_bytes;
		out->ntpgs++;
	}
	return 0;
}

int iscsi_target_stats_list(const char *name, struct iscsi_target_stats **out, size_t *n)
{
	struct iscsi_target_stats *v;
	struct iscsi_target *t;
	size_t cap = 0, k = 0;
	int rc = 0;

	*out = NULL;
	*n = 0;
	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(t, &iscsi_global.targets, node) cap += !t->removed;
	v = calloc(cap ? cap : 1, sizeof(*v));
	if (!v)
		rc = -ENOMEM;
	list_for_each_entry(t, &iscsi_global.targets, node)
	{
		if (rc || t->removed || k == cap || (name && strcmp(name, t->name) != 0))
			continue;
		rc = target_fill(t, &v[k++]);
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	if (!rc && name && !k)
		rc = -ENOENT;
	if (rc) {
		iscsi_target_stats_free(v, k);
		return rc;
	}
	*out = v;
	*n = k;
	return 0;
}
