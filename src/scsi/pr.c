/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pr.c: persistent reservations (SPC-4 5.13): the reservation types, the
 * RESERVATION CONFLICT rule of the command path, and PERSISTENT RESERVE OUT
 * (SPC-4 6.16) with every service action: REGISTER, REGISTER AND IGNORE
 * EXISTING KEY (SPEC_I_PT, ALL_TG_PT), RESERVE, RELEASE, CLEAR, PREEMPT,
 * PREEMPT AND ABORT and REGISTER AND MOVE.
 *
 * A PERSISTENT RESERVE OUT runs its service action under lu->lock in one
 * step: key checks, the change, unit attentions and (PREEMPT AND ABORT) the
 * abort marks of the preempted I_T nexuses' tasks. It completes once the
 * aborted tasks have ended (SPC-4 5.13.11.2.4) and, with APTPL active, once
 * the state file holds the new state (pr_store.c); both run concurrently.
 * PR commands have ordering class ORDER_NONE: PREEMPT AND ABORT must not
 * wait behind the tasks it aborts. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "lib/endian.h"
#include "lib/log.h"
#include "scsi/alua.h"
#include "scsi/cmd.h"
#include "scsi/core.h"
#include "scsi/pr_priv.h"
#include "scsi/spc.h"
#include "scsi/ua.h"

#define PR_DEFAULT_MAX_REGS 4096u

/* SPC-4 6.16.2 table 214: PERSISTENT RESERVE OUT service actions */
enum {
	PRO_REGISTER = 0x00,
	PRO_RESERVE = 0x01,
	PRO_RELEASE = 0x02,
	PRO_CLEAR = 0x03,
	PRO_PREEMPT = 0x04,
	PRO_PREEMPT_AND_ABORT = 0x05,
	PRO_REGISTER_IGNORE = 0x06,
	PRO_REGISTER_AND_MOVE = 0x07,
	PRO_COUNT
};

/* SPC-4 6.16.3 (parameter list, 24 bytes) and 6.16.4 (REGISTER AND MOVE) */
#define PRO_LIST_LEN  24u
#define PRO_SPEC_I_PT 0x08 /* byte 20 */
#define PRO_ALL_TG_PT 0x04
#define PRO_APTPL     0x01
#define PRO_RAM_UNREG 0x02 /* REGISTER AND MOVE byte 17 */

const struct pr_type_info pr_types[PR_TYPE_COUNT] = {
    [PR_TYPE_WE] = {.name = "Write Exclusive", .valid = true},
    [PR_TYPE_EA] = {.name = "Exclusive Access", .valid = true, .exclusive_access = true},
    [PR_TYPE_WE_RO] = {.name = "Write Exclusive - Registrants Only",
		       .valid = true,
		       .registrants_ok = true,
		       .release_ua = true},
    [PR_TYPE_EA_RO] = {.name = "Exclusive Access - Registrants Only",
		       .valid = true,
		       .registrants_ok = true,
		       .exclusive_access = true,
		       .release_ua = true},
    [PR_TYPE_WE_AR] = {.name = "Write Exclusive - All Registrants",
		       .valid = true,
		       .all_holders = true,
		       .registrants_ok = true,
		       .release_ua = true},
    [PR_TYPE_EA_AR] = {.name = "Exclusive Access - All Registrants",
		       .valid = true,
		       .all_holders = true,
		       .registrants_ok = true,
		       .exclusive_access = true,
		       .release_ua = true},
};

/* SPC-4 table 58 / SBC-4 table 13, for an I_T nexus that neither holds the
 * reservation nor has access as a registrant: does a command of the class
 * conflict under a Write Exclusive [0] / Exclusive Access [1] type? */
static const bool pr_class_conflict[PR_CLASS_COUNT][2] = {
    [PR_CLASS_ALLOWED] = {false, false}, [PR_CLASS_READ] = {false, true},
    [PR_CLASS_WRITE] = {true, true},	 [PR_CLASS_CONFLICT] = {true, true},
    [PR_CLASS_PR_OUT] = {false, false},	 [PR_CLASS_PR_IN] = {false, false},
    [PR_CLASS_SPC2] = {true, true},
};

/* ---- state ---- */

int pr_lu_init(struct scsi_lu *lu)
{
	struct pr_state *pr = calloc(1, sizeof(*pr));

	if (!pr)
		return -ENOMEM;
	list_init(&pr->regs);
	pr->max_regs =
	    lu->attrs.pr_max_registrations ? lu->attrs.pr_max_registrations : PR_DEFAULT_MAX_REGS;
	pr->version = 1;
	atomic_init(&pr->active, false);
	atomic_init(&pr->reserved, false);
	lu->core->pr = pr;
	return 0;
}

static void pr_free_regs(struct pr_state *pr)
{
	struct pr_reg *r, *tmp;

	list_for_each_entry_safe(r, tmp, &pr->regs, node)
	{
		list_del(&r->node);
		free(r);
	}
	pr->nregs = 0;
}

void pr_lu_fini(struct scsi_lu *lu)
{
	struct pr_state *pr = lu->core->pr;

	if (!pr)
		return;
	pr_store_free(pr->store);
	pr_free_regs(pr);
	free(pr);
	lu->core->pr = NULL;
}

void pr_set_active(struct pr_state *pr)
{
	atomic_store_explicit(&pr->active, pr->nregs > 0, memory_order_release);
	atomic_store_explicit(&pr->reserved, pr->type != PR_TYPE_NONE, memory_order_release);
}

void pr_reset_locked(struct pr_state *pr)
{
	pr_free_regs(pr);
	pr->type = PR_TYPE_NONE;
	pr->holder = NULL;
	pr->version++;
	pr_set_active(pr);
}

/* Does a registration (port, rel_port, all_tg_pt) cover the I_T nexus of
 * initiator port `port` through target port rel_port? */
static bool reg_covers(const struct pr_reg *r, const struct tid_port *port, uint16_t rel_port)
{
	return (r->all_tg_pt || r->rel_port == rel_port) && tid_covers(&r->port, port);
}

static bool reg_overlap(const struct pr_reg *r, const struct tid_port *port, uint16_t rel_port,
			bool all_tg_pt)
{
	return (r->all_tg_pt || all_tg_pt || r->rel_port == rel_port) &&
	       tid_overlap(&r->port, port);
}

struct pr_reg *pr_reg_of_locked(struct pr_state *pr, struct lu_itn *itn)
{
	struct tid_port port;
	struct pr_reg *r;

	if (!itn || !pr->nregs)
		return NULL;
	if (itn->pr_ver == pr->version)
		return itn->pr_reg;
	itn->pr_reg = NULL;
	itn->pr_ver = pr->version;
	if (tid_from_port_name(itn->port_name, &port))
		return NULL;
	list_for_each_entry(r, &pr->regs, node)
	{
		if (reg_covers(r, &port, itn->rel_port)) {
			itn->pr_reg = r;
			break;
		}
	}
	return itn->pr_reg;
}

bool pr_is_holder(const struct pr_state *pr, const struct pr_reg *reg)
{
	if (!reg || pr->type == PR_TYPE_NONE)
		return false;
	return pr_types[pr->type].all_holders || pr->holder == reg;
}

bool pr_registered_any_locked(struct scsi_lu *lu)
{
	return lu->core->pr->nregs > 0;
}

/* ---- RESERVATION CONFLICT (SPC-4 5.13.1) ---- */

bool pr_conflict_locked(struct scsi_lu *lu, struct lu_itn *itn, const struct cdb_desc *d,
			const uint8_t *cdb)
{
	struct pr_state *pr = lu->core->pr;
	const struct pr_type_info *t;
	struct pr_reg *reg;

	if (!pr->nregs)
		return false;
	/* SPC-4 5.13.3: with CRH 0, RESERVE and RELEASE conflict while any
	 * I_T nexus is registered, whoever sends them */
	if (d->pr_class == PR_CLASS_SPC2)
		return true;
	if (pr->type == PR_TYPE_NONE)
		return false;
	t = &pr_types[pr->type];
	reg = pr_reg_of_locked(pr, itn);
	if (pr_is_holder(pr, reg) || (reg && t->registrants_ok))
		return false;
	if (d->pr_ok_mask && (cdb[d->pr_ok_byte] & d->pr_ok_mask) == d->pr_ok_value)
		return false;
	return pr_class_conflict[d->pr_class < PR_CLASS_COUNT ? d->pr_class : PR_CLASS_WRITE]
				[t->exclusive_access];
}

bool pr_conflict(struct scsi_lu *lu, struct lu_itn *itn, const struct cdb_desc *d,
		 const uint8_t *cdb)
{
	struct pr_state *pr = lu->core->pr;
	bool c;

	/* nobody registered; or registered without a reservation, where only
	 * RESERVE/RELEASE conflict */
	if (!atomic_load_explicit(&pr->active, memory_order_acquire) ||
	    (d->pr_class != PR_CLASS_SPC2 &&
	     !atomic_load_explicit(&pr->reserved, memory_order_acquire)))
		return false;
	pthread_mutex_lock(&lu->lock);
	c = pr_conflict_locked(lu, itn, d, cdb);
	pthread_mutex_unlock(&lu->lock);
	return c;
}

/* ---- PERSISTENT RESERVE OUT: decoding ---- */

struct pr_out_req {
	uint8_t sa, type;
	uint64_t rk;   /* RESERVATION KEY */
	uint64_t sark; /* SERVICE ACTION RESERVATION KEY */
	bool spec_i_pt, all_tg_pt, aptpl, unreg;
	uint16_t rtpi;	     /* REGISTER AND MOVE: RELATIVE TARGET PORT IDENTIFIER */
	bool rtpi_ok;	     /* a target port that reaches the LU */
	const uint8_t *tids; /* TransportIDs */
	uint32_t tids_len;
	uint32_t tids_off; /* their offset in the parameter list */
};

static bool sa_uses_type(uint8_t sa)
{
	return sa == PRO_RESERVE || sa == PRO_RELEASE || sa == PRO_PREEMPT ||
	       sa == PRO_PREEMPT_AND_ABORT || sa == PRO_REGISTER_AND_MOVE;
}

static bool sa_sets_aptpl(uint8_t sa)
{
	return sa == PRO_REGISTER || sa == PRO_REGISTER_IGNORE || sa == PRO_REGISTER_AND_MOVE;
}

enum sense_reason pr_parse_out(struct scsi_cmd *cmd)
{
	uint8_t sa = cdb_sa(cmd->cdb), scope = cdb_pr_out_scope(cmd->cdb);
	uint8_t type = cdb_pr_out_type(cmd->cdb);
	uint32_t len = cdb_pr_out_param_list_len(cmd->cdb);

	/* SPC-4 6.16.2: SCOPE and TYPE matter for the service actions that
	 * reserve; the only scope is LU_SCOPE */
	if (sa_uses_type(sa)) {
		if (scope != PR_SCOPE_LU)
			return cdb_invalid_field(cmd, PR_OUT_SCOPE_TYPE_BYTE, 7);
		if (!pr_types[type].valid)
			return cdb_invalid_field(cmd, PR_OUT_SCOPE_TYPE_BYTE, 3);
	}
	/* every parameter list has the 24-byte basic part; longer ones are
	 * bounded by spc_data_out() (SCSI_MAX_PARAM_BYTES) */
	if (len < PRO_LIST_LEN)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	return spc_data_out(cmd, len);
}

/* SPC-4 6.16.3 / 6.16.4: the parameter list, checked before any state is
 * looked at. */
static enum sense_reason pr_out_decode(struct scsi_cmd *cmd, struct pr_out_req *rq)
{
	const uint8_t *b = cmd->buf;
	uint32_t n = cmd->priv.data_len, tl;

	memset(rq, 0, sizeof(*rq));
	rq->sa = cdb_sa(cmd->cdb);
	rq->type = cdb_pr_out_type(cmd->cdb);
	rq->rk = get_be64(b);
	rq->sark = get_be64(b + 8);
	if (rq->sa == PRO_REGISTER_AND_MOVE) {
		if (b[16])
			return param_invalid_field(cmd, 16, -1);
		if (b[17] & ~(PRO_RAM_UNREG | PRO_APTPL))
			return param_invalid_field(cmd, 17, 7);
		rq->unreg = b[17] & PRO_RAM_UNREG;
		rq->aptpl = b[17] & PRO_APTPL;
		rq->rtpi = get_be16(b + 18);
		tl = get_be32(b + 20);
		/* SPC-4 6.16.4: the TransportID must fit the parameter list */
		if (tl > n - PRO_LIST_LEN)
			return SENSE_PARAM_LIST_LENGTH_ERROR;
		if (tl < 4)
			return param_invalid_field(cmd, 20, -1);
		rq->tids = b + PRO_LIST_LEN;
		rq->tids_len = tl;
		rq->tids_off = PRO_LIST_LEN;
		return SENSE_OK;
	}
	/* byte 20: SPEC_I_PT, ALL_TG_PT, APTPL; bits 7-4 and 1 reserved */
	if (b[20] & 0xf2)
		return param_invalid_field(cmd, 20, (b[20] & 0xf0) ? 7 : 1);
	rq->spec_i_pt = b[20] & PRO_SPEC_I_PT;
	rq->all_tg_pt = b[20] & PRO_ALL_TG_PT;
	rq->aptpl = b[20] & PRO_APTPL;
	if (!rq->spec_i_pt) {
		/* SPC-4 6.16.3: exactly 24 bytes without SPEC_I_PT */
		return n == PRO_LIST_LEN ? SENSE_OK : SENSE_PARAM_LIST_LENGTH_ERROR;
	}
	/* SPEC_I_PT is valid for REGISTER only */
	if (rq->sa != PRO_REGISTER)
		return param_invalid_field(cmd, 20, 3);
	if (n < PRO_LIST_LEN + 4)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	tl = get_be32(b + PRO_LIST_LEN);
	if (tl != n - PRO_LIST_LEN - 4)
		return SENSE_PARAM_LIST_LENGTH_ERROR;
	rq->tids = b + PRO_LIST_LEN + 4;
	rq->tids_len = tl;
	rq->tids_off = PRO_LIST_LEN + 4;
	return SENSE_OK;
}

/* ---- PERSISTENT RESERVE OUT: service actions (lu->lock held) ---- */

struct pr_ctx {
	struct scsi_lu *lu;
	struct pr_state *pr;
	struct scsi_cmd *cmd;
	struct lu_itn *itn;
	struct pr_reg *reg; /* the registration covering the requesting I_T nexus */
	const struct pr_out_req *rq;
	struct scsi_tmf *tmf; /* PREEMPT AND ABORT: the aborted tasks report here */
	unsigned aborted;     /* tasks marked aborted */
	bool changed;	      /* registrations or reservation changed */
	bool bump_generation; /* PRGENERATION + 1 (SPC-4 6.15.2) */
	bool take_aptpl;      /* the APTPL bit of the list becomes PTPL_A */
	unsigned doomed;      /* registrations marked for removal */
};

/* Unit attention c for the initiator port of every I_T nexus the LU knows
 * whose registration is doomed (want_doomed) or stays, except the
 * requesting I_T nexus. */
static void ua_for_regs(struct pr_ctx *c, enum ua_cond cond, bool want_doomed)
{
	struct lu_itn *itn;

	list_for_each_entry(itn, &c->lu->core->itns, node)
	{
		struct pr_reg *r;

		if (itn == c->itn)
			continue;
		r = pr_reg_of_locked(c->pr, itn);
		if (r && r->doomed == want_doomed)
			ua_set(itn, cond);
	}
}

static void doom(struct pr_ctx *c, struct pr_reg *r)
{
	if (r->doomed)
		return;
	r->doomed = true;
	c->doomed++;
	c->changed = true;
}

/* Release the reservation (SPC-4 5.13.11.2.2); RESERVATIONS RELEASED for
 * the other registrants of a Registrants Only / All Registrants type. */
static void release(struct pr_ctx *c, bool tell)
{
	if (tell && pr_types[c->pr->type].release_ua)
		ua_for_regs(c, UA_RESERVATIONS_RELEASED, false);
	c->pr->type = PR_TYPE_NONE;
	c->pr->holder = NULL;
	c->changed = true;
}

static struct pr_reg *reg_new(const struct tid_port *port, uint16_t rel_port, bool all_tg_pt,
			      uint64_t key)
{
	struct pr_reg *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	r->key = key;
	r->port = *port;
	r->rel_port = rel_port;
	r->all_tg_pt = all_tg_pt;
	return r;
}

static void reg_link(struct pr_ctx *c, struct pr_reg *r)
{
	list_add_tail(&c->pr->regs, &r->node);
	c->pr->nregs++;
	c->pr->version++;
	c->changed = true;
}

/* The identity of the requesting I_T nexus' initiator port. */
static int my_port(struct pr_ctx *c, struct tid_port *port)
{
	return tid_from_port_name(c->itn->port_name, port);
}

static struct pr_reg *find_overlap(struct pr_ctx *c, const struct tid_port *port, uint16_t rel_port,
				   bool all_tg_pt)
{
	struct pr_reg *r;

	list_for_each_entry(r, &c->pr->regs,
			    node) if (reg_overlap(r, port, rel_port, all_tg_pt)) return r;
	return NULL;
}

/* REGISTER from an unregistered I_T nexus (SPC-4 5.13.7): the requester
 * and, with SPEC_I_PT, every initiator port of the TransportIDs, through
 * the receiving target port or (ALL_TG_PT) every target port. All or
 * nothing. */
static enum sense_reason register_new(struct pr_ctx *c)
{
	const struct pr_out_req *rq = c->rq;
	unsigned room = c->pr->max_regs - c->pr->nregs, n = 0, cap = 8;
	struct pr_reg **v;
	struct tid_port port;
	enum sense_reason r = SENSE_OK;
	uint32_t off = 0;

	if (my_port(c, &port))
		return SENSE_INTERNAL_TARGET_FAILURE;
	/* ALL_TG_PT: the port may be registered through another target port */
	if (find_overlap(c, &port, c->itn->rel_port, rq->all_tg_pt))
		return SENSE_RESERVATION_CONFLICT;
	if (!room)
		return SENSE_INSUFFICIENT_REGISTRATION_RESOURCES;
	v = calloc(cap, sizeof(*v));
	if (!v)
		return SENSE_BUSY;
	v[0] = reg_new(&port, c->itn->rel_port, rq->all_tg_pt, rq->sark);
	if (!v[0]) {
		r = SENSE_BUSY;
		goto out;
	}
	n = 1;
	while (off < rq->tids_len) {
		size_t len, bad;
		struct tid_port tp;
		bool dup = false;

		if (tid_parse(rq->tids + off, rq->tids_len - off, &tp, &len, &bad)) {
			r = param_invalid_field(c->cmd, rq->tids_off + off + (uint32_t)bad, -1);
			goto out;
		}
		/* the requester named again: already registered above */
		if (tid_equal(&tp, &port) && !rq->all_tg_pt) {
			off += (uint32_t)len;
			continue;
		}
		if (find_overlap(c, &tp, c->itn->rel_port, rq->all_tg_pt)) {
			/* SPC-4 5.13.7: an I_T nexus already registered */
			r = SENSE_RESERVATION_CONFLICT;
			goto out;
		}
		for (unsigned i = 0; i < n; i++)
			dup |= reg_overlap(v[i], &tp, c->itn->rel_port, rq->all_tg_pt);
		if (dup) {
			/* the same initiator port twice in the list */
			r = param_invalid_field(c->cmd, rq->tids_off + off, -1);
			goto out;
		}
		if (n == room) {
			r = SENSE_INSUFFICIENT_REGISTRATION_RESOURCES;
			goto out;
		}
		if (n == cap) {
			struct pr_reg **nv = realloc(v, 2 * cap * sizeof(*v));

			if (!nv) {
				r = SENSE_BUSY;
				goto out;
			}
			v = nv;
			cap *= 2;
		}
		v[n] = reg_new(&tp, c->itn->rel_port, rq->all_tg_pt, rq->sark);
		if (!v[n]) {
			r = SENSE_BUSY;
			goto out;
		}
		n++;
		off += (uint32_t)len;
	}
	for (unsigned i = 0; i < n; i++)
		reg_link(c, v[i]);
	n = 0;
out:
	for (unsigned i = 0; i < n; i++)
		free(v[i]);
	free(v);
	return r;
}

/* REGISTER / REGISTER AND IGNORE EXISTING KEY (SPC-4 5.13.7, 6.16.2) */
static enum sense_reason sa_register(struct pr_ctx *c)
{
	const struct pr_out_req *rq = c->rq;
	bool ignore = rq->sa == PRO_REGISTER_IGNORE, holder;
	struct pr_reg *reg = c->reg;
	enum sense_reason r;

	if (!reg) {
		if (!ignore && rq->rk)
			return SENSE_RESERVATION_CONFLICT;
		if (rq->sark) {
			r = register_new(c);
			if (r != SENSE_OK)
				return r;
		}
		/* SARK 0 from an unregistered I_T nexus: nothing to do */
		c->bump_generation = true;
		c->take_aptpl = true;
		return SENSE_OK;
	}
	if (!ignore && rq->rk != reg->key)
		return SENSE_RESERVATION_CONFLICT;
	/* SPC-4 6.16.3: SPEC_I_PT from a registered I_T nexus */
	if (rq->spec_i_pt)
		return param_invalid_field(c->cmd, 20, 3);
	c->bump_generation = true;
	c->take_aptpl = true;
	if (rq->sark) {
		reg->key = rq->sark;
		c->changed = true;
		return SENSE_OK;
	}
	/* unregister (SPC-4 5.13.11.3): the holder's reservation goes with
	 * it, an all registrants one with the last registrant */
	holder =
	    pr_is_holder(c->pr, reg) && (!pr_types[c->pr->type].all_holders || c->pr->nregs == 1);
	doom(c, reg);
	if (holder)
		release(c, true);
	return SENSE_OK;
}

/* RESERVE (SPC-4 5.13.9) */
static enum sense_reason sa_reserve(struct pr_ctx *c)
{
	struct pr_state *pr = c->pr;

	if (!c->reg || c->rq->rk != c->reg->key)
		return SENSE_RESERVATION_CONFLICT;
	if (pr->type != PR_TYPE_NONE) {
		/* the holder may repeat it; any other type or I_T nexus conflicts */
		if (!pr_is_holder(pr, c->reg) || pr->type != c->rq->type)
			return SENSE_RESERVATION_CONFLICT;
		return SENSE_OK;
	}
	pr->type = c->rq->type;
	pr->holder = pr_types[pr->type].all_holders ? NULL : c->reg;
	c->changed = true;
	return SENSE_OK;
}

/* RELEASE (SPC-4 5.13.11.2.2) */
static enum sense_reason sa_release(struct pr_ctx *c)
{
	struct pr_state *pr = c->pr;

	if (!c->reg || c->rq->rk != c->reg->key)
		return SENSE_RESERVATION_CONFLICT;
	/* no reservation, or a registrant that does not hold it: GOOD, no change */
	if (!pr_is_holder(pr, c->reg))
		return SENSE_OK;
	if (pr->type != c->rq->type)
		return SENSE_INVALID_RELEASE_OF_PR;
	release(c, true);
	return SENSE_OK;
}

/* CLEAR (SPC-4 5.13.11.2.6): every registration and the reservation go;
 * RESERVATIONS PREEMPTED for every other registered I_T nexus. */
static enum sense_reason sa_clear(struct pr_ctx *c)
{
	struct pr_reg *r;

	if (!c->reg || c->rq->rk != c->reg->key)
		return SENSE_RESERVATION_CONFLICT;
	ua_for_regs(c, UA_RESERVATIONS_PREEMPTED, false);
	release(c, false);
	list_for_each_entry(r, &c->pr->regs, node) doom(c, r);
	c->bump_generation = true;
	return SENSE_OK;
}

/* PREEMPT / PREEMPT AND ABORT (SPC-4 5.13.11.4) */
static enum sense_reason sa_preempt(struct pr_ctx *c)
{
	const struct pr_out_req *rq = c->rq;
	struct pr_state *pr = c->pr;
	uint8_t old_type = pr->type;
	struct pr_reg *r;
	bool holder_preempt;

	if (!c->reg || rq->rk != c->reg->key)
		return SENSE_RESERVATION_CONFLICT;
	if (old_type != PR_TYPE_NONE && pr_types[old_type].all_holders && rq->sark == 0) {
		/* 5.13.11.4.4: an all registrants reservation, SARK 0: every
		 * other registration goes, the requester reserves anew */
		list_for_each_entry(r, &pr->regs, node) if (r != c->reg) doom(c, r);
		holder_preempt = true;
	} else {
		holder_preempt = old_type != PR_TYPE_NONE && !pr_types[old_type].all_holders &&
				 pr->holder && pr->holder->key == rq->sark;
		if (!holder_preempt && rq->sark == 0) {
			/* 5.13.11.4.3: no holder has key 0 */
			return param_invalid_field(c->cmd, 8, -1);
		}
		list_for_each_entry(r, &pr->regs, node)
		{
			/* preempting the holder keeps the requester's own
			 * registration (5.13.11.4.3 b) */
			if (r->key == rq->sark && !(holder_preempt && r == c->reg))
				doom(c, r);
		}
		/* SPC-4 5.13.11.4.3: a key nobody has */
		if (!holder_preempt && !c->doomed)
			return SENSE_RESERVATION_CONFLICT;
	}
	ua_for_regs(c, UA_REGISTRATIONS_PREEMPTED, true);
	if (holder_preempt) {
		pr->type = rq->type;
		pr->holder = pr_types[rq->type].all_holders ? NULL : c->reg;
		/* a new type or scope: the remaining registrants hear of it */
		if (old_type != rq->type)
			ua_for_regs(c, UA_RESERVATIONS_RELEASED, false);
		c->changed = true;
	}
	c->bump_generation = true;
	return SENSE_OK;
}

/* REGISTER AND MOVE (SPC-4 5.13.8) */
static enum sense_reason sa_register_and_move(struct pr_ctx *c)
{
	const struct pr_out_req *rq = c->rq;
	struct pr_state *pr = c->pr;
	struct tid_port dest, me;
	struct pr_reg *dreg;
	size_t len, bad;

	if (!c->reg || rq->rk != c->reg->key)
		return SENSE_RESERVATION_CONFLICT;
	/* only the holder of a single-holder reservation can move it */
	if (!pr_is_holder(pr, c->reg) || pr_types[pr->type].all_holders)
		return SENSE_RESERVATION_CONFLICT;
	if (rq->sark == 0)
		return param_invalid_field(c->cmd, 8, -1);
	if (tid_parse(rq->tids, rq->tids_len, &dest, &len, &bad))
		return param_invalid_field(c->cmd, rq->tids_off + (uint32_t)bad, -1);
	if (!rq->rtpi_ok)
		return param_invalid_field(c->cmd, 18, -1);
	if (my_port(c, &me))
		return SENSE_INTERNAL_TARGET_FAILURE;
	/* the destination must be another I_T nexus than the source's */
	if (reg_overlap(c->reg, &dest, rq->rtpi, false))
		return param_invalid_field(c->cmd, rq->tids_off, -1);
	dreg = find_overlap(c, &dest, rq->rtpi, false);
	if (dreg) {
		/* registered already: it keeps its key; a registration that
		 * covers more than that one I_T nexus cannot hold it alone */
		if (dreg->all_tg_pt || dreg->rel_port != rq->rtpi || !tid_equal(&dreg->port, &dest))
			return SENSE_RESERVATION_CONFLICT;
	} else {
		if (pr->nregs + 1 > pr->max_regs)
			return SENSE_INSUFFICIENT_REGISTRATION_RESOURCES;
		dreg = reg_new(&dest, rq->rtpi, false, rq->sark);
		if (!dreg)
			return SENSE_BUSY;
		reg_link(c, dreg);
	}
	pr->holder = dreg;
	pr->type = rq->type;
	if (rq->unreg)
		doom(c, c->reg);
	c->changed = true;
	c->bump_generation = true;
	c->take_aptpl = true;
	return SENSE_OK;
}

static enum sense_reason (*const pr_out_sa[PRO_COUNT])(struct pr_ctx *c) = {
    [PRO_REGISTER] = sa_register,	 [PRO_RESERVE] = sa_reserve,
    [PRO_RELEASE] = sa_release,		 [PRO_CLEAR] = sa_clear,
    [PRO_PREEMPT] = sa_preempt,		 [PRO_PREEMPT_AND_ABORT] = sa_preempt,
    [PRO_REGISTER_IGNORE] = sa_register, [PRO_REGISTER_AND_MOVE] = sa_register_and_move,
};

static bool itn_doomed(struct lu_itn *itn, void *arg)
{
	struct pr_reg *r = pr_reg_of_locked(arg, itn);

	return r && r->doomed;
}

/* After a successful service action: abort the preempted I_T nexuses'
 * tasks (PREEMPT AND ABORT), drop the doomed registrations, and end a
 * reservation nobody holds any more. */
static void pr_out_finish(struct pr_ctx *c)
{
	struct pr_state *pr = c->pr;
	struct pr_reg *r, *tmp;

	if (c->doomed) {
		if (c->tmf)
			c->aborted =
			    tmf_abort_matching_locked(c->lu, c->tmf, c->cmd, itn_doomed, pr);
		list_for_each_entry_safe(r, tmp, &pr->regs, node)
		{
			if (!r->doomed)
				continue;
			if (pr->holder == r) {
				pr->holder = NULL;
				pr->type = PR_TYPE_NONE;
			}
			list_del(&r->node);
			pr->nregs--;
			free(r);
		}
		pr->version++;
		if (!pr->nregs)
			pr->type = PR_TYPE_NONE;
	}
	if (c->bump_generation)
		pr->generation++;
	if (c->take_aptpl && pr->aptpl != c->rq->aptpl) {
		pr->aptpl = c->rq->aptpl;
		c->changed = true;
	}
	pr_set_active(pr);
}

/* ---- the control plane's clear (pr_admin.c) ---- */

unsigned pr_admin_clear_locked(struct scsi_lu *lu, const struct tid_port *only, bool *released)
{
	static const struct pr_out_req none = {0};
	struct pr_state *pr = lu->core->pr;
	struct pr_ctx c = {.lu = lu, .pr = pr, .rq = &none};
	uint8_t type = pr->type;
	struct pr_reg *r;
	bool end;

	*released = false;
	if (!only) {
		/* CLEAR (SPC-4 5.13.11.2.6) without a requesting I_T nexus:
		 * RESERVATIONS PREEMPTED for every registered I_T nexus */
		if (!pr->nregs)
			return 0;
		ua_for_regs(&c, UA_RESERVATIONS_PREEMPTED, false);
		release(&c, false);
		list_for_each_entry(r, &pr->regs, node) doom(&c, r);
	} else {
		/* the registrations through which that initiator port (or any
		 * port of that device) has access: REGISTRATIONS PREEMPTED,
		 * as for a PREEMPT of their keys (5.13.11.4.3) */
		list_for_each_entry(r, &pr->regs, node) if (tid_overlap(&r->port, only))
		    doom(&c, r);
		if (!c.doomed)
			return 0;
		ua_for_regs(&c, UA_REGISTRATIONS_PREEMPTED, true);
		/* the reservation ends as on an unregister (5.13.11.3): with its
		 * holder, an all registrants one with the last registrant;
		 * RESERVATIONS RELEASED for the others of an RO/AR type */
		if (type != PR_TYPE_NONE) {
			end = pr_types[type].all_holders ? c.doomed == pr->nregs
							 : pr->holder && pr->holder->doomed;
			if (end)
				release(&c, true);
		}
	}
	c.bump_generation = true;
	pr_out_finish(&c);
	*released = type != PR_TYPE_NONE && pr->type == PR_TYPE_NONE;
	return c.doomed;
}

/* ---- PERSISTENT RESERVE OUT: execution ---- */

/* The asynchronous part of one PERSISTENT RESERVE OUT: it completes when
 * every count of `pending` is gone (its own, the aborted tasks', the state
 * file's). */
struct pr_op {
	struct scsi_cmd *cmd;
	atomic_uint pending;
	uint16_t result; /* enum sense_reason of the service action */
	int store_err;	 /* the state file could not be written */
	struct reactor_msg msg;
	struct scsi_tmf tmf; /* PREEMPT AND ABORT: waits for the aborted tasks */
	struct pr_wait wait; /* APTPL: waits for the state file */
};

static void pr_op_free(struct scsi_cmd *cmd)
{
	free(cmd->priv.op);
}

static void pr_op_complete(struct pr_op *op)
{
	enum sense_reason r = (enum sense_reason)op->result;

	if (op->store_err) {
		/* the change was rolled back: the file keeps the old state */
		r = SENSE_INTERNAL_TARGET_FAILURE;
	}
	scsi_cmd_complete_sx(op->cmd, r, &op->cmd->priv.sx);
}

static void pr_op_msg(struct reactor_msg *m)
{
	pr_op_complete(container_of(m, struct pr_op, msg));
}

/* Drop one count; the last one completes the command on its reactor. */
static void pr_op_put(struct pr_op *op)
{
	if (atomic_fetch_sub(&op->pending, 1) == 1)
		reactor_post(op->cmd->reactor, &op->msg);
}

static void pr_op_aborted(struct reactor_msg *m)
{
	pr_op_put(container_of(m, struct pr_op, tmf.priv.msg));
}

static void pr_op_stored(struct pr_wait *w)
{
	struct pr_op *op = container_of(w, struct pr_op, wait);

	op->store_err = w->err;
	pr_op_put(op);
}

void pr_exec_out(struct scsi_cmd *cmd)
{
	struct scsi_lu *lu = cmd->priv.lu;
	struct pr_state *pr = lu->core->pr;
	struct pr_out_req rq;
	struct pr_ctx c;
	struct pr_op *op;
	enum sense_reason r;
	bool store, begun = false;

	r = pr_out_decode(cmd, &rq);
	if (r == SENSE_OK && rq.aptpl && sa_sets_aptpl(rq.sa) && !pr->store) {
		/* SPC-4 6.16.3: APTPL without persistence (PTPL_C 0) */
		r = param_invalid_field(cmd, rq.sa == PRO_REGISTER_AND_MOVE ? 17 : 20, 0);
	}
	if (r != SENSE_OK) {
		scsi_cmd_complete_sx(cmd, r, &cmd->priv.sx);
		return;
	}
	op = calloc(1, sizeof(*op));
	if (!op) {
		scsi_cmd_complete(cmd, SENSE_BUSY);
		return;
	}
	op->cmd = cmd;
	op->msg.fn = pr_op_msg;
	atomic_init(&op->pending, 1);
	cmd->priv.op = op;
	cmd->priv.op_free = pr_op_free;
	/* REGISTER AND MOVE: the target port is looked up before lu->lock
	 * (lock order: the ALUA registry, targets, then LUs) */
	if (rq.sa == PRO_REGISTER_AND_MOVE)
		rq.rtpi_ok = rq.rtpi && alua_lu_has_port(lu, rq.rtpi);

	c = (struct pr_ctx){.lu = lu, .pr = pr, .cmd = cmd, .itn = cmd->priv.itn, .rq = &rq};
	if (rq.sa == PRO_PREEMPT_AND_ABORT) {
		op->tmf.nexus = cmd->nexus;
		op->tmf.reactor = cmd->reactor;
		op->tmf.priv.msg.fn = pr_op_aborted;
		atomic_init(&op->tmf.priv.pending, 1);
		c.tmf = &op->tmf;
	}

	pthread_mutex_lock(&lu->lock);
	/* everything that changes PR state while APTPL is (or becomes, or was
	 * until a write still in flight) active goes through the state file */
	store = pr->store &&
		(pr->aptpl || (rq.aptpl && sa_sets_aptpl(rq.sa)) || pr_store_busy_locked(lu));
	if (!c.itn) {
		r = SENSE_INTERNAL_TARGET_FAILURE;
	} else if (resv_conflict(lu, c.itn)) {
		/* an SPC-2 reservation held by another I_T nexus */
		r = SENSE_RESERVATION_CONFLICT;
	} else if (store && pr_store_begin_locked(lu)) {
		r = SENSE_BUSY;
	} else {
		begun = store;
		c.reg = pr_reg_of_locked(pr, c.itn);
		r = pr_out_sa[rq.sa](&c);
		if (r != SENSE_OK) {
			/* nothing changed: drop the marks a refused action left */
			struct pr_reg *reg;

			list_for_each_entry(reg, &pr->regs, node) reg->doomed = false;
			c.doomed = 0;
			c.changed = false;
		} else {
			pr_out_finish(&c);
		}
	}
	if (begun) {
		if (r == SENSE_OK && c.changed) {
			op->wait.done = pr_op_stored;
			atomic_fetch_add(&op->pending, 1);
			if (pr_store_commit_locked(lu, &op->wait)) {
				atomic_fetch_sub(&op->pending, 1);
				pr_store_rollback_locked(lu);
				r = SENSE_BUSY;
			}
		} else {
			pr_store_abandon_locked(lu);
		}
	}
	pthread_mutex_unlock(&lu->lock);

	op->result = (uint16_t)r;
	if (c.tmf) {
		/* SPC-4 5.13.11.2.4: complete after the aborted tasks */
		atomic_fetch_add(&op->pending, 1);
		tmf_task_done(c.tmf);
		if (c.aborted)
			log_info("lu %s: PREEMPT AND ABORT from %s aborted %u task(s)", lu->name,
				 cmd->nexus->port_name, c.aborted);
	}
	if (atomic_fetch_sub(&op->pending, 1) == 1)
		pr_op_complete(op);
}
