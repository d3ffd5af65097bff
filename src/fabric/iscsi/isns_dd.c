/* SPDX-License-Identifier: GPL-2.0-or-later */
/* isns_dd.c: Discovery Domains (RFC 4171 2.2.2, 6.11) as the DD queries of
 * isns_ddqry_build() return them: a DevAttrQry response lists the key
 * attributes, a Delimiter, then per DD its DD ID followed by its DD Name
 * and its DD Member iSCSI Name attributes (5.7.5.2). A member named before
 * any DD ID, a DD ID that is not 4 bytes, a name without its NUL: -EBADMSG
 * (the old view stays). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fabric/iscsi/isns.h"

void isns_dd_set_free(struct isns_dd_set *s)
{
	for (size_t i = 0; i < s->n; i++) {
		for (size_t k = 0; k < s->v[i].nmembers; k++)
			free(s->v[i].members[k]);
		free(s->v[i].members);
	}
	free(s->v);
	*s = (struct isns_dd_set){0};
}

static struct isns_dd *dd_get(struct isns_dd_set *s, uint32_t id, bool *fresh)
{
	struct isns_dd *v;

	*fresh = false;
	for (size_t i = 0; i < s->n; i++)
		if (s->v[i].id == id)
			return &s->v[i];
	v = realloc(s->v, (s->n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	s->v = v;
	v[s->n] = (struct isns_dd){.id = id};
	*fresh = true;
	return &v[s->n++];
}

static bool dd_has(const struct isns_dd *d, const char *name)
{
	for (size_t k = 0; k < d->nmembers; k++)
		if (!strcmp(d->members[k], name))
			return true;
	return false;
}

int isns_dd_parse(struct isns_iter *attrs, struct isns_dd_set *s)
{
	struct isns_dd *cur = NULL;
	struct isns_attr a;
	bool ops = false, fresh = false;
	int rc;

	while ((rc = isns_attr_next(attrs, &a)) > 0) {
		char name[ISCSI_NAME_MAX + 1];
		uint32_t id;

		if (!ops) {
			ops = a.tag == ISNS_TAG_DELIMITER;
			continue;
		}
		switch (a.tag) {
		case ISNS_TAG_DD_ID:
			if (isns_attr_u32(&a, &id))
				return -EBADMSG;
			cur = dd_get(s, id, &fresh);
			if (!cur)
				return -ENOMEM;
			break;
		case ISNS_TAG_DD_NAME:
			if (!cur)
				return -EBADMSG;
			if (a.len && isns_attr_str(&a, cur->name, sizeof(cur->name)))
				return -EBADMSG;
			break;
		case ISNS_TAG_DD_MEMBER_ISCSI_NAME: {
			char **m;

			if (!cur || isns_attr_str(&a, name, sizeof(name)))
				return -EBADMSG;
			if (dd_has(cur, name))
				break;
			m = realloc(cur->members, (cur->nmembers + 1) * sizeof(*m));
			if (!m)
				return -ENOMEM;
			cur->members = m;
			m[cur->nmembers] = strdup(name);
			if (!m[cur->nmembers])
				return -ENOMEM;
			cur->nmembers++;
			break;
		}
		default: /* other DD member kinds (FC, portals), features */
			break;
		}
	}
	(void)fresh;
	return rc;
}

bool isns_dd_shared(const struct isns_dd_set *s, const char *a, const char *b)
{
	for (size_t i = 0; i < s->n; i++)
		if (dd_has(&s->v[i], a) && dd_has(&s->v[i], b))
			return true;
	return false;
}
