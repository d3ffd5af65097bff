/* SPDX-License-Identifier: GPL-2.0-or-later */
/* import_lio.c: LIO's saveconfig.json (rtslib-fb, targetcli's saveconfig;
 * saveconfig.json(5)) -> a utarget config document, with a report of what
 * does not carry over.
 *
 * Mapping:
 *   storage_objects[]
 *     plugin fileio     "file" back-store over dev; size (the file is created
 *                       of that size when missing, as LIO does; not for a
 *                       device under /dev); write_back -> write_cache
 *     plugin block      "block" back-store over the device (O_DIRECT, the
 *                       device's size and block size); readonly
 *     plugin ramdisk    "ram" back-store of size; nullio -> "null"
 *     plugin user       tcmu-runner's rbd handler (config
 *                       "rbd/POOL/IMAGE[;osd_op_timeout=N][;conf=PATH]
 *                       [;id=CLIENT]", what ceph-iscsi writes): an "rbd"
 *                       back-store with the options timeout, conf, id; the
 *                       image's size applies. Other TCMU handlers are
 *                       reported, not imported
 *     plugin pscsi      "sg" back-store over dev when it is a /dev path (the
 *                       device's commands pass through; INQUIRY's vendor and
 *                       product are the device's); an H:C:T:L address is
 *                       reported, not imported (with the LUNs over it)
 *     wwn               LIO's unit serial: serial (VPD 80h) when it fits
 *                       utarget's 32 characters, and the NAA designator LIO
 *                       derives from it ("6" + company id 001405 + the first
 *                       25 hex digits of the serial), so initiators and
 *                       multipath see the same LU identity (VPD 83h)
 *     (identity)        vendor "LIO-ORG", product as LIO reports it
 *                       (FILEIO, IBLOCK, RAMDISK-MCP, USER, or the object's
 *                       name with emulate_model_alias), revision "4.0"
 *                       ("2.0" for user)
 *     attributes        block_size, emulate_write_cache, emulate_tpu/_tpws
 *                       (thin); the others where utarget behaves the same,
 *                       else reported (lio_so_attrs[])
 *     alua_tpgs         "port_groups" (import_lio_alua.c)
 *   targets[] (fabric iscsi)
 *     wwn               the target name
 *     tpgs[]            portal groups (tag, portals; disabled ones and
 *                       iSER/offload portals reported); utarget keeps LUNs
 *                       and ACLs per target: they come from the first TPG,
 *                       other TPGs whose LUNs/ACLs/auth differ are reported
 *     tpgs[].luns       the target's LUN map (index -> lun)
 *     tpgs[].node_acls  ACLs; mapped_luns become the initiator's own LUN map
 *                       (index, tpg_lun, write_protect) unless it equals the
 *                       target's map; chap_* credentials
 *     attributes        generate_node_acls -> demo_mode.enabled,
 *                       demo_mode_write_protect -> demo_mode.read_only,
 *                       prod_mode_write_protect -> ACL mappings read-only,
 *                       authentication -> CHAP required; others reported
 *                       unless at LIO's default
 *     parameters        RFC 7143 keys -> the global "iscsi" section when not
 *                       at LIO's default; TargetAlias -> alias
 *   fabric_modules[]    discovery_* CHAP (discovery authentication)
 * Unknown keys anywhere are reported by name. configfs link names ("alias"
 * of LUNs and mapped LUNs) carry no behaviour and are not reported.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/import.h"

#define LIO_WHERE 256

struct lio_ctx {
	struct imp_result *r;
	const struct imp_opts *o;
	json_t *iscsi_where; /* global iscsi fields already set */
	json_t *so_names;    /* "/backstores/<plugin>/<name>" -> utarget name (or null: dropped) */
	json_t *so_alua;     /* same key -> {name, where, groups: alua_tpgs} of imported ones */
	json_t *alua_refs;   /* [{target, tag, port, so, group, where}]: each LUN of a TPG */
};

static const char *lio_str(json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

/* An integer or a numeric string (rtslib writes attributes as ints when they
 * parse, else as strings). */
static bool lio_int(json_t *v, long long *out)
{
	char *end;

	if (json_is_integer(v)) {
		*out = json_integer_value(v);
		return true;
	}
	if (json_is_boolean(v)) {
		*out = json_is_true(v);
		return true;
	}
	if (json_is_string(v) && json_string_value(v)[0]) {
		errno = 0;
		*out = strtoll(json_string_value(v), &end, 0);
		return errno == 0 && *end == '\0';
	}
	return false;
}

/* A JSON scalar as text for the report. */
static void lio_text(json_t *v, char *buf, size_t size)
{
	if (json_is_string(v)) {
		snprintf(buf, size, "%s", json_string_value(v));
	} else {
		char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);
		snprintf(buf, size, "%s", s ? s : "?");
		free(s);
	}
}

/* Keys of o that are not in known[] are reported by name. */
static void lio_unknown_keys(struct lio_ctx *x, json_t *o, const char *const *known,
			     const char *where)
{
	const char *key;
	json_t *v;

	json_object_foreach(o, key, v)
	{
		bool ok = false;
		for (size_t i = 0; known[i] && !ok; i++)
			ok = strcmp(known[i], key) == 0;
		if (!ok)
			imp_report(x->r, IMP_DROPPED, where, "%s: unknown key, not imported", key);
	}
}

/* ---- storage objects ---- */
enum lio_attr_rule {
	LIO_A_MAP,     /* handled by the code (block_size, cache, thin, alias) */
	LIO_A_SAME,    /* utarget behaves as `same`; another value is reported */
	LIO_A_DEFAULT, /* a limit or tuning value: utarget advertises its own */
};

struct lio_attr {
	const char *name;
	enum lio_attr_rule rule;
	long long same;
	const char *why; /* LIO_A_SAME: what utarget does instead */
	bool note;	 /* another value is a note: utarget does more, or the
			  * difference does not change what data initiators see */
};

/* LIO's writable storage object attributes (target_core_configfs.c). */
static const struct lio_attr lio_so_attrs[] = {
    {.name = "block_size", .rule = LIO_A_MAP},
    {.name = "emulate_write_cache", .rule = LIO_A_MAP},
    {.name = "emulate_tpu", .rule = LIO_A_MAP},
    {.name = "emulate_tpws", .rule = LIO_A_MAP},
    {.name = "emulate_model_alias", .rule = LIO_A_MAP},
    {.name = "unmap_zeroes_data", .rule = LIO_A_MAP},
    {.name = "emulate_caw",
     .rule = LIO_A_SAME,
     .same = 1,
     .why = "utarget always implements COMPARE AND WRITE",
     .note = true},
    {.name = "emulate_3pc",
     .rule = LIO_A_SAME,
     .same = 1,
     .why = "utarget always implements EXTENDED COPY",
     .note = true},
    {.name = "emulate_dpo",
     .rule = LIO_A_SAME,
     .same = 1,
     .why = "utarget accepts DPO (DPOFUA set in MODE SENSE)",
     .note = true},
    {.name = "emulate_fua_write",
     .rule = LIO_A_SAME,
     .same = 1,
     .why = "utarget honours FUA on writes"},
    {.name = "emulate_fua_read",
     .rule = LIO_A_SAME,
     .same = 1,
     .why = "utarget accepts FUA on reads",
     .note = true},
    {.name = "emulate_tas",
     .rule = LIO_A_SAME,
     .same = 0,
     .why = "utarget starts with TAS 0 in the Control mode page (an initiator may set it)",
     .note = true},
    {.name = "emulate_ua_intlck_ctrl",
     .rule = LIO_A_SAME,
     .same = 0,
     .why = "utarget clears unit attentions as SPC-4 says (UA_INTLCK_CTRL 00b)"},
    {.name = "emulate_rest_reord",
     .rule = LIO_A_SAME,
     .same = 0,
     .why = "utarget uses restricted reordering (QUEUE ALGORITHM MODIFIER 0)",
     .note = true},
    {.name = "emulate_pr",
     .rule = LIO_A_SAME,
     .same = 1,
     .why = "utarget answers PERSISTENT RESERVE commands",
     .note = true},
    {.name = "enforce_pr_isids",
     .rule = LIO_A_SAME,
     .same = 1,
     .why = "utarget tells initiator ports apart by ISID"},
    {.name = "force_pr_aptpl",
     .rule = LIO_A_SAME,
     .same = 0,
     .why = "utarget keeps reservations across restarts only when APTPL asks"},
    {.name = "is_nonrot",
     .rule = LIO_A_SAME,
     .same = 1,
     .why = "utarget reports a non-rotating medium (VPD B1h)",
     .note = true},
    {.name = "emulate_rsoc",
     .rule = LIO_A_SAME,
     .same = 1,
     .why = "utarget always answers REPORT SUPPORTED OPERATION CODES",
     .note = true},
    {.name = "pi_prot_type",
     .rule = LIO_A_SAME,
     .same = 0,
     .why = "protection information is not supported"},
    {.name = "pi_prot_format",
     .rule = LIO_A_SAME,
     .same = 0,
     .why = "protection information is not supported"},
    {.name = "pi_prot_verify",
     .rule = LIO_A_SAME,
     .same = 0,
     .why = "protection information is not supported"},
    {.name = "max_unmap_lba_count", .rule = LIO_A_DEFAULT},
    {.name = "max_unmap_block_desc_count", .rule = LIO_A_DEFAULT},
    {.name = "unmap_granularity", .rule = LIO_A_DEFAULT},
    {.name = "unmap_granularity_alignment", .rule = LIO_A_DEFAULT},
    {.name = "max_write_same_len", .rule = LIO_A_DEFAULT},
    {.name = "optimal_sectors", .rule = LIO_A_DEFAULT},
    {.name = "queue_depth", .rule = LIO_A_DEFAULT},
    {.name = "hw_max_sectors", .rule = LIO_A_DEFAULT},
    {.name = "hw_queue_depth", .rule = LIO_A_DEFAULT},
    {.name = "hw_block_size", .rule = LIO_A_DEFAULT},
    {.name = "hw_pi_prot_type", .rule = LIO_A_DEFAULT},
    {.name = "alua_support", .rule = LIO_A_DEFAULT},
    {.name = "pgr_support", .rule = LIO_A_DEFAULT},
    {.name = "submit_type", .rule = LIO_A_DEFAULT},
    {.name = "complete_type", .rule = LIO_A_DEFAULT},
};

static const struct lio_attr *lio_attr_find(const struct lio_attr *t, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(t[i].name, name) == 0)
			return &t[i];
	return NULL;
}

/* Attributes of the LIO_A_SAME/LIO_A_DEFAULT kinds (and unknown ones). The
 * LIO_A_DEFAULT names are summed up in one note. */
static void lio_attrs_rest(struct lio_ctx *x, json_t *attrs, const struct lio_attr *table,
			   size_t ntable, const char *where)
{
	char limits[512] = "";
	size_t used = 0;
	const char *key;
	json_t *v;

	json_object_foreach(attrs, key, v)
	{
		const struct lio_attr *a = lio_attr_find(table, ntable, key);
		char text[64];
		long long n;

		if (!a) {
			lio_text(v, text, sizeof(text));
			imp_report(x->r, IMP_DROPPED, where,
				   "attribute %s=%s: unknown to the importer, not imported", key,
				   text);
			continue;
		}
		if (a->rule == LIO_A_DEFAULT) {
			int k = snprintf(limits + used, sizeof(limits) - used, "%s%s",
					 used ? ", " : "", key);
			if (k > 0 && (size_t)k < sizeof(limits) - used)
				used += (size_t)k;
			continue;
		}
		if (a->rule != LIO_A_SAME)
			continue;
		if (lio_int(v, &n) && n == a->same)
			continue;
		lio_text(v, text, sizeof(text));
		imp_report(x->r, a->note ? IMP_NOTE : IMP_DROPPED, where, "attribute %s=%s: %s",
			   key, text, a->why);
	}
	if (used)
		imp_report(x->r, IMP_NOTE, where,
			   "attributes %s: limits and tuning values; utarget uses its own", limits);
}

/* LIO's NAA designator (spc_gen_naa_6h_vendor_specific): NAA 6h, company
 * id 00-14-05, then the hex digits of the unit serial, others skipped. */
static void lio_naa(const char *serial, char out[CFG_NAA_HEX + 1])
{
	size_t n = 0;

	memcpy(out, "6001405", 7);
	n = 7;
	for (const char *p = serial; *p && n < CFG_NAA_HEX; p++) {
		char c = *p;
		if (c >= 'A' && c <= 'F')
			c = (char)(c - 'A' + 'a');
		if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))
			out[n++] = c;
	}
	while (n < CFG_NAA_HEX)
		out[n++] = '0';
	out[n] = '\0';
}

static bool lio_printable(const char *s)
{
	for (; *s; s++)
		if (*s < 0x20 || *s > 0x7e)
			return false;
	return true;
}

static int lio_identity(struct lio_ctx *x, json_t *bs, const char *plugin, const char *name,
			json_t *so, json_t *attrs, const char *where)
{
	const char *wwn = lio_str(so, "wwn");
	char product[CFG_PRODUCT_MAX + 1], naa[CFG_NAA_HEX + 1];
	long long alias = 0;

	/* INQUIRY as LIO answers it (target_core_*.c inquiry_prod/_rev) */
	if (lio_int(json_object_get(attrs, "emulate_model_alias"), &alias) && alias)
		snprintf(product, sizeof(product), "%.16s", name);
	else
		snprintf(product, sizeof(product), "%s",
			 strcmp(plugin, "fileio") == 0	? "FILEIO"
			 : strcmp(plugin, "block") == 0 ? "IBLOCK"
			 : strcmp(plugin, "user") == 0	? "USER"
							: "RAMDISK-MCP");
	if (!lio_printable(product))
		snprintf(product, sizeof(product), "%s", "FILEIO");
	/* pscsi passes the device's standard INQUIRY data through, as sg does */
	if (strcmp(plugin, "pscsi") != 0 &&
	    (json_object_set_new(bs, "vendor", json_string("LIO-ORG")) ||
	     json_object_set_new(bs, "product", json_string(product)) ||
	     /* target_core_user.c: TCMU_VERSION */
	     json_object_set_new(bs, "revision",
				 json_string(strcmp(plugin, "user") == 0 ? "2.0" : "4.0"))))
		return -ENOMEM;
	if (!wwn || !wwn[0]) {
		imp_report(x->r, IMP_NOTE, where,
			   "no wwn: the LU gets a serial and NAA derived from its name");
		return 0;
	}
	if (!lio_printable(wwn)) {
		imp_report(x->r, IMP_DROPPED, where, "wwn: not printable ASCII");
		return 0;
	}
	lio_naa(wwn, naa);
	if (json_object_set_new(bs, "naa", json_string(naa)))
		return -ENOMEM;
	if (strlen(wwn) <= CFG_SERIAL_MAX)
		return json_object_set_new(bs, "serial", json_string(wwn)) ? -ENOMEM : 0;
	{
		char serial[CFG_SERIAL_MAX + 1];
		size_t n = 0;
		for (const char *p = wwn; *p && n < CFG_SERIAL_MAX; p++)
			if (*p != '-')
				serial[n++] = *p;
		serial[n] = '\0';
		imp_report(x->r, IMP_NOTE, where,
			   "wwn %s: longer than utarget's %d-character serial; VPD 80h reports "
			   "%s, the NAA designator (VPD 83h) is LIO's own (%s)",
			   wwn, CFG_SERIAL_MAX, serial, naa);
		return json_object_set_new(bs, "serial", json_string(serial)) ? -ENOMEM : 0;
	}
}

/* tcmu-runner's rbd config after "rbd/": POOL/IMAGE[@SNAP][;KEY=VALUE...]
 * (its keys osd_op_timeout, conf, id). NULL when not imported (reported). */
static json_t *lio_user_rbd(struct lio_ctx *x, const char *cfg, const char *bsname,
			    const char *where)
{
	char buf[1024], *save = NULL, *spec;
	json_t *bs, *opts;

	snprintf(buf, sizeof(buf), "%s", cfg);
	spec = strtok_r(buf, ";", &save);
	if (!spec || !strchr(spec, '/') || strchr(spec, '@') || spec[0] == '/') {
		imp_report(x->r, IMP_DROPPED, where,
			   "config rbd/%s: not POOL/IMAGE (a snapshot is not exported by "
			   "utarget); not imported",
			   cfg);
		return NULL;
	}
	opts = json_object();
	bs = json_pack("{s:s, s:s, s:s}", "name", bsname, "type", "rbd", "path", spec);
	for (char *kv = strtok_r(NULL, ";", &save); kv && opts; kv = strtok_r(NULL, ";", &save)) {
		char *eq = strchr(kv, '=');

		if (!eq || !eq[1]) {
			imp_report(x->r, IMP_DROPPED, where, "config %s: not KEY=VALUE", kv);
			continue;
		}
		*eq = '\0';
		if (strcmp(kv, "osd_op_timeout") == 0)
			json_object_set_new(opts, "timeout", json_string(eq + 1));
		else if (strcmp(kv, "conf") == 0 || strcmp(kv, "id") == 0)
			json_object_set_new(opts, kv, json_string(eq + 1));
		else
			imp_report(x->r, IMP_DROPPED, where,
				   "config %s: utarget's rbd takes osd_op_timeout, conf and id",
				   kv);
	}
	if (bs && opts && json_object_size(opts))
		json_object_set_new(bs, "options", json_incref(opts));
	json_decref(opts);
	return bs;
}

static int lio_storage_object(struct lio_ctx *x, json_t *so, size_t idx)
{
	static const char *const known[] = {
	    "name",	"plugin",    "dev",	      "size",	    "write_back",
	    "readonly", "wwn",	     "nullio",	      "attributes", "alua_tpgs",
	    "aio",	"exclusive", "buffered_mode", "config",	    "hw_max_sectors",
	    "control",	NULL,
	};
	const char *name = lio_str(so, "name"), *plugin = lio_str(so, "plugin");
	const char *dev = lio_str(so, "dev");
	char where[LIO_WHERE], key[512], bsname[CFG_BS_NAME_MAX + 1];
	json_t *attrs = json_object_get(so, "attributes"), *bs, *v;
	long long n;
	int rc;

	imp_fmt(where, sizeof(where), "storage_objects[%zu]", idx);
	if (!json_is_object(so) || !name || !plugin) {
		imp_report(x->r, IMP_DROPPED, where, "no name or plugin: not imported");
		return 0;
	}
	imp_fmt(where, sizeof(where), "storage_objects[%zu] (%s/%s)", idx, plugin, name);
	snprintf(key, sizeof(key), "/backstores/%s/%s", plugin, name);
	if (json_object_get(x->so_names, key)) {
		imp_report(x->r, IMP_DROPPED, where, "a second %s named %s: not imported", plugin,
			   name);
		return 0;
	}
	/* until it is imported, LUNs over it are dropped */
	json_object_set_new(x->so_names, key, json_null());
	if ((strcmp(plugin, "pscsi") == 0 && (!dev || strncmp(dev, "/dev/", 5) != 0)) ||
	    (strcmp(plugin, "user") == 0 &&
	     strncmp(lio_str(so, "config") ? lio_str(so, "config") : "", "rbd/", 4) != 0)) {
		imp_report(x->r, IMP_DROPPED, where,
			   "plugin %s: %s is not supported by utarget; not imported (nor the LUNs "
			   "over it)",
			   plugin,
			   plugin[0] == 'p' ? "SCSI pass-through by H:C:T:L (utarget's sg "
					      "back-store takes a /dev/sgN or /dev/sdX path)"
					    : "a TCMU user back-store other than rbd");
		return 0;
	}
	imp_backstore_name(x->r, name, bsname, sizeof(bsname));
	if (strcmp(bsname, name) != 0)
		imp_report(x->r, IMP_NOTE, where, "named %s in utarget (names are global there)",
			   bsname);
	if (strcmp(plugin, "fileio") == 0 || strcmp(plugin, "block") == 0) {
		if (!dev || !dev[0]) {
			imp_report(x->r, IMP_DROPPED, where, "no dev: not imported");
			return 0;
		}
		bs = json_pack("{s:s, s:s, s:s}", "name", bsname, "type",
			       strcmp(plugin, "block") == 0 ? "block" : "file", "path", dev);
	} else if (strcmp(plugin, "pscsi") == 0) {
		/* the device's commands pass through, as in LIO */
		bs = json_pack("{s:s, s:s, s:s}", "name", bsname, "type", "sg", "path", dev);
	} else if (strcmp(plugin, "user") == 0) {
		bs = lio_user_rbd(x, lio_str(so, "config") + 4, bsname, where);
		if (!bs)
			return 0;
	} else if (strcmp(plugin, "ramdisk") == 0 || strcmp(plugin, "rd_mcp") == 0) {
		bool nullio = json_is_true(json_object_get(so, "nullio"));
		bs = json_pack("{s:s, s:s}", "name", bsname, "type", nullio ? "null" : "ram");
		if (bs && !nullio)
			imp_report(x->r, IMP_NOTE, where,
				   "ramdisk: a \"ram\" back-store (it starts empty, as in LIO)");
	} else {
		imp_report(x->r, IMP_DROPPED, where, "plugin %s: unknown; not imported", plugin);
		return 0;
	}
	if (!bs)
		return -ENOMEM;
	v = json_object_get(so, "size");
	if (v && (!lio_int(v, &n) || n <= 0)) {
		imp_report(x->r, IMP_DROPPED, where, "size: not a positive number; not imported");
		json_decref(bs);
		return 0;
	}
	if (v && strcmp(plugin, "user") == 0) {
		imp_report(x->r, IMP_NOTE, where, "size: an rbd back-store has the image's size");
	} else if (v && strcmp(plugin, "block") != 0 && strcmp(plugin, "pscsi") != 0) {
		json_object_set_new(bs, "size", json_integer(n));
		/* LIO creates a missing fileio file of that size; a device
		 * under /dev is never created */
		if (strcmp(plugin, "fileio") == 0 && strncmp(dev, "/dev/", 5) != 0)
			json_object_set_new(bs, "create", json_true());
	} else if (!v && strcmp(plugin, "ramdisk") == 0) {
		imp_report(x->r, IMP_DROPPED, where, "ramdisk without a size: not imported");
		json_decref(bs);
		return 0;
	}
	if ((v = json_object_get(so, "write_back")))
		json_object_set_new(bs, "write_cache", json_boolean(json_is_true(v)));
	if (json_is_true(json_object_get(so, "readonly")))
		json_object_set_new(bs, "read_only", json_true());
	if (json_is_true(json_object_get(so, "aio")))
		imp_report(x->r, IMP_NOTE, where,
			   "aio: utarget's file back-store does its I/O its own way");
	if (json_is_true(json_object_get(so, "exclusive")))
		imp_report(x->r, IMP_NOTE, where,
			   "exclusive: utarget does not open block devices exclusively");
	if (json_object_get(so, "buffered_mode") &&
	    !json_is_true(json_object_get(so, "buffered_mode"))) {
		if (strcmp(plugin, "fileio") == 0 && strncmp(dev, "/dev/", 5) == 0) {
			/* O_DIRECT on a device: the block back-store */
			json_object_set_new(bs, "type", json_string("block"));
			json_object_del(bs, "size");
			json_object_del(bs, "create");
			imp_report(x->r, IMP_NOTE, where,
				   "buffered_mode false over a device: a \"block\" back-store "
				   "(O_DIRECT, the device's size)");
		} else if (strcmp(plugin, "fileio") == 0) {
			imp_report(x->r, IMP_DROPPED, where,
				   "buffered_mode false: a file back-store goes through the page "
				   "cache (only a block device is opened O_DIRECT: type block)");
		}
	}

	/* attributes */
	if (attrs && !json_is_object(attrs)) {
		imp_report(x->r, IMP_DROPPED, where, "attributes: not an object");
		attrs = NULL;
	}
	if (lio_int(json_object_get(attrs, "block_size"), &n)) {
		if (n != 512 && n != 1024 && n != 2048 && n != 4096) {
			imp_report(x->r, IMP_DROPPED, where,
				   "attribute block_size=%lld: utarget supports 512, 1024, 2048 "
				   "and 4096; not imported",
				   n);
			json_decref(bs);
			return 0;
		}
		json_object_set_new(bs, "block_size", json_integer(n));
	}
	if (lio_int(json_object_get(attrs, "emulate_write_cache"), &n))
		json_object_set_new(bs, "write_cache", json_boolean(n));
	{
		long long tpu = 0, tpws = 0, lbprz = 0;
		bool has_tpu = lio_int(json_object_get(attrs, "emulate_tpu"), &tpu);
		bool has_tpws = lio_int(json_object_get(attrs, "emulate_tpws"), &tpws);
		bool has_lbprz = lio_int(json_object_get(attrs, "unmap_zeroes_data"), &lbprz);
		if ((has_tpu || has_tpws) && (tpu || tpws)) {
			json_object_set_new(bs, "thin", json_true());
			if (!(tpu && tpws))
				imp_report(
				    x->r, IMP_NOTE, where,
				    "emulate_tpu=%lld emulate_tpws=%lld: a thin LU in utarget "
				    "takes both UNMAP and WRITE SAME with UNMAP",
				    tpu, tpws);
			if (has_lbprz && !lbprz)
				imp_report(x->r, IMP_NOTE, where,
					   "unmap_zeroes_data=0: utarget's thin LU reads unmapped "
					   "blocks as zeroes and says so (LBPRZ 1)");
		}
	}
	lio_attrs_rest(x, attrs, lio_so_attrs, ARRAY_SIZE(lio_so_attrs), where);

	rc = lio_identity(x, bs, plugin, name, so, attrs, where);
	lio_unknown_keys(x, so, known, where);
	if (rc == 0)
		rc = imp_append(x->r->config, "backstores", json_incref(bs));
	if (rc == 0)
		json_object_set_new(x->so_names, key, json_string(bsname));
	if (rc == 0 && json_is_array(json_object_get(so, "alua_tpgs")))
		rc =
		    json_object_set_new(x->so_alua, key,
					json_pack("{s:s, s:s, s:O}", "name", bsname, "where", where,
						  "groups", json_object_get(so, "alua_tpgs")))
			? -ENOMEM
			: 0;
	json_decref(bs);
	return rc;
}

/* ---- targets ---- */
/* LIO's TPG attributes (iscsi_target_configfs.c) and their defaults. */
static const struct lio_attr lio_tpg_attrs[] = {
    {.name = "authentication", .rule = LIO_A_MAP},
    {.name = "generate_node_acls", .rule = LIO_A_MAP},
    {.name = "demo_mode_write_protect", .rule = LIO_A_MAP},
    {.name = "prod_mode_write_protect", .rule = LIO_A_MAP},
    {.name = "default_cmdsn_depth", .rule = LIO_A_MAP},
    {.name = "login_timeout", .rule = LIO_A_MAP},
    {.name = "default_erl",
     .rule = LIO_A_SAME,
     .same = 0,
     .why = "utarget implements error recovery level 0"},
    {.name = "t10_pi",
     .rule = LIO_A_SAME,
     .same = 0,
     .why = "protection information is not supported"},
    {.name = "fabric_prot_type",
     .rule = LIO_A_SAME,
     .same = 0,
     .why = "protection information is not supported"},
    {.name = "tpg_enabled_sendtargets",
     .rule = LIO_A_SAME,
     .same = 1,
     .why = "utarget lists every portal group in SendTargets"},
    {.name = "demo_mode_discovery", .rule = LIO_A_DEFAULT},
    {.name = "cache_dynamic_acls", .rule = LIO_A_DEFAULT},
    {.name = "netif_timeout", .rule = LIO_A_DEFAULT},
    {.name = "login_keys_workaround", .rule = LIO_A_DEFAULT},
};

/* LIO's node ACL attributes. */
static const struct lio_attr lio_acl_attrs[] = {
    {.name = "nopin_timeout", .rule = LIO_A_MAP},
    {.name = "nopin_response_timeout", .rule = LIO_A_MAP},
    {.name = "default_erl",
     .rule = LIO_A_SAME,
     .same = 0,
     .why = "utarget implements error recovery level 0"},
    {.name = "random_datain_pdu_offsets",
     .rule = LIO_A_SAME,
     .same = 0,
     .why = "utarget sends data in order"},
    {.name = "random_datain_seq_offsets",
     .rule = LIO_A_SAME,
     .same = 0,
     .why = "utarget sends data in order"},
    {.name = "random_r2t_offsets",
     .rule = LIO_A_SAME,
     .same = 0,
     .why = "utarget asks for data in order"},
    {.name = "dataout_timeout", .rule = LIO_A_DEFAULT},
    {.name = "dataout_timeout_retries", .rule = LIO_A_DEFAULT},
};

/* LIO's defaults of the TPG parameters (iscsi_target_parameters.h):
 * a parameter at its default was not chosen by the administrator, so
 * utarget's own default applies to it. */
static const struct {
	const char *key;
	const char *dflt;
	const char *dflt2; /* another spelling of older kernels */
} lio_param_defaults[] = {
    {.key = "AuthMethod", .dflt = "CHAP,None"},
    {.key = "HeaderDigest", .dflt = "CRC32C,None"},
    {.key = "DataDigest", .dflt = "CRC32C,None"},
    {.key = "MaxConnections", .dflt = "1"},
    {.key = "InitialR2T", .dflt = "Yes"},
    {.key = "ImmediateData", .dflt = "Yes"},
    {.key = "MaxRecvDataSegmentLength", .dflt = "8192"},
    {.key = "MaxXmitDataSegmentLength", .dflt = "262144"},
    {.key = "MaxBurstLength", .dflt = "262144"},
    {.key = "FirstBurstLength", .dflt = "65536"},
    {.key = "DefaultTime2Wait", .dflt = "2"},
    {.key = "DefaultTime2Retain", .dflt = "20"},
    {.key = "MaxOutstandingR2T", .dflt = "1"},
    {.key = "DataPDUInOrder", .dflt = "Yes"},
    {.key = "DataSequenceInOrder", .dflt = "Yes"},
    {.key = "ErrorRecoveryLevel", .dflt = "0"},
    {.key = "IFMarker", .dflt = "No"},
    {.key = "OFMarker", .dflt = "No"},
    {.key = "IFMarkInt", .dflt = "Reject", .dflt2 = "2048~65535"},
    {.key = "OFMarkInt", .dflt = "Reject", .dflt2 = "2048~65535"},
    {.key = "RDMAExtensions", .dflt = "No"},
    {.key = "InitiatorRecvDataSegmentLength", .dflt = "262144"},
    {.key = "TargetRecvDataSegmentLength", .dflt = "8192"},
};

static bool lio_param_is_default(const char *key, const char *v)
{
	for (size_t i = 0; i < ARRAY_SIZE(lio_param_defaults); i++)
		if (strcmp(lio_param_defaults[i].key, key) == 0)
			return strcmp(lio_param_defaults[i].dflt, v) == 0 ||
			       (lio_param_defaults[i].dflt2 &&
				strcmp(lio_param_defaults[i].dflt2, v) == 0);
	return false;
}

static long long lio_attr_int(json_t *attrs, const char *name, long long dflt)
{
	long long v;

	return lio_int(json_object_get(attrs, name), &v) ? v : dflt;
}

/* chap_userid (rtslib-fb) or userid (the manual's spelling). */
static const char *lio_cred(json_t *o, const char *what)
{
	char key[64];
	const char *v;

	snprintf(key, sizeof(key), "chap_%s", what);
	v = lio_str(o, key);
	if (!v)
		v = lio_str(o, what);
	return v && v[0] ? v : NULL;
}

/* CHAP credentials of a TPG or node ACL: 0 when none. */
static int lio_creds(json_t *o, const char *where, struct imp_chap *chap, struct imp_chap *mutual,
		     bool *has_mutual)
{
	int n = 0;

	*has_mutual = false;
	if (lio_cred(o, "userid") || lio_cred(o, "password")) {
		*chap = (struct imp_chap){.user = lio_cred(o, "userid"),
					  .secret = lio_cred(o, "password")};
		imp_fmt(chap->where, sizeof(chap->where), "%s", where);
		n = 1;
	}
	if (lio_cred(o, "mutual_userid") || lio_cred(o, "mutual_password")) {
		*mutual = (struct imp_chap){.user = lio_cred(o, "mutual_userid"),
					    .secret = lio_cred(o, "mutual_password")};
		imp_fmt(mutual->where, sizeof(mutual->where), "%s", where);
		*has_mutual = true;
	}
	return n;
}

/* The LUN map of a TPG: index -> back-store. */
static int lio_luns(struct lio_ctx *x, json_t *tpg, json_t *t, const char *twhere)
{
	static const char *const known[] = {"index", "storage_object", "alias",
					    "alua_tg_pt_gp_name", NULL};
	json_t *lun;
	size_t i;

	json_array_foreach(json_object_get(tpg, "luns"), i, lun)
	{
		char where[LIO_WHERE];
		const char *so = lio_str(lun, "storage_object");
		json_t *bs;
		long long idx;

		imp_fmt(where, sizeof(where), "%s.luns[%zu]", twhere, i);
		lio_unknown_keys(x, lun, known, where);
		if (!lio_int(json_object_get(lun, "index"), &idx) || !so) {
			imp_report(x->r, IMP_DROPPED, where, "no index or storage_object");
			continue;
		}
		if (idx < 0 || idx > CFG_MAX_LUN) {
			imp_report(x->r, IMP_DROPPED, where,
				   "LUN %lld: outside utarget's 0..%u; not imported", idx,
				   CFG_MAX_LUN);
			continue;
		}
		bs = json_object_get(x->so_names, so);
		if (!json_is_string(bs)) {
			imp_report(x->r, IMP_DROPPED, where, "LUN %lld: %s %s; not imported", idx,
				   so, bs ? "was not imported" : "does not exist");
			continue;
		}
		if (imp_append(t, "luns",
			       json_pack("{s:I, s:O}", "lun", (json_int_t)idx, "backstore", bs)))
			return -ENOMEM;
	}
	return 0;
}

static json_t *lio_lun_backstore(json_t *t, long long tpg_lun)
{
	json_t *l;
	size_t i;

	json_array_foreach(json_object_get(t, "luns"), i, l)
	{
		if (json_integer_value(json_object_get(l, "lun")) == tpg_lun)
			return json_object_get(l, "backstore");
	}
	return NULL;
}

static int lio_acls(struct lio_ctx *x, json_t *tpg, json_t *t, const char *twhere, bool auth)
{
	static const char *const known[] = {
	    "node_wwn",	   "mapped_luns",   "attributes",	  "tag",
	    "chap_userid", "chap_password", "chap_mutual_userid", "chap_mutual_password",
	    "userid",	   "password",	    "mutual_userid",	  "mutual_password",
	    NULL,
	};
	static const char *const mknown[] = {"index", "tpg_lun", "write_protect", "alias", NULL};
	json_t *attrs = json_object_get(tpg, "attributes"), *acl;
	bool prod_wp = lio_attr_int(attrs, "prod_mode_write_protect", 0) != 0;
	size_t i;
	int rc = 0;

	json_array_foreach(json_object_get(tpg, "node_acls"), i, acl)
	{
		char where[LIO_WHERE], name[CFG_ISCSI_NAME_MAX + 1];
		const char *wwn = lio_str(acl, "node_wwn"), *why;
		struct imp_chap chap, mutual;
		json_t *a, *m, *own, *aattrs = json_object_get(acl, "attributes");
		bool has_mutual, same = true;
		long long v;
		size_t k;

		imp_fmt(where, sizeof(where), "%s.node_acls[%zu]", twhere, i);
		lio_unknown_keys(x, acl, known, where);
		if (!wwn) {
			imp_report(x->r, IMP_DROPPED, where, "no node_wwn; not imported");
			continue;
		}
		imp_fmt(where, sizeof(where), "%s.node_acls[%zu] (%s)", twhere, i, wwn);
		if (!imp_iscsi_name(wwn, name, sizeof(name), &why)) {
			imp_report(x->r, IMP_DROPPED, where, "node_wwn: %s; not imported", why);
			continue;
		}
		if (strcmp(name, wwn) != 0)
			imp_report(x->r, IMP_NOTE, where, "initiator name written in lowercase");
		if (lio_str(acl, "tag"))
			imp_report(x->r, IMP_NOTE, where,
				   "tag %s: ACL groups have no counterpart (each ACL stands alone)",
				   lio_str(acl, "tag"));
		own = json_array();
		if (!own)
			return -ENOMEM;
		json_array_foreach(json_object_get(acl, "mapped_luns"), k, m)
		{
			char mwhere[LIO_WHERE];
			long long idx, tl;
			json_t *bs;
			bool wp = json_is_true(json_object_get(m, "write_protect")) || prod_wp;

			imp_fmt(mwhere, sizeof(mwhere), "%s.mapped_luns[%zu]", where, k);
			lio_unknown_keys(x, m, mknown, mwhere);
			if (!lio_int(json_object_get(m, "index"), &idx) ||
			    !lio_int(json_object_get(m, "tpg_lun"), &tl)) {
				imp_report(x->r, IMP_DROPPED, mwhere, "no index or tpg_lun");
				continue;
			}
			if (idx < 0 || idx > CFG_MAX_LUN) {
				imp_report(x->r, IMP_DROPPED, mwhere,
					   "mapped LUN %lld: outside utarget's 0..%u", idx,
					   CFG_MAX_LUN);
				continue;
			}
			if (!(bs = lio_lun_backstore(t, tl))) {
				imp_report(x->r, IMP_DROPPED, mwhere,
					   "mapped LUN %lld: TPG LUN %lld was not imported", idx,
					   tl);
				continue;
			}
			if (json_array_append_new(own, json_pack("{s:I, s:O, s:b}", "lun",
								 (json_int_t)idx, "backstore", bs,
								 "read_only", wp))) {
				json_decref(own);
				return -ENOMEM;
			}
		}
		/* the target's map, unchanged: the ACL needs no map of its own */
		if (json_array_size(own) != json_array_size(json_object_get(t, "luns")))
			same = false;
		json_array_foreach(own, k, m)
		{
			json_t *bs =
			    lio_lun_backstore(t, json_integer_value(json_object_get(m, "lun")));
			same = same && bs && json_equal(bs, json_object_get(m, "backstore")) &&
			       !json_is_true(json_object_get(m, "read_only"));
		}
		a = json_pack("{s:s}", "initiator", name);
		if (!a) {
			json_decref(own);
			return -ENOMEM;
		}
		if (same)
			json_decref(own);
		else
			json_object_set_new(a, "luns", own);
		/* attributes */
		if (lio_int(json_object_get(aattrs, "nopin_timeout"), &v) && v != 15)
			rc = imp_iscsi_setting(x->r, x->iscsi_where, "nop_in_interval",
					       json_integer(v), where, "nopin_timeout");
		if (rc == 0 && lio_int(json_object_get(aattrs, "nopin_response_timeout"), &v) &&
		    v != 30)
			rc = imp_iscsi_setting(x->r, x->iscsi_where, "nop_in_timeout",
					       json_integer(v), where, "nopin_response_timeout");
		lio_attrs_rest(x, aattrs, lio_acl_attrs, ARRAY_SIZE(lio_acl_attrs), where);
		/* CHAP of this initiator */
		if (rc == 0) {
			int ncred = lio_creds(acl, where, &chap, &mutual, &has_mutual);
			if (auth && ncred)
				rc = imp_chap(x->r, a, true, &chap, lio_cred(acl, "userid") ? 1 : 0,
					      has_mutual ? &mutual : NULL);
			else if (!auth && (ncred || has_mutual))
				imp_report(
				    x->r, IMP_NOTE, where,
				    "CHAP credentials: not enforced by LIO (authentication=0); "
				    "not imported");
			if (rc == 0 && auth && !json_object_get(a, "auth")) {
				/* LIO refuses it; without credentials of its own the
				 * ACL would take the target's, or none: not carried */
				imp_report(
				    x->r, IMP_DROPPED, where,
				    "CHAP is required (authentication=1) but this ACL has no "
				    "usable credentials: LIO refuses the initiator; ACL not "
				    "imported");
				json_decref(a);
				continue;
			}
		}
		if (rc == 0)
			rc = imp_append(t, "acls", a);
		else
			json_decref(a);
		if (rc)
			return rc;
	}
	return 0;
}

/* TPG attributes and parameters (target-wide in utarget). */
static int lio_tpg_settings(struct lio_ctx *x, json_t *tpg, json_t *t, const char *where)
{
	json_t *attrs = json_object_get(tpg, "attributes"), *params, *v;
	char defaults[1024] = "";
	size_t used = 0;
	const char *key;
	long long n;
	int rc = 0;

	if (lio_attr_int(attrs, "generate_node_acls", 0)) {
		bool ro = lio_attr_int(attrs, "demo_mode_write_protect", 1) != 0;
		if (json_object_set_new(t, "demo_mode",
					json_pack("{s:b, s:b}", "enabled", 1, "read_only", ro)))
			return -ENOMEM;
	}
	if (lio_int(json_object_get(attrs, "default_cmdsn_depth"), &n) && n != 64)
		rc = imp_iscsi_setting(x->r, x->iscsi_where, "queue_depth", json_integer(n), where,
				       "default_cmdsn_depth");
	if (rc == 0 && lio_int(json_object_get(attrs, "login_timeout"), &n) && n != 15)
		rc = imp_iscsi_setting(x->r, x->iscsi_where, "login_timeout", json_integer(n),
				       where, "login_timeout");
	if (rc)
		return rc;
	lio_attrs_rest(x, attrs, lio_tpg_attrs, ARRAY_SIZE(lio_tpg_attrs), where);

	params = json_object_get(tpg, "parameters");
	json_object_foreach(params, key, v)
	{
		const char *s = json_string_value(v);
		char text[64];

		if (!s) {
			lio_text(v, text, sizeof(text));
			imp_report(x->r, IMP_DROPPED, where, "parameter %s=%s: not a string", key,
				   text);
			continue;
		}
		if (strcmp(key, "TargetAlias") == 0) {
			if (strlen(s) <= CFG_ALIAS_MAX && lio_printable(s) && s[0])
				rc = json_object_set_new(t, "alias", json_string(s)) ? -ENOMEM : 0;
			else
				imp_report(
				    x->r, IMP_DROPPED, where,
				    "parameter TargetAlias: empty, too long or not printable");
			if (rc)
				return rc;
			continue;
		}
		if (strcmp(key, "AuthMethod") == 0)
			continue; /* see lio_target() */
		if (lio_param_is_default(key, s)) {
			int k = snprintf(defaults + used, sizeof(defaults) - used, "%s%s=%s",
					 used ? ", " : "", key, s);
			if (k > 0 && (size_t)k < sizeof(defaults) - used)
				used += (size_t)k;
			continue;
		}
		if (strcmp(key, "RDMAExtensions") == 0) {
			imp_report(x->r, IMP_DROPPED, where,
				   "parameter RDMAExtensions=%s: iSER is not supported", s);
			continue;
		}
		if (strcmp(key, "InitiatorRecvDataSegmentLength") == 0 ||
		    strcmp(key, "TargetRecvDataSegmentLength") == 0) {
			imp_report(x->r, IMP_NOTE, where,
				   "parameter %s=%s: iSER only, no meaning over TCP", key, s);
			continue;
		}
		if (!imp_iscsi_param_known(key)) {
			imp_report(x->r, IMP_DROPPED, where,
				   "parameter %s=%s: unknown, not imported", key, s);
			continue;
		}
		rc = imp_iscsi_param(x->r, x->iscsi_where, key, s, where);
		if (rc)
			return rc;
	}
	if (used)
		imp_report(x->r, IMP_NOTE, where,
			   "parameters at LIO's defaults (%s): utarget's own defaults apply",
			   defaults);
	return 0;
}

/* A portal group's portals; false when none carries over. */
static int lio_portals(struct lio_ctx *x, json_t *tpg, json_t *g, const char *where)
{
	static const char *const known[] = {"ip_address", "port", "iser", "offload", NULL};
	json_t *p, *arr = json_object_get(g, "portals");
	size_t i;

	json_array_foreach(json_object_get(tpg, "portals"), i, p)
	{
		char pwhere[LIO_WHERE], addr[96], ip[64];
		const char *a = lio_str(p, "ip_address"), *why;
		long long port;

		imp_fmt(pwhere, sizeof(pwhere), "%s.portals[%zu]", where, i);
		lio_unknown_keys(x, p, known, pwhere);
		if (!a || !lio_int(json_object_get(p, "port"), &port)) {
			imp_report(x->r, IMP_DROPPED, pwhere, "no ip_address or port");
			continue;
		}
		if (json_is_true(json_object_get(p, "iser")) ||
		    json_is_true(json_object_get(p, "offload"))) {
			imp_report(x->r, IMP_DROPPED, pwhere,
				   "%s:%lld: iSER and offload portals are not supported", a, port);
			continue;
		}
		snprintf(ip, sizeof(ip), "%s", a);
		if (ip[0] == '[') { /* rtslib keeps IPv6 in brackets */
			size_t n = strlen(ip);
			if (n > 2 && ip[n - 1] == ']') {
				memmove(ip, ip + 1, n - 2);
				ip[n - 2] = '\0';
			}
		}
		if (strchr(ip, ':'))
			snprintf(addr, sizeof(addr), "[%s]:%lld", ip, port);
		else
			snprintf(addr, sizeof(addr), "%s:%lld", ip, port);
		if (!cfg_portal_valid(addr, &why)) {
			imp_report(x->r, IMP_DROPPED, pwhere, "%s: %s", addr, why);
			continue;
		}
		if (json_array_append_new(arr, json_string(addr)))
			return -ENOMEM;
	}
	return 0;
}

/* CHAP is required on this TPG: the authentication attribute with CHAP
 * among the AuthMethod values, or AuthMethod CHAP alone. */
static bool lio_tpg_auth(json_t *tpg)
{
	const char *am = lio_str(json_object_get(tpg, "parameters"), "AuthMethod");
	bool chap = !am || strcasestr(am, "CHAP");

	if (am && strcasecmp(am, "CHAP") == 0)
		return true;
	return chap && lio_attr_int(json_object_get(tpg, "attributes"), "authentication", 0);
}

/* What utarget keeps per target (LUNs, ACLs, demo mode, settings, CHAP),
 * from one TPG. */
static int lio_tpg_content(struct lio_ctx *x, json_t *tpg, json_t *t, const char *where)
{
	bool auth = lio_tpg_auth(tpg), has_mutual;
	struct imp_chap chap, mutual;
	int rc, n;

	rc = lio_luns(x, tpg, t, where);
	if (rc == 0)
		rc = lio_acls(x, tpg, t, where, auth);
	if (rc == 0)
		rc = lio_tpg_settings(x, tpg, t, where);
	if (rc)
		return rc;
	n = lio_creds(tpg, where, &chap, &mutual, &has_mutual);
	if (auth && !n &&
	    json_is_true(json_object_get(json_object_get(t, "demo_mode"), "enabled"))) {
		/* LIO asks demo logins for the TPG's credentials: there are none,
		 * so nobody logs in through demo mode */
		imp_report(x->r, IMP_DROPPED, where,
			   "generate_node_acls with CHAP required (authentication=1) and no TPG "
			   "credentials: LIO admits no demo login; demo mode not imported");
		json_object_del(t, "demo_mode");
	}
	if (!n && !has_mutual)
		return 0;
	if (!auth) {
		imp_report(x->r, IMP_NOTE, where,
			   "TPG CHAP credentials: not enforced by LIO (authentication=0); not "
			   "imported");
		return 0;
	}
	if (!lio_attr_int(json_object_get(tpg, "attributes"), "generate_node_acls", 0))
		imp_report(x->r, IMP_NOTE, where,
			   "TPG CHAP credentials: LIO uses them for demo-mode logins only; "
			   "imported as the target's credentials");
	return imp_chap(x->r, t, false, &chap, (size_t)n, has_mutual ? &mutual : NULL);
}

/* A further TPG: utarget has one LUN map, ACL list and settings per
 * target, so a TPG whose own differ cannot be carried over as such. */
static int lio_tpg_compare(struct lio_ctx *x, json_t *tpg, json_t *t, const char *where)
{
	static const char *const parts[] = {"luns", "acls", "demo_mode", "alias", "auth"};
	struct lio_ctx y = *x;
	struct imp_result scratch;
	json_t *st;
	int rc;

	imp_result_init(&scratch);
	y.r = &scratch;
	y.iscsi_where = json_object();
	st = json_object();
	if (!scratch.config || !y.iscsi_where || !st) {
		imp_result_free(&scratch);
		json_decref(y.iscsi_where);
		json_decref(st);
		return -ENOMEM;
	}
	rc = lio_tpg_content(&y, tpg, st, where);
	for (size_t i = 0; rc == 0 && i < ARRAY_SIZE(parts); i++) {
		json_t *a = json_object_get(t, parts[i]), *b = json_object_get(st, parts[i]);
		if ((a || b) && !(a && b && json_equal(a, b)))
			imp_report(x->r, IMP_DROPPED, where,
				   "%s: differs from the first TPG's; utarget keeps one per target "
				   "(the first TPG's applies)",
				   parts[i]);
	}
	if (rc == 0) {
		json_t *a = json_object_get(x->r->config, "iscsi"),
		       *b = json_object_get(scratch.config, "iscsi");
		const char *key;
		json_t *v;
		json_object_foreach(b, key, v)
		{
			if (!json_equal(json_object_get(a, key), v))
				imp_report(x->r, IMP_DROPPED, where,
					   "iSCSI setting %s: differs from the first TPG's; "
					   "utarget's settings are global",
					   key);
		}
	}
	imp_result_free(&scratch);
	json_decref(y.iscsi_where);
	json_decref(st);
	return rc;
}

static int lio_target(struct lio_ctx *x, json_t *tj, size_t idx)
{
	static const char *const known[] = {"wwn", "fabric", "tpgs", NULL};
	static const char *const tpg_known[] = {
	    "tag",
	    "enable",
	    "luns",
	    "portals",
	    "node_acls",
	    "attributes",
	    "parameters",
	    "chap_userid",
	    "chap_password",
	    "chap_mutual_userid",
	    "chap_mutual_password",
	    "userid",
	    "password",
	    "mutual_userid",
	    "mutual_password",
	    NULL,
	};
	const char *wwn = lio_str(tj, "wwn"), *fabric = lio_str(tj, "fabric"), *why;
	char where[LIO_WHERE], name[CFG_ISCSI_NAME_MAX + 1];
	json_t *t, *tpg, *first = NULL;
	size_t i;
	int rc = 0;

	imp_fmt(where, sizeof(where), "targets[%zu]", idx);
	if (!wwn) {
		imp_report(x->r, IMP_DROPPED, where, "no wwn; not imported");
		return 0;
	}
	imp_fmt(where, sizeof(where), "targets[%zu] (%s)", idx, wwn);
	lio_unknown_keys(x, tj, known, where);
	if (!fabric || strcmp(fabric, "iscsi") != 0) {
		imp_report(x->r, IMP_DROPPED, where,
			   "fabric %s: utarget serves iSCSI only; not imported",
			   fabric ? fabric : "(none)");
		return 0;
	}
	if (!imp_iscsi_name(wwn, name, sizeof(name), &why)) {
		imp_report(x->r, IMP_DROPPED, where, "wwn: %s; not imported", why);
		return 0;
	}
	if (strcmp(name, wwn) != 0)
		imp_report(x->r, IMP_NOTE, where, "target name written in lowercase: %s", name);
	t = json_pack("{s:s, s:[]}", "name", name, "portal_groups");
	if (!t)
		return -ENOMEM;

	json_array_foreach(json_object_get(tj, "tpgs"), i, tpg)
	{
		char gwhere[LIO_WHERE];
		long long tag = (long long)i + 1;
		json_t *g;

		lio_int(json_object_get(tpg, "tag"), &tag);
		imp_fmt(gwhere, sizeof(gwhere), "%s.tpgs[%zu] (tpg%lld)", where, i, tag);
		lio_unknown_keys(x, tpg, tpg_known, gwhere);
		if (json_object_get(tpg, "enable") &&
		    !json_is_true(json_object_get(tpg, "enable"))) {
			imp_report(x->r, IMP_DROPPED, gwhere,
				   "a disabled TPG: utarget has no disabled portal group; not "
				   "imported");
			continue;
		}
		if (tag < 1 || tag > 65535) {
			imp_report(x->r, IMP_DROPPED, gwhere, "tag %lld: outside 1..65535", tag);
			continue;
		}
		g = json_pack("{s:I, s:[]}", "tag", (json_int_t)tag, "portals");
		if (!g) {
			rc = -ENOMEM;
			break;
		}
		rc = lio_portals(x, tpg, g, gwhere);
		if (rc == 0 && json_array_size(json_object_get(g, "portals")) == 0) {
			imp_report(x->r, IMP_DROPPED, gwhere,
				   "no portal: unreachable in LIO, not imported");
			json_decref(g);
			continue;
		}
		if (rc == 0)
			rc = imp_append(t, "portal_groups", g);
		else
			json_decref(g);
		if (rc)
			break;
		if (!first) {
			first = tpg;
			rc = lio_tpg_content(x, tpg, t, gwhere);
		} else {
			rc = lio_tpg_compare(x, tpg, t, gwhere);
		}
		if (rc)
			break;
	}
	/* which ALUA group each LUN of each imported TPG is in */
	json_array_foreach(json_object_get(tj, "tpgs"), i, tpg)
	{
		long long tag = (long long)i + 1, lidx;
		bool imported = false;
		size_t k;
		json_t *g, *lun;

		if (rc)
			break;
		lio_int(json_object_get(tpg, "tag"), &tag);
		json_array_foreach(json_object_get(t, "portal_groups"), k, g)
		{
			imported |= json_integer_value(json_object_get(g, "tag")) == tag;
		}
		if (!imported)
			continue;
		json_array_foreach(json_object_get(tpg, "luns"), k, lun)
		{
			const char *so = lio_str(lun, "storage_object");
			const char *grp = lio_str(lun, "alua_tg_pt_gp_name");
			char port[CFG_ISCSI_NAME_MAX + 16], lwhere[LIO_WHERE];

			if (!so || !json_is_string(json_object_get(x->so_names, so)) ||
			    !lio_int(json_object_get(lun, "index"), &lidx))
				continue;
			snprintf(port, sizeof(port), "%s,%lld", name, tag);
			imp_fmt(lwhere, sizeof(lwhere), "%s.tpgs[%zu] (tpg%lld).luns[%zu]", where,
				i, tag, k);
			if (imp_append(x->alua_refs, "refs",
				       json_pack("{s:s, s:I, s:s, s:s, s:s, s:s}", "target", name,
						 "tag", (json_int_t)tag, "port", port, "so", so,
						 "group", grp ? grp : "default_tg_pt_gp", "where",
						 lwhere)))
				rc = -ENOMEM;
		}
	}
	if (rc == 0 && json_array_size(json_object_get(t, "portal_groups")) == 0)
		imp_report(x->r, IMP_DROPPED, where, "no portal group carries over; not imported");
	else if (rc == 0)
		rc = imp_append(x->r->config, "targets", json_incref(t));
	json_decref(t);
	return rc;
}

static int lio_fabric(struct lio_ctx *x, json_t *fm, size_t idx)
{
	static const char *const known[] = {
	    "name",
	    "discovery_enable_auth",
	    "discovery_userid",
	    "discovery_password",
	    "discovery_mutual_userid",
	    "discovery_mutual_password",
	    "userid",
	    "password",
	    "mutual_userid",
	    "mutual_password",
	    NULL,
	};
	const char *name = lio_str(fm, "name");
	struct imp_access a = {0};
	char where[LIO_WHERE];
	const char *u, *p;

	imp_fmt(where, sizeof(where), "fabric_modules[%zu] (%s)", idx, name ? name : "?");
	lio_unknown_keys(x, fm, known, where);
	if (!name || strcmp(name, "iscsi") != 0) {
		imp_report(x->r, IMP_DROPPED, where, "fabric %s: utarget serves iSCSI only",
			   name ? name : "(none)");
		return 0;
	}
	u = lio_str(fm, "discovery_userid") ? lio_str(fm, "discovery_userid")
					    : lio_str(fm, "userid");
	p = lio_str(fm, "discovery_password") ? lio_str(fm, "discovery_password")
					      : lio_str(fm, "password");
	if (u || p) {
		a.chap[0] = (struct imp_chap){.user = u, .secret = p};
		imp_fmt(a.chap[0].where, sizeof(a.chap[0].where), "%s", where);
		a.nchap = 1;
	}
	u = lio_str(fm, "discovery_mutual_userid") ? lio_str(fm, "discovery_mutual_userid")
						   : lio_str(fm, "mutual_userid");
	p = lio_str(fm, "discovery_mutual_password") ? lio_str(fm, "discovery_mutual_password")
						     : lio_str(fm, "mutual_password");
	if (u || p) {
		a.mutual = (struct imp_chap){.user = u, .secret = p};
		imp_fmt(a.mutual.where, sizeof(a.mutual.where), "%s", where);
		a.has_mutual = true;
	}
	if (!a.nchap && !a.has_mutual)
		return 0;
	if (!json_is_true(json_object_get(fm, "discovery_enable_auth"))) {
		imp_report(x->r, IMP_NOTE, where,
			   "discovery credentials: not enforced by LIO (discovery_enable_auth "
			   "false); not imported");
		return 0;
	}
	return imp_discovery_auth(x->r, &a);
}

int imp_lio_parse(const char *text, size_t len, const char *name, const struct imp_opts *o,
		  struct imp_result *r, char *err, size_t errsize)
{
	static const char *const known[] = {"storage_objects", "targets", "fabric_modules", NULL};
	static const struct imp_opts none;
	struct lio_ctx x = {.r = r, .o = o ? o : &none};
	json_error_t jerr;
	json_t *root, *v;
	size_t i;
	int rc = 0;

	imp_result_init(r);
	if (!r->config)
		return -ENOMEM;
	root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	if (!root) {
		snprintf(err, errsize, "%s:%d: %s", name, jerr.line, jerr.text);
		return -EINVAL;
	}
	if (!json_is_object(root)) {
		snprintf(err, errsize, "%s: not a JSON object (a saveconfig.json is one)", name);
		json_decref(root);
		return -EINVAL;
	}
	x.iscsi_where = json_object();
	x.so_names = json_object();
	x.so_alua = json_object();
	x.alua_refs = json_object();
	if (!x.iscsi_where || !x.so_names || !x.so_alua || !x.alua_refs)
		rc = -ENOMEM;
	if (rc == 0)
		lio_unknown_keys(&x, root, known, "");
	json_array_foreach(json_object_get(root, "storage_objects"), i, v)
	{
		if (rc == 0)
			rc = lio_storage_object(&x, v, i);
	}
	json_array_foreach(json_object_get(root, "fabric_modules"), i, v)
	{
		if (rc == 0)
			rc = lio_fabric(&x, v, i);
	}
	json_array_foreach(json_object_get(root, "targets"), i, v)
	{
		if (rc == 0)
			rc = lio_target(&x, v, i);
	}
	if (rc == 0)
		rc = imp_lio_alua(r, x.so_alua, json_object_get(x.alua_refs, "refs"));
	if (rc == 0)
		imp_check_secrets(r);
	json_decref(x.iscsi_where);
	json_decref(x.so_names);
	json_decref(x.so_alua);
	json_decref(x.alua_refs);
	json_decref(root);
	if (rc == -ENOMEM)
		snprintf(err, errsize, "%s: out of memory", name);
	return rc;
}

int imp_lio_load(const char *file, const struct imp_opts *o, struct imp_result *r, char *err,
		 size_t errsize)
{
	size_t len;
	char *text;
	int rc;

	rc = imp_read_file(file, &text, &len);
	if (rc) {
		imp_result_init(r);
		snprintf(err, errsize, "%s: %s", file,
			 rc == -EFBIG ? "file too large" : strerror(-rc));
		return rc;
	}
	rc = imp_lio_parse(text, len, file, o, r, err, errsize);
	free(text);
	return rc;
}
