/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmdsn.c: the CmdSN window (RFC 7143 4.2.2.1). */
#include <string.h>

#include "fabric/iscsi/cmdsn.h"

static bool bit_get(const struct iscsi_cmdsn *w, uint32_t sn)
{
	uint32_t i = sn % ISCSI_CMDSN_DEPTH_MAX;

	return (w->ahead[i / 64] >> (i % 64)) & 1;
}

static void bit_put(struct iscsi_cmdsn *w, uint32_t sn, bool v)
{
	uint32_t i = sn % ISCSI_CMDSN_DEPTH_MAX;
	uint64_t m = 1ull << (i % 64);

	if (v)
		w->ahead[i / 64] |= m;
	else
		w->ahead[i / 64] &= ~m;
}

void iscsi_cmdsn_init(struct iscsi_cmdsn *w, uint32_t first, uint32_t depth)
{
	memset(w, 0, sizeof(*w));
	if (depth == 0)
		depth = 1;
	if (depth > ISCSI_CMDSN_DEPTH_MAX)
		depth = ISCSI_CMDSN_DEPTH_MAX;
	w->exp = first;
	w->depth = depth;
	w->max = first + depth - 1;
}

enum iscsi_cmdsn_verdict iscsi_cmdsn_check(const struct iscsi_cmdsn *w, uint32_t sn)
{
	/* window size; 0 when closed (MaxCmdSN = ExpCmdSN - 1) */
	uint32_t size = w->max - w->exp + 1;
	uint32_t off = sn - w->exp;

	if (size > ISCSI_CMDSN_DEPTH_MAX || off >= size)
		return ISCSI_CMDSN_OUTSIDE;
	if (off == 0)
		return ISCSI_CMDSN_IN_ORDER;
	if (bit_get(w, sn))
		return ISCSI_CMDSN_OUTSIDE; /* duplicate of an early one */
	return ISCSI_CMDSN_AHEAD;
}

bool iscsi_cmdsn_accept(struct iscsi_cmdsn *w, uint32_t sn)
{
	if (sn != w->exp) {
		bit_put(w, sn, true);
		return false;
	}
	w->exp++;
	while (bit_get(w, w->exp)) {
		bit_put(w, w->exp, false);
		w->exp++;
	}
	return true;
}

uint32_t iscsi_cmdsn_max(struct iscsi_cmdsn *w)
{
	uint32_t free = w->busy < w->depth ? w->depth - w->busy : 0;
	uint32_t m = w->exp + free - 1;

	/* MaxCmdSN never decreases: busy commands received earlier already
	 * moved ExpCmdSN by as much as they took from the window. */
	if (iscsi_sn_lt(w->max, m))
		w->max = m;
	return w->max;
}
