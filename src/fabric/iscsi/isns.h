/* SPDX-License-Identifier: GPL-2.0-or-later */
/* isns.h: the iSNS client's internals shared by isns.c (the client on
 * reactor 0), isns_reg.c (what it registers) and isns_dd.c (discovery
 * domains), and the unit tests. The interface for the config layer and the
 * control API is iscsi.h's "iSNS" part.
 *
 * What is registered (RFC 4171 3, 6): one Network Entity (EID: the
 * configured "entity", else the host name; protocol iSCSI), every distinct
 * network portal of the portal groups (IP address and TCP port; a wildcard
 * portal is registered with the local address of the connection to the
 * server) with the ESI Port and SCN Port of our listener, every target as an
 * iSCSI Storage Node of type Target with its alias, and one Portal Group
 * object (PG iSCSI Name, PG Portal IP, PG Portal Port, PGT) per portal of
 * each of its portal groups. */
#ifndef UT_ISCSI_ISNS_H
#define UT_ISCSI_ISNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/iscsi/isns_proto.h"
#include "fabric/iscsi/param.h"

#define ISNS_EID_MAX 255u

struct isns_portal {
	uint8_t ip[16]; /* IPv6, or IPv4-mapped */
	uint16_t port;
};
struct isns_pg {
	size_t portal; /* index in snapshot.portals */
	uint16_t tag;
};
struct isns_node {
	char name[ISCSI_NAME_MAX + 1];
	char alias[ISCSI_ALIAS_MAX + 1];
	struct isns_pg *pgs;
	size_t npgs;
};
/* What is registered, taken at once under iscsi_global.lock. */
struct isns_snapshot {
	char eid[ISNS_EID_MAX + 1];
	uint16_t esi_port; /* also the SCN port; 0: none registered */
	struct isns_portal *portals;
	size_t nportals;
	struct isns_node *nodes;
	size_t nnodes;
};
void isns_snapshot_free(struct isns_snapshot *s);
/* Add a portal (deduplicated); its index, or -ENOMEM. */
long isns_snapshot_portal(struct isns_snapshot *s, const uint8_t ip[16], uint16_t port);

/* DevAttrReg messages registering s (RFC 4171 5.6.5.1): the first, from
 * node 0 (*next == 0), replaces the entity (Replace flag) and carries the
 * entity and every portal; nodes follow while the PDU has room, the rest
 * in further messages (same entity, no Replace). Builds one message into b
 * and advances *next past the nodes it carries. 0, -EMSGSIZE (one node
 * alone does not fit a PDU), -ENOMEM; -EINVAL with no node. */
int isns_reg_build(const struct isns_snapshot *s, size_t *next, uint16_t xid, struct isns_buf *b);
/* DevDereg of the entity (5.6.5.4), source: a node of it. */
int isns_dereg_build(const char *eid, const char *source, uint16_t xid, struct isns_buf *b);
/* SCNReg for node (5.6.5.5): bitmap of ISNS_SCN_*. */
int isns_scnreg_build(const char *node, uint32_t bitmap, uint16_t xid, struct isns_buf *b);
/* DevAttrQry (5.6.5.2) with node as source for every Discovery Domain it
 * may see: key DD ID (empty), no Operating Attributes (all of them come
 * back: DD ID, DD Name, the members...). */
int isns_ddqry_build(const char *node, uint16_t xid, struct isns_buf *b);

/* Discovery domains (isns_dd.c): what the DD queries returned. */
struct isns_dd {
	uint32_t id;
	char name[256];
	char **members; /* iSCSI names */
	size_t nmembers;
};
struct isns_dd_set {
	struct isns_dd *v;
	size_t n;
};
void isns_dd_set_free(struct isns_dd_set *s);
/* Merge the DDs of a DevAttrQry response's attributes into s (a DD seen
 * twice, from two targets' queries, is kept once). 0, -EBADMSG, -ENOMEM. */
int isns_dd_parse(struct isns_iter *attrs, struct isns_dd_set *s);
/* Does some DD hold both names? */
bool isns_dd_shared(const struct isns_dd_set *s, const char *a, const char *b);

/* isns.c: targets, portal groups, portals or an alias changed (reactor 0;
 * a re-registration follows, debounced). */
void iscsi_isns_changed(void);

#endif
