/* SPDX-License-Identifier: GPL-2.0-or-later */
/* backstore.c: the explicit table of back-store types and bs_open(), and
 * the iovec helpers the types share (bs_iov_zero, bs_iov_out, bs_iov_in).
 *
 * Contract (backstore.h): bs_open() checks what every type shares (known
 * type, a name that fits struct bs_dev, a power-of-two block size, a size
 * rounded down to whole blocks), then calls the type's open with the checked
 * copy of the parameters and names the dev. Errors are -errno and logged.
 */
#include "backstore.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/log.h"

#define BS_DEFAULT_BLOCK_SIZE 512u
#define BS_MIN_BLOCK_SIZE     512u
#define BS_MAX_BLOCK_SIZE     65536u

enum bs_type_id {
	BS_TYPE_FILE,
	BS_TYPE_BLOCK,
	BS_TYPE_RAM,
	BS_TYPE_NULL,
	BS_TYPE_ISCSI,
	BS_TYPE_PLUGIN,
	BS_TYPE_RBD,
	BS_TYPE_DEDUP,
	BS_TYPE_SG,
	BS_TYPE_COUNT,
};

static const struct bs_type *const bs_type_table[BS_TYPE_COUNT] = {
    [BS_TYPE_FILE] = &bs_file_type,   [BS_TYPE_BLOCK] = &bs_block_type,
    [BS_TYPE_RAM] = &bs_ram_type,     [BS_TYPE_NULL] = &bs_null_type,
    [BS_TYPE_ISCSI] = &bs_iscsi_type, [BS_TYPE_PLUGIN] = &bs_plugin_type,
    [BS_TYPE_RBD] = &bs_rbd_type,     [BS_TYPE_DEDUP] = &bs_dedup_type,
    [BS_TYPE_SG] = &bs_sg_type,
};

/* Same order as bs_type_table (a unit test checks that they agree). */
static const char *const bs_type_names[BS_TYPE_COUNT + 1] = {
    [BS_TYPE_FILE] = "file", [BS_TYPE_BLOCK] = "block", [BS_TYPE_RAM] = "ram",
    [BS_TYPE_NULL] = "null", [BS_TYPE_ISCSI] = "iscsi", [BS_TYPE_PLUGIN] = "plugin",
    [BS_TYPE_RBD] = "rbd",   [BS_TYPE_DEDUP] = "dedup", [BS_TYPE_SG] = "sg",
    [BS_TYPE_COUNT] = NULL,
};

const char *const *bs_types(void)
{
	return bs_type_names;
}

static const struct bs_type *bs_type_find(const char *name)
{
	for (size_t i = 0; i < BS_TYPE_COUNT; i++)
		if (strcmp(bs_type_table[i]->name, name) == 0)
			return bs_type_table[i];
	return NULL;
}

int bs_open(const struct bs_params *p, struct bs_dev **out)
{
	struct bs_dev *dev = NULL;
	struct bs_params q;
	const struct bs_type *t;
	char esc[96];
	size_t name_len;
	int rc;

	*out = NULL;
	if (!p || !p->type || !p->name) {
		log_err("backstore: type and name are required");
		return -EINVAL;
	}
	name_len = strnlen(p->name, sizeof(dev->name));
	if (name_len == 0 || name_len >= sizeof(dev->name)) {
		log_err("backstore %s: name must be 1..%zu bytes",
			log_escape(esc, sizeof(esc), p->name, name_len), sizeof(dev->name) - 1);
		return -EINVAL;
	}
	t = bs_type_find(p->type);
	if (!t) {
		log_err("backstore %.*s: unknown type '%s'", (int)name_len, p->name,
			log_escape(esc, sizeof(esc), p->type, strnlen(p->type, 64)));
		return -EINVAL;
	}
	q = *p;
	if (q.block_size == 0)
		q.block_size = BS_DEFAULT_BLOCK_SIZE;
	if (q.block_size < BS_MIN_BLOCK_SIZE || q.block_size > BS_MAX_BLOCK_SIZE ||
	    (q.block_size & (q.block_size - 1))) {
		log_err("backstore %s: block size %u is not a power of two in %u..%u", p->name,
			q.block_size, BS_MIN_BLOCK_SIZE, BS_MAX_BLOCK_SIZE);
		return -EINVAL;
	}
	if (q.size % q.block_size) {
		uint64_t rounded = q.size - q.size % q.block_size;

		log_notice("backstore %s: size %llu is not a multiple of the block size %u; "
			   "using %llu",
			   p->name, (unsigned long long)q.size, q.block_size,
			   (unsigned long long)rounded);
		q.size = rounded;
	}
	rc = t->open(&q, &dev);
	if (rc < 0)
		return rc;
	snprintf(dev->type, sizeof(dev->type), "%s", t->name);
	memcpy(dev->name, p->name, name_len);
	dev->name[name_len] = '\0';
	log_info("backstore %s: %s, %llu bytes, caps 0x%x", dev->name, dev->type,
		 (unsigned long long)dev->size, dev->caps);
	*out = dev;
	return 0;
}

void bs_iov_zero(const struct iovec *iov, int iovcnt)
{
	for (int i = 0; i < iovcnt; i++)
		memset(iov[i].iov_base, 0, iov[i].iov_len);
}

bool bs_iov_out(struct bs_iov_cursor *c, const void *src, size_t n)
{
	const uint8_t *mem = src;

	while (n) {
		if (c->i >= c->cnt)
			return false;

		size_t room = c->iov[c->i].iov_len - c->off;
		size_t k = n < room ? n : room;
		uint8_t *dst = (uint8_t *)c->iov[c->i].iov_base + c->off;

		if (mem) {
			memcpy(dst, mem, k);
			mem += k;
		} else {
			memset(dst, 0, k);
		}
		n -= k;
		c->off += k;
		if (c->off == c->iov[c->i].iov_len) {
			c->i++;
			c->off = 0;
		}
	}
	return true;
}

bool bs_iov_in(struct bs_iov_cursor *c, void *dst, size_t n)
{
	uint8_t *mem = dst;

	while (n) {
		if (c->i >= c->cnt)
			return false;

		size_t room = c->iov[c->i].iov_len - c->off;
		size_t k = n < room ? n : room;

		memcpy(mem, (const uint8_t *)c->iov[c->i].iov_base + c->off, k);
		mem += k;
		n -= k;
		c->off += k;
		if (c->off == c->iov[c->i].iov_len) {
			c->i++;
			c->off = 0;
		}
	}
	return true;
}

static uint32_t bs_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t bs_be64(const uint8_t *p)
{
	return (uint64_t)bs_be32(p) << 32 | bs_be32(p + 4);
}

int bs_sense_errno(const uint8_t *s, size_t len, uint64_t *info)
{
	uint8_t key = 0, asc = 0, ascq = 0;
	uint64_t inf = UINT64_MAX;

	if (!s || len < 1) {
		*info = UINT64_MAX;
		return -EIO;
	}
	switch (s[0] & 0x7f) {
	case 0x70:
	case 0x71:
		if (len >= 3)
			key = s[2] & 0x0f;
		if (len >= 14) {
			asc = s[12];
			ascq = s[13];
		}
		if ((s[0] & 0x80) && len >= 7)
			inf = bs_be32(s + 3);
		break;
	case 0x72:
	case 0x73:
		if (len >= 4) {
			key = s[1] & 0x0f;
			asc = s[2];
			ascq = s[3];
		}
		if (len >= 8) {
			size_t end = 8 + (size_t)s[7];
			size_t p = 8;

			if (end > len)
				end = len;
			while (p + 2 <= end) {
				size_t dl = (size_t)s[p + 1] + 2;

				if (p + dl > end)
					break;
				if (s[p] == 0x00 && dl >= 12 && (s[p + 2] & 0x80))
					inf = bs_be64(s + p + 4);
				p += dl;
			}
		}
		break;
	default:
		*info = UINT64_MAX;
		return -EIO;
	}
	*info = UINT64_MAX;
	switch (key) {
	case 0x3: /* MEDIUM ERROR */
		*info = inf;
		return -EIO;
	case 0x7: /* DATA PROTECT */
		if (asc == 0x27 && ascq == 0x07)
			return -ENOSPC;
		return -EROFS;
	case 0x6: /* UNIT ATTENTION */
		return -EAGAIN;
	case 0x2: /* NOT READY */
		if (asc == 0x04 && ascq == 0x01)
			return -EAGAIN;
		return -EIO;
	default:
		return -EIO;
	}
}
