/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_core.h: a small stand-in for the SCSI core (src/scsi) so that the
 * iSCSI fabric can be unit-tested alone. It implements the scsi.h calls the
 * fabric makes with just enough behaviour: READ(10)/WRITE(10) on a RAM
 * array of 512-byte blocks, TEST UNIT READY, commands held until the test
 * completes them, task management and nexus loss that abort held tasks
 * (target resets refused, as by the core, to a nexus created without
 * scsi_nexus_info.target_reset). */
#ifndef UT_TESTS_ISCSI_FAKE_CORE_H
#define UT_TESTS_ISCSI_FAKE_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "scsi/scsi.h"

#define FAKE_BLOCKS 256u
#define FAKE_BS	    512u

struct scsi_target;

struct fake_core {
	uint8_t disk[FAKE_BLOCKS * FAKE_BS];
	bool hold;	       /* exec'd commands wait for fake_complete_held() */
	bool loss_skips_setup; /* nexus loss ignores set-up tasks (outside the task set) */
	int access_rc;	       /* scsi_target_access result */
	const char *acl_name;  /* scsi_target_acl_get finds this name only */
	unsigned nexus_created;
	unsigned nexus_lost;
	unsigned nexus_destroyed;
	unsigned live_cmds; /* set up, not released */
	unsigned execs;
	unsigned tmfs;
	int tmf_holds; /* scsi_tmf_hold minus scsi_tmf_release */
	uint8_t last_tmf_func;
	uint64_t last_tmf_ref;
	uint8_t tmf_response; /* answer for TMFs */
	uint16_t last_fabric_error;
	bool buf_short;		/* no data buffer for commands that can wait (buf_wait_ok) */
	bool lend;		/* READs of lend_ok commands: data_in_src into disk */
	unsigned unlent;	/* scsi_cmd_unlend() calls that copied */
	bool last_target_reset; /* scsi_nexus_info.target_reset of the last nexus */
	/* the tags (ITTs) of the commands in the order they entered the task
	 * set: at set-up, or at scsi_cmd_enter() for enter_later ones */
	uint64_t entered[64];
	unsigned nentered;
	char last_iport[300];
	uint8_t last_tid[300];
	size_t last_tid_len;
};
extern struct fake_core fake;

void fake_reset(void);
struct scsi_target *fake_target(const char *name);
void fake_target_free(struct scsi_target *t);
/* A LUN map of its own (the core's ACL and demo maps are one shared fake
 * map); its reference count. */
struct scsi_lun_map *fake_map_new(void);
int fake_map_refs(const struct scsi_lun_map *m);
/* Complete every held command (GOOD). Returns how many. */
unsigned fake_complete_held(void);

#endif
