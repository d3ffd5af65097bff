/* SPDX-License-Identifier: GPL-2.0-or-later */
/* harness.h: drive iSCSI connections without sockets (iscsi_conn_feed with a
 * capturing writer) against the fake core; build requests and parse the
 * target's replies. A connection of h_conn_new_socket() is the real one of a
 * daemon instead: its socket (one end of a socketpair) is read and written
 * by the connection's own code on the reactor, the harness holding the
 * initiator's end. */
#ifndef UT_TESTS_ISCSI_HARNESS_H
#define UT_TESTS_ISCSI_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fabric/iscsi/conn.h"
#include "fabric/iscsi/iscsi.h"
#include "fabric/iscsi/proto.h"
#include "fabric/iscsi/target.h"
#include "fake_core.h"

#define H_TARGET    "iqn.2026-12.org.utarget:test"
#define H_INITIATOR "iqn.2026-12.org.example:host1"

struct h_env {
	struct reactor *r;
	struct scsi_target *st;
	struct iscsi_target *t;
	struct iscsi_tpg *tpg;
	struct iscsi_portal *portal;
};
extern struct h_env henv;
/* Test knobs of the capturing writer: at most this many bytes per call
 * (0: all), -EAGAIN on every other call when set, -EAGAIN always while
 * blocked (an initiator that does not read). */
extern size_t h_write_max;
extern bool h_write_eagain;
extern bool h_write_blocked;

struct h_conn {
	struct iscsi_conn *c;
	uint8_t *out; /* bytes the target wrote */
	size_t out_len, out_cap, out_pos;
	bool hdigest, ddigest; /* digests in full feature phase */
	uint32_t cmdsn;
	uint32_t itt;
	uint32_t statsn; /* last StatSN seen */
	uint16_t tsih;
	int sock; /* h_conn_new_socket(): the initiator's end; else -1 */
};

struct iscsi_settings h_settings(void);
void h_setup(const struct iscsi_settings *s);
void h_teardown(void);
/* Run posted messages and deferred work of the reactor once. */
void h_pump(void);

struct h_conn *h_conn_new(void);
void h_conn_free(struct h_conn *hc);
/* A connection over a socketpair, read and written by conn.c as a daemon's
 * (the capturing writer and its knobs do not apply). h_send writes the wire
 * bytes to the socket and runs the reactor until they are read; h_recv
 * first collects what the target sent. */
struct h_conn *h_conn_new_socket(void);
/* Write raw wire bytes to a socket connection and run the reactor until the
 * target has read them all. */
void h_sock_write(struct h_conn *hc, const void *p, size_t n);
/* Wire bytes of a PDU (header digest/data digest per hc once logged in). */
size_t h_build(struct h_conn *hc, uint8_t *wire, size_t cap, const union iscsi_hdr *h,
	       const void *ahs, uint32_t ahs_len, const void *data, uint32_t len, bool digests);
/* Build and feed. Returns iscsi_conn_feed's result. */
int h_send(struct h_conn *hc, union iscsi_hdr *h, const void *data, uint32_t len);
/* The next complete PDU the target sent; data copied up to cap. */
bool h_recv(struct h_conn *hc, union iscsi_hdr *h, uint8_t *data, uint32_t cap, uint32_t *len);
/* "k=v" strings (NULL-terminated list) into buf as a key data block. */
uint32_t h_keys(uint8_t *buf, size_t cap, const char *const *kv);
/* Does the key block contain exactly this record? */
bool h_has_key(const uint8_t *data, uint32_t len, const char *rec);

/* A Login Request header. */
void h_login_hdr(union iscsi_hdr *h, uint8_t flags, uint16_t tsih, uint32_t itt, uint32_t cmdsn);
/* Login straight to full feature phase (operational stage, T=1, NSG=3)
 * with the standard keys plus extra. Returns the status (class << 8 |
 * detail), or -1 when no response came. */
int h_login(struct h_conn *hc, const char *const *extra);
int h_login_isid(struct h_conn *hc, const char *const *extra, const uint8_t *isid);
/* Add j to lead's session as connection cid (a login with lead's TSIH,
 * straight to full feature phase) with extra keys; the status as h_login. */
int h_join(struct h_conn *j, const struct h_conn *lead, uint16_t cid, const char *const *extra);

/* SCSI Command with optional immediate data. flags: F/R/W/attr. */
void h_scsi_cmd(union iscsi_hdr *h, struct h_conn *hc, uint8_t flags, uint32_t edtl,
		const uint8_t *cdb);
void h_read10(uint8_t *cdb, uint32_t lba, uint16_t blocks);
/* Send a SCSI Command (immediate data optional); returns its ITT. */
uint32_t h_cmd(struct h_conn *hc, uint8_t flags, uint32_t edtl, const uint8_t *cdb, const void *imm,
	       uint32_t imm_len);
/* Send one Data-Out PDU. */
int h_data_out(struct h_conn *hc, uint32_t itt, uint32_t ttt, uint32_t datasn, uint32_t offset,
	       const void *data, uint32_t len, bool final);
/* The next PDU, which must have this opcode (fails the test otherwise). */
void h_expect(struct h_conn *hc, uint8_t opcode, union iscsi_hdr *h, uint8_t *data, uint32_t cap,
	      uint32_t *len);
/* No PDU pending. */
bool h_idle(struct h_conn *hc);
void h_write10(uint8_t *cdb, uint32_t lba, uint16_t blocks);

#endif
