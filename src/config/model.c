/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model.c: the config tree's life cycle (defaults, free) and path rules. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/fault.h"
#include "config/model.h"

int cfg_err_vset(struct cfg_err *err, int rc, const char *path, const char *fmt, va_list ap)
{
	err->line = 0;
	if (path)
		snprintf(err->path, sizeof(err->path), "%s", path);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	return rc < 0 ? rc : -EINVAL;
}

int cfg_err_set(struct cfg_err *err, int rc, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rc = cfg_err_vset(err, rc, path, fmt, ap);
	va_end(ap);
	return rc;
}

void cfg_backstore_defaults(struct cfg_backstore *b)
{
	*b = (struct cfg_backstore){
	    .block_size = 512,
	    .write_cache = true,
	};
}

void cfg_iscsi_defaults(struct cfg_iscsi_settings *s)
{
	*s = (struct cfg_iscsi_settings){
	    .max_recv_data_segment_length = 262144,
	    .max_burst_length = 1048576,
	    .first_burst_length = 65536,
	    .initial_r2t = false, /* accept unsolicited data when asked */
	    .immediate_data = true,
	    .max_outstanding_r2t = 16, /* the R2Ts the fabric tracks per task */
	    .max_connections = 1,      /* MC/S offered only when configured */
	    .header_digest = true,     /* accepted when the initiator asks */
	    .data_digest = true,
	    .default_time2wait = 2,
	    .default_time2retain = 0, /* ERL 0: nothing is retained */
	    .nop_in_interval_s = 30,
	    .nop_in_timeout_s = 30,
	    .login_timeout_s = 30,
	    .max_sessions = 1024,
	    .max_logins_in_progress = 64,
	    .max_logins_per_address = 16,
	    .max_discovery_sessions = 64,
	    .max_discovery_sessions_per_address = 4,
	    .queue_depth = 128,
	    .max_buffer_memory_mib = 1024,
	    .max_session_data_mib = 64,
	    .max_connection_data_mib = 64,
	    .session_reserve_kib = 1024,
	    .max_session_send_queue_mib = 8,
	    .max_connection_send_queue_mib = 8,
	    .data_out_timeout_s = 15,
	    .error_recovery_level = 0, /* ERL 1 offered only when configured */
	    .busy_poll_us = 50,
	    .socket_uring = false,
	    .spread_connections = true,
	};
}

void cfg_lun_clear(struct cfg_lun *l)
{
	free(l->backstore);
	*l = (struct cfg_lun){0};
}

void cfg_lun_list_clear(struct cfg_lun_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		cfg_lun_clear(&l->v[i]);
	free(l->v);
	*l = (struct cfg_lun_list){0};
}

void cfg_backstore_clear(struct cfg_backstore *b)
{
	free(b->name);
	free(b->type);
	free(b->path);
	free(b->url);
	free(b->handler);
	for (size_t i = 0; i < b->noptions; i++) {
		free(b->options[i].key);
		free(b->options[i].value);
	}
	free(b->options);
	free(b->vendor);
	free(b->product);
	free(b->revision);
	free(b->serial);
	free(b->naa);
	cfg_fault_free(b->fault);
	*b = (struct cfg_backstore){0};
}

void cfg_acl_clear(struct cfg_acl *a)
{
	free(a->initiator);
	cfg_lun_list_clear(&a->luns);
	cfg_auth_clear_acl(a);
	*a = (struct cfg_acl){0};
}

void cfg_tpg_clear(struct cfg_portal_group *g)
{
	for (size_t k = 0; k < g->nportals; k++)
		free(g->portals[k]);
	free(g->portals);
	cfg_redirect_free(g->redirect);
	*g = (struct cfg_portal_group){0};
}

void cfg_redirect_free(struct cfg_redirect *r)
{
	if (r)
		free(r->address);
	free(r);
}

void cfg_target_clear(struct cfg_target *t)
{
	free(t->name);
	free(t->alias);
	for (size_t g = 0; g < t->ntpgs; g++)
		cfg_tpg_clear(&t->tpgs[g]);
	free(t->tpgs);
	cfg_lun_list_clear(&t->luns);
	for (size_t a = 0; a < t->nacls; a++)
		cfg_acl_clear(&t->acls[a]);
	free(t->acls);
	cfg_auth_clear_target(t);
	cfg_redirect_free(t->redirect);
	*t = (struct cfg_target){0};
}

void cfg_free(struct cfg *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nbs; i++)
		cfg_backstore_clear(&c->bs[i]);
	free(c->bs);
	for (size_t i = 0; i < c->ntargets; i++)
		cfg_target_clear(&c->targets[i]);
	free(c->targets);
	cfg_port_groups_free(c);
	cfg_auth_clear_root(c);
	cfg_isns_free(c->isns);
	free(c->state_dir);
	free(c->log_level);
	free(c->rpc_socket);
	free(c->metrics_listen);
	free(c->plugin_dir);
	for (size_t i = 0; i < c->ndefault_portals; i++)
		free(c->default_portals[i]);
	free(c->default_portals);
	free(c);
}

/* dir (absolute, or relative to the current directory) + "/" + name */
static int cfg_join(const char *dir, const char *name, char *buf, size_t size)
{
	char cwd[CFG_FULL_PATH_MAX];
	int n;

	if (name && name[0] == '/') {
		n = snprintf(buf, size, "%s", name);
	} else if (dir && dir[0] == '/') {
		n = name ? snprintf(buf, size, "%s/%s", dir, name) : snprintf(buf, size, "%s", dir);
	} else {
		if (!getcwd(cwd, sizeof(cwd)))
			return -errno;
		if (dir && name)
			n = snprintf(buf, size, "%s/%s/%s", cwd, dir, name);
		else if (dir || name)
			n = snprintf(buf, size, "%s/%s", cwd, dir ? dir : name);
		else
			n = snprintf(buf, size, "%s", cwd);
	}
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

int cfg_state_dir_path(const struct cfg *c, char *buf, size_t size)
{
	return cfg_join(c->state_dir, NULL, buf, size);
}

bool cfg_bs_shares_path(const struct cfg_backstore *b)
{
	return b->type && strcmp(b->type, "dedup") == 0;
}

int cfg_bs_path(const struct cfg *c, const struct cfg_backstore *b, char *buf, size_t size)
{
	/* an rbd's path names an image in a pool, not a file */
	if (b->type && strcmp(b->type, "rbd") == 0)
		return (size_t)snprintf(buf, size, "%s", b->path) < size ? 0 : -ENAMETOOLONG;
	return cfg_join(c->state_dir, b->path, buf, size);
}

int cfg_plugin_dir_path(const struct cfg *c, const char *dflt, char *buf, size_t size)
{
	return cfg_join(c->state_dir, c->plugin_dir ? c->plugin_dir : dflt, buf, size);
}
