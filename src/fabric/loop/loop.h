/* SPDX-License-Identifier: GPL-2.0-or-later */
/* loop.h: the loop fabric, an in-process SCSI transport for tests and
 * fuzzing. A loop port is one initiator port connected through one target
 * port of a target (an I_T nexus with the LUN map scsi_target_access gives
 * the initiator). Each port owns a reactor running on its own thread: every
 * command and TMF of the port runs there, as with a real fabric connection.
 *
 * Synchronous use: loop_submit() returns when the command has completed.
 * Asynchronous use (ordering and TMF tests): loop_submit_async() returns a
 * task to loop_wait() for; with LOOP_HOLD_DATA a command that wants
 * Data-Out stops after scsi_cmd_setup(), as a fabric waiting for Data-Out
 * would, until loop_send_data() (or until the core aborts it:
 * cmd_abort_pending).
 *
 * No global state: ports may be created and destroyed repeatedly (libFuzzer
 * harnesses). A port must be destroyed before its target. */
#ifndef UT_LOOP_H
#define UT_LOOP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scsi/scsi.h"

struct loop_port;
struct loop_task;

struct loop_result {
	uint8_t status;	    /* SAM status */
	bool no_response;   /* the core suppressed the response (aborted task) */
	uint8_t resid_kind; /* enum scsi_resid */
	uint32_t resid;
	uint32_t data_in_len; /* bytes copied to the caller's buffer */
	uint8_t sense_len;
	uint8_t sense[SCSI_SENSE_MAX];
};

/* Creates the target port rel_port_id of t (port name "<target>,t,0x<id>";
 * an existing port with that id and name is shared) and an I_T nexus for
 * initiator_name (initiator port "<name>,i,0x000000000001"). NULL when the
 * initiator has no access (scsi_target_access) or on allocation failure. */
struct loop_port *loop_create(struct scsi_target *t, uint16_t rel_port_id,
			      const char *initiator_name);
/* What the port's initiator may do beyond commands (the loop fabric's
 * access policy; scsi_nexus_info). */
struct loop_port_opts {
	bool target_reset; /* TARGET WARM RESET and TARGET COLD RESET */
	/* a transport without QUERY TASK, QUERY TASK SET, QUERY ASYNCHRONOUS
	 * EVENT and I_T NEXUS RESET (scsi_nexus_info.query_tmfs) */
	bool no_query_tmfs;
};
/* loop_create() with opts (NULL: none of them). */
struct loop_port *loop_create_opts(struct scsi_target *t, uint16_t rel_port_id,
				   const char *initiator_name, const struct loop_port_opts *opts);
/* I_T nexus loss (outstanding tasks are aborted and complete with
 * no_response), then frees the port. Tasks not yet waited for stay valid
 * for loop_wait(). */
void loop_destroy(struct loop_port *lp);

/* The buffer budget and reserve of the port's next commands
 * (scsi_cmd.buf_budget, buf_reserve; 0: none), as a fabric sets them from its
 * per-nexus share of memory. */
void loop_set_buf_limits(struct loop_port *lp, uint32_t budget, uint32_t reserve);
struct scsi_nexus *loop_nexus(struct loop_port *lp);
struct reactor *loop_reactor(struct loop_port *lp);

/* Run one command. dir/len are what the initiator declares (R/W bits and
 * Expected Data Transfer Length); data holds len bytes of Data-Out for
 * SCSI_DIR_WRITE, or receives up to len bytes of Data-In for SCSI_DIR_READ.
 * attr: enum scsi_task_attr. Returns 0, or -ENOMEM. */
int loop_submit(struct loop_port *lp, uint64_t lun, const uint8_t *cdb, size_t cdb_len,
		enum scsi_dir dir, void *data, uint32_t len, uint8_t attr, struct loop_result *res);

enum {
	LOOP_HOLD_DATA = 1u << 0, /* stop after setup until loop_send_data() */
	/* with LOOP_HOLD_DATA: set up as ahead of its turn (scsi_cmd.enter_later,
	 * as iSCSI does for a command ahead of CmdSN order); loop_send_data()
	 * enters it into the task set, then runs it */
	LOOP_ENTER_LATER = 1u << 1,
	/* the command may take its Data-In lent by the back-store
	 * (scsi_cmd.lend_ok); when it completes, loop_wait_setup() returns and
	 * the Data-In is copied and the command released only at
	 * loop_send_data(), as a transport's later send would */
	LOOP_LEND = 1u << 2,
};

/* Start a command; data must stay valid until loop_wait(). tag identifies
 * it for ABORT TASK / QUERY TASK. NULL on allocation failure. */
struct loop_task *loop_submit_async(struct loop_port *lp, uint64_t lun, const uint8_t *cdb,
				    size_t cdb_len, enum scsi_dir dir, void *data, uint32_t len,
				    uint8_t attr, uint64_t tag, unsigned flags);
/* LOOP_HOLD_DATA: wait until the task has been set up (or completed). */
void loop_wait_setup(struct loop_task *t);
/* LOOP_HOLD_DATA: deliver the Data-Out and execute. LOOP_LEND, once
 * completed: deliver the Data-In and release the command. */
void loop_send_data(struct loop_task *t);
bool loop_task_done(struct loop_task *t);
/* Wait for completion, copy the result, free the task. */
void loop_wait(struct loop_task *t, struct loop_result *res);

/* Run a task management function (enum scsi_tmf_func) on the port's reactor
 * and wait for its response (enum scsi_tmf_response). */
int loop_tmf(struct loop_port *lp, uint8_t func, uint64_t lun, uint64_t ref_tag);
/* loop_tmf() and the ADDITIONAL RESPONSE INFORMATION (QUERY ASYNCHRONOUS
 * EVENT: sense key, ASC, ASCQ) into add_info when not NULL. */
int loop_tmf_ex(struct loop_port *lp, uint8_t func, uint64_t lun, uint64_t ref_tag,
		uint8_t add_info[3]);

#endif
