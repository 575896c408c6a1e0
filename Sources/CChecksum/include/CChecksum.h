// CChecksum: CRC-32C (Castagnoli) for cache entries — the SSE4.2 instruction where the CPU has it, else tables.
#ifndef DW_CCHECKSUM_H
#define DW_CCHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/// CRC-32C of `length` bytes at `data`, continuing from `crc` (0 to start; pass a previous result to chain,
/// as with zlib's crc32). CRC-32C("123456789") = 0xE3069283.
uint32_t dw_crc32c(uint32_t crc, const void *data, size_t length);

/// The same with the table code, whatever the CPU has (for tests that compare the two).
uint32_t dw_crc32c_tables(uint32_t crc, const void *data, size_t length);

#endif
