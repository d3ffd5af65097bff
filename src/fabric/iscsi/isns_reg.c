/* SPDX-License-Identifier: GPL-2.0-or-later */
/* isns_reg.c: the messages the target sends to the iSNS server
 * (registration, deregistration, SCN registration, the DD query); what is
 * registered is described in isns.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/isns.h"

void isns_snapshot_free(struct isns_snapshot *s)
{
	for (size_t i = 0; i < s->nnodes; i++)
		free(s->nodes[i].pgs);
	free(s->nodes);
	free(s->portals);
	*s = (struct isns_snapshot){0};
}

long isns_snapshot_portal(struct isns_snapshot *s, const uint8_t ip[16], uint16_t port)
{
	struct isns_portal *v;

	for (size_t i = 0; i < s->nportals; i++)
		if (s->portals[i].port == port && !memcmp(s->portals[i].ip, ip, 16))
			return (long)i;
	v = realloc(s->portals, (s->nportals + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	s->portals = v;
	memcpy(v[s->nportals].ip, ip, 16);
	v[s->nportals].port = port;
	return (long)s->nportals++;
}

/* Source, Message Key, Delimiter (5.6.1). */
static void msg_head(struct isns_buf *b, const char *source, const char *eid)
{
	isns_put_str(b, ISNS_TAG_ISCSI_NAME, source);
	if (eid)
		isns_put_str(b, ISNS_TAG_ENTITY_ID, eid);
	isns_put_nil(b, ISNS_TAG_DELIMITER);
}

static void put_node(struct isns_buf *b, const struct isns_snapshot *s, const struct isns_node *n)
{
	isns_put_str(b, ISNS_TAG_ISCSI_NAME, n->name);
	isns_put_u32(b, ISNS_TAG_ISCSI_NODE_TYPE, ISNS_NODE_TARGET);
	if (n->alias[0])
		isns_put_str(b, ISNS_TAG_ISCSI_ALIAS, n->alias);
	/* Portal Group objects (6.5): the node, a portal, its tag */
	for (size_t g = 0; g < n->npgs; g++) {
		const struct isns_portal *p = &s->portals[n->pgs[g].portal];

		isns_put_str(b, ISNS_TAG_PG_ISCSI_NAME, n->name);
		isns_put_ip(b, ISNS_TAG_PG_PORTAL_IP, p->ip);
		isns_put_u32(b, ISNS_TAG_PG_PORTAL_PORT, p->port); /* TCP: bit 16 clear */
		isns_put_u32(b, ISNS_TAG_PG_TAG, n->pgs[g].tag);
	}
}

int isns_reg_build(const struct isns_snapshot *s, size_t *next, uint16_t xid, struct isns_buf *b)
{
	size_t first = *next, k;

	if (first >= s->nnodes)
		return -EINVAL;
	isns_msg_begin(b, ISNS_DEV_ATTR_REG, ISNS_F_CLIENT | (first ? 0 : ISNS_F_REPLACE), xid);
	msg_head(b, s->nodes[first].name, s->eid);
	/* the key among the operating attributes too (5.6.5.1) */
	isns_put_str(b, ISNS_TAG_ENTITY_ID, s->eid);
	if (!first) {
		isns_put_u32(b, ISNS_TAG_ENTITY_PROTOCOL, ISNS_ENTITY_PROTOCOL_ISCSI);
		for (size_t i = 0; i < s->nportals; i++) {
			isns_put_ip(b, ISNS_TAG_PORTAL_IP, s->portals[i].ip);
			isns_put_u32(b, ISNS_TAG_PORTAL_PORT, s->portals[i].port);
			if (s->esi_port) {
				isns_put_u32(b, ISNS_TAG_ESI_PORT, s->esi_port);
				isns_put_u32(b, ISNS_TAG_SCN_PORT, s->esi_port);
			}
		}
	}
	if (b->failed)
		return isns_msg_end(b);
	for (k = first; k < s->nnodes; k++) {
		size_t mark = b->len;

		put_node(b, s, &s->nodes[k]);
		if (b->failed) {
			if (!b->p || k == first)
				return isns_msg_end(b); /* out of memory, or alone too big */
			/* no room: the rest in the next message */
			b->failed = false;
			b->len = mark;
			break;
		}
	}
	*next = k;
	return isns_msg_end(b);
}

int isns_dereg_build(const char *eid, const char *source, uint16_t xid, struct isns_buf *b)
{
	isns_msg_begin(b, ISNS_DEV_DEREG, ISNS_F_CLIENT, xid);
	msg_head(b, source, NULL); /* DevDereg has no Message Key (5.6.5.4) */
	isns_put_str(b, ISNS_TAG_ENTITY_ID, eid);
	return isns_msg_end(b);
}

int isns_scnreg_build(const char *node, uint32_t bitmap, uint16_t xid, struct isns_buf *b)
{
	isns_msg_begin(b, ISNS_SCN_REG, ISNS_F_CLIENT, xid);
	isns_put_str(b, ISNS_TAG_ISCSI_NAME, node);
	isns_put_str(b, ISNS_TAG_ISCSI_NAME, node); /* the key: the node registering */
	isns_put_nil(b, ISNS_TAG_DELIMITER);
	isns_put_u32(b, ISNS_TAG_ISCSI_SCN_BITMAP, bitmap);
	return isns_msg_end(b);
}

int isns_ddqry_build(const char *node, uint16_t xid, struct isns_buf *b)
{
	isns_msg_begin(b, ISNS_DEV_ATTR_QRY, ISNS_F_CLIENT, xid);
	isns_put_str(b, ISNS_TAG_ISCSI_NAME, node);
	isns_put_nil(b, ISNS_TAG_DD_ID); /* every DD the source may see */
	/* no Operating Attributes: every attribute of each DD comes back
	 * (5.7.5.2). Naming DD Member iSCSI Name there would be the RFC's way,
	 * but open-isns then answers the first member of each DD only. */
	isns_put_nil(b, ISNS_TAG_DELIMITER);
	return isns_msg_end(b);
}
