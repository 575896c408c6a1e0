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

/// Decodes the JPEG in `data` (`length` bytes) at libjpeg's DCT scale 1/`shrink` (1, 2, 4 or 8) into `pixels`: `height`
/// rows of `width` 8-bit pixels of `components` bands (3: YCbCr decoded to RGB, 1: greyscale), rows `stride` bytes
/// apart — libjpeg's defaults otherwise (islow IDCT, fancy upsampling), as libvips' JPEG loader decodes; `width` and
/// `height` may be a pixel less than libjpeg's scaled size (libvips rounds the scaled size down, libjpeg up), and
/// the last column and row are then dropped, as libvips drops them. Returns 0
/// when every row was decoded with no warning at all; 1 when the image is not what the caller expects (its scaled
/// size, its colour space or band count) or libjpeg warned (a truncated or corrupt stream) or failed: the caller then
/// leaves the file to a loader with its own policy for those. `pixels` may be partly written then.
int cjpeg_decode(const unsigned char *data, size_t length, int shrink, int components, unsigned char *pixels,
                 int width, int height, size_t stride);

/// Frees a buffer `cjpeg_encode` returned.
void cjpeg_free(void *buffer);

#endif
