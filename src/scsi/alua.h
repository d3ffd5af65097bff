/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alua.h: asymmetric logical unit access (SPC-4 5.15): target port groups,
 * the access state of each logical unit through each group, REPORT TARGET
 * PORT GROUPS and SET TARGET PORT GROUPS.
 *
 * Model:
 *   - Every target port (struct scsi_tport) belongs to exactly one target
 *     port group, named by a 16-bit identifier unique in the daemon (like
 *     relative target port identifiers: a logical unit mapped into several
 *     targets sees the ports of all of them). scsi_tport_create()'s
 *     port_group argument names it; 0 means "a group of its own" whose
 *     identifier is the port's relative target port identifier.
 *   - A group exists while it is defined (scsi_alua_group_define(), by the
 *     config) or has ports. A group nobody defined is implicit:
 *     active/optimized, implicit transitions only.
 *   - Each group has a default access state for every logical unit and may
 *     hold a state of its own for individual logical units (keyed by the
 *     logical unit's name, i.e. the back-store name, so that it survives a
 *     reload of the LU). SET TARGET PORT GROUPS changes the state of the
 *     addressed logical unit only.
 *   - A logical unit reports (RTPG, INQUIRY TPGS) the groups with at least
 *     one port of a target whose LUN maps hold the logical unit.
 *
 * Thread safety: every function may be called from any thread. The control
 * plane functions take the registry lock; the per-command check reads an
 * atomic state (and takes the group's own lock only when the group holds
 * per-LU states). */
#ifndef UT_SCSI_ALUA_H
#define UT_SCSI_ALUA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scsi/sense.h"

struct scsi_cmd;
struct scsi_lu;
struct scsi_tport;

/* SPC-4 6.37 table 296: ASYMMETRIC ACCESS STATE values (REPORT TARGET PORT
 * GROUPS); the logical block dependent state (4h) is not supported. */
enum scsi_alua_state {
	SCSI_ALUA_ACTIVE_OPTIMIZED = 0x0,
	SCSI_ALUA_ACTIVE_NON_OPTIMIZED = 0x1,
	SCSI_ALUA_STANDBY = 0x2,
	SCSI_ALUA_UNAVAILABLE = 0x3,
	SCSI_ALUA_OFFLINE = 0xe,
	SCSI_ALUA_TRANSITIONING = 0xf,
};

/* REPORT TARGET PORT GROUPS STATUS CODE (SPC-4 6.37 table 297) */
enum {
	ALUA_STATUS_NONE = 0x00,
	ALUA_STATUS_BY_STPG = 0x01,	/* altered by SET TARGET PORT GROUPS */
	ALUA_STATUS_BY_IMPLICIT = 0x02, /* altered by implicit behaviour (config, API) */
};

struct scsi_alua_group_attrs {
	const char *name;	/* optional, for logs; copied */
	uint8_t state;		/* enum scsi_alua_state of every LU without a state of its own */
	bool preferred;		/* PREF bit (SPC-4 6.37): the preferred group for access */
	bool explicit_ok;	/* SET TARGET PORT GROUPS may change this group's states */
	uint32_t transition_ms; /* an explicit transition stays "transitioning" this long */
};

/* ---- control plane (config layer, JSON-RPC methods) ---- */

/* Create group id (1..65535), or update an existing one (also an implicit
 * one that ports created): name, preferred, explicit_ok and transition time
 * are replaced; the default state is set to a->state (per-LU states are
 * kept). Unit attentions ASYMMETRIC ACCESS STATE CHANGED go to every I_T
 * nexus of the logical units whose state through the group changed.
 * A defined group stays until scsi_alua_group_undefine(). 0, -EINVAL,
 * -ENOMEM, or -EBUSY (an explicit transition is running in the group). */
int scsi_alua_group_define(uint16_t id, const struct scsi_alua_group_attrs *a);
/* Drop the definition; the group lives on (implicit, its states kept) while
 * ports are in it. 0 or -ENOENT. */
int scsi_alua_group_undefine(uint16_t id);
/* Implicit transition, effective at once, without dropping sessions:
 * lu_name NULL sets the group's default state and forgets every per-LU
 * state of the group; else the state of that one logical unit through the
 * group. Raises ASYMMETRIC ACCESS STATE CHANGED at every I_T nexus of each
 * logical unit whose state changed. 0, -ENOENT (no such group), -EINVAL
 * (state), -ENOMEM, -EBUSY (an explicit transition of an affected logical
 * unit is running: retry after the group's transition time). */
int scsi_alua_set_state(uint16_t id, const char *lu_name, enum scsi_alua_state s);
/* Current state of lu_name (NULL: the default) through group id. During an
 * explicit transition, *s is SCSI_ALUA_TRANSITIONING and *target the state
 * it leads to (else both equal); target may be NULL. 0 or -ENOENT. */
int scsi_alua_get_state(uint16_t id, const char *lu_name, enum scsi_alua_state *s,
			enum scsi_alua_state *target);
/* For persisting: calls fn for the group's default (lu_name NULL) and then
 * for every per-LU state, with the state a running transition leads to.
 * The registry lock is held: fn must not call back into this API. 0 or
 * -ENOENT. */
int scsi_alua_for_each_state(uint16_t id,
			     void (*fn)(uint16_t id, const char *lu_name, enum scsi_alua_state s,
					void *arg),
			     void *arg);
/* Called after a SET TARGET PORT GROUPS transition has completed (so that
 * the daemon can persist the new state). Runs on a reactor thread, must not
 * block; NULL removes it. */
void scsi_alua_set_change_hook(void (*fn)(uint16_t id, const char *lu_name, void *arg), void *arg);
/* "active/optimized", "active/non-optimized", "standby", "unavailable",
 * "offline", "transitioning"; NULL for another value. */
const char *scsi_alua_state_name(enum scsi_alua_state s);
/* The inverse (len bytes, not NUL-terminated); 0 or -EINVAL. */
int scsi_alua_state_parse(const char *s, size_t len, enum scsi_alua_state *out);
/* Number of groups in the registry (tests, statistics). */
unsigned scsi_alua_group_count(void);

/* ---- core ---- */

/* target.c: a new port joins its group (created implicitly if needed);
 * leaving drops the group when it was the last reference. */
int alua_port_attach(struct scsi_tport *tp);
void alua_port_detach(struct scsi_tport *tp);
/* The port joins group port_group (0: a group of its own) and leaves its
 * group, without dropping its nexuses; unit attentions as alua.c says.
 * 0 or -ENOMEM (nothing changed). */
int alua_port_move(struct scsi_tport *tp, uint16_t port_group);
/* Target port group identifier of a port (VPD 83h designator). */
uint16_t alua_port_group_id(const struct scsi_tport *tp);
/* pr.c (REGISTER AND MOVE, SPC-4 5.13.8): does a target port with this
 * relative target port identifier reach lu (a port of a target whose LUN
 * maps hold lu)? Takes the registry lock: call without lu->lock. */
bool alua_lu_has_port(const struct scsi_lu *lu, uint16_t rel_port_id);
/* vpd.c (SCSI Ports VPD page, SPC-4 7.8.10): calls fn for every target
 * port that reaches lu (as alua_lu_has_port()), each once. Takes the
 * registry lock: fn must not block or call into alua.c; call without
 * lu->lock. */
void alua_lu_for_each_port(const struct scsi_lu *lu,
			   void (*fn)(const struct scsi_tport *tp, void *arg), void *arg);
/* cmd.c: SPC-4 5.15.2.4: NOT READY for a command the access state of the
 * command's logical unit through its target port does not allow (by the
 * command's CDB_F_ALUA_* flags), else SENSE_OK. */
enum sense_reason alua_check(struct scsi_cmd *cmd);
/* The same for a command with CDB flags flags at lu through target port tp
 * (EXTENDED COPY: each copy source and destination, xcopy.c). */
enum sense_reason alua_check_access(const struct scsi_tport *tp, const struct scsi_lu *lu,
				    uint16_t flags);
/* The state alua_check() works from (unit tests). */
enum scsi_alua_state alua_state_of(const struct scsi_tport *tp, const struct scsi_lu *lu);
/* The standard INQUIRY TPGS field (SPC-4 6.6.2) for lu: 01b implicit only,
 * 11b when a group of lu accepts SET TARGET PORT GROUPS. */
uint8_t alua_tpgs(struct scsi_lu *lu);

/* spc_cmds.c: REPORT TARGET PORT GROUPS (MAINTENANCE IN 0Ah, SPC-4 6.37)
 * and SET TARGET PORT GROUPS (MAINTENANCE OUT 0Ah, SPC-4 6.45). */
enum sense_reason alua_parse_rtpg(struct scsi_cmd *cmd);
void alua_exec_rtpg(struct scsi_cmd *cmd);
enum sense_reason alua_parse_stpg(struct scsi_cmd *cmd);
void alua_exec_stpg(struct scsi_cmd *cmd);

#endif
