/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pdu.c: PDU receive state machine and transmit unit layout (RFC 7143 11.2). */
#include <errno.h>
#include <string.h>

#include "fabric/iscsi/pdu.h"
#include "lib/compiler.h"
#include "lib/crc32c.h"
#include "lib/endian.h"

static const uint8_t zero_pad[4];

void iscsi_rx_init(struct iscsi_rx *rx, const struct iscsi_rx_ops *ops)
{
	memset(rx, 0, sizeof(*rx));
	rx->ops = ops;
}

void iscsi_rx_reset(struct iscsi_rx *rx)
{
	rx->state = ISCSI_RX_BHS;
	rx->got = 0;
	rx->dst = NULL;
	rx->keep = 0;
	rx->held = false;
	rx->skip = false;
}

uint32_t iscsi_header_digest(const union iscsi_hdr *h, const uint8_t *ahs, uint32_t ahs_len)
{
	uint32_t s = crc32c_update(CRC32C_INIT, h->raw, ISCSI_BHS_LEN);

	if (ahs_len)
		s = crc32c_update(s, ahs, ahs_len);
	return crc32c_final(s);
}

uint32_t iscsi_data_digest(const uint8_t *data, uint32_t len)
{
	uint32_t s = crc32c_update(CRC32C_INIT, data, len);

	/* RFC 7143 13.1: padding bytes are included in the CRC */
	s = crc32c_update(s, zero_pad, ISCSI_PAD(len));
	return crc32c_final(s);
}

/* The header (BHS + AHS + digest) is in: let the owner validate it and say
 * where the data goes. */
static int rx_header_done(struct iscsi_rx *rx)
{
	int rc;

	rx->dst = NULL;
	rx->keep = 0;
	rc = rx->ops->header(rx);
	if (rc < 0)
		return rc;
	if (rx->keep > rx->dsl)
		rx->keep = rx->dsl;
	if (rx->keep && !rx->dst)
		rx->keep = 0;
	rx->pad = ISCSI_PAD(rx->dsl);
	rx->crc = CRC32C_INIT;
	rx->got = 0;
	rx->state = ISCSI_RX_DATA;
	rx->held = rc > 0;
	return rc;
}

/* Run the states that need no further byte (an empty data segment, no
 * padding, no digest). Returns 0, a pause (> 0) or an error (< 0) from the
 * PDU callback, or 0 with the machine waiting for bytes. */
static int rx_settle(struct iscsi_rx *rx, bool *completed)
{
	*completed = false;
	for (;;) {
		switch (rx->state) {
		case ISCSI_RX_DATA:
			if (rx->got < rx->dsl)
				return 0;
			rx->got = 0;
			rx->state = ISCSI_RX_PAD;
			break;
		case ISCSI_RX_PAD:
			if (rx->got < rx->pad)
				return 0;
			rx->got = 0;
			rx->state = ISCSI_RX_DDIGEST;
			break;
		case ISCSI_RX_DDIGEST: {
			bool ok = true;

			if (rx->ddigest && rx->dsl) {
				if (rx->got < ISCSI_DIGEST_LEN)
					return 0;
				ok = get_le32(rx->dig) == crc32c_final(rx->crc);
			}
			rx->state = ISCSI_RX_BHS;
			rx->got = 0;
			*completed = true;
			if (rx->skip) {
				rx->skip = false;
				return 0;
			}
			return rx->ops->pdu(rx, ok);
		}
		default:
			return 0;
		}
	}
}

ssize_t iscsi_rx_feed(struct iscsi_rx *rx, const uint8_t *buf, size_t len)
{
	size_t off = 0;
	bool completed;
	int rc;

	if (rx->held) {
		/* resumed after the header callback paused: dst/keep are set */
		rx->held = false;
		if (rx->keep > rx->dsl)
			rx->keep = rx->dsl;
		if (rx->keep && !rx->dst)
			rx->keep = 0;
		rc = rx_settle(rx, &completed);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	for (;;) {
		size_t avail = len - off;
		uint32_t n;

		switch (rx->state) {
		case ISCSI_RX_BHS:
			if (!avail)
				return (ssize_t)off;
			n = (uint32_t)UT_MIN(avail, (size_t)(ISCSI_BHS_LEN - rx->got));
			memcpy(rx->hdr.raw + rx->got, buf + off, n);
			rx->got += n;
			off += n;
			if (rx->got < ISCSI_BHS_LEN)
				return (ssize_t)off;
			rx->got = 0;
			rx->ahs_len = iscsi_hdr_ahs_bytes(&rx->hdr);
			rx->dsl = iscsi_hdr_dsl(&rx->hdr);
			rx->state = ISCSI_RX_AHS;
			break;
		case ISCSI_RX_AHS:
			if (rx->got < rx->ahs_len) {
				if (!avail)
					return (ssize_t)off;
				n = (uint32_t)UT_MIN(avail, (size_t)(rx->ahs_len - rx->got));
				memcpy(rx->ahs + rx->got, buf + off, n);
				rx->got += n;
				off += n;
				if (rx->got < rx->ahs_len)
					return (ssize_t)off;
			}
			rx->got = 0;
			rx->state = ISCSI_RX_HDIGEST;
			break;
		case ISCSI_RX_HDIGEST:
			if (rx->hdigest) {
				if (rx->got < ISCSI_DIGEST_LEN) {
					if (!avail)
						return (ssize_t)off;
					n = (uint32_t)UT_MIN(avail,
							     (size_t)(ISCSI_DIGEST_LEN - rx->got));
					memcpy(rx->dig + rx->got, buf + off, n);
					rx->got += n;
					off += n;
					if (rx->got < ISCSI_DIGEST_LEN)
						return (ssize_t)off;
				}
				if (get_le32(rx->dig) !=
				    iscsi_header_digest(&rx->hdr, rx->ahs, rx->ahs_len)) {
					rc = rx->ops->header_digest_error(rx);
					if (rc != ISCSI_RX_SKIP)
						return rc < 0 ? rc : -EPROTO;
					/* skipped whole by its (trusted) length */
					rx->dst = NULL;
					rx->keep = 0;
					rx->pad = ISCSI_PAD(rx->dsl);
					rx->crc = CRC32C_INIT;
					rx->got = 0;
					rx->state = ISCSI_RX_DATA;
					rx->skip = true;
					rc = rx_settle(rx, &completed);
					if (rc)
						return rc < 0 ? rc : (ssize_t)off;
					break;
				}
			}
			rc = rx_header_done(rx);
			if (rc < 0)
				return rc;
			if (rc > 0)
				return (ssize_t)off; /* paused before the data segment */
			rc = rx_settle(rx, &completed);
			if (rc)
				return rc < 0 ? rc : (ssize_t)off;
			break;
		case ISCSI_RX_DATA:
			if (!avail)
				return (ssize_t)off;
			if (rx->got < rx->keep) {
				n = (uint32_t)UT_MIN(avail, (size_t)(rx->keep - rx->got));
				memcpy(rx->dst + rx->got, buf + off, n);
				rx->copied_bytes += n;
			} else {
				n = (uint32_t)UT_MIN(avail, (size_t)(rx->dsl - rx->got));
			}
			if (rx->ddigest)
				rx->crc = crc32c_update(rx->crc, buf + off, n);
			rx->got += n;
			off += n;
			rc = rx_settle(rx, &completed);
			if (rc)
				return rc < 0 ? rc : (ssize_t)off;
			break;
		case ISCSI_RX_PAD:
			if (!avail)
				return (ssize_t)off;
			n = (uint32_t)UT_MIN(avail, (size_t)(rx->pad - rx->got));
			if (rx->ddigest)
				rx->crc = crc32c_update(rx->crc, buf + off, n);
			rx->got += n;
			off += n;
			rc = rx_settle(rx, &completed);
			if (rc)
				return rc < 0 ? rc : (ssize_t)off;
			break;
		case ISCSI_RX_DDIGEST:
			if (!avail)
				return (ssize_t)off;
			n = (uint32_t)UT_MIN(avail, (size_t)(ISCSI_DIGEST_LEN - rx->got));
			memcpy(rx->dig + rx->got, buf + off, n);
			rx->got += n;
			off += n;
			rc = rx_settle(rx, &completed);
			if (rc)
				return rc < 0 ? rc : (ssize_t)off;
			break;
		default:
			return -EPROTO;
		}
	}
}

bool iscsi_rx_direct(const struct iscsi_rx *rx, size_t min, uint8_t **p, size_t *n)
{
	if (rx->state != ISCSI_RX_DATA || rx->got >= rx->keep)
		return false;
	if (rx->keep - rx->got < min)
		return false;
	*p = rx->dst + rx->got;
	*n = rx->keep - rx->got;
	return true;
}

ssize_t iscsi_rx_direct_done(struct iscsi_rx *rx, size_t n)
{
	bool completed;
	int rc;

	if (rx->state != ISCSI_RX_DATA || n > (size_t)(rx->keep - rx->got))
		return -EINVAL;
	if (rx->ddigest)
		rx->crc = crc32c_update(rx->crc, rx->dst + rx->got, n);
	rx->got += (uint32_t)n;
	rx->direct_bytes += n;
	rc = rx_settle(rx, &completed);
	return rc;
}

/* ---- transmit ---- */

void iscsi_tx_seal(struct iscsi_tx *tx)
{
	iscsi_hdr_set_dsl(&tx->hdr, tx->len);
	tx->hdr.bhs.total_ahs_len = 0;
	if (tx->flags & ISCSI_TX_F_HDIGEST)
		put_le32(tx->hdig, iscsi_header_digest(&tx->hdr, NULL, 0));
	if ((tx->flags & ISCSI_TX_F_DDIGEST) && tx->len)
		put_le32(tx->ddig, iscsi_data_digest(tx->data, tx->len));
	tx->sent = 0;
}

uint32_t iscsi_tx_wire_len(const struct iscsi_tx *tx)
{
	uint32_t n = ISCSI_BHS_LEN + tx->len + ISCSI_PAD(tx->len);

	if (tx->flags & ISCSI_TX_F_HDIGEST)
		n += ISCSI_DIGEST_LEN;
	if ((tx->flags & ISCSI_TX_F_DDIGEST) && tx->len)
		n += ISCSI_DIGEST_LEN;
	return n;
}

/* Append [p, p + len) minus what *skip still covers. */
static int iov_put(struct iovec *iov, int i, int max, const void *p, uint32_t len, uint32_t *skip)
{
	if (*skip >= len) {
		*skip -= len;
		return i;
	}
	if (i >= max)
		return i;
	iov[i].iov_base = (void *)((const uint8_t *)p + *skip);
	iov[i].iov_len = len - *skip;
	*skip = 0;
	return i + 1;
}

int iscsi_tx_iov(const struct iscsi_tx *tx, struct iovec *iov, int max)
{
	uint32_t skip = tx->sent;
	int i = 0;

	i = iov_put(iov, i, max, tx->hdr.raw, ISCSI_BHS_LEN, &skip);
	if (tx->flags & ISCSI_TX_F_HDIGEST)
		i = iov_put(iov, i, max, tx->hdig, ISCSI_DIGEST_LEN, &skip);
	if (tx->len) {
		i = iov_put(iov, i, max, tx->data, tx->len, &skip);
		if (ISCSI_PAD(tx->len))
			i = iov_put(iov, i, max, zero_pad, ISCSI_PAD(tx->len), &skip);
		if (tx->flags & ISCSI_TX_F_DDIGEST)
			i = iov_put(iov, i, max, tx->ddig, ISCSI_DIGEST_LEN, &skip);
	}
	return i;
}
