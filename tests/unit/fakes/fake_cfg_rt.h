/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_cfg_rt.h: the neighbours of the config layer's running side
 * (apply.c, live*.c) for its unit tests: the back-store registry, the
 * core's LUs, LUN maps and targets, ALUA groups, the iSCSI fabric's
 * targets and portal groups, and the fabric access policy (auth_apply.c).
 *
 * They record what was built (the structures below are the fakes' own, so
 * that tests can look inside), count the objects alive, give each object a
 * serial number (an object replaced by another of the same name shows),
 * and fail the n-th call of a kind on request (fk.fail_at). */
#ifndef UT_TESTS_FAKE_CFG_RT_H
#define UT_TESTS_FAKE_CFG_RT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backstore/backstore.h"
#include "fabric/iscsi/iscsi.h"
#include "scsi/alua.h"
#include "scsi/scsi.h"

enum fake_call {
	/* the calls cfg_apply() makes */
	F_BS_OPEN,
	F_LU_CREATE,
	F_MAP_CREATE,
	F_MAP_ADD,
	F_TARGET_CREATE,
	F_ACL_SET,
	F_ITARGET_ADD,
	F_TPG_ADD,
	F_PORTAL_ADD,
	F_NAPPLY,
	/* and those only changes while running make */
	F_LU_RESIZE = F_NAPPLY,
	F_SET_PORT_GROUP,
	F_ALUA_DEFINE,
	F_AUTH_TARGET,
	F_NCALLS,
};

#define FAKE_NAME_MAX 256
#define FAKE_MAX      16

struct fake_rt {
	int calls[F_NCALLS];
	int fail_at[F_NCALLS]; /* 1-based call number that fails; 0 = none */
	int live_devs, live_lus, live_maps, live_targets, live_itargets, listening;
	unsigned serial; /* the last object id given */
	int iscsi_inits;
	struct iscsi_settings last_settings;
	int auth_targets, auth_discovery;
	char auth_target[FAKE_MAX][FAKE_NAME_MAX]; /* cfg_auth_apply_target() calls */
	/* iscsi_target_drop_initiator(): the calls; what it answers */
	int drops;
	char dropped[FAKE_MAX][FAKE_NAME_MAX];
	unsigned drop_sessions;
};
extern struct fake_rt fk;

/* ALUA (scsi/alua.h): the calls, recorded; and which ids are defined now */
struct fake_alua {
	int defined, set;
	uint16_t def_id[FAKE_MAX];
	struct scsi_alua_group_attrs def[FAKE_MAX];
	char set_lu[FAKE_MAX][32];
	uint8_t set_state[FAKE_MAX];
	bool is_defined[64];
	uint8_t state[64];
};
extern struct fake_alua alua;

struct fake_dev {
	struct bs_dev dev;
	char path[256];
	struct bs_params p;
};

struct scsi_lu {
	char name[64];
	struct bs_dev *bs;
	struct scsi_lu_attrs attrs;
	int refs;
	unsigned id;
};

#define FAKE_MAP_MAX 16
struct scsi_lun_map {
	int refs;
	unsigned id;
	size_t n;
	struct {
		uint32_t lun;
		struct scsi_lu *lu;
		bool ro;
	} e[FAKE_MAP_MAX];
};

struct scsi_target {
	char name[FAKE_NAME_MAX];
	unsigned id;
	struct scsi_lun_map *default_map;
	bool demo;
	size_t nacls;
	struct {
		char name[FAKE_NAME_MAX];
		struct scsi_lun_map *map;
	} acl[8];
};

struct iscsi_tpg {
	uint16_t tag, rel, group;
	bool deleted;
	size_t nportals;
	char portals[8][64];
	struct iscsi_redirect redirect;
};

struct iscsi_target {
	struct scsi_target *st;
	unsigned id;
	char alias[FAKE_NAME_MAX];
	size_t ntpgs;
	struct iscsi_tpg tpg[8];
	struct iscsi_redirect redirect;
	bool async_events;
};

/* every iSCSI target built, in order (NULL once deleted) */
extern struct iscsi_target *itargets[FAKE_MAX];
extern size_t nitargets;

/* Everything recorded back to zero (the objects alive stay alive). */
void fake_rt_reset(void);
/* The same but for the counts of objects alive and the serial numbers. */
void fake_rt_reset_calls(void);
/* Every object the fakes made is gone (cmocka assertions). */
void fake_rt_assert_nothing_live(void);
/* Counts a call of kind c; true when it is the one to fail. */
bool fake_fail(enum fake_call c);
/* The entry of LUN lun in m, or NULL. */
const struct scsi_lu *fake_map_lu(const struct scsi_lun_map *m, uint32_t lun, bool *ro);
/* The map of an initiator's ACL in the core, or NULL. */
struct scsi_lun_map *fake_acl_map(const struct scsi_target *t, const char *initiator);
/* Has cfg_auth_apply_target() been called for this target (since reset)? */
int fake_auth_count(const char *target);

#endif
