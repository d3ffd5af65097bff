/* SPDX-License-Identifier: GPL-2.0-or-later */
/* redirect.c: login redirection (RFC 7143 11.13.5, status class 1).
 *
 * A login is redirected once login.c has resolved its target and portal
 * group and the target's access rules admitted the initiator (an initiator
 * no rule admits learns no other address: it gets 02/02 as before). What
 * decides, most specific first:
 *
 *   portal group  TEMPORARY/PERMANENT  -> 01/01 or 01/02, TargetAddress=its address
 *                 BALANCE              -> 01/01 to the group's least-loaded portal,
 *                                         unless the login came through it
 *   target        TEMPORARY/PERMANENT  -> 01/01 or 01/02 (the target moved)
 *
 * 11.13.5 lets the target redirect "prior to or after completing a security
 * negotiation"; this one does it before, in the first Login Response after
 * TargetName, so an initiator authenticates once, where it lands.
 *
 * The load of a portal is the number of connections of logged-in normal
 * sessions that came through it: logins in progress are not counted, so
 * nothing an initiator does before it has authenticated moves another
 * initiator's session (a burst of simultaneous logins may therefore land
 * on one portal). Candidates are the group's portals with an address of
 * their own (not 0.0.0.0 / [::], whose reachable address the target cannot
 * know); ties keep the portal the login came through, else the first in
 * the group's order. TargetAddress is "addr,tag" (13.8's form). */
#include <stdio.h>
#include <string.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/session.h"
#include "fabric/iscsi/target.h"

void iscsi_target_set_redirect(struct iscsi_target *t, const struct iscsi_redirect *r)
{
	pthread_mutex_lock(&iscsi_global.lock);
	t->redirect = r ? *r : (struct iscsi_redirect){0};
	pthread_mutex_unlock(&iscsi_global.lock);
}

void iscsi_tpg_set_redirect(struct iscsi_tpg *tpg, const struct iscsi_redirect *r)
{
	pthread_mutex_lock(&iscsi_global.lock);
	tpg->redirect = r ? *r : (struct iscsi_redirect){0};
	pthread_mutex_unlock(&iscsi_global.lock);
}

/* Connections of logged-in normal sessions of tpg that came through p. */
static unsigned portal_conns_locked(const struct iscsi_tpg *tpg, const struct iscsi_portal *p)
{
	const struct iscsi_session *s;
	const struct iscsi_conn *c;
	unsigned n = 0;

	list_for_each_entry(s, &iscsi_global.sessions, reg_node)
	{
		if (s->tpg != tpg || s->type != ISCSI_SESSION_NORMAL)
			continue;
		list_for_each_entry(c, &s->conns, sess_node) n += c->portal == p;
	}
	return n;
}

static bool balance_candidate(const struct iscsi_portal *p)
{
	return p->addr[0] && !p->wildcard;
}

size_t iscsi_tpg_portal_load(struct iscsi_tpg *tpg, struct iscsi_portal_load *out, size_t max)
{
	const struct iscsi_bind *b;
	size_t n = 0;

	pthread_mutex_lock(&iscsi_global.lock);
	list_for_each_entry(b, &tpg->binds, tpg_node)
	{
		if (n < max) {
			snprintf(out[n].addr, sizeof(out[n].addr), "%s", b->portal->addr);
			out[n].conns = portal_conns_locked(tpg, b->portal);
		}
		n++;
	}
	pthread_mutex_unlock(&iscsi_global.lock);
	return n;
}

/* BALANCE: the least-loaded candidate portal, or NULL to stay. */
static const struct iscsi_portal *balance_pick_locked(const struct iscsi_conn *c)
{
	const struct iscsi_portal *best = NULL, *here = c->portal;
	unsigned best_n = 0, here_n = 0;
	bool here_ok = false;
	const struct iscsi_bind *b;

	list_for_each_entry(b, &c->tpg->binds, tpg_node)
	{
		unsigned n;

		if (!balance_candidate(b->portal))
			continue;
		n = portal_conns_locked(c->tpg, b->portal);
		if (b->portal == here) {
			here_ok = true;
			here_n = n;
		}
		if (!best || n < best_n) {
			best = b->portal;
			best_n = n;
		}
	}
	if (!best || (here_ok && here_n <= best_n))
		return NULL;
	return best;
}

enum iscsi_login_status iscsi_redirect_locked(const struct iscsi_conn *c, char *addr, size_t size)
{
	const struct iscsi_redirect *r = NULL;
	const struct iscsi_portal *p;

	if (!c->tpg || !c->target)
		return ISCSI_LS_SUCCESS;
	if (c->tpg->redirect.mode != ISCSI_REDIRECT_NONE)
		r = &c->tpg->redirect;
	else if (c->target->redirect.mode != ISCSI_REDIRECT_NONE)
		r = &c->target->redirect;
	if (!r)
		return ISCSI_LS_SUCCESS;
	switch (r->mode) {
	case ISCSI_REDIRECT_TEMPORARY:
	case ISCSI_REDIRECT_PERMANENT:
		snprintf(addr, size, "%s", r->address);
		return r->mode == ISCSI_REDIRECT_PERMANENT ? ISCSI_LS_TARGET_MOVED_PERM
							   : ISCSI_LS_TARGET_MOVED_TEMP;
	case ISCSI_REDIRECT_BALANCE:
		p = balance_pick_locked(c);
		if (!p)
			return ISCSI_LS_SUCCESS;
		snprintf(addr, size, "%s,%u", p->addr, c->tpg->tag);
		return ISCSI_LS_TARGET_MOVED_TEMP;
	default:
		return ISCSI_LS_SUCCESS;
	}
}
