/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fuzz_config.c: libFuzzer harness (5): the JSON config (docs/config.md)
 * through parse -> verify -> dump, the line locator and the size syntax.
 * (RPC requests join here when src/rpc lands.)
 *
 * Input: the text of a config file, as utargetd --check would read it.
 * Checked on every input (a violation aborts):
 *  - a parse error names a line within the text (or 0) and a message;
 *  - a tree that parses dumps to JSON that parses again to a tree whose dump
 *    is byte-identical (model.h: parse(dump(c)) yields the same tree), and
 *    verify gives the same verdict on both;
 *  - cfg_parse_size and cfg_format_size round-trip on what parses. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_env.h"
#include "config/model.h"
#include "fabric/iscsi/iscsi.h"

static void config_fail(const char *what, const char *text)
{
	fprintf(stderr, "fuzz_config: %s\n%s\n", what, text ? text : "");
	abort();
}

static int config_lines(const uint8_t *p, size_t n)
{
	int lines = 1;

	for (size_t i = 0; i < n; i++)
		lines += p[i] == '\n';
	return lines;
}

static void config_sizes(const uint8_t *data, size_t size)
{
	uint64_t v, w;
	char buf[32];

	if (cfg_parse_size((const char *)data, size < 32 ? size : 32, &v) != 0)
		return;
	cfg_format_size(v, buf, sizeof(buf));
	if (cfg_parse_size(buf, strlen(buf), &w) != 0 || w != v)
		config_fail("cfg_format_size output does not read back", buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cfg_iscsi_settings defaults;
	struct cfg *c = NULL, *c2 = NULL;
	struct cfg_err err, err2;
	char *dump, *dump2;
	int v1, v2;

	fz_init();
	config_sizes(data, size);
	cfg_iscsi_defaults(&defaults);
	if (cfg_parse((const char *)data, size, &defaults, &c, &err) != 0) {
		if (err.line < 0 || err.line > config_lines(data, size))
			config_fail("parse error on a line outside the text", err.msg);
		if (!err.msg[0])
			config_fail("parse error without a message", NULL);
		if (err.path[0])
			(void)cfg_locate_line((const char *)data, size, err.path);
		return 0;
	}
	v1 = cfg_validate(c, &err);
	if (v1 && !err.msg[0])
		config_fail("verify error without a message", NULL);
	if (v1 && err.path[0])
		(void)cfg_locate_line((const char *)data, size, err.path);
	dump = cfg_dump(c);
	if (!dump)
		abort();
	if (cfg_parse(dump, strlen(dump), &defaults, &c2, &err2) != 0)
		config_fail("the dump of a parsed tree does not parse", err2.msg);
	dump2 = cfg_dump(c2);
	if (!dump2)
		abort();
	if (strcmp(dump, dump2) != 0)
		config_fail("parse(dump(c)) differs from c", dump);
	v2 = cfg_validate(c2, &err2);
	if ((v1 == 0) != (v2 == 0))
		config_fail("verify disagrees on the dumped tree", dump);
	free(dump);
	free(dump2);
	cfg_free(c);
	cfg_free(c2);
	return 0;
}
