// CTiff: libtiff over a memory buffer (TIFFClientOpenExt with read/seek/size/map callbacks), errors kept per reader
// (TIFFOpenOptions' handlers, libtiff ≥ 4.5: no process-wide handler is touched). No policy lives here.
#include "CTiff.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

struct ctiff_reader {
    const unsigned char *bytes;
    size_t length;
    size_t offset;
    TIFF *tiff;
    char error[512];  /* the first error libtiff reported ("" when none) */
};

static tmsize_t ctiff_read(thandle_t handle, void *buf, tmsize_t size) {
    struct ctiff_reader *r = (struct ctiff_reader *)handle;
    if (size <= 0 || r->offset >= r->length) return 0;
    size_t n = r->length - r->offset;
    if ((size_t)size < n) n = (size_t)size;
    memcpy(buf, r->bytes + r->offset, n);
    r->offset += n;
    return (tmsize_t)n;
}

static tmsize_t ctiff_write(thandle_t handle, void *buf, tmsize_t size) {
    (void)handle; (void)buf; (void)size;
    return -1;
}

static toff_t ctiff_seek(thandle_t handle, toff_t offset, int whence) {
    struct ctiff_reader *r = (struct ctiff_reader *)handle;
    uint64_t base = whence == SEEK_CUR ? r->offset : whence == SEEK_END ? r->length : 0;
    if (whence != SEEK_SET && whence != SEEK_CUR && whence != SEEK_END) return (toff_t)-1;
    if (offset > UINT64_MAX - base) return (toff_t)-1;
    uint64_t target = base + offset;
    if (target > SIZE_MAX) return (toff_t)-1;
    r->offset = (size_t)target;  /* past the end is allowed: reads there return 0 */
    return (toff_t)target;
}

static int ctiff_close_proc(thandle_t handle) { (void)handle; return 0; }

/* The bytes are in memory already: "mapping" hands libtiff the buffer itself (read only), which is also the path
 * libtiff 4.5's RGBA reader needs for tiled separate planes (without a mapping it reads plane 0's tile with the
 * size of all planes and fails: "Invalid tile byte count"). */
static int ctiff_map(thandle_t handle, void **base, toff_t *size) {
    struct ctiff_reader *r = (struct ctiff_reader *)handle;
    *base = (void *)r->bytes;
    *size = (toff_t)r->length;
    return 1;
}

static void ctiff_unmap(thandle_t handle, void *base, toff_t size) { (void)handle; (void)base; (void)size; }
static toff_t ctiff_size(thandle_t handle) { return (toff_t)((struct ctiff_reader *)handle)->length; }

static int ctiff_on_error(TIFF *tiff, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tiff;
    struct ctiff_reader *r = (struct ctiff_reader *)user;
    if (r->error[0] == 0) {
        int n = module ? snprintf(r->error, sizeof r->error, "%s: ", module) : 0;
        if (n < 0 || (size_t)n >= sizeof r->error) n = 0;
        vsnprintf(r->error + n, sizeof r->error - (size_t)n, fmt, ap);
    }
    return 1;  /* handled: libtiff's process-wide handler (stderr) is not called */
}

static int ctiff_on_warning(TIFF *tiff, void *user, const char *module, const char *fmt, va_list ap) {
    (void)tiff; (void)user; (void)module; (void)fmt; (void)ap;
    return 1;
}

static char *ctiff_take_error(struct ctiff_reader *r, const char *fallback) {
    return strdup(r->error[0] ? r->error : fallback);
}

ctiff_reader *ctiff_open(const void *buf, size_t len, char **error) {
    *error = NULL;
    struct ctiff_reader *r = calloc(1, sizeof *r);
    if (!r) { *error = strdup("out of memory"); return NULL; }
    r->bytes = buf;
    r->length = len;
    TIFFOpenOptions *options = TIFFOpenOptionsAlloc();
    if (!options) { free(r); *error = strdup("out of memory"); return NULL; }
    TIFFOpenOptionsSetErrorHandlerExtR(options, ctiff_on_error, r);
    TIFFOpenOptionsSetWarningHandlerExtR(options, ctiff_on_warning, r);
    r->tiff = TIFFClientOpenExt("memory", "r", (thandle_t)r, ctiff_read, ctiff_write, ctiff_seek, ctiff_close_proc,
                                ctiff_size, ctiff_map, ctiff_unmap, options);
    TIFFOpenOptionsFree(options);
    if (!r->tiff) {
        *error = ctiff_take_error(r, "libtiff cannot open the data");
        free(r);
        return NULL;
    }
    return r;
}

void ctiff_close(ctiff_reader *r) {
    if (!r) return;
    if (r->tiff) TIFFClose(r->tiff);
    free(r);
}

void ctiff_free(void *p) { free(p); }

static uint32_t ctiff_u32(ctiff_reader *r, ttag_t tag) {
    uint32_t v = 0;
    return TIFFGetField(r->tiff, tag, &v) == 1 ? v : 0;
}

static int ctiff_u16(ctiff_reader *r, ttag_t tag, int defaulted) {
    uint16_t v = 0;
    int found = defaulted ? TIFFGetFieldDefaulted(r->tiff, tag, &v) : TIFFGetField(r->tiff, tag, &v);
    return found == 1 ? (int)v : 0;
}

uint32_t ctiff_width(ctiff_reader *r) { return ctiff_u32(r, TIFFTAG_IMAGEWIDTH); }
uint32_t ctiff_height(ctiff_reader *r) { return ctiff_u32(r, TIFFTAG_IMAGELENGTH); }
int ctiff_is_tiled(ctiff_reader *r) { return TIFFIsTiled(r->tiff) ? 1 : 0; }
int ctiff_planar_config(ctiff_reader *r) { return ctiff_u16(r, TIFFTAG_PLANARCONFIG, 1); }

int ctiff_read_rgba(ctiff_reader *r, uint32_t *out, size_t count, char **error) {
    *error = NULL;
    uint32_t w = ctiff_width(r), h = ctiff_height(r);
    if (w == 0 || h == 0 || (uint64_t)w * h > SIZE_MAX / 4 || count < (size_t)w * h) {
        *error = strdup("bad size or buffer");
        return -1;
    }
    char why[1024] = {0};
    if (!TIFFRGBAImageOK(r->tiff, why)) {
        *error = strdup(why[0] ? why : "libtiff's RGBA reader cannot read this image");
        return -1;
    }
    r->error[0] = 0;
    if (!TIFFReadRGBAImageOriented(r->tiff, w, h, out, ORIENTATION_TOPLEFT, 1) || r->error[0]) {
        *error = ctiff_take_error(r, "libtiff's RGBA reader failed");
        return -1;
    }
    return 0;
}
