/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iscsi.h: the iSCSI fabric's interface for the config layer and the daemon.
 * Everything here runs on the main thread (reactor 0) unless noted. */
#ifndef UT_FABRIC_ISCSI_H
#define UT_FABRIC_ISCSI_H

#include <stdbool.h>
#include <stdint.h>

struct scsi_target;
struct iscsi_target;
struct iscsi_tpg;

/* Global settings (config "iscsi" section); iscsi_settings_default() fills
 * the defaults. Negotiation values are what the target offers/accepts. */
struct iscsi_settings {
	uint32_t max_recv_data_segment_length; /* ours, declared to the initiator */
	uint32_t max_burst_length;
	uint32_t first_burst_length;
	bool initial_r2t;
	bool immediate_data;
	uint16_t max_outstanding_r2t;
	uint16_t max_connections;       /* per session */
	bool header_digest;             /* offer/accept CRC32C */
	bool data_digest;
	uint32_t default_time2wait;
	uint32_t default_time2retain;
	uint32_t nop_in_interval_s;     /* 0 = no keepalive */
	uint32_t nop_in_timeout_s;
	uint32_t login_timeout_s;
	uint32_t max_sessions;          /* all targets; 0 = unlimited */
	uint32_t max_logins_in_progress;/* connections not yet in full feature phase */
	uint32_t queue_depth;           /* commands per session (CmdSN window) */
};
void iscsi_settings_default(struct iscsi_settings *s);

/* After reactor_pool_start(). */
int iscsi_init(const struct iscsi_settings *s);
/* Logs out/drops every session, closes listeners. */
void iscsi_shutdown(void);

/* An iSCSI target node over a SCSI target device (its name is the IQN). */
struct iscsi_target *iscsi_target_add(struct scsi_target *st, const char *alias);
void iscsi_target_del(struct iscsi_target *t);

/* A target portal group: tag (TPGT) 1..65535; it is one SCSI target port with
 * the given relative target port identifier in ALUA port group port_group
 * (created here, named "<iqn>,t,0x<tag hex4>"). */
struct iscsi_tpg *iscsi_tpg_add(struct iscsi_target *t, uint16_t tag, uint16_t rel_port_id,
				uint16_t port_group);
/* Listen on addr ("127.0.0.1:3260", "[::1]:3260", "[::]:3260", "0.0.0.0:3260")
 * for this portal group; several portal groups may share an address. 0 or
 * -errno (the error is also logged with the address). */
int iscsi_tpg_portal_add(struct iscsi_tpg *tpg, const char *addr);

#endif
