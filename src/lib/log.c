/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

int log_level_current = LOG_LVL_NOTICE;

static const char *const level_names[] = {
    [LOG_LVL_ERR] = "err",   [LOG_LVL_WARN] = "warn",	[LOG_LVL_NOTICE] = "notice",
    [LOG_LVL_INFO] = "info", [LOG_LVL_DEBUG] = "debug",
};

void log_set_level(int lvl)
{
	if (lvl < LOG_LVL_ERR)
		lvl = LOG_LVL_ERR;
	if (lvl > LOG_LVL_DEBUG)
		lvl = LOG_LVL_DEBUG;
	log_level_current = lvl;
}

int log_level_parse(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(level_names); i++)
		if (strcmp(name, level_names[i]) == 0)
			return (int)i;
	if (strcmp(name, "warning") == 0)
		return LOG_LVL_WARN;
	if (strcmp(name, "error") == 0)
		return LOG_LVL_ERR;
	return -1;
}

void log_msg(int lvl, const char *fmt, ...)
{
	char line[1024];
	struct timespec ts;
	struct tm tm;
	size_t n;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
	n += (size_t)snprintf(line + n, sizeof(line) - n, ".%03ldZ %s: ", ts.tv_nsec / 1000000,
			      level_names[lvl < 0		? 0
					  : lvl > LOG_LVL_DEBUG ? LOG_LVL_DEBUG
								: lvl]);
	va_start(ap, fmt);
	int m = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += (size_t)m;
	if (n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* one write per line keeps lines whole across threads */
	fwrite(line, 1, n, stderr);
}

char *log_escape(char *dst, size_t dst_size, const void *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	const uint8_t *s = src;
	size_t o = 0;

	if (dst_size == 0)
		return dst;
	for (size_t i = 0; i < len; i++) {
		uint8_t c = s[i];
		size_t need = (c > 0x20 && c < 0x7f && c != '\\') ? 1 : 4;
		if (o + need + 4 > dst_size) {
			if (o + 4 <= dst_size) {
				memcpy(dst + o, "...", 3);
				o += 3;
			}
			break;
		}
		if (need == 1) {
			dst[o++] = (char)c;
		} else {
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 15];
		}
	}
	dst[o] = '\0';
	return dst;
}

bool log_ratelimit_ok(struct log_ratelimit *rl)
{
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	if (now - rl->window_start >= rl->interval_ns) {
		if (rl->suppressed)
			log_msg(LOG_LVL_NOTICE, "%u similar messages suppressed", rl->suppressed);
		rl->window_start = now;
		rl->printed = 0;
		rl->suppressed = 0;
	}
	if (rl->printed < rl->burst) {
		rl->printed++;
		return true;
	}
	rl->suppressed++;
	return false;
}
