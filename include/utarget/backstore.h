/* SPDX-License-Identifier: GPL-2.0-or-later */
/* utarget/backstore.h: the ABI of utarget's back-store handlers (plugins).
 *
 * A handler is a shared object that utargetd loads with
 * dlopen("<plugin_dir>/<handler>.so", RTLD_NOW | RTLD_LOCAL) for a back-store
 * of type "plugin". It needs this header and nothing else of utarget: the
 * daemon exports no symbol for handlers; what a handler may call of the
 * daemon is in the struct utbs_host it is given. Build one with
 *
 *   cc -shared -fPIC $(pkg-config --cflags utarget-backstore) -o NAME.so NAME.c
 *
 * The header needs C11 (an anonymous union) or C++11.
 *
 * ---- Versioning ----
 * The handler exports one object, named by UTBS_HANDLER_SYMBOL:
 *
 *   UTBS_EXPORT const struct utbs_handler utbs_handler = {
 *           .abi_version = UTBS_ABI_VERSION, .name = "NAME", .open = ...,
 *           .submit = ..., .close = ...};
 *
 * abi_version is the first member in every version of this ABI, so a daemon
 * can read it from a handler of any version. The daemon loads a handler only
 * when abi_version equals its own UTBS_ABI_VERSION; otherwise the back-store
 * fails to open with -EINVAL and a log line naming both versions (rebuild the
 * handler against the daemon's header). Any change to a type, a constant or
 * a rule of this header that a built handler could notice bumps
 * UTBS_ABI_VERSION. name must equal the file name without ".so" (a check
 * that the right file was loaded).
 *
 * ---- Threading ----
 * The daemon runs every call into the handler (open, submit, close) on
 * threads of its own, one set per back-store ("LU threads"), never on a
 * reactor (the daemon's event loops that serve the network). open() runs on
 * the first of them; submit() on any of them; close() once no submit() is
 * running. The handler chooses how many there are (info->threads, 1..64):
 * with 1, its calls for that back-store never run concurrently; with n > 1,
 * up to n submit() calls may run at the same time (the handler's own locking
 * then). Back-stores of the same handler have separate contexts and
 * threads, but may run concurrently with each other: global state of the
 * handler needs its own locking.
 *
 * A request completes when the handler calls host->complete(req, err),
 * exactly once, from any thread: inside submit() (synchronous handlers) or
 * later from a thread of the handler's own (asynchronous ones). The daemon
 * carries the completion back to the thread that issued the request. After
 * complete() returns, req, its iovecs and their buffers belong to the daemon
 * again: the handler must not touch them.
 *
 * ---- What is isolated, and what is not ----
 *  - A handler that blocks (a hung NFS server, a stuck remote) stalls only
 *    its own back-store: its LU threads wait, its commands stay in flight
 *    (the initiator times them out and aborts or resets, which waits for
 *    them), the other LUs and the network keep going. open() that takes
 *    longer than UTBS_OPEN_TIMEOUT_S seconds fails the back-store with
 *    -ETIMEDOUT; the thread is left to finish it and close what it opened.
 *  - A request the handler never completes is counted; the daemon logs how
 *    many at close, and then neither frees the back-store's state nor
 *    unloads the handler (a late complete() must find them). Completing a
 *    request twice is detected and logged as long as the daemon has not yet
 *    reused the request; after that it is undefined.
 *  - A crash is NOT isolated. The handler runs in the daemon's address
 *    space: a SIGSEGV, an abort(), an exit(), a stray write into memory not
 *    its own takes down or corrupts the whole daemon and every LU. Run code
 *    you do not trust out of process (a handler can forward the requests to
 *    a helper process of its own).
 *
 * ---- Requests ----
 *  - off and len are bytes, multiples of the back-store's logical block size
 *    (the LU's block size, a multiple of info->logical_block_size), inside
 *    [0, info->size), len > 0 (but FLUSH: 0): the daemon checks them before
 *    calling.
 *  - READ fills exactly len bytes into iov[0..iovcnt), WRITE writes exactly
 *    len bytes from them (the iov_len add up to len). A short transfer is the
 *    handler's to continue; complete only when all is done or failed.
 *  - WRITE with UTBS_REQ_FUA: durable before complete(). Only sent when the
 *    handler declares UTBS_CAP_FUA; otherwise the daemon follows the write
 *    with a FLUSH.
 *  - FLUSH: every write completed so far is durable (off, len are 0).
 *    Only with UTBS_CAP_FLUSH.
 *  - DISCARD: deallocate [off, off+len); it reads back as zeroes afterwards.
 *    Only with UTBS_CAP_DISCARD.
 *  - WRITE_ZEROES: [off, off+len) reads back as zeroes; it may stay
 *    allocated. Only with UTBS_CAP_WRITE_ZEROES (the daemon writes zeroes
 *    itself otherwise).
 *  - MAP_STATUS: the blocks from off on are all mapped or all deallocated
 *    for map_len bytes (set mapped and map_len; len is what is left of the
 *    device, map_len at most that). A partly mapped block counts as mapped
 *    (the daemon rounds). Only with UTBS_CAP_MAP_STATUS; GET LBA STATUS
 *    reports every block mapped otherwise.
 *  - There is no COMPARE AND WRITE, WRITE SAME, UNMAP list or EXTENDED COPY
 *    here: the daemon's SCSI core emulates them over these operations. It
 *    runs COMPARE AND WRITE's read, compare and write under an exclusive
 *    LBA range lock that every other command of the LU waits for, so the
 *    handler sees a plain READ and a plain WRITE and needs no atomicity of
 *    its own.
 *  - err: 0, or a negative errno: -EIO a medium error (set req->bad_off to
 *    the first failing byte when known; it is UINT64_MAX on submit), -ENOSPC
 *    out of space (a thin back-store), -EROFS a write to a read-only one,
 *    anything else a hardware error.
 */
#ifndef UTARGET_BACKSTORE_H
#define UTARGET_BACKSTORE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define UTBS_ABI_VERSION    1
#define UTBS_HANDLER_SYMBOL "utbs_handler"
#define UTBS_EXPORT	    __attribute__((visibility("default")))
/* open() taking longer fails the back-store (see above). */
#define UTBS_OPEN_TIMEOUT_S 10
#define UTBS_MAX_THREADS    64

enum utbs_op {
	UTBS_OP_READ = 0,
	UTBS_OP_WRITE = 1,
	UTBS_OP_FLUSH = 2,
	UTBS_OP_DISCARD = 3,
	UTBS_OP_WRITE_ZEROES = 4,
	UTBS_OP_MAP_STATUS = 5,
};

/* utbs_request.flags */
#define UTBS_REQ_FUA (1u << 0) /* WRITE: durable before complete() */

/* utbs_info.caps: what the handler does; the daemon sends nothing else. */
#define UTBS_CAP_FLUSH	      (1u << 0) /* UTBS_OP_FLUSH */
#define UTBS_CAP_DISCARD      (1u << 1) /* UTBS_OP_DISCARD deallocates: a thin device */
#define UTBS_CAP_WRITE_ZEROES (1u << 2) /* UTBS_OP_WRITE_ZEROES */
#define UTBS_CAP_FUA	      (1u << 3) /* UTBS_REQ_FUA on WRITE */
#define UTBS_CAP_READ_ONLY    (1u << 4) /* no WRITE, DISCARD, WRITE_ZEROES */
#define UTBS_CAP_WRITE_CACHE  (1u << 5) /* a volatile cache: FLUSH is meaningful */
#define UTBS_CAP_MAP_STATUS   (1u << 6) /* UTBS_OP_MAP_STATUS (with DISCARD: thin) */

/* utbs_host.open_flags */
#define UTBS_OPEN_READ_ONLY (1u << 0) /* the config says read_only: the daemon
				       * sends no write; open the medium read-only */

/* utbs_host.log levels (syslog's numbers) */
#define UTBS_LOG_ERR	3
#define UTBS_LOG_WARNING 4
#define UTBS_LOG_NOTICE 5
#define UTBS_LOG_INFO	6
#define UTBS_LOG_DEBUG	7

/* A key=value setting of the back-store's "options" in the config. */
struct utbs_option {
	const char *key;
	const char *value;
};

struct utbs_request {
	uint32_t op;	/* enum utbs_op */
	uint32_t flags; /* UTBS_REQ_* */
	uint64_t off;	/* bytes */
	uint64_t len;	/* bytes */
	const struct iovec *iov;
	int iovcnt;
	uint32_t mapped; /* MAP_STATUS out: 1 mapped, 0 deallocated */
	union {
		uint64_t bad_off; /* -EIO out: first failing byte, else UINT64_MAX */
		uint64_t map_len; /* MAP_STATUS out: bytes from off, > 0 */
	};
	void *handler_data; /* the handler's, untouched by the daemon */
};

/* What the handler tells the daemon at open. Zeroed before open(). */
struct utbs_info {
	uint64_t size;			/* bytes, > 0, a multiple of logical_block_size */
	uint32_t logical_block_size;	/* 0: any (512 unless the config says) */
	uint32_t physical_block_size;	/* 0: unknown */
	uint32_t discard_granularity;	/* bytes; 0: the logical block size */
	uint32_t optimal_transfer;	/* bytes; 0: none */
	uint32_t caps;			/* UTBS_CAP_* */
	uint32_t threads;		/* LU threads, 1..UTBS_MAX_THREADS (0: 1) */
};

/* The daemon's side, valid from open() until close() returns. */
struct utbs_host {
	uint32_t abi_version; /* the daemon's UTBS_ABI_VERSION */
	const char *name;     /* the back-store's name in the config */
	uint32_t open_flags;  /* UTBS_OPEN_* */
	/* Complete req: 0 or -errno. Any thread, exactly once per request. */
	void (*complete)(struct utbs_request *req, int err);
	/* A line in the daemon's log, prefixed with the back-store's name;
	 * any thread. */
	void (*log)(const struct utbs_host *host, int level, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
};

struct utbs_handler {
	uint32_t abi_version; /* UTBS_ABI_VERSION the handler was built with */
	const char *name;     /* the file name without ".so" */
	/* Open a back-store: parse options[0..noptions) (unknown keys: refuse
	 * with -EINVAL and a log line), fill *info, set *ctx. 0 or -errno. */
	int (*open)(const struct utbs_host *host, const struct utbs_option *options,
		    size_t noptions, struct utbs_info *info, void **ctx);
	/* Start req; complete it through host->complete, now or later. */
	void (*submit)(void *ctx, struct utbs_request *req);
	/* Release ctx. Called once, with no submit() running; requests still
	 * incomplete then are the handler's bug (counted, see above). When it
	 * returns, no thread of the handler may still run the handler's code
	 * (join threads of its own here, even those that already called
	 * complete()): the daemon may unload the handler right after. */
	void (*close)(void *ctx);
};

#ifdef __cplusplus
}
#endif

#endif
