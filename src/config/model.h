/* SPDX-License-Identifier: GPL-2.0-or-later */
/* model.h: the configuration as a plain tree (docs/config.md).
 *
 * Life of a config: text -> cfg_parse() (json.c: JSON syntax, types, known
 * fields) -> cfg_validate() (validate.c: names, references, ranges, uniqueness)
 * -> cfg_apply() (apply.c: back-stores, logical units, targets, portals).
 * cfg_dump() (json.c) writes the tree back with sorted keys; parse(dump(c))
 * yields the same tree, so the daemon can rewrite the file after a change.
 *
 * Every string in the tree is owned by it (malloc'ed, NUL-terminated, no
 * embedded NUL); cfg_free() releases the whole tree. Optional strings are
 * NULL when absent. Scalars always hold their value (the default when the
 * field was absent).
 */
#ifndef UT_CONFIG_MODEL_H
#define UT_CONFIG_MODEL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define CFG_VERSION 1

/* Lengths of names and identity fields (bytes, without the NUL). */
#define CFG_BS_NAME_MAX	    63	   /* fits struct bs_dev.name */
#define CFG_ISCSI_NAME_MAX  223	   /* RFC 7143 4.2.7.1 */
#define CFG_ALIAS_MAX	    255	   /* RFC 7143 13.6: TargetAlias */
#define CFG_VENDOR_MAX	    8	   /* SPC-4 6.6.2: T10 VENDOR IDENTIFICATION */
#define CFG_PRODUCT_MAX	    16	   /* PRODUCT IDENTIFICATION */
#define CFG_REVISION_MAX    4	   /* PRODUCT REVISION LEVEL */
#define CFG_SERIAL_MAX	    32	   /* VPD 80h, as kept in struct scsi_lu_attrs */
#define CFG_NAA_HEX	    32	   /* NAA 6h IEEE Registered Extended: 16 bytes */
#define CFG_MAX_LUN	    16383u /* single level LUN, flat space addressing */
#define CFG_PATH_MAX	    4096   /* a path as written */
#define CFG_FULL_PATH_MAX   4096   /* a path as opened (PATH_MAX) */
#define CFG_SOCKET_PATH_MAX 107	   /* an AF_UNIX path (sun_path less its NUL) */

struct cfg_fault;

/* A type-specific setting of a back-store ("options": plugin handlers, the
 * iscsi gateway): a key of [A-Za-z0-9_.-] and a string value. */
#define CFG_BS_OPTIONS_MAX	32
#define CFG_BS_OPTION_KEY_MAX	63
#define CFG_BS_OPTION_VALUE_MAX 4096
#define CFG_BS_URL_MAX		1024
#define CFG_BS_HANDLER_MAX	63
struct cfg_kv {
	char *key;
	char *value;
};

/* One back-store and the logical unit built over it. */
struct cfg_backstore {
	char *name;		/* unique; [A-Za-z0-9_.:-], 1..CFG_BS_NAME_MAX */
	char *type;		/* "file", "block", "ram", "null", "iscsi", "plugin" */
	char *path;		/* file, block: as written (relative: against state_dir) */
	char *url;		/* iscsi: iscsi://[user[%secret]@]host[:port]/IQN/LUN */
	char *handler;		/* plugin: the handler's name (<plugin_dir>/<handler>.so) */
	struct cfg_kv *options; /* "options": type-specific settings */
	size_t noptions;
	uint64_t size;		       /* bytes; 0 = not given (file: the file's size) */
	bool create;		       /* file: create a sparse file of `size` if missing */
	bool read_only;		       /* opened read-only; the medium is write protected */
	uint32_t block_size;	       /* 0 = the medium's (block, iscsi, plugin) */
	uint32_t physical_block_size;  /* 0 = block_size */
	uint32_t pr_max_registrations; /* persistent reservation registrations; 0 = 4096 */
	bool thin;		       /* logical block provisioning (UNMAP, LBPRZ) */
	bool removable;		       /* RMB: PREVENT ALLOW MEDIUM REMOVAL, eject */
	bool write_cache;
	/* T10 protection information type (SBC-4 4.22): 0 none, 1, 2 or 3;
	 * the tuples live beside the data (file: PATH.pi; ram: memory) */
	uint8_t protection;
	/* identity: NULL = default (cfg_default_identity()) */
	char *vendor;
	char *product;
	char *revision;
	char *serial;
	char *naa;		 /* 32 hex digits, first digit 6 */
	struct cfg_fault *fault; /* "fault": NULL = none (config/fault.h) */
};

struct cfg_lun {
	uint32_t lun;	 /* 0..CFG_MAX_LUN */
	char *backstore; /* a cfg_backstore name */
	bool read_only;	 /* write protect this mapping only */
};

struct cfg_lun_list {
	struct cfg_lun *v;
	size_t n;
};

/* ---- access and authentication (auth.c; docs/config.md) ---- */
#define CFG_CHAP_USER_MAX   255 /* CHAP_N: a simple value (RFC 7143 6.1) */
#define CFG_CHAP_SECRET_MAX 255
/* RFC 7143 12.1.3: at least 96 bits of randomness; shorter secrets are
 * refused unless their credential says "allow_short" */
#define CFG_CHAP_SECRET_MIN 12
/* Microsoft's initiator accepts no longer secret (a warning only) */
#define CFG_CHAP_SECRET_MS_MAX 16
#define CFG_CHAP_ALGS	       4u
#define CFG_NET_MAX	       64 /* "address/prefix" as written */

struct cfg_chap_cred {
	char *user;
	char *secret;	  /* as written: its bytes are the CHAP secret */
	bool allow_short; /* "allow_short": a secret under CFG_CHAP_SECRET_MIN is intended */
};

/* "auth": CHAP (RFC 7143 12.1.3). Present = CHAP required. */
struct cfg_auth {
	struct cfg_chap_cred *chap;   /* initiator credentials; any one may be used */
	size_t nchap;		      /* >= 1 */
	struct cfg_chap_cred *mutual; /* the target's identity (mutual CHAP); NULL: none */
	uint8_t algs[CFG_CHAP_ALGS];  /* CHAP_A values as written; nalgs 0: all four */
	size_t nalgs;
};

/* A target's "limits"; bit i of set: the i-th field was written (absent
 * fields are the global "iscsi" settings). */
struct cfg_limits {
	uint32_t set;
	uint32_t max_sessions; /* sessions of this target; 0 = no limit of its own */
	uint32_t max_connections;
	uint32_t queue_depth;
	uint32_t login_timeout;
	uint32_t nop_in_interval;
	uint32_t nop_in_timeout;
};

/* "discovery": discovery sessions. */
enum cfg_discovery_filter {
	CFG_DF_NONE,
	CFG_DF_PORTAL,
	CFG_DF_PORTAL_NAME, /* the default */
	CFG_DF_PORTAL_NAME_AUTH,
};
struct cfg_discovery {
	struct cfg_auth *auth; /* NULL: no authentication */
	bool has_filter;       /* false: the default (written back absent) */
	uint8_t filter;	       /* enum cfg_discovery_filter */
};

/* "isns": registration with an iSNS server (RFC 4171; isns.c of the
 * config, the fabric's isns.c). Absent: no iSNS. */
#define CFG_ISNS_SERVER_MAX 263u /* "[host]:port" */
struct cfg_isns {
	bool enabled;	   /* default true */
	char *server;	   /* "host[:port]" (port 3205 by default) */
	char *entity;	   /* Entity Identifier; NULL: the host name */
	bool has_esi_port; /* false: an ephemeral port */
	uint16_t esi_port;
	bool access_control; /* discovery domains decide visibility; default false */
};

/* A network of an ACL's "addresses". */
struct cfg_net {
	uint8_t family; /* AF_INET, AF_INET6 */
	uint8_t prefix;
	uint8_t addr[16];
};

struct cfg_acl {
	char *initiator;	  /* iSCSI name of the initiator; NULL: any (addresses) */
	bool has_luns;		  /* false: the target's luns */
	struct cfg_lun_list luns; /* own LUN map when has_luns */
	char **addresses;	  /* networks it may connect from; none: anywhere */
	size_t naddresses;
	struct cfg_auth *auth; /* its own CHAP; NULL: the target's */
	bool target_reset;     /* may use TARGET WARM/COLD RESET (RFC 7143 11.5.1) */
	/* its sessions must use CRC32C digests (besides the target's) */
	bool require_header_digest;
	bool require_data_digest;
};

/* A login redirection (RFC 7143 11.13.5; redirect.c, docs/config.md). */
#define CFG_REDIRECT_ADDR_MAX 255
struct cfg_redirect {
	char *address;	/* "host[:port][,tpgt]"; NULL with balance */
	bool permanent; /* 01/02 "moved permanently", else 01/01 */
	bool balance;	/* portal groups: to the group's least-loaded portal */
};

struct cfg_portal_group {
	uint16_t tag;	      /* TPGT, 1..65535, unique per target */
	uint16_t rel_port_id; /* 0 = assigned (cfg_assign_port_ids) */
	char **portals;	      /* "a.b.c.d:port" or "[v6]:port" */
	size_t nportals;
	struct cfg_redirect *redirect; /* NULL: logins stay */
};

struct cfg_target {
	char *name;  /* iqn., eui. or naa. name (RFC 7143 4.2.7) */
	char *alias; /* optional TargetAlias */
	struct cfg_portal_group *tpgs;
	size_t ntpgs;
	struct cfg_lun_list luns;
	struct cfg_acl *acls;
	size_t nacls;
	bool demo;	     /* demo_mode.enabled: admit any initiator */
	bool demo_read_only; /* demo_mode.read_only: demo initiators get a write protected view */
	bool demo_target_reset; /* demo_mode.target_reset: demo initiators may reset the target */
	struct cfg_auth *auth;	/* CHAP of initiators without their own; NULL: none */
	struct cfg_limits *limits;     /* NULL: the global settings */
	bool require_header_digest;    /* every session must use HeaderDigest=CRC32C */
	bool require_data_digest;      /* and DataDigest=CRC32C */
	struct cfg_redirect *redirect; /* NULL: logins stay (no balance here) */
	bool async_events;	       /* unit attentions as AsyncEvent 0 (async.c) */
};

/* ALUA target port groups (SPC-4 5.15; port_groups.c, docs/config.md). */
#define CFG_PG_TRANSITION_MS_MAX 255000u /* RTPG IMPLICIT TRANSITION TIME is 1..255 s */
struct cfg_pg_member {
	char *target; /* a cfg_target name */
	uint16_t tag; /* one of its portal groups: that target port */
};

struct cfg_pg_lu {
	char *backstore; /* a cfg_backstore name (the LU) */
	uint8_t state;	 /* enum scsi_alua_state through this group */
};

struct cfg_port_group {
	uint16_t id;		/* target port group identifier, 1..65535, unique */
	char *name;		/* optional */
	uint8_t state;		/* enum scsi_alua_state of every LU not in lus */
	bool preferred;		/* PREF bit */
	bool explicit_ok;	/* "explicit": SET TARGET PORT GROUPS allowed */
	uint32_t transition_ms; /* explicit transitions last this long */
	struct cfg_pg_member *members;
	size_t nmembers;
	struct cfg_pg_lu *lus; /* "lu_states" */
	size_t nlus;
};

/* The "iscsi" section (docs/config.md): the iSCSI fabric's global settings
 * as the config holds them. The config owns this struct and its defaults
 * (cfg_iscsi_defaults()), so that its file side, and the CLI that links
 * it, need nothing of the fabric; the apply side hands the values to the
 * fabric as its struct iscsi_settings (cfg_apply_iscsi_settings(),
 * config.h), one member for one member. */
struct cfg_iscsi_settings {
	uint32_t max_recv_data_segment_length; /* ours, declared to the initiator */
	uint32_t max_burst_length;
	uint32_t first_burst_length;
	bool initial_r2t;
	bool immediate_data;
	uint16_t max_outstanding_r2t;
	uint16_t max_connections; /* per session */
	bool header_digest;	  /* offer/accept CRC32C */
	bool data_digest;
	uint32_t default_time2wait;
	uint32_t default_time2retain;
	uint32_t nop_in_interval_s; /* 0 = no keepalive */
	uint32_t nop_in_timeout_s;
	uint32_t login_timeout_s;
	uint32_t max_sessions; /* normal sessions of all targets; 0 = unlimited */
	uint32_t max_logins_in_progress;
	uint32_t max_logins_per_address;
	uint32_t max_discovery_sessions;
	uint32_t max_discovery_sessions_per_address;
	uint32_t queue_depth; /* commands per session (CmdSN window) */
	uint32_t max_buffer_memory_mib;
	uint32_t max_session_data_mib;
	uint32_t max_connection_data_mib;
	uint32_t session_reserve_kib;
	uint32_t max_session_send_queue_mib;
	uint32_t max_connection_send_queue_mib;
	uint32_t data_out_timeout_s;
	uint32_t error_recovery_level; /* offered: 0 or 1 (RFC 7143 13.20) */
	uint32_t busy_poll_us;	       /* reactors' adaptive busy polling; 0 = off */
	bool socket_uring;	       /* sockets read through the reactors' io_uring */
	bool spread_connections;       /* MC/S: sockets stay on their own reactors */
};

struct cfg {
	int version;
	char *state_dir;		 /* as written; NULL = "." */
	char *log_level;		 /* NULL = not set */
	char *rpc_socket;		 /* control socket path; NULL = the daemon's default */
	char *metrics_listen;		 /* "metrics.listen": Prometheus /metrics; NULL = off */
	char *plugin_dir;		 /* back-store handlers; NULL = the build's default */
	char **default_portals;		 /* portals of a portal group created without any */
	size_t ndefault_portals;	 /* 0: CFG_DEFAULT_PORTAL */
	struct cfg_iscsi_settings iscsi; /* effective: defaults + the "iscsi" section */
	uint32_t iscsi_set;		 /* bit i: the i-th iscsi field was in the file */
	struct cfg_backstore *bs;
	size_t nbs;
	struct cfg_target *targets;
	size_t ntargets;
	struct cfg_port_group *pgs; /* "port_groups" */
	size_t npgs;
	struct cfg_discovery *discovery; /* NULL: defaults (no authentication) */
	struct cfg_isns *isns;		 /* NULL: no iSNS */
};

/* A config error: where (file line, JSON path) and what. line 0 = unknown;
 * path "" = the whole document. */
#define CFG_ERR_PATH_MAX 256
#define CFG_ERR_MSG_MAX	 512
struct cfg_err {
	int line;
	char path[CFG_ERR_PATH_MAX]; /* e.g. "targets[0].luns[1].backstore" */
	char msg[CFG_ERR_MSG_MAX];
};
/* Fill *err: no line, path (NULL: the path already there stays), the
 * message. Returns rc, or -EINVAL when rc is not negative. */
int cfg_err_set(struct cfg_err *err, int rc, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int cfg_err_vset(struct cfg_err *err, int rc, const char *path, const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));

/* Defaults of a back-store before its fields are read. */
void cfg_backstore_defaults(struct cfg_backstore *b);
/* The defaults of the "iscsi" section (docs/config.md; the same values as
 * the fabric's iscsi_settings_default(), which a unit test checks). */
void cfg_iscsi_defaults(struct cfg_iscsi_settings *s);
void cfg_free(struct cfg *c);
/* Free what one object owns (not the object itself: it lives in an array);
 * the object is left zeroed. A field added to an object is freed here. */
void cfg_backstore_clear(struct cfg_backstore *b);
void cfg_lun_clear(struct cfg_lun *l);
void cfg_lun_list_clear(struct cfg_lun_list *l);
void cfg_acl_clear(struct cfg_acl *a);
void cfg_tpg_clear(struct cfg_portal_group *g);
void cfg_redirect_free(struct cfg_redirect *r);
void cfg_target_clear(struct cfg_target *t);

/* ---- model.c ---- */
/* Where a file back-store lives: path if absolute, else state_dir/path
 * (state_dir relative to the current directory, "." when absent), made
 * absolute; an rbd's path (POOL[/NAMESPACE]/IMAGE) as it is. 0 or
 * -ENAMETOOLONG / -errno (getcwd). */
int cfg_bs_path(const struct cfg *c, const struct cfg_backstore *b, char *buf, size_t size);
/* Whether several back-stores may name one path: the volumes of one dedup
 * store (its directory), which is no file of theirs alone. */
bool cfg_bs_shares_path(const struct cfg_backstore *b);
/* The directory back-store handlers are loaded from, absolute (as
 * cfg_bs_path()): plugin_dir, else dflt. */
int cfg_plugin_dir_path(const struct cfg *c, const char *dflt, char *buf, size_t size);
/* The state directory, absolute (as cfg_bs_path()). */
int cfg_state_dir_path(const struct cfg *c, char *buf, size_t size);

/* ---- json.c ---- */
/* Parse text (len bytes, need not be NUL-terminated) into a new tree: JSON
 * syntax, field types and ranges, unknown fields. iscsi_defaults (NULL:
 * zeroes) fill the settings the file leaves out. 0, or -EINVAL with *err set
 * (err->line from the JSON parser or from cfg_locate_line()), or -ENOMEM. */
int cfg_parse(const char *text, size_t len, const struct cfg_iscsi_settings *iscsi_defaults,
	      struct cfg **out, struct cfg_err *err);
/* The tree as JSON text (indent 2, sorted keys, trailing newline); malloc'ed,
 * NULL on allocation failure. */
char *cfg_dump(const struct cfg *c);
/* One object at a time (the control plane): its fields, the object as the
 * file writes it, and the object read back from such JSON with the file's
 * rules (types, ranges, unknown fields). cfg_object_from_json() fills a
 * zeroed object (free it with the cfg_*_clear() of its kind, also after a
 * failure); err->path is relative to the object. CFG_OBJ_ROOT:
 * cfg_object_to_json() dumps the whole tree; from_json is refused. */
enum cfg_obj_kind {
	CFG_OBJ_ROOT,
	CFG_OBJ_BACKSTORE,
	CFG_OBJ_TARGET,
	CFG_OBJ_PORTAL_GROUP,
	CFG_OBJ_ACL,
	CFG_OBJ_LUN,
};
struct json_t;
const char *const *cfg_object_fields(enum cfg_obj_kind kind);
struct json_t *cfg_object_to_json(enum cfg_obj_kind kind, const void *obj);
int cfg_object_from_json(enum cfg_obj_kind kind, struct json_t *o, void *obj, struct cfg_err *err);
/* Whether the "iscsi" section set the named field. */
bool cfg_iscsi_is_set(const struct cfg *c, const char *name);
/* "4096", "64K", "1G", "2T" (powers of 1024, case-insensitive suffix) ->
 * bytes. 0 or -EINVAL (syntax, zero, overflow). */
int cfg_parse_size(const char *s, size_t len, uint64_t *out);
/* Bytes as the shortest exact form: "1G", "64K", "1000". */
void cfg_format_size(uint64_t v, char *buf, size_t size);

/* ---- port_groups.c ---- */
struct json_t;
/* The "port_groups" array into c->pgs (types, ranges, unknown fields);
 * err->path set on -EINVAL. */
int cfg_parse_port_groups(struct json_t *arr, struct cfg *c, struct cfg_err *err);
/* c->pgs as the file writes it (a new array reference), NULL on ENOMEM. */
struct json_t *cfg_dump_port_groups(const struct cfg *c);
void cfg_port_groups_free(struct cfg *c);
/* References (targets and their portal groups, back-stores), unique ids
 * and names, a portal group in at most one port group. */
int cfg_validate_port_groups(const struct cfg *c, struct cfg_err *err);
/* The ALUA target port group of every portal group, in file order (as
 * cfg_assign_port_ids()): the id of the port group listing it, else a group
 * of its own with the smallest id no port group uses. 0, -EINVAL, -ENOMEM. */
int cfg_assign_group_ids(const struct cfg *c, uint16_t *ids, size_t nids);
/* The file's spelling of access states ("active/optimized", ...). */
const char *cfg_pg_state_name(uint8_t state);
int cfg_pg_state_parse(const char *s, size_t len, uint8_t *out);

/* ---- redirect.c: a target's or a portal group's "redirect" ---- */
/* The "redirect" member of o (absent: *out stays NULL); path is o's JSON
 * path. A portal group's (g != NULL) may be {"balance": true}, which needs
 * two of g's portals with an address of their own. 0, -EINVAL with *err,
 * or -ENOMEM. */
int cfg_redirect_parse(struct json_t *o, const struct cfg_portal_group *g,
		       struct cfg_redirect **out, const char *path, struct cfg_err *err);
/* Add "redirect" to the object being dumped (r NULL: nothing). 0 or -1. */
int cfg_redirect_dump(struct json_t *o, const struct cfg_redirect *r);

/* ---- isns.c: the "isns" object ---- */
int cfg_isns_parse_root(struct json_t *root, struct cfg *c, struct cfg_err *err);
/* 0 or -1 (out of memory); nothing when c->isns is NULL. */
int cfg_isns_dump_root(struct json_t *root, const struct cfg *c);
void cfg_isns_free(struct cfg_isns *i);
/* "host", "host:port", "[v6]", "[v6]:port" (a bare IPv6 address has no
 * port) into host and *port (0 when absent). 0 or -EINVAL. */
int cfg_isns_server_parse(const char *s, char *host, size_t size, uint16_t *port);

/* ---- auth.c: "auth", "limits", ACL "addresses", "discovery" ---- */
/* Parse the fields of o that belong to auth.c into t / a / c; path is o's
 * JSON path (errors name the field under it). An ACL needs an initiator,
 * addresses, or both. 0, -EINVAL with *err set, or -ENOMEM. */
int cfg_auth_parse_target(struct json_t *o, struct cfg_target *t, const char *path,
			  struct cfg_err *err);
int cfg_auth_parse_acl(struct json_t *o, struct cfg_acl *a, const char *path, struct cfg_err *err);
int cfg_auth_parse_root(struct json_t *root, struct cfg *c, struct cfg_err *err);
/* Add those fields to the object being dumped (absent ones stay absent).
 * 0 or -1 (out of memory). */
int cfg_auth_dump_target(struct json_t *o, const struct cfg_target *t);
int cfg_auth_dump_acl(struct json_t *o, const struct cfg_acl *a);
int cfg_auth_dump_root(struct json_t *root, const struct cfg *c);
void cfg_auth_free(struct cfg_auth *a);
void cfg_auth_clear_target(struct cfg_target *t);
void cfg_auth_clear_acl(struct cfg_acl *a);
void cfg_auth_clear_root(struct cfg *c);
/* Rules (base: the object's path): networks, unique users and networks;
 * across the file: no target (mutual) secret equal to an initiator secret
 * (RFC 7143 12.1.3). */
int cfg_auth_validate_acl(const struct cfg_acl *a, const char *base, struct cfg_err *err);
int cfg_auth_validate_target(const struct cfg_target *t, size_t ti, struct cfg_err *err);
int cfg_auth_validate(const struct cfg *c, struct cfg_err *err);
/* "10.0.0.0/8", "192.0.2.7", "fd00::/8", "::1" (no bits beyond the
 * prefix). 0 or -EINVAL with *why. */
int cfg_net_parse(const char *s, struct cfg_net *out, const char **why);
const char *cfg_chap_alg_name(uint8_t alg);
const char *cfg_discovery_filter_name(uint8_t f);
/* Warnings (logged): secrets outside 12..16 bytes; a file with secrets
 * that its group or others can read. */
void cfg_auth_warn(const struct cfg *c);
bool cfg_has_secrets(const struct cfg *c);
void cfg_auth_check_file_mode(const char *file, const struct cfg *c);

/* ---- locate.c ---- */
/* Line (1-based) of the member or element `path` names in the JSON text
 * (the key's line for an object member), or of its deepest existing
 * ancestor; 0 when the text cannot be scanned. path syntax: members ".key"
 * (or ["key"] with JSON escapes for keys outside [A-Za-z0-9_-]), elements
 * "[n]", e.g. "targets[0].luns[1].backstore"; the leading "." is optional. */
int cfg_locate_line(const char *text, size_t len, const char *path);
/* Append one member to a path (in the form cfg_locate_line() reads). */
void cfg_path_key(char *path, size_t size, const char *key, size_t keylen);
void cfg_path_index(char *path, size_t size, size_t idx);

/* ---- validate.c ---- */
/* Check the whole tree (names, syntax of portals and iSCSI names, sizes,
 * references, uniqueness). 0 or -EINVAL with err->path and err->msg set
 * (err->line left 0: cfg_load() locates it). */
int cfg_validate(const struct cfg *c, struct cfg_err *err);
/* The same rules for one object, for changes made one object at a time
 * (ix: the index of the config the object is, or is going to be, part of;
 * uniqueness against the other objects of the config is the caller's).
 * backstore: every rule but the unique name and file; i names it in errors.
 * target: every rule of the target and its children but the unique target
 * name and the whole-config uniqueness of rel_port_id. base: the JSON path
 * of the object in errors, e.g. "targets[2].acls[0]". */
struct cfg_index;
int cfg_validate_backstore_one(const struct cfg *c, const struct cfg_backstore *b, size_t i,
			       struct cfg_err *err);
int cfg_validate_target_one(const struct cfg *c, const struct cfg_index *ix,
			    const struct cfg_target *t, size_t ti, struct cfg_err *err);
int cfg_validate_tpg_one(const struct cfg_portal_group *pg, const char *base, struct cfg_err *err);
int cfg_validate_acl_one(const struct cfg *c, const struct cfg_index *ix, const struct cfg_acl *acl,
			 const char *base, struct cfg_err *err);
int cfg_validate_luns(const struct cfg *c, const struct cfg_index *ix, const struct cfg_lun_list *l,
		      const char *base, struct cfg_err *err);
/* Relative target port identifiers, one per portal group in file order
 * (targets in order, then their portal groups in order): an explicit
 * rel_port_id is kept; the others get the smallest identifier not yet taken,
 * in that order. ids[] has one slot per portal group of the whole config.
 * 0, or -EINVAL when the explicit ones collide or 65535 are exhausted. */
int cfg_assign_port_ids(const struct cfg *c, uint16_t *ids, size_t nids);
size_t cfg_count_portal_groups(const struct cfg *c);
/* RFC 7143 4.2.7: iqn./eui./naa. name syntax (lowercase normalized form). */
bool cfg_iscsi_name_valid(const char *name, const char **why);
/* "a.b.c.d:port" or "[v6]:port" (port 1..65535). */
bool cfg_portal_valid(const char *addr, const char **why);
/* The portal of a portal group created without portals (target.create
 * without portal_groups) when the config has no "default_portals". */
#define CFG_DEFAULT_PORTAL "0.0.0.0:3260"
/* A back-store's effective identity: the configured fields, else defaults
 * (serial and NAA derived from the back-store name: stable across restarts).
 * Buffers: vendor[9] product[17] revision[5] serial[33] naa[16]. */
void cfg_default_identity(const struct cfg_backstore *b, char vendor[9], char product[17],
			  char revision[5], char serial[33], uint8_t naa[16]);
int cfg_parse_naa(const char *hex, uint8_t naa[16]);

#endif
