/* SPDX-License-Identifier: GPL-2.0-or-later */
/* auth_apply.c: the config's "auth", ACL "addresses" and "target_reset",
 * demo mode's "target_reset", "limits" and "discovery" handed to the iSCSI
 * fabric (iscsi.h's access interface). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/auth_apply.h"
#include "config/runtime.h"
#include "fabric/iscsi/iscsi.h"
#include "lib/log.h"
#include "scsi/scsi.h"

static_assert(CFG_DF_NONE == (int)ISCSI_DF_NONE && CFG_DF_PORTAL == (int)ISCSI_DF_PORTAL &&
		  CFG_DF_PORTAL_NAME == (int)ISCSI_DF_PORTAL_NAME &&
		  CFG_DF_PORTAL_NAME_AUTH == (int)ISCSI_DF_PORTAL_NAME_AUTH,
	      "the config's discovery filters are the fabric's");

/* The fabric's view of a cfg_auth (borrowing its strings). */
struct au_conv {
	struct iscsi_chap_cred *creds;
	struct iscsi_chap_cred mutual;
	struct iscsi_auth auth;
};

static int au_conv(const struct cfg_auth *a, struct au_conv *v)
{
	memset(v, 0, sizeof(*v));
	v->creds = calloc(a->nchap ? a->nchap : 1, sizeof(*v->creds));
	if (!v->creds)
		return -ENOMEM;
	for (size_t i = 0; i < a->nchap; i++)
		v->creds[i] = (struct iscsi_chap_cred){
		    .user = a->chap[i].user,
		    .secret = (const uint8_t *)a->chap[i].secret,
		    .secret_len = strlen(a->chap[i].secret),
		};
	v->auth = (struct iscsi_auth){
	    .chap = v->creds, .nchap = a->nchap, .algs = a->algs, .nalgs = a->nalgs};
	if (a->mutual) {
		v->mutual = (struct iscsi_chap_cred){
		    .user = a->mutual->user,
		    .secret = (const uint8_t *)a->mutual->secret,
		    .secret_len = strlen(a->mutual->secret),
		};
		v->auth.mutual = &v->mutual;
	}
	return 0;
}

static void au_conv_free(struct au_conv *v)
{
	free(v->creds);
	v->creds = NULL;
}

/* The digests a target or an ACL requires, as the fabric's bits. */
static unsigned cfg_required(bool header, bool data)
{
	return (header ? ISCSI_REQ_HEADER_DIGEST : 0u) | (data ? ISCSI_REQ_DATA_DIGEST : 0u);
}

/* One ACL of t: a rule per network (or one without). An ACL's own "auth"
 * without "mutual" or "algorithms" takes the target's. */
static int au_acl_rules(const struct cfg_runtime *rt, const struct cfg_target *t,
			const struct cfg_acl *acl, size_t ti, size_t ai,
			struct scsi_lun_map *target_map, struct iscsi_access *acc,
			struct cfg_err *err)
{
	struct scsi_lun_map *own = NULL, *map = NULL;
	struct au_conv v = {0};
	char base[CFG_ERR_PATH_MAX];
	struct cfg_auth merged;
	int rc = 0;

	if (!acl->initiator) {
		/* by address: the fabric holds its map */
		map = target_map;
		if (acl->has_luns) {
			snprintf(base, sizeof(base), "targets[%zu].acls[%zu].luns", ti, ai);
			rc = cfg_rt_build_map(rt, &acl->luns, false, base, &own, err);
			if (rc)
				return rc;
			map = own;
		}
	}
	if (acl->auth) {
		merged = *acl->auth;
		if (!merged.mutual && t->auth)
			merged.mutual = t->auth->mutual;
		if (!merged.nalgs && t->auth) {
			memcpy(merged.algs, t->auth->algs, sizeof(merged.algs));
			merged.nalgs = t->auth->nalgs;
		}
		rc = au_conv(&merged, &v);
		if (rc)
			goto out;
	}
	cfg_rt_path(err, "targets[%zu].acls[%zu]", ti, ai);
	for (size_t i = 0; i < (acl->naddresses ? acl->naddresses : 1) && !rc; i++)
		rc = iscsi_access_add_rule(
		    acc, &(struct iscsi_rule){
			     .initiator = acl->initiator,
			     .network = acl->naddresses ? acl->addresses[i] : NULL,
			     .map = map,
			     .auth = acl->auth ? &v.auth : NULL,
			     .perms = acl->target_reset ? ISCSI_PERM_TARGET_RESET : 0,
			     .required =
				 cfg_required(acl->require_header_digest, acl->require_data_digest),
			 });
	if (rc)
		rc = cfg_rt_err(err, rc, "cannot add the access rule: %s", strerror(-rc));
out:
	au_conv_free(&v);
	if (own)
		scsi_lun_map_put(own); /* the rules hold theirs */
	return rc;
}

int cfg_auth_apply_target(const struct cfg_runtime *rt, const struct cfg_target *t, size_t ti,
			  struct scsi_lun_map *target_map, struct iscsi_target *it,
			  struct cfg_err *err)
{
	struct iscsi_access *acc = iscsi_access_new();
	struct iscsi_target_limits lim = {0};
	size_t nrules = 0;
	int rc = 0;

	cfg_rt_path(err, "targets[%zu]", ti);
	if (!acc)
		return cfg_rt_err(err, -ENOMEM, "out of memory");
	if (t->auth) {
		struct au_conv v;

		cfg_rt_path(err, "targets[%zu].auth", ti);
		rc = au_conv(t->auth, &v);
		if (!rc)
			rc = iscsi_access_set_auth(acc, &v.auth);
		au_conv_free(&v);
		if (rc) {
			iscsi_access_free(acc);
			return cfg_rt_err(err, rc, "cannot set the CHAP credentials: %s",
					  strerror(-rc));
		}
	}
	for (size_t a = 0; a < t->nacls && !rc; a++) {
		rc = au_acl_rules(rt, t, &t->acls[a], ti, a, target_map, acc, err);
		nrules += t->acls[a].naddresses ? t->acls[a].naddresses : 1;
	}
	/* what demo mode's initiators may do beyond commands */
	iscsi_access_set_demo_perms(acc, t->demo_target_reset ? ISCSI_PERM_TARGET_RESET : 0);
	iscsi_access_set_required(acc,
				  cfg_required(t->require_header_digest, t->require_data_digest));
	if (rc) {
		iscsi_access_free(acc);
		return rc;
	}
	iscsi_target_set_access(it, acc);

	if (t->limits) {
		const struct cfg_limits *l = t->limits;

		/* bits: the field order of auth.c's limits table */
		lim.max_sessions = (l->set & 1u << 0) ? l->max_sessions : 0;
		lim.max_connections = (l->set & 1u << 1) ? (uint16_t)l->max_connections : 0;
		lim.queue_depth = (l->set & 1u << 2) ? l->queue_depth : 0;
		lim.login_timeout_s = (l->set & 1u << 3) ? l->login_timeout : 0;
		lim.nop_in_interval_set = l->set & 1u << 4;
		lim.nop_in_interval_s = l->nop_in_interval;
		lim.nop_in_timeout_s = (l->set & 1u << 5) ? l->nop_in_timeout : 0;
	}
	iscsi_target_set_limits(it, &lim);
	if (t->auth || nrules)
		log_info("target %s: %zu access rule(s)%s%s", t->name, nrules,
			 t->auth ? ", CHAP required" : "",
			 t->auth && t->auth->mutual ? " (mutual offered)" : "");
	return 0;
}

int cfg_auth_apply_discovery(const struct cfg *c, struct cfg_err *err)
{
	const struct cfg_discovery *d = c->discovery;
	enum iscsi_discovery_filter f = ISCSI_DF_PORTAL_NAME;
	struct au_conv v = {0};
	int rc = 0;

	cfg_rt_path(err, "discovery");
	if (d && d->has_filter)
		f = (enum iscsi_discovery_filter)d->filter; /* same order as CFG_DF_* */
	if (d && d->auth)
		rc = au_conv(d->auth, &v);
	if (!rc)
		rc = iscsi_discovery_set(d && d->auth ? &v.auth : NULL, f);
	au_conv_free(&v);
	if (rc)
		return cfg_rt_err(err, rc, "cannot set discovery authentication: %s",
				  strerror(-rc));
	return 0;
}
