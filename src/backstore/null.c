/* SPDX-License-Identifier: GPL-2.0-or-later */
/* null.c: the null back-store, for benchmarks of everything above it.
 *
 * Contract: READ fills the buffers with zeroes, WRITE discards the data,
 * FLUSH, DISCARD and WRITE_ZEROES succeed with nothing to do; every request
 * completes synchronously inside submit(). No MAP_STATUS (it holds no data,
 * so it declares no thin provisioning state). Any thread; no state.
 */
#include <errno.h>
#include <stdlib.h>

#include "backstore/backstore.h"
#include "lib/compiler.h"
#include "lib/log.h"

static void null_submit(struct bs_dev *dev, struct bs_io *io)
{
	uint64_t size = dev->size;
	int err = 0;

	if (io->op != BS_OP_FLUSH && (io->off > size || io->len > size - io->off)) {
		io->done(io, -EINVAL);
		return;
	}
	switch (io->op) {
	case BS_OP_READ:
		bs_iov_zero(io->iov, io->iovcnt);
		break;
	case BS_OP_WRITE:
	case BS_OP_DISCARD:
	case BS_OP_WRITE_ZEROES:
		if (dev->caps & BS_CAP_READ_ONLY)
			err = -EROFS;
		break;
	case BS_OP_FLUSH:
		break;
	default:
		err = -EOPNOTSUPP;
		break;
	}
	io->done(io, err);
}

static int null_resize(struct bs_dev *dev, uint64_t new_size)
{
	if (new_size == 0)
		return -EINVAL;
	dev->size = new_size;
	return 0;
}

static void null_close(struct bs_dev *dev)
{
	free(dev);
}

static const struct bs_ops null_ops = {
    .type = "null",
    .submit = null_submit,
    .resize = null_resize,
    .close = null_close,
};

static int null_open(const struct bs_params *p, struct bs_dev **out)
{
	struct bs_dev *dev;

	if (p->size == 0) {
		log_err("backstore %s: null needs a size of at least one block", p->name);
		return -EINVAL;
	}
	dev = calloc(1, sizeof(*dev));
	if (!dev)
		return -ENOMEM;
	dev->ops = &null_ops;
	dev->size = p->size;
	dev->caps = BS_CAP_FLUSH | BS_CAP_DISCARD | BS_CAP_WRITE_ZEROES | BS_CAP_FUA;
	if (p->readonly)
		dev->caps |= BS_CAP_READ_ONLY;
	*out = dev;
	return 0;
}

const struct bs_type bs_null_type = {
    .name = "null",
    .open = null_open,
};
