/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for src/config/ctl.c: the control plane's transactions and
 * group commit. The tree, its index, the change machinery and the file
 * with its journal are the real ones (a temporary directory); the running
 * side is faked: cfg_apply() builds nothing, and the live.h calls
 * (prepare, abort, commit, release) are recorded in order in a log, the
 * n-th prepare failing on request. ALUA states come from a fake
 * cfg_port_groups_sync().
 *
 *   FILE: back-store a (ram); targets T (portal group 1, LUN 0=a) and U
 *   (portal group 1); port group 1 = U's portal group 1
 *
 * What is checked: start-up (load, apply, a failed apply, the journal
 * replayed and compacted), a transaction prepared change by change and
 * rolled back newest first when the tree, the running side or the checks
 * across the tree refuse it (which change failed, whether the running
 * side did), a dry run, the group commit (several transactions, one
 * journal write, committed in order; all rolled back, newest first, when
 * the journal cannot be written), reload, the checks and diffs of other
 * documents, save and compaction, and the persisted ALUA states. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/ctl.c"
#include "lib/atomic_file.h"
#include "ut_text.h"

#define T "iqn.2026-12.org.utarget:t"
#define U "iqn.2026-12.org.utarget:u"

/* ---- fakes: the running side ---- */
static struct {
	char log[4096]; /* "prepare backstore.add d\n..." */
	int prepares;
	int fail_prepare; /* the n-th prepare fails (1-based; 0: none) */
	int released;
	int live_states; /* ch->rt allocated, not freed */
	int apply_rc;
	bool fixed;
	size_t nlisten;
	/* cfg_port_groups_sync(): the state it reads from the core */
	int pg_state; /* -1: as in the tree */
	int hooks;
} fake;

#define fake_log(...) ut_appendf(fake.log, sizeof(fake.log), __VA_ARGS__)

static const char *who(const struct cfg_chg *ch)
{
	return ch->name ? ch->name : ch->initiator ? ch->initiator : ch->target ? ch->target : "";
}

int cfg_apply(struct cfg *c, const struct cfg_overrides *ov, struct cfg_runtime **out,
	      struct cfg_err *err)
{
	*err = (struct cfg_err){0};
	*out = NULL;
	fake.nlisten = ov ? ov->nlisten : 0;
	if (fake.apply_rc) {
		snprintf(err->path, sizeof(err->path), "targets[0].portal_groups[0].portals[0]");
		snprintf(err->msg, sizeof(err->msg), "cannot listen");
		return fake.apply_rc;
	}
	*out = calloc(1, sizeof(**out));
	return *out ? 0 : -ENOMEM;
}

void cfg_runtime_destroy(struct cfg_runtime *rt)
{
	free(rt);
}

void cfg_runtime_summary(const struct cfg_runtime *rt, char *buf, size_t size)
{
	snprintf(buf, size, "fake runtime");
}

void cfg_live_fix_log_level(struct cfg_runtime *rt, bool fixed)
{
	fake.fixed = fixed;
}

int cfg_live_prepare(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
		     struct cfg_chg *ch, struct cfg_err *err)
{
	*err = (struct cfg_err){0};
	fake_log("prepare %s %s%s\n", cfg_chg_kind_name(ch->kind), who(ch),
		 ch->model_only ? " (model only)" : "");
	if (++fake.prepares == fake.fail_prepare) {
		snprintf(err->path, sizeof(err->path), "backstores[0]");
		snprintf(err->msg, sizeof(err->msg), "refused by the fake");
		return -EIO; /* live.c aborts itself on failure: nothing kept */
	}
	ch->rt = malloc(1);
	fake.live_states++;
	return 0;
}

static void fake_free_state(struct cfg_chg *ch)
{
	if (ch->rt) {
		free(ch->rt);
		ch->rt = NULL;
		fake.live_states--;
	}
}

void cfg_live_abort(struct cfg_runtime *rt, const struct cfg *c, struct cfg_chg *ch)
{
	fake_log("abort %s %s\n", cfg_chg_kind_name(ch->kind), who(ch));
	fake_free_state(ch);
}

void cfg_live_commit(struct cfg_runtime *rt, const struct cfg *c, const struct cfg_index *ix,
		     struct cfg_txn *x)
{
	fake_log("commit");
	for (size_t i = 0; i < x->n; i++)
		fake_log(" %s %s", cfg_chg_kind_name(x->v[i]->kind), who(x->v[i]));
	fake_log("\n");
}

void cfg_live_release(struct cfg_chg *ch)
{
	fake.released++;
	fake_free_state(ch);
}

/* what ctl.c hands the control API (cfg_ctl_effect(), cfg_ctl_lu()):
 * passed through, nothing of it runs here */
const char *cfg_live_effect(const struct cfg_chg *ch)
{
	(void)ch;
	return NULL;
}

struct scsi_lu *cfg_rt_lu(const struct cfg_runtime *rt, const char *name)
{
	(void)rt;
	(void)name;
	return NULL;
}

/* the core's ALUA states into the tree: the port group's state */
int cfg_port_groups_sync(struct cfg *c)
{
	if (fake.pg_state >= 0)
		for (size_t i = 0; i < c->npgs; i++)
			c->pgs[i].state = (uint8_t)fake.pg_state;
	return 0;
}

void scsi_alua_set_change_hook(void (*fn)(uint16_t, const char *, void *), void *arg)
{
	fake.hooks += fn ? 1 : -1;
}

/* ---- fixture ---- */
static char dir[64], file[128], journal[160];
static const struct cfg_iscsi_settings defaults = {.max_burst_length = 1048576,
						   .first_burst_length = 65536};
static const char *const listen_addrs[] = {"127.0.0.1:3799"};
static struct cfg_ctl_opts opts;

static const char base_cfg[] =
    "{'version': 1, 'state_dir': '%s', 'backstores': [{'name': 'a', 'type': 'ram', 'size': '1M'}],"
    " 'targets': ["
    " {'name': '" T "', 'portal_groups': [{'tag': 1, 'portals': ['127.0.0.1:3260']}],"
    "  'luns': [{'lun': 0, 'backstore': 'a'}]},"
    " {'name': '" U "', 'portal_groups': [{'tag': 1, 'portals': ['127.0.0.1:3261']}]}],"
    " 'port_groups': [{'id': 1, 'members': [{'target': '" U "', 'tag': 1}]}]}\n";

/* FILE with this content (' for "; %s: the state directory) */
static void write_file(const char *fmt)
{
	char *f = ut_dq(fmt), *at = strstr(f, "%s"), text[4096];

	if (at)
		*at = '\0';
	snprintf(text, sizeof(text), "%s%s%s", f, at ? dir : "", at ? at + 2 : "");
	free(f);
	assert_int_equal(afile_write(file, text, strlen(text), 0600), 0);
}

static char *read_text(const char *path)
{
	char *text = NULL;
	size_t len;

	if (cfg_read_file(path, CFG_FILE_MAX, &text, &len))
		return NULL;
	return text;
}

static int start(void)
{
	struct cfg_err err;
	int rc = cfg_ctl_load(&opts, &err);

	if (!rc)
		rc = cfg_ctl_apply(&err);
	return rc;
}

static int setup(void **state)
{
	(void)state;
	memset(&fake, 0, sizeof(fake));
	fake.pg_state = -1;
	snprintf(dir, sizeof(dir), "/tmp/ut-ctl-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(file, sizeof(file), "%s/u.json", dir);
	snprintf(journal, sizeof(journal), "%s.journal", file);
	write_file(base_cfg);
	opts = (struct cfg_ctl_opts){.file = file, .backups = 2, .defaults = &defaults};
	assert_int_equal(start(), 0);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	cfg_ctl_stop();
	assert_int_equal(fake.live_states, 0);
	assert_int_equal(fake.hooks, 0);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct cfg_chg *chg(const char *json)
{
	char *text = ut_dq(json);
	json_t *j = json_loads(text, 0, NULL);
	struct cfg_chg *ch = NULL;
	struct cfg_err err;

	assert_non_null(j);
	if (cfg_chg_from_json(j, &ch, &err))
		fail_msg("%s: %s: %s", text, err.path, err.msg);
	json_decref(j);
	free(text);
	return ch;
}

/* A transaction of the changes (NULL-terminated journal forms). */
static void txn(struct cfg_txn *x, ...)
{
	const char *json;
	va_list ap;

	*x = (struct cfg_txn){0};
	va_start(ap, x);
	while ((json = va_arg(ap, const char *)))
		assert_int_equal(cfg_txn_add(x, chg(json)), 0);
	va_end(ap);
}

#define BS_ADD(n)                                                                                  \
	"{'op': 'backstore.add', 'object': {'name': '" n "', 'type': 'ram', 'size': '1M'}}"
#define LUN_ADD(l)                                                                                 \
	"{'op': 'lun.add', 'target': '" T "', 'object': {'lun': 1, 'backstore': '" l "'}}"

/* x prepared for real; it must be accepted. */
static void prepare_ok(struct cfg_txn *x)
{
	struct cfg_err err;
	size_t failed = 99;
	bool runtime = true;

	if (cfg_ctl_prepare(x, false, &failed, &runtime, &err))
		fail_msg("%s: %s", err.path, err.msg);
	assert_int_equal(failed, 0);
	assert_false(runtime);
	assert_int_equal(x->applied, x->n);
}

/* One transaction of one change, prepared and committed (journaled). */
static void commit_one(const char *json)
{
	struct cfg_txn x, *v[] = {&x};
	struct cfg_err err;

	txn(&x, json, NULL);
	prepare_ok(&x);
	assert_int_equal(cfg_ctl_commit(v, 1, &err), 0);
	cfg_ctl_done(&x);
}

/* ---- start-up ---- */
static void test_start(void **state)
{
	(void)state;
	assert_true(cfg_ctl_running());
	assert_int_equal(cfg_ctl_tree()->ntargets, 2);
	assert_int_equal(cfg_ix_target(cfg_ctl_index(), U), 1);
	assert_non_null(cfg_ctl_runtime());
	assert_int_equal(fake.hooks, 1);
	assert_false(fake.fixed);
	assert_int_equal(fake.nlisten, 0);
	/* the relative port identifiers are frozen into the running tree */
	assert_int_equal(cfg_ctl_tree()->targets[1].tpgs[0].rel_port_id, 2);
	char summary[sizeof(ctl.summary)];
	cfg_ctl_summary(summary, sizeof(summary));
	assert_string_equal(summary, "fake runtime");

	/* again with --listen and --log-level */
	cfg_ctl_stop();
	assert_false(cfg_ctl_running());
	assert_null(cfg_ctl_tree());
	opts.listen = listen_addrs;
	opts.nlisten = 1;
	opts.log_level_fixed = true;
	assert_int_equal(start(), 0);
	assert_int_equal(fake.nlisten, 1);
	assert_true(fake.fixed);
}

/* Nothing runs when building fails; err is located in FILE. */
static void test_start_fails(void **state)
{
	struct cfg_txn x;
	struct cfg_err err;
	size_t failed;
	bool runtime;

	(void)state;
	cfg_ctl_stop();
	fake.apply_rc = -EADDRINUSE;
	assert_int_equal(cfg_ctl_load(&opts, &err), 0);
	assert_int_equal(cfg_ctl_apply(&err), -EADDRINUSE);
	assert_int_equal(err.line, 1);
	assert_false(cfg_ctl_running());
	assert_null(cfg_ctl_tree());
	txn(&x, BS_ADD("d"), NULL);
	assert_int_equal(cfg_ctl_prepare(&x, false, &failed, &runtime, &err), -ENODEV);
	cfg_ctl_done(&x);
	assert_int_equal(cfg_ctl_save(&err), -ENODEV);
	cfg_ctl_stop(); /* safe */
	fake.apply_rc = 0;
	assert_int_equal(start(), 0);
}

/* ---- transactions ---- */
static void test_prepare_commit(void **state)
{
	struct cfg_txn x, *v[] = {&x};
	struct cfg_err err;

	(void)state;
	txn(&x, BS_ADD("d"), LUN_ADD("d"), NULL);
	prepare_ok(&x);
	assert_int_equal(cfg_ix_bs(cfg_ctl_index(), "d"), 1);
	assert_string_equal(fake.log, "prepare backstore.add d\nprepare lun.add " T "\n");
	assert_int_equal(cfg_store_journal_records(), 0);
	fake.log[0] = '\0';
	assert_int_equal(cfg_ctl_commit(v, 1, &err), 0);
	assert_string_equal(fake.log, "commit backstore.add d lun.add " T "\n");
	assert_int_equal(cfg_store_journal_records(), 1);
	cfg_ctl_done(&x);
	assert_int_equal(fake.released, 2);
	assert_int_equal(fake.live_states, 0);
	assert_int_equal(cfg_ix_lun(cfg_ctl_index(), T, NULL, 1), 1);

	/* durable: the next start replays it, then compacts FILE */
	cfg_ctl_stop();
	assert_int_equal(start(), 0);
	assert_int_equal(cfg_ix_lun(cfg_ctl_index(), T, NULL, 1), 1);
	assert_int_equal(cfg_store_journal_records(), 0);
	char *text = read_text(file);
	assert_non_null(strstr(text, "\"d\""));
	free(text);
}

/* The tree refuses the second change: the first is aborted and undone. */
static void test_prepare_tree_refuses(void **state)
{
	struct cfg_txn x;
	struct cfg_err err;
	char *before = cfg_dump(cfg_ctl_tree()), *after;
	size_t failed;
	bool runtime = true;

	(void)state;
	txn(&x, BS_ADD("d"), LUN_ADD("nosuch"), BS_ADD("e"), NULL);
	assert_int_equal(cfg_ctl_prepare(&x, false, &failed, &runtime, &err), -EINVAL);
	assert_int_equal(failed, 1);
	assert_false(runtime);
	assert_string_equal(err.path, "targets[0].luns[1].backstore");
	assert_string_equal(fake.log, "prepare backstore.add d\nabort backstore.add d\n");
	assert_int_equal(x.applied, 0);
	after = cfg_dump(cfg_ctl_tree());
	assert_string_equal(after, before);
	assert_int_equal(cfg_ix_bs(cfg_ctl_index(), "d"), -1);
	assert_int_equal(fake.live_states, 0);
	cfg_ctl_done(&x);
	free(before);
	free(after);
}

/* The running side refuses: the tree had accepted it (*runtime). */
static void test_prepare_runtime_refuses(void **state)
{
	struct cfg_txn x;
	struct cfg_err err;
	char *before = cfg_dump(cfg_ctl_tree()), *after;
	size_t failed;
	bool runtime = false;

	(void)state;
	fake.fail_prepare = 3;
	txn(&x, BS_ADD("d"), BS_ADD("e"), LUN_ADD("d"), BS_ADD("f"), NULL);
	assert_int_equal(cfg_ctl_prepare(&x, false, &failed, &runtime, &err), -EIO);
	assert_int_equal(failed, 2);
	assert_true(runtime);
	assert_string_equal(err.msg, "refused by the fake");
	/* newest first; the failing one aborted itself */
	assert_string_equal(fake.log, "prepare backstore.add d\nprepare backstore.add e\n"
				      "prepare lun.add " T "\n"
				      "abort backstore.add e\nabort backstore.add d\n");
	after = cfg_dump(cfg_ctl_tree());
	assert_string_equal(after, before);
	assert_int_equal(fake.live_states, 0);
	cfg_ctl_done(&x);
	free(before);
	free(after);
}

/* The checks across the tree (port groups) refuse: *failed is x->n. */
static void test_prepare_cross_refuses(void **state)
{
	struct cfg_txn x;
	struct cfg_err err;
	size_t failed;
	bool runtime = true;

	(void)state;
	txn(&x, BS_ADD("d"), "{'op': 'target.delete', 'target': '" U "'}", NULL);
	assert_int_equal(cfg_ctl_prepare(&x, false, &failed, &runtime, &err), -EINVAL);
	assert_int_equal(failed, 2);
	assert_false(runtime);
	assert_non_null(strstr(err.path, "port_groups[0]"));
	assert_string_equal(fake.log, "prepare backstore.add d\nprepare target.delete " U "\n"
				      "abort target.delete " U "\nabort backstore.add d\n");
	assert_int_equal(cfg_ix_target(cfg_ctl_index(), U), 1);
	cfg_ctl_done(&x);
}

/* A dry run: the tree only, undone at once; nothing runs. */
static void test_dry_run(void **state)
{
	struct cfg_txn x;
	struct cfg_err err;
	char *before = cfg_dump(cfg_ctl_tree()), *after;
	size_t failed;
	bool runtime;

	(void)state;
	txn(&x, BS_ADD("d"), LUN_ADD("d"), NULL);
	assert_int_equal(cfg_ctl_prepare(&x, true, &failed, &runtime, &err), 0);
	assert_string_equal(fake.log, "");
	after = cfg_dump(cfg_ctl_tree());
	assert_string_equal(after, before);
	free(after);
	cfg_ctl_done(&x);
	/* and the refusal is the same as for real */
	txn(&x, BS_ADD("d"), LUN_ADD("nosuch"), NULL);
	assert_int_equal(cfg_ctl_prepare(&x, true, &failed, &runtime, &err), -EINVAL);
	assert_int_equal(failed, 1);
	assert_string_equal(fake.log, "");
	cfg_ctl_done(&x);
	free(before);
}

/* ---- group commit ---- */

/* Three transactions, one journal write (one record each, the reload's
 * none), committed in the order prepared. */
static void test_group_commit(void **state)
{
	struct cfg_txn a, b, r, *v[] = {&a, &b, &r};
	struct cfg_err err;

	(void)state;
	txn(&a, BS_ADD("d"), NULL);
	txn(&b, BS_ADD("e"), LUN_ADD("e"), NULL);
	txn(&r, BS_ADD("f"), NULL);
	r.no_journal = true;
	prepare_ok(&a);
	/* b sees a's change */
	prepare_ok(&b);
	prepare_ok(&r);
	fake.log[0] = '\0';
	assert_int_equal(cfg_ctl_commit(v, 3, &err), 0);
	assert_string_equal(fake.log, "commit backstore.add d\n"
				      "commit backstore.add e lun.add " T "\n"
				      "commit backstore.add f\n");
	assert_int_equal(cfg_store_journal_records(), 2);
	cfg_ctl_done(&a);
	cfg_ctl_done(&b);
	cfg_ctl_done(&r);
	char *text = read_text(journal);
	assert_non_null(strstr(text, "\"name\":\"d\""));
	assert_non_null(strstr(text, "\"name\":\"e\""));
	assert_null(strstr(text, "\"name\":\"f\""));
	free(text);
}

/* The journal cannot be written (FILE edited behind the daemon's back):
 * every transaction is rolled back, the newest first; nothing commits. */
static void test_group_commit_fails(void **state)
{
	struct cfg_txn a, b, *v[] = {&a, &b};
	struct cfg_err err;
	char *before = cfg_dump(cfg_ctl_tree()), *after;

	(void)state;
	txn(&a, BS_ADD("d"), NULL);
	txn(&b, BS_ADD("e"), LUN_ADD("e"), NULL);
	prepare_ok(&a);
	prepare_ok(&b);
	write_file(base_cfg); /* the same text, another file */
	fake.log[0] = '\0';
	assert_int_equal(cfg_ctl_commit(v, 2, &err), -ESTALE);
	assert_non_null(strstr(err.msg, "was changed outside utargetd"));
	assert_string_equal(fake.log, "abort lun.add " T "\nabort backstore.add e\n"
				      "abort backstore.add d\n");
	assert_int_equal(cfg_store_journal_records(), 0);
	after = cfg_dump(cfg_ctl_tree());
	assert_string_equal(after, before);
	cfg_ctl_done(&a);
	cfg_ctl_done(&b);
	assert_int_equal(fake.live_states, 0);
	/* config.save overwrites it: appends work again */
	assert_int_equal(cfg_ctl_save(&err), 0);
	commit_one(BS_ADD("d"));
	free(before);
	free(after);
}

/* ---- reload, other documents ---- */
static void test_reload(void **state)
{
	struct cfg_err err;
	size_t n = 9;

	(void)state;
	/* nothing changed: nothing to do */
	assert_int_equal(cfg_ctl_reload(&n, &err), 0);
	assert_int_equal(n, 0);
	assert_string_equal(fake.log, "commit\n");
	fake.log[0] = '\0';
	write_file("{'version': 1, 'state_dir': '%s', 'backstores': [{'name': 'a', 'type': "
		   "'ram', 'size': '1M'}, {'name': 'z', 'type': 'null', 'size': '1M'}],"
		   " 'targets': [{'name': '" T "', 'portal_groups': [{'tag': 1, 'portals': "
		   "['127.0.0.1:3260']}], 'luns': [{'lun': 0, 'backstore': 'a'}]},"
		   " {'name': '" U "', 'portal_groups': [{'tag': 1, 'portals': "
		   "['127.0.0.1:3261']}]}],"
		   " 'port_groups': [{'id': 1, 'members': [{'target': '" U "', 'tag': 1}]}]}\n");
	assert_int_equal(cfg_ctl_reload(&n, &err), 0);
	assert_int_equal(n, 1);
	assert_string_equal(fake.log, "prepare backstore.add z\ncommit backstore.add z\n");
	assert_int_equal(cfg_ix_bs(cfg_ctl_index(), "z"), 1);
	/* the file is the record: no journal, FILE rewritten as the new base */
	assert_int_equal(cfg_store_journal_records(), 0);
	assert_true(cfg_store_file_is_ours());
	/* a broken file: refused, located */
	write_file("{'version': 1,\n 'backstores': 7}\n");
	assert_int_equal(cfg_ctl_reload(&n, &err), -EINVAL);
	assert_int_equal(err.line, 2);
	assert_string_equal(err.path, "backstores");
	assert_int_equal(cfg_ix_bs(cfg_ctl_index(), "z"), 1);
}

static void test_other_documents(void **state)
{
	json_t *doc = json_loads("{\"version\": 1, \"backstores\": [{\"name\": \"q\", \"type\": "
				 "\"null\", \"size\": \"1M\"}]}",
				 0, NULL);
	struct cfg_txn x;
	struct cfg_err err;
	size_t nbs = 0, nt = 9;

	(void)state;
	json_object_set_new(doc, "state_dir", json_string(dir));
	assert_int_equal(cfg_ctl_check_doc(doc, &nbs, &nt, &err), 0);
	assert_int_equal(nbs, 1);
	assert_int_equal(nt, 0);
	assert_int_equal(cfg_ctl_check_file(file, &nbs, &nt, &err), 0);
	assert_int_equal(nbs, 1);
	assert_int_equal(nt, 2);
	/* the changes from the running configuration to the document */
	assert_int_equal(cfg_ctl_diff_doc(doc, &x, &err), 0);
	assert_false(x.no_journal);
	assert_true(x.n >= 3); /* a and two targets go, q comes */
	cfg_ctl_done(&x);
	/* the daemon's own file: no journal record (the file is one) */
	assert_int_equal(cfg_ctl_diff_file(NULL, &x, &err), 0);
	assert_int_equal(x.n, 0);
	assert_true(x.no_journal);
	cfg_ctl_done(&x);
	/* an invalid document: its line in the text checked */
	json_object_set_new(doc, "backstores", json_string("no"));
	assert_int_equal(cfg_ctl_check_doc(doc, &nbs, &nt, &err), -EINVAL);
	assert_string_equal(err.path, "backstores");
	assert_true(err.line > 0);
	assert_int_equal(cfg_ctl_check_file("/nonexistent/u.json", &nbs, &nt, &err), -ENOENT);
	json_decref(doc);
	assert_string_equal(fake.log, "");
}

/* ---- save, compaction ---- */
static void test_save_compact(void **state)
{
	struct cfg_err err;

	(void)state;
	commit_one(BS_ADD("d"));
	/* after a commit: only once the journal is large enough */
	cfg_ctl_maybe_compact(false);
	assert_int_equal(cfg_store_journal_records(), 1);
	/* idle: whatever it holds */
	cfg_ctl_maybe_compact(true);
	assert_int_equal(cfg_store_journal_records(), 0);
	char *text = read_text(file);
	assert_non_null(strstr(text, "\"d\""));
	free(text);
	/* the previous version is kept */
	char prev[160];
	struct stat st;
	snprintf(prev, sizeof(prev), "%s.1", file);
	assert_int_equal(stat(prev, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	/* FILE edited by someone else: never overwritten by a compaction */
	commit_one(BS_ADD("e"));
	write_file("{'version': 1, 'state_dir': '%s'}\n");
	assert_false(cfg_store_file_is_ours());
	cfg_ctl_maybe_compact(true);
	assert_int_equal(cfg_store_journal_records(), 1);
	text = read_text(file);
	assert_null(strstr(text, "\"e\""));
	free(text);
	/* config.save does */
	assert_int_equal(cfg_ctl_save(&err), 0);
	assert_int_equal(cfg_store_journal_records(), 0);
	assert_true(cfg_store_file_is_ours());
	text = read_text(file);
	assert_non_null(strstr(text, "\"e\""));
	free(text);
}

/* ---- ALUA states set by initiators ---- */
static void test_alua_sync(void **state)
{
	(void)state;
	/* the core's states are the tree's: nothing to persist */
	assert_int_equal(cfg_ctl_alua_sync(), 0);
	assert_string_equal(fake.log, "");
	assert_int_equal(cfg_store_journal_records(), 0);
	/* an initiator set standby: a settings change that only writes */
	fake.pg_state = SCSI_ALUA_STANDBY;
	assert_int_equal(cfg_ctl_alua_sync(), 0);
	assert_string_equal(fake.log, "prepare settings.set  (model only)\ncommit settings.set \n");
	assert_int_equal(cfg_ctl_tree()->pgs[0].state, SCSI_ALUA_STANDBY);
	assert_int_equal(cfg_store_journal_records(), 1);
	/* and again: the same, nothing more */
	assert_int_equal(cfg_ctl_alua_sync(), 0);
	assert_int_equal(cfg_store_journal_records(), 1);
	/* replayed at the next start */
	cfg_ctl_stop();
	fake.pg_state = -1;
	assert_int_equal(start(), 0);
	assert_int_equal(cfg_ctl_tree()->pgs[0].state, SCSI_ALUA_STANDBY);
}

/* A flush hook (the control API's pending changes) runs before a reload
 * and an ALUA sync, so that the journal keeps the order of changes. */
static int flushes;
static void count_flush(void)
{
	flushes++;
}

static void test_flush_hook(void **state)
{
	struct cfg_err err;
	size_t n;

	(void)state;
	flushes = 0;
	cfg_ctl_set_flush(count_flush);
	assert_int_equal(cfg_ctl_reload(&n, &err), 0);
	assert_int_equal(flushes, 1);
	fake.pg_state = SCSI_ALUA_STANDBY;
	assert_int_equal(cfg_ctl_alua_sync(), 0);
	assert_int_equal(flushes, 2);
	cfg_ctl_set_flush(NULL);
	assert_int_equal(cfg_ctl_reload(&n, &err), 0);
	assert_int_equal(flushes, 2);
}

int main(void)
{
#define TC(t) cmocka_unit_test_setup_teardown(t, setup, teardown)
	const struct CMUnitTest tests[] = {
	    TC(test_start),
	    TC(test_start_fails),
	    TC(test_prepare_commit),
	    TC(test_prepare_tree_refuses),
	    TC(test_prepare_runtime_refuses),
	    TC(test_prepare_cross_refuses),
	    TC(test_dry_run),
	    TC(test_group_commit),
	    TC(test_group_commit_fails),
	    TC(test_reload),
	    TC(test_other_documents),
	    TC(test_save_compact),
	    TC(test_alua_sync),
	    TC(test_flush_hook),
	};
#undef TC
	log_set_level(LOG_LVL_ERR);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
