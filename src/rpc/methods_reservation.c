/* SPDX-License-Identifier: GPL-2.0-or-later */
/* methods_reservation.c: the persistent reservations (SPC-4 5.13) of a
 * back-store's logical unit (docs/rpc.md): reservation.get reads them,
 * reservation.clear removes them (all, or one initiator's) through the
 * core (scsi/pr_admin.c).
 *
 * Reservations are the initiators' state, not configuration: nothing here
 * goes through the config journal (the methods are not "mutating"). The
 * core keeps them durable itself when an initiator asked for it (APTPL:
 * the state file); reservation.clear answers once that file holds the
 * clear (call->start: the server keeps the request's place meanwhile). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ctl.h"
#include "rpc/rpc.h"
#include "scsi/scsi.h"

/* The running LU of a configured back-store, or NULL (error set). */
static struct scsi_lu *resv_lu(struct rpc_call *call)
{
	const char *name = rpc_str(call, "backstore");
	struct scsi_lu *lu = cfg_ctl_lu(name);

	if (!lu)
		rpc_fail(call, RPC_NOT_FOUND,
			 json_pack("{s:s,s:s}", "kind", "backstore", "name", name ? name : ""),
			 "no back-store named \"%s\"", name ? name : "");
	return lu;
}

/* reservation.get: as READ FULL STATUS reports them, with each initiator
 * port spelled out. */
static int m_get(struct rpc_call *call)
{
	struct scsi_lu *lu = resv_lu(call);
	struct scsi_pr_info pi;
	json_t *regs, *holder = json_null();
	size_t nholders = 0;
	char key[19];

	if (!lu)
		return -1;
	if (scsi_lu_pr_info(lu, &pi))
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
	regs = json_array();
	for (size_t i = 0; regs && i < pi.nregs; i++) {
		const struct scsi_pr_reg_info *r = &pi.regs[i];
		json_t *o;

		snprintf(key, sizeof(key), "0x%016llx", (unsigned long long)r->key);
		o = json_pack("{s:s,s:s,s:s,s:b,s:b}", "key", key, "initiator", r->initiator,
			      "isid", r->isid, "all_tg_pt", r->all_tg_pt, "holder", r->holder);
		if (o && !r->all_tg_pt)
			json_object_set_new(o, "rel_port", json_integer(r->rel_port));
		if (o && r->holder && nholders++ == 0)
			holder = json_incref(o);
		json_array_append_new(regs, o);
	}
	call->result = json_pack(
	    "{s:I,s:b,s:o,s:o}", "generation", (json_int_t)pi.generation, "aptpl", pi.aptpl,
	    "registrations", regs ? regs : json_array(), "reservation",
	    pi.type ? json_pack("{s:i,s:s,s:b,s:o}", "type", pi.type, "name",
				pi.type_name ? pi.type_name : "", "all_registrants", nholders > 1,
				"holder", nholders == 1 ? holder : json_null())
		    : json_null());
	if (nholders != 1 || !pi.type)
		json_decref(holder);
	scsi_pr_info_free(&pi);
	return call->result ? 0 : rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "out of memory");
}

/* ---- reservation.clear ---- */

static void clear_done(void *arg, int err, const struct scsi_pr_clear_result *res)
{
	struct rpc_call *call = arg;
	const char *bs = rpc_str(call, "backstore"), *ini = rpc_str(call, "initiator");

	if (err) {
		/* the core rolled the clear back: the state file keeps the old state */
		rpc_fail(call, RPC_PERSIST_FAILED,
			 json_pack("{s:s,s:i}", "message", strerror(-err), "errno", -err),
			 "the persistent reservation state file could not be written (%s): "
			 "nothing was cleared",
			 strerror(-err));
	} else if (ini && !res->removed) {
		rpc_fail(call, RPC_NOT_FOUND,
			 json_pack("{s:s,s:s,s:s}", "kind", "registration", "name", ini,
				   "backstore", bs),
			 "no persistent reservation registration of \"%s\" on back-store \"%s\"",
			 ini, bs);
	} else {
		call->result = json_pack("{s:s,s:I,s:b,s:I}", "backstore", bs, "removed",
					 (json_int_t)res->removed, "released", res->released,
					 "generation", (json_int_t)res->generation);
		if (call->result && ini)
			json_object_set_new(call->result, "initiator", json_string(ini));
	}
	rpc_call_done(call);
}

/* On the server's heap copy of the call: the LU is looked up again (the
 * handler ran just before, on the same thread, with nothing in between). */
static int clear_start(struct rpc_call *call)
{
	struct scsi_lu *lu = resv_lu(call);
	int rc;

	if (!lu)
		return -1;
	rc = scsi_lu_pr_clear(lu, rpc_str(call, "initiator"), clear_done, call);
	if (rc == -EINVAL)
		return rpc_fail(call, RPC_INVALID_PARAMS, json_pack("{s:s}", "param", "initiator"),
				"initiator: an iSCSI name, or a port \"<name>,i,0x<ISID>\"");
	if (rc)
		return rpc_fail(call, RPC_INTERNAL_ERROR, NULL, "%s", strerror(-rc));
	return 0;
}

static int m_clear(struct rpc_call *call)
{
	json_t *ini = json_object_get(call->params, "initiator");

	if (!resv_lu(call))
		return -1;
	/* a JSON string may hold a NUL: the core takes a C string */
	if (ini && (json_string_length(ini) == 0 ||
		    strlen(json_string_value(ini)) != json_string_length(ini)))
		return rpc_fail(call, RPC_INVALID_PARAMS, json_pack("{s:s}", "param", "initiator"),
				"initiator: an iSCSI name, or a port \"<name>,i,0x<ISID>\"");
	call->start = clear_start;
	return 0;
}

static const struct rpc_param p_get[] = {
    {.name = "backstore", .type = RPC_T_STRING, .required = true},
    {0},
};
static const struct rpc_param p_clear[] = {
    {.name = "backstore", .type = RPC_T_STRING, .required = true},
    {.name = "initiator", .type = RPC_T_STRING},
    {0},
};

/* Not "mutating": no configuration change, no journal record. */
const struct rpc_method rpc_methods_reservation[] = {
    {.name = "reservation.get", .fn = m_get, .params = p_get},
    {.name = "reservation.clear", .fn = m_clear, .params = p_clear},
    {0},
};
