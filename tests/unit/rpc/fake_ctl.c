/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_ctl.c: see fake_ctl.h. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "config/ctl.h"
#include "fake_ctl.h"
#include "ut_text.h"

struct fake_ctl fctl;

void fake_ctl_reset(void)
{
	memset(&fctl, 0, sizeof(fctl));
}

#define fake_log(...) ut_appendf(fctl.log, sizeof(fctl.log), __VA_ARGS__)

int cfg_ctl_prepare(struct cfg_txn *x, bool dry_run, size_t *failed, bool *runtime,
		    struct cfg_err *err)
{
	*err = (struct cfg_err){0};
	*failed = 0;
	*runtime = false;
	fake_log("prepare %zu%s\n", x->n, dry_run ? " (dry run)" : "");
	if (fctl.prepare_rc) {
		*failed = fctl.failed;
		*runtime = fctl.runtime;
		snprintf(err->path, sizeof(err->path), "backstores[1]");
		snprintf(err->msg, sizeof(err->msg), "refused by the fake");
		return fctl.prepare_rc;
	}
	x->applied = x->n;
	return 0;
}

int cfg_ctl_commit(struct cfg_txn *const *v, size_t n, struct cfg_err *err)
{
	*err = (struct cfg_err){0};
	fctl.commits++;
	fake_log("commit");
	for (size_t i = 0; i < n; i++)
		fake_log(" %zu", v[i]->n);
	fake_log("\n");
	if (fctl.commit_rc) {
		snprintf(err->msg, sizeof(err->msg), "cannot write the journal");
		for (size_t t = n; t-- > 0;)
			cfg_ctl_rollback(v[t]);
	}
	return fctl.commit_rc;
}

void cfg_ctl_rollback(struct cfg_txn *x)
{
	fake_log("rollback %zu\n", x->n);
	x->applied = 0;
}

void cfg_ctl_done(struct cfg_txn *x)
{
	cfg_txn_clear(x);
}

int cfg_ctl_save(struct cfg_err *err)
{
	*err = (struct cfg_err){0};
	fctl.saves++;
	return 0;
}

void cfg_ctl_maybe_compact(bool idle)
{
	fctl.compactions++;
}

void cfg_ctl_set_flush(void (*fn)(void))
{
	fctl.flush = fn;
}

/* a back-store named "busy" had sessions to drop */
const char *cfg_ctl_effect(const struct cfg_chg *ch)
{
	return ch->name && !strcmp(ch->name, "busy") ? "its sessions were dropped" : "";
}
