/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mibview.h: utargetd's answers (JSON-RPC, docs/rpc.md) turned into the
 * objects of SCSI-MIB (RFC 4455, mib-2 139) and ISCSI-MIB (RFC 7147,
 * mib-2 142): one sorted array of (OID, value), what a GET looks up and a
 * GETNEXT walks. No Net-SNMP here: agent.c converts to its types, and a
 * unit test can build a view from JSON alone.
 *
 * A column is served only when the daemon gives its value; the objects
 * left out are listed in utarget-agentx(8). */
#ifndef UT_TOOLS_SNMP_MIBVIEW_H
#define UT_TOOLS_SNMP_MIBVIEW_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define MV_MAX_OID 128

enum mv_type {
	MV_INTEGER,   /* INTEGER, Integer32, enumerations, TruthValue */
	MV_UNSIGNED,  /* Unsigned32, Gauge32 */
	MV_COUNTER32, /* Counter32 */
	MV_COUNTER64, /* Counter64 */
	MV_OCTETS,    /* OCTET STRING (also BITS, InetAddress) */
	MV_OID,	      /* OBJECT IDENTIFIER (RowPointer, AutonomousType) */
};

struct mv_var {
	uint32_t oid[MV_MAX_OID];
	unsigned len;
	enum mv_type type;
	uint64_t num;	    /* the integer types */
	unsigned char *buf; /* MV_OCTETS: bytes; MV_OID: uint32_t sub-identifiers */
	size_t buflen;	    /* bytes; MV_OID: sub-identifiers */
};

struct mv_view {
	struct mv_var *v;
	size_t n, cap;
};

/* The answers a view is built from (each may be NULL: its tables are then
 * empty). None is consumed. */
struct mv_input {
	json_t *info;	    /* daemon.info */
	json_t *settings;   /* settings.get */
	json_t *targets;    /* target.list */
	json_t *backstores; /* backstore.list */
	json_t *sessions;   /* session.list */
	json_t *stats;	    /* stats.get */
};

/* Build (replacing what the view held) and sort. 0 or -ENOMEM. */
int mv_build(struct mv_view *mv, const struct mv_input *in);
void mv_free(struct mv_view *mv);
/* The variable named exactly oid, or NULL. */
const struct mv_var *mv_get(const struct mv_view *mv, const uint32_t *oid, unsigned len);
/* The first variable after oid in lexicographic order, or NULL. */
const struct mv_var *mv_next(const struct mv_view *mv, const uint32_t *oid, unsigned len);
int mv_oid_cmp(const uint32_t *a, unsigned alen, const uint32_t *b, unsigned blen);

#endif
