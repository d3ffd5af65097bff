/* SPDX-License-Identifier: GPL-2.0-or-later */
/* redirect.c: the "redirect" object of a target or a portal group
 * (docs/config.md "Login redirection"; the fabric's side is
 * src/fabric/iscsi/redirect.c):
 *
 *   "redirect": { "address": "192.0.2.7:3260,1", "permanent": false }
 *   "redirect": { "balance": true }            (portal groups only)
 *
 * The address is what the Login Response's TargetAddress carries (RFC 7143
 * 13.8: domainname[:port][,portal-group-tag], IPv6 in brackets); it is
 * checked for that form here, not resolved. */
#include <ctype.h>
#include <stdlib.h>

#include "config/pctx.h"

static bool all_digits(const char *s, size_t n, unsigned long max)
{
	unsigned long v = 0;

	if (n == 0 || n > 5)
		return false;
	for (size_t i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	return v <= max;
}

/* domainname[:port][,tpgt]; NULL when well formed, else why not. */
static const char *address_check(const char *a)
{
	const char *comma = strrchr(a, ','), *end = comma ? comma : a + strlen(a);
	const char *host_end, *colon = NULL;

	if (comma && !all_digits(comma + 1, strlen(comma + 1), 65535))
		return "the portal group tag after ',' must be 0..65535";
	if (a[0] == '[') {
		const char *rb = memchr(a, ']', (size_t)(end - a));

		if (!rb || rb == a + 1)
			return "an IPv6 address needs its closing ']'";
		for (const char *p = a + 1; p < rb; p++)
			if (!isxdigit((unsigned char)*p) && *p != ':' && *p != '.')
				return "bad character in the IPv6 address";
		host_end = rb + 1;
		if (host_end < end && *host_end != ':')
			return "expected ':port' after ']'";
		if (host_end < end)
			colon = host_end;
	} else {
		colon = memchr(a, ':', (size_t)(end - a));
		host_end = colon ? colon : end;
		if (host_end == a)
			return "the host name is empty";
		for (const char *p = a; p < host_end; p++)
			if (!isalnum((unsigned char)*p) && *p != '-' && *p != '.')
				return "bad character in the host name";
	}
	if (colon && (!all_digits(colon + 1, (size_t)(end - colon - 1), 65535) ||
		      strtoul(colon + 1, NULL, 10) == 0))
		return "the port after ':' must be 1..65535";
	return NULL;
}

static bool portal_own_address(const char *p)
{
	return strncmp(p, "0.0.0.0:", 8) != 0 && strncmp(p, "[::]:", 5) != 0;
}

int cfg_redirect_parse(struct json_t *o, const struct cfg_portal_group *g,
		       struct cfg_redirect **out, const char *path, struct cfg_err *err)
{
	static const char *const fields[] = {"address", "permanent", "balance", NULL};
	struct cfg_pctx x = {.err = err};
	struct cfg_redirect *r;
	const char *why;
	json_t *v;
	int rc;

	snprintf(x.path, sizeof(x.path), "%s", path);
	v = json_object_get(o, "redirect");
	if (!v)
		return 0;
	cfg_push_key(&x, "redirect");
	if (!json_is_object(v))
		return cfg_perr(&x, "expected an object, found %s", cfg_type_name(v));
	rc = cfg_check_keys(&x, v, fields);
	if (rc)
		return rc;
	r = *out = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	if ((rc = cfg_get_str(&x, v, "address", false, CFG_REDIRECT_ADDR_MAX, &r->address)) ||
	    (rc = cfg_get_bool(&x, v, "permanent", &r->permanent)) ||
	    (rc = cfg_get_bool(&x, v, "balance", &r->balance)))
		return rc;
	if (r->balance) {
		size_t own = 0;

		if (!g)
			return cfg_perr(&x, "balance is a portal group's: a target redirects to "
					    "one address");
		if (r->address || r->permanent)
			return cfg_perr(&x, "balance picks the address itself (temporarily): no "
					    "address or permanent with it");
		for (size_t i = 0; i < g->nportals; i++)
			own += portal_own_address(g->portals[i]);
		if (own < 2)
			return cfg_perr(&x,
					"balance needs two portals with an address of their own "
					"(not 0.0.0.0 or [::]) to choose from");
		return 0;
	}
	if (!r->address)
		return cfg_perr(&x, "address (host[:port][,tag]) or balance required");
	cfg_push_key(&x, "address");
	why = address_check(r->address);
	if (why)
		return cfg_perr(&x, "\"%s\": %s", r->address, why);
	return 0;
}

int cfg_redirect_dump(struct json_t *o, const struct cfg_redirect *r)
{
	json_t *j;

	if (!r)
		return 0;
	j = r->balance ? json_pack("{s:b}", "balance", 1)
		       : json_pack("{s:s,s:b}", "address", r->address, "permanent", r->permanent);
	return j && !json_object_set_new(o, "redirect", j) ? 0 : -1;
}
