/* SPDX-License-Identifier: GPL-2.0-or-later */
/* login.c: the login phase (RFC 7143 6.3, 11.12, 11.13). */
#include <errno.h>
#include <openssl/crypto.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fabric/iscsi/access.h"
#include "fabric/iscsi/chap.h"
#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/counters.h"
#include "fabric/iscsi/login.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/scsi.h"

#define LOGIN_RSP_CAP (256u << 10) /* answers of one request, all pieces */

/* RFC 7143 11.13.5 */
const struct iscsi_login_status_desc iscsi_login_status_table[ISCSI_LS_COUNT] = {
    [ISCSI_LS_SUCCESS] = {0x00, 0x00, "success"},
    [ISCSI_LS_TARGET_MOVED_TEMP] = {0x01, 0x01, "target moved temporarily"},
    [ISCSI_LS_TARGET_MOVED_PERM] = {0x01, 0x02, "target moved permanently"},
    [ISCSI_LS_INITIATOR_ERROR] = {0x02, 0x00, "initiator error"},
    [ISCSI_LS_AUTH_FAILURE] = {0x02, 0x01, "authentication failure"},
    [ISCSI_LS_AUTHZ_FAILURE] = {0x02, 0x02, "authorization failure"},
    [ISCSI_LS_NOT_FOUND] = {0x02, 0x03, "not found"},
    [ISCSI_LS_TARGET_REMOVED] = {0x02, 0x04, "target removed"},
    [ISCSI_LS_UNSUPPORTED_VERSION] = {0x02, 0x05, "unsupported version"},
    [ISCSI_LS_TOO_MANY_CONNECTIONS] = {0x02, 0x06, "too many connections"},
    [ISCSI_LS_MISSING_PARAMETER] = {0x02, 0x07, "missing parameter"},
    [ISCSI_LS_CANT_INCLUDE] = {0x02, 0x08, "can't include in session"},
    [ISCSI_LS_SESSION_TYPE_UNSUPPORTED] = {0x02, 0x09, "session type not supported"},
    [ISCSI_LS_SESSION_NOT_FOUND] = {0x02, 0x0a, "session does not exist"},
    [ISCSI_LS_INVALID_DURING_LOGIN] = {0x02, 0x0b, "invalid request during login"},
    [ISCSI_LS_TARGET_ERROR] = {0x03, 0x00, "target error"},
    [ISCSI_LS_SERVICE_UNAVAILABLE] = {0x03, 0x01, "service unavailable"},
    [ISCSI_LS_OUT_OF_RESOURCES] = {0x03, 0x02, "out of resources"},
};

/* Authentication methods beyond None, indexed by enum iscsi_auth_method.
 * A method is offered only when its entry is set and neg.auth_allowed has
 * its bit: CHAP when the login's access grant requires it, else None. */
static const struct iscsi_auth_module *const auth_methods[ISCSI_AUTH_COUNT] = {
    [ISCSI_AUTH_NONE] = NULL,
    [ISCSI_AUTH_CHAP] = &iscsi_chap_module,
};

/* Login failure lines: every one counts, the flood of a misbehaving or
 * probing initiator does not fill the log. */
static struct {
	pthread_mutex_t lock;
	struct log_ratelimit rl;
} fail_log = {
    .lock = PTHREAD_MUTEX_INITIALIZER,
    .rl = LOG_RATELIMIT_INIT(10ull * NS_PER_S, 20),
};

static bool fail_log_ok(void)
{
	bool ok;

	pthread_mutex_lock(&fail_log.lock);
	ok = log_ratelimit_ok(&fail_log.rl);
	pthread_mutex_unlock(&fail_log.lock);
	return ok;
}

static const enum iscsi_login_status neg_status[] = {
    [ISCSI_NEG_OK] = ISCSI_LS_SUCCESS,
    [ISCSI_NEG_EDUP] = ISCSI_LS_INITIATOR_ERROR,
    [ISCSI_NEG_ERENEG] = ISCSI_LS_INITIATOR_ERROR,
    [ISCSI_NEG_EVALLEN] = ISCSI_LS_INITIATOR_ERROR,
    [ISCSI_NEG_ETOOMANY] = ISCSI_LS_INITIATOR_ERROR,
    [ISCSI_NEG_ESTAGE] = ISCSI_LS_INITIATOR_ERROR,
    [ISCSI_NEG_EAUTH] = ISCSI_LS_AUTH_FAILURE,
    [ISCSI_NEG_ESESSTYPE] = ISCSI_LS_SESSION_TYPE_UNSUPPORTED,
    [ISCSI_NEG_ENAME] = ISCSI_LS_INITIATOR_ERROR,
    [ISCSI_NEG_EDIGEST] = ISCSI_LS_INITIATOR_ERROR,
};

static void login_timer_cb(struct reactor_timer *tm)
{
	struct iscsi_conn *c = container_of(tm, struct iscsi_conn, login_timer);

	if (c->state != ISCSI_CONN_S3_XPT_UP && c->state != ISCSI_CONN_S4_IN_LOGIN)
		return;
	log_notice("iscsi: %s: login not completed within %u s: closing", c->peer,
		   iscsi_global.settings.login_timeout_s);
	iscsi_conn_drop(c, NULL);
}

void iscsi_login_timeout_arm(struct iscsi_conn *c)
{
	uint32_t s = iscsi_global.settings.login_timeout_s;

	reactor_timer_cancel(&c->login_timer);
	reactor_timer_init(&c->login_timer, login_timer_cb);
	if (s && c->r)
		reactor_timer_arm(c->r, &c->login_timer, (uint64_t)s * NS_PER_S);
}

void iscsi_login_free(struct iscsi_conn *c)
{
	struct iscsi_login *l = c->login;

	if (!l)
		return;
	if (l->auth && l->auth->free)
		l->auth->free(l);
	iscsi_access_grant_release(&l->grant);
	if (l->map)
		scsi_lun_map_put(l->map);
	free(l->acc);
	iscsi_kbuf_free(&l->rsp);
	free(l);
	c->login = NULL;
}

static struct iscsi_login *login_new(void)
{
	struct iscsi_login *l = calloc(1, sizeof(*l));

	if (!l)
		return NULL;
	iscsi_neg_init(&l->neg, &iscsi_global.settings);
	iscsi_kbuf_init(&l->rsp, LOGIN_RSP_CAP);
	l->stage = ISCSI_STAGE_SECURITY;
	return l;
}

static void isid_hex(const uint8_t *isid, char *buf, size_t size)
{
	snprintf(buf, size, "%02x%02x%02x%02x%02x%02x", isid[0], isid[1], isid[2], isid[3], isid[4],
		 isid[5]);
}

void iscsi_login_fail(struct iscsi_conn *c, enum iscsi_login_status st, const char *target_address)
{
	const struct iscsi_login_status_desc *d = &iscsi_login_status_table[st];
	struct iscsi_login *l = c->login;
	struct iscsi_bhs_login_rsp *r;
	uint8_t data[ISCSI_LOGIN_DSL];
	uint32_t n = 0;
	struct iscsi_tx *tx;
	char iname[96], tname[96], isid[16] = "-";

	iscsi_count_login(c, st);
	if (c->state == ISCSI_CONN_S3_XPT_UP)
		iscsi_conn_event(c, ISCSI_CEV_LOGIN_REQ); /* T4, so that T7 follows */
	if (l) {
		l->failed = true;
		isid_hex(l->isid, isid, sizeof(isid));
	}
	log_escape(iname, sizeof(iname), l ? l->neg.initiator_name : "",
		   l ? strlen(l->neg.initiator_name) : 0);
	log_escape(tname, sizeof(tname), l ? l->neg.target_name : "",
		   l ? strlen(l->neg.target_name) : 0);
	if (fail_log_ok())
		log_notice("iscsi: login failed (%02x/%02x %s): initiator %s isid 0x%s target %s "
			   "from %s to %s%s%s",
			   d->status_class, d->status_detail, d->name, iname[0] ? iname : "-", isid,
			   tname[0] ? tname : "-", c->peer, c->local, l && l->fail_why ? ": " : "",
			   l && l->fail_why ? l->fail_why : "");

	tx = iscsi_tx_get(c);
	if (!tx) {
		iscsi_conn_drop(c, "out of memory for a login response");
		return;
	}
	r = &tx->hdr.login_rsp;
	r->opcode = ISCSI_OP_LOGIN_RSP;
	if (l) {
		r->flags = (uint8_t)(l->stage << ISCSI_LOGIN_CSG_SHIFT);
		memcpy(r->isid, l->isid, ISCSI_ISID_LEN);
		put_be16(r->tsih, l->tsih);
		put_be32(r->itt, l->itt);
	}
	r->version_max = ISCSI_VERSION;
	r->version_active = ISCSI_VERSION;
	iscsi_conn_fill_sn(c, r->statsn, r->exp_cmdsn, r->max_cmdsn, true);
	r->status_class = d->status_class;
	r->status_detail = d->status_detail;

	if (l && (st == ISCSI_LS_AUTH_FAILURE || l->fail_answers) && l->rsp.len &&
	    l->rsp.len <= sizeof(data)) {
		/* the answers so far, e.g. AuthMethod=Reject, HeaderDigest=Reject */
		n = l->rsp.len;
		memcpy(data, l->rsp.buf, n);
	}
	if (target_address) {
		/* 11.13.5: a redirection carries TargetAddress */
		int k = snprintf((char *)data + n, sizeof(data) - n, "TargetAddress=%s",
				 target_address);

		if (k > 0 && (size_t)k < sizeof(data) - n)
			n += (uint32_t)k + 1;
	}
	if (n && iscsi_tx_set_data(tx, data, n)) {
		iscsi_conn_drop(c, "out of memory for a login response");
		return;
	}
	tx->flags |= ISCSI_TX_F_CLOSE;
	c->close_ev = ISCSI_CEV_LOGIN_FAIL; /* T7 once it is sent */
	iscsi_conn_pause(c);
	iscsi_tx_queue(c, tx);
}

/* ---- full feature phase ---- */

static void login_enter_ffp(struct iscsi_conn *c)
{
	struct iscsi_login *l = c->login;
	const struct iscsi_params *a = &l->neg.active;

	iscsi_conn_event(c, ISCSI_CEV_LOGIN_OK); /* T5 */
	iscsi_count_login(c, ISCSI_LS_SUCCESS);
	/* RFC 7143 13.1: digests apply from the first PDU after the final
	 * Login Response (already queued without them) */
	pthread_mutex_lock(&iscsi_global.lock); /* session.list reads them (admin.c) */
	c->hdigest = a->header_digest == ISCSI_DIGEST_CRC32C;
	c->ddigest = a->data_digest == ISCSI_DIGEST_CRC32C;
	/* 13.12: each side's declared receive limit */
	c->max_send_dsl = l->neg.peer.max_recv_dsl;
	c->max_recv_dsl = l->neg.mine.max_recv_dsl;
	pthread_mutex_unlock(&iscsi_global.lock);
	c->rx.hdigest = c->hdigest;
	c->rx.ddigest = c->ddigest;
	reactor_timer_cancel(&c->login_timer);
	iscsi_adm_ffp(c); /* the login slot back; a discovery session's slot */
	iscsi_login_free(c);
	iscsi_nop_start(c);
	iscsi_aen_start(c);
}

/* Send the next piece (at most 8192 bytes, RFC 7143 6.2) of the current
 * answer; the last piece carries the transition. */
static void send_rsp_piece(struct iscsi_conn *c)
{
	struct iscsi_login *l = c->login;
	uint32_t left = l->rsp.len - l->rsp_off;
	uint32_t n = UT_MIN(left, ISCSI_LOGIN_DSL);
	bool last = n == left;
	bool to_ffp = last && l->rsp_transit && l->rsp_nsg == ISCSI_STAGE_FULL_FEATURE;
	struct iscsi_bhs_login_rsp *r;
	struct iscsi_tx *tx = iscsi_tx_get(c);

	if (!tx || (n && iscsi_tx_set_data(tx, l->rsp.buf + l->rsp_off, n))) {
		if (tx)
			iscsi_tx_put(c, tx);
		iscsi_conn_drop(c, "out of memory for a login response");
		return;
	}
	r = &tx->hdr.login_rsp;
	r->opcode = ISCSI_OP_LOGIN_RSP;
	r->flags = (uint8_t)(l->stage << ISCSI_LOGIN_CSG_SHIFT);
	if (!last)
		r->flags |= ISCSI_LOGIN_F_CONTINUE; /* 11.13.2: C=1 requires T=0 */
	else if (l->rsp_transit)
		r->flags |= ISCSI_LOGIN_F_TRANSIT | l->rsp_nsg;
	r->version_max = ISCSI_VERSION;
	r->version_active = ISCSI_VERSION;
	memcpy(r->isid, l->isid, ISCSI_ISID_LEN);
	/* 11.13.4: a new session's TSIH only in the final response */
	put_be16(r->tsih, to_ffp && c->sess ? c->sess->tsih : l->tsih);
	put_be32(r->itt, l->itt);
	iscsi_conn_fill_sn(c, r->statsn, r->exp_cmdsn, r->max_cmdsn, true);
	l->rsp_off += n;
	iscsi_tx_queue(c, tx);
	if (!last)
		return;
	iscsi_kbuf_reset(&l->rsp);
	l->rsp_off = 0;
	if (to_ffp)
		login_enter_ffp(c);
	else if (l->rsp_transit)
		l->stage = l->rsp_nsg;
}

/* An empty response to a C-bit request (11.12.2). */
static void send_empty_rsp(struct iscsi_conn *c)
{
	struct iscsi_login *l = c->login;
	bool transit = l->rsp_transit;

	iscsi_kbuf_reset(&l->rsp);
	l->rsp_off = 0;
	l->rsp_transit = false;
	send_rsp_piece(c);
	l->rsp_transit = transit;
}

/* Create and register the session, the I_T nexus; attach c. 0, or -1
 * after a failure response. */
static int login_complete(struct iscsi_conn *c)
{
	struct iscsi_login *l = c->login;
	struct iscsi_session *s = iscsi_session_new(c);
	struct iscsi_target_limits lim;
	char isid[16], iname[96], cuser[96];
	int rc;

	if (!s) {
		iscsi_login_fail(c, ISCSI_LS_OUT_OF_RESOURCES, NULL);
		return -1;
	}
	memcpy(s->isid, l->isid, ISCSI_ISID_LEN);
	s->type = l->neg.active.session_type;
	s->params = l->neg.active;
	s->login_time = (int64_t)time(NULL);
	memcpy(s->initiator_name, l->neg.initiator_name, sizeof(s->initiator_name));
	memcpy(s->initiator_alias, l->neg.initiator_alias, sizeof(s->initiator_alias));
	isid_hex(l->isid, isid, sizeof(isid));
	snprintf(s->initiator_port, sizeof(s->initiator_port), "%s,i,0x%s", s->initiator_name,
		 isid);
	if (c->target) {
		iscsi_target_get(c->target);
		s->target = c->target;
		s->tpg = c->tpg;
	}
	if (iscsi_chap_identity(l, s->chap_user, sizeof(s->chap_user), s->chap_secret_sha256))
		s->chap_mutual = ((const struct iscsi_chap *)l->auth_priv)->mutual;
	s->perms = l->grant.perms; /* what its ACL allows beyond commands */
	iscsi_limits_effective(c->target, &lim);
	iscsi_cmdsn_init(&s->cmdsn, l->cmdsn, lim.queue_depth);
	rc = iscsi_session_register(s);
	if (rc) {
		/* 11.13.5 03/02: out of resources; the line says which */
		l->fail_why = rc == -EBUSY    ? "max_sessions reached (all targets)"
			      : rc == -EDQUOT ? "max_sessions of the target reached"
					      : "no free TSIH";
		iscsi_session_abandon(s);
		iscsi_login_fail(c, ISCSI_LS_OUT_OF_RESOURCES, NULL);
		return -1;
	}
	if (s->type == ISCSI_SESSION_NORMAL) {
		rc = iscsi_session_nexus(s, l->map);
		l->map = NULL;
		if (rc) {
			iscsi_session_abandon(s);
			iscsi_login_fail(c, ISCSI_LS_TARGET_ERROR, NULL);
			return -1;
		}
	}
	iscsi_session_add_conn(s, c);
	iscsi_session_event(s, ISCSI_SEV_LOGGED_IN); /* N2 */
	c->max_tasks = 2 * s->cmdsn.depth + 8;
	log_escape(iname, sizeof(iname), s->initiator_name, strlen(s->initiator_name));
	log_escape(cuser, sizeof(cuser), s->chap_user, strlen(s->chap_user));
	log_notice("iscsi: login: initiator %s isid 0x%s -> %s tpgt %u: %s session tsih %u, "
		   "from %s to %s%s%s%s%s%s",
		   iname, isid, s->target ? s->target->name : "(discovery)",
		   s->tpg ? s->tpg->tag : 0,
		   s->type == ISCSI_SESSION_NORMAL ? "normal" : "discovery", s->tsih, c->peer,
		   c->local, s->params.header_digest ? ", header digest" : "",
		   s->params.data_digest ? ", data digest" : "", s->chap_user[0] ? ", CHAP " : "",
		   s->chap_user[0] ? cuser : "", s->chap_mutual ? " (mutual)" : "");
	return 0;
}

/* Is s the session of the initiator that has just authenticated on this
 * login: same initiator port (name, normalized at the key, and ISID), same
 * target and session type, and -- when the session authenticated with CHAP
 * -- the same CHAP identity? Under iscsi_global.lock. */
static bool login_same_initiator(const struct iscsi_login *l, const struct iscsi_conn *c,
				 const struct iscsi_session *s)
{
	char user[ISCSI_CHAP_USER_MAX + 1] = "";
	uint8_t sha[32] = {0};
	bool chap = iscsi_chap_identity(l, user, sizeof(user), sha);

	return !memcmp(s->isid, l->isid, ISCSI_ISID_LEN) &&
	       !strcmp(s->initiator_name, l->neg.initiator_name) && s->target == c->target &&
	       s->type == l->neg.active.session_type && chap == (s->chap_user[0] != 0) &&
	       (!chap || (!strcmp(user, s->chap_user) &&
			  !CRYPTO_memcmp(sha, s->chap_secret_sha256, sizeof(sha))));
}

/* Did the login negotiate a leading-only key (RFC 7143 13: "LO", e.g.
 * MaxBurstLength, MaxConnections)? Those are the session's, settled by its
 * leading login; a connection joining it may not bring its own values.
 * SessionType is LO too, but login_freeze_identity() marks it seen on
 * every login. */
static bool login_lo_keys(const struct iscsi_neg *n)
{
	for (unsigned k = 0; k < ISCSI_KEY_COUNT; k++)
		if ((n->seen & (1u << k)) && (iscsi_key_table[k].use & ISCSI_KU_LO) &&
		    k != ISCSI_KEY_SESSION_TYPE)
			return true;
	return false;
}

static int login_join(struct iscsi_conn *c);

/* On the session's reactor after iscsi_conn_move(): try again (the session
 * may have ended or filled up meanwhile), then the final response. */
static void login_join_moved(struct iscsi_conn *c)
{
	struct iscsi_login *l = c->login;

	if (!l || !l->waiting)
		return;
	l->waiting = false;
	if (login_join(c))
		return; /* failed (the response is queued), or moving again */
	send_rsp_piece(c);
	if (!iscsi_conn_dead(c))
		iscsi_conn_resume(c);
}

/* A login with TSIH != 0 (RFC 7143 6.3.4) asks to add a connection to an
 * existing session or to reinstate one of its connections. It is looked at
 * only here, once the security stage is done and the identity keys are
 * frozen: nothing that exists is touched on behalf of a connection that has
 * not authenticated as the session's initiator (names, ISIDs and TSIHs are
 * easy to guess), and until then every such login looks the same from the
 * outside.
 *  - A CID the session already has reinstates that connection: at ERL 0
 *    and 1 the old connection goes with its tasks (6.3.4;
 *    DefaultTime2Retain=0), and a connection that fails takes its session
 *    with it (session.c), so 02/0a makes the initiator log in anew with
 *    TSIH 0. At ERL 2 the old connection is logged out for recovery (its
 *    tasks wait for TASK REASSIGN, erl2.c) and the new one joins.
 *  - Another CID adds a connection (MC/S) while the session has fewer than
 *    its negotiated MaxConnections (13.2), else 02/06. The connection moves
 *    to the session's reactor first (iscsi_conn_move): 1 is returned and the
 *    check is made again there.
 *  - A TSIH that names no session of this initiator gets 02/0a.
 * 0: joined (the caller sends the final response), 1: moving, -1: failed
 * (the response is queued). */
static int login_join(struct iscsi_conn *c)
{
	struct iscsi_login *l = c->login;
	enum iscsi_login_status st = ISCSI_LS_SESSION_NOT_FOUND;
	struct reactor *move_to = NULL;
	struct iscsi_session *s;
	struct iscsi_conn *oc;
	bool joined = false;
	char iname[96];

	pthread_mutex_lock(&iscsi_global.lock);
	s = iscsi_session_find_tsih_locked(l->tsih);
	if (!s || s->ending) {
		l->fail_why = "no such session";
	} else if (!login_same_initiator(l, c, s)) {
		l->fail_why = "the session is another initiator's";
	} else {
		bool same_cid = false;
		bool erl2 = s->params.error_recovery_level >= 2;

		list_for_each_entry(oc, &s->conns, sess_node) if (oc->cid == l->cid)
		{
			same_cid = true;
			/* ERL 2: the old connection is logged out for recovery
			 * (implicit logout, RFC 7143 6.3.4): its tasks wait for
			 * TASK REASSIGN on this one (erl2.c) */
			if (erl2)
				oc->recov_requested = true;
			iscsi_conn_drop_async(oc);
		}
		if (same_cid && !erl2) {
			l->fail_why = "connection reinstated at ERL 0: the session ends";
		} else if (s->state != ISCSI_SESS_Q3_LOGGED_IN &&
			   s->state != ISCSI_SESS_Q4_FAILED) {
			/* Q4 (ERL 2, every connection failed, tasks waiting
			 * for reassignment) takes a continuation */
			st = ISCSI_LS_CANT_INCLUDE;
			l->fail_why = "the session is not in full feature phase";
		} else if (s->nconns - (same_cid ? 1u : 0u) >= s->params.max_connections) {
			st = ISCSI_LS_TOO_MANY_CONNECTIONS;
			l->fail_why = "max_connections of the session reached";
		} else if (login_lo_keys(&l->neg)) {
			st = ISCSI_LS_INITIATOR_ERROR;
			l->fail_why = "a leading-only key in the login of a further connection";
		} else if (s->r && c->r && s->r != c->r) {
			move_to = s->r;
		} else {
			list_add_tail(&s->conns, &c->sess_node);
			s->nconns++;
			c->sess = s;
			joined = true;
			if (s->state == ISCSI_SESS_Q4_FAILED) {
				/* RFC 7143 8.3.2: session continuation, which
				 * succeeds here (the checks are passed) */
				iscsi_session_event(s, ISCSI_SEV_CONTINUE);
				iscsi_session_event(s, ISCSI_SEV_CONTINUED);
			}
		}
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	if (move_to) {
		l->waiting = true;
		iscsi_conn_pause(c);
		iscsi_conn_move(c, move_to, login_join_moved);
		return 1;
	}
	if (!joined) {
		iscsi_login_fail(c, st, NULL);
		return -1;
	}
	/* on s->r now, a member: s stays while c is in it */
	c->max_tasks = 2 * s->cmdsn.depth + 8;
	log_escape(iname, sizeof(iname), s->initiator_name, strlen(s->initiator_name));
	log_notice("iscsi: login: initiator %s isid 0x%02x%02x%02x%02x%02x%02x -> %s tpgt %u: "
		   "connection cid %u added to session tsih %u (%u of %u), from %s to %s",
		   iname, s->isid[0], s->isid[1], s->isid[2], s->isid[3], s->isid[4], s->isid[5],
		   s->target ? s->target->name : "-", s->tpg ? s->tpg->tag : 0, c->cid, s->tsih,
		   s->nconns, s->params.max_connections, c->peer, c->local);
	return 0;
}

/* The login asks for full feature phase: a connection for an existing
 * session (TSIH != 0), or a leading login that reinstates an old session of
 * the same I_T nexus first (RFC 7143 6.3.5). 0: done, 1: waiting, -1:
 * failed. */
static int login_finish(struct iscsi_conn *c)
{
	struct iscsi_login *l = c->login;
	const struct iscsi_params *a = &l->neg.active;

	/* a required digest the initiator never offered (the key absent:
	 * None by default) fails the login like one it refused */
	if (((l->neg.required & ISCSI_REQ_HEADER_DIGEST) &&
	     a->header_digest != ISCSI_DIGEST_CRC32C) ||
	    ((l->neg.required & ISCSI_REQ_DATA_DIGEST) && a->data_digest != ISCSI_DIGEST_CRC32C)) {
		l->fail_why = "a digest the target requires (CRC32C) was not negotiated";
		iscsi_login_fail(c, ISCSI_LS_INITIATOR_ERROR, NULL);
		return -1;
	}
	if (l->tsih) {
		int rc = login_join(c);

		return rc ? rc : 0;
	}
	if (l->neg.active.session_type == ISCSI_SESSION_NORMAL) {
		int rc = iscsi_session_reinstate(c, l->isid, l->neg.initiator_name, c->target);

		if (rc < 0) {
			iscsi_login_fail(c, ISCSI_LS_SERVICE_UNAVAILABLE, NULL);
			return -1;
		}
		if (rc > 0) {
			l->waiting = true;
			iscsi_conn_pause(c);
			return 1;
		}
	}
	return login_complete(c) ? -1 : 0;
}

void iscsi_login_resume(struct iscsi_conn *c)
{
	struct iscsi_login *l = c->login;

	if (!l || !l->waiting)
		return;
	l->waiting = false;
	if (login_complete(c))
		return;
	send_rsp_piece(c);
	if (!iscsi_conn_dead(c))
		iscsi_conn_resume(c);
}

/* The target's login timeout replaces the global one, counted from the
 * same start (the connection). */
static void login_timeout_retarget(struct iscsi_conn *c, uint32_t secs)
{
	uint32_t g = iscsi_global.settings.login_timeout_s;
	uint64_t now = reactor_now_ns(), deadline;

	if (secs == g || !reactor_timer_armed(&c->login_timer) || !c->r)
		return;
	deadline = c->login_timer.when_ns - (uint64_t)g * NS_PER_S + (uint64_t)secs * NS_PER_S;
	reactor_timer_cancel(&c->login_timer);
	reactor_timer_arm(c->r, &c->login_timer, deadline > now ? deadline - now : 1);
}

/* Names, target, portal group, ACL and what authentication the login needs:
 * resolved from the identity keys of the first request, before AuthMethod
 * is answered. 0 or -1 after a failure response. */

/* 11.13.5: a redirection configured for the portal group or the target
 * (redirect.c) answers this first response. 1 when the login was
 * redirected (the response is queued and the connection closes). */
static int login_redirect(struct iscsi_conn *c)
{
	char addr[ISCSI_REDIRECT_ADDR_MAX + 8];
	enum iscsi_login_status st;

	pthread_mutex_lock(&iscsi_global.lock);
	st = iscsi_redirect_locked(c, addr, sizeof(addr));
	pthread_mutex_unlock(&iscsi_global.lock);
	if (st == ISCSI_LS_SUCCESS)
		return 0;
	log_info("iscsi: %s: login of %s redirected to %s (%s)", c->target->name,
		 c->login->neg.initiator_name, addr,
		 st == ISCSI_LS_TARGET_MOVED_PERM ? "permanently" : "temporarily");
	iscsi_login_fail(c, st, addr);
	return 1;
}

static int login_resolve(struct iscsi_conn *c)
{
	struct iscsi_login *l = c->login;
	struct iscsi_neg *n = &l->neg;
	struct iscsi_target *t = NULL;
	struct iscsi_tpg *tpg = NULL;
	struct iscsi_target_limits lim;
	bool removed = false;
	int rc;

	l->target_resolved = true;
	if (!n->initiator_name[0]) {
		/* 13.5: InitiatorName MUST be in the first Login Request */
		iscsi_login_fail(c, ISCSI_LS_MISSING_PARAMETER, NULL);
		return -1;
	}
	if (n->active.session_type == ISCSI_SESSION_NORMAL) {
		if (!n->target_name[0]) {
			iscsi_login_fail(c, ISCSI_LS_MISSING_PARAMETER, NULL);
			return -1;
		}
		pthread_mutex_lock(&iscsi_global.lock);
		t = iscsi_target_find_locked(n->target_name);
		if (t) {
			removed = t->removed;
			tpg = iscsi_tpg_find_locked(t, c->portal);
			if (!removed && tpg) {
				iscsi_target_get(t);
				c->target = t;
				c->tpg = tpg;
			}
		}
		pthread_mutex_unlock(&iscsi_global.lock);
		if (!t || !tpg) {
			iscsi_login_fail(c, ISCSI_LS_NOT_FOUND, NULL);
			return -1;
		}
		if (removed) {
			iscsi_login_fail(c, ISCSI_LS_TARGET_REMOVED, NULL);
			return -1;
		}
		/* iSNS discovery domains (isns.c): a target outside the
		 * initiator's domains is not found, as in SendTargets */
		if (!iscsi_isns_admits(t->name, n->initiator_name)) {
			iscsi_login_fail(c, ISCSI_LS_NOT_FOUND, NULL);
			return -1;
		}
		rc = iscsi_access_check(t, n->initiator_name, &c->peer_sa, &l->grant, &l->fail_why);
		if (rc) {
			iscsi_login_fail(
			    c, rc == -EACCES ? ISCSI_LS_AUTHZ_FAILURE : ISCSI_LS_TARGET_ERROR,
			    NULL);
			return -1;
		}
		l->map = l->grant.map; /* handed to the nexus */
		l->grant.map = NULL;
		if (login_redirect(c))
			return -1;
		iscsi_limits_effective(t, &lim);
		login_timeout_retarget(c, lim.login_timeout_s);
		/* 13.2: what this target offers (the global value or its own) */
		n->mine.max_connections = lim.max_connections;
		/* 13.9: the portal group tag in the first response */
		iscsi_kbuf_add_num(&l->rsp, "TargetPortalGroupTag", tpg->tag);
		if (t->alias[0])
			iscsi_kbuf_add(&l->rsp, "TargetAlias", t->alias);
	} else {
		iscsi_access_discovery(&l->grant);
	}
	/* 12: CHAP when credentials apply to this login, else None */
	l->neg.auth_allowed = 1u << (l->grant.auth ? ISCSI_AUTH_CHAP : ISCSI_AUTH_NONE);
	/* digests the target or the admitting ACL requires */
	l->neg.required = l->grant.required;
	return 0;
}

/* A request that failed negotiation: the log line names the key. */
static void login_neg_fail(struct iscsi_conn *c, enum iscsi_neg_result nr)
{
	const struct iscsi_neg *n = &c->login->neg;
	bool keyed = nr == ISCSI_NEG_EDUP || nr == ISCSI_NEG_ERENEG || nr == ISCSI_NEG_EVALLEN;

	iscsi_conn_proto_err(c, "login negotiation: %s%s%s", iscsi_neg_strerror(nr),
			     keyed ? ": " : "", keyed ? iscsi_key_table[n->err_key].name : "");
	if (nr == ISCSI_NEG_ERENEG)
		c->login->fail_why =
		    "an identity or negotiated key declared again with another value";
	if (nr == ISCSI_NEG_EDIGEST) {
		c->login->fail_why = "a digest the target requires (CRC32C) was not offered";
		c->login->fail_answers = true; /* which key: answered Reject */
	}
	iscsi_login_fail(c, neg_status[nr], NULL);
}

/* Once the login has resolved who it is (InitiatorName, TargetName,
 * SessionType; the ISID is fixed by the first request), those keys are
 * frozen: a later request may repeat them only with the same bytes, and
 * one that was absent (SessionType: Normal; TargetName of a discovery
 * session) may not appear. The target, its ACL and the authentication that
 * applies were chosen from them. */
static int login_freeze_identity(struct iscsi_conn *c)
{
	struct iscsi_neg *n = &c->login->neg;
	const char *st = iscsi_key_table[ISCSI_KEY_SESSION_TYPE].vocab[n->active.session_type];
	enum iscsi_neg_result nr = ISCSI_NEG_OK;

	if (!(n->seen & (1u << ISCSI_KEY_SESSION_TYPE)))
		nr = iscsi_neg_freeze(n, ISCSI_KEY_SESSION_TYPE, st, strlen(st));
	if (!nr && !(n->seen & (1u << ISCSI_KEY_TARGET_NAME)))
		nr = iscsi_neg_freeze(n, ISCSI_KEY_TARGET_NAME, "", 0);
	if (nr) {
		login_neg_fail(c, nr);
		return -1;
	}
	return 0;
}

/* Keys of one complete request. */
static int login_request(struct iscsi_conn *c, const uint8_t *data, uint32_t len, bool transit,
			 unsigned nsg)
{
	struct iscsi_login *l = c->login;
	struct iscsi_kv kv[ISCSI_KEYS_MAX];
	struct iscsi_kv akv[ISCSI_KEYS_MAX];
	enum iscsi_neg_stage stage =
	    l->stage == ISCSI_STAGE_SECURITY ? ISCSI_NEG_SECURITY : ISCSI_NEG_OPERATIONAL;
	const struct iscsi_auth_module *mod;
	enum iscsi_neg_result nr;
	enum iscsi_keys_err ke;
	unsigned nkv, nauth = 0;

	iscsi_kbuf_reset(&l->rsp);
	l->rsp_off = 0;
	ke = iscsi_keys_parse(data, len, kv, ISCSI_KEYS_MAX, &nkv);
	if (ke) {
		iscsi_conn_proto_err(c, "login keys: %s", iscsi_keys_strerror(ke));
		iscsi_login_fail(c, ISCSI_LS_INITIATOR_ERROR, NULL);
		return -1;
	}
	if (!l->target_resolved) {
		/* the names and the session type first: the target, its ACLs
		 * and the authentication they require decide what AuthMethod
		 * the target accepts in this very request (declarative keys:
		 * no answers, so the answer order is unchanged) */
		unsigned k = 0, nid = 0;

		for (unsigned i = 0; i < nkv; i++) {
			enum iscsi_key_id id = iscsi_key_lookup(kv[i].key, kv[i].key_len);

			if (id == ISCSI_KEY_INITIATOR_NAME || id == ISCSI_KEY_TARGET_NAME ||
			    id == ISCSI_KEY_SESSION_TYPE || id == ISCSI_KEY_INITIATOR_ALIAS)
				akv[nid++] = kv[i];
			else
				kv[k++] = kv[i];
		}
		nkv = k;
		nr = iscsi_neg_request(&l->neg, stage, akv, nid, &l->rsp);
		if (nr) {
			login_neg_fail(c, nr);
			return -1;
		}
		if (login_resolve(c) || login_freeze_identity(c))
			return -1;
	}
	mod = l->auth ? l->auth : l->grant.auth ? auth_methods[ISCSI_AUTH_CHAP] : NULL;
	if (mod && l->stage == ISCSI_STAGE_SECURITY) {
		/* the method's keys (CHAP_A, CHAP_N, ...) go to it, the others
		 * are negotiated */
		size_t plen = strlen(mod->key_prefix);
		unsigned k = 0;

		for (unsigned i = 0; i < nkv; i++) {
			if (kv[i].key_len >= plen && !memcmp(kv[i].key, mod->key_prefix, plen))
				akv[nauth++] = kv[i];
			else
				kv[k++] = kv[i];
		}
		nkv = k;
	}
	nr = iscsi_neg_request(&l->neg, stage, kv, nkv, &l->rsp);
	if (nr) {
		login_neg_fail(c, nr);
		return -1;
	}
	if (l->rsp.overflow) {
		iscsi_login_fail(c, ISCSI_LS_INITIATOR_ERROR, NULL);
		return -1;
	}

	/* authentication (12): None is done at once; other methods run
	 * through their module until it says done */
	if (l->neg.cur & (1u << ISCSI_KEY_AUTH_METHOD)) {
		uint8_t m = l->neg.active.auth_method;

		if (m == ISCSI_AUTH_NONE) {
			l->auth_done = true;
		} else if (auth_methods[m]) {
			l->auth = auth_methods[m];
		} else {
			iscsi_login_fail(c, ISCSI_LS_AUTH_FAILURE, NULL);
			return -1;
		}
	}
	if (nauth && l->auth != mod) {
		l->fail_why = "CHAP keys before AuthMethod=CHAP";
		iscsi_login_fail(c, ISCSI_LS_AUTH_FAILURE, NULL);
		return -1;
	}
	if (l->auth && l->stage == ISCSI_STAGE_SECURITY &&
	    (nauth || !(l->neg.cur & (1u << ISCSI_KEY_AUTH_METHOD)))) {
		enum iscsi_auth_result ar = l->auth->step(l, akv, nauth, &l->rsp);

		if (ar == ISCSI_AUTH_FAIL) {
			iscsi_login_fail(c, ISCSI_LS_AUTH_FAILURE, NULL);
			return -1;
		}
		l->auth_done = ar == ISCSI_AUTH_DONE;
	}
	if (!l->auth_done && !l->auth && (transit || l->stage != ISCSI_STAGE_SECURITY)) {
		/* no AuthMethod negotiated: allowed only when the target
		 * accepts None (6.3.1: the security stage may be skipped) */
		if (!(l->neg.auth_allowed & (1u << ISCSI_AUTH_NONE))) {
			iscsi_login_fail(c, ISCSI_LS_AUTH_FAILURE, NULL);
			return -1;
		}
		l->auth_done = true;
	}

	l->rsp_transit = transit && l->auth_done;
	l->rsp_nsg = (uint8_t)nsg;
	if (l->stage == ISCSI_STAGE_OPERATIONAL ||
	    (l->rsp_transit && nsg == ISCSI_STAGE_FULL_FEATURE))
		iscsi_neg_declare(&l->neg, &l->rsp);
	if (l->rsp_transit && nsg == ISCSI_STAGE_FULL_FEATURE) {
		int rc = login_finish(c);

		if (rc)
			return rc < 0 ? -1 : 0; /* failed, or waiting */
	}
	send_rsp_piece(c);
	return 0;
}

int iscsi_login_rx(struct iscsi_conn *c, const union iscsi_hdr *h, const uint8_t *data,
		   uint32_t len)
{
	const struct iscsi_bhs_login_req *q = &h->login_req;
	bool transit = q->flags & ISCSI_LOGIN_F_TRANSIT;
	bool cont = q->flags & ISCSI_LOGIN_F_CONTINUE;
	unsigned csg = iscsi_login_csg(q->flags);
	unsigned nsg = iscsi_login_nsg(q->flags);
	struct iscsi_login *l = c->login;

	if (c->state == ISCSI_CONN_S3_XPT_UP)
		iscsi_conn_event(c, ISCSI_CEV_LOGIN_REQ); /* T4 */
	if (!l) {
		l = c->login = login_new();
		if (!l) {
			iscsi_conn_drop(c, "out of memory for a login");
			return -ENOMEM;
		}
	}
	if (l->failed || l->waiting)
		return 0;
	l->itt = get_be32(q->itt);
	if (!l->started) {
		l->started = true;
		memcpy(l->isid, q->isid, ISCSI_ISID_LEN);
		l->tsih = get_be16(q->tsih);
		l->cid = get_be16(q->cid);
		l->cmdsn = get_be32(q->cmdsn);
		c->cid = l->cid;
		/* the first StatSN is ours to choose: continue the
		 * initiator's expectation */
		c->stat_sn = get_be32(q->exp_statsn);
		/* 6.3.1: the first request may skip the security stage */
		if (csg == ISCSI_STAGE_OPERATIONAL)
			l->stage = ISCSI_STAGE_OPERATIONAL;
		if (q->version_min > ISCSI_VERSION || q->version_max < q->version_min) {
			/* 11.12.4: we speak version 0x00 only */
			iscsi_login_fail(c, ISCSI_LS_UNSUPPORTED_VERSION, NULL);
			return 0;
		}
	} else if (memcmp(l->isid, q->isid, ISCSI_ISID_LEN) || l->tsih != get_be16(q->tsih) ||
		   l->cid != get_be16(q->cid)) {
		/* 11.12.5-7: fixed for the whole login */
		iscsi_login_fail(c, ISCSI_LS_INITIATOR_ERROR, NULL);
		return 0;
	}
	if ((transit && cont) || csg != l->stage ||
	    (transit && (nsg <= csg || nsg == ISCSI_STAGE_RESERVED))) {
		/* 11.12.2, 6.3: C=1 needs T=0; stages only move forward */
		iscsi_conn_proto_err(c, "login flags 0x%02x in stage %u", q->flags, l->stage);
		iscsi_login_fail(c, ISCSI_LS_INITIATOR_ERROR, NULL);
		return 0;
	}
	if (l->rsp_off) {
		/* the initiator fetches the rest of a C-bit answer with empty
		 * requests */
		if (len) {
			iscsi_login_fail(c, ISCSI_LS_INITIATOR_ERROR, NULL);
			return 0;
		}
		send_rsp_piece(c);
		return 0;
	}
	if (cont || l->acc_len) {
		uint8_t *acc;

		if (len > ISCSI_KEYS_ACCUM_MAX - l->acc_len) {
			iscsi_conn_proto_err(c, "login request over %u bytes",
					     ISCSI_KEYS_ACCUM_MAX);
			iscsi_login_fail(c, ISCSI_LS_INITIATOR_ERROR, NULL);
			return 0;
		}
		acc = realloc(l->acc, l->acc_len + len + 1);
		if (!acc) {
			iscsi_login_fail(c, ISCSI_LS_OUT_OF_RESOURCES, NULL);
			return 0;
		}
		l->acc = acc;
		if (len)
			memcpy(l->acc + l->acc_len, data, len);
		l->acc_len += len;
		if (cont) {
			send_empty_rsp(c);
			return 0;
		}
		data = l->acc;
		len = l->acc_len;
	}
	login_request(c, data, len, transit, nsg);
	if (c->login) {
		free(c->login->acc);
		c->login->acc = NULL;
		c->login->acc_len = 0;
	}
	return 0;
}
