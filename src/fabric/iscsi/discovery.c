/* SPDX-License-Identifier: GPL-2.0-or-later */
/* discovery.c: SendTargets (RFC 7143 13.3, Appendix C).
 *
 *   session     value            reported
 *   discovery   All              every target the initiator may access
 *   discovery   <target name>    that target, if it may access it
 *   normal      All or empty     the session's target
 *   normal      <its own name>   the session's target
 *   any         anything else    SendTargets=Reject
 * Each target: TargetName=<name>, then TargetAddress=<address>,<tpgt> for
 * every portal of every portal group (a wildcard portal is reported with
 * the address the initiator reached). */
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/param.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"
#include "lib/compiler.h"
#include "scsi/scsi.h"

#define ST_MAX_TARGETS 4096u

static void add_target(struct iscsi_conn *c, struct iscsi_target *t, struct iscsi_kbuf *out)
{
	struct iscsi_tpg *tpg;

	iscsi_kbuf_add(out, "TargetName", t->name);
	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(tpg, &t->tpgs, node)
	{
		struct iscsi_bind *b;

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

static bool may_access(struct iscsi_target *t, const char *iname)
{
	struct scsi_lun_map *m;

	if (scsi_target_access(t->st, iname, &m))
		return false;
	scsi_lun_map_put(m);
	return true;
}

void iscsi_send_targets(struct iscsi_conn *c, const struct iscsi_neg *n, struct iscsi_kbuf *out)
{
	struct iscsi_session *s = c->sess;
	bool all = n->st_len == 3 && !memcmp(n->st_val, "All", 3);
	bool empty = n->st_len == 0 && !n->st_too_long;
	char name[ISCSI_NAME_MAX + 1];
	struct iscsi_target **v, *t;
	unsigned nv = 0;

	if (n->st_too_long || (!all && !empty && !iscsi_name_valid(n->st_val, n->st_len))) {
		iscsi_kbuf_add(out, "SendTargets", "Reject");
		return;
	}
	memcpy(name, n->st_val, n->st_len);
	name[n->st_len] = 0;
	if (s->type == ISCSI_SESSION_NORMAL) {
		/* a normal session sees its own target only */
		if ((all || empty || !strcmp(name, s->target->name)) && !s->target->removed)
			add_target(c, s->target, out);
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
	for (unsigned i = 0; i < nv; i++) {
		if (may_access(v[i], s->initiator_name))
			add_target(c, v[i], out);
		iscsi_target_put(v[i]);
	}
	free(v);
}
