/* SPDX-License-Identifier: GPL-2.0-or-later */
/* iname.c: iSCSI name normalization (iname.h; RFC 3722 through libidn). */
#include "lib/iname.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <stringprep.h>

/* Normalization may grow a string (case folding of some characters, NFKC
 * of compatibility ones): room for it, then the 223-byte bound on the
 * result. */
#define INAME_WORK (4u * INAME_MAX + 16u)

int iname_normalize(const void *in, size_t len, char out[INAME_MAX + 1], const char **why)
{
	char work[INAME_WORK];
	size_t n;
	int rc;

	if (why)
		*why = NULL;
	if (len == 0 || len > INAME_WORK / 2) {
		if (why)
			*why = len ? "longer than 223 bytes" : "empty";
		return -EINVAL;
	}
	if (memchr(in, 0, len)) {
		if (why)
			*why = "a NUL byte inside";
		return -EINVAL;
	}
	memcpy(work, in, len);
	work[len] = 0;
	/* RFC 3722 6: unassigned code points are prohibited in stored
	 * strings; a name is an identity kept across logins and in APTPL
	 * state, so it is treated as one */
	rc = stringprep(work, sizeof(work), STRINGPREP_NO_UNASSIGNED, stringprep_iscsi);
	if (rc != STRINGPREP_OK) {
		if (why)
			*why = rc == STRINGPREP_CONTAINS_PROHIBITED ||
				       rc == STRINGPREP_CONTAINS_UNASSIGNED
				   ? "a character RFC 3722 prohibits"
			       : rc == STRINGPREP_ICONV_ERROR || rc == STRINGPREP_NFKC_FAILED
				   ? "not UTF-8"
				   : "not a valid iSCSI name (RFC 3722)";
		return -EINVAL;
	}
	n = strlen(work);
	if (n == 0 || n > INAME_MAX) {
		if (why)
			*why = n ? "longer than 223 bytes" : "empty";
		return -EINVAL;
	}
	if (memcmp(work, "iqn.", 4) && memcmp(work, "eui.", 4) && memcmp(work, "naa.", 4)) {
		if (why)
			*why = "an iSCSI name starts with \"iqn.\", \"eui.\" or \"naa.\"";
		return -EINVAL;
	}
	memcpy(out, work, n + 1);
	return (int)n;
}

bool iname_is_normalized(const char *s)
{
	char norm[INAME_MAX + 1];
	size_t len = strlen(s);
	int n = iname_normalize(s, len, norm, NULL);

	return n >= 0 && (size_t)n == len && memcmp(norm, s, len) == 0;
}
