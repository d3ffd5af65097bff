/* SPDX-License-Identifier: GPL-2.0-or-later */
/* config.h: the config layer's interface for the daemon (and later the
 * control plane): load a file into a verified tree (model.h), then build the
 * running objects from it: back-stores, logical units, SCSI targets with
 * their LUN maps and ACLs, iSCSI targets, portal groups and listeners.
 *
 * Everything here runs on the main thread. cfg_apply() runs after
 * reactor_pool_start(), scsi_core_init() and iscsi_init().
 */
#ifndef UT_CONFIG_CONFIG_H
#define UT_CONFIG_CONFIG_H

#include <stdbool.h>
#include <stddef.h>

#include "config/model.h"

/* Largest config file read (bytes). */
#define CFG_FILE_MAX (16u << 20)

/* ---- load.c ---- */
/* The whole file (at most max bytes), NUL-terminated (the NUL is not
 * counted in *len); free() it. 0, -errno, -EISDIR or -EFBIG (larger than
 * max). */
int cfg_read_file(const char *file, size_t max, char **text, size_t *len);
/* Read, parse and verify file. 0, or -errno with *err set: err->line 0 and
 * err->path "" for file errors, else the line and JSON path of the first
 * problem. */
int cfg_load(const char *file, const struct cfg_iscsi_settings *iscsi_defaults, struct cfg **out,
	     struct cfg_err *err);
/* Checks that need the file system and that --check also performs: file
 * back-stores without create exist (regular file or block device); the
 * parent directory of those with create exists (or is the state directory,
 * which cfg_apply() creates); the state directory's owner and mode
 * (cfg_check_state_dir()). 0 or -errno with *err set (line 0: the caller
 * locates it with cfg_err_locate()). */
int cfg_check_files(const struct cfg *c, struct cfg_err *err);
/* The state directory (state_dir, else the current directory) is utargetd's
 * alone: owned by root or by the effective user, and neither group- nor
 * world-writable (files are created in it by name: APTPL state, back-stores
 * with create). missing_ok: a directory that does not exist yet passes (it
 * will be created 0700). 0, or -EPERM / -errno with *err naming state_dir
 * and why. Also part of cfg_check_files(). */
int cfg_check_state_dir(const struct cfg *c, bool missing_ok, struct cfg_err *err);
/* The same for one back-store (i names it in err->path). */
int cfg_check_file(const struct cfg *c, const struct cfg_backstore *b, size_t i,
		   struct cfg_err *err);
/* Fill err->line from the file text for err->path (no-op when the file
 * cannot be read again). */
void cfg_err_locate(struct cfg_err *err, const char *file);
/* "FILE:LINE: PATH: MSG" (parts that are unknown are left out); for a
 * command-line origin (path "--listen ..."): "PATH: MSG". */
void cfg_err_format(const struct cfg_err *err, const char *file, char *buf, size_t size);

/* ---- alua_sync.c ---- */
/* The running ALUA states of the configured port groups (SET TARGET PORT
 * GROUPS, scsi_alua_set_state()) into c->pgs: each group's state and its
 * lu_states (the LUs whose state differs from the group's). Call before
 * cfg_dump() when persisting; scsi_alua_set_change_hook() tells when an
 * initiator changed a state. Groups not running are left as they are.
 * 0 or -ENOMEM (the tree unchanged for the group that failed). */
int cfg_port_groups_sync(struct cfg *c);

/* ---- apply.c ---- */
struct cfg_overrides {
	/* --listen: when nlisten > 0, these portals replace the portals of
	 * every portal group of the config */
	const char *const *listen;
	size_t nlisten;
};

struct cfg_runtime;

/* Build everything the config describes: create the state directory if
 * missing, open every back-store, create the logical units, targets, LUN
 * maps, ACLs, iSCSI targets and portal groups, and listen on every portal.
 * All or nothing: on any failure what was built is torn down again and
 * -errno returned with *err naming the field (err->line 0). Portal groups
 * without a rel_port_id get the assigned one written into c (docs/config.md:
 * the daemon keeps identifiers stable once running). */
int cfg_apply(struct cfg *c, const struct cfg_overrides *ov, struct cfg_runtime **out,
	      struct cfg_err *err);
/* Hand c's "iscsi" section to the iSCSI fabric (iscsi_init() with the
 * fabric's struct iscsi_settings): at start-up, after reactor_pool_start()
 * and scsi_core_init() and before cfg_apply(), and when a settings change
 * commits (live.c): new logins and connections take the new values. 0 or
 * -errno. */
int cfg_apply_iscsi_settings(const struct cfg *c);
/* Hand c's "isns" object to the fabric (iscsi_isns_configure()): at the
 * end of cfg_apply() and when a settings change commits. 0 or -errno
 * (logged; the fabric keeps retrying an unreachable server). */
int cfg_apply_isns(const struct cfg *c);
/* Tear down in reverse order (iSCSI targets first: no new I/O; logical
 * units last: their back-stores close on the last reference). NULL ok. */
void cfg_runtime_destroy(struct cfg_runtime *rt);
/* "N targets, N LUNs, portals A B ..." for the readiness log line. */
void cfg_runtime_summary(const struct cfg_runtime *rt, char *buf, size_t size);

#endif
