/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alua_sync.c: fold the running ALUA access states back into the config
 * tree, so that the file the daemon writes keeps what SET TARGET PORT
 * GROUPS and the control plane changed (docs/config.md "port_groups"). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "scsi/alua.h"

struct sync_ctx {
	uint8_t def;
	struct cfg_pg_lu *v;
	size_t n, cap;
	int rc;
};

static void sync_one(uint16_t id, const char *lu_name, enum scsi_alua_state s, void *arg)
{
	struct sync_ctx *x = arg;

	(void)id;
	if (!lu_name) {
		x->def = (uint8_t)s;
		return;
	}
	/* the default comes first: a per-LU state equal to it is not written */
	if ((uint8_t)s == x->def || x->rc)
		return;
	if (x->n == x->cap) {
		size_t cap = x->cap ? 2 * x->cap : 4;
		struct cfg_pg_lu *v = realloc(x->v, cap * sizeof(*v));

		if (!v) {
			x->rc = -ENOMEM;
			return;
		}
		x->v = v;
		x->cap = cap;
	}
	x->v[x->n].backstore = strdup(lu_name);
	if (!x->v[x->n].backstore) {
		x->rc = -ENOMEM;
		return;
	}
	x->v[x->n++].state = (uint8_t)s;
}

int cfg_port_groups_sync(struct cfg *c)
{
	for (size_t i = 0; i < c->npgs; i++) {
		struct cfg_port_group *g = &c->pgs[i];
		struct sync_ctx x = {.def = g->state};

		if (scsi_alua_for_each_state(g->id, sync_one, &x) == -ENOENT)
			continue; /* not running (yet): the tree stays as it is */
		if (x.rc) {
			for (size_t j = 0; j < x.n; j++)
				free(x.v[j].backstore);
			free(x.v);
			return x.rc;
		}
		for (size_t j = 0; j < g->nlus; j++)
			free(g->lus[j].backstore);
		free(g->lus);
		g->state = x.def;
		g->lus = x.v;
		g->nlus = x.n;
	}
	return 0;
}
