/* SPDX-License-Identifier: GPL-2.0-or-later */
/* sense.h: every SCSI outcome of the core as one enum value; one table
 * (sense.c) maps each to status + sense key/ASC/ASCQ. Handlers return or pass
 * a reason; nothing else in the core spells a sense key.
 *
 * Sense data format (fixed, SPC-4 4.5.3, or descriptor, 4.5.2) follows the
 * Control mode page D_SENSE bit of the logical unit. */
#ifndef UT_SCSI_SENSE_H
#define UT_SCSI_SENSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SAM-5 status codes */
enum {
	SAM_STAT_GOOD = 0x00,
	SAM_STAT_CHECK_CONDITION = 0x02,
	SAM_STAT_CONDITION_MET = 0x04,
	SAM_STAT_BUSY = 0x08,
	SAM_STAT_RESERVATION_CONFLICT = 0x18,
	SAM_STAT_TASK_SET_FULL = 0x28,
	SAM_STAT_ACA_ACTIVE = 0x30,
	SAM_STAT_TASK_ABORTED = 0x40,
};

/* SPC-4 sense keys */
enum {
	SENSE_KEY_NO_SENSE = 0x0,
	SENSE_KEY_RECOVERED_ERROR = 0x1,
	SENSE_KEY_NOT_READY = 0x2,
	SENSE_KEY_MEDIUM_ERROR = 0x3,
	SENSE_KEY_HARDWARE_ERROR = 0x4,
	SENSE_KEY_ILLEGAL_REQUEST = 0x5,
	SENSE_KEY_UNIT_ATTENTION = 0x6,
	SENSE_KEY_DATA_PROTECT = 0x7,
	SENSE_KEY_BLANK_CHECK = 0x8,
	SENSE_KEY_COPY_ABORTED = 0xa,
	SENSE_KEY_ABORTED_COMMAND = 0xb,
	SENSE_KEY_VOLUME_OVERFLOW = 0xd,
	SENSE_KEY_MISCOMPARE = 0xe,
};

enum sense_reason {
	SENSE_OK = 0,	     /* GOOD */
	SENSE_CONDITION_MET, /* status CONDITION MET (PRE-FETCH) */

	/* ILLEGAL REQUEST */
	SENSE_INVALID_OPCODE,			   /* 20/00 */
	SENSE_INVALID_FIELD_IN_CDB,		   /* 24/00 + field pointer */
	SENSE_INVALID_FIELD_IN_PARAM_LIST,	   /* 26/00 + field pointer */
	SENSE_PARAM_LIST_LENGTH_ERROR,		   /* 1A/00 */
	SENSE_PARAM_NOT_SUPPORTED,		   /* 26/01 */
	SENSE_PARAM_VALUE_INVALID,		   /* 26/02 */
	SENSE_INVALID_RELEASE_OF_PR,		   /* 26/04 */
	SENSE_TOO_MANY_TARGET_DESCRIPTORS,	   /* 26/06 */
	SENSE_UNSUPPORTED_TARGET_DESCRIPTOR_TYPE,  /* 26/07 */
	SENSE_TOO_MANY_SEGMENT_DESCRIPTORS,	   /* 26/08 */
	SENSE_UNSUPPORTED_SEGMENT_DESCRIPTOR_TYPE, /* 26/09 */
	SENSE_INLINE_DATA_LENGTH_EXCEEDED,	   /* 26/0B */
	SENSE_LBA_OUT_OF_RANGE,			   /* 21/00 */
	SENSE_LUN_NOT_SUPPORTED,		   /* 25/00 */
	SENSE_SAVING_PARAMS_NOT_SUPPORTED,	   /* 39/00 */
	SENSE_COMMAND_SEQUENCE_ERROR,		   /* 2C/00 */
	SENSE_MEDIUM_REMOVAL_PREVENTED,		   /* 53/02 */
	SENSE_INSUFFICIENT_REGISTRATION_RESOURCES, /* 55/04 */
	SENSE_UNALIGNED_WRITE,			   /* 21/04 UNALIGNED WRITE COMMAND */
	SENSE_OPERATION_IN_PROGRESS,		   /* 00/16 (a duplicate list identifier) */

	/* NOT READY */
	SENSE_NOT_READY_CAUSE_NOT_REPORTABLE,  /* 04/00 */
	SENSE_NOT_READY_BECOMING_READY,	       /* 04/01 */
	SENSE_NOT_READY_INIT_REQUIRED,	       /* 04/02 stopped: START UNIT required */
	SENSE_NOT_READY_MANUAL_INTERVENTION,   /* 04/03 */
	SENSE_NOT_READY_FORMAT_IN_PROGRESS,    /* 04/04, progress indication */
	SENSE_NOT_READY_SELF_TEST_IN_PROGRESS, /* 04/09, progress indication */
	SENSE_NOT_READY_SANITIZE_IN_PROGRESS,  /* 04/1B, progress indication */
	SENSE_NOT_READY_ALUA_TRANSITION,       /* 04/0A */
	SENSE_NOT_READY_ALUA_STANDBY,	       /* 04/0B */
	SENSE_NOT_READY_ALUA_UNAVAILABLE,      /* 04/0C */
	SENSE_NOT_READY_ALUA_OFFLINE,	       /* 04/12 */
	SENSE_MEDIUM_NOT_PRESENT,	       /* 3A/00 */
	SENSE_MEDIUM_NOT_PRESENT_TRAY_OPEN,    /* 3A/02 */

	/* MEDIUM ERROR (information field = failing LBA) */
	SENSE_UNRECOVERED_READ_ERROR,  /* 11/00 */
	SENSE_WRITE_ERROR,	       /* 0C/00 */
	SENSE_MEDIUM_FORMAT_CORRUPTED, /* 31/00 (after a failed SANITIZE) */
	SENSE_SANITIZE_FAILED,	       /* 31/03 */
	SENSE_FORMAT_FAILED,	       /* 31/01 FORMAT COMMAND FAILED */

	/* HARDWARE ERROR */
	SENSE_INTERNAL_TARGET_FAILURE,	/* 44/00 */
	SENSE_LU_COMMUNICATION_FAILURE, /* 08/00 */
	SENSE_LU_FAILED_SELF_TEST,	/* 3E/03 */

	/* DATA PROTECT */
	SENSE_WRITE_PROTECTED,	       /* 27/00 */
	SENSE_SPACE_ALLOCATION_FAILED, /* 27/07 */

	/* ABORTED COMMAND */
	SENSE_ABORTED_INSUFFICIENT_RESOURCES,	  /* 55/03 */
	SENSE_ABORTED_PROTOCOL_CRC_ERROR,	  /* 47/05 data digest error */
	SENSE_ABORTED_DATA_OFFSET_ERROR,	  /* 4B/05 */
	SENSE_ABORTED_TOO_MUCH_WRITE_DATA,	  /* 4B/02 */
	SENSE_ABORTED_INITIATOR_RESPONSE_TIMEOUT, /* 4B/06 */
	SENSE_ABORTED_INVALID_FIELD_IN_CIU, /* 0E/03 invalid field in command information unit */
	SENSE_ABORTED_UNEXPECTED_UNSOLICITED_DATA, /* 0C/0C (RFC 7143 11.4.7.2) */
	SENSE_PI_GUARD_CHECK_FAILED,		   /* 10/01 (SBC-4 4.22) */
	SENSE_PI_APP_TAG_CHECK_FAILED,		   /* 10/02 */
	SENSE_PI_REF_TAG_CHECK_FAILED,		   /* 10/03 */
	SENSE_ABORTED_COPY_TARGET_UNREACHABLE,	   /* COPY ABORTED 0D/02 copy target device not
						      reachable */
	SENSE_COPY_ABORTED_THIRD_PARTY_FAILURE,	   /* COPY ABORTED 0D/01 */
	/* a copy source block (XCOPY, ODX) failing its protection information
	 * check: COPY ABORTED with the check's code (sbc_pi_copy_source()) */
	SENSE_COPY_ABORTED_PI_GUARD,   /* COPY ABORTED 10/01 */
	SENSE_COPY_ABORTED_PI_APP_TAG, /* COPY ABORTED 10/02 */
	SENSE_COPY_ABORTED_PI_REF_TAG, /* COPY ABORTED 10/03 */
	/* ROD tokens (SPC-4 5.16.6, rod.c): COPY ABORTED with */
	SENSE_TOKEN_UNSUPPORTED_TYPE,	    /* 23/01 UNSUPPORTED TOKEN TYPE */
	SENSE_TOKEN_UNKNOWN,		    /* 23/04 TOKEN UNKNOWN */
	SENSE_TOKEN_CORRUPT,		    /* 23/05 TOKEN CORRUPT */
	SENSE_TOKEN_EXPIRED,		    /* 23/07 TOKEN EXPIRED */
	SENSE_TOKEN_CANCELLED,		    /* 23/08 TOKEN CANCELLED */
	SENSE_TOKEN_INSUFFICIENT_RESOURCES, /* 55/0D INSUFFICIENT RESOURCES TO CREATE ROD TOKEN */

	/* MISCOMPARE (information field = offset of the first differing byte) */
	SENSE_MISCOMPARE_DURING_VERIFY, /* 1D/00 */
	/* VERIFY BYTCHK 01b with VRPROTECT (SBC-4 5.33): a stored tuple's field
	 * differs from the Data-Out's (information field = the LBA) */
	SENSE_MISCOMPARE_PI_GUARD,   /* 10/01 */
	SENSE_MISCOMPARE_PI_APP_TAG, /* 10/02 */
	SENSE_MISCOMPARE_PI_REF_TAG, /* 10/03 */

	/* UNIT ATTENTION */
	SENSE_UA_POWER_ON_RESET,	  /* 29/00 */
	SENSE_UA_POWER_ON_OCCURRED,	  /* 29/01 */
	SENSE_UA_BUS_RESET,		  /* 29/02 */
	SENSE_UA_DEVICE_RESET,		  /* 29/03 BUS DEVICE RESET FUNCTION OCCURRED (LU reset) */
	SENSE_UA_I_T_NEXUS_LOSS,	  /* 29/07 */
	SENSE_UA_MODE_PARAMETERS_CHANGED, /* 2A/01 */
	SENSE_UA_RESERVATIONS_PREEMPTED,  /* 2A/03 */
	SENSE_UA_RESERVATIONS_RELEASED,	  /* 2A/04 */
	SENSE_UA_REGISTRATIONS_PREEMPTED, /* 2A/05 */
	SENSE_UA_ASYMMETRIC_ACCESS_STATE_CHANGED,	/* 2A/06 */
	SENSE_UA_PRIORITY_CHANGED,			/* 2A/08 */
	SENSE_UA_CAPACITY_DATA_CHANGED,			/* 2A/09 */
	SENSE_UA_COMMANDS_CLEARED_BY_ANOTHER_INITIATOR, /* 2F/00 */
	SENSE_UA_COMMANDS_CLEARED_BY_POWER_LOSS,	/* 2F/01 */
	SENSE_UA_INQUIRY_DATA_CHANGED,			/* 3F/03 */
	SENSE_UA_REPORTED_LUNS_CHANGED,			/* 3F/0E */
	SENSE_UA_THIN_PROV_SOFT_THRESHOLD,		/* 38/07 */
	SENSE_UA_MEDIUM_CHANGED, /* 28/00 NOT READY TO READY CHANGE, MEDIUM MAY HAVE CHANGED */

	/* status-only outcomes (no sense data) */
	SENSE_RESERVATION_CONFLICT, /* status RESERVATION CONFLICT */
	SENSE_BUSY,		    /* status BUSY */
	SENSE_TASK_SET_FULL,	    /* status TASK SET FULL */
	SENSE_TASK_ABORTED,	    /* status TASK ABORTED */
	SENSE_ACA_ACTIVE,	    /* status ACA ACTIVE (SAM-5 5.3.1, 5.9: aca.c) */

	SENSE_REASON_COUNT
};

struct sense_entry {
	uint8_t status; /* SAM status for this reason */
	uint8_t key;
	uint8_t asc;
	uint8_t ascq;
};
extern const struct sense_entry sense_table[SENSE_REASON_COUNT];

/* Optional parts of the sense data. */
struct sense_extra {
	bool info_valid; /* INFORMATION field (LBA, miscompare offset, ...) */
	uint64_t info;
	bool fp_valid;	     /* SENSE KEY SPECIFIC: field pointer (SPC-4 4.5.2.4.2) */
	bool fp_cdb;	     /* C/D: 1 = error in the CDB, 0 = in the parameter list */
	bool fp_bit_valid;   /* BPV */
	uint8_t fp_bit;	     /* bit pointer 0..7 */
	uint16_t fp_byte;    /* field pointer (byte) */
	bool progress_valid; /* SENSE KEY SPECIFIC: progress indication (0..65535) */
	uint16_t progress;
};

#define SCSI_SENSE_MAX 96

/* Writes the sense data for r (fixed format when !descriptor) into buf and
 * returns its length (0 for reasons that carry no sense data, e.g. GOOD or
 * RESERVATION CONFLICT). x may be NULL. */
size_t sense_build(uint8_t *buf, size_t size, enum sense_reason r, bool descriptor,
		   const struct sense_extra *x);
static inline uint8_t sense_status(enum sense_reason r)
{
	return sense_table[r].status;
}
const char *sense_reason_name(enum sense_reason r);

#endif
