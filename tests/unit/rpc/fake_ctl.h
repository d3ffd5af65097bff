/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_ctl.h: the config layer as the rpc server sees it (config/ctl.h's
 * transactions and group commit, ctl.h's effects), for the unit tests of
 * src/rpc: every call recorded in a log, failures on request. The change
 * machinery itself (change.h) is the real one. */
#ifndef UT_TESTS_RPC_FAKE_CTL_H
#define UT_TESTS_RPC_FAKE_CTL_H

#include <stdbool.h>
#include <stddef.h>

#include "config/ctl.h"

struct fake_ctl {
	char log[4096];	 /* "prepare 1\ncommit 2\n..." */
	int prepare_rc;	 /* what cfg_ctl_prepare() answers (0: success) */
	bool runtime;	 /* ... with *runtime */
	size_t failed;	 /* ... and *failed */
	int commit_rc;	 /* what cfg_ctl_commit() answers */
	int commits;	 /* cfg_ctl_commit() calls */
	int saves;	 /* cfg_ctl_save() */
	int compactions; /* cfg_ctl_maybe_compact() */
	void (*flush)(void);
};
extern struct fake_ctl fctl;

void fake_ctl_reset(void);

#endif
