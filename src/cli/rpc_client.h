/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rpc_client.h: a JSON-RPC 2.0 client of utargetd's control socket
 * (docs/rpc.md). Its own small library, utrpcclient: the CLI links it, and so
 * does the SNMP subagent (tools/snmp), which needs nothing else of the CLI. */
#ifndef UT_CLI_RPC_CLIENT_H
#define UT_CLI_RPC_CLIENT_H

#include <jansson.h>
#include <stddef.h>

#define CLI_DEFAULT_SOCKET  "/run/utarget/utargetd.sock"
#define CLI_DEFAULT_TIMEOUT 120 /* seconds for one answer */

#define RPC_ERR_PROTOCOL 1 /* rpc_error.code: an answer that is not JSON-RPC */

struct rpc_error {
	int code;	   /* JSON-RPC error code; 0: transport error; RPC_ERR_PROTOCOL */
	char message[512]; /* one line */
	json_t *data;	   /* error.data, or NULL */
};

struct rpc_client {
	int fd; /* -1: not connected */
	char *rbuf;
	size_t rlen, rcap;
	long long next_id;
	int timeout_ms;
};

void rpc_client_init(struct rpc_client *c, int timeout_ms);
/* 0 or -errno with a message in err. */
int rpc_connect(struct rpc_client *c, const char *path, struct rpc_error *err);
void rpc_close(struct rpc_client *c);
/* One request (params: an object, consumed; NULL: {}). On success *result
 * is the "result" member (a new reference) and 0 is returned; on a
 * JSON-RPC error the error is in *err and 1 is returned; a transport
 * failure is -errno with *err set (code 0). err->data must be released
 * with rpc_error_clear(). */
int rpc_call(struct rpc_client *c, const char *method, json_t *params, json_t **result,
	     struct rpc_error *err);
void rpc_error_clear(struct rpc_error *err);
#endif
