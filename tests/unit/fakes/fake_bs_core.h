/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_bs_core.h: a RAM back-store for the core's unit tests (the h3 core
 * tests; not a product back-store). I/O completes synchronously, or, while
 * held, stays in flight until fake_bs_release() completes it on the reactor
 * that submitted it — for ordering and TMF tests that need a running task. */
#ifndef UT_FAKE_BS_CORE_H
#define UT_FAKE_BS_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "scsi/bs.h"

struct bs_dev *fake_bs_create(uint64_t size, uint32_t caps);
void fake_bs_hold(struct bs_dev *dev, bool hold);
/* Number of I/Os held right now. */
unsigned fake_bs_held(struct bs_dev *dev);
/* Complete every held I/O (on its submitting reactor). */
void fake_bs_release(struct bs_dev *dev);
uint8_t *fake_bs_data(struct bs_dev *dev);
/* Fail the next I/O with err (0: none). */
void fake_bs_fail_next(struct bs_dev *dev, int err);
/* What the space op reports from now on (before: -EOPNOTSUPP). */
void fake_bs_set_space(struct bs_dev *dev, uint64_t used, uint64_t avail);

#endif
