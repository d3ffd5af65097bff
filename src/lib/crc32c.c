/* SPDX-License-Identifier: GPL-2.0-or-later */
/* crc32c.c: CRC32C (Castagnoli, reflected polynomial 0x82f63b78), the iSCSI
 * header and data digest (RFC 7143 13.1; test vectors in RFC 3720 B.4).
 *
 * Contract (crc32c.h): crc32c_update(state, buf, len) is the raw register
 * update without pre/post inversion, so it can be chained over pieces; the
 * caller starts from CRC32C_INIT and finishes with crc32c_final(). Safe to call
 * from any thread at any time.
 *
 * Implementations, chosen once on the first call and then reached through a
 * function pointer:
 *  - "sse4.2": the x86 CRC32 instruction, 8 bytes at a time; long buffers are
 *    split in three interleaved streams (the instruction has a latency of 3
 *    cycles and a throughput of 1) whose results are merged with a "shift by
 *    n zero bytes" operator kept as byte tables;
 *  - "armv8": the same on aarch64 with the CRC32C instructions (HWCAP_CRC32);
 *  - "table": portable slicing-by-8.
 * Pieces of CRC32C_ISAL_MIN bytes and more go to ISA-L's crc32_iscsi()
 * instead (the library of ARCHITECTURE.md §4, already linked for T10 PI),
 * which folds with carry-less multiplies where the CPU has them (VPCLMULQDQ
 * on the reference machine): 46 against 174 ns for 4 KiB in cache there
 * (docs/performance.md sections 11 and 21). Below that its set-up costs more
 * than it saves; headers (48 bytes) stay here. Same register convention:
 * no inversion in or out.
 */
#include "crc32c.h"

#include <isa-l/crc.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#include <nmmintrin.h>
#define CRC32C_HAVE_SSE42 1
#endif
#if defined(__aarch64__)
#include <arm_acle.h>
#include <asm/hwcap.h>
#include <sys/auxv.h>
#define CRC32C_HAVE_ARMV8 1
#endif

#define CRC32C_POLY 0x82f63b78u

/* From this many bytes a piece goes to ISA-L (crc32_iscsi). */
#define CRC32C_ISAL_MIN 256

/* Stream lengths of the 3-way interleaved hardware loops (multiples of 8). */
#define CRC32C_LONG  8192
#define CRC32C_SHORT 256

/* Slicing-by-8 tables: tab[0] is the classic byte table; tab[k][b] is the
 * register contribution of byte b followed by k zero bytes. */
static uint32_t crc32c_tab[8][256];

/* Zero-byte shift operators: shift_n(x) = XOR over k of sh[k][(x >> 8k) & 255]
 * is the register after feeding n zero bytes to register x. */
struct crc32c_shift {
	uint32_t t[4][256];
};
static struct crc32c_shift crc32c_shift_long, crc32c_shift_short;

static inline uint32_t crc32c_load32le(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t crc32c_load64le(const uint8_t *p)
{
	return (uint64_t)crc32c_load32le(p) | (uint64_t)crc32c_load32le(p + 4) << 32;
}

static uint32_t crc32c_sw(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len && ((uintptr_t)p & 7)) {
		crc = crc32c_tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
		len--;
	}
	while (len >= 8) {
		uint32_t lo = crc ^ crc32c_load32le(p);
		uint32_t hi = crc32c_load32le(p + 4);

		crc = crc32c_tab[7][lo & 0xff] ^ crc32c_tab[6][(lo >> 8) & 0xff] ^
		      crc32c_tab[5][(lo >> 16) & 0xff] ^ crc32c_tab[4][lo >> 24] ^
		      crc32c_tab[3][hi & 0xff] ^ crc32c_tab[2][(hi >> 8) & 0xff] ^
		      crc32c_tab[1][(hi >> 16) & 0xff] ^ crc32c_tab[0][hi >> 24];
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = crc32c_tab[0][(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return crc;
}

static inline uint32_t crc32c_shift(const struct crc32c_shift *s, uint32_t x)
{
	return s->t[0][x & 0xff] ^ s->t[1][(x >> 8) & 0xff] ^ s->t[2][(x >> 16) & 0xff] ^
	       s->t[3][x >> 24];
}

/* The operator is linear over GF(2): build it from the 32 basis vectors. */
static void crc32c_shift_build(struct crc32c_shift *s, size_t n)
{
	static const uint8_t zeroes[256];
	uint32_t basis[32];

	for (unsigned i = 0; i < 32; i++) {
		uint32_t x = 1u << i;

		for (size_t left = n; left;) {
			size_t step = left < sizeof(zeroes) ? left : sizeof(zeroes);

			x = crc32c_sw(x, zeroes, step);
			left -= step;
		}
		basis[i] = x;
	}
	for (unsigned k = 0; k < 4; k++)
		for (unsigned b = 0; b < 256; b++) {
			uint32_t v = 0;

			for (unsigned j = 0; j < 8; j++)
				if (b & (1u << j))
					v ^= basis[8 * k + j];
			s->t[k][b] = v;
		}
}

static void crc32c_tables_init(void)
{
	for (unsigned i = 0; i < 256; i++) {
		uint32_t c = i;

		for (unsigned j = 0; j < 8; j++)
			c = (c >> 1) ^ (CRC32C_POLY & (0u - (c & 1)));
		crc32c_tab[0][i] = c;
	}
	for (unsigned k = 1; k < 8; k++)
		for (unsigned i = 0; i < 256; i++) {
			uint32_t c = crc32c_tab[k - 1][i];

			crc32c_tab[k][i] = (c >> 8) ^ crc32c_tab[0][c & 0xff];
		}
	crc32c_shift_build(&crc32c_shift_long, CRC32C_LONG);
	crc32c_shift_build(&crc32c_shift_short, CRC32C_SHORT);
}

#ifdef CRC32C_HAVE_SSE42
/* Three streams of n bytes each from p; returns the register after all 3n. */
__attribute__((target("sse4.2"))) static inline uint64_t
crc32c_sse42_3way(uint64_t c0, const uint8_t *p, size_t n, const struct crc32c_shift *sh)
{
	uint64_t c1 = 0, c2 = 0;
	const uint8_t *end = p + n;

	do {
		c0 = _mm_crc32_u64(c0, crc32c_load64le(p));
		c1 = _mm_crc32_u64(c1, crc32c_load64le(p + n));
		c2 = _mm_crc32_u64(c2, crc32c_load64le(p + 2 * n));
		p += 8;
	} while (p < end);
	/* crc(A|B|C) = shift_n(shift_n(crc(A)) ^ crc0(B)) ^ crc0(C) */
	return crc32c_shift(sh, crc32c_shift(sh, (uint32_t)c0) ^ (uint32_t)c1) ^ (uint32_t)c2;
}

__attribute__((target("sse4.2"))) static uint32_t crc32c_sse42(uint32_t crc, const void *buf,
							       size_t len)
{
	const uint8_t *p = buf;
	uint64_t c = crc;

	while (len && ((uintptr_t)p & 7)) {
		c = _mm_crc32_u8((uint32_t)c, *p++);
		len--;
	}
	while (len >= 3 * CRC32C_LONG) {
		c = crc32c_sse42_3way(c, p, CRC32C_LONG, &crc32c_shift_long);
		p += 3 * CRC32C_LONG;
		len -= 3 * CRC32C_LONG;
	}
	while (len >= 3 * CRC32C_SHORT) {
		c = crc32c_sse42_3way(c, p, CRC32C_SHORT, &crc32c_shift_short);
		p += 3 * CRC32C_SHORT;
		len -= 3 * CRC32C_SHORT;
	}
	while (len >= 8) {
		c = _mm_crc32_u64(c, crc32c_load64le(p));
		p += 8;
		len -= 8;
	}
	while (len--)
		c = _mm_crc32_u8((uint32_t)c, *p++);
	return (uint32_t)c;
}
#endif

#ifdef CRC32C_HAVE_ARMV8
__attribute__((target("+crc"))) static inline uint32_t
crc32c_armv8_3way(uint32_t c0, const uint8_t *p, size_t n, const struct crc32c_shift *sh)
{
	uint32_t c1 = 0, c2 = 0;
	const uint8_t *end = p + n;

	do {
		c0 = __crc32cd(c0, crc32c_load64le(p));
		c1 = __crc32cd(c1, crc32c_load64le(p + n));
		c2 = __crc32cd(c2, crc32c_load64le(p + 2 * n));
		p += 8;
	} while (p < end);
	return crc32c_shift(sh, crc32c_shift(sh, c0) ^ c1) ^ c2;
}

__attribute__((target("+crc"))) static uint32_t crc32c_armv8(uint32_t crc, const void *buf,
							     size_t len)
{
	const uint8_t *p = buf;

	while (len && ((uintptr_t)p & 7)) {
		crc = __crc32cb(crc, *p++);
		len--;
	}
	while (len >= 3 * CRC32C_LONG) {
		crc = crc32c_armv8_3way(crc, p, CRC32C_LONG, &crc32c_shift_long);
		p += 3 * CRC32C_LONG;
		len -= 3 * CRC32C_LONG;
	}
	while (len >= 3 * CRC32C_SHORT) {
		crc = crc32c_armv8_3way(crc, p, CRC32C_SHORT, &crc32c_shift_short);
		p += 3 * CRC32C_SHORT;
		len -= 3 * CRC32C_SHORT;
	}
	while (len >= 8) {
		crc = __crc32cd(crc, crc32c_load64le(p));
		p += 8;
		len -= 8;
	}
	while (len--)
		crc = __crc32cb(crc, *p++);
	return crc;
}
#endif

typedef uint32_t (*crc32c_fn)(uint32_t crc, const void *buf, size_t len);

static uint32_t crc32c_resolve(uint32_t crc, const void *buf, size_t len);

static _Atomic(crc32c_fn) crc32c_impl_fn = crc32c_resolve;
static const char *crc32c_impl_name = "table";
static pthread_once_t crc32c_once = PTHREAD_ONCE_INIT;

static void crc32c_init(void)
{
	crc32c_fn fn = crc32c_sw;

	crc32c_tables_init();
#ifdef CRC32C_HAVE_SSE42
	__builtin_cpu_init();
	if (__builtin_cpu_supports("sse4.2")) {
		fn = crc32c_sse42;
		crc32c_impl_name = "sse4.2";
	}
#endif
#ifdef CRC32C_HAVE_ARMV8
	if (getauxval(AT_HWCAP) & HWCAP_CRC32) {
		fn = crc32c_armv8;
		crc32c_impl_name = "armv8";
	}
#endif
	atomic_store_explicit(&crc32c_impl_fn, fn, memory_order_release);
}

static uint32_t crc32c_resolve(uint32_t crc, const void *buf, size_t len)
{
	pthread_once(&crc32c_once, crc32c_init);
	return atomic_load_explicit(&crc32c_impl_fn, memory_order_acquire)(crc, buf, len);
}

#ifdef CRC32C_HAVE_SSE42
/* ISA-L's AVX-512 code returns with the upper halves of the vector registers
 * dirty; the next SSE instruction of the caller then waits for the state to
 * be saved (it took 3.9 % of the daemon's samples, on one instruction, in a
 * digested 4K READ). vzeroupper after it, as the ABI expects of AVX code --
 * only where the CPU has AVX: elsewhere the instruction does not exist (and
 * ISA-L ran SSE code, which leaves nothing dirty). */
__attribute__((target("avx"))) static void crc32c_vzeroupper(void)
{
	_mm256_zeroupper();
}

static void crc32c_isal_done(void)
{
	if (__builtin_cpu_supports("avx"))
		crc32c_vzeroupper();
}
#else
static void crc32c_isal_done(void)
{
}
#endif

uint32_t crc32c_update(uint32_t state, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len >= CRC32C_ISAL_MIN) {
		int n = len > (size_t)INT_MAX ? INT_MAX & ~4095 : (int)len;

		state = crc32_iscsi((unsigned char *)p, n, state);
		crc32c_isal_done();
		p += n;
		len -= (size_t)n;
	}
	if (!len)
		return state;
	return atomic_load_explicit(&crc32c_impl_fn, memory_order_acquire)(state, p, len);
}

const char *crc32c_impl(void)
{
	pthread_once(&crc32c_once, crc32c_init);
	return crc32c_impl_name;
}
