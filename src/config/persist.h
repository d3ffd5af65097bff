/* SPDX-License-Identifier: GPL-2.0-or-later */
/* persist.h: the configuration on disk: the config file and its change
 * journal (docs/config.md, "Persistence").
 *
 *   FILE          the config, always a complete valid document; rewritten
 *                 atomically (lib/atomic_file.h: a temporary file beside
 *                 it that nobody can have prepared, fsync, rename, fsync
 *                 of the directory), mode 0600 (it holds CHAP secrets),
 *                 with the previous versions kept as FILE.1 .. FILE.N
 *   FILE.journal  the changes acknowledged since FILE was written: a
 *                 header naming FILE's SHA-256, then one line per
 *                 acknowledged request: its changes as JSON, a tab and the
 *                 CRC32C of the JSON; appended and fdatasync'ed before the
 *                 request is answered
 * State on disk = FILE + the journal's records (replayed at start-up). A
 * journal whose header names another FILE content is stale (FILE was
 * rewritten after it) and ignored; a torn last record (a crash while it was
 * written) was never acknowledged and is dropped. Compaction rewrites FILE
 * from the running tree and starts an empty journal; it costs O(size of the
 * config) and runs when the journal has grown to a quarter of FILE (so the
 * cost per change stays flat) or when changes stop.
 */
#ifndef UT_CONFIG_PERSIST_H
#define UT_CONFIG_PERSIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "config/model.h"

struct cfg_store;
struct json_t;

/* Records replayed from the journal: fn applies one record (a JSON array of
 * changes in journal form) to c; it returns 0 or -errno (replay stops
 * there). */
typedef int (*cfg_replay_fn)(struct cfg *c, struct json_t *changes, void *arg, struct cfg_err *err);

/* Read and verify FILE (parse, rules; not the file system checks), give
 * every portal group its relative port identifier (cfg_freeze_port_ids()),
 * replay its journal through fn, and open the journal for appends (a fresh
 * one when there was none or it was stale). *replayed: records applied. */
int cfg_store_open(const char *file, unsigned backups, const struct cfg_iscsi_settings *defaults,
		   cfg_replay_fn fn, void *arg, struct cfg **out, size_t *replayed,
		   struct cfg_err *err);
/* The store of an opened file (cfg_store_open() keeps it); NULL before. */
struct cfg_store *cfg_store_get(void);
void cfg_store_close(void);

/* Append records (each a JSON array of changes) and make them durable. On
 * failure the journal is cut back to its previous end (or, if that fails,
 * marked broken: every append fails until a compaction succeeds). */
int cfg_store_append(struct json_t *const *records, size_t n, struct cfg_err *err);
/* Rewrite FILE from c (atomic, backups rotated) and start an empty journal. */
int cfg_store_compact(const struct cfg *c, struct cfg_err *err);
/* FILE is still what the daemon last wrote or read (nobody edited it). */
bool cfg_store_file_is_ours(void);
/* The journal has grown enough that a compaction keeps the cost flat. */
bool cfg_store_wants_compaction(void);
size_t cfg_store_journal_records(void);
size_t cfg_store_journal_bytes(void);
size_t cfg_store_file_bytes(void);
const char *cfg_store_file(void);

#endif
