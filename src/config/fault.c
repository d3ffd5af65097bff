/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fault.c (config): the "fault" object of a back-store (contract in
 * config/fault.h, the fields in docs/config.md). */
#include "config/fault.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backstore/fault.h"
#include "config/model.h"
#include "lib/compiler.h"

static const char *const cfg_fault_fields[] = {
    "read_error_lbas", "write_error_lbas", "flush_error",     "error_rate",
    "error",	       "delay_us",	   "delay_jitter_us", "seed",
};

/* Where an error goes: the offending member and the message. */
struct cfg_fault_ectx {
	char *member;
	size_t member_size;
	char *msg;
	size_t msg_size;
};

UT_PRINTF(3, 4)
static int cfg_fault_err(const struct cfg_fault_ectx *x, const char *field, const char *fmt, ...)
{
	va_list ap;

	snprintf(x->member, x->member_size, "%s", field);
	va_start(ap, fmt);
	vsnprintf(x->msg, x->msg_size, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static int cfg_fault_lbas(json_t *o, const char *key, uint64_t **out, size_t *n,
			  const struct cfg_fault_ectx *x)
{
	json_t *a = json_object_get(o, key), *e;
	size_t i;

	*out = NULL;
	*n = 0;
	if (!a)
		return 0;
	if (!json_is_array(a))
		return cfg_fault_err(x, key, "expected an array of LBAs");
	if (json_array_size(a) > BS_FAULT_LBAS_MAX)
		return cfg_fault_err(x, key, "at most %u LBAs", BS_FAULT_LBAS_MAX);
	if (!json_array_size(a))
		return 0;
	*out = calloc(json_array_size(a), sizeof(**out));
	if (!*out)
		return -ENOMEM;
	json_array_foreach(a, i, e)
	{
		if (!json_is_integer(e) || json_integer_value(e) < 0)
			return cfg_fault_err(x, key, "element %zu is not a non-negative integer",
					     i);
		(*out)[i] = (uint64_t)json_integer_value(e);
	}
	*n = json_array_size(a);
	return 0;
}

static int cfg_fault_uint(json_t *o, const char *key, uint64_t max, uint64_t *v,
			  const struct cfg_fault_ectx *x)
{
	json_t *e = json_object_get(o, key);

	if (!e)
		return 0;
	if (!json_is_integer(e) || json_integer_value(e) < 0 ||
	    (uint64_t)json_integer_value(e) > max)
		return cfg_fault_err(x, key, "expected an integer 0..%llu",
				     (unsigned long long)max);
	*v = (uint64_t)json_integer_value(e);
	return 0;
}

static int cfg_fault_fields_check(json_t *o, const struct cfg_fault_ectx *x)
{
	const char *key;
	json_t *v;

	json_object_foreach(o, key, v)
	{
		bool known = false;

		for (size_t i = 0; i < ARRAY_SIZE(cfg_fault_fields); i++)
			known |= strcmp(key, cfg_fault_fields[i]) == 0;
		if (!known)
			return cfg_fault_err(x, key, "unknown field");
	}
	return 0;
}

int cfg_fault_parse(json_t *o, struct cfg_fault **out, char *member, size_t member_size, char *msg,
		    size_t msg_size)
{
	struct cfg_fault *f;
	json_t *e;
	uint64_t v;
	int rc;

	const struct cfg_fault_ectx ex = {member, member_size, msg, msg_size}, *x = &ex;

	*out = NULL;
	member[0] = '\0';
	if (!json_is_object(o))
		return cfg_fault_err(x, "", "expected an object");
	rc = cfg_fault_fields_check(o, x);
	if (rc)
		return rc;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	rc = cfg_fault_lbas(o, "read_error_lbas", &f->read_error_lbas, &f->nread, x);
	if (!rc)
		rc = cfg_fault_lbas(o, "write_error_lbas", &f->write_error_lbas, &f->nwrite, x);
	if (rc)
		goto fail;
	e = json_object_get(o, "flush_error");
	if (e && !json_is_boolean(e)) {
		rc = cfg_fault_err(x, "flush_error", "expected a boolean");
		goto fail;
	}
	f->flush_error = e && json_is_true(e);
	e = json_object_get(o, "error_rate");
	if (e) {
		double r = json_number_value(e);

		if (!json_is_number(e) || !(r >= 0.0 && r <= 1.0)) {
			rc = cfg_fault_err(x, "error_rate",
					   "expected a number 0..1 (a share of the requests)");
			goto fail;
		}
		f->error_rate_ppm = (uint32_t)(r * 1e6 + 0.5);
	}
	e = json_object_get(o, "error");
	if (e) {
		int k = json_is_string(e) ? bs_fault_error_parse(json_string_value(e)) : -1;

		if (k < 0) {
			rc = cfg_fault_err(x, "error",
					   "expected \"medium\", \"hardware\" or \"nospace\"");
			goto fail;
		}
		f->error = (uint8_t)k;
	}
	v = 0;
	if ((rc = cfg_fault_uint(o, "delay_us", BS_FAULT_DELAY_MAX, &v, x)))
		goto fail;
	f->delay_us = (uint32_t)v;
	v = 0;
	if ((rc = cfg_fault_uint(o, "delay_jitter_us", BS_FAULT_DELAY_MAX, &v, x)))
		goto fail;
	f->delay_jitter_us = (uint32_t)v;
	if ((rc = cfg_fault_uint(o, "seed", INT64_MAX, &f->seed, x)))
		goto fail;
	*out = f;
	return 0;
fail:
	cfg_fault_free(f);
	return rc;
}

static json_t *cfg_fault_dump_lbas(const uint64_t *l, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; a && i < n; i++) {
		if (json_array_append_new(a, json_integer((json_int_t)l[i]))) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *cfg_fault_dump(const struct cfg_fault *f)
{
	json_t *o = json_object();
	int bad = !o;

	if (bad)
		return NULL;
	bad |= json_object_set_new(o, "read_error_lbas",
				   cfg_fault_dump_lbas(f->read_error_lbas, f->nread));
	bad |= json_object_set_new(o, "write_error_lbas",
				   cfg_fault_dump_lbas(f->write_error_lbas, f->nwrite));
	bad |= json_object_set_new(o, "flush_error", json_boolean(f->flush_error));
	bad |= json_object_set_new(o, "error_rate", json_real(f->error_rate_ppm / 1e6));
	bad |= json_object_set_new(o, "error", json_string(bs_fault_error_name(f->error)));
	bad |= json_object_set_new(o, "delay_us", json_integer(f->delay_us));
	bad |= json_object_set_new(o, "delay_jitter_us", json_integer(f->delay_jitter_us));
	bad |= json_object_set_new(o, "seed", json_integer((json_int_t)f->seed));
	if (bad) {
		json_decref(o);
		return NULL;
	}
	return o;
}

void cfg_fault_free(struct cfg_fault *f)
{
	if (!f)
		return;
	free(f->read_error_lbas);
	free(f->write_error_lbas);
	free(f);
}

/* Every LBA of the list (member) within the first `blocks` blocks. */
static int cfg_fault_lbas_fit(const struct cfg_fault_ectx *x, const char *member,
			      const uint64_t *lbas, size_t n, uint64_t blocks)
{
	for (size_t i = 0; i < n; i++)
		if (lbas[i] >= blocks)
			return cfg_fault_err(x, member, "LBA %llu beyond the last block %llu",
					     (unsigned long long)lbas[i],
					     (unsigned long long)(blocks ? blocks - 1 : 0));
	return 0;
}

int cfg_fault_validate(const struct cfg_backstore *b, char *member, size_t member_size, char *msg,
		       size_t msg_size)
{
	const struct cfg_fault_ectx ex = {member, member_size, msg, msg_size}, *x = &ex;
	const struct cfg_fault *f = b->fault;
	uint64_t blocks = b->block_size ? b->size / b->block_size : 0;
	int rc;

	if (!f || !b->size)
		return 0; /* a file's own size: bs_fault_wrap checks at open */
	rc = cfg_fault_lbas_fit(x, "read_error_lbas", f->read_error_lbas, f->nread, blocks);
	if (!rc)
		rc = cfg_fault_lbas_fit(x, "write_error_lbas", f->write_error_lbas, f->nwrite,
					blocks);
	return rc;
}
