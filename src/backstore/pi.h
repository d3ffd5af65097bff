/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pi.h: the protection information store, a back-store over two others:
 * the data, and the T10 protection information tuples of its blocks (SBC-4
 * 4.22: 8 bytes per logical block, lib/t10pi.h) in a second back-store of
 * nblocks * 8 bytes (a file beside the data file, or memory).
 *
 * Contract: bs_pi_wrap() takes ownership of data and tuples (closed with
 * the wrapper) and returns a struct bs_dev with the data's size, name and
 * type, and its caps plus BS_CAP_PI. Requests:
 *  - READ: the data; with io->pi, the tuples of the blocks too;
 *  - WRITE: the data, and with io->pi the given tuples, else generated
 *    ones (guard, application tag 0000h, reference tag the low 32 bits of
 *    the LBA for types 1 and 2, or FFFFFFFFh for type 3): every write the core emulates
 *    (WRITE SAME, COMPARE AND WRITE, EXTENDED COPY, ODX, FORMAT UNIT, ...)
 *    keeps its blocks' tuples right;
 *  - DISCARD, WRITE_ZEROES: the data, and the tuples of the range become
 *    the escape (all FFh: no check), as after a format;
 *  - FLUSH: both; MAP_STATUS: the data.
 * The tuples are stored inverted (each byte XOR FFh), so a store that
 * reads as zeroes (a new sparse file, memory, a punched hole) holds escape
 * tuples, and DISCARD or WRITE_ZEROES of the tuple store set them.
 * The tuple store is addressed in 8-byte units, not in blocks: its
 * back-store must take any byte range (file and ram do); its size is
 * rounded up to its own block size. A request completes once both parts
 * have; the first error wins, a tuple's bad_off turned into its block's. Per request the wrapper
 * allocates its state and, for tuples, a buffer (never on the hot path of a LU without PI). */
#ifndef UT_BACKSTORE_PI_H
#define UT_BACKSTORE_PI_H

#include <stdint.h>

#include "lib/t10pi.h"
#include "scsi/bs.h"

/* block_size: the logical block size of the LU over the wrapper; the tuple
 * store must hold data->size / block_size * 8 bytes and offer
 * BS_CAP_WRITE_ZEROES or BS_CAP_DISCARD. 0, -EINVAL or -ENOMEM (on failure
 * data and tuples stay the caller's). */
int bs_pi_wrap(struct bs_dev *data, struct bs_dev *tuples, enum t10pi_type type,
	       uint32_t block_size, struct bs_dev **out);

#endif
