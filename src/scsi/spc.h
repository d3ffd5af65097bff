/* SPDX-License-Identifier: GPL-2.0-or-later */
/* spc.h: handlers of the SPC-4 primary commands (spc.c, vpd.c, mode.c,
 * log.c, reserve.c, medium.c, buffer.c), referenced by the table in spc_cmds.c. Each
 * command has a parse step (decode, no side effects) and an exec step (cdb.h). */
#ifndef UT_SCSI_SPC_H
#define UT_SCSI_SPC_H

#include <stddef.h>
#include <stdint.h>

#include "scsi/cdb.h"
#include "scsi/scsi.h"

/* Commands without a data phase. */
enum sense_reason spc_parse_no_data(struct scsi_cmd *cmd);

/* Data-In with an allocation length: data_len = min(allocation length, cap).
 * Used by the parse steps below. */
void spc_data_in(struct scsi_cmd *cmd, uint32_t alloc_len, uint32_t cap);
/* Data-Out parameter list of param_len bytes (bounded by
 * SCSI_MAX_PARAM_BYTES, else PARAMETER LIST LENGTH ERROR is returned). */
enum sense_reason spc_data_out(struct scsi_cmd *cmd, uint32_t param_len);

/* spc.c */
enum sense_reason spc_parse_inquiry(struct scsi_cmd *cmd);
void spc_exec_inquiry(struct scsi_cmd *cmd);
void spc_exec_test_unit_ready(struct scsi_cmd *cmd);
enum sense_reason spc_parse_request_sense(struct scsi_cmd *cmd);
void spc_exec_request_sense(struct scsi_cmd *cmd);
enum sense_reason spc_parse_report_luns(struct scsi_cmd *cmd);
void spc_exec_report_luns(struct scsi_cmd *cmd);
enum sense_reason spc_parse_rsoc(struct scsi_cmd *cmd);
void spc_exec_rsoc(struct scsi_cmd *cmd);
enum sense_reason spc_parse_rstmf(struct scsi_cmd *cmd);
void spc_exec_rstmf(struct scsi_cmd *cmd);

/* vpd.c: VPD page `page` into buf (size >= VPD_MAX_LEN); returns its length,
 * -1 when the page is not supported or -2 when memory ran out. */
#define VPD_MAX_LEN 1024
int vpd_page(struct scsi_cmd *cmd, uint8_t page, uint8_t *buf);
/* Standard INQUIRY data (SPC-4 6.6.2) into buf (>= 96 bytes); its length. */
size_t spc_std_inquiry(struct scsi_cmd *cmd, uint8_t *buf);

/* mode.c */
enum sense_reason spc_parse_mode_sense6(struct scsi_cmd *cmd);
enum sense_reason spc_parse_mode_sense10(struct scsi_cmd *cmd);
void spc_exec_mode_sense(struct scsi_cmd *cmd);
enum sense_reason spc_parse_mode_select6(struct scsi_cmd *cmd);
enum sense_reason spc_parse_mode_select10(struct scsi_cmd *cmd);
void spc_exec_mode_select(struct scsi_cmd *cmd);

/* log.c */
enum sense_reason spc_parse_log_sense(struct scsi_cmd *cmd);
void spc_exec_log_sense(struct scsi_cmd *cmd);
enum sense_reason spc_parse_log_select(struct scsi_cmd *cmd);
void spc_exec_log_select(struct scsi_cmd *cmd);
/* reserve.c */
void spc_exec_reserve(struct scsi_cmd *cmd);
void spc_exec_release(struct scsi_cmd *cmd);

/* buffer.c: READ BUFFER(10), WRITE BUFFER */
enum sense_reason spc_parse_read_buffer(struct scsi_cmd *cmd);
void spc_exec_read_buffer(struct scsi_cmd *cmd);
enum sense_reason spc_parse_write_buffer(struct scsi_cmd *cmd);
void spc_exec_write_buffer(struct scsi_cmd *cmd);

/* medium.c */
enum sense_reason spc_parse_start_stop_unit(struct scsi_cmd *cmd);
void spc_exec_start_stop_unit(struct scsi_cmd *cmd);
enum sense_reason spc_parse_prevent_allow(struct scsi_cmd *cmd);
void spc_exec_prevent_allow(struct scsi_cmd *cmd);

#endif
