/* SPDX-License-Identifier: GPL-2.0-or-later */
/* limits.h: the device server limits the core enforces and advertises (Block
 * Limits VPD page B0h, EXTENDED COPY operating parameters). In bytes where the
 * value scales with the logical block size; VPD pages convert to blocks. */
#ifndef UT_SCSI_LIMITS_H
#define UT_SCSI_LIMITS_H

/* largest data transfer of one command: the bound on per-command buffers.
 * 32 MiB: libiscsi WriteSame16.Unmap writes and reads 65536 blocks of 512
 * bytes in single commands without looking at MAXIMUM TRANSFER LENGTH. */
#define SCSI_MAX_XFER_BYTES (32u << 20)
#define SCSI_OPT_XFER_BYTES (1u << 20)
/* parameter lists / allocation lengths of non-data commands */
#define SCSI_MAX_PARAM_BYTES (64u << 10)

/* COMPARE AND WRITE: one byte in VPD B0h, so at most 255 blocks */
#define SBC_MAX_CAW_BLOCKS 255u
/* UNMAP */
#define SBC_MAX_UNMAP_DESCRIPTORS   256u
#define SBC_MAX_UNMAP_BYTES	    (1ull << 30)
#define SBC_UNMAP_GRANULARITY_BYTES 4096u
/* WRITE SAME: the longest single command (VPD B0h MAXIMUM WRITE SAME LENGTH) */
#define SBC_MAX_WRITE_SAME_BYTES (1ull << 30)
/* WRITE ATOMIC (16): 256 blocks of up to 4096 bytes (libiscsi
 * WriteAtomic16.Simple writes 1..256 blocks atomically and expects GOOD) */
#define SBC_MAX_ATOMIC_BYTES	     (1u << 20)
#define SBC_ATOMIC_ALIGNMENT_BYTES   512u
#define SBC_ATOMIC_GRANULARITY_BYTES 512u

/* EXTENDED COPY (LID1) operating parameters (SPC-4 6.18.4) */
#define XCOPY_MAX_TARGET_DESCRIPTORS	8u
#define XCOPY_MAX_SEGMENT_DESCRIPTORS	64u
#define XCOPY_MAX_DESCRIPTOR_LIST_BYTES 4096u
#define XCOPY_MAX_SEGMENT_BYTES		(32u << 20)
#define XCOPY_MAX_CONCURRENT		16u

/* ROD tokens: POPULATE TOKEN / WRITE USING TOKEN (SBC-4 5.x, rod.c), as
 * the Third-party Copy VPD page (8Fh) reports them */
#define ROD_MAX_RANGES		  64u		 /* MAXIMUM RANGE DESCRIPTORS */
#define ROD_MAX_TOKEN_BYTES	  (256ull << 20) /* MAXIMUM TOKEN TRANSFER SIZE */
#define ROD_OPT_TRANSFER_BYTES	  (64ull << 20)	 /* OPTIMAL TRANSFER COUNT */
#define ROD_DEFAULT_INACTIVITY_S  60u		 /* DEFAULT INACTIVITY TIMEOUT */
#define ROD_MAX_INACTIVITY_S	  600u		 /* MAXIMUM INACTIVITY TIMEOUT */
#define ROD_MAX_TOKENS_PER_TARGET 128u		 /* live tokens of one SCSI target */
#define ROD_MAX_RANGES_PER_TARGET 2048u		 /* their range descriptors together */
#define ROD_RESULTS_PER_TARGET	  64u		 /* RECEIVE ROD TOKEN INFORMATION results */

#endif
