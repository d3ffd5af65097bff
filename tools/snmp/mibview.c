/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mibview.c: SCSI-MIB and ISCSI-MIB objects from utargetd's answers (see
 * mibview.h). Indexes:
 *   scsiInstIndex, iscsiInstIndex       1 (one utargetd)
 *   scsiDeviceIndex, iscsiNodeIndex     the target's place in target.list
 *                                       sorted by name, from 1
 *   scsiPortIndex                       the portal group's rel_port_id
 *   scsiLuIndex                         LUN + 1 in the target's LUN map
 *   scsiLunMapIndex                     1: the target's map; 1 + n: the
 *                                       n-th ACL's own map
 *   scsiAuthIntrIndex                   the ACL's place in the target's
 *                                       acls, from 1 (port index 0: all)
 *   iscsiPortalIndex                    the address's place among every
 *                                       portal group's listening addresses
 *   iscsiSsnIndex                       the session's TSIH
 *   iscsiCxnIndex                       the connection's CID + 1
 * A few columns are facts of utargetd rather than of an answer: it is a
 * target only (the role bits), over TCP only (protocol 6), its logical
 * units are SBC direct-access devices (peripheral type 0), and it lists
 * only the logical units it has open (status available). */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mibview.h"

#define MIB2 1, 3, 6, 1, 2, 1

/* SCSI-MIB entries (RFC 4455) */
static const uint32_t scsiInstanceEntry[] = {MIB2, 139, 2, 1, 1, 1};
static const uint32_t scsiDeviceEntry[] = {MIB2, 139, 2, 1, 2, 1};
static const uint32_t scsiPortEntry[] = {MIB2, 139, 2, 1, 3, 1};
static const uint32_t scsiTransportEntry[] = {MIB2, 139, 2, 1, 5, 1};
static const uint32_t scsiTransportISCSI[] = {MIB2, 139, 1, 1, 5};
static const uint32_t iscsiInstDescr1[] = {MIB2, 142, 1, 1, 1, 1, 2, 1};
static const uint32_t scsiTgtDevEntry[] = {MIB2, 139, 2, 3, 1, 1};
static const uint32_t scsiTgtPortEntry[] = {MIB2, 139, 2, 3, 2, 1};
static const uint32_t scsiAuthorizedIntrEntry[] = {MIB2, 139, 2, 3, 3, 1, 1};
static const uint32_t scsiAttIntrPortEntry[] = {MIB2, 139, 2, 3, 3, 2, 1};
static const uint32_t scsiLuEntry[] = {MIB2, 139, 2, 4, 1, 1};
static const uint32_t scsiLuIdEntry[] = {MIB2, 139, 2, 4, 2, 1};
static const uint32_t scsiLunMapEntry[] = {MIB2, 139, 2, 4, 3, 1};

/* ISCSI-MIB entries (RFC 7147) */
static const uint32_t iscsiInstanceAttributesEntry[] = {MIB2, 142, 1, 1, 1, 1};
static const uint32_t iscsiInstanceSsnErrorStatsEntry[] = {MIB2, 142, 1, 1, 2, 1};
static const uint32_t iscsiPortalAttributesEntry[] = {MIB2, 142, 1, 2, 1, 1};
static const uint32_t iscsiTgtPortalAttributesEntry[] = {MIB2, 142, 1, 3, 1, 1};
static const uint32_t iscsiNodeAttributesEntry[] = {MIB2, 142, 1, 5, 1, 1};
static const uint32_t iscsiTargetAttributesEntry[] = {MIB2, 142, 1, 6, 1, 1};
static const uint32_t iscsiTargetLoginStatsEntry[] = {MIB2, 142, 1, 6, 2, 1};
static const uint32_t iscsiTargetLogoutStatsEntry[] = {MIB2, 142, 1, 6, 3, 1};
static const uint32_t iscsiSessionAttributesEntry[] = {MIB2, 142, 1, 10, 1, 1};
static const uint32_t iscsiSessionStatsEntry[] = {MIB2, 142, 1, 10, 2, 1};
static const uint32_t iscsiSessionCxnErrorStatsEntry[] = {MIB2, 142, 1, 10, 3, 1};
static const uint32_t iscsiConnectionAttributesEntry[] = {MIB2, 142, 1, 11, 1, 1};

#define ENTRY(e) e, sizeof(e) / sizeof(e[0])

/* TruthValue, the role bits (BITS, bit 0 = the first octet's high bit) */
#define TV(b)	     ((b) ? 1 : 2)
#define BIT0	     0x80
#define LU_AVAIL     2 /* scsiLuStatus, scsiTgtDeviceStatus available(2) */
#define PROTO_TCP    6 /* iscsiPortalProtocol, iscsiCxnProtocol */
#define MB(b)	     ((b) >> 20)
#define C32(v)	     ((v)&0xffffffffu)
#define ADDR_V4	     1 /* InetAddressType ipv4(1), ipv6(2) */
#define ADDR_V6	     2
#define MAX_ADMINSTR 79 /* SnmpAdminString (SIZE(0..79)) of the aliases */

struct row {
	const uint32_t *entry;
	unsigned elen;
	uint32_t idx[MV_MAX_OID];
	unsigned ilen;
};

struct ctx {
	struct mv_view *mv;
	int err;
};

static struct mv_var *add(struct ctx *c, const struct row *r, unsigned col, enum mv_type t)
{
	struct mv_view *mv = c->mv;
	struct mv_var *v;

	if (c->err || r->elen + 1 + r->ilen > MV_MAX_OID)
		return NULL;
	if (mv->n == mv->cap) {
		size_t cap = mv->cap ? mv->cap * 2 : 256;
		struct mv_var *nv = realloc(mv->v, cap * sizeof(*nv));
		if (!nv) {
			c->err = -ENOMEM;
			return NULL;
		}
		mv->v = nv;
		mv->cap = cap;
	}
	v = &mv->v[mv->n++];
	memset(v, 0, sizeof(*v));
	memcpy(v->oid, r->entry, r->elen * sizeof(uint32_t));
	v->oid[r->elen] = col;
	memcpy(v->oid + r->elen + 1, r->idx, r->ilen * sizeof(uint32_t));
	v->len = r->elen + 1 + r->ilen;
	v->type = t;
	return v;
}

static void num(struct ctx *c, const struct row *r, unsigned col, enum mv_type t, uint64_t n)
{
	struct mv_var *v = add(c, r, col, t);

	if (!v)
		return;
	if (t == MV_COUNTER32 || t == MV_UNSIGNED)
		n = C32(n);
	v->num = n;
}

static void octets(struct ctx *c, const struct row *r, unsigned col, const void *p, size_t len)
{
	struct mv_var *v = add(c, r, col, MV_OCTETS);

	if (!v)
		return;
	v->buf = malloc(len ? len : 1);
	if (!v->buf) {
		c->mv->n--;
		c->err = -ENOMEM;
		return;
	}
	memcpy(v->buf, p, len);
	v->buflen = len;
}

static void str(struct ctx *c, const struct row *r, unsigned col, const char *s, size_t max)
{
	size_t len;

	if (!s)
		return;
	len = strlen(s);
	octets(c, r, col, s, max && len > max ? max : len);
}

static void oidval(struct ctx *c, const struct row *r, unsigned col, const uint32_t *o,
		   unsigned len)
{
	struct mv_var *v = add(c, r, col, MV_OID);

	if (!v)
		return;
	v->buf = malloc(len * sizeof(uint32_t));
	if (!v->buf) {
		c->mv->n--;
		c->err = -ENOMEM;
		return;
	}
	memcpy(v->buf, o, len * sizeof(uint32_t));
	v->buflen = len;
}

static void row_init(struct row *r, const uint32_t *entry, unsigned elen)
{
	r->entry = entry;
	r->elen = elen;
	r->ilen = 0;
}

static void row_idx(struct row *r, uint32_t i)
{
	if (r->ilen < MV_MAX_OID)
		r->idx[r->ilen++] = i;
}

/* ---- JSON helpers ---- */

static json_t *jget(json_t *o, const char *k)
{
	return json_is_object(o) ? json_object_get(o, k) : NULL;
}

static const char *jstr(json_t *o, const char *k)
{
	return json_string_value(jget(o, k));
}

/* An unsigned counter or gauge: true when present. */
static bool ju(json_t *o, const char *k, uint64_t *out)
{
	json_t *v = jget(o, k);

	if (!json_is_integer(v))
		return false;
	*out = (uint64_t)json_integer_value(v);
	return true;
}

static void ncol(struct ctx *c, const struct row *r, unsigned col, enum mv_type t, json_t *o,
		 const char *k)
{
	uint64_t n;

	if (ju(o, k, &n))
		num(c, r, col, t, n);
}

static void bcol(struct ctx *c, const struct row *r, unsigned col, json_t *o, const char *k)
{
	json_t *v = jget(o, k);

	if (json_is_boolean(v))
		num(c, r, col, MV_INTEGER, TV(json_is_true(v)));
}

static json_t *find_by(json_t *arr, const char *key, const char *val)
{
	size_t i;
	json_t *e;

	if (!val)
		return NULL;
	json_array_foreach(arr, i, e)
	{
		const char *s = jstr(e, key);
		if (s && strcmp(s, val) == 0)
			return e;
	}
	return NULL;
}

/* "a.b.c.d:port" or "[v6]:port" -> address type, bytes, port. */
static bool parse_addr(const char *s, int *type, unsigned char *bytes, size_t *blen, unsigned *port)
{
	char host[64];
	const char *colon;
	size_t hl;
	char *end;
	unsigned long p;

	if (!s)
		return false;
	colon = strrchr(s, ':');
	if (!colon)
		return false;
	hl = (size_t)(colon - s);
	if (s[0] == '[') {
		if (hl < 2 || s[hl - 1] != ']')
			return false;
		s++;
		hl -= 2;
	}
	if (hl >= sizeof(host))
		return false;
	memcpy(host, s, hl);
	host[hl] = '\0';
	p = strtoul(colon + 1, &end, 10);
	if (*end || p > 65535)
		return false;
	*port = (unsigned)p;
	if (inet_pton(AF_INET, host, bytes) == 1) {
		*type = ADDR_V4;
		*blen = 4;
		return true;
	}
	if (inet_pton(AF_INET6, host, bytes) == 1) {
		*type = ADDR_V6;
		*blen = 16;
		return true;
	}
	return false;
}

/* Just an address, no port ("127.0.0.1" or "::1"). */
static bool parse_host(const char *s, int *type, unsigned char *bytes, size_t *blen)
{
	if (!s)
		return false;
	if (inet_pton(AF_INET, s, bytes) == 1) {
		*type = ADDR_V4;
		*blen = 4;
		return true;
	}
	if (inet_pton(AF_INET6, s, bytes) == 1) {
		*type = ADDR_V6;
		*blen = 16;
		return true;
	}
	return false;
}

static size_t hex_bytes(const char *s, unsigned char *out, size_t max)
{
	size_t n = 0;

	if (!s)
		return 0;
	while (s[0] && s[1] && n < max) {
		unsigned v;
		if (sscanf(s, "%2x", &v) != 1)
			return 0;
		out[n++] = (unsigned char)v;
		s += 2;
	}
	return s[0] ? 0 : n;
}

/* SAM-5 4.7: a LUN below 256 is peripheral addressing, below 16384 flat. */
static void lun_bytes(uint64_t lun, unsigned char out[8])
{
	memset(out, 0, 8);
	if (lun < 256) {
		out[1] = (unsigned char)lun;
	} else {
		out[0] = (unsigned char)(0x40 | ((lun >> 8) & 0x3f));
		out[1] = (unsigned char)(lun & 0xff);
	}
}

/* ---- the targets, sorted by name ---- */

static int tgt_cmp(const void *a, const void *b)
{
	const char *x = jstr(*(json_t *const *)a, "name");
	const char *y = jstr(*(json_t *const *)b, "name");

	return strcmp(x ? x : "", y ? y : "");
}

struct model {
	json_t **tgt; /* target.list entries, by name */
	size_t ntgt;
	json_t *portals; /* array of strings: the distinct listening addresses */
};

static uint32_t node_index(const struct model *m, const char *name)
{
	size_t i;

	for (i = 0; name && i < m->ntgt; i++) {
		const char *n = jstr(m->tgt[i], "name");
		if (n && strcmp(n, name) == 0)
			return (uint32_t)(i + 1);
	}
	return 0;
}

static uint32_t port_index(json_t *pg, size_t pos)
{
	uint64_t rp;

	if (ju(pg, "rel_port_id", &rp) && rp > 0)
		return (uint32_t)rp;
	return (uint32_t)(pos + 1);
}

/* ---- SCSI-MIB ---- */

/* A RowPointer to device dev's scsiTransportEntry (its first column,
 * scsiTransportType): scsiPortTransportPtr, iscsiNodeTransportType. */
static void transport_ptr(struct ctx *c, const struct row *r, unsigned col, uint32_t dev)
{
	uint32_t o[MV_MAX_OID];
	unsigned n = sizeof(scsiTransportEntry) / sizeof(scsiTransportEntry[0]);

	memcpy(o, scsiTransportEntry, sizeof(scsiTransportEntry));
	o[n++] = 2;
	o[n++] = 1;
	o[n++] = dev;
	o[n++] = 1;
	oidval(c, r, col, o, n);
}

static void scsi_instance(struct ctx *c, const struct mv_input *in)
{
	struct row r;

	row_init(&r, ENTRY(scsiInstanceEntry));
	row_idx(&r, 1);
	str(c, &r, 4, jstr(in->info, "version"), 0); /* scsiInstVendorVersion */
}

static void scsi_lu(struct ctx *c, const struct mv_input *in, uint32_t dev, json_t *lun)
{
	json_t *bs, *id, *st;
	struct row r;
	uint64_t n, v;
	unsigned char lb[8], naa[16];
	size_t nl;

	if (!ju(lun, "lun", &n))
		return;
	bs = find_by(in->backstores, "name", jstr(lun, "backstore"));
	st = find_by(jget(in->stats, "luns"), "backstore", jstr(lun, "backstore"));
	id = jget(bs, "identity");
	row_init(&r, ENTRY(scsiLuEntry));
	row_idx(&r, 1);
	row_idx(&r, dev);
	row_idx(&r, (uint32_t)(n + 1));
	lun_bytes(n, lb);
	octets(c, &r, 2, lb, 8); /* scsiLuDefaultLun */
	str(c, &r, 4, jstr(id, "vendor"), 0);
	str(c, &r, 5, jstr(id, "product"), 0);
	str(c, &r, 6, jstr(id, "revision"), 0);
	if (bs) {
		num(c, &r, 7, MV_UNSIGNED, 0);	     /* scsiLuPeripheralType: SBC */
		num(c, &r, 8, MV_INTEGER, LU_AVAIL); /* scsiLuStatus */
	}
	if (st) {
		ncol(c, &r, 10, MV_COUNTER32, st, "commands"); /* scsiLuInCommands */
		if (ju(st, "read_bytes", &v))
			num(c, &r, 11, MV_COUNTER32, MB(v));
		if (ju(st, "write_bytes", &v))
			num(c, &r, 12, MV_COUNTER32, MB(v));
		ncol(c, &r, 14, MV_COUNTER32, st, "busy");     /* scsiLuOutTaskSetFullStatus */
		ncol(c, &r, 15, MV_COUNTER64, st, "commands"); /* scsiLuHSInCommands */
	}
	/* scsiLuIdTable: the NAA designator (VPD page 83h): binary code set
	 * (1), associated with the LU (0), type NAA (3) */
	nl = hex_bytes(jstr(id, "naa"), naa, sizeof(naa));
	if (nl) {
		row_init(&r, ENTRY(scsiLuIdEntry));
		row_idx(&r, 1);
		row_idx(&r, dev);
		row_idx(&r, (uint32_t)(n + 1));
		row_idx(&r, 1);
		num(c, &r, 2, MV_UNSIGNED, 1);
		num(c, &r, 3, MV_UNSIGNED, 0);
		num(c, &r, 4, MV_UNSIGNED, 3);
		octets(c, &r, 5, naa, nl);
	}
}

/* One LUN map: scsiLunMapTable rows (index map, the LUN as an 8-octet
 * string) pointing at the target's LU of the same back-store. */
static void scsi_lunmap(struct ctx *c, json_t *t, uint32_t dev, uint32_t map, json_t *luns)
{
	size_t i, j;
	json_t *l;

	json_array_foreach(luns, i, l)
	{
		const char *bsn = jstr(l, "backstore");
		json_t *tl = find_by(jget(t, "luns"), "backstore", bsn);
		unsigned char lb[8];
		uint64_t n, tn;
		struct row r;

		if (!tl || !ju(l, "lun", &n) || !ju(tl, "lun", &tn))
			continue;
		lun_bytes(n, lb);
		row_init(&r, ENTRY(scsiLunMapEntry));
		row_idx(&r, 1);
		row_idx(&r, dev);
		row_idx(&r, map);
		row_idx(&r, 8);
		for (j = 0; j < 8; j++)
			row_idx(&r, lb[j]);
		num(c, &r, 3, MV_UNSIGNED, tn + 1); /* scsiLunMapLuIndex */
	}
}

static void scsi_device(struct ctx *c, const struct mv_input *in, const struct model *m,
			uint32_t dev)
{
	json_t *t = m->tgt[dev - 1], *pgs = jget(t, "portal_groups"), *pg, *l, *a, *s;
	json_t *st = find_by(jget(in->stats, "targets"), "name", jstr(t, "name"));
	const char *name = jstr(t, "name");
	unsigned char role = BIT0;
	struct row r;
	size_t i, j;

	row_init(&r, ENTRY(scsiDeviceEntry));
	row_idx(&r, 1);
	row_idx(&r, dev);
	str(c, &r, 2, jstr(t, "alias"), MAX_ADMINSTR);	  /* scsiDeviceAlias */
	octets(c, &r, 3, &role, 1);			  /* scsiDeviceRole: target */
	num(c, &r, 4, MV_UNSIGNED, json_array_size(pgs)); /* scsiDevicePortNumber */

	/* scsiTransportTable: the device's one transport, iSCSI; its pointer
	 * is the iSCSI instance's row (RowPointer: its first column) */
	row_init(&r, ENTRY(scsiTransportEntry));
	row_idx(&r, 1);
	row_idx(&r, dev);
	row_idx(&r, 1);
	oidval(c, &r, 2, ENTRY(scsiTransportISCSI));
	oidval(c, &r, 3, ENTRY(iscsiInstDescr1));
	str(c, &r, 4, name, 262); /* scsiTransportDevName: the iSCSI name */

	row_init(&r, ENTRY(scsiTgtDevEntry));
	row_idx(&r, 1);
	row_idx(&r, dev);
	num(c, &r, 1, MV_UNSIGNED, json_array_size(jget(t, "luns"))); /* NumberOfLUs */
	num(c, &r, 2, MV_INTEGER, LU_AVAIL);			      /* scsiTgtDeviceStatus */

	json_array_foreach(pgs, i, pg)
	{
		uint32_t pi = port_index(pg, i);
		uint64_t tag, v;
		char pname[300];
		json_t *pst = NULL, *e;
		uint32_t att = 0;

		if (!ju(pg, "tag", &tag))
			continue;
		json_array_foreach(jget(st, "portal_groups"), j, e)
		{
			uint64_t et;
			if (ju(e, "tag", &et) && et == tag)
				pst = e;
		}
		row_init(&r, ENTRY(scsiPortEntry));
		row_idx(&r, 1);
		row_idx(&r, dev);
		row_idx(&r, pi);
		octets(c, &r, 2, &role, 1); /* scsiPortRole: target */
		transport_ptr(c, &r, 3, dev);

		/* RFC 7143 4.4.3 (SCSI Architecture Model): the target port's
		 * name and identifier are both "name,t,0xTPGT" */
		snprintf(pname, sizeof(pname), "%s,t,0x%04x", name ? name : "", (unsigned)tag);
		row_init(&r, ENTRY(scsiTgtPortEntry));
		row_idx(&r, 1);
		row_idx(&r, dev);
		row_idx(&r, pi);
		str(c, &r, 1, pname, 262);
		str(c, &r, 2, pname, 262);
		if (pst) {
			ncol(c, &r, 3, MV_COUNTER32, pst, "commands");
			if (ju(pst, "write_bytes", &v))
				num(c, &r, 4, MV_COUNTER32, MB(v));
			if (ju(pst, "read_bytes", &v))
				num(c, &r, 5, MV_COUNTER32, MB(v));
			ncol(c, &r, 6, MV_COUNTER64, pst, "commands");
		}

		/* scsiAttIntrPortTable: the initiator ports logged in here */
		json_array_foreach(jget(in->stats, "sessions"), j, s)
		{
			const char *tn = jstr(s, "target"), *ini = jstr(s, "initiator");
			uint64_t tpgt;
			size_t k;

			if (!tn || !name || strcmp(tn, name) != 0 || !ini ||
			    json_is_true(jget(s, "discovery")) || !ju(s, "tpgt", &tpgt) ||
			    tpgt != tag)
				continue;
			row_init(&r, ENTRY(scsiAttIntrPortEntry));
			row_idx(&r, 1);
			row_idx(&r, dev);
			row_idx(&r, pi);
			row_idx(&r, ++att);
			/* scsiAttIntrPortAuthIntrIdx: its ACL, or 0 (none names it:
			 * admitted by address or demo mode) */
			uint64_t auth = 0;
			json_array_foreach(jget(t, "acls"), k, a)
			{
				const char *an = jstr(a, "initiator");
				if (an && strcmp(an, ini) == 0)
					auth = k + 1;
			}
			num(c, &r, 2, MV_UNSIGNED, auth);
			snprintf(pname, sizeof(pname), "%s,i,0x%s", ini, jstr(s, "isid") ?: "");
			str(c, &r, 3, pname, 262);
			str(c, &r, 4, pname, 262);
		}
	}

	json_array_foreach(jget(t, "luns"), i, l) scsi_lu(c, in, dev, l);
	scsi_lunmap(c, t, dev, 1, jget(t, "luns"));

	json_array_foreach(jget(t, "acls"), i, a)
	{
		const char *ini = jstr(a, "initiator");
		json_t *own = jget(a, "luns");

		if (own)
			scsi_lunmap(c, t, dev, (uint32_t)(i + 2), own);
		if (!ini)
			continue; /* an ACL by address only names no initiator */
		row_init(&r, ENTRY(scsiAuthorizedIntrEntry));
		row_idx(&r, 1);
		row_idx(&r, dev);
		row_idx(&r, 0); /* every port of the device */
		row_idx(&r, (uint32_t)(i + 1));
		num(c, &r, 3, MV_INTEGER, 1); /* scsiAuthIntrDevOrPort: device */
		str(c, &r, 4, ini, 262);
		num(c, &r, 5, MV_UNSIGNED, own ? i + 2 : 1); /* scsiAuthIntrLunMapIndex */
	}
}

/* ---- ISCSI-MIB ---- */

/* iscsiTgtLastFailureType / iscsiInstLastSsnFailureType: the counter the
 * failure incremented, or 0.0 */
static void failure_type(struct ctx *c, const struct row *r, unsigned col, const uint32_t *entry,
			 unsigned elen, unsigned counter)
{
	uint32_t o[MV_MAX_OID];
	static const uint32_t zero[] = {0, 0};

	if (!counter) {
		oidval(c, r, col, zero, 2);
		return;
	}
	memcpy(o, entry, elen * sizeof(uint32_t));
	o[elen] = counter;
	oidval(c, r, col, o, elen + 1);
}

static void iscsi_instance(struct ctx *c, const struct mv_input *in, const struct model *m,
			   uint64_t nssn)
{
	json_t *inst = jget(in->stats, "instance"), *lf;
	struct row r;

	row_init(&r, ENTRY(iscsiInstanceAttributesEntry));
	row_idx(&r, 1);
	str(c, &r, 6, jstr(in->info, "version"), 0); /* iscsiInstVendorVersion */
	num(c, &r, 7, MV_UNSIGNED, json_array_size(m->portals));
	num(c, &r, 8, MV_UNSIGNED, m->ntgt);
	num(c, &r, 9, MV_UNSIGNED, nssn);
	if (!inst)
		return;
	ncol(c, &r, 10, MV_COUNTER32, inst, "session_failures");
	lf = jget(inst, "last_failure");
	if (json_is_object(lf) || json_is_null(lf)) {
		const char *ty = jstr(lf, "type");
		unsigned k = 0;
		if (ty && strcmp(ty, "digest") == 0)
			k = 1;
		else if (ty && strcmp(ty, "timeout") == 0)
			k = 2;
		else if (ty && strcmp(ty, "format") == 0)
			k = 3;
		failure_type(c, &r, 11, ENTRY(iscsiInstanceSsnErrorStatsEntry), k);
		if (jstr(lf, "initiator"))
			str(c, &r, 12, jstr(lf, "initiator"), 0);
	}
	row_init(&r, ENTRY(iscsiInstanceSsnErrorStatsEntry));
	row_idx(&r, 1);
	ncol(c, &r, 1, MV_COUNTER32, inst, "digest_errors");
	ncol(c, &r, 2, MV_COUNTER32, inst, "connection_timeouts");
	ncol(c, &r, 3, MV_COUNTER32, inst, "format_errors");
}

static void iscsi_portals(struct ctx *c, const struct mv_input *in, const struct model *m)
{
	json_t *iscsi = jget(in->settings, "iscsi"), *a;
	unsigned char role = BIT0, bytes[16];
	size_t i, j, k, blen;
	unsigned port;
	int type;
	struct row r;

	json_array_foreach(m->portals, i, a)
	{
		if (!parse_addr(json_string_value(a), &type, bytes, &blen, &port))
			continue;
		row_init(&r, ENTRY(iscsiPortalAttributesEntry));
		row_idx(&r, 1);
		row_idx(&r, (uint32_t)(i + 1));
		octets(c, &r, 3, &role, 1); /* iscsiPortalRoles: targetTypePortal */
		num(c, &r, 4, MV_INTEGER, (uint64_t)type);
		octets(c, &r, 5, bytes, blen);
		num(c, &r, 6, MV_UNSIGNED, PROTO_TCP);
		ncol(c, &r, 7, MV_UNSIGNED, iscsi, "max_recv_data_segment_length");

		for (j = 0; j < m->ntgt; j++) {
			json_t *pg;
			json_array_foreach(jget(m->tgt[j], "portal_groups"), k, pg)
			{
				json_t *la = jget(pg, "listening");
				size_t x;
				json_t *e;
				bool here = false;
				json_array_foreach(la, x, e) here |= json_equal(e, a);
				if (!here)
					continue;
				row_init(&r, ENTRY(iscsiTgtPortalAttributesEntry));
				row_idx(&r, 1);
				row_idx(&r, (uint32_t)(i + 1));
				row_idx(&r, (uint32_t)(j + 1));
				num(c, &r, 2, MV_UNSIGNED, port);
				ncol(c, &r, 3, MV_UNSIGNED, pg, "tag");
			}
		}
	}
}

static void iscsi_node(struct ctx *c, const struct mv_input *in, const struct model *m,
		       uint32_t node)
{
	json_t *t = m->tgt[node - 1], *iscsi = jget(in->settings, "iscsi");
	json_t *st = find_by(jget(in->stats, "targets"), "name", jstr(t, "name"));
	json_t *login = jget(st, "login"), *lo = jget(st, "logout"), *lf;
	unsigned char role = BIT0;
	struct row r;

	row_init(&r, ENTRY(iscsiNodeAttributesEntry));
	row_idx(&r, 1);
	row_idx(&r, node);
	str(c, &r, 2, jstr(t, "name"), 0);
	str(c, &r, 3, jstr(t, "alias"), 0);
	octets(c, &r, 4, &role, 1);    /* iscsiNodeRoles: targetTypeNode */
	transport_ptr(c, &r, 5, node); /* iscsiNodeTransportType */
	if (iscsi) {
		/* the defaults it offers in negotiation (settings.get's iscsi) */
		bcol(c, &r, 6, iscsi, "initial_r2t");
		bcol(c, &r, 7, iscsi, "immediate_data");
		ncol(c, &r, 8, MV_UNSIGNED, iscsi, "max_outstanding_r2t");
		ncol(c, &r, 9, MV_UNSIGNED, iscsi, "first_burst_length");
		ncol(c, &r, 10, MV_UNSIGNED, iscsi, "max_burst_length");
		ncol(c, &r, 11, MV_UNSIGNED, iscsi, "max_connections");
		ncol(c, &r, 14, MV_UNSIGNED, iscsi, "default_time2wait");
		ncol(c, &r, 15, MV_UNSIGNED, iscsi, "default_time2retain");
	}
	if (!st)
		return;

	row_init(&r, ENTRY(iscsiTargetAttributesEntry));
	row_idx(&r, 1);
	row_idx(&r, node);
	if (login) {
		uint64_t a = 0, b = 0, d = 0, e = 0;
		ju(login, "authentication_failures", &a);
		ju(login, "authorization_failures", &b);
		ju(login, "negotiation_failures", &d);
		ju(login, "other_failures", &e);
		num(c, &r, 1, MV_COUNTER32, a + b + d + e); /* iscsiTgtLoginFailures */
	}
	lf = jget(login, "last_failure");
	if (json_is_object(lf) || json_is_null(lf)) {
		const char *ty = jstr(lf, "type");
		static const struct {
			const char *name;
			unsigned col;
		} map[] = {{"other", 2},
			   {"redirect", 3},
			   {"authorization", 4},
			   {"authentication", 5},
			   {"negotiation", 6}};
		unsigned k = 0, i;
		unsigned char bytes[16];
		size_t blen;
		int type;
		for (i = 0; ty && i < sizeof(map) / sizeof(map[0]); i++)
			if (strcmp(ty, map[i].name) == 0)
				k = map[i].col;
		failure_type(c, &r, 3, ENTRY(iscsiTargetLoginStatsEntry), k);
		if (jstr(lf, "initiator"))
			str(c, &r, 4, jstr(lf, "initiator"), 0);
		if (parse_host(jstr(lf, "address"), &type, bytes, &blen)) {
			num(c, &r, 5, MV_INTEGER, (uint64_t)type);
			octets(c, &r, 6, bytes, blen);
		}
	}

	row_init(&r, ENTRY(iscsiTargetLoginStatsEntry));
	row_idx(&r, 1);
	row_idx(&r, node);
	ncol(c, &r, 1, MV_COUNTER32, login, "accepts");
	ncol(c, &r, 2, MV_COUNTER32, login, "other_failures");
	ncol(c, &r, 3, MV_COUNTER32, login, "redirects");
	ncol(c, &r, 4, MV_COUNTER32, login, "authorization_failures");
	ncol(c, &r, 5, MV_COUNTER32, login, "authentication_failures");
	ncol(c, &r, 6, MV_COUNTER32, login, "negotiation_failures");

	row_init(&r, ENTRY(iscsiTargetLogoutStatsEntry));
	row_idx(&r, 1);
	row_idx(&r, node);
	ncol(c, &r, 1, MV_COUNTER32, lo, "normal");
	ncol(c, &r, 2, MV_COUNTER32, lo, "other");
}

static int digest_enum(const char *s)
{
	if (!s)
		return 0;
	if (strcmp(s, "None") == 0)
		return 3; /* noDigest */
	if (strcmp(s, "CRC32C") == 0)
		return 4; /* crc32c */
	return 0;
}

static void iscsi_connection(struct ctx *c, uint32_t node, uint32_t ssn, json_t *cx, json_t *lcx)
{
	unsigned char lb[16], rb[16];
	size_t ll, rl;
	unsigned lp, rp;
	int lt, rt, d;
	uint64_t cid;
	const char *state = jstr(cx, "state");
	json_t *mrd = jget(lcx, "max_recv_data_segment_length");
	struct row r;

	if (!ju(cx, "cid", &cid))
		return;
	row_init(&r, ENTRY(iscsiConnectionAttributesEntry));
	row_idx(&r, 1);
	row_idx(&r, node);
	row_idx(&r, ssn);
	row_idx(&r, (uint32_t)(cid + 1));
	num(c, &r, 2, MV_UNSIGNED, cid);
	if (state && strcmp(state, "logged_in") == 0)
		num(c, &r, 3, MV_INTEGER, 2); /* full */
	else if (state && strcmp(state, "login") == 0)
		num(c, &r, 3, MV_INTEGER, 1);
	else if (state && strcmp(state, "logout") == 0)
		num(c, &r, 3, MV_INTEGER, 3);
	if (parse_addr(jstr(cx, "local"), &lt, lb, &ll, &lp) &&
	    parse_addr(jstr(cx, "peer"), &rt, rb, &rl, &rp) && lt == rt) {
		num(c, &r, 4, MV_INTEGER, (uint64_t)lt);
		octets(c, &r, 5, lb, ll);
		num(c, &r, 6, MV_UNSIGNED, PROTO_TCP);
		num(c, &r, 7, MV_UNSIGNED, lp);
		octets(c, &r, 8, rb, rl);
		num(c, &r, 9, MV_UNSIGNED, rp);
	}
	ncol(c, &r, 10, MV_UNSIGNED, mrd, "target");
	ncol(c, &r, 11, MV_UNSIGNED, mrd, "initiator");
	d = digest_enum(jstr(cx, "header_digest"));
	if (d)
		num(c, &r, 12, MV_INTEGER, (uint64_t)d);
	d = digest_enum(jstr(cx, "data_digest"));
	if (d)
		num(c, &r, 13, MV_INTEGER, (uint64_t)d);
}

/* The session of session.list matching a stats.get session. */
static json_t *listed_session(const struct mv_input *in, json_t *s)
{
	size_t i;
	json_t *e;
	uint64_t a, b;

	if (!ju(s, "tsih", &a))
		return NULL;
	json_array_foreach(in->sessions, i, e)
	{
		const char *x = jstr(e, "target"), *y = jstr(s, "target");
		if (ju(e, "tsih", &b) && a == b && x && y && strcmp(x, y) == 0)
			return e;
	}
	return NULL;
}

static uint64_t iscsi_sessions(struct ctx *c, const struct mv_input *in, const struct model *m)
{
	json_t *s;
	size_t i, j;
	uint64_t rows = 0;

	json_array_foreach(jget(in->stats, "sessions"), i, s)
	{
		uint32_t node = node_index(m, jstr(s, "target"));
		json_t *ls = listed_session(in, s), *neg = jget(ls, "negotiated"), *cx;
		json_t *t = node ? m->tgt[node - 1] : NULL;
		unsigned char isid[6];
		uint64_t tsih, v;
		struct row r;

		/* a discovery session belongs to no target node */
		if (!node || json_is_true(jget(s, "discovery")) || !ju(s, "tsih", &tsih) || !tsih)
			continue;
		rows++;
		row_init(&r, ENTRY(iscsiSessionAttributesEntry));
		row_idx(&r, 1);
		row_idx(&r, node);
		row_idx(&r, (uint32_t)tsih);
		num(c, &r, 3, MV_INTEGER, 1); /* iscsiSsnDirection: inboundSession */
		str(c, &r, 4, jstr(s, "initiator"), 0);
		str(c, &r, 5, jstr(s, "target"), 0);
		num(c, &r, 6, MV_UNSIGNED, tsih);
		if (hex_bytes(jstr(s, "isid"), isid, 6) == 6)
			octets(c, &r, 7, isid, 6);
		str(c, &r, 8, jstr(ls, "initiator_alias"), 0);
		str(c, &r, 9, jstr(t, "alias"), 0);
		bcol(c, &r, 10, neg, "initial_r2t");
		bcol(c, &r, 11, neg, "immediate_data");
		num(c, &r, 12, MV_INTEGER, 1); /* iscsiSsnType: normalSession */
		ncol(c, &r, 14, MV_UNSIGNED, neg, "first_burst_length");
		ncol(c, &r, 15, MV_UNSIGNED, neg, "max_burst_length");
		num(c, &r, 16, MV_UNSIGNED, json_array_size(jget(s, "connections")));
		ncol(c, &r, 20, MV_UNSIGNED, neg, "error_recovery_level");

		row_init(&r, ENTRY(iscsiSessionStatsEntry));
		row_idx(&r, 1);
		row_idx(&r, node);
		row_idx(&r, (uint32_t)tsih);
		ncol(c, &r, 1, MV_COUNTER32, s, "command_pdus");
		ncol(c, &r, 2, MV_COUNTER32, s, "response_pdus");
		ncol(c, &r, 3, MV_COUNTER64, s, "tx_data_bytes");
		ncol(c, &r, 4, MV_COUNTER64, s, "rx_data_bytes");
		if (ju(s, "tx_data_bytes", &v))
			num(c, &r, 5, MV_COUNTER32, v);
		if (ju(s, "rx_data_bytes", &v))
			num(c, &r, 6, MV_COUNTER32, v);

		row_init(&r, ENTRY(iscsiSessionCxnErrorStatsEntry));
		row_idx(&r, 1);
		row_idx(&r, node);
		row_idx(&r, (uint32_t)tsih);
		ncol(c, &r, 1, MV_COUNTER32, s, "digest_errors");
		ncol(c, &r, 2, MV_COUNTER32, s, "connection_timeouts");

		json_array_foreach(jget(s, "connections"), j, cx)
		{
			json_t *lcx = NULL, *e;
			size_t k;
			json_array_foreach(jget(ls, "connections"), k, e)
			{
				if (json_equal(jget(e, "cid"), jget(cx, "cid")))
					lcx = e;
			}
			iscsi_connection(c, node, (uint32_t)tsih, cx, lcx);
		}
	}
	return rows;
}

/* ---- the view ---- */

int mv_oid_cmp(const uint32_t *a, unsigned alen, const uint32_t *b, unsigned blen)
{
	unsigned i, n = alen < blen ? alen : blen;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return alen < blen ? -1 : alen > blen ? 1 : 0;
}

static int var_cmp(const void *a, const void *b)
{
	const struct mv_var *x = a, *y = b;

	return mv_oid_cmp(x->oid, x->len, y->oid, y->len);
}

void mv_free(struct mv_view *mv)
{
	size_t i;

	for (i = 0; i < mv->n; i++)
		free(mv->v[i].buf);
	free(mv->v);
	*mv = (struct mv_view){0};
}

int mv_build(struct mv_view *mv, const struct mv_input *in)
{
	struct ctx c = {.mv = mv};
	struct model m = {0};
	size_t i, j, k;
	json_t *t, *pg, *a;
	uint64_t nssn;

	mv_free(mv);
	m.ntgt = json_array_size(in->targets);
	m.tgt = calloc(m.ntgt ? m.ntgt : 1, sizeof(*m.tgt));
	m.portals = json_array();
	if (!m.tgt || !m.portals) {
		free(m.tgt);
		json_decref(m.portals);
		return -ENOMEM;
	}
	json_array_foreach(in->targets, i, t) m.tgt[i] = t;
	qsort(m.tgt, m.ntgt, sizeof(*m.tgt), tgt_cmp);
	for (i = 0; i < m.ntgt; i++) {
		json_array_foreach(jget(m.tgt[i], "portal_groups"), j, pg)
		{
			json_array_foreach(jget(pg, "listening"), k, a)
			{
				size_t x;
				json_t *e;
				bool seen = false;
				json_array_foreach(m.portals, x, e) seen |= json_equal(e, a);
				if (!seen && json_is_string(a))
					json_array_append(m.portals, a);
			}
		}
	}

	scsi_instance(&c, in);
	for (i = 0; i < m.ntgt; i++) {
		scsi_device(&c, in, &m, (uint32_t)(i + 1));
		iscsi_node(&c, in, &m, (uint32_t)(i + 1));
	}
	iscsi_portals(&c, in, &m);
	nssn = iscsi_sessions(&c, in, &m);
	iscsi_instance(&c, in, &m, nssn);

	free(m.tgt);
	json_decref(m.portals);
	if (c.err) {
		mv_free(mv);
		return c.err;
	}
	qsort(mv->v, mv->n, sizeof(*mv->v), var_cmp);
	return 0;
}

const struct mv_var *mv_get(const struct mv_view *mv, const uint32_t *oid, unsigned len)
{
	size_t lo = 0, hi = mv->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int r = mv_oid_cmp(mv->v[mid].oid, mv->v[mid].len, oid, len);
		if (r == 0)
			return &mv->v[mid];
		if (r < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const struct mv_var *mv_next(const struct mv_view *mv, const uint32_t *oid, unsigned len)
{
	size_t lo = 0, hi = mv->n;

	/* the first variable greater than oid */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (mv_oid_cmp(mv->v[mid].oid, mv->v[mid].len, oid, len) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < mv->n ? &mv->v[lo] : NULL;
}
