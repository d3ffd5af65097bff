/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fault.h (config): the "fault" object of a back-store (docs/config.md):
 * fault injection through the backstore/fault.h wrapper. Parsed, dumped,
 * verified and freed here; json.c, validate.c, model.c and apply.c call in. */
#ifndef UT_CONFIG_FAULT_H
#define UT_CONFIG_FAULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct cfg_backstore;

struct cfg_fault {
	uint64_t *read_error_lbas; /* as written (bs_fault_wrap sorts its copy) */
	size_t nread;
	uint64_t *write_error_lbas;
	size_t nwrite;
	bool flush_error;
	uint32_t error_rate_ppm; /* "error_rate" 0..1, in millionths */
	uint8_t error;		 /* enum bs_fault_error */
	uint32_t delay_us;
	uint32_t delay_jitter_us;
	uint64_t seed;
};

/* Parse the "fault" object o into a new *out. 0; -ENOMEM; or -EINVAL with
 * msg set and member naming the offending field of o ("" for o itself). */
int cfg_fault_parse(json_t *o, struct cfg_fault **out, char *member, size_t member_size, char *msg,
		    size_t msg_size);
/* The object as JSON (every field written), NULL on allocation failure. */
json_t *cfg_fault_dump(const struct cfg_fault *f);
void cfg_fault_free(struct cfg_fault *f);
/* Checks that need the rest of the back-store: listed LBAs inside `size`
 * when it is known. 0 or -EINVAL with member and msg set. */
int cfg_fault_validate(const struct cfg_backstore *b, char *member, size_t member_size, char *msg,
		       size_t msg_size);

#endif
