// CRC-32C: SSE4.2's crc32 instruction, three streams at a time, with a slicing-by-8 table fallback for other CPUs.
// No policy: the entry format chooses the checksum.
#include "CChecksum.h"

#include <pthread.h>
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

static uint32_t table[8][256];
static pthread_once_t table_once = PTHREAD_ONCE_INIT;

static void build_table(void) {
    for (uint32_t i = 0; i < 256; i++) {
        uint32_t c = i;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        table[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; i++) {
        for (int s = 1; s < 8; s++) table[s][i] = (table[s - 1][i] >> 8) ^ table[0][table[s - 1][i] & 0xFF];
    }
}

static uint32_t crc_tables(uint32_t c, const uint8_t *p, size_t n) {
    pthread_once(&table_once, build_table);
    while (n >= 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
        lo ^= c;  // little-endian hosts (x86-64, arm64, …)
        c = table[7][lo & 0xFF] ^ table[6][(lo >> 8) & 0xFF] ^ table[5][(lo >> 16) & 0xFF] ^ table[4][lo >> 24] ^
            table[3][hi & 0xFF] ^ table[2][(hi >> 8) & 0xFF] ^ table[1][(hi >> 16) & 0xFF] ^ table[0][hi >> 24];
        p += 8;
        n -= 8;
    }
    while (n--) c = (c >> 8) ^ table[0][(c ^ *p++) & 0xFF];
    return c;
}

/* Polynomial arithmetic modulo the CRC-32C polynomial, in the reflected bit order the CRC uses (x^0 is the top
   bit), as zlib's crc32_combine does: crc(A || B) = (crc(A) * x^(8|B|)) ^ crc(B). */
static uint32_t multmodp(uint32_t a, uint32_t b) {
    uint32_t m = 1u << 31, p = 0;
    for (;;) {
        if (a & m) {
            p ^= b;
            if ((a & (m - 1)) == 0) break;
        }
        m >>= 1;
        b = (b & 1) ? (b >> 1) ^ 0x82F63B78u : b >> 1;
    }
    return p;
}

/* x^(8 * bytes) modulo the polynomial. */
static uint32_t shift_op(size_t bytes) {
    uint32_t result = 1u << 31, square = 1u << 30;  /* x^0, x^1 */
    for (uint64_t n = (uint64_t)bytes * 8; n; n >>= 1) {
        if (n & 1) result = multmodp(square, result);
        square = multmodp(square, square);
    }
    return result;
}

#if defined(__x86_64__)
/* The instruction has a latency of 3 cycles and a throughput of 1: three independent streams over the thirds of
   each block keep it busy, and their CRCs are combined. Two block sizes, so that images of a few KiB (most web
   thumbnails) run three-wide too: 3 × 8 KiB, then 3 × 256 bytes; under 768 bytes one stream. A combine shifts a
   CRC by a fixed length, a linear map that four 256-entry tables apply in four lookups (as Mark Adler's crc32c.c
   does); the serial multiply would cost more than a short block's CRC. */
enum { LONG = 8192, SHORT = 256 };
static uint32_t long_shifts[4][256], short_shifts[4][256];
static pthread_once_t shifts_once = PTHREAD_ONCE_INIT;

/* The map is linear over GF(2): each entry is the XOR of the entries of its bits, so only the eight one-bit entries
   of each table need the (slow, bit-serial) multiply. */
static void build_shift_table(uint32_t table[4][256], size_t bytes) {
    uint32_t op = shift_op(bytes);
    for (int k = 0; k < 4; k++) {
        table[k][0] = 0;
        for (int bit = 0; bit < 8; bit++) table[k][1u << bit] = multmodp(op, (1u << bit) << (8 * k));
        for (uint32_t b = 1; b < 256; b++) {
            uint32_t low = b & (0u - b);
            if (b != low) table[k][b] = table[k][b ^ low] ^ table[k][low];
        }
    }
}

static void build_shifts(void) {
    build_shift_table(long_shifts, LONG);
    build_shift_table(short_shifts, SHORT);
}

/* crc * x^(8 * the table's length), modulo the polynomial. */
static inline uint32_t shift(const uint32_t table[4][256], uint32_t crc) {
    return table[0][crc & 0xFF] ^ table[1][(crc >> 8) & 0xFF] ^ table[2][(crc >> 16) & 0xFF] ^ table[3][crc >> 24];
}

/* Three streams over p[0..<3 * stride], continuing the register value c; returns the new register value. */
__attribute__((target("sse4.2"), always_inline)) static inline uint32_t
crc_three(uint32_t c, const uint8_t *p, size_t stride, const uint32_t table[4][256]) {
    uint64_t a = c, b = 0xFFFFFFFFu, d = 0xFFFFFFFFu; /* b and d: fresh CRCs (pre-inverted) */
    for (size_t i = 0; i < stride; i += 8) {
        uint64_t va, vb, vd;
        memcpy(&va, p + i, 8);
        memcpy(&vb, p + stride + i, 8);
        memcpy(&vd, p + 2 * stride + i, 8);
        a = _mm_crc32_u64(a, va);
        b = _mm_crc32_u64(b, vb);
        d = _mm_crc32_u64(d, vd);
    }
    /* In final (post-inverted) form: crc(A||B||D) = A·x^(16·stride) ^ B·x^(8·stride) ^ D. */
    uint32_t fa = ~(uint32_t)a, fb = ~(uint32_t)b, fd = ~(uint32_t)d;
    return ~(shift(table, shift(table, fa) ^ fb) ^ fd);
}

__attribute__((target("sse4.2"))) static uint32_t crc_sse42(uint32_t c, const uint8_t *p, size_t n) {
    if (n >= 3 * SHORT) {
        pthread_once(&shifts_once, build_shifts);
        for (; n >= 3 * LONG; p += 3 * LONG, n -= 3 * LONG) c = crc_three(c, p, LONG, long_shifts);
        for (; n >= 3 * SHORT; p += 3 * SHORT, n -= 3 * SHORT) c = crc_three(c, p, SHORT, short_shifts);
    }
    uint64_t c64 = c;
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c64 = _mm_crc32_u64(c64, v);
        p += 8;
        n -= 8;
    }
    uint32_t c32 = (uint32_t)c64;
    while (n--) c32 = _mm_crc32_u8(c32, *p++);
    return c32;
}
#endif

uint32_t dw_crc32c_tables(uint32_t crc, const void *data, size_t length) {
    return ~crc_tables(~crc, (const uint8_t *)data, length);
}

uint32_t dw_crc32c(uint32_t crc, const void *data, size_t length) {
    const uint8_t *p = (const uint8_t *)data;
    uint32_t c = ~crc;
#if defined(__x86_64__)
    if (__builtin_cpu_supports("sse4.2")) return ~crc_sse42(c, p, length);
#endif
    return ~crc_tables(c, p, length);
}
