// CTiff: typed, non-variadic entry points for the libtiff calls DWWebImageProcessing makes (its RGBA reader, for
// the TIFFs libvips' tiffload refuses). Thin forwards: which files go here and what the limits are is decided in
// Swift. libtiff stays opaque to Swift. A reader is used by one thread at a time; readers are independent.
#ifndef DW_CTIFF_H
#define DW_CTIFF_H

#include <stddef.h>
#include <stdint.h>

typedef struct ctiff_reader ctiff_reader;

/* Opens the TIFF in buf (not copied: it must outlive the reader) at its first directory. NULL on failure, with
 * libtiff's first error message in *error (free it with ctiff_free). Warnings are dropped. */
ctiff_reader *_Nullable ctiff_open(const void *_Nonnull buf, size_t len, char *_Nullable *_Nonnull error);
void ctiff_close(ctiff_reader *_Nullable reader);
void ctiff_free(void *_Nullable p);

/* The first directory's tags (0 when absent: planar_config defaults to 1, contiguous). */
uint32_t ctiff_width(ctiff_reader *_Nonnull reader);
uint32_t ctiff_height(ctiff_reader *_Nonnull reader);
int ctiff_is_tiled(ctiff_reader *_Nonnull reader);
int ctiff_planar_config(ctiff_reader *_Nonnull reader);

/* TIFFReadRGBAImageOriented into out (width × height packed pixels, A << 24 | B << 16 | G << 8 | R, alpha
 * associated (premultiplied) as libtiff delivers it, top row first, the file's orientation applied), stopping at
 * the first error. 0 on success; -1 with libtiff's reason in *error (TIFFRGBAImageOK's, or the first error the
 * read reported). */
int ctiff_read_rgba(ctiff_reader *_Nonnull reader, uint32_t *_Nonnull out, size_t count,
                    char *_Nullable *_Nonnull error);

#endif
