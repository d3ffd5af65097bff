/* SPDX-License-Identifier: GPL-2.0-or-later */
/* malformed.h: the malformed-input suite's case model. A case (struct
 * mf_case) runs one kind of malformed or out-of-contract input against the
 * target and returns what it observed (struct mf_outcome); the driver
 * (malformed.c) compares it with the outcomes the case lists as allowed by
 * RFC 7143 (or SPC-4/SAM-5), each case citing its clause. Cases live in
 * malformed_login.c (login phase), malformed_chap.c (CHAP) and
 * malformed_ffp.c (full feature phase). */
#ifndef UT_TESTS_MALFORMED_H
#define UT_TESTS_MALFORMED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "iscsi_raw.h"

#define MF_ANY (-1)

/* What the target did, as seen by the initiator. */
enum mf_kind {
	MF_GOOD,       /* GOOD status / login completed / request answered */
	MF_RESIDUAL,   /* GOOD with a residual: a = flag (O 0x04/U 0x02), b = count */
	MF_CHECK,      /* CHECK CONDITION: a = key, b = ASC, c = ASCQ */
	MF_REJECT,     /* Reject PDU: a = reason */
	MF_LOGIN_FAIL, /* Login Response: a = status class, b = detail */
	MF_DROP,       /* the target closed the connection */
	MF_IGNORED,    /* no answer, and the connection still works afterwards */
	MF_TIMEOUT,    /* no answer (never acceptable) */
	MF_ERROR,      /* the target violated the protocol; never acceptable */
};

/* Printable names of enum mf_kind. */
extern const char *const mf_kind_names[];

struct mf_outcome {
	enum mf_kind kind;
	int a, b, c;
};

/* clang-format off */
#define OUT(k, ...) { .kind = (k), __VA_ARGS__ }
/* clang-format on */

struct mf_ctx {
	const char *host, *port, *target, *initiator;
	uint64_t lun;
	uint32_t block_size;
	uint64_t blocks;
	int verbose;
	unsigned repeat; /* sessions per disconnect case (> the target's max_sessions) */
	/* CHAP cases: a target requiring CHAP with these credentials, and
	 * offering mutual CHAP with these */
	const char *chap_target, *chap_user, *chap_secret, *mutual_user, *mutual_secret;
	char note[512]; /* per-case detail for the report */
};

struct mf_case {
	const char *name;
	const char *clause; /* where the expectation comes from */
	const char *expect_text;
	struct mf_outcome (*run)(struct mf_ctx *x);
	struct mf_outcome expect[6]; /* the acceptable outcomes (n_expect of them) */
	int n_expect;
};

#define NOTE(x, ...) snprintf((x)->note, sizeof((x)->note), __VA_ARGS__)

/* ---- helpers (malformed.c) ---- */
struct mf_outcome mf_out(enum mf_kind k, int a, int b, int c);
/* Login options of a normal session to the suite's target. */
void mf_std_opts(const struct mf_ctx *x, struct ir_login_opts *o);
int mf_connect(struct mf_ctx *x, struct ir_conn *c);
int mf_login(struct mf_ctx *x, struct ir_conn *c, const struct ir_login_opts *o);
/* TEST UNIT READY until GOOD, tolerating unit attentions (SPC-4 5.14). */
int mf_tur_good(struct ir_conn *c, uint64_t lun);
/* Classifies the next PDU (or its absence) on c. */
struct mf_outcome mf_observe(struct mf_ctx *x, struct ir_conn *c, int wait_ms);
/* After a Reject the target may close: wait a little for it. */
struct mf_outcome mf_then_maybe_drop(struct mf_ctx *x, struct ir_conn *c, struct mf_outcome o);
/* Outcome of a completed ir_scsi_cmd exchange. */
struct mf_outcome mf_scsi_outcome(struct mf_ctx *x, struct ir_conn *c, int rc,
				  const struct ir_scsi_result *r);
/* A NOP ping proves the connection still works. */
bool mf_conn_alive(struct ir_conn *c);

/* ---- the cases ---- */
extern const struct mf_case mf_login_cases[]; /* malformed_login.c */
extern const size_t mf_login_cases_n;
extern const struct mf_case mf_ffp_cases[]; /* malformed_ffp.c */
extern const size_t mf_ffp_cases_n;
extern const struct mf_case mf_chap_cases[]; /* malformed_chap.c */
extern const size_t mf_chap_cases_n;

#endif
