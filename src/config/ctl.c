/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl.c: the running configuration for the control plane (ctl.h). */
#include <errno.h>
#include <jansson.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ctl.h"
#include "config/diff.h"
#include "config/live.h"
#include "config/persist.h"
#include "config/runtime.h"
#include "lib/log.h"
#include "lib/reactor.h"
#include "scsi/alua.h"

static struct {
	bool running;
	struct cfg *c;
	struct cfg_index *ix;
	struct cfg_runtime *rt;
	struct cfg_iscsi_settings defaults;
	struct cfg_ctl_opts opts;
	size_t replayed;
	char summary[1024];
	void (*flush)(void); /* commit what the control API has pending */
	struct reactor_msg alua_msg;
	atomic_bool alua_posted;
} ctl;

void cfg_ctl_set_flush(void (*fn)(void))
{
	ctl.flush = fn;
}

static void ctl_alua_changed(uint16_t id, const char *lu_name, void *arg);

static void ctl_flush(void)
{
	if (ctl.flush)
		ctl.flush();
}

bool cfg_ctl_running(void)
{
	return ctl.running;
}

const struct cfg *cfg_ctl_tree(void)
{
	return ctl.c;
}

const struct cfg_index *cfg_ctl_index(void)
{
	return ctl.ix;
}

struct cfg_runtime *cfg_ctl_runtime(void)
{
	return ctl.rt;
}

void cfg_ctl_summary(char *buf, size_t size)
{
	snprintf(buf, size, "%s", ctl.summary);
}

/* One journal record at start-up: its changes applied to the tree. */
struct scsi_lu *cfg_ctl_lu(const char *backstore)
{
	if (!backstore || !ctl.ix || !ctl.rt || cfg_ix_bs(ctl.ix, backstore) < 0)
		return NULL;
	return cfg_rt_lu(ctl.rt, backstore);
}

const char *cfg_ctl_effect(const struct cfg_chg *ch)
{
	return cfg_live_effect(ch);
}

size_t cfg_ctl_listen(const char *const **addrs)
{
	*addrs = ctl.opts.listen;
	return ctl.opts.nlisten;
}

const char *cfg_ctl_file(void)
{
	return cfg_store_file();
}

void cfg_ctl_stats(struct cfg_ctl_stats *out)
{
	*out = (struct cfg_ctl_stats){
	    .file = cfg_store_file(),
	    .file_bytes = cfg_store_file_bytes(),
	    .journal_records = cfg_store_journal_records(),
	    .journal_bytes = cfg_store_journal_bytes(),
	};
}

static int ctl_replay(struct cfg *c, json_t *changes, void *arg, struct cfg_err *err)
{
	struct cfg_index **ix = arg;
	struct cfg_txn x = {0};
	size_t i, failed;
	json_t *j;
	int rc = 0;

	if (!*ix && (rc = cfg_index_build(c, ix)))
		return rc;
	json_array_foreach(changes, i, j)
	{
		struct cfg_chg *ch;

		rc = cfg_chg_from_json(j, &ch, err);
		if (!rc)
			rc = cfg_txn_add(&x, ch);
		if (rc)
			break;
	}
	if (!rc)
		rc = cfg_txn_apply(c, *ix, &x, &failed, err);
	cfg_txn_clear(&x);
	return rc;
}

int cfg_ctl_load(const struct cfg_ctl_opts *o, struct cfg_err *err)
{
	struct cfg_index *ix = NULL;
	struct cfg *c = NULL;
	size_t replayed = 0;
	int rc;

	*err = (struct cfg_err){0};
	ctl.defaults = *o->defaults;
	cfg_chg_set_defaults(o->defaults);
	rc = cfg_store_open(o->file, o->backups, o->defaults, ctl_replay, &ix, &c, &replayed, err);
	if (rc) {
		cfg_index_free(ix);
		return rc;
	}
	if (!ix && (rc = cfg_index_build(c, &ix))) {
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		goto fail;
	}
	rc = cfg_check_files(c, err);
	if (rc) {
		cfg_err_locate(err, o->file);
		goto fail;
	}
	ctl.c = c;
	ctl.ix = ix;
	ctl.replayed = replayed;
	ctl.opts = *o;
	return 0;
fail:
	cfg_index_free(ix);
	cfg_free(c);
	cfg_store_close();
	return rc;
}

/* With --listen, say once what is listened on and what is not. */
static void ctl_log_listen(void)
{
	char listen[512] = "", conf[512] = "";
	size_t n = 0, m = 0, shown = 0, total = 0;

	if (!ctl.opts.nlisten)
		return;
	for (size_t i = 0; i < ctl.opts.nlisten && n < sizeof(listen); i++) {
		int w = snprintf(listen + n, sizeof(listen) - n, "%s%s", i ? ", " : "",
				 ctl.opts.listen[i]);

		if (w > 0)
			n += (size_t)w;
	}
	for (size_t t = 0; t < ctl.c->ntargets; t++)
		for (size_t g = 0; g < ctl.c->targets[t].ntpgs; g++) {
			const struct cfg_portal_group *pg = &ctl.c->targets[t].tpgs[g];

			for (size_t p = 0; p < pg->nportals; p++) {
				int w;

				total++;
				if (shown == 4 || strstr(conf, pg->portals[p]) || m >= sizeof(conf))
					continue;
				w = snprintf(conf + m, sizeof(conf) - m, "%s%s", shown ? ", " : "",
					     pg->portals[p]);
				if (w > 0)
					m += (size_t)w;
				shown++;
			}
		}
	log_notice("--listen %s: every portal group listens there, not on its configured "
		   "portals (%s%s); portal changes that would not be listened on are refused",
		   listen, total ? conf : "none", total > shown && shown == 4 ? ", ..." : "");
}

int cfg_ctl_apply(struct cfg_err *err)
{
	struct cfg_overrides ov = {.listen = ctl.opts.listen, .nlisten = ctl.opts.nlisten};
	int rc;

	*err = (struct cfg_err){0};
	if (!ctl.c)
		return -EINVAL;
	if (!ctl.opts.log_level_fixed && ctl.c->log_level)
		log_set_level(log_level_parse(ctl.c->log_level));
	rc = cfg_apply(ctl.c, &ov, &ctl.rt, err);
	if (rc) {
		cfg_err_locate(err, ctl.opts.file);
		cfg_index_free(ctl.ix);
		cfg_free(ctl.c);
		cfg_store_close();
		ctl.c = NULL;
		ctl.ix = NULL;
		return rc;
	}
	cfg_live_fix_log_level(ctl.rt, ctl.opts.log_level_fixed);
	cfg_runtime_summary(ctl.rt, ctl.summary, sizeof(ctl.summary));
	ctl_log_listen();
	ctl.running = true;
	scsi_alua_set_change_hook(ctl_alua_changed, NULL);
	if (ctl.replayed) {
		struct cfg_err e2;

		/* the journal's changes into FILE now */
		if (cfg_store_compact(ctl.c, &e2))
			log_warn("config: %s (the journal keeps the changes)", e2.msg);
	}
	return 0;
}

void cfg_ctl_stop(void)
{
	if (!ctl.running) {
		cfg_index_free(ctl.ix);
		cfg_free(ctl.c);
		cfg_store_close();
		ctl.ix = NULL;
		ctl.c = NULL;
		return;
	}
	scsi_alua_set_change_hook(NULL, NULL);
	cfg_runtime_destroy(ctl.rt);
	cfg_index_free(ctl.ix);
	cfg_free(ctl.c);
	cfg_store_close();
	ctl.rt = NULL;
	ctl.ix = NULL;
	ctl.c = NULL;
	ctl.running = false;
}

/* Undo the first n changes of x (runtime first, then the tree). */
static void ctl_undo(struct cfg_txn *x, size_t n, bool runtime)
{
	while (n-- > 0) {
		struct cfg_chg *ch = x->v[n];

		if (runtime) {
			cfg_live_abort(ctl.rt, ctl.c, ch);
			cfg_live_release(ch);
		}
		cfg_chg_undo(ctl.c, ctl.ix, ch);
	}
	x->applied = 0;
}

int cfg_ctl_prepare(struct cfg_txn *x, bool dry_run, size_t *failed, bool *runtime,
		    struct cfg_err *err)
{
	size_t i;
	int rc = 0;

	*err = (struct cfg_err){0};
	*failed = 0;
	*runtime = false;
	if (!ctl.running)
		return -ENODEV;
	for (i = 0; i < x->n; i++) {
		struct cfg_chg *ch = x->v[i];

		if (!ch->json && (rc = cfg_chg_to_json(ch))) {
			snprintf(err->msg, sizeof(err->msg), "out of memory");
			break;
		}
		rc = cfg_chg_apply(ctl.c, ctl.ix, ch, err);
		if (rc)
			break;
		x->applied = i + 1;
		if (dry_run)
			continue;
		rc = cfg_live_prepare(ctl.rt, ctl.c, ctl.ix, ch, err);
		if (rc) {
			*runtime = true;
			cfg_chg_undo(ctl.c, ctl.ix, ch);
			x->applied = i;
			break;
		}
	}
	if (!rc) {
		rc = cfg_validate_cross(ctl.c, err);
		if (rc)
			i = x->n;
	}
	if (rc || dry_run) {
		*failed = i;
		ctl_undo(x, x->applied, !dry_run);
	}
	return rc;
}

void cfg_ctl_rollback(struct cfg_txn *x)
{
	ctl_undo(x, x->applied, true);
}

int cfg_ctl_commit(struct cfg_txn *const *v, size_t n, struct cfg_err *err)
{
	json_t **records = calloc(n ? n : 1, sizeof(*records));
	size_t nrec = 0;
	int rc = 0;

	*err = (struct cfg_err){0};
	if (!records) {
		rc = -ENOMEM;
		snprintf(err->msg, sizeof(err->msg), "out of memory");
	}
	for (size_t t = 0; !rc && t < n; t++) {
		json_t *a;

		/* a reload's changes: the file it read is their record (the
		 * file is rewritten right after the commit) */
		if (!v[t]->n || v[t]->no_journal)
			continue;
		a = json_array();
		if (!a) {
			rc = -ENOMEM;
			break;
		}
		records[nrec++] = a;
		for (size_t i = 0; i < v[t]->n && !rc; i++)
			if (json_array_append(a, v[t]->v[i]->json))
				rc = -ENOMEM;
	}
	if (!rc && nrec)
		rc = cfg_store_append(records, nrec, err);
	else if (rc == -ENOMEM)
		snprintf(err->msg, sizeof(err->msg), "out of memory");
	for (size_t i = 0; i < nrec; i++)
		json_decref(records[i]);
	free(records);
	if (rc) {
		/* not durable: nothing happened */
		for (size_t t = n; t-- > 0;)
			cfg_ctl_rollback(v[t]);
		return rc;
	}
	for (size_t t = 0; t < n; t++)
		cfg_live_commit(ctl.rt, ctl.c, ctl.ix, v[t]);
	return 0;
}

void cfg_ctl_done(struct cfg_txn *x)
{
	for (size_t i = 0; i < x->n; i++)
		cfg_live_release(x->v[i]);
	cfg_txn_clear(x);
}

void cfg_ctl_maybe_compact(bool idle)
{
	struct cfg_err err;

	if (!ctl.running)
		return;
	if (!(idle ? cfg_store_journal_records() > 0 : cfg_store_wants_compaction()))
		return;
	if (!cfg_store_file_is_ours()) {
		static bool warned;

		if (!warned)
			log_warn("config: %s was changed outside utargetd: not rewritten (reload "
				 "applies it; config.save overwrites it); changes stay in the "
				 "journal",
				 cfg_store_file());
		warned = true;
		return;
	}
	if (cfg_store_compact(ctl.c, &err))
		log_warn("config: %s (the journal keeps the changes)", err.msg);
}

int cfg_ctl_save(struct cfg_err *err)
{
	if (!ctl.running)
		return -ENODEV;
	return cfg_store_compact(ctl.c, err);
}

/* A new tree from text, verified, files checked. */
static int ctl_load_text(const char *text, size_t len, struct cfg **out, struct cfg_err *err)
{
	struct cfg *c = NULL;
	int rc;

	*out = NULL;
	rc = cfg_parse(text, len, &ctl.defaults, &c, err);
	if (!rc) {
		rc = cfg_validate(c, err);
		if (rc)
			err->line = cfg_locate_line(text, len, err->path);
	}
	if (!rc) {
		rc = cfg_check_files(c, err);
		if (rc)
			err->line = cfg_locate_line(text, len, err->path);
	}
	if (rc) {
		cfg_free(c);
		return rc;
	}
	*out = c;
	return 0;
}

static int ctl_load_file(const char *path, struct cfg **out, struct cfg_err *err)
{
	int rc;

	rc = cfg_load(path, &ctl.defaults, out, err);
	if (!rc) {
		rc = cfg_check_files(*out, err);
		if (rc) {
			cfg_err_locate(err, path);
			cfg_free(*out);
			*out = NULL;
		}
	}
	return rc;
}

static int ctl_load_doc(json_t *doc, struct cfg **out, struct cfg_err *err)
{
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_SORT_KEYS);
	int rc;

	*err = (struct cfg_err){0};
	if (!text) {
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return -ENOMEM;
	}
	rc = ctl_load_text(text, strlen(text), out, err);
	free(text);
	return rc;
}

static int ctl_diff(struct cfg *nw, struct cfg_txn *out, struct cfg_err *err)
{
	int rc = cfg_diff(ctl.c, ctl.ix, nw, out);

	cfg_free(nw);
	if (rc)
		snprintf(err->msg, sizeof(err->msg), "cannot compute the changes: %s",
			 strerror(-rc));
	return rc;
}

int cfg_ctl_diff_file(const char *path, struct cfg_txn *out, struct cfg_err *err)
{
	struct cfg *nw;
	int rc;

	*out = (struct cfg_txn){0};
	if (!ctl.running)
		return -ENODEV;
	rc = ctl_load_file(path ? path : cfg_store_file(), &nw, err);
	if (!rc)
		rc = ctl_diff(nw, out, err);
	/* the daemon's own file, read again: it is the record of the change */
	if (!rc && !path)
		out->no_journal = true;
	return rc;
}

int cfg_ctl_diff_doc(json_t *doc, struct cfg_txn *out, struct cfg_err *err)
{
	struct cfg *nw;
	int rc;

	*out = (struct cfg_txn){0};
	if (!ctl.running)
		return -ENODEV;
	rc = ctl_load_doc(doc, &nw, err);
	return rc ? rc : ctl_diff(nw, out, err);
}

/* What a check answers: the counts of the tree c just loaded (rc: how
 * loading went), which then goes. */
static int ctl_checked(int rc, struct cfg *c, size_t *nbs, size_t *ntargets)
{
	if (rc)
		return rc;
	*nbs = c->nbs;
	*ntargets = c->ntargets;
	cfg_free(c);
	return 0;
}

int cfg_ctl_check_file(const char *path, size_t *nbs, size_t *ntargets, struct cfg_err *err)
{
	struct cfg *c = NULL;
	int rc = ctl_load_file(path, &c, err);

	return ctl_checked(rc, c, nbs, ntargets);
}

int cfg_ctl_check_doc(json_t *doc, size_t *nbs, size_t *ntargets, struct cfg_err *err)
{
	struct cfg *c = NULL;
	int rc = ctl_load_doc(doc, &c, err);

	return ctl_checked(rc, c, nbs, ntargets);
}

int cfg_ctl_reload(size_t *nchanges, struct cfg_err *err)
{
	struct cfg_txn x;
	struct cfg_txn *v[1] = {&x};
	bool runtime;
	size_t failed;
	int rc;

	*nchanges = 0;
	ctl_flush(); /* the journal keeps the order changes were made in */
	rc = cfg_ctl_diff_file(NULL, &x, err);
	if (rc)
		return rc;
	*nchanges = x.n;
	rc = cfg_ctl_prepare(&x, false, &failed, &runtime, err);
	if (!rc)
		rc = cfg_ctl_commit(v, 1, err);
	cfg_ctl_done(&x);
	if (!rc) {
		struct cfg_err e2;

		/* FILE is the new base of the journal (its records, against the
		 * old FILE, are stale from here on) */
		if (cfg_store_compact(ctl.c, &e2))
			log_warn("config: %s", e2.msg);
	}
	return rc;
}

/* ---- ALUA states changed by initiators (SET TARGET PORT GROUPS) ---- */

/* Persist the running port group states: a settings change that only
 * writes (the core already has them). */
int cfg_ctl_alua_sync(void)
{
	struct cfg_txn x = {0};
	struct cfg_txn *v[1] = {&x};
	struct cfg_chg *ch = NULL;
	struct cfg_err err;
	json_t *cur, *j, *after;
	bool runtime, same;
	size_t failed;
	int rc;

	if (!ctl.running || !ctl.c->npgs)
		return 0;
	cur = cfg_settings_to_json(ctl.c);
	if (!cur)
		return -ENOMEM;
	j = json_pack("{s:s,s:O}", "op", "settings.set", "object", cur);
	rc = j ? cfg_chg_from_json(j, &ch, &err) : -ENOMEM;
	json_decref(j);
	if (!rc)
		rc = cfg_port_groups_sync(ch->obj.settings);
	if (rc) {
		json_decref(cur);
		cfg_chg_free(ch);
		return rc;
	}
	after = cfg_settings_to_json(ch->obj.settings);
	same = after && json_equal(cur, after);
	json_decref(cur);
	json_decref(after);
	if (same) {
		cfg_chg_free(ch);
		return 0;
	}
	json_decref(ch->json);
	ch->json = NULL;
	ch->model_only = true;
	if ((rc = cfg_txn_add(&x, ch)))
		return rc;
	ctl_flush();
	rc = cfg_ctl_prepare(&x, false, &failed, &runtime, &err);
	if (!rc)
		rc = cfg_ctl_commit(v, 1, &err);
	if (rc)
		log_err("config: the ALUA states set by an initiator are not persisted: %s",
			err.msg);
	else
		log_info("config: ALUA states changed by SET TARGET PORT GROUPS persisted");
	cfg_ctl_done(&x);
	cfg_ctl_maybe_compact(false);
	return rc;
}

static void ctl_alua_msg(struct reactor_msg *m)
{
	(void)m;
	atomic_store(&ctl.alua_posted, false);
	cfg_ctl_alua_sync();
}

/* On the reactor that ran the transition: hand it to the main thread. */
static void ctl_alua_changed(uint16_t id, const char *lu_name, void *arg)
{
	(void)id;
	(void)lu_name;
	(void)arg;
	if (!atomic_exchange(&ctl.alua_posted, true)) {
		ctl.alua_msg.fn = ctl_alua_msg;
		reactor_post(reactor_pool_get(0), &ctl.alua_msg);
	}
}
