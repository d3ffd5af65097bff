/* SPDX-License-Identifier: GPL-2.0-or-later */
/* rpc.h: the JSON-RPC 2.0 control API of utargetd (docs/rpc.md).
 *
 * server.c owns the Unix socket, framing, JSON-RPC envelopes, batches and
 * the group commit; methods_*.c turn each method's parameters into changes
 * of the configuration (config/change.h) or read the running state. The
 * server runs everything on reactor 0 (the main thread), like the config
 * layer it drives.
 *
 * A method handler either answers at once (call->result) or, for a change,
 * fills call->txn and call->finish: the server prepares the transaction
 * (config/ctl.h), makes every prepared transaction of the reactor
 * iteration durable with one journal write, commits them, and only then
 * calls finish() to build each answer. A method that waits for something
 * else (the core's persistent reservation state file: reservation.clear)
 * sets call->start and answers later with rpc_call_done(). */
#ifndef UT_RPC_H
#define UT_RPC_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "config/change.h"
#include "config/model.h"

struct reactor;

/* Standard JSON-RPC 2.0 codes and the application's (docs/rpc.md). */
enum rpc_code {
	RPC_PARSE_ERROR = -32700,
	RPC_INVALID_REQUEST = -32600,
	RPC_METHOD_NOT_FOUND = -32601,
	RPC_INVALID_PARAMS = -32602,
	RPC_INTERNAL_ERROR = -32603,
	RPC_CONFIG_INVALID = -32001,
	RPC_NOT_FOUND = -32002,
	RPC_EXISTS = -32003,
	RPC_IN_USE = -32004,
	RPC_APPLY_FAILED = -32005,
	RPC_PERSIST_FAILED = -32006,
	RPC_NOT_SUPPORTED = -32007,
	RPC_PERMISSION_DENIED = -32008,
};

#define RPC_MAX_REQUEST (16u << 20) /* bytes per line */

enum rpc_type {
	RPC_T_STRING,
	RPC_T_INTEGER,
	RPC_T_BOOLEAN,
	RPC_T_OBJECT,
	RPC_T_ARRAY,
	RPC_T_SIZE, /* integer bytes or "10G" */
	RPC_T_ANY,
};

struct rpc_param {
	const char *name;
	enum rpc_type type;
	bool required;
};

struct rpc_call;
typedef int (*rpc_handler)(struct rpc_call *call);
typedef json_t *(*rpc_finish)(struct rpc_call *call);

struct rpc_method {
	const char *name;
	rpc_handler fn;
	bool mutating;			/* makes changes (journaled) */
	const struct rpc_param *params; /* NULL-name terminated */
	bool object;			/* also takes the fields of a config object */
	enum cfg_obj_kind kind;		/* which one (cfg_object_fields()) */
	const char *const *except;	/* of those fields, the ones it does not take */
	bool secrets;			/* answers with CHAP secrets (redact.c) */
};

/* One request being handled. */
struct rpc_call {
	const struct rpc_method *m;
	json_t *params; /* borrowed; an object */
	/* answer now */
	json_t *result;
	/* or change: the transaction and the answer once committed */
	struct cfg_txn txn;
	rpc_finish finish;
	/* or answer later (no journal): the server moves the call to a stable
	 * place and runs start(call): 0, and the method calls rpc_call_done()
	 * on reactor 0 after start returned (never inside it); or -1 with the
	 * error set (answered at once) */
	int (*start)(struct rpc_call *call);
	void *priv; /* the method's (freed with free()) */
	bool dry_run;
	bool prepared; /* the handler prepared txn itself (config.transaction) */
	bool compact;  /* rewrite the file once committed (reload) */
	/* error */
	int code;
	char msg[CFG_ERR_MSG_MAX + 64];
	json_t *data;
	/* config.transaction: calls of its requests */
	struct rpc_call **sub;
	size_t nsub;
};

/* Set an error on the call; returns -1 (handlers return it). */
int rpc_fail(struct rpc_call *call, int code, json_t *data, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The error for a config failure (errno from change.h/ctl.h): code by
 * errno, data {path, line?, message}. */
int rpc_fail_cfg(struct rpc_call *call, int rc, const struct cfg_err *err, bool runtime);

/* ---- the method table (methods_*.c) ---- */
const struct rpc_method *rpc_method_find(const char *name);
/* Every method, NULL-terminated. */
extern const struct rpc_method *const rpc_methods[];
extern const struct rpc_method rpc_methods_config[];
extern const struct rpc_method rpc_methods_backstore[];
extern const struct rpc_method rpc_methods_target[];
extern const struct rpc_method rpc_methods_session[];
extern const struct rpc_method rpc_methods_alua[];
extern const struct rpc_method rpc_methods_reservation[];
extern const struct rpc_method rpc_methods_stats[];
extern const struct rpc_method rpc_methods_isns[];
/* Check params against m (unknown, missing, mistyped): 0 or -1 (error set). */
int rpc_check_params(struct rpc_call *call);
/* Run a method on params (the server and config.transaction). */
int rpc_call_run(struct rpc_call *call);
void rpc_call_clear(struct rpc_call *call);
/* {"methods": {...}} as rpc.methods answers. */
json_t *rpc_methods_json(void);

/* ---- helpers for methods ---- */
const char *rpc_str(const struct rpc_call *call, const char *key);
bool rpc_has(const struct rpc_call *call, const char *key);
/* A change into call->txn (NULL on ENOMEM: error set). */
struct cfg_chg *rpc_chg(struct rpc_call *call, enum cfg_chg_kind kind, const char *target,
			const char *initiator, const char *name);
/* Parse a config object from JSON into ch->obj (error set on failure). */
int rpc_chg_object(struct rpc_call *call, struct cfg_chg *ch, enum cfg_obj_kind kind, json_t *o);
/* Replace the settings with s (a reference stolen): one settings.set
 * change into call->txn, answered by finish (error set on failure). */
int rpc_settings_change(struct rpc_call *call, json_t *s, rpc_finish finish);
/* params without the keys in drop[] (NULL-terminated); a new reference. */
json_t *rpc_params_without(const struct rpc_call *call, const char *const *drop);
/* cur (a new reference of the object's JSON) with params merged in: keys
 * of drop[] skipped, a null value removes the key (its default). */
json_t *rpc_merge(json_t *cur, const struct rpc_call *call, const char *const *drop);
/* Every CHAP credential under an "auth" of v without its secret
 * ("redacted": true instead); every answer but config.get's (redact.c). */
void rpc_redact(json_t *v);
/* A credential under an "auth" of in without "secret" takes the secret of
 * the same user in the same place of cur, the object before the change. */
void rpc_unredact(json_t *in, json_t *cur);
/* "10G"/integer -> bytes (error set). */
int rpc_size(struct rpc_call *call, const char *key, uint64_t *out);

/* ---- server.c ---- */
struct rpc_server_opts {
	const char *path; /* socket path */
	const char *version;
	const char *config_file;
};
/* Listen on the socket (its directory created 0700 when missing, the socket
 * 0600). On reactor r (the main thread's). 0 or -errno (logged). */
int rpc_server_start(struct reactor *r, const struct rpc_server_opts *o);
/* Close the socket and every client; unlink the socket. */
void rpc_server_stop(void);
/* The answer of a call started with call->start: call->result, or its
 * error; the server sends it in order and frees the call. */
void rpc_call_done(struct rpc_call *call);
/* For daemon.info. */
const char *rpc_server_path(void);
const char *rpc_server_version(void);
double rpc_server_uptime(void);

#endif
