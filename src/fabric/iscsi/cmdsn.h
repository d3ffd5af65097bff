/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmdsn.h: command numbering (RFC 7143 4.2.2.1) with serial number
 * arithmetic (RFC 1982, 32 bits).
 *
 * The session's window is [ExpCmdSN, MaxCmdSN]. A non-immediate request
 * whose CmdSN is outside it, or a duplicate, is silently ignored. A CmdSN
 * ahead of ExpCmdSN is remembered; ExpCmdSN advances over every number
 * received in order. MaxCmdSN = ExpCmdSN + (depth - busy) - 1 where busy
 * counts commands still held by the target: the window closes (MaxCmdSN =
 * ExpCmdSN - 1) instead of letting commands pile up, and MaxCmdSN never
 * moves back. */
#ifndef UT_ISCSI_CMDSN_H
#define UT_ISCSI_CMDSN_H

#include <stdbool.h>
#include <stdint.h>

#define ISCSI_CMDSN_DEPTH_MAX 1024u /* settings.queue_depth bound */

/* RFC 1982: a < b in 32-bit serial arithmetic (undefined at distance 2^31,
 * which a window of at most ISCSI_CMDSN_DEPTH_MAX never reaches). */
static inline bool iscsi_sn_lt(uint32_t a, uint32_t b)
{
	return a != b && (uint32_t)(b - a) < 0x80000000u;
}
static inline bool iscsi_sn_le(uint32_t a, uint32_t b)
{
	return a == b || iscsi_sn_lt(a, b);
}

struct iscsi_cmdsn {
	uint32_t exp;				    /* ExpCmdSN */
	uint32_t max;				    /* MaxCmdSN last computed */
	uint32_t depth;				    /* commands the target accepts at once */
	uint32_t busy;				    /* commands held (received, not yet released) */
	uint64_t ahead[ISCSI_CMDSN_DEPTH_MAX / 64]; /* bit sn % DEPTH_MAX: received early */
};

enum iscsi_cmdsn_verdict {
	ISCSI_CMDSN_IN_ORDER, /* == ExpCmdSN */
	ISCSI_CMDSN_AHEAD,    /* in the window, after a gap */
	ISCSI_CMDSN_OUTSIDE,  /* outside the window or already received: ignore */
};

/* first = CmdSN of the leading Login Request. */
void iscsi_cmdsn_init(struct iscsi_cmdsn *w, uint32_t first, uint32_t depth);
enum iscsi_cmdsn_verdict iscsi_cmdsn_check(const struct iscsi_cmdsn *w, uint32_t sn);
/* Record sn as received (after check said IN_ORDER or AHEAD); returns true
 * when ExpCmdSN moved. */
bool iscsi_cmdsn_accept(struct iscsi_cmdsn *w, uint32_t sn);
/* Has sn been passed by ExpCmdSN (every CmdSN up to it received)? */
static inline bool iscsi_cmdsn_reached(const struct iscsi_cmdsn *w, uint32_t sn)
{
	return iscsi_sn_lt(sn, w->exp);
}
/* The MaxCmdSN to advertise now. */
uint32_t iscsi_cmdsn_max(struct iscsi_cmdsn *w);

#endif
