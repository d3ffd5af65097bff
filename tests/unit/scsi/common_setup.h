/* SPDX-License-Identifier: GPL-2.0-or-later */
/* common_setup.h: cmocka set-up/teardown over harness.h (both nexuses have
 * consumed their power-on unit attention). */
#ifndef UT_TEST_SCSI_COMMON_SETUP_H
#define UT_TEST_SCSI_COMMON_SETUP_H

#include "harness.h"

static int setup(void **state)
{
	struct harness *h = calloc(1, sizeof(*h));

	h_setup(h);
	h_clear_ua(h->p1, 0);
	h_clear_ua(h->p2, 0);
	*state = h;
	return 0;
}

static int teardown(void **state)
{
	struct harness *h = *state;

	fake_bs_hold(h->bs, false);
	fake_bs_release(h->bs);
	h_teardown(h);
	free(h);
	return 0;
}

#endif
