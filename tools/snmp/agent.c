/* SPDX-License-Identifier: GPL-2.0-or-later */
/* utarget-agentx: an AgentX subagent (RFC 2741) serving SCSI-MIB (RFC 4455)
 * and ISCSI-MIB (RFC 7147), read-only, from utargetd's JSON-RPC control
 * socket (docs/rpc.md). A binary of its own so that utargetd links nothing
 * of Net-SNMP; utarget-agentx(8).
 *
 * One handler per MIB subtree answers GET and GETNEXT (the agent library
 * turns GETBULK into GETNEXTs) from a snapshot (mibview.c), rebuilt from
 * six RPC calls when it is older than --interval. When utargetd cannot be
 * reached the snapshot is empty (no stale values) and the next request
 * after the interval connects again. The AgentX session is pinged every
 * --ping seconds: when snmpd restarts, the library opens it again and
 * registers the subtrees anew. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <net-snmp/net-snmp-config.h>
#include <net-snmp/net-snmp-includes.h>
#include <net-snmp/agent/net-snmp-agent-includes.h>

#include "cli/rpc_client.h"
#include "mibview.h"

#ifndef UTARGET_VERSION
#define UTARGET_VERSION "unknown"
#endif

#define RPC_TIMEOUT_MS 1000 /* per call: snmpd waits 1 s for a subagent (agentXTimeout) */

static const char *opt_socket = CLI_DEFAULT_SOCKET;
static double opt_interval = 1.0;
static volatile sig_atomic_t keep_running = 1;

static struct rpc_client rpc;
static struct mv_view view;
static double view_time = -1e9;
static bool rpc_ok = true; /* the last refresh's outcome, logged on change */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void rpc_trouble(const char *msg)
{
	if (rpc_ok)
		snmp_log(LOG_WARNING, "utarget-agentx: %s (serving nothing until it answers)\n",
			 msg);
	rpc_ok = false;
	rpc_close(&rpc);
}

/* Call one method; NULL on failure (logged once, the socket closed). */
static json_t *call(const char *method)
{
	struct rpc_error err;
	json_t *res = NULL;
	int rc;

	if (rpc.fd < 0) {
		rc = rpc_connect(&rpc, opt_socket, &err);
		if (rc) {
			rpc_trouble(err.message);
			return NULL;
		}
	}
	rc = rpc_call(&rpc, method, NULL, &res, &err);
	if (rc) {
		char m[700];
		snprintf(m, sizeof(m), "%s: %s", method, err.message);
		rpc_error_clear(&err);
		rpc_trouble(m);
		return NULL;
	}
	return res;
}

static void refresh(void)
{
	struct mv_input in = {0};
	int rc;

	view_time = now_s();
	in.info = call("daemon.info");
	if (in.info)
		in.settings = call("settings.get");
	if (in.settings)
		in.targets = call("target.list");
	if (in.targets)
		in.backstores = call("backstore.list");
	if (in.backstores)
		in.sessions = call("session.list");
	if (in.sessions)
		in.stats = call("stats.get");
	if (in.stats) {
		rc = mv_build(&view, &in);
		if (rc)
			snmp_log(LOG_ERR, "utarget-agentx: %s\n", strerror(-rc));
		if (!rpc_ok)
			snmp_log(LOG_INFO, "utarget-agentx: utargetd answers again at %s\n",
				 opt_socket);
		rpc_ok = true;
	} else {
		mv_free(&view);
	}
	json_decref(in.info);
	json_decref(in.settings);
	json_decref(in.targets);
	json_decref(in.backstores);
	json_decref(in.sessions);
	json_decref(in.stats);
}

static void set_value(netsnmp_variable_list *vb, const struct mv_var *v)
{
	long l;
	u_long u;
	struct counter64 c64;
	oid o[MV_MAX_OID];
	size_t i;

	switch (v->type) {
	case MV_INTEGER:
		l = (long)v->num;
		snmp_set_var_typed_value(vb, ASN_INTEGER, &l, sizeof(l));
		break;
	case MV_UNSIGNED:
		u = (u_long)v->num;
		snmp_set_var_typed_value(vb, ASN_UNSIGNED, &u, sizeof(u));
		break;
	case MV_COUNTER32:
		u = (u_long)v->num;
		snmp_set_var_typed_value(vb, ASN_COUNTER, &u, sizeof(u));
		break;
	case MV_COUNTER64:
		c64.high = (u_long)(v->num >> 32);
		c64.low = (u_long)(v->num & 0xffffffffu);
		snmp_set_var_typed_value(vb, ASN_COUNTER64, &c64, sizeof(c64));
		break;
	case MV_OCTETS:
		snmp_set_var_typed_value(vb, ASN_OCTET_STR, v->buf, v->buflen);
		break;
	case MV_OID:
		for (i = 0; i < v->buflen && i < MV_MAX_OID; i++)
			o[i] = ((const uint32_t *)(const void *)v->buf)[i];
		snmp_set_var_typed_value(vb, ASN_OBJECT_ID, o, i * sizeof(oid));
		break;
	}
}

/* oid (Net-SNMP's) to the view's sub-identifiers; false when it cannot
 * name a variable of the view (too long, a sub-identifier above 2^32-1). */
static bool to_u32(const oid *name, size_t len, uint32_t *out, unsigned *olen)
{
	size_t i;

	if (len > MV_MAX_OID)
		return false;
	for (i = 0; i < len; i++) {
		if (name[i] > 0xffffffffUL)
			return false;
		out[i] = (uint32_t)name[i];
	}
	*olen = (unsigned)len;
	return true;
}

static int handler(netsnmp_mib_handler *h, netsnmp_handler_registration *reg,
		   netsnmp_agent_request_info *reqinfo, netsnmp_request_info *requests)
{
	netsnmp_request_info *req;
	uint32_t root[MV_MAX_OID], name[MV_MAX_OID];
	unsigned rlen, nlen;

	if (now_s() - view_time >= opt_interval)
		refresh();
	if (!to_u32(reg->rootoid, reg->rootoid_len, root, &rlen))
		return SNMP_ERR_GENERR;
	for (req = requests; req; req = req->next) {
		netsnmp_variable_list *vb = req->requestvb;
		const struct mv_var *v = NULL;
		bool ok;

		if (req->processed)
			continue;
		ok = to_u32(vb->name, vb->name_length, name, &nlen);
		switch (reqinfo->mode) {
		case MODE_GET:
			if (ok)
				v = mv_get(&view, name, nlen);
			if (v)
				set_value(vb, v);
			else
				netsnmp_set_request_error(reqinfo, req, SNMP_NOSUCHINSTANCE);
			break;
		case MODE_GETNEXT:
			if (!ok || mv_oid_cmp(name, nlen, root, rlen) < 0)
				v = mv_next(&view, root, rlen);
			else
				v = mv_next(&view, name, nlen);
			/* past this subtree: the agent asks the next one */
			if (v && v->len >= rlen && mv_oid_cmp(v->oid, rlen, root, rlen) == 0) {
				oid o[MV_MAX_OID];
				unsigned i;
				for (i = 0; i < v->len; i++)
					o[i] = v->oid[i];
				snmp_set_var_objid(vb, o, v->len);
				set_value(vb, v);
			}
			break;
		default:
			netsnmp_set_request_error(reqinfo, req, SNMP_ERR_NOTWRITABLE);
			break;
		}
	}
	return SNMP_ERR_NOERROR;
}

static int register_subtree(const char *name, const oid *root, size_t len)
{
	netsnmp_handler_registration *reg =
	    netsnmp_create_handler_registration(name, handler, root, len, HANDLER_CAN_RONLY);

	if (!reg)
		return -1;
	return netsnmp_register_handler(reg) == MIB_REGISTERED_OK ? 0 : -1;
}

static void on_signal(int sig)
{
	keep_running = 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: utarget-agentx [-f] [--agentx-socket PATH] [--socket PATH]\n"
		"                      [--interval SECONDS] [--ping SECONDS]\n"
		"  -f, --foreground       stay in the foreground, log to stderr\n"
		"  -x, --agentx-socket P  snmpd's AgentX master socket (default Net-SNMP's,\n"
		"                         /var/agentx/master); unix:PATH, PATH or tcp:HOST:PORT\n"
		"  -s, --socket PATH      utargetd's control socket (default %s,\n"
		"                         or $UTARGET_SOCKET)\n"
		"  -i, --interval S       how long a snapshot of utargetd is served (default 1)\n"
		"  -p, --ping S           AgentX ping interval: how soon a restarted snmpd is\n"
		"                         found again (default 5)\n"
		"  -V, --version          print the version\n",
		CLI_DEFAULT_SOCKET);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"foreground", no_argument, NULL, 'f'},
	    {"agentx-socket", required_argument, NULL, 'x'},
	    {"socket", required_argument, NULL, 's'},
	    {"interval", required_argument, NULL, 'i'},
	    {"ping", required_argument, NULL, 'p'},
	    {"version", no_argument, NULL, 'V'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	static const oid scsi_mib[] = {1, 3, 6, 1, 2, 1, 139};
	static const oid iscsi_mib[] = {1, 3, 6, 1, 2, 1, 142};
	const char *agentx = NULL, *env = getenv("UTARGET_SOCKET");
	bool foreground = false;
	long ping = 5;
	char *end;
	int c;

	if (env && env[0])
		opt_socket = env;
	while ((c = getopt_long(argc, argv, "fx:s:i:p:Vh", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			foreground = true;
			break;
		case 'x':
			agentx = optarg;
			break;
		case 's':
			opt_socket = optarg;
			break;
		case 'i':
			opt_interval = strtod(optarg, &end);
			if (*end || !(opt_interval >= 0 && opt_interval <= 3600)) {
				fprintf(stderr, "utarget-agentx: --interval: 0 to 3600 seconds\n");
				return 1;
			}
			break;
		case 'p':
			ping = strtol(optarg, &end, 10);
			if (*end || ping < 1 || ping > 3600) {
				fprintf(stderr, "utarget-agentx: --ping: 1 to 3600 seconds\n");
				return 1;
			}
			break;
		case 'V':
			printf("utarget-agentx %s\n", UTARGET_VERSION);
			return 0;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 1;
	}

	if (foreground)
		snmp_enable_stderrlog();
	else
		snmp_enable_syslog_ident("utarget-agentx", LOG_DAEMON);
	/* only the options: no snmp.conf, no persistent files, no MIB files
	 * (the agent needs none) */
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DONT_READ_CONFIGS, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_LOAD, 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_LIBRARY_ID, NETSNMP_DS_LIB_DISABLE_PERSISTENT_SAVE, 1);
	setenv("MIBS", "", 1);
	netsnmp_ds_set_boolean(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_ROLE, 1);
	if (agentx)
		netsnmp_ds_set_string(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_X_SOCKET, agentx);
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL,
			   (int)ping);
	rpc_client_init(&rpc, RPC_TIMEOUT_MS);

	if (init_agent("utarget-agentx") != 0) {
		snmp_log(LOG_ERR, "utarget-agentx: cannot initialise the agent library\n");
		return 1;
	}
	if (register_subtree("scsiMIB", scsi_mib, OID_LENGTH(scsi_mib)) ||
	    register_subtree("iscsiMibModule", iscsi_mib, OID_LENGTH(iscsi_mib))) {
		snmp_log(LOG_ERR, "utarget-agentx: cannot register the MIB subtrees\n");
		return 1;
	}
	init_snmp("utarget-agentx");
	/* again: init_snmp() leaves the defaults of the configuration tokens
	 * (agentxPingInterval 0: a reconnect after 15 s) */
	netsnmp_ds_set_int(NETSNMP_DS_APPLICATION_ID, NETSNMP_DS_AGENT_AGENTX_PING_INTERVAL,
			   (int)ping);
	if (!foreground && netsnmp_daemonize(1, 0) != 0) {
		snmp_log(LOG_ERR, "utarget-agentx: cannot detach\n");
		return 1;
	}
	signal(SIGTERM, on_signal);
	signal(SIGINT, on_signal);
	signal(SIGPIPE, SIG_IGN);
	snmp_log(LOG_INFO, "utarget-agentx %s: serving SCSI-MIB and ISCSI-MIB of %s\n",
		 UTARGET_VERSION, opt_socket);

	while (keep_running)
		agent_check_and_process(1);

	/* No snmp_shutdown(): its AgentX Close races a master that is going
	 * away too (Net-SNMP 5.9.3 asserts in its callback lock, and has been
	 * seen to crash); the master sees the socket close all the same. */
	mv_free(&view);
	rpc_close(&rpc);
	return 0;
}
