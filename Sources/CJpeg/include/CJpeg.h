#ifndef DW_CJPEG_H
#define DW_CJPEG_H
// CJpeg: libjpeg(-turbo)'s compressor over pixels in memory, run to the end on the calling thread. No policy lives
// here: the caller chooses quality, chroma subsampling and Huffman optimisation.
#include <stddef.h>

/// Compresses `height` rows of `width` 8-bit pixels of `components` bands (1: grey, 3: RGB), rows `stride` bytes
/// apart, as a baseline JPEG with no JFIF or other marker segments. `quality` 1–100 (libjpeg's scaled IJG tables);
/// `subsample` 1 for libjpeg's default 2×2 chroma (4:2:0), 0 for none (4:4:4); `optimize_coding` 1 for Huffman tables
/// computed for the image. On success returns 0 and `*out` (free it with `cjpeg_free`) and `*length`; on failure
/// returns -1 and libjpeg's message in `error` (at most `error_size` bytes, NUL-terminated).
int cjpeg_encode(const unsigned char *pixels, int width, int height, int components, size_t stride, int quality,
                 int subsample, int optimize_coding, unsigned char **out, size_t *length, char *error,
                 size_t error_size);

/// Frees a buffer `cjpeg_encode` returned.
void cjpeg_free(void *buffer);

#endif
