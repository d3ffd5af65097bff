/* SPDX-License-Identifier: GPL-2.0-or-later */
/* fake_bs_sbc.h: a RAM back-store for the block command tests (h4; not a
 * product back-store). Declared capabilities are configurable; it keeps an
 * allocation map per 512 bytes for BS_OP_MAP_STATUS (a WRITE maps, a
 * DISCARD deallocates and zeroes, WRITE_ZEROES zeroes and maps); it counts
 * the requests of each kind; it fails chosen requests; and it can hold
 * requests: a held request is neither performed nor completed until
 * fsb_release(), which performs it and completes it on the reactor that
 * submitted it (so a test can see what waits behind what). */
#ifndef UT_FAKE_BS_SBC_H
#define UT_FAKE_BS_SBC_H

#include <stdbool.h>
#include <stdint.h>

#include "scsi/bs.h"

#define FSB_GRANULE 512u

struct bs_dev *fsb_create(uint64_t size, uint32_t caps);
uint8_t *fsb_data(struct bs_dev *dev);
/* Mapped state of the 512-byte granule holding byte offset off. */
bool fsb_mapped(struct bs_dev *dev, uint64_t off);
/* Requests of kind op submitted so far; FUA writes. */
unsigned fsb_count(struct bs_dev *dev, enum bs_op op);
unsigned fsb_fua_writes(struct bs_dev *dev);
void fsb_reset_counts(struct bs_dev *dev);
/* Fail the next n requests of kind op with err (-EIO: bad_off = the
 * request's offset + bad_delta). */
void fsb_fail(struct bs_dev *dev, enum bs_op op, int err, unsigned n, uint64_t bad_delta);
/* Let the next `skip` requests of the kind armed by fsb_fail() pass first. */
void fsb_fail_skip(struct bs_dev *dev, unsigned skip);
/* Hold requests from now on (true) or complete them at once (false). */
void fsb_hold(struct bs_dev *dev, bool hold);
unsigned fsb_held(struct bs_dev *dev);
/* Wait (bounded, 2 s) until n requests are held; returns the number held. */
unsigned fsb_wait_held(struct bs_dev *dev, unsigned n);
/* Perform and complete every held request (in submission order). */
void fsb_release(struct bs_dev *dev);

#endif
