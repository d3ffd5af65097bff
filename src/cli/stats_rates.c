/* SPDX-License-Identifier: GPL-2.0-or-later */
/* stats_rates.c: rates between two stats.get answers (stats_rates.h). */
#include <stdio.h>
#include <string.h>

#include "cli/stats_rates.h"
#include "lib/stats.h"

static uint64_t u64(json_t *o, const char *k)
{
	json_int_t v = json_integer_value(json_object_get(o, k));

	return v > 0 ? (uint64_t)v : 0;
}

/* b - a of a counter; a missing in a (new object): all of b; a counter
 * that went back (a re-created object of the same name): b. */
static uint64_t delta(json_t *a, json_t *b, const char *k)
{
	uint64_t x = a ? u64(a, k) : 0, y = u64(b, k);

	return y >= x ? y - x : y;
}

/* The count of bucket `bound` (JSON null: the last one) in list l. */
static uint64_t bucket_count(json_t *l, json_t *bound)
{
	size_t i;
	json_t *e;

	json_array_foreach(l, i, e)
	{
		json_t *b = json_array_get(e, 0);

		if ((json_is_null(b) && json_is_null(bound)) ||
		    (json_is_integer(b) && json_is_integer(bound) &&
		     json_integer_value(b) == json_integer_value(bound)))
			return (uint64_t)json_integer_value(json_array_get(e, 1));
	}
	return 0;
}

uint64_t rates_quantile(json_t *before, json_t *after, double q)
{
	uint64_t n = 0, want, seen = 0;
	size_t i;
	json_t *e;

	json_array_foreach(after, i, e)
	{
		uint64_t c = (uint64_t)json_integer_value(json_array_get(e, 1)),
			 p = bucket_count(before, json_array_get(e, 0));

		n += c > p ? c - p : 0;
	}
	if (!n)
		return 0;
	want = stats_quantile_rank(n, q);
	json_array_foreach(after, i, e)
	{
		json_t *bound = json_array_get(e, 0);
		uint64_t c = (uint64_t)json_integer_value(json_array_get(e, 1)),
			 p = bucket_count(before, bound);

		seen += c > p ? c - p : 0;
		if (seen >= want)
			return json_is_integer(bound) ? (uint64_t)json_integer_value(bound)
						      : UINT64_MAX;
	}
	return UINT64_MAX;
}

json_t *rates_find(json_t *arr, const char *k, json_t *v)
{
	json_t *e;
	size_t i;

	json_array_foreach(arr, i, e) if (json_equal(json_object_get(e, k), v)) return e;
	return NULL;
}

/* The session of arr that is o: the same TSIH and ISID. */
static json_t *find_session(json_t *arr, json_t *o)
{
	json_t *e;
	size_t i;

	json_array_foreach(
	    arr, i,
	    e) if (json_equal(json_object_get(e, "tsih"), json_object_get(o, "tsih")) &&
		   json_equal(json_object_get(e, "isid"), json_object_get(o, "isid"))) return e;
	return NULL;
}

uint64_t rates_session_errors(json_t *s)
{
	return u64(s, "digest_errors") + u64(s, "format_errors") + u64(s, "connection_timeouts");
}

uint64_t rates_login_failures(json_t *login)
{
	static const char *const fails[] = {"redirects", "authentication_failures",
					    "authorization_failures", "negotiation_failures",
					    "other_failures"};
	uint64_t f = 0;

	for (size_t i = 0; i < sizeof(fails) / sizeof(fails[0]); i++)
		f += u64(login, fails[i]);
	return f;
}

void rates_fmt(double v, char *buf, size_t size)
{
	snprintf(buf, size, v < 10 ? "%.1f" : "%.0f", v);
}

/* b - a of a derived count (a NULL: all of b; went back: b). */
static uint64_t grew(uint64_t x, uint64_t y)
{
	return y >= x ? y - x : y;
}

static json_t *class_latency(json_t *lu, const char *cls)
{
	return json_object_get(json_object_get(json_object_get(lu, "classes"), cls), "latency");
}

static json_t *p99_json(json_t *a, json_t *b, const char *cls)
{
	uint64_t v = rates_quantile(json_object_get(class_latency(a, cls), "buckets"),
				    json_object_get(class_latency(b, cls), "buckets"), 0.99);

	if (!v)
		return json_null();
	return json_integer(v == UINT64_MAX ? -1 : (json_int_t)v);
}

static json_t *lu_rates(json_t *a, json_t *b, double s)
{
	return json_pack(
	    "{s:O,s:f,s:f,s:f,s:f,s:o,s:o,s:I}", "backstore", json_object_get(b, "backstore"),
	    "iops", (double)delta(a, b, "commands") / s, "read_mb_s",
	    (double)delta(a, b, "read_bytes") / s / 1e6, "write_mb_s",
	    (double)delta(a, b, "write_bytes") / s / 1e6, "errors_s",
	    (double)delta(a, b, "errors") / s, "read_p99_ns", p99_json(a, b, "read"),
	    "write_p99_ns", p99_json(a, b, "write"), "in_flight", (json_int_t)u64(b, "in_flight"));
}

static json_t *session_rates(json_t *a, json_t *b, double s)
{
	return json_pack(
	    "{s:O,s:O,s:O,s:O,s:f,s:f,s:f,s:I}", "tsih", json_object_get(b, "tsih"), "target",
	    json_object_get(b, "target"), "initiator", json_object_get(b, "initiator"), "isid",
	    json_object_get(b, "isid"), "iops", (double)delta(a, b, "commands") / s, "read_mb_s",
	    (double)delta(a, b, "read_bytes") / s / 1e6, "write_mb_s",
	    (double)delta(a, b, "write_bytes") / s / 1e6, "errors",
	    (json_int_t)grew(a ? rates_session_errors(a) : 0, rates_session_errors(b)));
}

static json_t *target_rates(json_t *a, json_t *b)
{
	json_t *la = a ? json_object_get(a, "login") : NULL, *lb = json_object_get(b, "login");

	return json_pack(
	    "{s:O,s:I,s:I,s:I}", "name", json_object_get(b, "name"), "logins",
	    (json_int_t)delta(la, lb, "accepts"), "login_failures",
	    (json_int_t)grew(la ? rates_login_failures(la) : 0, rates_login_failures(lb)),
	    "sessions", (json_int_t)u64(b, "sessions"));
}

json_t *rates_json(json_t *a, json_t *b)
{
	json_int_t ta = json_integer_value(json_object_get(a, "time_ns")),
		   tb = json_integer_value(json_object_get(b, "time_ns"));
	json_t *r, *e, *arr;
	double s;
	size_t i;

	if (!json_is_integer(json_object_get(a, "time_ns")) || tb <= ta)
		return NULL;
	s = (double)(tb - ta) / 1e9;
	r = json_pack("{s:f}", "interval_s", s);
	if (r && (arr = json_object_get(b, "luns"))) {
		json_t *out = json_array();

		json_array_foreach(arr, i, e) json_array_append_new(
		    out, lu_rates(rates_find(json_object_get(a, "luns"), "backstore",
					     json_object_get(e, "backstore")),
				  e, s));
		json_object_set_new(r, "luns", out);
	}
	if (r && (arr = json_object_get(b, "sessions"))) {
		json_t *out = json_array();

		json_array_foreach(arr, i, e)
		{
			if (json_is_true(json_object_get(e, "discovery")))
				continue;
			json_array_append_new(
			    out,
			    session_rates(find_session(json_object_get(a, "sessions"), e), e, s));
		}
		json_object_set_new(r, "sessions", out);
	}
	if (r && (arr = json_object_get(b, "targets"))) {
		json_t *out = json_array();

		json_array_foreach(arr, i, e) json_array_append_new(
		    out, target_rates(rates_find(json_object_get(a, "targets"), "name",
						 json_object_get(e, "name")),
				      e));
		json_object_set_new(r, "targets", out);
	}
	return r;
}
