/* SPDX-License-Identifier: GPL-2.0-or-later */
/* metrics.c: the Prometheus exposition (metrics.h). Names carry the
 * utarget_ prefix, counters end in _total, units are seconds and bytes.
 *
 * Latency histograms: the core's log-linear buckets (lib/stats.h, 418 per
 * class, bucket b holding integer ns values below stats_hist_bound(b)) are
 * reduced to the powers of two from 2^10 ns to 2^36 ns, each a fine bucket
 * boundary, so every cumulative count is the exact sum of the fine buckets
 * below it. `le` is that boundary in seconds, written exactly (2^10 ns is
 * le="0.000001024"): the count is that of the values < le, which differs
 * from Prometheus' <= le only for a latency of exactly 2^k ns. _count is
 * the sum of the buckets; _sum is in seconds. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ctl.h"
#include "fabric/iscsi/iscsi.h"
#include "rpc/lu_stats.h"
#include "rpc/metrics.h"
#include "scsi/scsi.h"

static const char *const class_names[SCSI_OP_CLASSES] = {
    [SCSI_OP_READ] = "read",
    [SCSI_OP_WRITE] = "write",
    [SCSI_OP_OTHER] = "other",
};

/* A label value: \ " and newline escaped (format 0.0.4). */
static void put_label(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			fputc('\\', f), fputc(*s, f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* ns as seconds, exactly (trailing zeros of the fraction dropped). */
static void put_seconds(FILE *f, uint64_t ns)
{
	char frac[16];
	int n;

	n = snprintf(frac, sizeof(frac), "%09" PRIu64, ns % 1000000000u);
	while (n > 1 && frac[n - 1] == '0')
		frac[--n] = '\0';
	fprintf(f, "%" PRIu64 ".%s", ns / 1000000000u, frac);
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* One LU's sample of a family. */
static void lu_counter(FILE *f, const char *name, const char *bs, uint64_t v)
{
	fprintf(f, "%s{backstore=\"", name);
	put_label(f, bs);
	fprintf(f, "\"} %" PRIu64 "\n", v);
}

static void lu_histogram(FILE *f, const char *bs, const char *cls, const uint64_t *lat,
			 uint64_t sum_ns)
{
	static const char name[] = "utarget_lu_command_duration_seconds";
	uint64_t cum = 0;

	for (unsigned b = 0; b < STATS_HIST_BUCKETS; b++) {
		uint64_t bound = stats_hist_bound(b);

		cum += lat[b];
		if (bound == UINT64_MAX || !is_pow2(bound))
			continue;
		fprintf(f, "%s_bucket{backstore=\"", name);
		put_label(f, bs);
		fprintf(f, "\",class=\"%s\",le=\"", cls);
		put_seconds(f, bound);
		fprintf(f, "\"} %" PRIu64 "\n", cum);
	}
	fprintf(f, "%s_bucket{backstore=\"", name);
	put_label(f, bs);
	fprintf(f, "\",class=\"%s\",le=\"+Inf\"} %" PRIu64 "\n", cls, cum);
	fprintf(f, "%s_sum{backstore=\"", name);
	put_label(f, bs);
	fprintf(f, "\",class=\"%s\"} ", cls);
	put_seconds(f, sum_ns);
	fprintf(f, "\n%s_count{backstore=\"", name);
	put_label(f, bs);
	fprintf(f, "\",class=\"%s\"} %" PRIu64 "\n", cls, cum);
}

static const struct {
	const char *name, *help;
	size_t off;
} lu_counters[] = {
    {"utarget_lu_commands_total", "SCSI commands completed by the logical unit.",
     offsetof(struct scsi_lu_stats, cmds)},
    {"utarget_lu_errors_total",
     "Commands completed with a status other than GOOD or CONDITION MET, aborted "
     "ones excluded.",
     offsetof(struct scsi_lu_stats, errors)},
    {"utarget_lu_aborted_total", "Commands aborted (task management, session loss).",
     offsetof(struct scsi_lu_stats, aborted)},
    {"utarget_lu_busy_total", "Commands completed with BUSY or TASK SET FULL (errors too).",
     offsetof(struct scsi_lu_stats, busy)},
    {"utarget_lu_read_bytes_total", "Bytes read from the logical unit (Data-In).",
     offsetof(struct scsi_lu_stats, read_bytes)},
    {"utarget_lu_written_bytes_total", "Bytes written to the logical unit (Data-Out).",
     offsetof(struct scsi_lu_stats, write_bytes)},
};
#define LU_COUNTERS (sizeof(lu_counters) / sizeof(lu_counters[0]))
/* the counters, the in-flight gauge, then the histogram */
#define LU_GAUGE    LU_COUNTERS
#define LU_HIST	    (LU_COUNTERS + 1)
#define LU_FAMILIES (LU_COUNTERS + 2)

/* One text per family, filled LU by LU in one pass (the format wants a
 * family's samples together; one LU's snapshot is held at a time). */
struct lu_texts {
	FILE *f[LU_FAMILIES];
	char *buf[LU_FAMILIES];
	size_t size[LU_FAMILIES];
};

static int lu_render(const char *bs, const struct scsi_lu_stats *st, void *arg)
{
	struct lu_texts *t = arg;

	for (size_t k = 0; k < LU_COUNTERS; k++)
		lu_counter(t->f[k], lu_counters[k].name, bs,
			   *(const uint64_t *)((const char *)st + lu_counters[k].off));
	lu_counter(t->f[LU_GAUGE], "utarget_lu_in_flight", bs, st->in_flight);
	for (unsigned cl = 0; cl < SCSI_OP_CLASSES; cl++)
		lu_histogram(t->f[LU_HIST], bs, class_names[cl], st->op[cl].lat,
			     st->op[cl].lat_sum_ns);
	return 0;
}

static int render_lus(FILE *f)
{
	struct lu_texts t = {0};
	bool found;
	int rc = 0;

	for (size_t k = 0; k < LU_FAMILIES; k++)
		if (!(t.f[k] = open_memstream(&t.buf[k], &t.size[k])))
			rc = -ENOMEM;
	if (!rc)
		rc = rpc_lu_stats_each(NULL, &found, lu_render, &t);
	for (size_t k = 0; k < LU_FAMILIES; k++) {
		if (t.f[k] && fclose(t.f[k]))
			rc = -ENOMEM;
		if (!rc && k < LU_COUNTERS)
			family(f, lu_counters[k].name, "counter", lu_counters[k].help);
		else if (!rc && k == LU_GAUGE)
			family(
			    f, "utarget_lu_in_flight", "gauge",
			    "Commands set up and not yet completed: the logical unit's queue depth "
			    "now.");
		else if (!rc)
			family(f, "utarget_lu_command_duration_seconds", "histogram",
			       "Command latency in the device server, setup to completion, by "
			       "operation class.");
		if (!rc)
			fwrite(t.buf[k], 1, t.size[k], f);
		free(t.buf[k]);
	}
	return rc;
}

/* What each running back-store knows of its medium (backstore show's
 * `medium`), the facts that are numbers: a dedup store's unique and
 * logical bytes and ratio, an rbd image's size. */
static void render_media(FILE *f)
{
	const struct cfg *c = cfg_ctl_tree();
	bool head = false;

	for (size_t i = 0; c && i < c->nbs; i++) {
		struct scsi_lu *lu = cfg_ctl_lu(c->bs[i].name);
		struct bs_fact fact[BS_FACTS_MAX];
		size_t n = lu ? scsi_lu_medium_facts(lu, fact, BS_FACTS_MAX) : 0;

		for (size_t k = 0; k < n; k++) {
			char *end;

			(void)strtod(fact[k].value, &end);
			if (!fact[k].value[0] || *end)
				continue; /* not a number */
			if (!head) {
				family(f, "utarget_backstore_medium", "gauge",
				       "What a back-store knows of its medium, by fact: a dedup "
				       "store's store_unique_bytes, store_logical_bytes, "
				       "dedup_ratio, ...; an rbd image's image_size, ...");
				head = true;
			}
			fputs("utarget_backstore_medium{backstore=\"", f);
			put_label(f, c->bs[i].name);
			fprintf(f, "\",fact=\"%s\"} %s\n", fact[k].key, fact[k].value);
		}
	}
}

static void session_labels(FILE *f, const struct iscsi_session_info *s)
{
	fputs("{target=\"", f);
	put_label(f, s->target);
	fputs("\",initiator=\"", f);
	put_label(f, s->initiator);
	fprintf(f, "\",isid=\"%02x%02x%02x%02x%02x%02x\",tsih=\"%u\"}", s->isid[0], s->isid[1],
		s->isid[2], s->isid[3], s->isid[4], s->isid[5], s->tsih);
}

/* Logged-in sessions per configured target (0 for a target without any),
 * and each normal session's counters. */
static int render_sessions(FILE *f)
{
	static const struct {
		const char *name, *help;
		size_t off;
	} counters[] = {
	    {"utarget_iscsi_session_commands_total", "SCSI commands completed in the session.",
	     offsetof(struct iscsi_session_info, commands)},
	    {"utarget_iscsi_session_read_bytes_total", "Data-In bytes sent in the session.",
	     offsetof(struct iscsi_session_info, read_bytes)},
	    {"utarget_iscsi_session_written_bytes_total",
	     "Data-Out bytes of the session's commands that completed with GOOD status.",
	     offsetof(struct iscsi_session_info, write_bytes)},
	    {"utarget_iscsi_session_command_pdus_total", "SCSI Command PDUs received.",
	     offsetof(struct iscsi_session_info, command_pdus)},
	    {"utarget_iscsi_session_response_pdus_total",
	     "PDUs sent that carried a command's status (SCSI Response, Data-In with S).",
	     offsetof(struct iscsi_session_info, response_pdus)},
	    {"utarget_iscsi_session_tx_data_bytes_total", "Data segment bytes of the PDUs sent.",
	     offsetof(struct iscsi_session_info, tx_data_bytes)},
	    {"utarget_iscsi_session_rx_data_bytes_total",
	     "Data segment bytes of the PDUs received.",
	     offsetof(struct iscsi_session_info, rx_data_bytes)},
	    {"utarget_iscsi_session_digest_errors_total", "PDUs received with a digest error.",
	     offsetof(struct iscsi_session_info, digest_errors)},
	    {"utarget_iscsi_session_format_errors_total", "PDUs received with a protocol error.",
	     offsetof(struct iscsi_session_info, format_errors)},
	    {"utarget_iscsi_session_connection_timeouts_total",
	     "Connections of the session ended by a timeout.",
	     offsetof(struct iscsi_session_info, connection_timeouts)},
	};
	const struct cfg *c = cfg_ctl_tree();
	struct iscsi_session_info *v = NULL;
	size_t n = 0;
	int rc = iscsi_session_list(&v, &n);

	if (rc)
		return rc;
	family(f, "utarget_iscsi_sessions", "gauge",
	       "Normal iSCSI sessions in full feature phase, per target.");
	for (size_t t = 0; c && t < c->ntargets; t++) {
		unsigned k = 0;

		for (size_t i = 0; i < n; i++)
			k += !v[i].discovery && v[i].logged_in &&
			     !strcmp(v[i].target, c->targets[t].name);
		fputs("utarget_iscsi_sessions{target=\"", f);
		put_label(f, c->targets[t].name);
		fprintf(f, "\"} %u\n", k);
	}
	for (size_t k = 0; k < sizeof(counters) / sizeof(counters[0]); k++) {
		family(f, counters[k].name, "counter", counters[k].help);
		for (size_t i = 0; i < n; i++) {
			if (v[i].discovery || !v[i].logged_in)
				continue;
			fputs(counters[k].name, f);
			session_labels(f, &v[i]);
			fprintf(f, " %" PRIu64 "\n",
				*(const uint64_t *)((const char *)&v[i] + counters[k].off));
		}
	}
	free(v);
	return 0;
}

static const char *const outcome_labels[ISCSI_LOGIN_OUTCOMES] = {
    [ISCSI_LOGIN_ACCEPTED] = "accepted",
    [ISCSI_LOGIN_REDIRECTED] = "redirected",
    [ISCSI_LOGIN_AUTHN_FAILED] = "authentication_failed",
    [ISCSI_LOGIN_AUTHZ_FAILED] = "authorization_failed",
    [ISCSI_LOGIN_NEG_FAILED] = "negotiation_failed",
    [ISCSI_LOGIN_OTHER_FAILED] = "other_failed",
};

/* "name{" or "name{target="...","; the caller adds the other labels. */
static void open_sample(FILE *f, const char *name, const char *target)
{
	fprintf(f, "%s{", name);
	if (target) {
		fputs("target=\"", f);
		put_label(f, target);
		fputs("\",", f);
	}
}

/* One target's (target != NULL) or the instance's login or logout lines. */
static void login_lines(FILE *f, const char *target, const struct iscsi_login_stats *l,
			bool logouts)
{
	const char *name;

	if (!logouts) {
		name =
		    target ? "utarget_iscsi_logins_total" : "utarget_iscsi_instance_logins_total";
		for (unsigned o = 0; o < ISCSI_LOGIN_OUTCOMES; o++) {
			open_sample(f, name, target);
			fprintf(f, "outcome=\"%s\"} %" PRIu64 "\n", outcome_labels[o],
				l->outcome[o]);
		}
		return;
	}
	name = target ? "utarget_iscsi_logouts_total" : "utarget_iscsi_instance_logouts_total";
	open_sample(f, name, target);
	fprintf(f, "reason=\"normal\"} %" PRIu64 "\n", l->logout_normal);
	open_sample(f, name, target);
	fprintf(f, "reason=\"other\"} %" PRIu64 "\n", l->logout_other);
}

/* The iSCSI-MIB's instance and target node counters and the SCSI-MIB's
 * target port counters (fabric/iscsi/counters.c, scsi_tport_stats()). */
static int render_targets(FILE *f)
{
	static const char *const fail_labels[ISCSI_FAIL_KINDS] = {
	    [ISCSI_FAIL_DIGEST] = "digest",
	    [ISCSI_FAIL_TIMEOUT] = "timeout",
	    [ISCSI_FAIL_FORMAT] = "format",
	    [ISCSI_FAIL_OTHER] = "other",
	};
	static const struct {
		const char *name, *help;
		size_t off;
	} ports[] = {
	    {"utarget_port_commands_total", "SCSI commands completed through the target port.",
	     offsetof(struct iscsi_tpg_stats, commands)},
	    {"utarget_port_read_bytes_total", "Data-In bytes sent through the target port.",
	     offsetof(struct iscsi_tpg_stats, read_bytes)},
	    {"utarget_port_written_bytes_total",
	     "Data-Out bytes of commands that completed with GOOD status, through the port.",
	     offsetof(struct iscsi_tpg_stats, write_bytes)},
	};
	struct iscsi_instance_stats in;
	struct iscsi_target_stats *v;
	size_t n;
	int rc = iscsi_target_stats_list(NULL, &v, &n);

	if (rc)
		return rc;
	iscsi_instance_stats(&in);
	family(f, "utarget_iscsi_session_failures_total", "counter",
	       "Logged-in sessions that ended without a logout, by the error that ended them.");
	for (unsigned k = ISCSI_FAIL_DIGEST; k < ISCSI_FAIL_KINDS; k++)
		fprintf(f, "utarget_iscsi_session_failures_total{kind=\"%s\"} %" PRIu64 "\n",
			fail_labels[k], in.failures[k]);
	family(f, "utarget_iscsi_instance_logins_total", "counter",
	       "Logins that reached no target (discovery, unknown TargetName), by outcome.");
	login_lines(f, NULL, &in.login, false);
	family(f, "utarget_iscsi_instance_logouts_total", "counter",
	       "Logout Requests of sessions without a target, by reason (0: normal).");
	login_lines(f, NULL, &in.login, true);
	family(f, "utarget_iscsi_logins_total", "counter",
	       "Logins to the target node, by outcome.");
	for (size_t i = 0; i < n; i++)
		login_lines(f, v[i].name, &v[i].login, false);
	family(f, "utarget_iscsi_logouts_total", "counter",
	       "Logout Requests to the target node, by reason (0: normal).");
	for (size_t i = 0; i < n; i++)
		login_lines(f, v[i].name, &v[i].login, true);
	for (size_t k = 0; k < sizeof(ports) / sizeof(ports[0]); k++) {
		family(f, ports[k].name, "counter", ports[k].help);
		for (size_t i = 0; i < n; i++)
			for (size_t g = 0; g < v[i].ntpgs; g++) {
				open_sample(f, ports[k].name, v[i].name);
				fprintf(f, "tpgt=\"%u\"} %" PRIu64 "\n", v[i].tpgs[g].tag,
					*(const uint64_t *)((const char *)&v[i].tpgs[g] +
							    ports[k].off));
			}
	}
	iscsi_target_stats_free(v, n);
	return 0;
}

int rpc_metrics_render(const char *version, char **text, size_t *len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	int rc;

	if (!f)
		return -ENOMEM;
	family(f, "utarget_build_info", "gauge", "Always 1; the label is utargetd's version.");
	fputs("utarget_build_info{version=\"", f);
	put_label(f, version ? version : "");
	fputs("\"} 1\n", f);
	rc = render_lus(f);
	if (!rc)
		render_media(f);
	if (!rc)
		rc = render_sessions(f);
	if (!rc)
		rc = render_targets(f);
	family(f, "utarget_stats_lost_updates_total", "counter",
	       "Statistics updates lost to allocation failures.");
	fprintf(f, "utarget_stats_lost_updates_total %" PRIu64 "\n", stats_lost_updates());
	if (fclose(f) || rc) {
		free(buf);
		return rc ? rc : -ENOMEM;
	}
	*text = buf;
	*len = size;
	return 0;
}
