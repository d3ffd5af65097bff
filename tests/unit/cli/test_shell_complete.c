/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for the shell's Tab completion (src/cli/shell.c, included for
 * its statics): verbs and command objects, paths from the live tree, field
 * names of the node, child names, back-store names to map; against a fake
 * daemon. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cli/shell.c"
#include "fake_rpcd.h"

static struct fake_rpcd fake;
static struct cli cli;
static struct sh_path cwd;

static int setup(void **state)
{
	fake_start(&fake);
	fake_set(&fake, "backstore.list",
		 "{\"result\": [{\"name\": \"disk1\", \"type\": \"file\", \"mapped\": []}, "
		 "{\"name\": \"dram\", \"type\": \"ram\", \"mapped\": []}]}");
	fake_set(&fake, "target.list",
		 "{\"result\": [{\"name\": \"iqn.2026-12.org.example:t1\"}, "
		 "{\"name\": \"iqn.2026-12.org.example:t2\"}]}");
	fake_set(&fake, "target.get",
		 "{\"result\": {\"name\": \"iqn.2026-12.org.example:t1\", \"portal_groups\": "
		 "[{\"tag\": 1, \"portals\": []}], \"luns\": [], \"acls\": []}}");
	cli = (struct cli){.socket = fake.path, .timeout_ms = 5000, .out = stdout, .err = stderr};
	rpc_client_init(&cli.rpc, 5000);
	sh_comp.c = &cli;
	sh_comp.cwd = &cwd;
	return 0;
}

static int teardown(void **state)
{
	rpc_close(&cli.rpc);
	json_decref(sh_comp.cands);
	fake_stop(&fake);
	return 0;
}

/* Complete the last word of line at path; the candidates, space separated
 * (the list libedit would show), or the single completion. */
static char *complete(const char *path, const char *line)
{
	static char buf[256], out[2048];
	const char *word = strrchr(line, ' ');
	struct sh_path root = {.kind = SH_ROOT};
	const char *why;
	char **m;
	size_t n = 0;

	assert_int_equal(sh_resolve(&root, path, &cwd, &why), 0);
	snprintf(buf, sizeof(buf), "%s", line);
	rl_line_buffer = buf;
	word = word ? word + 1 : line;
	m = sh_complete(word, (int)(word - line), (int)strlen(line));
	out[0] = '\0';
	if (!m)
		return out;
	/* m[0] is the common prefix; the matches follow when there are several
	 * (in libedit's order: sorted here) */
	for (size_t i = 1; m[0] && m[1] && m[i]; i++)
		for (size_t j = i + 1; m[j]; j++)
			if (strcmp(m[i], m[j]) > 0) {
				char *t = m[i];
				m[i] = m[j];
				m[j] = t;
			}
	for (size_t i = m[1] ? 1 : 0; m[i]; i++)
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s", n ? " " : "", m[i]);
	for (size_t i = 0; m[i]; i++)
		free(m[i]);
	free(m);
	return out;
}

static void test_complete(void **state)
{
	assert_string_equal(complete("/", "cd ba"), "backstores/");
	assert_string_equal(
	    complete("/", "ls /backstores/"),
	    "/backstores/block/ /backstores/dedup/ /backstores/file/ /backstores/iscsi/ "
	    "/backstores/null/ /backstores/plugin/ /backstores/ram/ /backstores/rbd/ "
	    "/backstores/sg/");
	assert_string_equal(
	    complete("/", "cd /iscsi/iqn.2026-12.org.example:t"),
	    "/iscsi/iqn.2026-12.org.example:t1/ /iscsi/iqn.2026-12.org.example:t2/");
	assert_string_equal(complete("/iscsi", "cd iqn.2026-12.org.example:t1/"),
			    "iqn.2026-12.org.example:t1/acls/ iqn.2026-12.org.example:t1/luns/ "
			    "iqn.2026-12.org.example:t1/tpg1/");
	assert_string_equal(complete("/backstores/file/disk1", "set th"), "thin=");
	assert_string_equal(complete("/backstores/file/disk1", "set write"), "write_cache=");
	assert_string_equal(complete("/iscsi/iqn.2026-12.org.example:t1", "set demo_mode."),
			    "demo_mode.enabled= demo_mode.read_only= demo_mode.target_reset=");
	assert_string_equal(complete("/backstores/ram", "delete d"), "dram");
	assert_string_equal(complete("/iscsi/iqn.2026-12.org.example:t1/luns", "create d"),
			    "disk1 dram");
	assert_string_equal(complete("/", "lun a"), "add");
	assert_string_equal(complete("/", "backs"), "backstore");
	assert_string_equal(complete("/", "pw"), "pwd");
	/* nothing completes a path that does not resolve */
	assert_string_equal(complete("/", "cd /nowhere/x"), "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_complete),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
