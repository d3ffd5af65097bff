/* SPDX-License-Identifier: GPL-2.0-or-later */
/* keys.h: the key=value text codec of Login and Text PDUs (RFC 7143 6.1).
 *
 * A data segment is a sequence of "key=value" records, each ended by one
 * 0x00. Buffers from the wire are never treated as C strings: records are
 * located with memchr within the given length and handed out as
 * (pointer, length) pairs. A key name is 1..63 bytes of [A-Za-z0-9.+@_-];
 * the codec bounds values at ISCSI_KEYS_VALUE_HARD_MAX, the per-key limits
 * (255 bytes for most keys) are applied by the negotiation table. */
#ifndef UT_ISCSI_KEYS_H
#define UT_ISCSI_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ISCSI_KEY_NAME_MAX	  63u	      /* RFC 7143 6.1 */
#define ISCSI_KEY_VALUE_MAX	  255u	      /* RFC 7143 6.1, unless the key says more */
#define ISCSI_KEYS_VALUE_HARD_MAX 8192u	      /* the longest value any key may carry */
#define ISCSI_KEYS_MAX		  64u	      /* keys in one negotiation request */
#define ISCSI_KEYS_ACCUM_MAX	  (64u << 10) /* one request across C-bit PDUs */

struct iscsi_kv {
	const uint8_t *key;
	const uint8_t *val;
	uint32_t key_len;
	uint32_t val_len;
};

enum iscsi_keys_err {
	ISCSI_KEYS_OK = 0,
	ISCSI_KEYS_ENOEQ,     /* a record without '=' */
	ISCSI_KEYS_EKEYNAME,  /* empty, too long or invalid key name */
	ISCSI_KEYS_EVALLEN,   /* value over ISCSI_KEYS_VALUE_HARD_MAX */
	ISCSI_KEYS_ETOOMANY,  /* more than the caller's maximum of records */
	ISCSI_KEYS_ENOTERM,   /* bytes after the last 0x00 */
	ISCSI_KEYS_EEMPTYREC, /* an empty record followed by more data */
};

/* Split data[0, len) into records. Trailing 0x00 bytes (an empty final
 * record, as some initiators pad) are accepted. On success *n is the number
 * of records in out[]. */
enum iscsi_keys_err iscsi_keys_parse(const uint8_t *data, size_t len, struct iscsi_kv *out,
				     unsigned max, unsigned *n);
const char *iscsi_keys_strerror(enum iscsi_keys_err e);

/* Compare a wire key/value with a C string constant. */
bool iscsi_kv_key_is(const struct iscsi_kv *kv, const char *name);
bool iscsi_kv_val_is(const struct iscsi_kv *kv, const char *val);

/* RFC 7143 6.1 numbers: decimal, or hex with 0x/0X (no sign, no blanks).
 * Returns false on anything else or a value above max. */
bool iscsi_parse_number(const uint8_t *p, size_t len, uint64_t max, uint64_t *out);

/* An output buffer of records, grown on demand up to cap bytes. Writes past
 * the cap set overflow and are dropped. */
struct iscsi_kbuf {
	uint8_t *buf;
	uint32_t len;
	uint32_t size;
	uint32_t cap;
	bool overflow;
};
void iscsi_kbuf_init(struct iscsi_kbuf *b, uint32_t cap);
void iscsi_kbuf_free(struct iscsi_kbuf *b);
void iscsi_kbuf_reset(struct iscsi_kbuf *b);
/* Append "key=value\0" (lengths explicit: key may come from the wire). */
void iscsi_kbuf_addn(struct iscsi_kbuf *b, const void *key, size_t klen, const void *val,
		     size_t vlen);
void iscsi_kbuf_add(struct iscsi_kbuf *b, const char *key, const char *val);
void iscsi_kbuf_add_num(struct iscsi_kbuf *b, const char *key, uint64_t v);

#endif
