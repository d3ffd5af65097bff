/* SPDX-License-Identifier: GPL-2.0-or-later */
/* test_metrics.c: rpc/metrics.c (and lu_stats.c) against fakes of the
 * running tree, the core's LU statistics and the fabric's sessions: the
 * exact `le` bounds and cumulative counts, _sum in seconds, label escaping,
 * HELP and TYPE before each family's samples. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/ctl.h"
#include "fabric/iscsi/iscsi.h"
#include "rpc/metrics.h"
#include "scsi/scsi.h"

static struct cfg_backstore fake_bs[2] = {{.name = "r0"}, {.name = "r1"}};
static struct cfg_target fake_tgt[1] = {{.name = "iqn.2026-12.org.utarget:t"}};
static struct cfg fake_cfg = {.bs = fake_bs, .nbs = 2, .targets = fake_tgt, .ntargets = 1};
static int fake_lu;

const struct cfg *cfg_ctl_tree(void)
{
	return &fake_cfg;
}

struct scsi_lu *cfg_ctl_lu(const char *backstore)
{
	return strcmp(backstore, "r0") == 0 ? (struct scsi_lu *)&fake_lu : NULL;
}

void scsi_lu_stats(struct scsi_lu *lu, struct scsi_lu_stats *out)
{
	assert_ptr_equal(lu, &fake_lu);
	memset(out, 0, sizeof(*out));
	out->cmds = 7;
	out->read_bytes = 4096;
	out->in_flight = 2;
	out->op[SCSI_OP_READ].cmds = 7;
	out->op[SCSI_OP_READ].lat[0] = 1;		       /* below 2^10 ns */
	out->op[SCSI_OP_READ].lat[16] = 2;		       /* [2^11 - 64, 2^11) */
	out->op[SCSI_OP_READ].lat[17] = 3;		       /* [2^11, 2^11 + 128) */
	out->op[SCSI_OP_READ].lat[STATS_HIST_BUCKETS - 1] = 1; /* >= 2^36 ns */
	out->op[SCSI_OP_READ].lat_sum_ns = 1500000000;
}

/* a dedup store's facts: the numbers become samples, the rest not */
size_t scsi_lu_medium_facts(struct scsi_lu *lu, struct bs_fact *f, size_t max)
{
	assert_ptr_equal(lu, &fake_lu);
	assert_true(max >= 3);
	f[0].key = "store";
	snprintf(f[0].value, sizeof(f[0].value), "/srv/dedup");
	f[1].key = "store_unique_bytes";
	snprintf(f[1].value, sizeof(f[1].value), "268435456");
	f[2].key = "dedup_ratio";
	snprintf(f[2].value, sizeof(f[2].value), "2.00");
	return 3;
}

int iscsi_session_list(struct iscsi_session_info **out, size_t *n)
{
	struct iscsi_session_info *s = calloc(2, sizeof(*s));

	if (!s)
		return -1;
	s[0].tsih = 7;
	s[0].logged_in = true;
	snprintf(s[0].target, sizeof(s[0].target), "iqn.2026-12.org.utarget:t");
	snprintf(s[0].initiator, sizeof(s[0].initiator), "iqn.x\"y\\z\nw");
	s[0].isid[0] = 0x80;
	s[0].commands = 5;
	s[1].discovery = true; /* not counted */
	s[1].logged_in = true;
	*out = s;
	*n = 2;
	return 0;
}

void iscsi_instance_stats(struct iscsi_instance_stats *out)
{
	*out = (struct iscsi_instance_stats){0};
	out->failures[ISCSI_FAIL_DIGEST] = 2;
	out->login.outcome[ISCSI_LOGIN_ACCEPTED] = 4; /* discovery */
	out->login.logout_normal = 4;
}

int iscsi_target_stats_list(const char *name, struct iscsi_target_stats **out, size_t *n)
{
	struct iscsi_target_stats *v = calloc(1, sizeof(*v));

	assert_null(name);
	if (!v)
		return -1;
	snprintf(v->name, sizeof(v->name), "iqn.2026-12.org.utarget:t");
	v->login.outcome[ISCSI_LOGIN_AUTHN_FAILED] = 3;
	v->login.logout_other = 1;
	v->tpgs = calloc(1, sizeof(*v->tpgs));
	if (!v->tpgs)
		return free(v), -1;
	v->tpgs[0] = (struct iscsi_tpg_stats){.tag = 2, .commands = 9, .write_bytes = 1ull << 33};
	v->ntpgs = 1;
	*out = v;
	*n = 1;
	return 0;
}

void iscsi_target_stats_free(struct iscsi_target_stats *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i].tpgs);
	free(v);
}

static char *render(void)
{
	char *text = NULL;
	size_t len = 0;

	assert_int_equal(rpc_metrics_render("9.9", &text, &len), 0);
	assert_int_equal(strlen(text), len);
	return text;
}

#define H "utarget_lu_command_duration_seconds"

static void test_histogram(void **state)
{
	char *t = render();
	unsigned n = 0;

	(void)state;
	assert_non_null(
	    strstr(t, H "_bucket{backstore=\"r0\",class=\"read\",le=\"0.000001024\"} 1\n"));
	assert_non_null(
	    strstr(t, H "_bucket{backstore=\"r0\",class=\"read\",le=\"0.000002048\"} 3\n"));
	assert_non_null(
	    strstr(t, H "_bucket{backstore=\"r0\",class=\"read\",le=\"0.000004096\"} 6\n"));
	assert_non_null(
	    strstr(t, H "_bucket{backstore=\"r0\",class=\"read\",le=\"68.719476736\"} 6\n"));
	assert_non_null(strstr(t, H "_bucket{backstore=\"r0\",class=\"read\",le=\"+Inf\"} 7\n"));
	assert_non_null(strstr(t, H "_sum{backstore=\"r0\",class=\"read\"} 1.5\n"));
	assert_non_null(strstr(t, H "_count{backstore=\"r0\",class=\"read\"} 7\n"));
	assert_non_null(strstr(t, H "_count{backstore=\"r0\",class=\"other\"} 0\n"));
	for (const char *p = t; (p = strstr(p, H "_bucket{backstore=\"r0\",class=\"read\"")); p++)
		n++;
	assert_int_equal(n, 28); /* 2^10 .. 2^36 ns and +Inf */
	/* r1 has no running LU: no sample */
	assert_null(strstr(t, "backstore=\"r1\""));
	assert_non_null(strstr(t, "utarget_lu_commands_total{backstore=\"r0\"} 7\n"));
	assert_non_null(strstr(t, "utarget_lu_read_bytes_total{backstore=\"r0\"} 4096\n"));
	assert_non_null(strstr(
	    t, "# TYPE utarget_lu_in_flight gauge\nutarget_lu_in_flight{backstore=\"r0\"} 2\n"));
	free(t);
}

static void test_labels_and_families(void **state)
{
	char *t = render(), *line, *save = NULL, *fam = NULL;

	(void)state;
	assert_non_null(strstr(t, "utarget_build_info{version=\"9.9\"} 1\n"));
	assert_non_null(
	    strstr(t, "# TYPE utarget_backstore_medium gauge\n"
		      "utarget_backstore_medium{backstore=\"r0\",fact=\"store_unique_bytes\"} "
		      "268435456\n"
		      "utarget_backstore_medium{backstore=\"r0\",fact=\"dedup_ratio\"} 2.00\n"));
	assert_null(strstr(t, "fact=\"store\""));
	assert_non_null(
	    strstr(t, "utarget_iscsi_sessions{target=\"iqn.2026-12.org.utarget:t\"} 1\n"));
	assert_non_null(
	    strstr(t, "utarget_iscsi_session_commands_total{target=\"iqn.2026-12.org.utarget:t\","
		      "initiator=\"iqn.x\\\"y\\\\z\\nw\",isid=\"800000000000\",tsih=\"7\"} 5\n"));
	/* the iSCSI-MIB's instance and target node counters, the port's */
	assert_non_null(strstr(t, "utarget_iscsi_session_failures_total{kind=\"digest\"} 2\n"));
	assert_non_null(strstr(t, "utarget_iscsi_session_failures_total{kind=\"other\"} 0\n"));
	assert_non_null(strstr(t, "utarget_iscsi_instance_logins_total{outcome=\"accepted\"} 4\n"));
	assert_non_null(strstr(t, "utarget_iscsi_instance_logouts_total{reason=\"normal\"} 4\n"));
	assert_non_null(strstr(t, "utarget_iscsi_logins_total{target=\"iqn.2026-12.org.utarget:t\","
				  "outcome=\"authentication_failed\"} 3\n"));
	assert_non_null(strstr(t,
			       "utarget_iscsi_logouts_total{target=\"iqn.2026-12.org.utarget:t\","
			       "reason=\"other\"} 1\n"));
	assert_non_null(strstr(t,
			       "utarget_port_commands_total{target=\"iqn.2026-12.org.utarget:t\","
			       "tpgt=\"2\"} 9\n"));
	assert_non_null(strstr(t, "utarget_port_written_bytes_total{target=\"iqn.2026-12.org."
				  "utarget:t\",tpgt=\"2\"} 8589934592\n"));
	/* every sample follows the TYPE of its family, which follows its HELP */
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "# HELP ", 7) == 0) {
			fam = line + 7;
		} else if (strncmp(line, "# TYPE ", 7) == 0) {
			assert_non_null(fam);
			assert_memory_equal(line + 7, fam, strcspn(fam, " ") + 1);
		} else {
			size_t fl = fam ? strcspn(fam, " ") : 0;

			assert_true(fl && strncmp(line, fam, fl) == 0);
		}
	}
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_histogram),
	    cmocka_unit_test(test_labels_and_families),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
