/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_top.c: utarget top, a live view of the logical units and sessions
 * sorted by IOPS, MB/s, p99 latency or errors over each interval (default
 * one second; stats.get twice, stats_rates.c). On a terminal it redraws
 * the screen each interval and reads keys without echo (termios raw mode,
 * restored on exit, SIGINT and SIGTERM): q quits, i / m / p / e sort by
 * IOPS / MB/s / p99 / errors. --once, or stdout not a terminal: one frame
 * after one interval, then exit; with --json that frame as JSON (the
 * rates object of stats_rates.h, rows sorted, plus "sort"). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cmd.h"
#include "cli/stats_rates.h"

enum top_sort { TOP_IOPS, TOP_MBPS, TOP_P99, TOP_ERRORS, TOP_SORTS };
static const char *const sort_names[TOP_SORTS] = {"iops", "mbps", "p99", "errors"};
static const char sort_keys[TOP_SORTS] = {'i', 'm', 'p', 'e'};

static volatile sig_atomic_t top_stop;

static void top_signal(int sig)
{
	(void)sig;
	top_stop = 1;
}

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return json_is_number(v) ? json_number_value(v) : 0;
}

/* The sort key of a row: bigger first. A p99 beyond the last bound (-1)
 * is the largest; no command (null) the smallest. Sessions have no
 * latency: p99 sorts them by IOPS. */
static double sort_value(json_t *row, enum top_sort s)
{
	switch (s) {
	case TOP_MBPS:
		return num(row, "read_mb_s") + num(row, "write_mb_s");
	case TOP_P99: {
		json_t *r = json_object_get(row, "read_p99_ns"),
		       *w = json_object_get(row, "write_p99_ns");
		double v = -1;

		if (!r && !w)
			return num(row, "iops");
		if (json_is_integer(r))
			v = json_integer_value(r) < 0 ? 1e30 : (double)json_integer_value(r);
		if (json_is_integer(w))
			v = UT_MAX(v, json_integer_value(w) < 0 ? 1e30
								: (double)json_integer_value(w));
		return v;
	}
	case TOP_ERRORS:
		return json_object_get(row, "errors_s") ? num(row, "errors_s") : num(row, "errors");
	default:
		return num(row, "iops");
	}
}

static enum top_sort cmp_sort;

static int row_cmp(const void *x, const void *y)
{
	double a = sort_value(*(json_t *const *)x, cmp_sort),
	       b = sort_value(*(json_t *const *)y, cmp_sort);

	return a < b ? 1 : a > b ? -1 : 0;
}

/* Sort the array arr of rows in place (stable enough for a view). */
static void sort_rows(json_t *arr, enum top_sort s)
{
	size_t n = json_array_size(arr);
	json_t **v = n ? calloc(n, sizeof(*v)) : NULL;

	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		v[i] = json_incref(json_array_get(arr, i));
	cmp_sort = s;
	qsort(v, n, sizeof(*v), row_cmp);
	json_array_clear(arr);
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, v[i]);
	free(v);
}

static json_t *lu_row(json_t *r)
{
	json_t *row = json_deep_copy(r);
	char iops[32], rd[32], wr[32], rp[32], wp[32];
	json_t *v;

	if (!row)
		return NULL;
	rates_fmt(num(r, "iops"), iops, sizeof(iops));
	rates_fmt(num(r, "read_mb_s"), rd, sizeof(rd));
	rates_fmt(num(r, "write_mb_s"), wr, sizeof(wr));
	v = json_object_get(r, "read_p99_ns");
	if (json_is_integer(v) && json_integer_value(v) < 0)
		snprintf(rp, sizeof(rp), ">68.7s");
	else
		stats_out_ns(v, rp, sizeof(rp));
	v = json_object_get(r, "write_p99_ns");
	if (json_is_integer(v) && json_integer_value(v) < 0)
		snprintf(wp, sizeof(wp), ">68.7s");
	else
		stats_out_ns(v, wp, sizeof(wp));
	json_object_set_new(row, "iops_t", json_string(iops));
	json_object_set_new(row, "rd_t", json_string(rd));
	json_object_set_new(row, "wr_t", json_string(wr));
	json_object_set_new(row, "rp_t", json_string(rp));
	json_object_set_new(row, "wp_t", json_string(wp));
	return row;
}

static json_t *ses_row(json_t *r)
{
	json_t *row = json_deep_copy(r);
	char iops[32], mbs[32];

	if (!row)
		return NULL;
	rates_fmt(num(r, "iops"), iops, sizeof(iops));
	rates_fmt(num(r, "read_mb_s") + num(r, "write_mb_s"), mbs, sizeof(mbs));
	json_object_set_new(row, "iops_t", json_string(iops));
	json_object_set_new(row, "mbs_t", json_string(mbs));
	return row;
}

static void table(struct cli *c, json_t *arr, json_t *(*row)(json_t *), const char *const *cols,
		  const char *const *heads, size_t ncols)
{
	json_t *rows = json_array(), *e;
	size_t i;

	json_array_foreach(arr, i, e) json_array_append_new(rows, row(e));
	out_table(c, rows, cols, heads, ncols);
	json_decref(rows);
}

static void frame(struct cli *c, json_t *snap, json_t *rates, enum top_sort s, bool tty)
{
	static const char *const lcols[] = {"backstore", "iops_t", "rd_t",     "wr_t",
					    "rp_t",	 "wp_t",   "errors_s", "in_flight"};
	static const char *const lheads[] = {"BACKSTORE", "IOPS",      "READ MB/S", "WRITE MB/S",
					     "READ P99",  "WRITE P99", "ERRORS/S",  "IN FLIGHT"};
	static const char *const scols[] = {"tsih",   "initiator", "target",
					    "iops_t", "mbs_t",	   "errors"};
	static const char *const sheads[] = {"TSIH", "INITIATOR", "TARGET",
					     "IOPS", "MB/S",	  "ERRORS"};
	json_t *in = json_object_get(snap, "instance");
	char now[32];
	time_t t = time(NULL);
	struct tm tm;

	now[0] = '\0';
	if (localtime_r(&t, &tm))
		strftime(now, sizeof(now), "%H:%M:%S", &tm);
	if (tty)
		fputs("\033[H\033[2J", c->out);
	fprintf(c->out,
		"utarget top - %s  interval %.1fs  sorted by %s  sessions %lld  connections %lld  "
		"failed sessions %lld\n",
		now, num(rates, "interval_s"), sort_names[s],
		(long long)json_integer_value(json_object_get(in, "sessions")),
		(long long)json_integer_value(json_object_get(in, "connections")),
		(long long)json_integer_value(json_object_get(in, "session_failures")));
	if (tty)
		fputs("keys: q quit, i IOPS, m MB/s, p p99, e errors\n", c->out);
	fputc('\n', c->out);
	table(c, json_object_get(rates, "luns"), lu_row, lcols, lheads, ARRAY_SIZE(lcols));
	fputc('\n', c->out);
	table(c, json_object_get(rates, "sessions"), ses_row, scols, sheads, ARRAY_SIZE(scols));
	fflush(c->out);
}

/* Wait up to ms for a key on a terminal's stdin; the sort it selects, -2
 * for q, -1 for nothing. */
static int wait_key(int ms)
{
	struct pollfd p = {.fd = STDIN_FILENO, .events = POLLIN};
	char ch;

	if (poll(&p, 1, ms) <= 0 || read(STDIN_FILENO, &ch, 1) != 1)
		return -1;
	if (ch == 'q' || ch == 'Q' || ch == 3 /* ^C in raw mode */)
		return -2;
	for (int k = 0; k < TOP_SORTS; k++)
		if (ch == sort_keys[k])
			return k;
	return -1;
}

static int top_run(struct cli *c, const struct cli_cmd *cmd, const struct cli_args *a)
{
	bool once = a->set[1], tty = !once && !c->json && isatty(STDOUT_FILENO);
	bool keys = tty && isatty(STDIN_FILENO);
	struct termios saved, raw;
	struct sigaction sa = {.sa_handler = top_signal}, old_int, old_term;
	json_t *prev = NULL;
	enum top_sort s = TOP_IOPS;
	double interval;
	int rc;

	(void)cmd;
	rc = stats_interval(c, cli_opt(a, 0), &interval);
	if (rc)
		return rc;
	if (interval <= 0) {
		cli_errorf(c, "--interval: top needs an interval above 0");
		return CLI_EUSAGE;
	}
	if (cli_opt(a, 2)) {
		int k;

		for (k = 0; k < TOP_SORTS && strcmp(cli_opt(a, 2), sort_names[k]); k++)
			;
		if (k == TOP_SORTS) {
			cli_errorf(c, "--sort: \"%s\" is not iops, mbps, p99 or errors",
				   cli_opt(a, 2));
			return CLI_EUSAGE;
		}
		s = (enum top_sort)k;
	}
	if (!tty) {
		json_t *snap, *rates;

		rc = stats_sample(c, json_object(), interval, &snap, &rates);
		if (rc)
			return rc;
		if (!rates) {
			json_decref(snap);
			cli_errorf(c, "the daemon's clock did not advance between two answers");
			return CLI_EINTERNAL;
		}
		sort_rows(json_object_get(rates, "luns"), s);
		sort_rows(json_object_get(rates, "sessions"), s);
		if (c->json) {
			json_object_set_new(rates, "sort", json_string(sort_names[s]));
			out_json(c, rates);
		} else {
			frame(c, snap, rates, s, false);
		}
		json_decref(rates);
		json_decref(snap);
		return CLI_OK;
	}
	top_stop = 0;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	if (keys && tcgetattr(STDIN_FILENO, &saved) == 0) {
		raw = saved;
		raw.c_lflag &= ~(tcflag_t)(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;
		raw.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	} else {
		keys = false;
	}
	rc = cli_call(c, "stats.get", json_object(), &prev);
	while (!rc && !top_stop) {
		struct timespec t0, t1;
		json_t *snap, *rates;
		int key = -1;
		long left = (long)(interval * 1000);

		clock_gettime(CLOCK_MONOTONIC, &t0);
		while (left > 0 && !top_stop) {
			key = keys ? wait_key((int)left) : -1;
			if (!keys) {
				struct timespec ts = {.tv_sec = left / 1000,
						      .tv_nsec = (left % 1000) * 1000000};

				nanosleep(&ts, NULL);
			}
			if (key == -2)
				top_stop = 1;
			if (key >= 0)
				break;
			clock_gettime(CLOCK_MONOTONIC, &t1);
			left = (long)(interval * 1000) - ((t1.tv_sec - t0.tv_sec) * 1000 +
							  (t1.tv_nsec - t0.tv_nsec) / 1000000);
		}
		if (top_stop)
			break;
		if (key >= 0)
			s = (enum top_sort)key; /* redraw now with the new order */
		rc = cli_call(c, "stats.get", json_object(), &snap);
		if (rc)
			break;
		rates = rates_json(prev, snap);
		if (rates) {
			sort_rows(json_object_get(rates, "luns"), s);
			sort_rows(json_object_get(rates, "sessions"), s);
			frame(c, snap, rates, s, true);
		}
		json_decref(rates);
		json_decref(prev);
		prev = snap;
	}
	json_decref(prev);
	if (keys)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return rc;
}

const struct cli_cmd cli_cmds_top[] = {
    {
	.object = "",
	.verb = "top",
	.summary = "live view of the logical units and sessions, busiest first",
	.help = "Every --interval seconds (default 1) the rates since the last frame: per\n"
		"logical unit IOPS, MB/s read and written (10^6 bytes), p99 latency of the\n"
		"reads and writes completed in the interval, errors per second, commands in\n"
		"flight; per session IOPS, MB/s and errors (digest, format, timeouts).\n"
		"Keys: q quits; i, m, p, e sort by IOPS, MB/s, p99 (sessions: IOPS),\n"
		"errors. --once, or when stdout is not a terminal: one frame after one\n"
		"interval; with --json as JSON.",
	.opts = {{.name = "interval",
		  .has_arg = true,
		  .arg = "SECONDS",
		  .help = "refresh every SECONDS (default 1)"},
		 {.name = "once", .help = "print one frame and exit"},
		 {.name = "sort",
		  .has_arg = true,
		  .arg = "KEY",
		  .help = "iops (default), mbps, p99 or errors"}},
	.read = true,
	.run = top_run,
    },
    {0},
};
