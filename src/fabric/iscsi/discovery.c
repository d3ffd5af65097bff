/* SPDX-License-Identifier: GPL-2.0-or-later */
/* discovery.c: SendTargets (RFC 7143 13.3, Appendix C).
 *
 *   session     value            reported
 *   discovery   All              every target the filter lets through
 *   discovery   <target name>    that target, if the filter lets it through
 *   normal      All or empty     the session's target
 *   normal      <its own name>   the session's target
 *   any         anything else    SendTargets=Reject
 * Each target: TargetName=<name>, then TargetAddress=<address>,<tpgt> for
 * every portal of its portal groups (a wildcard portal is reported with the
 * address the initiator reached).
 *
 * The discovery filter (ctld's discovery-filter; iscsi_discovery_set):
 *   none              every target, every portal group
 *   portal            targets with a portal group on the portal the
 *                     discovery connection came through (and only those
 *                     portal groups), whose ACLs admit the initiator's
 *                     address
 *   portal-name       also: the initiator's name may log in (its ACL, an
 *                     address ACL, demo mode)
 *   portal-name-auth  also: the CHAP identity the discovery session used
 *                     is one the target accepts (targets without CHAP
 *                     pass)
 * With iSNS access control (isns.c), a target is also left out unless the
 * initiator shares a discovery domain with it. */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/access.h"
#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/param.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "lib/iname.h"
#include "scsi/scsi.h"

#define ST_MAX_TARGETS 4096u

/* only: report the portal groups bound to this portal only (NULL: all). */
static void add_target(struct iscsi_conn *c, struct iscsi_target *t,
		       const struct iscsi_portal *only, struct iscsi_kbuf *out)
{
	struct iscsi_tpg *tpg;

	iscsi_kbuf_add(out, "TargetName", t->name);
	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(tpg, &t->tpgs, node)
	{
		struct iscsi_bind *b;

		if (only) {
			bool on = false;

			list_for_each_entry(b, &tpg->binds, tpg_node) on |= b->portal == only;
			if (!on)
				continue;
		}

		list_for_each_entry(b, &tpg->binds, tpg_node)
		{
			struct sockaddr_storage sa;
			char addr[96], val[112];

			memcpy(&sa, &b->portal->sa, sizeof(sa));
			if (b->portal->wildcard && c->local_sa.ss_family) {
				/* the address this initiator reached, portal's port */
				uint16_t port = sa.ss_family == AF_INET6
						    ? ((struct sockaddr_in6 *)&sa)->sin6_port
						    : ((struct sockaddr_in *)&sa)->sin_port;

				memcpy(&sa, &c->local_sa, sizeof(sa));
				if (sa.ss_family == AF_INET6)
					((struct sockaddr_in6 *)&sa)->sin6_port = port;
				else
					((struct sockaddr_in *)&sa)->sin_port = port;
			}
			iscsi_addr_format((struct sockaddr *)&sa, addr, sizeof(addr));
			snprintf(val, sizeof(val), "%s,%u", addr, tpg->tag);
			iscsi_kbuf_add(out, "TargetAddress", val);
		}
	}
	pthread_mutex_unlock(&iscsi_global.lock);
}

/* The discovery filter: may the discovery session s see t? */
static bool filter_pass(struct iscsi_conn *c, struct iscsi_session *s, struct iscsi_target *t,
			enum iscsi_discovery_filter f)
{
	struct iscsi_access_grant g;
	const char *why;
	bool on_portal, ok;

	if (f == ISCSI_DF_NONE)
		return true;
	pthread_mutex_lock(&iscsi_global.lock);
	on_portal = c->portal && iscsi_tpg_find_locked(t, c->portal);
	pthread_mutex_unlock(&iscsi_global.lock);
	if (!on_portal || !iscsi_access_admits_address(t, &c->peer_sa))
		return false;
	if (f == ISCSI_DF_PORTAL)
		return true;
	if (iscsi_access_check(t, s->initiator_name, &c->peer_sa, &g, &why))
		return false;
	ok = f != ISCSI_DF_PORTAL_NAME_AUTH ||
	     iscsi_auth_would_pass(g.auth, s->chap_user[0] ? s->chap_user : NULL,
				   s->chap_secret_sha256);
	iscsi_access_grant_release(&g);
	return ok;
}

void iscsi_send_targets(struct iscsi_conn *c, const struct iscsi_neg *n, struct iscsi_kbuf *out)
{
	struct iscsi_session *s = c->sess;
	bool all = n->st_len == 3 && !memcmp(n->st_val, "All", 3);
	bool empty = n->st_len == 0 && !n->st_too_long;
	char name[ISCSI_NAME_MAX + 1];
	enum iscsi_discovery_filter filter;
	struct iscsi_target **v, *t;
	unsigned nv = 0;

	name[0] = 0;
	if (n->st_too_long ||
	    (!all && !empty && iname_normalize(n->st_val, n->st_len, name, NULL) < 0)) {
		iscsi_kbuf_add(out, "SendTargets", "Reject");
		return;
	}
	if (s->type == ISCSI_SESSION_NORMAL) {
		/* a normal session sees its own target only */
		if ((all || empty || !strcmp(name, s->target->name)) && !s->target->removed)
			add_target(c, s->target, NULL, out);
		return;
	}
	if (empty)
		return;

	/* discovery: collect (with references), check access unlocked */
	v = calloc(ST_MAX_TARGETS, sizeof(*v));
	if (!v)
		return;
	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(t, &iscsi_global.targets, node)
	{
		if (nv == ST_MAX_TARGETS)
			break;
		if (t->removed || (!all && strcmp(t->name, name)))
			continue;
		iscsi_target_get(t);
		v[nv++] = t;
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	filter = iscsi_access_discovery_filter();
	for (unsigned i = 0; i < nv; i++) {
		if (filter_pass(c, s, v[i], filter) &&
		    iscsi_isns_admits(v[i]->name, s->initiator_name))
			add_target(c, v[i], filter == ISCSI_DF_NONE ? NULL : c->portal, out);
		iscsi_target_put(v[i]);
	}
	free(v);
}
