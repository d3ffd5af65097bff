/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.c: LOG SELECT and LOG SENSE (SPC-4 6.6, 6.7) over the log pages of a
 * logical unit (SPC-4 7.3). Only what the target really knows is reported:
 *   00h/00h supported log pages, 00h/FFh supported log pages and subpages
 *   02h write, 03h read, 05h verify error counters (SPC-4 7.3, error
 *       counter log pages): TOTAL BYTES PROCESSED (READ, WRITE, the reads
 *       of VERIFY and WRITE AND VERIFY) and TOTAL UNCORRECTED ERRORS (every
 *       medium error of the back-store; struct log_counters). The target
 *       corrects nothing, so it reports no corrected-error parameters
 *       rather than zeros it does not measure
 *   06h non-medium error (SPC-4 7.3): back-store errors other than the
 *       medium's (lost back-store, unnamed failures)
 *   0Dh temperature (SPC-4 7.3, Temperature log page): a virtual disk has
 *       no sensor, TEMPERATURE and REFERENCE TEMPERATURE FFh
 *   0Eh start-stop cycle counter (SBC-4, Start-Stop Cycle Counter log
 *       page): ACCUMULATED START-STOP CYCLES and ACCUMULATED LOAD-UNLOAD
 *       CYCLES counted by START STOP UNIT (medium.c) since the LU was
 *       created; no date of manufacture or accounting date (a virtual disk
 *       has neither) and no specified lifetime counts (it has no limit)
 *   10h self-test results (SPC-4 7.3.18): the last 20 self-tests of SEND
 *       DIAGNOSTIC (diag.c), newest first
 *   0Ch logical block provisioning (SBC-4), thin LUs whose back-store
 *       knows its space (bs_ops.space: a file's allocated blocks and its
 *       file system's free space)
 *   2Fh informational exceptions (SPC-4 7.3, Informational Exceptions log
 *       page): no exception, no temperature reading
 * Any other page or subpage is refused with INVALID FIELD IN CDB. No page
 * has thresholds, no parameter is saveable (SP=1 and PPC=1 are outside the
 * CDB usage masks, so the core refuses them), and no parameter is changeable
 * through a LOG SELECT parameter list; LOG SELECT PCR=1 zeroes the counters
 * of the named pages (SPC-4 lets them be per I_T nexus or shared: shared
 * by every I_T nexus of the LU here). */
#include <string.h>

#include "lib/endian.h"
#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/limits.h"
#include "scsi/spc.h"

/* SPC-4 6.6 PAGE CONTROL values */
enum {
	LOG_PC_THRESHOLD = 0,
	LOG_PC_CUMULATIVE = 1,
	LOG_PC_DEFAULT_THRESHOLD = 2,
	LOG_PC_DEFAULT_CUMULATIVE = 3,
};

/* SPC-4 7.3 log page header: byte 0 DS (bit 7), SPF (bit 6), PAGE CODE;
 * byte 1 SUBPAGE CODE; bytes 2-3 PAGE LENGTH. */
enum {
	LOG_HDR_LEN = 4,
	LOG_HDR_DS = 0x80,
	LOG_HDR_SPF = 0x40,
};

/* SPC-4 7.3 log parameter control byte: TSD (bit 5: the device server
 * does not save the parameter), FORMAT AND LINKING (bits 1-0: 00b bounded
 * data counter, 11b binary format list). */
enum {
	LOG_PARAM_HDR_LEN = 4,
	LOG_CTL_COUNTER = 0x20,
	LOG_CTL_BINARY = 0x23,
};

/* the largest page built here (header and every parameter: the self-test
 * results page, 4 + 20 * 20 bytes) */
#define LOG_PAGE_MAX 512

struct log_page_def {
	uint8_t page, subpage;
	bool counters;	    /* has cumulative values; PC 00b/10b ask for thresholds */
	uint16_t max_param; /* the highest parameter code (PARAMETER POINTER) */
	/* parameters from code ptr on into p (>= LOG_PAGE_MAX - header);
	 * returns their length, or -errno */
	long (*params)(struct scsi_lu *lu, bool defaults, uint16_t ptr, uint8_t *p);
	/* whether lu has the page (NULL: every LU) */
	bool (*present)(struct scsi_lu *lu);
};

static size_t put_param(uint8_t *p, uint16_t code, uint8_t ctl, uint8_t len)
{
	put_be16(p, code);
	p[2] = ctl;
	p[3] = len;
	return LOG_PARAM_HDR_LEN;
}

static size_t put_counter(uint8_t *p, uint16_t code, uint64_t v)
{
	size_t n = put_param(p, code, LOG_CTL_COUNTER, 8);

	put_be64(p + n, v);
	return n + 8;
}

/* SPC-4 7.3 error counter log pages: parameter codes */
enum {
	ERR_TOTAL_BYTES_PROCESSED = 0x0005,
	ERR_TOTAL_UNCORRECTED = 0x0006,
};

static size_t error_counters(uint8_t *p, uint16_t ptr, uint64_t bytes, uint64_t uncorrected)
{
	size_t n = 0;

	if (ptr <= ERR_TOTAL_BYTES_PROCESSED)
		n += put_counter(p + n, ERR_TOTAL_BYTES_PROCESSED, bytes);
	if (ptr <= ERR_TOTAL_UNCORRECTED)
		n += put_counter(p + n, ERR_TOTAL_UNCORRECTED, uncorrected);
	return n;
}

static uint64_t counter(_Atomic uint64_t *c, bool defaults)
{
	/* a counter's default cumulative value is zero */
	return defaults ? 0 : atomic_load_explicit(c, memory_order_relaxed);
}

static long write_errors(struct scsi_lu *lu, bool defaults, uint16_t ptr, uint8_t *p)
{
	struct log_counters *c = &lu->core->log;

	return (long)error_counters(p, ptr, counter(&c->write_bytes, defaults),
				    counter(&c->write_uncorrected, defaults));
}

static long read_errors(struct scsi_lu *lu, bool defaults, uint16_t ptr, uint8_t *p)
{
	struct log_counters *c = &lu->core->log;

	return (long)error_counters(p, ptr, counter(&c->read_bytes, defaults),
				    counter(&c->read_uncorrected, defaults));
}

/* SPC-4 7.3 Non-Medium Error log page: NON-MEDIUM ERROR COUNT (0000h), the
 * errors of the back-store that are not medium errors: a lost connection
 * to it (LOGICAL UNIT COMMUNICATION FAILURE) or a failure it could not
 * name (INTERNAL TARGET FAILURE). Out of space, write protection and
 * BUSY are conditions, not errors, and are not counted. */
static long non_medium_errors(struct scsi_lu *lu, bool defaults, uint16_t ptr, uint8_t *p)
{
	(void)ptr;
	return (long)put_counter(p, 0x0000, counter(&lu->core->log.non_medium, defaults));
}

/* SPC-4 7.3 Temperature log page: TEMPERATURE (0000h) and REFERENCE
 * TEMPERATURE (0001h) FFh, no valid value */
static long temperature(struct scsi_lu *lu, bool defaults, uint16_t ptr, uint8_t *p)
{
	size_t n = 0;

	(void)lu;
	(void)defaults;
	for (uint16_t code = ptr; code <= 1; code++) {
		n += put_param(p + n, code, LOG_CTL_BINARY, 2);
		p[n++] = 0;
		p[n++] = 0xff;
	}
	return (long)n;
}

/* SPC-4 7.3 Informational Exceptions log page, general parameter: INFORMATIONAL EXCEPTION
 * ADDITIONAL SENSE CODE and QUALIFIER 00h (none), MOST RECENT TEMPERATURE READING FFh */
static long info_exceptions(struct scsi_lu *lu, bool defaults, uint16_t ptr, uint8_t *p)
{
	size_t n;

	(void)lu;
	(void)defaults;
	(void)ptr;
	n = put_param(p, 0x0000, LOG_CTL_BINARY, 3);
	p[n++] = 0x00;
	p[n++] = 0x00;
	p[n++] = 0xff;
	return (long)n;
}

static long verify_errors(struct scsi_lu *lu, bool defaults, uint16_t ptr, uint8_t *p)
{
	struct log_counters *c = &lu->core->log;

	return (long)error_counters(p, ptr, counter(&c->verify_bytes, defaults),
				    counter(&c->verify_uncorrected, defaults));
}

/* SBC-4 logical block provisioning log page (0Ch), thin LUs over a
 * back-store that knows its space: AVAILABLE (0001h) and USED (0002h) LBA
 * MAPPING RESOURCE COUNT, in units of 2^THRESHOLD EXPONENT (VPD B2) logical
 * blocks, each with its SCOPE: the used blocks are the LU's own (01b), the
 * free space of a file system is shared with its other files (10b). */
enum {
	LBP_AVAILABLE = 0x0001,
	LBP_USED = 0x0002,
	LBP_SCOPE_DEDICATED = 0x01,
	LBP_SCOPE_SHARED = 0x02,
};

static bool lbp_present(struct scsi_lu *lu)
{
	/* a back-store that cannot tell (a block device, ram) has no page */
	return lbp_threshold_supported(lu);
}

static size_t put_resource(uint8_t *p, uint16_t code, uint64_t bytes, uint32_t shift,
			   uint8_t exponent, uint8_t scope)
{
	uint64_t units = bytes >> (shift + exponent);
	size_t n = put_param(p, code, LOG_CTL_BINARY, 8);

	/* a count past 32 bits saturates (SBC-4: an estimate) */
	put_be32(p + n, units > 0xffffffffu ? 0xffffffffu : (uint32_t)units);
	p[n + 4] = scope;
	return n + 8;
}

static long lbp(struct scsi_lu *lu, bool defaults, uint16_t ptr, uint8_t *p)
{
	uint64_t used, avail;
	bool shared;
	uint8_t exponent = lbp_threshold_exponent(lu);
	size_t n = 0;
	int rc;

	(void)defaults;
	rc = lu->bs->ops->space(lu->bs, &used, &avail, &shared);
	if (rc < 0)
		return rc;
	if (ptr <= LBP_AVAILABLE)
		n += put_resource(p + n, LBP_AVAILABLE, avail, lu->block_shift, exponent,
				  shared ? LBP_SCOPE_SHARED : LBP_SCOPE_DEDICATED);
	n += put_resource(p + n, LBP_USED, used, lu->block_shift, exponent, LBP_SCOPE_DEDICATED);
	return (long)n;
}

/* SBC-4 Start-Stop Cycle Counter log page: parameter codes */
enum {
	SSC_START_STOP_CYCLES = 0x0004,
	SSC_LOAD_UNLOAD_CYCLES = 0x0006,
};

static size_t put_u32_param(uint8_t *p, uint16_t code, uint32_t v)
{
	size_t n = put_param(p, code, LOG_CTL_BINARY, 4);

	put_be32(p + n, v);
	return n + 4;
}

static long start_stop(struct scsi_lu *lu, bool defaults, uint16_t ptr, uint8_t *p)
{
	struct lu_core_state *c = lu->core;
	size_t n = 0;

	(void)defaults;
	if (ptr <= SSC_START_STOP_CYCLES)
		n += put_u32_param(
		    p + n, SSC_START_STOP_CYCLES,
		    atomic_load_explicit(&c->start_stop_cycles, memory_order_relaxed));
	n += put_u32_param(p + n, SSC_LOAD_UNLOAD_CYCLES,
			   atomic_load_explicit(&c->load_unload_cycles, memory_order_relaxed));
	return (long)n;
}

/* SPC-4 7.3.18 Self-Test Results log page: parameters 0001h (the newest)
 * to 0014h, 16 bytes each: SELF-TEST CODE and SELF-TEST RESULTS, SELF-TEST
 * SEGMENT NUMBER, ACCUMULATED POWER ON HOURS, ADDRESS OF FIRST FAILURE,
 * SENSE KEY, ADDITIONAL SENSE CODE and QUALIFIER. An unused parameter is
 * zero. */
enum {
	SELFTEST_PARAM_LEN = 0x10,
};

static long selftest_results(struct scsi_lu *lu, bool defaults, uint16_t ptr, uint8_t *p)
{
	struct selftest_log *l = &lu->core->selftest;
	size_t n = 0;

	(void)defaults;
	pthread_mutex_lock(&lu->lock);
	for (uint16_t code = ptr ? ptr : 1; code <= SELFTEST_LOG_LEN; code++) {
		uint8_t *d;

		n += put_param(p + n, code, LOG_CTL_BINARY, SELFTEST_PARAM_LEN);
		d = p + n;
		memset(d, 0, SELFTEST_PARAM_LEN);
		if (code <= l->n) {
			const struct selftest_result *e = &l->v[code - 1];

			d[0] = (uint8_t)(e->code << 5 | (e->result & 0x0f));
			d[1] = e->segment;
			put_be16(d + 2, e->hours);
			put_be64(d + 4, e->first_failure);
			d[12] = e->key & 0x0f;
			d[13] = e->asc;
			d[14] = e->ascq;
		}
		n += SELFTEST_PARAM_LEN;
	}
	pthread_mutex_unlock(&lu->lock);
	return (long)n;
}

static const struct log_page_def log_pages[] = {
    {.page = 0x00, .subpage = 0x00},
    {.page = 0x00, .subpage = 0xff},
    {.page = 0x02, .counters = true, .max_param = ERR_TOTAL_UNCORRECTED, .params = write_errors},
    {.page = 0x03, .counters = true, .max_param = ERR_TOTAL_UNCORRECTED, .params = read_errors},
    {.page = 0x05, .counters = true, .max_param = ERR_TOTAL_UNCORRECTED, .params = verify_errors},
    {.page = 0x06, .counters = true, .max_param = 0x0000, .params = non_medium_errors},
    {.page = 0x0c, .max_param = LBP_USED, .params = lbp, .present = lbp_present},
    {.page = 0x0d, .max_param = 0x0001, .params = temperature},
    {.page = 0x0e, .max_param = SSC_LOAD_UNLOAD_CYCLES, .params = start_stop},
    {.page = 0x10, .max_param = SELFTEST_LOG_LEN, .params = selftest_results},
    {.page = 0x2f, .max_param = 0x0000, .params = info_exceptions},
};

#define N_LOG_PAGES (sizeof(log_pages) / sizeof(log_pages[0]))

static bool present(struct scsi_lu *lu, const struct log_page_def *d)
{
	return !d->present || d->present(lu);
}

static const struct log_page_def *log_page_find(struct scsi_lu *lu, uint8_t page, uint8_t subpage,
						bool *page_known)
{
	*page_known = false;
	for (size_t i = 0; i < N_LOG_PAGES; i++) {
		if (log_pages[i].page != page || !present(lu, &log_pages[i]))
			continue;
		*page_known = true;
		if (log_pages[i].subpage == subpage)
			return &log_pages[i];
	}
	return NULL;
}

/* SPC-4 7.3 Supported Log Pages (00h/00h): one byte per page code;
 * Supported Log Pages and Subpages (00h/FFh): page and subpage */
static size_t supported_pages(struct scsi_lu *lu, bool subpages, uint8_t *p)
{
	size_t n = 0;

	for (size_t i = 0; i < N_LOG_PAGES; i++) {
		if (!present(lu, &log_pages[i]))
			continue;
		if (subpages) {
			p[n++] = log_pages[i].page;
			p[n++] = log_pages[i].subpage;
		} else if (log_pages[i].subpage == 0) {
			p[n++] = log_pages[i].page;
		}
	}
	return n;
}

/* ---- LOG SENSE ---- */

/* SPC-4 6.7: PC, PAGE CODE, SUBPAGE CODE and PARAMETER POINTER. */
enum sense_reason spc_parse_log_sense(struct scsi_cmd *cmd)
{
	uint8_t page = cdb_log_page_code(cmd->cdb), subpage = cdb_log_subpage_code(cmd->cdb);
	uint8_t pc = cdb_log_pc(cmd->cdb);
	bool page_known;
	const struct log_page_def *d = log_page_find(cmd->priv.lu, page, subpage, &page_known);

	if (!d)
		return page_known ? cdb_invalid_field(cmd, LOG_SUBPAGE_BYTE, 7)
				  : cdb_invalid_field(cmd, LOG_PAGE_BYTE, 5);
	/* SPC-4 6.7: no counter here has a threshold; asking a counter page
	 * for threshold values is an invalid PC. PC does not apply to list
	 * parameters (temperature, informational exceptions) nor to the
	 * supported pages pages. */
	if (d->counters && (pc == LOG_PC_THRESHOLD || pc == LOG_PC_DEFAULT_THRESHOLD))
		return cdb_invalid_field(cmd, LOG_PAGE_BYTE, 7);
	/* SPC-4 6.7: a PARAMETER POINTER above the largest parameter code of
	 * the page (the supported pages pages have none) */
	if (cdb_log_sense_param_pointer(cmd->cdb) > d->max_param)
		return cdb_invalid_field(cmd, LOG_PARAM_POINTER_BYTE, 7);
	spc_data_in(cmd, cdb10_alloc_len(cmd->cdb), SCSI_MAX_PARAM_BYTES);
	return SENSE_OK;
}

void spc_exec_log_sense(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	uint8_t page = cdb_log_page_code(cmd->cdb), subpage = cdb_log_subpage_code(cmd->cdb);
	bool defaults = cdb_log_pc(cmd->cdb) == LOG_PC_DEFAULT_CUMULATIVE, page_known;
	const struct log_page_def *d = log_page_find(cmd->priv.lu, page, subpage, &page_known);
	uint8_t buf[LOG_PAGE_MAX];
	size_t n;

	memset(buf, 0, sizeof(buf));
	if (d->params) {
		long rc = d->params(lu, defaults, cdb_log_sense_param_pointer(cmd->cdb),
				    buf + LOG_HDR_LEN);

		if (rc < 0) {
			/* the back-store could not say (its space) */
			scsi_cmd_complete(cmd, SENSE_LU_COMMUNICATION_FAILURE);
			return;
		}
		n = (size_t)rc;
		/* DS 1: the parameters are not saveable */
		buf[0] = LOG_HDR_DS | d->page;
	} else {
		buf[0] = d->subpage ? LOG_HDR_SPF : 0;
		n = supported_pages(lu, d->subpage != 0, buf + LOG_HDR_LEN);
	}
	buf[1] = d->subpage;
	put_be16(buf + 2, (uint16_t)n);
	scsi_cmd_set_data_in(cmd, buf, LOG_HDR_LEN + n);
	scsi_cmd_complete(cmd, SENSE_OK);
}

/* ---- LOG SELECT ---- */

/* SPC-4 6.6: PCR=1 resets the parameters, and takes no parameter list. */
enum sense_reason spc_parse_log_select(struct scsi_cmd *cmd)
{
	uint32_t len = cdb10_param_list_len(cmd->cdb);
	uint8_t page = cdb_log_page_code(cmd->cdb), subpage = cdb_log_subpage_code(cmd->cdb);
	bool page_known;

	if (cdb_log_select_pcr(cmd->cdb) && len)
		return cdb_invalid_field(cmd, LOG_LENGTH_BYTE, 7);
	/* SPC-4 6.6: without a parameter list PAGE CODE and SUBPAGE CODE name
	 * the pages acted on, 00h/00h all of them */
	if (!len && !log_page_find(cmd->priv.lu, page, subpage, &page_known))
		return page_known ? cdb_invalid_field(cmd, LOG_SUBPAGE_BYTE, 7)
				  : cdb_invalid_field(cmd, LOG_PAGE_BYTE, 5);
	/* SPC-4 6.6: with a parameter list the pages are named in it; PAGE
	 * CODE and SUBPAGE CODE in the CDB are then zero */
	if (len && cdb_log_page_code(cmd->cdb))
		return cdb_invalid_field(cmd, LOG_PAGE_BYTE, 5);
	if (len && cdb_log_subpage_code(cmd->cdb))
		return cdb_invalid_field(cmd, LOG_SUBPAGE_BYTE, 7);
	return spc_data_out(cmd, len);
}

void spc_exec_log_select(struct scsi_cmd *cmd)
{
	struct log_counters *c = &cmd->priv.lu->core->log;

	if (cdb_log_select_pcr(cmd->cdb)) {
		/* SPC-4 6.6: PCR=1 sets the resettable parameters (the
		 * counters) of the named pages to their default values; 00h
		 * names every page */
		uint8_t page = cdb_log_page_code(cmd->cdb);

		if (page == 0x00 || page == 0x02) {
			atomic_store_explicit(&c->write_bytes, 0, memory_order_relaxed);
			atomic_store_explicit(&c->write_uncorrected, 0, memory_order_relaxed);
		}
		if (page == 0x00 || page == 0x03) {
			atomic_store_explicit(&c->read_bytes, 0, memory_order_relaxed);
			atomic_store_explicit(&c->read_uncorrected, 0, memory_order_relaxed);
		}
		if (page == 0x00 || page == 0x05) {
			atomic_store_explicit(&c->verify_bytes, 0, memory_order_relaxed);
			atomic_store_explicit(&c->verify_uncorrected, 0, memory_order_relaxed);
		}
		if (page == 0x00 || page == 0x06)
			atomic_store_explicit(&c->non_medium, 0, memory_order_relaxed);
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	if (cmd->write_len == 0) {
		/* no parameter list, PCR=0: no page here has thresholds or
		 * parameters an application client sets, nothing changes */
		scsi_cmd_complete(cmd, SENSE_OK);
		return;
	}
	if (cmd->write_len < LOG_HDR_LEN) {
		scsi_cmd_complete(cmd, SENSE_PARAM_LIST_LENGTH_ERROR);
		return;
	}
	/* SPC-4 6.6: no parameter of any page here can be changed; the first
	 * page of the list is refused at its PAGE CODE */
	scsi_cmd_complete_sx(cmd, param_invalid_field(cmd, 0, 5), &cmd->priv.sx);
}

void log_count_bytes(struct scsi_lu *lu, bool write, uint64_t bytes)
{
	struct log_counters *c = &lu->core->log;

	stats_add(write ? &c->write_bytes : &c->read_bytes, bytes);
}

void log_count_verify_bytes(struct scsi_lu *lu, uint64_t bytes)
{
	stats_add(&lu->core->log.verify_bytes, bytes);
}

static bool is_verify(const struct scsi_cmd *cmd)
{
	switch (cdb_op(cmd->cdb)) {
	case OP_VERIFY_10:
	case OP_VERIFY_12:
	case OP_VERIFY_16:
	case OP_WRITE_AND_VERIFY_10:
	case OP_WRITE_AND_VERIFY_12:
	case OP_WRITE_AND_VERIFY_16:
		return true;
	default:
		return false;
	}
}

void log_count_non_medium_error(struct scsi_lu *lu)
{
	stats_add(&lu->core->log.non_medium, 1);
}

void log_count_medium_error(struct scsi_lu *lu, const struct scsi_cmd *cmd, bool write)
{
	struct log_counters *c = &lu->core->log;

	if (write)
		stats_add(&c->write_uncorrected, 1);
	else if (is_verify(cmd))
		stats_add(&c->verify_uncorrected, 1);
	else
		stats_add(&c->read_uncorrected, 1);
}
