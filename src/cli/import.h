/* SPDX-License-Identifier: GPL-2.0-or-later */
/* import.h: configurations of other targets -> a utarget config (docs/config.md).
 *
 * An importer reads a foreign file (tgt's targets.conf: import_tgt.c; LIO's
 * saveconfig.json: import_lio.c) and builds a utarget config document (a
 * jansson object in the config file's format) plus a report. The report lists
 * by name everything that was not carried over (IMP_DROPPED) and everything
 * carried over with a difference an administrator should know about
 * (IMP_NOTE); nothing is dropped without an entry. imp_finish() then runs the
 * document through the config layer's own parse and verify, so an import
 * never yields a file utargetd would refuse, and returns its canonical text
 * (cfg_dump(): sorted keys, indent 2).
 */
#ifndef UT_CLI_IMPORT_H
#define UT_CLI_IMPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "config/model.h"
#include "lib/compiler.h"

enum imp_level {
	IMP_NOTE,    /* carried over, with a difference worth knowing */
	IMP_DROPPED, /* not carried over */
};

struct imp_item {
	enum imp_level level;
	char *where; /* "file:line: <target iqn...>", "targets[0].tpgs[0]", ... */
	char *what;  /* the directive or key by name, and why */
};

struct imp_report {
	struct imp_item *v;
	size_t n, cap;
};

/* Settings of the import that the foreign file does not say. */
struct imp_opts {
	/* tgt: the portals every imported target listens on (tgtd's own
	 * listener is a daemon option, not in targets.conf); NULL/0:
	 * "0.0.0.0:3260" and "[::]:3260" */
	const char *const *portals;
	size_t nportals;
};

struct imp_result {
	json_t *config; /* the utarget config document (version 1) */
	struct imp_report report;
	unsigned ndropped; /* items of level IMP_DROPPED */
	json_t *seen;	   /* the items reported so far (each once) */
};

/* Access rules as the foreign formats state them; imp_access() turns them
 * into the target's ACLs, demo mode and CHAP credentials. */
#define IMP_ACCESS_MAX 64
#define IMP_WHERE_MAX  256

struct imp_chap {
	const char *user;
	const char *secret;
	char where[IMP_WHERE_MAX];
};

struct imp_access {
	const char *names[IMP_ACCESS_MAX]; /* initiator names (none: any name) */
	char names_where[IMP_ACCESS_MAX][IMP_WHERE_MAX];
	size_t nnames;
	const char *addrs[IMP_ACCESS_MAX]; /* initiator addresses or networks */
	char addrs_where[IMP_ACCESS_MAX][IMP_WHERE_MAX];
	size_t naddrs;
	bool any_address;		      /* from any address */
	struct imp_chap chap[IMP_ACCESS_MAX]; /* credentials initiators may use */
	size_t nchap;
	size_t nchap_asked; /* credential lines in the file, usable or not */
	bool has_mutual;
	struct imp_chap mutual; /* the target's own (mutual CHAP) */
};

/* ---- import_tgt.c ---- */
/* Read file (and what it includes) as tgt-admin does. 0, or -errno with a
 * one-line message in err (syntax errors name the file and line). */
int imp_tgt_load(const char *file, const struct imp_opts *o, struct imp_result *r, char *err,
		 size_t errsize);

/* ---- import_lio.c ---- */
/* Read an rtslib-fb saveconfig.json (targetcli's saveconfig). 0, or -errno
 * with a message in err. */
int imp_lio_load(const char *file, const struct imp_opts *o, struct imp_result *r, char *err,
		 size_t errsize);
int imp_lio_parse(const char *text, size_t len, const char *name, const struct imp_opts *o,
		  struct imp_result *r, char *err, size_t errsize);

/* ---- import_lio_alua.c ---- */
/* LIO's ALUA groups into r's "port_groups". so_alua: storage object key ->
 * {name (utarget back-store), where, groups (its alua_tpgs)}; refs: one
 * {target, tag, port, so, group, where} per LUN of each imported TPG. */
int imp_lio_alua(struct imp_result *r, json_t *so_alua, json_t *refs);

/* ---- import.c: shared by the importers ---- */
void imp_result_init(struct imp_result *r);
void imp_result_free(struct imp_result *r);
UT_PRINTF(4, 5)
void imp_report(struct imp_result *r, enum imp_level level, const char *where, const char *fmt,
		...);
/* The report as text, one item per line: "dropped: WHERE: WHAT" /
 * "note: WHERE: WHAT", in the order found. */
void imp_report_print(const struct imp_result *r, FILE *f);
/* Validate the document with the config layer (cfg_parse + cfg_validate) and
 * return its canonical text (malloc'ed) in *text. 0, or -EINVAL with *err
 * set (the importer built something utargetd would refuse), -ENOMEM. */
int imp_finish(const struct imp_result *r, char **text, struct cfg_err *err);

/* A back-store name ([A-Za-z0-9_.:-], at most CFG_BS_NAME_MAX bytes) made
 * from hint (e.g. a path's last component) and unique in the document's
 * "backstores" array: other characters become '_', a clash gets "-2",
 * "-3", ... Written to buf (CFG_BS_NAME_MAX + 1 bytes). */
void imp_backstore_name(const struct imp_result *r, const char *hint, char *buf, size_t size);
/* The document's back-store named name, or NULL. */
json_t *imp_find_backstore(const struct imp_result *r, const char *name);
/* Append to a member array of obj (created when missing). 0 or -ENOMEM;
 * the reference to v is always consumed. */
int imp_append(json_t *obj, const char *key, json_t *v);

/* tgt's access model on target t (a name list AND an address list, both
 * "any" when empty; CHAP credentials of the target): ACLs, or demo mode
 * when any initiator from anywhere may log in. 0 or -ENOMEM. */
int imp_access(struct imp_result *r, json_t *t, const char *where, const struct imp_access *a);
/* CHAP credentials of a target (is_acl false: any of chap[] may be used
 * by an initiator) or of one ACL (is_acl: chap[0], nchap <= 1); mutual:
 * the target's own credentials, or NULL. 0 or -ENOMEM. */
int imp_chap(struct imp_result *r, json_t *obj, bool is_acl, const struct imp_chap *chap,
	     size_t nchap, const struct imp_chap *mutual);
/* Set a field of the global "iscsi" section as imp_iscsi_param() does
 * (key names the foreign setting in the report). Consumes v. */
int imp_iscsi_setting(struct imp_result *r, json_t *seen, const char *field, json_t *v,
		      const char *where, const char *key);
/* The file-wide secret rule (RFC 7143 12.1.3): a mutual credential whose
 * secret also authenticates an initiator is dropped (reported). Run by
 * each importer at its end. */
void imp_check_secrets(struct imp_result *r);
/* Discovery session CHAP (a->chap[0], a->mutual). 0 or -ENOMEM. */
int imp_discovery_auth(struct imp_result *r, const struct imp_access *a);
/* An initiator name in utarget's normalized (lowercase) form; false (with
 * *why) when it is not a valid iSCSI name. */
bool imp_iscsi_name(const char *in, char *out, size_t size, const char **why);

/* An RFC 7143 negotiation key of a target (tgt) or portal group (LIO):
 * utarget's settings are global, so a value goes to the "iscsi" section
 * for every target (reported), a conflicting later one is reported and
 * dropped, a value utarget does not implement is reported. seen is the
 * importer's object of fields already set (field -> where). 0 or -ENOMEM. */
int imp_iscsi_param(struct imp_result *r, json_t *seen, const char *key, const char *value,
		    const char *where);
bool imp_iscsi_param_known(const char *key);

/* snprintf() for the report's "where" strings (cut when too long). */
UT_PRINTF(3, 4) void imp_fmt(char *buf, size_t size, const char *fmt, ...);

/* Read a whole file (at most CFG_FILE_MAX bytes), NUL-terminated. */
int imp_read_file(const char *file, char **text, size_t *len);

#endif
