/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_backstore.c: utarget backstore list|show|create|delete|resize|set
 * (RPC backstore.*). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cmd.h"

/* A back-store as a row of the list: the size it has now (an image used
 * at its own size has none in the config), its boolean attributes as
 * flags. */
static json_t *bs_row(json_t *b)
{
	/* one word per boolean attribute that is on */
	static const char *const names[] = {"thin", "read_only", "removable", "create"};
	char flags[64] = "", size[32];
	json_t *row = json_deep_copy(b);

	if (!row)
		return NULL;
	out_bs_size(b, size, sizeof(size));
	json_object_set_new(row, "size", json_string(size));
	/* PATH: the file or device; a gateway's url, a plugin's handler */
	if (!json_object_get(b, "path") && json_object_get(b, "url"))
		json_object_set(row, "path", json_object_get(b, "url"));
	else if (!json_object_get(b, "path") && json_object_get(b, "handler"))
		json_object_set(row, "path", json_object_get(b, "handler"));
	for (size_t k = 0; k < ARRAY_SIZE(names); k++)
		if (json_is_true(json_object_get(b, names[k])))
			snprintf(flags + strlen(flags), sizeof(flags) - strlen(flags), "%s%s",
				 flags[0] ? "," : "", names[k]);
	if (json_is_false(json_object_get(b, "write_cache")))
		snprintf(flags + strlen(flags), sizeof(flags) - strlen(flags), "%s%s",
			 flags[0] ? "," : "", "no_write_cache");
	json_object_set_new(row, "flags", json_string(flags[0] ? flags : "-"));
	json_object_set_new(
	    row, "mapped", json_integer((json_int_t)json_array_size(json_object_get(b, "mapped"))));
	return row;
}

static int bs_list(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	static const char *const cols[] = {"name", "type",  "size",  "block_size",
					   "path", "flags", "mapped"};
	static const char *const heads[] = {"NAME", "TYPE",  "SIZE",  "BLOCK",
					    "PATH", "FLAGS", "MAPPED"};

	return cmd_list(c, "backstore.list", NULL, bs_row, cols, heads, ARRAY_SIZE(cols));
}

static int bs_show(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	return cmd_show(c, "backstore.get", json_pack("{s:s}", "name", a->pos[0]));
}

/* The back-store fields a plugin's or an rbd's FIELD=VALUE may set; any
 * other FIELD is a setting of the handler or of the rbd client
 * ("options", strings as written). */
static bool bs_plugin_own_field(const char *arg)
{
	static const char *const own[] = {"block_size", "physical_block_size",
					  "read_only",	"thin",
					  "removable",	"write_cache",
					  "vendor",	"product",
					  "revision",	"serial",
					  "naa",	"pr_max_registrations"};
	size_t n = strcspn(arg, ":=");

	for (size_t i = 0; i < ARRAY_SIZE(own); i++)
		if (strlen(own[i]) == n && strncmp(arg, own[i], n) == 0)
			return true;
	return false;
}

/* The FIELD=VALUE arguments from next on that are not the back-store's
 * own, as its "options". */
static int bs_options(json_t *p, const struct cli_args *a, size_t next)
{
	json_t *opts = json_object();

	for (size_t i = next; i < a->npos && opts; i++) {
		const char *arg = a->pos[i], *eq = strchr(arg, '=');
		char key[128];

		if (!cli_is_field(arg) || bs_plugin_own_field(arg))
			continue;
		if (strncmp(arg, "options.", 8) == 0)
			arg += 8;
		snprintf(key, sizeof(key), "%.*s", (int)strcspn(arg, ":="), arg);
		json_object_set_new(opts, key, json_string(eq + 1));
	}
	if (!opts)
		return CLI_EINTERNAL;
	if (json_object_size(opts))
		json_object_set_new(p, "options", opts);
	else
		json_decref(opts);
	return 0;
}

static int bs_check(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	return cmd_show(c, "backstore.check", json_pack("{s:s}", "name", a->pos[0]));
}

static int bs_create(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	const char *type = a->pos[0], *name = a->pos[1];
	bool file = strcmp(type, "file") == 0;
	bool with_options = strcmp(type, "plugin") == 0 || strcmp(type, "rbd") == 0;
	size_t next = 2;
	json_t *p;
	int rc;

	p = json_pack("{s:s, s:s}", "name", name, "type", type);
	if (!p)
		return CLI_EINTERNAL;
	/* file: PATH [SIZE]; block, sg: DEVICE; iscsi: URL; plugin: HANDLER;
	 * ram, null: SIZE; dedup: STORE SIZE. A file with a size is created when missing (an
	 * existing one is used as it is, grown to SIZE). */
	if (strcmp(type, "dedup") == 0 && next < a->npos && !cli_is_field(a->pos[next])) {
		/* dedup: STORE SIZE */
		json_object_set_new(p, "path", json_string(a->pos[next++]));
		if (next < a->npos && !cli_is_field(a->pos[next])) {
			rc = cmd_size(c, p, "size", a->pos[next++]);
			if (rc) {
				json_decref(p);
				return rc;
			}
		}
	} else if ((file || strcmp(type, "block") == 0 || strcmp(type, "sg") == 0) &&
		   next < a->npos && !cli_is_field(a->pos[next])) {
		json_object_set_new(p, "path", json_string(a->pos[next++]));
		if (file && next < a->npos && !cli_is_field(a->pos[next])) {
			rc = cmd_size(c, p, "size", a->pos[next++]);
			if (rc) {
				json_decref(p);
				return rc;
			}
			json_object_set_new(p, "create", json_true());
		}
	} else if (strcmp(type, "iscsi") == 0 && next < a->npos) {
		json_object_set_new(p, "url", json_string(a->pos[next++]));
	} else if (with_options && next < a->npos && !cli_is_field(a->pos[next])) {
		/* plugin: HANDLER; rbd: POOL[/NAMESPACE]/IMAGE; then the
		 * handler's or the rbd client's settings, then the back-store's
		 * fields */
		json_object_set_new(p, strcmp(type, "rbd") == 0 ? "path" : "handler",
				    json_string(a->pos[next++]));
		rc = bs_options(p, a, next);
		if (rc) {
			json_decref(p);
			return rc;
		}
	} else if (!file && next < a->npos && !cli_is_field(a->pos[next])) {
		rc = cmd_size(c, p, "size", a->pos[next++]);
		if (rc) {
			json_decref(p);
			return rc;
		}
	}
	for (size_t i = next; i < a->npos; i++) {
		json_t *one;

		if (with_options && cli_is_field(a->pos[i]) && !bs_plugin_own_field(a->pos[i]))
			continue; /* an option, above */
		one = json_object();
		rc = one ? cmd_fields(c, one, CLI_K_BACKSTORE,
				      &(struct cli_args){.pos = &a->pos[i], .npos = 1}, 0)
			 : CLI_EINTERNAL;
		if (!rc)
			rc = json_object_update(p, one) ? CLI_EINTERNAL : CLI_OK;
		json_decref(one);
		if (rc) {
			json_decref(p);
			return rc;
		}
	}
	return cmd_change(c, "backstore.create", p, "backstore %s created", name);
}

/* The confirmation says what became of the data: a file's image is kept,
 * a ram back-store's data is gone. */
static int bs_delete(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *res;
	const char *image, *type;
	int rc = cmd_read(c, "backstore.delete", json_pack("{s:s}", "name", a->pos[0]), &res);

	if (rc || !res)
		return rc;
	image = json_string_value(json_object_get(res, "image"));
	type = json_string_value(json_object_get(res, "type")) ?: "";
	if (c->quiet)
		;
	else if (image)
		fprintf(c->out, "backstore %s deleted; its image %s is kept\n", a->pos[0], image);
	else if (strcmp(type, "ram") == 0)
		fprintf(c->out, "backstore %s deleted; its data (in memory) is gone\n", a->pos[0]);
	else
		fprintf(c->out, "backstore %s deleted\n", a->pos[0]);
	json_decref(res);
	return CLI_OK;
}

static int bs_resize(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *p = json_pack("{s:s}", "name", a->pos[0]);
	int rc;

	if (!p)
		return CLI_EINTERNAL;
	rc = cmd_size(c, p, "size", a->pos[1]);
	if (rc) {
		json_decref(p);
		return rc;
	}
	if (a->set[0])
		json_object_set_new(p, "force", json_true());
	return cmd_change(c, "backstore.resize", p, "backstore %s resized to %s", a->pos[0],
			  a->pos[1]);
}

static int bs_set(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	json_t *p = json_pack("{s:s}", "name", a->pos[0]);
	int rc;

	if (!p)
		return CLI_EINTERNAL;
	rc = cmd_fields(c, p, CLI_K_BACKSTORE, a, 1);
	if (rc == 0 && a->set[0])
		json_object_set_new(p, "force", json_true());
	if (rc == 0)
		rc = cmd_merge_nested(c, p, "backstore.get", json_pack("{s:s}", "name", a->pos[0]));
	if (rc) {
		json_decref(p);
		return rc;
	}
	return cmd_change(c, "backstore.set", p, "backstore %s changed", a->pos[0]);
}

const struct cli_cmd cli_cmds_backstore[] = {
    {
	.object = "backstore",
	.verb = "list",
	.alias = "ls",
	.usage = "",
	.summary = "list the back-stores",
	.max_pos = 0,
	.read = true,
	.run = bs_list,
    },
    {
	.object = "backstore",
	.verb = "show",
	.alias = "get",
	.usage = "NAME",
	.summary = "one back-store: attributes, identity, where it is mapped",
	.min_pos = 1,
	.max_pos = 1,
	.read = true,
	.run = bs_show,
    },
    {
	.object = "backstore",
	.verb = "create",
	.alias = "add",
	.usage = "TYPE NAME [PATH|DEVICE|URL|HANDLER|POOL/IMAGE|STORE] [SIZE] [FIELD=VALUE...]",
	.summary = "create a back-store (file, block, ram, null, iscsi, plugin, rbd, dedup, sg) "
		   "and its logical unit",
	.help = "  file NAME PATH [SIZE]  a regular file or block device; with SIZE the file\n"
		"                         is created (sparse) when missing\n"
		"  block NAME DEVICE      a block device, O_DIRECT, with its own block size\n"
		"  ram NAME SIZE          in memory, lost when utargetd stops\n"
		"  null NAME SIZE         reads zeroes, discards writes\n"
		"  iscsi NAME URL         a LUN of another iSCSI target (a gateway):\n"
		"                         iscsi://[user[%secret]@]host[:port]/IQN/LUN\n"
		"  plugin NAME HANDLER [KEY=VALUE...]  a handler loaded from plugin_dir;\n"
		"                         KEYs other than the FIELDs below are its settings\n"
		"  rbd NAME POOL[/NAMESPACE]/IMAGE [conf=PATH] [id=CLIENT] [keyring=PATH]\n"
		"                         [timeout=SECONDS]  a Ceph RBD image (librbd)\n"
		"  dedup NAME STORE SIZE  a volume of the deduplicating chunk store in the\n"
		"                         directory STORE (made when missing), which every\n"
		"                         dedup back-store of that STORE shares\n"
		"  sg NAME DEVICE         a SCSI disk (/dev/sgN, /dev/sdX) whose commands\n"
		"                         pass through; reservations, REPORT LUNS and the\n"
		"                         identifiers stay utarget's\n"
		"SIZE: bytes or a number with K, M, G or T (powers of 1024).\n"
		"FIELDs: block_size, physical_block_size, thin, read_only, removable,\n"
		"write_cache, vendor, product, revision, serial, naa (utarget.json(5)).\n"
		"Example: utarget backstore create file disk1 /srv/disk1.img 10G thin=true",
	.min_pos = 2,
	.max_pos = CLI_ANY,
	.run = bs_create,
    },
    {
	.object = "backstore",
	.verb = "check",
	.alias = "fsck",
	.usage = "NAME",
	.summary = "check a back-store's medium for consistency (a dedup store's fsck)",
	.help = "A dedup store: every map points at a stored chunk (missing), every\n"
		"stored chunk hashes to its SHA-256 (corrupt), no allocated chunk is\n"
		"unreferenced (leaked), kept reference counts match a recount\n"
		"(ref_mismatch). Writers of the store wait while it runs.",
	.min_pos = 1,
	.max_pos = 1,
	.read = true,
	.run = bs_check,
    },
    {
	.object = "backstore",
	.verb = "delete",
	.alias = "rm",
	.usage = "NAME",
	.summary = "delete a back-store that no LUN maps (a file's image is kept)",
	.min_pos = 1,
	.max_pos = 1,
	.run = bs_delete,
    },
    {
	.object = "backstore",
	.verb = "resize",
	.usage = "NAME SIZE",
	.summary = "change a back-store's size live (initiators are told)",
	.opts = {{.name = "force", .short_name = 'f', .help = "allow shrinking"}},
	.min_pos = 2,
	.max_pos = 2,
	.run = bs_resize,
    },
    {
	.object = "backstore",
	.verb = "set",
	.usage = "NAME FIELD=VALUE...",
	.summary = "change back-store attributes (VALUE null restores the default)",
	.help = "A change other than size re-opens the logical unit: initiators see a new\n"
		"LU (POWER ON unit attention); a ram back-store loses its contents.",
	.opts = {{.name = "force", .short_name = 'f', .help = "allow a smaller size"}},
	.min_pos = 2,
	.max_pos = CLI_ANY,
	.run = bs_set,
    },
    {0},
};
