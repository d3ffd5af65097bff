/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rawlogin: log in with the project's own raw initiator and report what was
 * negotiated; the test client for authentication and negotiation tests.
 *
 * usage: rawlogin --addr HOST:PORT [--target IQN | --discovery]
 *                 [--initiator IQN] [--chap-user U --chap-secret S]
 *                 [--mutual-user U --mutual-secret S] [--chap-alg 5,6,7,8]
 *                 [--encoding hex|base64] [--header-digest] [--data-digest]
 *                 [--lun N]
 *
 * A normal session runs TEST UNIT READY and READ CAPACITY(16) on --lun; a
 * discovery session runs SendTargets=All and prints the answer. Both end
 * with a Logout. Exit status: 0 success, 3 login refused (the status
 * class/detail is printed as "login status CC/DD"), 1 other failures,
 * 2 usage errors. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
	    "                [--data-digest] [--lun N]\n");
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
	    {0},
	};
	struct ir_chap_opts chap = {.encoding = IR_ENC_HEX};
	struct ir_login_opts o = {
	    .initiator_name = "iqn.2026-12.org.utarget:rawlogin",
	    .initial_r2t = -1,
	    .immediate_data = -1,
	};
	struct ir_scsi_result r;
	struct ir_conn c;
	char host[256], port[16];
	const char *addr = NULL;
	bool discovery = false;
	uint64_t lun = 0, blocks = 0;
	uint32_t bs = 0;
	uint8_t resp = 0xff;
	int ch, rc, i;

	while ((ch = getopt_long(argc, argv, "a:t:Di:u:s:U:S:A:e:Hdl:", lopts, NULL)) != -1) {
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
	rc = ir_connect(&c, host, port, 5000);
	if (rc) {
		fprintf(stderr, "rawlogin: connect %s: %s\n", addr, strerror(-rc));
		return 1;
	}
	rc = ir_login(&c, &o);
	if (rc == -EACCES) {
		printf("login status %02x/%02x\n", c.login_class, c.login_detail);
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
	if (rc) {
		fprintf(stderr, "rawlogin: %s %s\n", strerror(-rc), c.err);
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
	return 0;
}
