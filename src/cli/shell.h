/* SPDX-License-Identifier: GPL-2.0-or-later */
/* shell.h: the interactive tree shell (shell.c: the line editor, history,
 * completion and verbs; shell_tree.c: paths and the live object tree).
 *
 * The tree (what "ls" shows; every node is built from the daemon's answers):
 *   /backstores/<type>/<name>                    back-stores by type
 *   /iscsi/<target>/tpg<tag>/portals/<addr>      portal groups and portals
 *   /iscsi/<target>/luns/lun<N>                  the target's LUN map
 *   /iscsi/<target>/acls/<initiator>/lun<N>      ACLs and their own maps
 *   /sessions/<tsih>                             sessions
 *   /alua/<id>                                   ALUA target port groups
 *   /settings                                    global settings
 * utarget keeps LUN maps and ACLs per target (not per portal group):
 * /iscsi/<target>/tpg<tag>/luns and .../acls are the same as the target's,
 * for targetcli habits. */
#ifndef UT_CLI_SHELL_H
#define UT_CLI_SHELL_H

#include <stdbool.h>

#include "cli/cli.h"
#include "config/model.h"

enum sh_kind {
	SH_ROOT,
	SH_BACKSTORES,
	SH_BS_TYPE,
	SH_BS,
	SH_ISCSI,
	SH_TARGET,
	SH_TPG,
	SH_PORTALS,
	SH_PORTAL,
	SH_LUNS, /* of the target, or of an ACL (initiator set) */
	SH_LUN,
	SH_ACLS,
	SH_ACL,
	SH_SESSIONS,
	SH_SESSION,
	SH_ALUA,
	SH_ALUA_GROUP,
	SH_SETTINGS,
};

#define SH_PATH_MAX 1024

struct sh_path {
	enum sh_kind kind;
	char type[16];			   /* SH_BS_TYPE, SH_BS */
	char name[CFG_ISCSI_NAME_MAX + 1]; /* back-store or target name */
	bool has_tag;			   /* under tpg<tag> */
	unsigned tag;
	char initiator[CFG_ISCSI_NAME_MAX + 1]; /* under acls/<initiator> */
	unsigned lun;
	char portal[80];
	unsigned tsih;
	unsigned group; /* SH_ALUA_GROUP */
};

/* ---- shell_tree.c ---- */
/* Resolve arg (absolute, or relative to cwd; "." and ".." allowed) into a
 * node of the tree (lexically: existence is not checked). 0, or -EINVAL
 * with *why set. */
int sh_resolve(const struct sh_path *cwd, const char *arg, struct sh_path *out, const char **why);
/* The path of a node as text ("/iscsi/iqn...:t1/tpg1"). */
void sh_format(const struct sh_path *p, char *buf, size_t size);
/* The children of node p: an array of {name, dir: bool, info: string}
 * from the daemon (NULL: an error was printed; a leaf has none). */
json_t *sh_children(struct cli *c, const struct sh_path *p);
/* Does node p exist in the daemon? (It was listed by its parent.) */
bool sh_exists(struct cli *c, const struct sh_path *p);

/* ---- shell.c ---- */
/* Read commands until exit/EOF; returns the exit status of the last
 * command (0 after "exit"). */
int shell_main(struct cli *c);
/* Run one shell line at cwd (may change cwd): the exit status. */
int shell_line(struct cli *c, struct sh_path *cwd, char *line, bool *quit);

#endif
