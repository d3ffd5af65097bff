/* SPDX-License-Identifier: GPL-2.0-or-later */
/* alua_priv.h: the target port group objects shared by alua.c (registry,
 * states, control plane) and alua_cmds.c (REPORT / SET TARGET PORT GROUPS).
 * Locking rules: alua.c. */
#ifndef UT_SCSI_ALUA_PRIV_H
#define UT_SCSI_ALUA_PRIV_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "lib/list.h"
#include "scsi/alua.h"

/* The access state of one logical unit through a group, when it differs
 * from the group's default or was set on its own. */
struct alua_lu_state {
	char *lu_name;	/* scsi_lu name (the back-store name) */
	uint8_t state;	/* what commands see: TRANSITIONING during an explicit transition */
	uint8_t target; /* the state the running transition leads to (= state otherwise) */
	uint8_t status; /* RTPG STATUS CODE */
	bool busy;	/* an explicit transition (SET TARGET PORT GROUPS) is running */
};

struct alua_group {
	struct list_node node; /* the registry, sorted by id */
	uint16_t id;

	/* alua_lock */
	unsigned refs; /* definition + ports + running transitions */
	bool defined;  /* scsi_alua_group_define() (else implicit) */
	char *name;
	bool preferred;
	bool explicit_ok;
	uint32_t transition_ms;
	struct scsi_tport **ports; /* sorted by relative target port identifier */
	unsigned nports, cap_ports;

	/* group->lock (state also read without it) */
	pthread_mutex_t lock;
	_Atomic uint8_t state; /* default: every LU without an entry in lus */
	uint8_t status;	       /* RTPG STATUS CODE of the default */
	struct alua_lu_state *lus;
	unsigned nlus, cap_lus;
	atomic_uint nlus_pub; /* nlus, for the lock-free fast path */
};

extern pthread_mutex_t alua_lock;
extern struct list_node alua_groups; /* struct alua_group, sorted by id; alua_lock */

bool alua_state_valid(unsigned s);
/* alua_lock held */
struct alua_group *alua_group_find_locked(uint16_t id);
void alua_group_get_locked(struct alua_group *g);
void alua_group_put_locked(struct alua_group *g);
/* Whether the port's target maps lu (in any of its LUN maps). */
bool alua_port_reaches_locked(struct scsi_tport *tp, const struct scsi_lu *lu);
/* group->lock held: the entry of lu_name (NULL if none / ENOMEM) */
struct alua_lu_state *alua_lu_find_locked(struct alua_group *g, const char *lu_name);
struct alua_lu_state *alua_lu_get_locked(struct alua_group *g, const char *lu_name);
/* State and RTPG status code of lu_name through g (takes group->lock). */
void alua_lu_state_report(struct alua_group *g, const char *lu_name, uint8_t *state,
			  uint8_t *status);
/* Run the change hook (no lock held). */
void alua_notify_change(uint16_t id, const char *lu_name);

#endif
