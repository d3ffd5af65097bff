/* SPDX-License-Identifier: GPL-2.0-or-later */
/* tpc_vpd.c: the Third-party Copy VPD page 8Fh (SPC-4 7.8.17, SBC-4
 * 6.6.7): what the copy manager of xcopy.c (EXTENDED COPY LID1 and LID4),
 * rod.c (POPULATE TOKEN, WRITE USING TOKEN) and copy_status.c supports,
 * from limits.h. The supported commands are the CDB table's (sbc_cmds.c). Each
 * third-party copy descriptor is DESCRIPTOR TYPE (2 bytes), DESCRIPTOR
 * LENGTH (2 bytes, a multiple of 4) and its parameters. */
#include <string.h>

#include "lib/compiler.h"
#include "lib/endian.h"
#include "scsi/cdb_fields.h"
#include "scsi/limits.h"
#include "scsi/lu.h"
#include "scsi/rod.h"

enum {
	TPC_BLOCK_ROD_LIMITS = 0x0000,	    /* SBC-4 6.6.7.2 */
	TPC_SUPPORTED_COMMANDS = 0x0001,    /* SPC-4 7.8.17.4 */
	TPC_PARAMETER_DATA = 0x0004,	    /* 7.8.17.5 */
	TPC_SUPPORTED_DESCRIPTORS = 0x0008, /* 7.8.17.6 */
	TPC_SUPPORTED_CSCD_IDS = 0x000c,    /* 7.8.17.7 */
	TPC_ROD_TOKEN_FEATURES = 0x0106,    /* 7.8.17.8 */
	TPC_SUPPORTED_ROD_TYPES = 0x0108,   /* 7.8.17.9 */
	TPC_GENERAL_COPY_OPS = 0x8001,	    /* 7.8.17.10 */
	TPC_BLOCK_ROD_FEATURES_LEN = 48,    /* 7.8.17.8.2: DESCRIPTOR LENGTH 002Ch */
	TPC_ROD_TYPE_LEN = 64,		    /* 7.8.17.9.1: a ROD type descriptor */
};

/* The commands of the copy manager, by operation code and service action. */
static const uint8_t supported_commands[] = {
    OP_EXTENDED_COPY,
    4,
    0x00, /* EXTENDED COPY(LID1) */
    0x01, /* EXTENDED COPY(LID4) */
    0x10, /* POPULATE TOKEN */
    0x11, /* WRITE USING TOKEN */
    OP_RECEIVE_COPY_RESULTS,
    5,
    0x00, /* RECEIVE COPY STATUS(LID1) */
    0x03, /* RECEIVE COPY OPERATING PARAMETERS */
    0x05, /* RECEIVE COPY STATUS(LID4) */
    0x06, /* RECEIVE COPY DATA(LID4): no held data, ever */
    0x07, /* RECEIVE ROD TOKEN INFORMATION */
};
static uint8_t *desc_hdr(uint8_t *p, uint16_t type, uint16_t len)
{
	put_be16(p, type);
	put_be16(p + 2, len);
	return p + 4;
}

size_t vpd_third_party_copy(const struct scsi_lu *lu, uint8_t *buf)
{
	uint8_t *p = buf + 4, *q;
	uint32_t sh = lu->block_shift;
	size_t n;

	/* Block Device ROD Token Limits */
	q = desc_hdr(p, TPC_BLOCK_ROD_LIMITS, 0x20);
	put_be16(q + 6, ROD_MAX_RANGES); /* MAXIMUM RANGE DESCRIPTORS */
	put_be32(q + 8, ROD_MAX_INACTIVITY_S);
	put_be32(q + 12, ROD_DEFAULT_INACTIVITY_S);
	put_be64(q + 16, ROD_MAX_TOKEN_BYTES >> sh);	/* MAXIMUM TOKEN TRANSFER SIZE */
	put_be64(q + 24, ROD_OPT_TRANSFER_BYTES >> sh); /* OPTIMAL TRANSFER COUNT */
	p += 4 + 0x20;

	/* Supported Commands */
	n = (1 + sizeof(supported_commands) + 3) & ~(size_t)3;
	q = desc_hdr(p, TPC_SUPPORTED_COMMANDS, (uint16_t)n);
	q[0] = sizeof(supported_commands); /* COMMANDS SUPPORTED LIST LENGTH */
	memcpy(q + 1, supported_commands, sizeof(supported_commands));
	p += 4 + n;

	/* Parameter Data: the EXTENDED COPY limits, LID1 and LID4 alike
	 * (RECEIVE COPY OPERATING PARAMETERS) */
	q = desc_hdr(p, TPC_PARAMETER_DATA, 0x1c);
	put_be16(q + 4, XCOPY_MAX_TARGET_DESCRIPTORS); /* MAXIMUM CSCD DESCRIPTOR COUNT */
	put_be16(q + 6, XCOPY_MAX_SEGMENT_DESCRIPTORS);
	put_be32(q + 8, XCOPY_MAX_DESCRIPTOR_LIST_BYTES);
	put_be32(q + 12, 0); /* MAXIMUM INLINE DATA LENGTH */
	p += 4 + 0x1c;

	/* Supported Descriptors: block to block segment, identification CSCD */
	q = desc_hdr(p, TPC_SUPPORTED_DESCRIPTORS, 4);
	q[0] = 2;
	q[1] = 0x02;
	q[2] = 0xe4;
	p += 4 + 4;

	/* Supported CSCD IDs: none above 07FFh (no ROD CSCD descriptor, so
	 * no F800h; no FFFFh) */
	q = desc_hdr(p, TPC_SUPPORTED_CSCD_IDS, 4);
	put_be16(q, 0);
	p += 4 + 4;

	/* ROD Token Features: no remote tokens; one block ROD device type
	 * specific features descriptor */
	q = desc_hdr(p, TPC_ROD_TOKEN_FEATURES, 44 + TPC_BLOCK_ROD_FEATURES_LEN);
	q[0] = 0x00;				/* REMOTE TOKENS: none */
	put_be32(q + 12, 1);			/* MINIMUM TOKEN LIFETIME */
	put_be32(q + 16, ROD_MAX_INACTIVITY_S); /* MAXIMUM TOKEN LIFETIME */
	put_be32(q + 20, ROD_MAX_INACTIVITY_S); /* MAXIMUM TOKEN INACTIVITY TIMEOUT */
	put_be16(q + 42, TPC_BLOCK_ROD_FEATURES_LEN);
	q += 44;
	q[0] = 0x00; /* DESCRIPTOR FORMAT 000b, direct access block device */
	put_be16(q + 2, TPC_BLOCK_ROD_FEATURES_LEN - 4);
	put_be16(q + 6, 1);			  /* OPTIMAL BLOCK ROD LENGTH GRANULARITY */
	put_be64(q + 8, ROD_MAX_TOKEN_BYTES);	  /* MAXIMUM BYTES IN BLOCK ROD */
	put_be64(q + 16, ROD_OPT_TRANSFER_BYTES); /* OPTIMAL BYTES IN BLOCK ROD TRANSFER */
	put_be64(q + 24, ROD_OPT_TRANSFER_BYTES); /* OPTIMAL BYTES TO TOKEN PER SEGMENT */
	put_be64(q + 32, ROD_OPT_TRANSFER_BYTES); /* OPTIMAL BYTES FROM TOKEN PER SEGMENT */
	p += 4 + 44 + TPC_BLOCK_ROD_FEATURES_LEN;

	/* Supported ROD Types, in ascending order: the point in time copies
	 * in and out, the zero token in only */
	q = desc_hdr(p, TPC_SUPPORTED_ROD_TYPES, 4 + 3 * TPC_ROD_TYPE_LEN);
	put_be16(q + 2, 3 * TPC_ROD_TYPE_LEN); /* ROD TYPE DESCRIPTORS LENGTH */
	q += 4;
	put_be32(q, ROD_TYPE_PIT_DEFAULT);
	q[4] = 0x03; /* TOKEN_IN, TOKEN_OUT */
	q += TPC_ROD_TYPE_LEN;
	put_be32(q, ROD_TYPE_PIT_VULNERABLE);
	q[4] = 0x03;
	q += TPC_ROD_TYPE_LEN;
	put_be32(q, ROD_TYPE_BLOCK_ZERO);
	q[4] = 0x02; /* TOKEN_IN */
	p += 4 + 4 + 3 * TPC_ROD_TYPE_LEN;

	/* General Copy Operations */
	q = desc_hdr(p, TPC_GENERAL_COPY_OPS, 0x20);
	put_be32(q, XCOPY_MAX_CONCURRENT);	  /* TOTAL CONCURRENT COPIES */
	put_be32(q + 4, XCOPY_MAX_CONCURRENT);	  /* MAXIMUM IDENTIFIED CONCURRENT COPIES */
	put_be32(q + 8, XCOPY_MAX_SEGMENT_BYTES); /* MAXIMUM SEGMENT LENGTH */
	q[12] = (uint8_t)sh;			  /* DATA SEGMENT GRANULARITY (log2) */
	q[13] = 0;				  /* INLINE DATA GRANULARITY */
	p += 4 + 0x20;

	return (size_t)(p - buf);
}
