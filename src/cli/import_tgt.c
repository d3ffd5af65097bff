/* SPDX-License-Identifier: GPL-2.0-or-later */
/* import_tgt.c: tgt's targets.conf (tgt-admin, targets.conf(5)) -> a utarget
 * config document, with a report of what does not carry over.
 *
 * Mapping (tgt-admin's behaviour is the reference, not only the manual):
 *   <target NAME>            target NAME (blocks of the same name merge, as
 *                            with MergeDuplicateBlocks); portal group 1 on
 *                            imp_opts.portals (tgtd listens on every address,
 *                            port 3260, by default)
 *   backing-store PATH       a "file" back-store over PATH (regular file or
 *   direct-store PATH        block device) and a LUN; direct-store's identity
 *                            read with sg_inq is not carried over (reported)
 *   lun N                    the LUN number; without it tgt-admin's numbering:
 *                            backing-stores before direct-stores, each in path
 *                            order, the lowest free number from 1 (LUN 0 is
 *                            tgt's controller, which utarget does not export)
 *   write-cache on|off       write_cache
 *   vendor_id, product_id,   vendor, product, revision (cut to 8/16/4
 *   product_rev              characters, as tgt sends them in INQUIRY)
 *   scsi_sn                  serial
 *   readonly, removable      read_only, removable
 *   block-size, lbppbe       block_size, physical_block_size
 *   bs-type rdwr|aio|mmap    a file back-store (I/O method is utarget's own);
 *   bs-type null             a "null" back-store of 1T (tgt's null size)
 *   bs-type sg               an "sg" back-store over the backing-store device
 *                            (/dev/sgN or /dev/sdX; with device-type pt, tgt's
 *                            pass-through, the only device-type besides disk
 *                            that is imported)
 *   bs-type rbd              an "rbd" back-store over [POOL/]IMAGE (tgt's
 *                            default pool: rbd); a snapshot (@SNAP) is not
 *                            imported. Its bsopts conf=PATH;id=CLIENT
 *                            become the options conf and id
 *   params k=v,...           each known k as the directive k
 *   initiator-name N         an ACL for N
 *   initiator-address A      access by address (see imp_access in import.c)
 *   incominguser U P         CHAP credentials of the target
 *   outgoinguser U P         mutual CHAP (the target's own credentials)
 *   no initiator-address     tgt-admin binds "ALL": any initiator may log
 *                            in, read-write -> demo_mode enabled (reported)
 *   iSCSI parameters         the global "iscsi" section (utarget's settings
 *                            are global: applied to every target, reported)
 * Everything else is reported by name (IMP_DROPPED) with the reason.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/import.h"
#include "cli/tgt_conf.h"

#define TGT_MAX_LUNS 16384 /* utarget's LUN space (CFG_MAX_LUN + 1) */

struct tgt_ctx {
	struct imp_result *r;
	const struct imp_opts *o;
	json_t *iscsi_where; /* per "iscsi" field: where it was set first */
	json_t *paths;	     /* back-store path -> {name, where} of its first use */
};

/* One LUN of a target: a backing-store or direct-store. */
struct tgt_store {
	const struct tgt_node *node; /* the option or the block */
	bool direct;
	long lun; /* -1: not yet assigned */
	bool explicit_lun;
};

static void tgt_where(const struct tgt_node *n, const char *target, char *buf, size_t size)
{
	if (target)
		snprintf(buf, size, "%s:%d: <target %s>", n->file, n->line, target);
	else
		snprintf(buf, size, "%s:%d", n->file, n->line);
}

static bool tgt_bool(const char *v, bool *out)
{
	static const char *const yes[] = {"1", "yes", "on", "true"};
	static const char *const no[] = {"0", "no", "off", "false"};

	for (size_t i = 0; v && i < ARRAY_SIZE(yes); i++) {
		if (strcasecmp(v, yes[i]) == 0) {
			*out = true;
			return true;
		}
		if (strcasecmp(v, no[i]) == 0) {
			*out = false;
			return true;
		}
	}
	return false;
}

static bool tgt_uint(const char *v, unsigned long max, unsigned long *out)
{
	char *end;

	if (!v || v[0] < '0' || v[0] > '9')
		return false;
	errno = 0;
	*out = strtoul(v, &end, 0);
	return errno == 0 && *end == '\0' && *out <= max;
}

static const char *tgt_val(const struct tgt_node *n)
{
	return n->value ? n->value : "";
}

/* ---- LUN-level directives ---- */
/* The values a LUN's back-store collects before it is named. */
struct tgt_lu {
	json_t *bs; /* the back-store object being built */
	unsigned long block_size;
	long lbppbe;  /* -1: not given */
	bool dropped; /* the whole LUN does not carry over */
	bool pt;      /* device-type pt: tgt's pass-through (with bs-type sg) */
};

enum tgt_lkey {
	TGT_L_WRITE_CACHE,
	TGT_L_VENDOR,
	TGT_L_PRODUCT,
	TGT_L_REVISION,
	TGT_L_SERIAL,
	TGT_L_SCSI_ID,
	TGT_L_READONLY,
	TGT_L_REMOVABLE,
	TGT_L_ONLINE,
	TGT_L_SENSE_FORMAT,
	TGT_L_DEVICE_TYPE,
	TGT_L_BS_TYPE,
	TGT_L_BSOPTS,
	TGT_L_BSOFLAGS,
	TGT_L_BLOCK_SIZE,
	TGT_L_LBPPBE,
	TGT_L_LA_LBA,
	TGT_L_XFER_GRAN,
	TGT_L_XFER_LEN,
	TGT_L_MODE_PAGE,
	TGT_L_PATH,
	TGT_L_PARAMS,
	TGT_L_ALLOW_IN_USE,
	TGT_L_LUN,
};

struct tgt_lopt {
	const char *key;
	enum tgt_lkey id;
	bool target_level; /* tgt-admin takes it from the target level too */
	bool repeat;	   /* may appear several times (each applies) */
};

static const struct tgt_lopt tgt_lopts[] = {
    {.key = "write-cache", .id = TGT_L_WRITE_CACHE, .target_level = true},
    {.key = "vendor_id", .id = TGT_L_VENDOR, .target_level = true},
    {.key = "product_id", .id = TGT_L_PRODUCT, .target_level = true},
    {.key = "product_rev", .id = TGT_L_REVISION, .target_level = true},
    {.key = "scsi_sn", .id = TGT_L_SERIAL, .target_level = true},
    {.key = "scsi_id", .id = TGT_L_SCSI_ID, .target_level = true},
    {.key = "readonly", .id = TGT_L_READONLY, .target_level = true},
    {.key = "removable", .id = TGT_L_REMOVABLE, .target_level = true},
    {.key = "online", .id = TGT_L_ONLINE, .target_level = true},
    {.key = "sense_format", .id = TGT_L_SENSE_FORMAT, .target_level = true},
    {.key = "device-type", .id = TGT_L_DEVICE_TYPE, .target_level = true},
    {.key = "bs-type", .id = TGT_L_BS_TYPE, .target_level = true},
    {.key = "bsopts", .id = TGT_L_BSOPTS, .target_level = true},
    {.key = "bsoflags", .id = TGT_L_BSOFLAGS, .target_level = true},
    {.key = "block-size", .id = TGT_L_BLOCK_SIZE, .target_level = false},
    {.key = "lbppbe", .id = TGT_L_LBPPBE, .target_level = true},
    {.key = "la_lba", .id = TGT_L_LA_LBA, .target_level = true},
    {.key = "optimal_xfer_gran", .id = TGT_L_XFER_GRAN, .target_level = true},
    {.key = "optimal_xfer_len", .id = TGT_L_XFER_LEN, .target_level = true},
    {.key = "mode_page", .id = TGT_L_MODE_PAGE, .target_level = true, .repeat = true},
    {.key = "path", .id = TGT_L_PATH, .target_level = true},
    {.key = "params", .id = TGT_L_PARAMS, .target_level = true, .repeat = true},
    {.key = "allow-in-use", .id = TGT_L_ALLOW_IN_USE, .target_level = true},
    {.key = "lun", .id = TGT_L_LUN, .target_level = true},
};

static bool tgt_lu_is_rbd(const struct tgt_lu *lu)
{
	const char *t = json_string_value(json_object_get(lu->bs, "type"));

	return t && strcmp(t, "rbd") == 0;
}

static bool tgt_lu_is_sg(const struct tgt_lu *lu)
{
	const char *t = json_string_value(json_object_get(lu->bs, "type"));

	return t && strcmp(t, "sg") == 0;
}

/* bs-type rbd: the backing-store is tgt's [POOL/]IMAGE[@SNAP] (bs_rbd.c) */
static int tgt_lu_rbd(struct tgt_ctx *x, struct tgt_lu *lu, const char *where)
{
	const char *img = json_string_value(json_object_get(lu->bs, "path"));
	const char *slash = img ? strchr(img, '/') : NULL;
	char spec[512];

	if (!img || !img[0] || img[0] == '/' || strchr(img, '@') ||
	    (slash && (!slash[1] || strchr(slash + 1, '/')))) {
		imp_report(x->r, IMP_DROPPED, where, "bs-type rbd: %s %s; LUN not imported",
			   img ? img : "",
			   img && strchr(img, '@')
			       ? "names a snapshot, which utarget does not export"
			       : "is not [POOL/]IMAGE");
		lu->dropped = true;
		return 0;
	}
	snprintf(spec, sizeof(spec), "%s%s", slash ? "" : "rbd/", img);
	json_object_set_new(lu->bs, "type", json_string("rbd"));
	return json_object_set_new(lu->bs, "path", json_string(spec));
}

/* bsopts of an rbd LUN: "conf=PATH;id=CLIENT" (tgt's bs_rbd keys) */
static int tgt_rbd_bsopts(struct tgt_ctx *x, struct tgt_lu *lu, const char *v, const char *where)
{
	json_t *opts = json_object();
	char buf[1024], *save = NULL;

	if (!opts)
		return -ENOMEM;
	snprintf(buf, sizeof(buf), "%s", v);
	for (char *kv = strtok_r(buf, ";", &save); kv; kv = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(kv, '=');

		if (eq && eq[1] && (strncmp(kv, "conf=", 5) == 0 || strncmp(kv, "id=", 3) == 0)) {
			*eq = '\0';
			json_object_set_new(opts, kv, json_string(eq + 1));
		} else {
			imp_report(x->r, IMP_DROPPED, where,
				   "bsopts %s: utarget's rbd takes conf= and id=", kv);
		}
	}
	if (json_object_size(opts) == 0) {
		json_decref(opts);
		return 0;
	}
	return json_object_set_new(lu->bs, "options", opts);
}

static const struct tgt_lopt *tgt_lopt_find(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(tgt_lopts); i++)
		if (strcmp(tgt_lopts[i].key, key) == 0)
			return &tgt_lopts[i];
	return NULL;
}

/* An identity string cut to max characters, as tgt puts it in INQUIRY. */
static int tgt_identity(struct tgt_ctx *x, struct tgt_lu *lu, const char *field, size_t max,
			const char *key, const char *v, const char *where)
{
	char buf[64];
	size_t n = strlen(v);

	for (size_t i = 0; i < n; i++) {
		if (v[i] < 0x20 || v[i] > 0x7e) {
			imp_report(x->r, IMP_DROPPED, where, "%s: not printable ASCII", key);
			return 0;
		}
	}
	if (n == 0)
		return 0;
	if (n > max) {
		imp_report(x->r, IMP_NOTE, where,
			   "%s \"%s\": cut to %zu characters, as tgt sends it", key, v, max);
		n = max;
	}
	/* trailing blanks are padding in INQUIRY data */
	while (n && v[n - 1] == ' ')
		n--;
	snprintf(buf, sizeof(buf), "%.*s", (int)n, v);
	return json_object_set_new(lu->bs, field, json_string(buf)) ? -ENOMEM : 0;
}

static int tgt_lu_opt(struct tgt_ctx *x, struct tgt_lu *lu, enum tgt_lkey id, const char *key,
		      const char *v, const char *where);

/* params "k=v,k=v": each known LUN directive applies as if written alone. */
static int tgt_lu_params(struct tgt_ctx *x, struct tgt_lu *lu, const char *v, const char *where)
{
	char *copy = strdup(v), *save = NULL;
	int rc = 0;

	if (!copy)
		return -ENOMEM;
	for (char *kv = strtok_r(copy, ",", &save); kv && rc == 0;
	     kv = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(kv, '=');
		const struct tgt_lopt *lo;

		if (!eq) {
			imp_report(x->r, IMP_DROPPED, where, "params %s: not key=value", kv);
			continue;
		}
		*eq = '\0';
		lo = tgt_lopt_find(kv);
		if (!lo || lo->id == TGT_L_PARAMS || lo->id == TGT_L_LUN) {
			imp_report(x->r, IMP_DROPPED, where, "params %s=%s: not supported", kv,
				   eq + 1);
			continue;
		}
		rc = tgt_lu_opt(x, lu, lo->id, kv, eq + 1, where);
	}
	free(copy);
	return rc;
}

static int tgt_lu_opt(struct tgt_ctx *x, struct tgt_lu *lu, enum tgt_lkey id, const char *key,
		      const char *v, const char *where)
{
	unsigned long u;
	bool b;

	switch (id) {
	case TGT_L_WRITE_CACHE:
		if (strcasecmp(v, "on") == 0 || v[0] == '\0')
			return json_object_set_new(lu->bs, "write_cache", json_true());
		if (strcasecmp(v, "off") == 0)
			return json_object_set_new(lu->bs, "write_cache", json_false());
		/* tgt-admin warns and leaves the cache on */
		imp_report(x->r, IMP_NOTE, where, "write-cache %s: not on or off; left on (as tgt)",
			   v);
		return 0;
	case TGT_L_VENDOR:
		return tgt_identity(x, lu, "vendor", CFG_VENDOR_MAX, key, v, where);
	case TGT_L_PRODUCT:
		return tgt_identity(x, lu, "product", CFG_PRODUCT_MAX, key, v, where);
	case TGT_L_REVISION:
		return tgt_identity(x, lu, "revision", CFG_REVISION_MAX, key, v, where);
	case TGT_L_SERIAL:
		if (strlen(v) > CFG_SERIAL_MAX) {
			imp_report(x->r, IMP_DROPPED, where,
				   "scsi_sn %s: longer than utarget's %d characters; the LU gets "
				   "a serial derived from its name",
				   v, CFG_SERIAL_MAX);
			return 0;
		}
		return tgt_identity(x, lu, "serial", CFG_SERIAL_MAX, key, v, where);
	case TGT_L_SCSI_ID:
		imp_report(x->r, IMP_DROPPED, where,
			   "scsi_id %s: utarget identifies an LU by its NAA designator and "
			   "serial (VPD 83h/80h), not by a T10 vendor ID string",
			   v);
		return 0;
	case TGT_L_READONLY:
	case TGT_L_REMOVABLE:
		if (!tgt_bool(v, &b)) {
			imp_report(x->r, IMP_DROPPED, where, "%s %s: not 0 or 1", key, v);
			return 0;
		}
		return json_object_set_new(lu->bs, id == TGT_L_READONLY ? "read_only" : "removable",
					   json_boolean(b));
	case TGT_L_ONLINE:
		if (tgt_bool(v, &b) && b)
			return 0;
		imp_report(x->r, IMP_DROPPED, where,
			   "online %s: an offline LU is not supported (it is exported online)", v);
		return 0;
	case TGT_L_SENSE_FORMAT:
		if (strcmp(v, "0") == 0)
			return 0; /* fixed format: utarget's default too */
		imp_report(x->r, IMP_DROPPED, where,
			   "sense_format %s: utarget returns fixed format sense unless the "
			   "initiator sets D_SENSE in the Control mode page",
			   v);
		return 0;
	case TGT_L_DEVICE_TYPE:
		if (strcasecmp(v, "disk") == 0)
			return 0;
		if (strcasecmp(v, "pt") == 0) {
			lu->pt = true; /* checked with bs-type in tgt_lu_collect() */
			return 0;
		}
		imp_report(x->r, IMP_DROPPED, where,
			   "device-type %s: utarget emulates direct-access block devices only; "
			   "LUN not imported",
			   v);
		lu->dropped = true;
		return 0;
	case TGT_L_BS_TYPE:
		if (strcasecmp(v, "rdwr") == 0 || strcasecmp(v, "aio") == 0 ||
		    strcasecmp(v, "mmap") == 0)
			return 0; /* utarget's file back-store does the I/O its way */
		if (strcasecmp(v, "null") == 0) {
			imp_report(x->r, IMP_NOTE, where,
				   "bs-type null: a \"null\" back-store of 1T (tgt's null size)");
			json_object_set_new(lu->bs, "type", json_string("null"));
			json_object_del(lu->bs, "path");
			return json_object_set_new(lu->bs, "size", json_string("1T"));
		}
		if (strcasecmp(v, "rbd") == 0)
			return tgt_lu_rbd(x, lu, where);
		if (strcasecmp(v, "sg") == 0) {
			/* tgt's bs_sg: the device's commands pass through */
			return json_object_set_new(lu->bs, "type", json_string("sg"));
		}
		imp_report(x->r, IMP_DROPPED, where,
			   "bs-type %s: no such back-store in utarget; LUN not imported", v);
		lu->dropped = true;
		return 0;
	case TGT_L_BSOPTS:
		if (v[0] && tgt_lu_is_rbd(lu))
			return tgt_rbd_bsopts(x, lu, v, where);
		UT_FALLTHROUGH;
	case TGT_L_BSOFLAGS:
	case TGT_L_MODE_PAGE:
	case TGT_L_PATH:
	case TGT_L_XFER_GRAN:
	case TGT_L_XFER_LEN:
		if (v[0] == '\0')
			return 0;
		imp_report(x->r, IMP_DROPPED, where, "%s %s: not supported by utarget", key, v);
		return 0;
	case TGT_L_LA_LBA:
		if (strcmp(v, "0") == 0)
			return 0;
		imp_report(x->r, IMP_DROPPED, where,
			   "la_lba %s: utarget reports lowest aligned LBA 0", v);
		return 0;
	case TGT_L_BLOCK_SIZE:
		if (!tgt_uint(v, 65536, &u) || (u != 512 && u != 1024 && u != 2048 && u != 4096)) {
			imp_report(x->r, IMP_DROPPED, where,
				   "block-size %s: utarget supports 512, 1024, 2048 and 4096; "
				   "LUN not imported",
				   v);
			lu->dropped = true;
			return 0;
		}
		lu->block_size = u;
		return json_object_set_new(lu->bs, "block_size", json_integer((json_int_t)u));
	case TGT_L_LBPPBE:
		if (!tgt_uint(v, 15, &u)) {
			imp_report(x->r, IMP_DROPPED, where, "lbppbe %s: not 0..15", v);
			return 0;
		}
		lu->lbppbe = (long)u;
		return 0;
	case TGT_L_PARAMS:
		return tgt_lu_params(x, lu, v, where);
	case TGT_L_ALLOW_IN_USE:
		imp_report(x->r, IMP_NOTE, where,
			   "allow-in-use %s: utarget does not check whether a device is in use", v);
		return 0;
	case TGT_L_LUN:
		return 0; /* numbering, see tgt_number_luns() */
	}
	return 0;
}

/* The value of a LUN directive for a store: its block's own, else the
 * target's (when tgt-admin reads it there). Repeated directives: all of
 * them, block first. */
static int tgt_lu_collect(struct tgt_ctx *x, struct tgt_lu *lu, const struct tgt_store *s,
			  const struct tgt_node *const *topts, size_t ntopts, const char *target)
{
	char where[512];
	int rc = 0;

	for (size_t k = 0; k < ARRAY_SIZE(tgt_lopts) && rc == 0; k++) {
		const struct tgt_lopt *lo = &tgt_lopts[k];
		bool found = false;

		for (size_t i = 0; s->node->is_block && i < s->node->nkids && rc == 0; i++) {
			const struct tgt_node *n = s->node->kids[i];
			if (n->is_block || strcmp(n->key, lo->key) != 0)
				continue;
			if (found && !lo->repeat) {
				tgt_where(n, target, where, sizeof(where));
				imp_report(x->r, IMP_DROPPED, where,
					   "%s given twice for one LUN: the first applies",
					   lo->key);
				continue;
			}
			found = true;
			tgt_where(n, target, where, sizeof(where));
			rc = tgt_lu_opt(x, lu, lo->id, lo->key, tgt_val(n), where);
		}
		if (found || !lo->target_level)
			continue;
		for (size_t i = 0; i < ntopts && rc == 0; i++) {
			const struct tgt_node *n = topts[i];
			if (strcmp(n->key, lo->key) != 0)
				continue;
			if (found && !lo->repeat)
				continue; /* reported once by the target pass */
			found = true;
			tgt_where(n, target, where, sizeof(where));
			rc = tgt_lu_opt(x, lu, lo->id, lo->key, tgt_val(n), where);
		}
	}
	/* device-type pt is tgt's pass-through, which needs bs-type sg */
	if (rc == 0 && lu->pt && !lu->dropped && !tgt_lu_is_sg(lu)) {
		tgt_where(s->node, target, where, sizeof(where));
		imp_report(x->r, IMP_DROPPED, where,
			   "device-type pt without bs-type sg: utarget passes commands through "
			   "only to an sg back-store; LUN not imported");
		lu->dropped = true;
	}
	/* unknown directives inside the block */
	for (size_t i = 0; s->node->is_block && i < s->node->nkids; i++) {
		const struct tgt_node *n = s->node->kids[i];
		if (!n->is_block && tgt_lopt_find(n->key))
			continue;
		tgt_where(n, target, where, sizeof(where));
		imp_report(x->r, IMP_DROPPED, where, "%s%s%s: unknown in a LUN block",
			   n->is_block ? "<" : "", n->key, n->is_block ? ">" : "");
	}
	return rc;
}

static int tgt_cmp_store(const void *a, const void *b)
{
	const struct tgt_store *x = a, *y = b;

	if (x->direct != y->direct)
		return x->direct ? 1 : -1;
	return strcmp(tgt_val(x->node), tgt_val(y->node));
}

/* tgt-admin's numbering: explicit numbers first (a block's "lun", or the
 * target's "lun", which applies to every store), then the lowest number
 * from 1 that no store holds, in processing order. */
static void tgt_number_luns(struct tgt_store *s, size_t n, long target_lun)
{
	for (size_t i = 0; i < n; i++) {
		s[i].lun = -1;
		for (size_t k = 0; s[i].node->is_block && k < s[i].node->nkids; k++) {
			const struct tgt_node *kn = s[i].node->kids[k];
			unsigned long u;
			if (!kn->is_block && strcmp(kn->key, "lun") == 0 &&
			    tgt_uint(tgt_val(kn), 0xffffffff, &u)) {
				s[i].lun = (long)u;
				s[i].explicit_lun = true;
				break;
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		if (target_lun >= 0) {
			s[i].lun = target_lun;
			s[i].explicit_lun = true;
			continue;
		}
		if (s[i].lun >= 0)
			continue;
		for (long cand = 1;; cand++) {
			bool used = false;
			for (size_t k = 0; k < n && !used; k++)
				used = s[k].lun == cand;
			if (!used) {
				s[i].lun = cand;
				break;
			}
		}
	}
}

/* The back-store of a path: a new one, or the one an earlier target made
 * for the same path (utarget exports one LU per file; tgt made one per
 * target). Returns its name in name. */
static int tgt_backstore(struct tgt_ctx *x, struct tgt_lu *lu, const char *path, const char *where,
			 char *name, size_t size)
{
	json_t *first = json_object_get(x->paths, path);
	char hint[CFG_PATH_MAX + 1];
	const char *slash;

	if (first) {
		json_t *prev =
		    imp_find_backstore(x->r, json_string_value(json_object_get(first, "name")));
		json_t *mine = json_deep_copy(lu->bs);
		bool same;

		snprintf(name, size, "%s", json_string_value(json_object_get(first, "name")));
		if (!mine)
			return -ENOMEM;
		json_object_set_new(mine, "name", json_string(name));
		same = prev && json_equal(prev, mine);
		json_decref(mine);
		if (!same)
			imp_report(x->r, IMP_DROPPED, where,
				   "%s: settings differ from its first use at %s; utarget exports "
				   "one LU per file: the first settings apply",
				   path, json_string_value(json_object_get(first, "where")));
		return 0;
	}
	slash = strrchr(path, '/');
	snprintf(hint, sizeof(hint), "%s", slash && slash[1] ? slash + 1 : path);
	imp_backstore_name(x->r, hint, name, size);
	json_object_set_new(lu->bs, "name", json_string(name));
	first = json_pack("{s:s, s:s}", "name", name, "where", where);
	if (!first || json_object_set_new(x->paths, path, first))
		return -ENOMEM;
	return imp_append(x->r->config, "backstores", json_incref(lu->bs));
}

static int tgt_store(struct tgt_ctx *x, json_t *t, const struct tgt_store *s,
		     const struct tgt_node *const *topts, size_t ntopts, const char *target)
{
	struct tgt_lu lu = {.block_size = 512, .lbppbe = -1};
	char where[512], name[CFG_BS_NAME_MAX + 1];
	const char *path = tgt_val(s->node);
	json_t *lun;
	int rc;

	tgt_where(s->node, target, where, sizeof(where));
	if (!path[0]) {
		imp_report(x->r, IMP_DROPPED, where, "%s without a path",
			   s->direct ? "direct-store" : "backing-store");
		return 0;
	}
	if (s->lun < 0 || s->lun >= TGT_MAX_LUNS) {
		imp_report(x->r, IMP_DROPPED, where, "%s: LUN %ld is outside utarget's 0..%u", path,
			   s->lun, TGT_MAX_LUNS - 1);
		return 0;
	}
	lu.bs = json_pack("{s:s, s:s}", "type", "file", "path", path);
	if (!lu.bs)
		return -ENOMEM;
	rc = tgt_lu_collect(x, &lu, s, topts, ntopts, target);
	if (rc == 0 && lu.lbppbe > 0) {
		unsigned long pbs = lu.block_size << lu.lbppbe;
		if (pbs > (1ul << 27)) {
			imp_report(x->r, IMP_DROPPED, where, "lbppbe %ld: too large", lu.lbppbe);
		} else {
			json_object_set_new(lu.bs, "physical_block_size",
					    json_integer((json_int_t)pbs));
		}
	}
	if (rc == 0 && s->direct && !lu.dropped)
		imp_report(x->r, IMP_NOTE, where,
			   "direct-store %s: imported as a back-store; the device's own identity "
			   "(sg_inq) is not copied unless vendor_id/product_id/product_rev/scsi_sn "
			   "are given",
			   path);
	if (rc || lu.dropped) {
		json_decref(lu.bs);
		return rc;
	}
	rc = tgt_backstore(x, &lu, path, where, name, sizeof(name));
	json_decref(lu.bs);
	if (rc)
		return rc;
	lun = json_pack("{s:I, s:s}", "lun", (json_int_t)s->lun, "backstore", name);
	return imp_append(t, "luns", lun);
}

/* ---- targets ---- */
static bool tgt_is_store(const struct tgt_node *n)
{
	return strcmp(n->key, "backing-store") == 0 || strcmp(n->key, "direct-store") == 0;
}

/* "user password" -> credentials (tgt-admin splits at one blank). */
static bool tgt_userpass(const char *v, struct imp_chap *c, char *buf, size_t size)
{
	const char *sp = strchr(v, ' ');

	if (!sp || sp == v || !sp[1] || strchr(sp + 1, ' '))
		return false;
	snprintf(buf, size, "%s", v);
	buf[sp - v] = '\0';
	c->user = buf;
	c->secret = buf + (sp - v) + 1;
	return true;
}

/* The target's options other than its stores and LUN directives. */
static int tgt_target_opts(struct tgt_ctx *x, json_t *t, const char *name,
			   const struct tgt_node *const *opts, size_t nopts,
			   const struct tgt_node *first)
{
	struct imp_access acc = {0};
	char where[512], bufs[IMP_ACCESS_MAX + 1][IMP_WHERE_MAX];
	size_t nbuf = 0;
	int rc = 0;

	for (size_t i = 0; i < nopts && rc == 0; i++) {
		const struct tgt_node *n = opts[i];
		const char *v = tgt_val(n);

		tgt_where(n, name, where, sizeof(where));
		if (tgt_lopt_find(n->key)) {
			if (strcmp(n->key, "block-size") == 0)
				imp_report(
				    x->r, IMP_NOTE, where,
				    "block-size %s at target level: tgt-admin ignores it there "
				    "(only a <backing-store> block sets it); not applied",
				    v);
			continue; /* applied per LUN */
		}
		if (imp_iscsi_param_known(n->key)) {
			rc = imp_iscsi_param(x->r, x->iscsi_where, n->key, v, where);
		} else if (strcmp(n->key, "driver") == 0) {
			if (strcasecmp(v, "iscsi") != 0)
				imp_report(
				    x->r, IMP_DROPPED, where,
				    "driver %s: utarget serves iSCSI over TCP only; imported as "
				    "iscsi",
				    v);
		} else if (strcmp(n->key, "controller_tid") == 0) {
			imp_report(x->r, IMP_NOTE, where,
				   "controller_tid %s: tgtd's target number has no counterpart", v);
		} else if (strcmp(n->key, "initiator-name") == 0) {
			if (acc.nnames == IMP_ACCESS_MAX) {
				imp_report(x->r, IMP_DROPPED, where, "more than %d initiator-name",
					   IMP_ACCESS_MAX);
				continue;
			}
			acc.names[acc.nnames] = v;
			imp_fmt(acc.names_where[acc.nnames++], sizeof(acc.names_where[0]), "%s",
				where);
		} else if (strcmp(n->key, "initiator-address") == 0) {
			if (strcasecmp(v, "ALL") == 0) {
				acc.any_address = true;
				continue;
			}
			if (acc.naddrs == IMP_ACCESS_MAX) {
				imp_report(x->r, IMP_DROPPED, where,
					   "more than %d initiator-address", IMP_ACCESS_MAX);
				continue;
			}
			acc.addrs[acc.naddrs] = v;
			imp_fmt(acc.addrs_where[acc.naddrs++], sizeof(acc.addrs_where[0]), "%s",
				where);
		} else if (strcmp(n->key, "incominguser") == 0 ||
			   strcmp(n->key, "outgoinguser") == 0) {
			bool out = n->key[0] == 'o';
			struct imp_chap c;
			if (!out)
				acc.nchap_asked++;
			if (nbuf == ARRAY_SIZE(bufs) || (!out && acc.nchap == IMP_ACCESS_MAX)) {
				imp_report(x->r, IMP_DROPPED, where, "too many %s", n->key);
				continue;
			}
			if (!tgt_userpass(v, &c, bufs[nbuf], sizeof(bufs[0]))) {
				imp_report(x->r, IMP_DROPPED, where, "%s: not \"user password\"",
					   n->key);
				continue;
			}
			nbuf++;
			imp_fmt(c.where, sizeof(c.where), "%s", where);
			if (!out) {
				acc.chap[acc.nchap++] = c;
			} else if (acc.has_mutual) {
				/* tgt-admin: "only one outgoinguser is allowed" */
				imp_report(x->r, IMP_DROPPED, where,
					   "outgoinguser %s: a second one (tgt uses the first)",
					   c.user);
			} else {
				acc.mutual = c;
				acc.has_mutual = true;
			}
		} else if (!n->is_block && tgt_is_store(n)) {
			continue;
		} else if (n->is_block && tgt_is_store(n)) {
			continue;
		} else {
			imp_report(x->r, IMP_DROPPED, where, "%s%s%s: unknown target directive",
				   n->is_block ? "<" : "", n->key, n->is_block ? ">" : "");
		}
	}
	if (rc)
		return rc;
	/* tgt-admin binds "ALL" when no initiator-address is given */
	if (acc.naddrs == 0)
		acc.any_address = true;
	tgt_where(first, name, where, sizeof(where));
	return imp_access(x->r, t, where, &acc);
}

/* A target: the options of every <target NAME> block with this name. */
static int tgt_target(struct tgt_ctx *x, const char *raw_name, const struct tgt_node *const *opts,
		      size_t nopts, const struct tgt_node *first)
{
	char name[CFG_ISCSI_NAME_MAX + 1], where[512];
	struct tgt_store *stores = NULL;
	size_t nstores = 0;
	long target_lun = -1;
	const char *why;
	json_t *t, *portals;
	int rc = 0;

	tgt_where(first, raw_name, where, sizeof(where));
	if (strlen(raw_name) > CFG_ISCSI_NAME_MAX) {
		imp_report(x->r, IMP_DROPPED, where,
			   "target name longer than %d bytes: not imported", CFG_ISCSI_NAME_MAX);
		return 0;
	}
	if (!imp_iscsi_name(raw_name, name, sizeof(name), &why)) {
		imp_report(x->r, IMP_DROPPED, where, "target name: %s; not imported", why);
		return 0;
	}
	if (strcmp(name, raw_name) != 0)
		imp_report(x->r, IMP_NOTE, where, "target name written in lowercase: %s", name);
	for (size_t i = 0; i < json_array_size(json_object_get(x->r->config, "targets")); i++) {
		json_t *o = json_array_get(json_object_get(x->r->config, "targets"), i);
		if (strcmp(json_string_value(json_object_get(o, "name")), name) == 0) {
			imp_report(x->r, IMP_DROPPED, where,
				   "target %s: a second target with this name (case-insensitive); "
				   "not imported",
				   raw_name);
			return 0;
		}
	}

	portals = json_array();
	t = json_pack("{s:s, s:[{s:i, s:o}]}", "name", name, "portal_groups", "tag", 1, "portals",
		      portals);
	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < x->o->nportals; i++)
		json_array_append_new(portals, json_string(x->o->portals[i]));
	if (x->o->nportals == 0) {
		json_array_append_new(portals, json_string("0.0.0.0:3260"));
		json_array_append_new(portals, json_string("[::]:3260"));
	}

	stores = calloc(nopts ? nopts : 1, sizeof(*stores));
	if (!stores) {
		json_decref(t);
		return -ENOMEM;
	}
	for (size_t i = 0; i < nopts; i++) {
		const struct tgt_node *n = opts[i];
		unsigned long u;

		if (tgt_is_store(n)) {
			bool dup = false;
			for (size_t k = 0; k < nstores && !dup; k++)
				dup = strcmp(tgt_val(stores[k].node), tgt_val(n)) == 0;
			if (dup) {
				tgt_where(n, name, where, sizeof(where));
				imp_report(x->r, IMP_DROPPED, where,
					   "%s %s: given twice in this target; the first applies",
					   n->key, tgt_val(n));
				continue;
			}
			stores[nstores++] =
			    (struct tgt_store){.node = n, .direct = n->key[0] == 'd'};
		} else if (!n->is_block && strcmp(n->key, "lun") == 0) {
			tgt_where(n, name, where, sizeof(where));
			if (!tgt_uint(tgt_val(n), 0xffffffff, &u))
				imp_report(x->r, IMP_DROPPED, where, "lun %s: not a number",
					   tgt_val(n));
			else
				target_lun = (long)u;
		}
	}
	qsort(stores, nstores, sizeof(*stores), tgt_cmp_store);
	tgt_number_luns(stores, nstores, target_lun);
	for (size_t i = 0; i < nstores && rc == 0; i++) {
		bool clash = false;
		for (size_t k = 0; k < i && !clash; k++)
			clash = stores[k].lun == stores[i].lun;
		if (clash) {
			tgt_where(stores[i].node, name, where, sizeof(where));
			imp_report(x->r, IMP_DROPPED, where,
				   "%s: LUN %ld is already taken in this target; not imported",
				   tgt_val(stores[i].node), stores[i].lun);
			continue;
		}
		rc = tgt_store(x, t, &stores[i], opts, nopts, name);
	}
	free(stores);
	if (rc == 0)
		rc = tgt_target_opts(x, t, name, opts, nopts, first);
	if (rc == 0)
		rc = imp_append(x->r->config, "targets", json_incref(t));
	json_decref(t);
	return rc;
}

static int tgt_global(struct tgt_ctx *x, const struct tgt_node *root)
{
	struct imp_access disc = {0};
	char where[512], bufs[2][IMP_WHERE_MAX];
	int rc = 0;

	for (size_t i = 0; i < root->nkids && rc == 0; i++) {
		const struct tgt_node *n = root->kids[i];
		const char *v = tgt_val(n);

		tgt_where(n, NULL, where, sizeof(where));
		if (n->is_block && strcmp(n->key, "target") == 0)
			continue;
		if (n->is_block) {
			imp_report(x->r, IMP_DROPPED, where, "<%s>: unknown block", n->key);
		} else if (strcmp(n->key, "default-driver") == 0) {
			if (strcasecmp(v, "iscsi") != 0)
				imp_report(x->r, IMP_DROPPED, where,
					   "default-driver %s: utarget serves iSCSI over TCP only; "
					   "targets are imported as iscsi",
					   v);
		} else if (strcmp(n->key, "ignore-errors") == 0 ||
			   strcmp(n->key, "control-port") == 0) {
			imp_report(x->r, IMP_NOTE, where,
				   "%s %s: a tgt-admin option; no counterpart", n->key, v);
		} else if (strncmp(n->key, "iSNS", 4) == 0) {
			if (!(strcmp(n->key, "iSNS") == 0 && strcasecmp(v, "Off") == 0))
				imp_report(x->r, IMP_DROPPED, where,
					   "%s %s: iSNS is not supported by utarget", n->key, v);
		} else if (strcmp(n->key, "incomingdiscoveryuser") == 0 ||
			   strcmp(n->key, "outgoingdiscoveryuser") == 0) {
			bool out = n->key[0] == 'o';
			struct imp_chap c;
			if (!tgt_userpass(v, &c, bufs[out], sizeof(bufs[0]))) {
				imp_report(x->r, IMP_DROPPED, where, "%s: not \"user password\"",
					   n->key);
				continue;
			}
			imp_fmt(c.where, sizeof(c.where), "%s", where);
			if (out && disc.has_mutual) {
				imp_report(x->r, IMP_DROPPED, where, "%s: given twice", n->key);
			} else if (out) {
				disc.mutual = c;
				disc.has_mutual = true;
			} else if (disc.nchap) {
				imp_report(x->r, IMP_DROPPED, where, "%s: given twice", n->key);
			} else {
				disc.chap[disc.nchap++] = c;
			}
		} else {
			imp_report(x->r, IMP_DROPPED, where, "%s: unknown global directive",
				   n->key);
		}
	}
	if (rc == 0 && (disc.nchap || disc.has_mutual))
		rc = imp_discovery_auth(x->r, &disc);
	return rc;
}

int imp_tgt_load(const char *file, const struct imp_opts *o, struct imp_result *r, char *err,
		 size_t errsize)
{
	static const struct imp_opts none;
	struct tgt_ctx x = {.r = r, .o = o ? o : &none};
	struct tgt_conf *conf;
	struct tgt_node *root;
	int rc;

	imp_result_init(r);
	if (!r->config)
		return -ENOMEM;
	rc = tgt_conf_load(file, &conf, err, errsize);
	if (rc)
		return rc;
	root = conf->root;
	x.iscsi_where = json_object();
	x.paths = json_object();
	rc = x.iscsi_where && x.paths ? 0 : -ENOMEM;
	if (rc == 0)
		rc = tgt_global(&x, root);
	/* targets in file order; later blocks of the same name merge into
	 * the first (MergeDuplicateBlocks) */
	for (size_t i = 0; i < root->nkids && rc == 0; i++) {
		const struct tgt_node *b = root->kids[i], **opts;
		size_t nopts = 0, cap = 0;
		bool seen = false;
		char where[512];

		if (!b->is_block || strcmp(b->key, "target") != 0)
			continue;
		if (!b->value) {
			tgt_where(b, NULL, where, sizeof(where));
			imp_report(r, IMP_DROPPED, where, "<target> without a name");
			continue;
		}
		for (size_t k = 0; k < i && !seen; k++)
			seen = root->kids[k]->is_block &&
			       strcmp(root->kids[k]->key, "target") == 0 && root->kids[k]->value &&
			       strcmp(root->kids[k]->value, b->value) == 0;
		if (seen)
			continue;
		for (size_t k = i; k < root->nkids; k++) {
			const struct tgt_node *bk = root->kids[k];
			if (bk->is_block && strcmp(bk->key, "target") == 0 && bk->value &&
			    strcmp(bk->value, b->value) == 0)
				cap += bk->nkids;
		}
		opts = calloc(cap ? cap : 1, sizeof(*opts));
		if (!opts) {
			rc = -ENOMEM;
			break;
		}
		for (size_t k = i; k < root->nkids; k++) {
			const struct tgt_node *bk = root->kids[k];
			if (!bk->is_block || strcmp(bk->key, "target") != 0 || !bk->value ||
			    strcmp(bk->value, b->value) != 0)
				continue;
			for (size_t j = 0; j < bk->nkids; j++)
				opts[nopts++] = bk->kids[j];
		}
		if (nopts == 0) {
			tgt_where(b, b->value, where, sizeof(where));
			imp_report(r, IMP_NOTE, where, "an empty target (no LUN)");
		}
		rc = tgt_target(&x, b->value, opts, nopts, b);
		free(opts);
	}
	if (rc == 0 && !x.o->nportals && json_array_size(json_object_get(r->config, "targets")))
		imp_report(r, IMP_NOTE, file,
			   "tgtd's listener is not in the file: the imported targets listen on "
			   "0.0.0.0:3260 and [::]:3260, every address (--portal chooses)");
	if (rc == 0)
		imp_check_secrets(r);
	json_decref(x.iscsi_where);
	json_decref(x.paths);
	tgt_conf_free(conf);
	if (rc == -ENOMEM)
		snprintf(err, errsize, "%s: out of memory", file);
	return rc;
}
