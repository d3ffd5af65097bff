/* SPDX-License-Identifier: GPL-2.0-or-later */
/* ua.c: unit attention conditions (SPC-4 5.14). Pending conditions are a bit
 * mask per I_T nexus record (struct lu_itn): setting and taking them are
 * single atomic operations, so the per-command check costs one load. */
#include "scsi/ua.h"

#include "scsi/core.h"
#include "scsi/lbp_threshold.h"

const enum sense_reason ua_reason[UA_COUNT] = {
    [UA_POWER_ON] = SENSE_UA_POWER_ON_RESET,
    [UA_BUS_DEVICE_RESET] = SENSE_UA_DEVICE_RESET,
    [UA_I_T_NEXUS_LOSS] = SENSE_UA_I_T_NEXUS_LOSS,
    [UA_RESERVATIONS_PREEMPTED] = SENSE_UA_RESERVATIONS_PREEMPTED,
    [UA_RESERVATIONS_RELEASED] = SENSE_UA_RESERVATIONS_RELEASED,
    [UA_REGISTRATIONS_PREEMPTED] = SENSE_UA_REGISTRATIONS_PREEMPTED,
    [UA_ASYM_ACCESS_CHANGED] = SENSE_UA_ASYMMETRIC_ACCESS_STATE_CHANGED,
    [UA_MODE_PARAMS_CHANGED] = SENSE_UA_MODE_PARAMETERS_CHANGED,
    [UA_CAPACITY_CHANGED] = SENSE_UA_CAPACITY_DATA_CHANGED,
    [UA_PRIORITY_CHANGED] = SENSE_UA_PRIORITY_CHANGED,
    [UA_COMMANDS_CLEARED] = SENSE_UA_COMMANDS_CLEARED_BY_ANOTHER_INITIATOR,
    [UA_MEDIUM_CHANGED] = SENSE_UA_MEDIUM_CHANGED,
    [UA_INQUIRY_DATA_CHANGED] = SENSE_UA_INQUIRY_DATA_CHANGED,
    [UA_REPORTED_LUNS_CHANGED] = SENSE_UA_REPORTED_LUNS_CHANGED,
    [UA_THIN_PROV_SOFT_THRESHOLD] = SENSE_UA_THIN_PROV_SOFT_THRESHOLD,
};

/* SAM-5 5.14: the reset class (29h) subsumes the conditions it clears */
#define UA_RESET_CLASS                                                                             \
	((1u << UA_POWER_ON) | (1u << UA_BUS_DEVICE_RESET) | (1u << UA_I_T_NEXUS_LOSS))

void ua_set(struct lu_itn *itn, enum ua_cond c)
{
	atomic_fetch_or_explicit(&itn->ua, 1u << c, memory_order_release);
}

void ua_clear(struct lu_itn *itn, enum ua_cond c)
{
	atomic_fetch_and_explicit(&itn->ua, ~(1u << c), memory_order_relaxed);
}

bool ua_pending(const struct lu_itn *itn)
{
	return atomic_load_explicit(&itn->ua, memory_order_relaxed) != 0;
}

enum sense_reason ua_peek(const struct lu_itn *itn)
{
	unsigned cur = atomic_load_explicit(&itn->ua, memory_order_acquire);

	return cur ? ua_reason[__builtin_ctz(cur)] : SENSE_OK;
}

enum sense_reason ua_take(struct lu_itn *itn)
{
	unsigned cur = atomic_load_explicit(&itn->ua, memory_order_acquire);

	for (;;) {
		unsigned bit, clear;

		if (!cur)
			return SENSE_OK;
		bit = (unsigned)__builtin_ctz(cur);
		clear = 1u << bit;
		/* reporting one reset-class condition reports them all: a
		 * power on implies the later resets and nexus losses */
		if (clear & UA_RESET_CLASS)
			clear |= cur & UA_RESET_CLASS;
		if (atomic_compare_exchange_weak(&itn->ua, &cur, cur & ~clear))
			return ua_reason[bit];
	}
}

enum sense_reason ua_report(struct scsi_lu *lu, struct lu_itn *itn)
{
	enum sense_reason r = ua_take(itn);
	struct lu_itn *x;

	if (r != SENSE_UA_THIN_PROV_SOFT_THRESHOLD)
		return r;
	/* SBC-4 6.5.7 SITUA=1: reported on one I_T nexus, cleared for all */
	pthread_mutex_lock(&lu->lock);
	if (lbp_threshold_situa_locked(lu))
		list_for_each_entry(x, &lu->core->itns, node)
		    ua_clear(x, UA_THIN_PROV_SOFT_THRESHOLD);
	pthread_mutex_unlock(&lu->lock);
	return r;
}

void ua_set_all_locked(struct scsi_lu *lu, enum ua_cond c, const struct lu_itn *except)
{
	struct lu_itn *itn;

	list_for_each_entry(itn, &lu->core->itns, node) if (itn != except) ua_set(itn, c);
}

void ua_set_all(struct scsi_lu *lu, enum ua_cond c, const struct lu_itn *except)
{
	pthread_mutex_lock(&lu->lock);
	ua_set_all_locked(lu, c, except);
	pthread_mutex_unlock(&lu->lock);
}
