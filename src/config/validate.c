/* SPDX-License-Identifier: GPL-2.0-or-later */
/* validate.c: the rules a parsed config must satisfy before anything is
 * applied (docs/config.md, "Rules"). json.c has already checked types,
 * integer ranges and unknown fields; this file checks syntax of names and
 * addresses, cross references and uniqueness. The first violation found, in
 * file order, is reported with the JSON path of the offending field.
 *
 * Also here: the deterministic assignment of relative target port
 * identifiers, and the default identity (serial, NAA) of a logical unit.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/fault.h"
#include "config/index.h"
#include "config/model.h"
#include "lib/compiler.h"
#include "lib/hmap.h"
#include "lib/iname.h"

/* Default identity (SPC-4 6.6.2 standard INQUIRY data; VPD 80h/83h). */
#define CFG_DEFAULT_VENDOR   "UTARGET"
#define CFG_DEFAULT_PRODUCT  "utarget disk"
#define CFG_DEFAULT_REVISION "0.1"
/* IEEE company id in the default NAA 6h designators: 00-14-05, the one the
 * Linux LIO target uses by default. A site that needs its own sets "naa". */
#define CFG_NAA_COMPANY_ID 0x001405u

/* What each back-store type takes (a new type adds a row). */
struct cfg_bs_rule {
	const char *type;
	bool path;	    /* path required (else refused) */
	bool size;	    /* size required */
	bool no_size;	    /* size refused: the medium has its own */
	const char *medium; /* no_size: what has the size */
	bool can_create;
	bool url;	 /* url required (else refused) */
	bool handler;	 /* handler required (else refused) */
	bool options;	 /* takes "options" */
	bool protection; /* can keep protection information */
};

static const struct cfg_bs_rule cfg_bs_rules[] = {
    {.type = "file", .path = true, .can_create = true, .protection = true},
    {.type = "block", .path = true, .no_size = true, .medium = "device"},
    {.type = "ram", .size = true, .protection = true},
    {.type = "null", .size = true},
    {.type = "iscsi", .url = true, .no_size = true, .medium = "remote LUN", .options = true},
    {.type = "plugin", .handler = true, .no_size = true, .medium = "handler", .options = true},
    /* path: POOL[/NAMESPACE]/IMAGE, not a file (cfg_bs_path()) */
    {.type = "rbd", .path = true, .no_size = true, .medium = "image", .options = true},
    /* path: the store's directory, shared by every dedup back-store in it */
    {.type = "dedup", .path = true, .size = true},
    /* path: a SCSI disk whose commands pass through (/dev/sgN, /dev/sdX) */
    {.type = "sg", .path = true, .no_size = true, .medium = "device"},
};

#define cfg_verr(err, path, ...) cfg_err_set(err, -EINVAL, path, __VA_ARGS__)

static bool cfg_is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static bool cfg_all_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!cfg_is_hex(s[i]))
			return false;
	return true;
}

static bool cfg_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* RFC 7143 4.2.7.1-4.2.7.4 and RFC 3722: the normalized (lowercase) ASCII
 * form: "iqn.yyyy-mm.<reversed domain>[:<unique>]", "eui." + 16 hex digits,
 * "naa." + 16 or 32 hex digits; at most 223 bytes. */
bool cfg_iscsi_name_valid(const char *name, const char **why)
{
	size_t len = strlen(name);
	const char *p;

	*why = NULL;
	if (len > CFG_ISCSI_NAME_MAX) {
		*why = "longer than 223 bytes";
		return false;
	}
	if (strncmp(name, "eui.", 4) == 0) {
		if (len != 4 + 16 || !cfg_all_hex(name + 4, 16))
			*why = "an eui. name is \"eui.\" followed by 16 hex digits";
		else if (!iname_is_normalized(name))
			*why = "iSCSI names are lowercase (RFC 3722 normalization): write the hex "
			       "digits in lowercase";
		return *why == NULL;
	}
	if (strncmp(name, "naa.", 4) == 0) {
		if ((len != 4 + 16 && len != 4 + 32) || !cfg_all_hex(name + 4, len - 4))
			*why = "a naa. name is \"naa.\" followed by 16 or 32 hex digits";
		else if (!iname_is_normalized(name))
			*why = "iSCSI names are lowercase (RFC 3722 normalization): write the hex "
			       "digits in lowercase";
		return *why == NULL;
	}
	if (strncmp(name, "iqn.", 4) != 0) {
		*why = "an iSCSI name starts with \"iqn.\", \"eui.\" or \"naa.\"";
		return false;
	}
	for (size_t i = 0; i < len; i++) {
		char c = name[i];
		if (c >= 'A' && c <= 'Z') {
			*why = "iSCSI names are lowercase (RFC 3722 normalization)";
			return false;
		}
		if (!((c >= 'a' && c <= 'z') || cfg_is_digit(c) || c == '-' || c == '.' ||
		      c == ':')) {
			*why = "only a-z, 0-9, '-', '.' and ':' are allowed";
			return false;
		}
	}
	p = name + 4;
	/* yyyy-mm. : the date the naming authority owned the domain */
	if (len < 4 + 8 || !cfg_is_digit(p[0]) || !cfg_is_digit(p[1]) || !cfg_is_digit(p[2]) ||
	    !cfg_is_digit(p[3]) || p[4] != '-' || !cfg_is_digit(p[5]) || !cfg_is_digit(p[6]) ||
	    p[7] != '.' || (p[5] - '0') * 10 + (p[6] - '0') < 1 ||
	    (p[5] - '0') * 10 + (p[6] - '0') > 12) {
		*why = "an iqn. name is \"iqn.yyyy-mm.<reversed domain>[:<string>]\"";
		return false;
	}
	p += 8;
	/* reversed domain name: labels of [a-z0-9-] separated by single dots */
	size_t label = 0;
	for (; *p && *p != ':'; p++) {
		if (*p == '.') {
			if (label == 0)
				break;
			label = 0;
		} else {
			label++;
		}
	}
	if (label == 0) {
		*why = "an iqn. name needs a reversed domain name after the date";
		return false;
	}
	return true;
}

static int cfg_parse_port(const char *s, unsigned *port)
{
	unsigned v = 0;
	size_t n = 0;

	for (; cfg_is_digit(s[n]); n++) {
		v = v * 10 + (unsigned)(s[n] - '0');
		if (n >= 5)
			return -EINVAL;
	}
	if (n == 0 || s[n] != '\0' || v == 0 || v > 65535)
		return -EINVAL;
	*port = v;
	return 0;
}

bool cfg_portal_valid(const char *addr, const char **why)
{
	char host[64];
	const char *colon;
	unsigned port;
	size_t hl;

	*why = NULL;
	if (addr[0] == '[') {
		const char *close = strchr(addr, ']');
		if (!close || close[1] != ':') {
			*why = "an IPv6 portal is \"[address]:port\"";
			return false;
		}
		hl = (size_t)(close - addr - 1);
		colon = close + 1;
		if (hl == 0 || hl >= sizeof(host)) {
			*why = "bad IPv6 address";
			return false;
		}
		memcpy(host, addr + 1, hl);
		host[hl] = '\0';
		struct in6_addr a6;
		if (inet_pton(AF_INET6, host, &a6) != 1) {
			*why = "bad IPv6 address";
			return false;
		}
	} else {
		colon = strrchr(addr, ':');
		if (!colon) {
			*why = "a portal is \"address:port\" (IPv4) or \"[address]:port\" (IPv6)";
			return false;
		}
		hl = (size_t)(colon - addr);
		if (hl == 0 || hl >= sizeof(host)) {
			*why = "bad IPv4 address";
			return false;
		}
		memcpy(host, addr, hl);
		host[hl] = '\0';
		struct in_addr a4;
		if (strchr(host, ':')) {
			*why = "IPv6 addresses go in brackets: \"[address]:port\"";
			return false;
		}
		if (inet_pton(AF_INET, host, &a4) != 1) {
			*why = "bad IPv4 address (dotted quad; host names are not resolved)";
			return false;
		}
	}
	if (cfg_parse_port(colon + 1, &port)) {
		*why = "bad port (1..65535)";
		return false;
	}
	return true;
}

static bool cfg_ascii_printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

/* No control characters (UTF-8 above 0x7f is accepted as is: jansson has
 * validated the encoding). */
static bool cfg_no_controls(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s == 0x7f)
			return false;
	return true;
}

int cfg_parse_naa(const char *hex, uint8_t naa[16])
{
	if (strlen(hex) != CFG_NAA_HEX || !cfg_all_hex(hex, CFG_NAA_HEX) || hex[0] != '6')
		return -EINVAL;
	for (size_t i = 0; i < 16; i++) {
		unsigned v;
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -EINVAL;
		naa[i] = (uint8_t)v;
	}
	return 0;
}

static void cfg_copy_field(char *dst, size_t size, const char *src, const char *def)
{
	snprintf(dst, size, "%s", src ? src : def);
}

void cfg_default_identity(const struct cfg_backstore *b, char vendor[9], char product[17],
			  char revision[5], char serial[33], uint8_t naa[16])
{
	static const char hexd[] = "0123456789abcdef";
	unsigned char h[EVP_MAX_MD_SIZE];
	unsigned int hl = 0;
	char seed[8 + CFG_BS_NAME_MAX + 1];
	int n;

	cfg_copy_field(vendor, 9, b->vendor, CFG_DEFAULT_VENDOR);
	cfg_copy_field(product, 17, b->product, CFG_DEFAULT_PRODUCT);
	cfg_copy_field(revision, 5, b->revision, CFG_DEFAULT_REVISION);

	/* SHA-256("utarget:" + name): the same name always yields the same
	 * serial and NAA, across restarts and rewrites of the file. */
	n = snprintf(seed, sizeof(seed), "utarget:%s", b->name ? b->name : "");
	if (n < 0)
		n = 0;
	if (!EVP_Digest(seed, (size_t)UT_MIN((size_t)n, sizeof(seed) - 1), h, &hl, EVP_sha256(),
			NULL) ||
	    hl < 16)
		memset(h, 0, sizeof(h));

	if (b->serial) {
		cfg_copy_field(serial, 33, b->serial, "");
	} else {
		for (size_t i = 0; i < 16; i++) {
			serial[2 * i] = hexd[h[i] >> 4];
			serial[2 * i + 1] = hexd[h[i] & 15];
		}
		serial[32] = '\0';
	}

	if (b->naa && cfg_parse_naa(b->naa, naa) == 0)
		return;
	/* SPC-4 7.8.6.6.5: NAA 6h | IEEE company id (24 bits) | vendor specific
	 * identifier (36 bits) + extension (64 bits) from the hash. */
	naa[0] = (uint8_t)(0x60 | ((CFG_NAA_COMPANY_ID >> 20) & 0x0f));
	naa[1] = (uint8_t)(CFG_NAA_COMPANY_ID >> 12);
	naa[2] = (uint8_t)(CFG_NAA_COMPANY_ID >> 4);
	naa[3] = (uint8_t)(((CFG_NAA_COMPANY_ID & 0x0f) << 4) | (h[16] & 0x0f));
	memcpy(naa + 4, h + 17, 12);
}

size_t cfg_count_portal_groups(const struct cfg *c)
{
	size_t n = 0;

	for (size_t i = 0; i < c->ntargets; i++)
		n += c->targets[i].ntpgs;
	return n;
}

int cfg_assign_port_ids(const struct cfg *c, uint16_t *ids, size_t nids)
{
	uint8_t *used = calloc(65536, 1);
	uint32_t next = 1;
	size_t k = 0;

	if (!used)
		return -ENOMEM;
	if (nids < cfg_count_portal_groups(c)) {
		free(used);
		return -EINVAL;
	}
	for (size_t i = 0; i < c->ntargets; i++)
		for (size_t j = 0; j < c->targets[i].ntpgs; j++) {
			uint16_t id = c->targets[i].tpgs[j].rel_port_id;
			if (id && used[id]++) {
				free(used);
				return -EINVAL;
			}
		}
	for (size_t i = 0; i < c->ntargets; i++)
		for (size_t j = 0; j < c->targets[i].ntpgs; j++, k++) {
			uint16_t id = c->targets[i].tpgs[j].rel_port_id;
			if (!id) {
				while (next <= 65535 && used[next])
					next++;
				if (next > 65535) {
					free(used);
					return -EINVAL;
				}
				id = (uint16_t)next;
				used[next] = 1;
			}
			ids[k] = id;
		}
	free(used);
	return 0;
}

static const struct cfg_bs_rule *cfg_bs_rule(const char *type)
{
	for (size_t i = 0; i < ARRAY_SIZE(cfg_bs_rules); i++)
		if (strcmp(cfg_bs_rules[i].type, type) == 0)
			return &cfg_bs_rules[i];
	return NULL;
}

int cfg_validate_backstore_one(const struct cfg *c, const struct cfg_backstore *b, size_t i,
			       struct cfg_err *err)
{
	const struct cfg_bs_rule *rule = cfg_bs_rule(b->type);
	uint32_t bsz;
	char p[64];

	for (const char *s = b->name; *s; s++) {
		char ch = *s;
		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || cfg_is_digit(ch) ||
		      ch == '_' || ch == '-' || ch == '.' || ch == ':')) {
			snprintf(p, sizeof(p), "backstores[%zu].name", i);
			return cfg_verr(err, p,
					"only letters, digits, '_', '-', '.' and ':' are "
					"allowed in a back-store name");
		}
	}
	if (!rule) {
		snprintf(p, sizeof(p), "backstores[%zu].type", i);
		return cfg_verr(err, p,
				"unknown back-store type \"%s\" (file, block, ram, null, iscsi, "
				"plugin, rbd, dedup)",
				b->type);
	}
	if (rule->url != (b->url != NULL)) {
		snprintf(p, sizeof(p), "backstores[%zu].url", i);
		return cfg_verr(
		    err, p, rule->url ? "required field missing (type %s)" : "not used by type %s",
		    b->type);
	}
	if (b->url && strncmp(b->url, "iscsi://", 8) != 0) {
		snprintf(p, sizeof(p), "backstores[%zu].url", i);
		return cfg_verr(
		    err, p, "not an iscsi:// URL (iscsi://[user[%%secret]@]host[:port]/IQN/LUN)");
	}
	if (rule->handler != (b->handler != NULL)) {
		snprintf(p, sizeof(p), "backstores[%zu].handler", i);
		return cfg_verr(err, p,
				rule->handler ? "required field missing (type %s)"
					      : "not used by type %s",
				b->type);
	}
	if (b->handler && (strspn(b->handler, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					      "0123456789_.-") != strlen(b->handler) ||
			   b->handler[0] == '.')) {
		snprintf(p, sizeof(p), "backstores[%zu].handler", i);
		return cfg_verr(err, p,
				"a handler is a file name in plugin_dir without \".so\": "
				"A-Z, a-z, 0-9, '_', '.', '-', not starting with '.'");
	}
	if (b->noptions && !rule->options) {
		snprintf(p, sizeof(p), "backstores[%zu].options", i);
		return cfg_verr(err, p, "not used by type %s", b->type);
	}
	if (rule->no_size && b->size) {
		snprintf(p, sizeof(p), "backstores[%zu].size", i);
		return cfg_verr(err, p, "not used by type %s (the size is the %s's)", b->type,
				rule->medium);
	}
	if (rule->path && !b->path) {
		snprintf(p, sizeof(p), "backstores[%zu].path", i);
		return cfg_verr(err, p, "required field missing (type %s)", b->type);
	}
	if (!rule->path && b->path) {
		snprintf(p, sizeof(p), "backstores[%zu].path", i);
		return cfg_verr(err, p, "not used by type %s", b->type);
	}
	if (b->create && !rule->can_create) {
		snprintf(p, sizeof(p), "backstores[%zu].create", i);
		return cfg_verr(err, p, "not used by type %s", b->type);
	}
	if (b->create && b->read_only) {
		snprintf(p, sizeof(p), "backstores[%zu].create", i);
		return cfg_verr(err, p,
				"a read-only back-store is not created (create the file "
				"first, or drop read_only)");
	}
	if ((rule->size || b->create) && !b->size) {
		snprintf(p, sizeof(p), "backstores[%zu].size", i);
		return cfg_verr(err, p, "required field missing (%s)",
				rule->size ? b->type : "create");
	}
	if (b->block_size != 512 && b->block_size != 1024 && b->block_size != 2048 &&
	    b->block_size != 4096 && (b->block_size || (!rule->no_size && !rule->handler))) {
		snprintf(p, sizeof(p), "backstores[%zu].block_size", i);
		return cfg_verr(err, p, "%u is not one of 512, 1024, 2048, 4096", b->block_size);
	}
	/* a medium's own block size is known at open (apply.c checks then) */
	bsz = b->block_size ? b->block_size : 512;
	if (b->physical_block_size && (b->physical_block_size < bsz ||
				       (b->physical_block_size & (b->physical_block_size - 1)) ||
				       b->physical_block_size / bsz > 32768)) {
		snprintf(p, sizeof(p), "backstores[%zu].physical_block_size", i);
		return cfg_verr(
		    err, p,
		    "%u is not a power-of-two multiple of block_size %u (at most 2^15 of them)",
		    b->physical_block_size, bsz);
	}
	if (b->protection && !rule->protection) {
		snprintf(p, sizeof(p), "backstores[%zu].protection", i);
		return cfg_verr(err, p, "protection information needs a file or ram back-store");
	}
	if (b->block_size && b->size % b->block_size) {
		snprintf(p, sizeof(p), "backstores[%zu].size", i);
		return cfg_verr(err, p, "%llu bytes is not a multiple of block_size %u",
				(unsigned long long)b->size, b->block_size);
	}
	if (b->fault) {
		char member[32], msg[CFG_ERR_MSG_MAX];

		if (cfg_fault_validate(b, member, sizeof(member), msg, sizeof(msg))) {
			snprintf(p, sizeof(p), "backstores[%zu].fault.%s", i, member);
			return cfg_verr(err, p, "%s", msg);
		}
	}
	static const struct {
		const char *key;
		size_t off;
	} idf[] = {
	    {.key = "vendor", .off = offsetof(struct cfg_backstore, vendor)},
	    {.key = "product", .off = offsetof(struct cfg_backstore, product)},
	    {.key = "revision", .off = offsetof(struct cfg_backstore, revision)},
	    {.key = "serial", .off = offsetof(struct cfg_backstore, serial)},
	};
	for (size_t k = 0; k < ARRAY_SIZE(idf); k++) {
		const char *v = *(char *const *)(const void *)((const char *)b + idf[k].off);
		if (v && !cfg_ascii_printable(v)) {
			snprintf(p, sizeof(p), "backstores[%zu].%s", i, idf[k].key);
			return cfg_verr(err, p, "only printable ASCII is allowed (SPC-4 4.3.1)");
		}
	}
	if (b->naa) {
		uint8_t naa[16];
		if (cfg_parse_naa(b->naa, naa)) {
			snprintf(p, sizeof(p), "backstores[%zu].naa", i);
			return cfg_verr(err, p,
					"an NAA IEEE Registered Extended designator is 32 hex "
					"digits starting with 6");
		}
	}
	if (b->path) {
		char a[CFG_FULL_PATH_MAX];
		if (cfg_bs_path(c, b, a, sizeof(a))) {
			snprintf(p, sizeof(p), "backstores[%zu].path", i);
			return cfg_verr(err, p, "path too long");
		}
	}
	return 0;
}

/* Back-store i is the first of its name and of its file (ix: first wins). */
static int cfg_validate_backstore_unique(const struct cfg *c, const struct cfg_index *ix, size_t i,
					 struct cfg_err *err)
{
	const struct cfg_backstore *b = &c->bs[i];
	char p[64], a[CFG_FULL_PATH_MAX];
	long j = cfg_ix_bs(ix, b->name);

	if (j >= 0 && (size_t)j != i) {
		snprintf(p, sizeof(p), "backstores[%zu].name", i);
		return cfg_verr(err, p, "duplicate back-store name \"%s\" (also backstores[%ld])",
				b->name, j);
	}
	if (b->path && !cfg_bs_shares_path(b) && cfg_bs_path(c, b, a, sizeof(a)) == 0) {
		j = cfg_ix_path(ix, a);
		if (j >= 0 && (size_t)j != i) {
			snprintf(p, sizeof(p), "backstores[%zu].path", i);
			return cfg_verr(err, p, "the same file as backstores[%ld]", j);
		}
	}
	return 0;
}

/* LUN numbers and back-stores each at most once per map; every back-store
 * exists (ix: the whole config's index). O(n) with a scratch hash map. */
int cfg_validate_luns(const struct cfg *c, const struct cfg_index *ix, const struct cfg_lun_list *l,
		      const char *base, struct cfg_err *err)
{
	struct hmap seen = HMAP_INIT;
	char p[CFG_ERR_PATH_MAX], key[4 + CFG_BS_NAME_MAX + 2];
	int rc = 0;

	for (size_t i = 0; i < l->n && !rc; i++) {
		const struct cfg_lun *lun = &l->v[i];
		size_t blen = strlen(lun->backstore);
		uintptr_t j;

		if (cfg_ix_bs(ix, lun->backstore) < 0) {
			snprintf(p, sizeof(p), "%s[%zu].backstore", base, i);
			rc = cfg_verr(err, p, "no back-store named \"%s\"", lun->backstore);
			break;
		}
		/* 'l' + 4-byte LUN, 'b' + back-store name */
		key[0] = 'l';
		memcpy(key + 1, &lun->lun, sizeof(lun->lun));
		if (hmap_get(&seen, key, 1 + sizeof(lun->lun), &j)) {
			snprintf(p, sizeof(p), "%s[%zu].lun", base, i);
			rc = cfg_verr(err, p, "LUN %u is already mapped (%s[%zu])", lun->lun, base,
				      (size_t)j);
			break;
		}
		if (blen > CFG_BS_NAME_MAX)
			blen = CFG_BS_NAME_MAX + 1;
		key[sizeof(lun->lun) + 1] = 'b';
		memcpy(key + sizeof(lun->lun) + 2, lun->backstore, blen);
		if (hmap_get(&seen, key + sizeof(lun->lun) + 1, 1 + blen, &j)) {
			snprintf(p, sizeof(p), "%s[%zu].backstore", base, i);
			rc = cfg_verr(err, p, "back-store \"%s\" is already mapped at LUN %u",
				      lun->backstore, l->v[j].lun);
			break;
		}
		if (hmap_put(&seen, key, 1 + sizeof(lun->lun), i) ||
		    hmap_put(&seen, key + sizeof(lun->lun) + 1, 1 + blen, i)) {
			cfg_verr(err, base, "out of memory");
			rc = -ENOMEM;
		}
	}
	hmap_clear(&seen);
	return rc;
}

int cfg_validate_tpg_one(const struct cfg_portal_group *pg, const char *base, struct cfg_err *err)
{
	char p[CFG_ERR_PATH_MAX];
	const char *why;

	if (pg->nportals == 0) {
		snprintf(p, sizeof(p), "%s.portals", base);
		return cfg_verr(err, p, "a portal group needs at least one portal");
	}
	for (size_t k = 0; k < pg->nportals; k++) {
		snprintf(p, sizeof(p), "%s.portals[%zu]", base, k);
		if (!cfg_portal_valid(pg->portals[k], &why))
			return cfg_verr(err, p, "bad portal \"%s\": %s", pg->portals[k], why);
		for (size_t j = 0; j < k; j++)
			if (strcmp(pg->portals[j], pg->portals[k]) == 0)
				return cfg_verr(err, p, "duplicate portal \"%s\"", pg->portals[k]);
	}
	return 0;
}

int cfg_validate_acl_one(const struct cfg *c, const struct cfg_index *ix, const struct cfg_acl *acl,
			 const char *base, struct cfg_err *err)
{
	char p[CFG_ERR_PATH_MAX];
	const char *why;
	int rc;

	if (acl->initiator && !cfg_iscsi_name_valid(acl->initiator, &why)) {
		snprintf(p, sizeof(p), "%s.initiator", base);
		return cfg_verr(err, p, "bad iSCSI name \"%s\": %s", acl->initiator, why);
	}
	if (acl->has_luns) {
		snprintf(p, sizeof(p), "%s.luns", base);
		rc = cfg_validate_luns(c, ix, &acl->luns, p, err);
		if (rc)
			return rc;
	}
	return cfg_auth_validate_acl(acl, base, err); /* addresses, auth */
}

int cfg_validate_target_one(const struct cfg *c, const struct cfg_index *ix,
			    const struct cfg_target *t, size_t ti, struct cfg_err *err)
{
	char p[CFG_ERR_PATH_MAX];
	struct hmap seen = HMAP_INIT;
	const char *why;
	int rc = 0;

	if (!cfg_iscsi_name_valid(t->name, &why)) {
		snprintf(p, sizeof(p), "targets[%zu].name", ti);
		return cfg_verr(err, p, "bad iSCSI name \"%s\": %s", t->name, why);
	}
	if (t->alias && !cfg_no_controls(t->alias)) {
		snprintf(p, sizeof(p), "targets[%zu].alias", ti);
		return cfg_verr(err, p, "control characters are not allowed");
	}
	if (t->ntpgs == 0) {
		snprintf(p, sizeof(p), "targets[%zu].portal_groups", ti);
		return cfg_verr(err, p, "a target needs at least one portal group");
	}
	for (size_t g = 0; g < t->ntpgs; g++) {
		const struct cfg_portal_group *pg = &t->tpgs[g];
		for (size_t j = 0; j < g; j++) {
			if (t->tpgs[j].tag == pg->tag) {
				snprintf(p, sizeof(p), "targets[%zu].portal_groups[%zu].tag", ti,
					 g);
				return cfg_verr(err, p,
						"tag %u is already used by portal_groups[%zu]",
						pg->tag, j);
			}
			if (pg->rel_port_id && t->tpgs[j].rel_port_id == pg->rel_port_id) {
				snprintf(p, sizeof(p),
					 "targets[%zu].portal_groups[%zu].rel_port_id", ti, g);
				return cfg_verr(err, p,
						"%u is already used by "
						"targets[%zu].portal_groups[%zu]",
						pg->rel_port_id, ti, j);
			}
		}
		snprintf(p, sizeof(p), "targets[%zu].portal_groups[%zu]", ti, g);
		rc = cfg_validate_tpg_one(pg, p, err);
		if (rc)
			return rc;
	}
	snprintf(p, sizeof(p), "targets[%zu].luns", ti);
	rc = cfg_validate_luns(c, ix, &t->luns, p, err);
	for (size_t a = 0; a < t->nacls && !rc; a++) {
		const struct cfg_acl *acl = &t->acls[a];
		uintptr_t j;

		snprintf(p, sizeof(p), "targets[%zu].acls[%zu]", ti, a);
		rc = cfg_validate_acl_one(c, ix, acl, p, err);
		if (rc)
			break;
		if (!acl->initiator)
			continue; /* by address only: auth.c checks those */
		if (hmap_get(&seen, acl->initiator, strlen(acl->initiator), &j)) {
			snprintf(p, sizeof(p), "targets[%zu].acls[%zu].initiator", ti, a);
			rc = cfg_verr(err, p, "duplicate initiator (also acls[%zu])", (size_t)j);
			break;
		}
		if (hmap_put(&seen, acl->initiator, strlen(acl->initiator), a))
			rc = -ENOMEM;
	}
	hmap_clear(&seen);
	if (rc == -ENOMEM)
		snprintf(err->msg, sizeof(err->msg), "out of memory");
	if (!rc)
		rc = cfg_auth_validate_target(t, ti, err); /* auth, limits, address ACLs */
	return rc;
}

int cfg_validate(const struct cfg *c, struct cfg_err *err)
{
	struct cfg_index *ix;
	/* first user of each relative port id: (target + 1) << 16 | group */
	uint64_t *rel = NULL;
	int rc;

	*err = (struct cfg_err){0};
	if (c->iscsi.first_burst_length > c->iscsi.max_burst_length)
		/* RFC 7143 13.14: FirstBurstLength MUST NOT exceed MaxBurstLength */
		return cfg_verr(err,
				cfg_iscsi_is_set(c, "first_burst_length")
				    ? "iscsi.first_burst_length"
				    : "iscsi.max_burst_length",
				"first_burst_length %u exceeds max_burst_length %u",
				c->iscsi.first_burst_length, c->iscsi.max_burst_length);
	rc = cfg_index_build(c, &ix);
	if (!rc) {
		rel = calloc(65536, sizeof(*rel));
		if (!rel)
			rc = -ENOMEM;
	}
	if (rc) {
		cfg_index_free(ix);
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		return rc;
	}
	for (size_t i = 0; i < c->nbs && !rc; i++) {
		rc = cfg_validate_backstore_one(c, &c->bs[i], i, err);
		if (!rc)
			rc = cfg_validate_backstore_unique(c, ix, i, err);
	}
	for (size_t i = 0; i < c->ntargets && !rc; i++) {
		const struct cfg_target *t = &c->targets[i];
		char p[CFG_ERR_PATH_MAX];
		long j = cfg_ix_target(ix, t->name);

		if (j >= 0 && (size_t)j != i) {
			snprintf(p, sizeof(p), "targets[%zu].name", i);
			rc = cfg_verr(err, p, "duplicate target name (also targets[%ld])", j);
			break;
		}
		rc = cfg_validate_target_one(c, ix, t, i, err);
		/* unique across the whole config: logical units may be shared
		 * between targets, and RTPG/VPD 83h need distinct ports */
		for (size_t g = 0; g < t->ntpgs && !rc; g++) {
			uint16_t id = t->tpgs[g].rel_port_id;

			if (!id)
				continue;
			if (rel[id]) {
				snprintf(p, sizeof(p),
					 "targets[%zu].portal_groups[%zu].rel_port_id", i, g);
				rc = cfg_verr(
				    err, p,
				    "%u is already used by targets[%llu].portal_groups[%llu]", id,
				    (unsigned long long)(rel[id] >> 16) - 1,
				    (unsigned long long)(rel[id] & 0xffff));
				break;
			}
			rel[id] = ((uint64_t)(i + 1) << 16) | g;
		}
	}
	free(rel);
	cfg_index_free(ix);
	if (!rc)
		rc = cfg_validate_port_groups(c, err); /* ALUA (port_groups.c) */
	if (!rc)
		rc = cfg_auth_validate(c, err); /* discovery, secrets (auth.c) */
	return rc;
}
