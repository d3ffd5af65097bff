/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ctl.h: the running configuration as the control plane sees it: the live
 * tree and its index (what the daemon runs), the running objects, and the
 * file with its journal. Every change goes the same way (docs/rpc.md):
 *
 *   cfg_ctl_prepare(txn)   each change: checked and applied to the tree,
 *                          then prepared on the running objects; on any
 *                          failure the whole transaction is rolled back
 *   cfg_ctl_commit(txns)   the prepared transactions' records appended to
 *                          the journal with one fdatasync, then committed
 *                          on the running objects; if the journal cannot be
 *                          written, all of them are rolled back instead
 *   cfg_ctl_done(txn)      release the transaction (after reading effects)
 *
 * Reload and config.apply compute a transaction with cfg_diff(); the daemon
 * start replays the journal into the tree before building anything. Main
 * thread (reactor 0) only. */
#ifndef UT_CONFIG_CTL_H
#define UT_CONFIG_CTL_H

#include <stdbool.h>
#include <stddef.h>

#include "config/change.h"
#include "config/config.h"
#include "config/index.h"

struct json_t;
struct cfg_runtime;

struct cfg_ctl_opts {
	const char *file;
	unsigned backups;	   /* FILE.1 .. FILE.N kept */
	const char *const *listen; /* --listen: replaces every portal */
	size_t nlisten;
	bool log_level_fixed; /* --log-level given */
	const struct cfg_iscsi_settings *defaults;
};

/* Start-up in two steps: load FILE, replay its journal, check the files
 * (cfg_ctl_tree() is then the configuration to run; the fabric is
 * initialized from its settings in between), then build and start every
 * object (cfg_apply()); when records were replayed, FILE is rewritten. On
 * failure nothing runs and err names the problem (err->line set when it is
 * in FILE). o (its strings and arrays) must outlive the control plane. */
int cfg_ctl_load(const struct cfg_ctl_opts *o, struct cfg_err *err);
int cfg_ctl_apply(struct cfg_err *err);
/* Tear everything down (NULL-safe after a failed or no start). */
void cfg_ctl_stop(void);
bool cfg_ctl_running(void);

const struct cfg *cfg_ctl_tree(void);
const struct cfg_index *cfg_ctl_index(void);
struct cfg_runtime *cfg_ctl_runtime(void);
/* "N targets, N LUNs, portals ..." after start-up */
void cfg_ctl_summary(char *buf, size_t size);

/* See above. dry_run: the tree only, undone at once (nothing runs, nothing
 * is written). *failed: index of the failing change (x->n: the checks
 * across the whole tree); *runtime: the running side refused it (the tree
 * accepted it). */
int cfg_ctl_prepare(struct cfg_txn *x, bool dry_run, size_t *failed, bool *runtime,
		    struct cfg_err *err);
int cfg_ctl_commit(struct cfg_txn *const *v, size_t n, struct cfg_err *err);
void cfg_ctl_rollback(struct cfg_txn *x);
void cfg_ctl_done(struct cfg_txn *x);

/* Compact now if the journal has grown enough (after a commit), or if it
 * holds anything at all (idle). Never overwrites a FILE changed by someone
 * else since the daemon wrote it (logged; reload or save decide). */
void cfg_ctl_maybe_compact(bool idle);
/* Rewrite FILE now from the running tree (config.save), even if it was
 * edited by hand since. */
int cfg_ctl_save(struct cfg_err *err);

/* The changes that make the running configuration equal to the file (the
 * daemon's own when path is NULL) or to a document. The new tree is
 * verified and its files checked first. */
int cfg_ctl_diff_file(const char *path, struct cfg_txn *out, struct cfg_err *err);
int cfg_ctl_diff_doc(struct json_t *doc, struct cfg_txn *out, struct cfg_err *err);
/* Validate without applying: parse, rules, files. counts: back-stores and
 * targets of the valid document. */
int cfg_ctl_check_file(const char *path, size_t *nbs, size_t *ntargets, struct cfg_err *err);
int cfg_ctl_check_doc(struct json_t *doc, size_t *nbs, size_t *ntargets, struct cfg_err *err);
/* Reload the file (SIGHUP, config.reload): diff, prepare, commit, then
 * FILE is rewritten (the journal starts over from it). *nchanges: how many
 * changes were applied. */
int cfg_ctl_reload(size_t *nchanges, struct cfg_err *err);

/* ---- what the control API reads of the running side ----
 * The control API (src/rpc) reaches the configuration through this header
 * and the ones it includes (change.h, config.h, index.h, model.h), never
 * through the config layer's own: the running objects (runtime.h), the
 * changes' application (live.h), the file and its journal (persist.h).
 * tests/check_layers.sh holds it to that. */
struct scsi_lu;
/* The running logical unit of the configured back-store named backstore
 * (for the core's public interface, scsi/scsi.h); NULL when there is no
 * such back-store or nothing runs. */
struct scsi_lu *cfg_ctl_lu(const char *backstore);
/* What committing ch did to sessions (e.g. "sessions of target X
 * dropped"), "" when nothing; valid until cfg_ctl_done(). */
const char *cfg_ctl_effect(const struct cfg_chg *ch);
/* The connections per portal of a running portal group (iscsi.h,
 * iscsi_tpg_portal_load()); 0 when it does not run. */
struct iscsi_portal_load;
size_t cfg_ctl_tpg_load(const char *target, uint16_t tag, struct iscsi_portal_load *out,
			size_t max);
/* The --listen addresses (*addrs, their count returned; 0: not given):
 * while there are any, every portal group listens on them and on none of
 * its configured portals. */
size_t cfg_ctl_listen(const char *const **addrs);
/* The daemon's config file (NULL before cfg_ctl_load()). */
const char *cfg_ctl_file(void);
/* The file and its journal, for daemon.info and config.save. */
struct cfg_ctl_stats {
	const char *file; /* as cfg_ctl_file() */
	size_t file_bytes;
	size_t journal_records; /* acknowledged changes not yet compacted into FILE */
	size_t journal_bytes;
};
void cfg_ctl_stats(struct cfg_ctl_stats *out);

/* The control API's group commit: called before a change that does not
 * come through it (reload on SIGHUP, ALUA states), so that the journal
 * keeps the order in which changes were made. */
void cfg_ctl_set_flush(void (*fn)(void));
/* Persist the ALUA states initiators changed (SET TARGET PORT GROUPS): a
 * settings change that only writes; runs on its own after the core's
 * change hook. */
int cfg_ctl_alua_sync(void);

#endif
