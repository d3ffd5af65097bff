/* SPDX-License-Identifier: GPL-2.0-or-later */
/* log.h: leveled logging to stderr (one line per event), with escaping of peer
 * strings and a per-source rate limiter for repeated peer-induced errors. */
#ifndef UT_LOG_H
#define UT_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "compiler.h"

enum log_level { LOG_LVL_ERR, LOG_LVL_WARN, LOG_LVL_NOTICE, LOG_LVL_INFO, LOG_LVL_DEBUG };

extern int log_level_current;

void log_set_level(int lvl);
/* "err", "warn", "notice", "info", "debug" -> level, or -1 */
int log_level_parse(const char *name);
void log_msg(int lvl, const char *fmt, ...) UT_PRINTF(2, 3);

#define log_at(lvl, ...)                                                                           \
	do {                                                                                       \
		if (unlikely((lvl) <= log_level_current))                                          \
			log_msg((lvl), __VA_ARGS__);                                               \
	} while (0)
#define log_err(...)	log_at(LOG_LVL_ERR, __VA_ARGS__)
#define log_warn(...)	log_at(LOG_LVL_WARN, __VA_ARGS__)
#define log_notice(...) log_at(LOG_LVL_NOTICE, __VA_ARGS__)
#define log_info(...)	log_at(LOG_LVL_INFO, __VA_ARGS__)
#define log_debug(...)	log_at(LOG_LVL_DEBUG, __VA_ARGS__)

/* Copy len bytes of untrusted src into dst as printable text: bytes outside
 * 0x21..0x7e (and '\\') become \xHH. Always NUL-terminates dst (dst_size >= 1);
 * truncates with "..." when dst is too small. Returns dst. */
char *log_escape(char *dst, size_t dst_size, const void *src, size_t len);

/* Allows `burst` messages per `interval_ns`, then suppresses and counts. */
struct log_ratelimit {
	uint64_t interval_ns;
	unsigned burst;
	uint64_t window_start;
	unsigned printed;
	unsigned suppressed;
};
#define LOG_RATELIMIT_INIT(interval_ns_, burst_)                                                   \
	{                                                                                          \
		.interval_ns = (interval_ns_), .burst = (burst_)                                   \
	}
/* true when the caller may log now; thread-compatible (caller serializes). */
bool log_ratelimit_ok(struct log_ratelimit *rl);

#endif
