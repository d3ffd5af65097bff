/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rawlogin: log in with the project's own raw initiator and report what was
 * negotiated; the test client for authentication and negotiation tests.
 *
 * usage: rawlogin --addr HOST:PORT [--target IQN | --discovery]
 *                 [--initiator IQN] [--chap-user U --chap-secret S]
 *                 [--mutual-user U --mutual-secret S] [--chap-alg 5,6,7,8]
 *                 [--encoding hex|base64] [--header-digest] [--data-digest]
 *                 [--lun N] [--source ADDR] [--sessions N] [--second-connection]
 *                 [--hold SECONDS]
 *
 * A normal session runs TEST UNIT READY and READ CAPACITY(16) on --lun; a
 * discovery session runs SendTargets=All and prints the answer. Both end
 * with a Logout. --source binds the connections to that local address
 * (ACLs by address). --sessions N keeps N sessions open at once (the
 * others print "session I: login ok" or "session I: login status CC/DD")
 * before the actions and the logouts; --second-connection tries to add a
 * connection (CID 1) to the first session and prints "second connection:
 * login ok" or "second connection: login status CC/DD". --hold keeps the
 * sessions logged in and idle for SECONDS once they are all open (it
 * prints "holding N sessions" first). Exit status: 0
 * success, 3 a login refused (the status class/detail is printed as "login
 * status CC/DD", and for a redirection "target address ADDR"), 1 other
 * failures, 2 usage errors. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iscsi_raw.h"
#include "lib/compiler.h"

static int print_pair(void *arg, const uint8_t *k, size_t kl, const uint8_t *v, size_t vl)
{
	(void)arg;
	printf("  %.*s=%.*s\n", (int)kl, (const char *)k, (int)vl, v ? (const char *)v : "");
	return 0;
}

static void usage(void)
{
	fprintf(
	    stderr,
	    "usage: rawlogin --addr HOST:PORT [--target IQN | --discovery] [--initiator IQN]\n"
	    "                [--chap-user U --chap-secret S] [--mutual-user U --mutual-secret S]\n"
	    "                [--chap-alg 5,6,7,8] [--encoding hex|base64] [--header-digest]\n"
	    "                [--data-digest] [--lun N] [--source ADDR] [--sessions N] [--hold S]\n"
	    "                [--second-connection]\n");
}

int main(int argc, char **argv)
{
	static const struct option lopts[] = {
	    {"addr", required_argument, NULL, 'a'},
	    {"target", required_argument, NULL, 't'},
	    {"discovery", no_argument, NULL, 'D'},
	    {"initiator", required_argument, NULL, 'i'},
	    {"chap-user", required_argument, NULL, 'u'},
	    {"chap-secret", required_argument, NULL, 's'},
	    {"mutual-user", required_argument, NULL, 'U'},
	    {"mutual-secret", required_argument, NULL, 'S'},
	    {"chap-alg", required_argument, NULL, 'A'},
	    {"encoding", required_argument, NULL, 'e'},
	    {"header-digest", no_argument, NULL, 'H'},
	    {"data-digest", no_argument, NULL, 'd'},
	    {"lun", required_argument, NULL, 'l'},
	    {"source", required_argument, NULL, 'B'},
	    {"sessions", required_argument, NULL, 'n'},
	    {"second-connection", no_argument, NULL, '2'},
	    {"hold", required_argument, NULL, 'w'},
	    {0},
	};
	struct ir_chap_opts chap = {.encoding = IR_ENC_HEX};
	struct ir_login_opts o = {
	    .initiator_name = "iqn.2026-12.org.utarget:rawlogin",
	    .initial_r2t = -1,
	    .immediate_data = -1,
	};
	struct ir_scsi_result r;
	struct ir_conn c, *more = NULL;
	char host[256], port[16];
	const char *addr = NULL, *source = NULL;
	bool discovery = false, second = false;
	unsigned nsessions = 1, refused = 0, hold = 0;
	uint64_t lun = 0, blocks = 0;
	uint32_t bs = 0;
	uint8_t resp = 0xff;
	int ch, rc, i;

	while ((ch = getopt_long(argc, argv, "a:t:Di:u:s:U:S:A:e:Hdl:B:n:2", lopts, NULL)) != -1) {
		char *end, *p;
		unsigned n = 0;

		switch (ch) {
		case 'a':
			addr = optarg;
			break;
		case 't':
			o.target_name = optarg;
			break;
		case 'D':
			discovery = true;
			break;
		case 'i':
			o.initiator_name = optarg;
			break;
		case 'u':
			chap.user = optarg;
			break;
		case 's':
			chap.secret = optarg;
			break;
		case 'U':
			chap.mutual_user = optarg;
			break;
		case 'S':
			chap.mutual_secret = optarg;
			break;
		case 'A':
			for (p = optarg; *p && n < ARRAY_SIZE(chap.algs); p = end) {
				chap.algs[n++] = (int)strtol(p, &end, 10);
				if (end == p || !ir_chap_digest_len(chap.algs[n - 1]))
					return usage(), 2;
				if (*end == ',')
					end++;
			}
			break;
		case 'e':
			if (!strcmp(optarg, "hex"))
				chap.encoding = IR_ENC_HEX;
			else if (!strcmp(optarg, "base64"))
				chap.encoding = IR_ENC_BASE64;
			else
				return usage(), 2;
			break;
		case 'H':
			o.header_digest = true;
			break;
		case 'd':
			o.data_digest = true;
			break;
		case 'l':
			lun = strtoull(optarg, &end, 0);
			if (*end)
				return usage(), 2;
			break;
		case 'B':
			source = optarg;
			break;
		case 'n':
			nsessions = (unsigned)strtoul(optarg, &end, 0);
			if (*end || !nsessions || nsessions > 4096)
				return usage(), 2;
			break;
		case '2':
			second = true;
			break;
		case 'w':
			hold = (unsigned)strtoul(optarg, &end, 0);
			if (*end || hold > 3600)
				return usage(), 2;
			break;
		default:
			usage();
			return 2;
		}
	}
	if (!addr || (discovery == (o.target_name != NULL)) || (!chap.user != !chap.secret) ||
	    (!chap.mutual_user != !chap.mutual_secret) || (chap.mutual_user && !chap.user) ||
	    ir_parse_addr(addr, host, sizeof(host), port, sizeof(port))) {
		usage();
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	if (chap.user)
		o.chap = &chap;
	ir_conn_init(&c);
	c.source = source;
	rc = ir_connect(&c, host, port, 5000);
	if (rc) {
		fprintf(stderr, "rawlogin: connect %s: %s\n", addr, strerror(-rc));
		return 1;
	}
	rc = ir_login(&c, &o);
	if (rc == -EACCES) {
		printf("login status %02x/%02x\n", c.login_class, c.login_detail);
		if (c.login_class == 1)
			printf("target address %s\n", c.login_target_address);
		ir_close(&c);
		return 3;
	}
	if (rc) {
		fprintf(stderr, "rawlogin: login: %s %s\n", strerror(-rc), c.err);
		ir_close(&c);
		return 1;
	}
	printf("login ok: TSIH 0x%04x, HeaderDigest %s, DataDigest %s, target "
	       "MaxRecvDataSegmentLength %u, MaxBurstLength %u, FirstBurstLength %u, InitialR2T "
	       "%s, ImmediateData %s%s\n",
	       c.tsih, c.hdigest ? "CRC32C" : "None", c.ddigest ? "CRC32C" : "None",
	       c.p.target_mrdsl, c.p.max_burst, c.p.first_burst, c.p.initial_r2t ? "Yes" : "No",
	       c.p.immediate_data ? "Yes" : "No",
	       chap.mutual_user ? ", mutual CHAP verified"
	       : chap.user	? ", CHAP"
				: "");
	/* RFC 7143 4.2.2.1: the command window the target opened */
	printf("CmdSN window %u\n", c.max_cmdsn - c.exp_cmdsn + 1);
	more = calloc(nsessions, sizeof(*more));
	for (unsigned k = 1; more && k < nsessions; k++) {
		struct ir_conn *m = &more[k];

		ir_conn_init(m);
		m->source = source;
		rc = ir_connect(m, host, port, 5000);
		if (!rc)
			rc = ir_login(m, &o);
		if (rc == -EACCES) {
			printf("session %u: login status %02x/%02x\n", k, m->login_class,
			       m->login_detail);
			refused++;
		} else if (rc) {
			printf("session %u: %s %s\n", k, strerror(-rc), m->err);
			refused++;
		} else {
			printf("session %u: login ok: TSIH 0x%04x\n", k, m->tsih);
		}
		if (rc)
			ir_close(m);
	}
	if (hold) {
		/* the sessions stay logged in and idle, e.g. while the target's
		 * memory is measured (bench/idle_sessions.sh) */
		printf("holding %u sessions\n", nsessions - refused);
		fflush(stdout);
		sleep(hold);
	}
	if (second) {
		/* RFC 7143 6.3.4: a connection for an existing session carries
		 * its ISID and TSIH and a new CID */
		struct ir_login_opts o2 = o;
		struct ir_conn c2;

		memcpy(o2.isid, c.isid, sizeof(o2.isid));
		o2.tsih = c.tsih;
		o2.cid = 1;
		ir_conn_init(&c2);
		c2.source = source;
		rc = ir_connect(&c2, host, port, 5000);
		if (!rc)
			rc = ir_login(&c2, &o2);
		if (rc == -EACCES)
			printf("second connection: login status %02x/%02x\n", c2.login_class,
			       c2.login_detail);
		else if (rc)
			printf("second connection: %s %s\n", strerror(-rc), c2.err);
		else
			printf("second connection: login ok\n");
		ir_close(&c2);
	}
	if (discovery) {
		uint8_t *txt;
		size_t len;

		rc = ir_sendtargets(&c, &txt, &len);
		if (!rc) {
			printf("SendTargets=All:\n");
			ir_text_foreach(txt, len, print_pair, NULL);
			free(txt);
		}
	} else {
		for (i = 0, rc = 0; i < 4; i++) {
			rc = ir_test_unit_ready(&c, lun, &r);
			if (rc || !r.status)
				break;
		}
		if (!rc)
			rc = ir_read_capacity16(&c, lun, &blocks, &bs, &r);
		if (!rc && r.status)
			rc = -EIO;
		if (!rc)
			printf("LUN %llu: %llu blocks of %u bytes\n", (unsigned long long)lun,
			       (unsigned long long)blocks, bs);
	}
	if (rc)
		fprintf(stderr, "rawlogin: %s %s\n", strerror(-rc), c.err);
	for (unsigned k = 1; more && k < nsessions; k++) {
		uint8_t mr = 0xff;

		if (more[k].fd < 0)
			continue;
		if (ir_logout(&more[k], &mr) || mr)
			fprintf(stderr, "rawlogin: session %u: logout failed\n", k);
		ir_close(&more[k]);
	}
	free(more);
	if (rc) {
		ir_close(&c);
		return 1;
	}
	rc = ir_logout(&c, &resp);
	ir_close(&c);
	if (rc || resp) {
		fprintf(stderr, "rawlogin: logout: %s, response %u\n", rc ? strerror(-rc) : "ok",
			resp);
		return 1;
	}
	return refused ? 3 : 0;
}
