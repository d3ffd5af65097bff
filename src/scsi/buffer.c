/* SPDX-License-Identifier: GPL-2.0-or-later */
/* buffer.c: READ BUFFER(10) (SPC-4 6.17) and WRITE BUFFER (SPC-4 6.39).
 *
 * Buffers:
 * - the data buffer, BUFFER ID 0, BUFFER_DATA_CAP bytes per logical unit,
 *   zero until written; its memory is taken from the data buffer pool
 *   (bufpool.h, under the global cap) by the first WRITE BUFFER that writes
 *   it and returned with the logical unit;
 * - the echo buffer (SPC-4 6.17.9, 6.39.10), BUFFER_ECHO_CAP bytes per I_T
 *   nexus: READ BUFFER returns what the same I_T nexus last wrote, so
 *   another nexus never overwrites it (EBOS 1).
 *
 * Modes: READ BUFFER 00h (combined header and data), 02h (data), 03h
 * (descriptor), 0Ah (echo buffer), 0Bh (echo buffer descriptor); WRITE
 * BUFFER 02h (data) and 0Ah (echo buffer). Every other mode, among them
 * the download microcode modes (04h-07h, 0Dh-0Fh: there is no microcode
 * to update) and WRITE BUFFER 00h (obsolete), is refused with INVALID
 * FIELD IN CDB pointing at the MODE field. */
#include <string.h>

#include "lib/bufpool.h"
#include "lib/endian.h"
#include "scsi/alua.h"
#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/lu.h"
#include "scsi/spc.h"

#define BUFFER_DATA_CAP (64u << 10)
#define BUFFER_ECHO_CAP 4096u /* SPC-4 6.17.10: no more than 4096 */
#define BUFFER_HDR_LEN	4u    /* header, READ BUFFER descriptor, echo descriptor */

/* MODE field values (SPC-4 table 185 READ BUFFER, table 238 WRITE BUFFER) */
enum {
	BUFFER_MODE_HDR_DATA = 0x00,
	BUFFER_MODE_DATA = 0x02,
	BUFFER_MODE_DESCRIPTOR = 0x03,
	BUFFER_MODE_ECHO = 0x0a,
	BUFFER_MODE_ECHO_DESCRIPTOR = 0x0b,
};

/* The MODE field is not one this device server supports. */
static enum sense_reason bad_mode(struct scsi_cmd *cmd)
{
	return cdb_invalid_field(cmd, BUFFER_MODE_BYTE, 4);
}

/* BUFFER OFFSET and the transfer length within the data buffer (SPC-4
 * 6.17.5, 6.39.5): past its capacity is an invalid field, the offset when
 * it alone is past it, else the length. */
static enum sense_reason data_range(struct scsi_cmd *cmd)
{
	uint32_t off = cdb_buffer_offset(cmd->cdb), len = cdb_buffer_length(cmd->cdb);

	if (cdb_buffer_id(cmd->cdb) != 0)
		return cdb_invalid_field(cmd, BUFFER_ID_BYTE, 7);
	if (off > BUFFER_DATA_CAP)
		return cdb_invalid_field(cmd, BUFFER_OFFSET_BYTE, 7);
	if (len > BUFFER_DATA_CAP - off)
		return cdb_invalid_field(cmd, BUFFER_LENGTH_BYTE, 7);
	return SENSE_OK;
}

/* SPC-4 5.15.2.4.4/5: a target port in standby or unavailable serves the
 * echo buffer modes of both commands alone. The CDB table lets the two
 * commands through those states; the other modes get here what a command
 * without CDB_F_ALUA_STANDBY_OK and CDB_F_ALUA_UNAVAIL_OK gets. */
static enum sense_reason not_echo_alua(struct scsi_cmd *cmd)
{
	return alua_check_access(cmd->nexus->tport, cmd->priv.lu, 0);
}

/* A field the mode reserves is set. */
static enum sense_reason reserved_id_offset(struct scsi_cmd *cmd)
{
	if (cdb_buffer_id(cmd->cdb) != 0)
		return cdb_invalid_field(cmd, BUFFER_ID_BYTE, 7);
	if (cdb_buffer_offset(cmd->cdb) != 0)
		return cdb_invalid_field(cmd, BUFFER_OFFSET_BYTE, 7);
	return SENSE_OK;
}

void buffer_itn_free(struct lu_itn *itn)
{
	if (itn->echo)
		buf_free(itn->echo, BUFFER_ECHO_CAP);
	itn->echo = NULL;
	itn->echo_len = 0;
}

void buffer_lu_free(struct scsi_lu *lu)
{
	if (lu->core->data_buf)
		buf_free(lu->core->data_buf, BUFFER_DATA_CAP);
	lu->core->data_buf = NULL;
}

/* ---- READ BUFFER(10) ---- */

enum sense_reason spc_parse_read_buffer(struct scsi_cmd *cmd)
{
	uint32_t alloc = cdb_buffer_length(cmd->cdb);
	uint8_t mode = cdb_buffer_mode(cmd->cdb);
	enum sense_reason r;

	if (mode != BUFFER_MODE_ECHO && mode != BUFFER_MODE_ECHO_DESCRIPTOR) {
		r = not_echo_alua(cmd);
		if (r != SENSE_OK)
			return r;
	}
	switch (mode) {
	case BUFFER_MODE_HDR_DATA:
		/* SPC-4 6.17.3: BUFFER ID and BUFFER OFFSET are reserved */
		r = reserved_id_offset(cmd);
		if (r == SENSE_OK)
			spc_data_in(cmd, alloc, BUFFER_HDR_LEN + BUFFER_DATA_CAP);
		return r;
	case BUFFER_MODE_DATA:
		r = data_range(cmd);
		if (r == SENSE_OK)
			spc_data_in(cmd, alloc, alloc);
		return r;
	case BUFFER_MODE_DESCRIPTOR:
		/* SPC-4 6.17.6: any BUFFER ID (an unknown one reads as zeros);
		 * BUFFER OFFSET is reserved */
		if (cdb_buffer_offset(cmd->cdb) != 0)
			return cdb_invalid_field(cmd, BUFFER_OFFSET_BYTE, 7);
		spc_data_in(cmd, alloc, BUFFER_HDR_LEN);
		return SENSE_OK;
	case BUFFER_MODE_ECHO:
		/* SPC-4 6.17.9: BUFFER ID and BUFFER OFFSET are ignored */
		spc_data_in(cmd, alloc, BUFFER_ECHO_CAP);
		return SENSE_OK;
	case BUFFER_MODE_ECHO_DESCRIPTOR:
		/* SPC-4 6.17.10: BUFFER ID and BUFFER OFFSET are reserved */
		r = reserved_id_offset(cmd);
		if (r == SENSE_OK)
			spc_data_in(cmd, alloc, BUFFER_HDR_LEN);
		return r;
	default:
		return bad_mode(cmd);
	}
}

/* The data buffer from off, len bytes, into dst (zeros before the first
 * write). */
static void data_read(struct scsi_lu *lu, uint32_t off, uint8_t *dst, uint32_t len)
{
	pthread_mutex_lock(&lu->lock);
	if (lu->core->data_buf)
		memcpy(dst, lu->core->data_buf + off, len);
	else
		memset(dst, 0, len);
	pthread_mutex_unlock(&lu->lock);
}

void spc_exec_read_buffer(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	struct lu_itn *itn = cmd->priv.itn;
	uint8_t d[BUFFER_HDR_LEN] = {0};
	uint32_t n = cmd->priv.buf_len;

	switch (cdb_buffer_mode(cmd->cdb)) {
	case BUFFER_MODE_HDR_DATA:
		/* SPC-4 6.17.3: BUFFER CAPACITY, then the data from offset 0;
		 * built straight into the buffer, cut to what it holds */
		put_be24(d + 1, BUFFER_DATA_CAP);
		memcpy(cmd->buf, d, n < BUFFER_HDR_LEN ? n : BUFFER_HDR_LEN);
		if (n > BUFFER_HDR_LEN)
			data_read(lu, 0, cmd->buf + BUFFER_HDR_LEN, n - BUFFER_HDR_LEN);
		cmd->data_in_len = n;
		cmd->priv.data_in_full = cmd->priv.data_len;
		break;
	case BUFFER_MODE_DATA:
		data_read(lu, cdb_buffer_offset(cmd->cdb), cmd->buf, n);
		cmd->data_in_len = n;
		cmd->priv.data_in_full = cmd->priv.data_len;
		break;
	case BUFFER_MODE_DESCRIPTOR:
		/* SPC-4 6.17.6: OFFSET BOUNDARY 00h (byte boundaries), BUFFER
		 * CAPACITY; all zeros for a buffer that does not exist */
		if (cdb_buffer_id(cmd->cdb) == 0)
			put_be24(d + 1, BUFFER_DATA_CAP);
		scsi_cmd_set_data_in(cmd, d, sizeof(d));
		break;
	case BUFFER_MODE_ECHO:
		/* SPC-4 6.17.9: what this I_T nexus wrote; nothing written
		 * yet is a COMMAND SEQUENCE ERROR */
		pthread_mutex_lock(&lu->lock);
		if (!itn || !itn->echo) {
			pthread_mutex_unlock(&lu->lock);
			scsi_cmd_complete(cmd, SENSE_COMMAND_SEQUENCE_ERROR);
			return;
		}
		scsi_cmd_set_data_in(cmd, itn->echo, itn->echo_len);
		pthread_mutex_unlock(&lu->lock);
		break;
	case BUFFER_MODE_ECHO_DESCRIPTOR:
		/* SPC-4 6.17.10: EBOS 1 (the echo buffer is per I_T nexus,
		 * never overwritten by another one), BUFFER CAPACITY */
		d[0] = 0x01;
		put_be16(d + 2, BUFFER_ECHO_CAP & 0x1fff);
		scsi_cmd_set_data_in(cmd, d, sizeof(d));
		break;
	}
	scsi_cmd_complete(cmd, SENSE_OK);
}

/* ---- WRITE BUFFER ---- */

enum sense_reason spc_parse_write_buffer(struct scsi_cmd *cmd)
{
	uint32_t len = cdb_buffer_length(cmd->cdb);
	uint8_t mode = cdb_buffer_mode(cmd->cdb);
	enum sense_reason r;

	if (mode != BUFFER_MODE_ECHO) {
		r = not_echo_alua(cmd);
		if (r != SENSE_OK)
			return r;
	}
	switch (mode) {
	case BUFFER_MODE_DATA:
		r = data_range(cmd);
		return r == SENSE_OK ? spc_data_out(cmd, len) : r;
	case BUFFER_MODE_ECHO:
		/* SPC-4 6.39.10: BUFFER ID and BUFFER OFFSET are ignored; more
		 * than the echo buffer holds is an invalid field */
		if (len > BUFFER_ECHO_CAP)
			return cdb_invalid_field(cmd, BUFFER_LENGTH_BYTE, 7);
		return spc_data_out(cmd, len);
	default:
		/* the download microcode modes among them: nothing to
		 * download to, and no success for what was not done */
		return bad_mode(cmd);
	}
}

void spc_exec_write_buffer(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	struct lu_itn *itn = cmd->priv.itn;
	uint32_t len = cmd->write_len;
	uint8_t *p;
	bool have;

	if (cdb_buffer_mode(cmd->cdb) == BUFFER_MODE_ECHO) {
		if (!itn) {
			scsi_cmd_complete(cmd, SENSE_BUSY);
			return;
		}
		pthread_mutex_lock(&lu->lock);
		if (!itn->echo)
			itn->echo = buf_alloc(BUFFER_ECHO_CAP);
		if (!itn->echo) {
			pthread_mutex_unlock(&lu->lock);
			scsi_cmd_complete(cmd, SENSE_BUSY);
			return;
		}
		memcpy(itn->echo, cmd->buf, len);
		itn->echo_len = (uint16_t)len;
		pthread_mutex_unlock(&lu->lock);
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	if (len == 0) {
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	/* the data buffer: allocated outside the lock, installed under it */
	pthread_mutex_lock(&lu->lock);
	have = lu->core->data_buf != NULL;
	pthread_mutex_unlock(&lu->lock);
	p = have ? NULL : buf_zalloc(BUFFER_DATA_CAP);
	pthread_mutex_lock(&lu->lock);
	if (!lu->core->data_buf) {
		lu->core->data_buf = p;
		p = NULL;
	}
	have = lu->core->data_buf != NULL;
	if (have)
		memcpy(lu->core->data_buf + cdb_buffer_offset(cmd->cdb), cmd->buf, len);
	pthread_mutex_unlock(&lu->lock);
	if (p)
		buf_free(p, BUFFER_DATA_CAP);
	/* without it the pool is at its cap: back-pressure, the initiator
	 * retries */
	scsi_cmd_complete(cmd, have ? SENSE_OK : SENSE_BUSY);
}
