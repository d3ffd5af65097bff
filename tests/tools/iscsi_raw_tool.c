/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iscsi_raw_tool.c: what the test tools built on the raw initiator share
 * beyond the protocol itself: their command line (options and HOST:PORT
 * TARGET INITIATOR), the -H hold an integration test reads counters in,
 * the clock, and the logins of a session of several connections (MC/S),
 * so that erl, erl2 and mcs keep only their scenarios. */
#include "iscsi_raw.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int ir_tool_getopt(int argc, char **argv, const struct ir_opt *opts, size_t n,
		   struct ir_tool_args *a)
{
	char optstring[2 * 64 + 1];
	size_t k = 0;
	int opt;

	if (n > 64)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		optstring[k++] = opts[i].name;
		if (opts[i].type != IR_OPT_FLAG)
			optstring[k++] = ':';
	}
	optstring[k] = 0;
	while ((opt = getopt(argc, argv, optstring)) != -1) {
		const struct ir_opt *o = NULL;

		for (size_t i = 0; i < n && !o; i++)
			if (opts[i].name == opt)
				o = &opts[i];
		if (!o)
			return -EINVAL; /* '?': getopt said why on stderr */
		switch (o->type) {
		case IR_OPT_UINT:
			/* decimal, as the tools read it with atoi before */
			*(unsigned *)o->val = (unsigned)(int)strtol(optarg, NULL, 10);
			break;
		case IR_OPT_U32:
			*(uint32_t *)o->val = (uint32_t)strtoul(optarg, NULL, 0);
			break;
		case IR_OPT_U64:
			*(uint64_t *)o->val = strtoull(optarg, NULL, 0);
			break;
		case IR_OPT_FLAG:
			*(bool *)o->val = true;
			break;
		case IR_OPT_STR:
			*(const char **)o->val = optarg;
			break;
		}
	}
	return ir_tool_operands(argc, argv, optind, a);
}

int ir_tool_operands(int argc, char **argv, int first, struct ir_tool_args *a)
{
	if (argc - first != 3 ||
	    ir_parse_addr(argv[first], a->host, sizeof(a->host), a->port, sizeof(a->port)))
		return -EINVAL;
	a->target = argv[first + 1];
	a->iname = argv[first + 2];
	return 0;
}

int64_t ir_now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void ir_hold(const char *path)
{
	int64_t end = ir_now_us() + 60 * 1000000;

	printf("ready\n");
	fflush(stdout);
	while (access(path, F_OK) != 0 && ir_now_us() < end)
		usleep(50000);
}

int ir_session_login(struct ir_session *s, struct ir_conn *c, const char *host, const char *port,
		     struct ir_login_opts *o)
{
	int rc;

	o->tsih = s->tsih;
	o->non_leading = s->tsih != 0;
	if (s->tsih)
		memcpy(o->isid, s->isid, sizeof(o->isid));
	rc = ir_connect(c, host, port, 5000);
	if (rc)
		return rc;
	c->cmdsn = s->cmdsn;
	rc = ir_login(c, o);
	if (rc)
		return rc;
	ir_session_join(s, c);
	return 0;
}

void ir_session_join(struct ir_session *s, struct ir_conn *c)
{
	uint32_t target_mrdsl = c->p.target_mrdsl, our_mrdsl = c->p.our_mrdsl;
	bool hdigest = c->p.hdigest, ddigest = c->p.ddigest;

	if (!s->tsih) {
		s->tsih = c->tsih;
		memcpy(s->isid, c->isid, sizeof(s->isid));
		s->p = c->p;
		s->cmdsn = c->cmdsn;
		return;
	}
	c->p = s->p;
	c->p.target_mrdsl = target_mrdsl;
	c->p.our_mrdsl = our_mrdsl;
	c->p.hdigest = hdigest;
	c->p.ddigest = ddigest;
}
