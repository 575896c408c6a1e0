// CVips: one-line forwards to libvips' variadic calls (see CVips.h). No policy lives here.
#define _GNU_SOURCE
#include "CVips.h"
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sched.h>
#include <sys/resource.h>
#include <gmodule.h>
#include <vips/vips.h>

int cvips_init(const char *argv0) { return VIPS_INIT(argv0); }
void cvips_block_untrusted(int block) { vips_block_untrusted_set(block ? TRUE : FALSE); }
void cvips_operation_block_set(const char *name, int block) { vips_operation_block_set(name, block ? TRUE : FALSE); }
void cvips_concurrency_set(int threads) { vips_concurrency_set(threads); }
size_t cvips_tracked_mem(void) { return vips_tracked_get_mem(); }
size_t cvips_tracked_mem_highwater(void) { return vips_tracked_get_mem_highwater(); }
int cvips_tracked_allocs(void) { return vips_tracked_get_allocs(); }

void cvips_cache_set(int max_operations, size_t max_memory, int max_files) {
    vips_cache_set_max(max_operations);
    vips_cache_set_max_mem(max_memory);
    vips_cache_set_max_files(max_files);
}
int cvips_load_module(const char *path) {
    GModule *module = g_module_open(path, G_MODULE_BIND_LAZY);
    if (!module) return -1;
    g_module_make_resident(module);
    return 0;
}
char *cvips_library_path(void) {
    Dl_info info;
    if (!dladdr((void *)vips_init, &info) || !info.dli_fname) return NULL;
    return g_strdup(info.dli_fname);
}
static void cvips_drop_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}
void cvips_silence_warnings(void) {
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING | G_LOG_LEVEL_MESSAGE | G_LOG_LEVEL_INFO, cvips_drop_log, NULL);
}
const char *cvips_version(void) { return vips_version_string(); }

char *cvips_error_take(void) {
    char *text = vips_error_buffer_copy();   /* copies and clears under libvips' lock */
    if (text && !*text) { g_free(text); return NULL; }
    return text;
}
void cvips_free(void *p) { g_free(p); }
void cvips_unref(VipsImage *image) { if (image) g_object_unref(image); }
void cvips_set_kill(VipsImage *image, int kill) { vips_image_set_kill(image, kill ? TRUE : FALSE); }

int cvips_width(VipsImage *image) { return vips_image_get_width(image); }
int cvips_height(VipsImage *image) { return vips_image_get_height(image); }
int cvips_bands(VipsImage *image) { return vips_image_get_bands(image); }
int cvips_band_format(VipsImage *image) { return (int)vips_image_get_format(image); }
int cvips_interpretation(VipsImage *image) { return (int)vips_image_get_interpretation(image); }
int cvips_has_alpha(VipsImage *image) { return vips_image_hasalpha(image) ? 1 : 0; }
int cvips_has_icc(VipsImage *image) { return vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0; }
int cvips_get_int(VipsImage *image, const char *name, int *out) {
    if (!vips_image_get_typeof(image, name)) return -1;
    return vips_image_get_int(image, name, out);
}

static int cvips_fitsload_memory(const void *buf, size_t len, int fail_on, VipsImage **out);

int cvips_load_buffer(int loader, const void *buf, size_t len, int fail_on, int sequential, int unlimited,
                      VipsImage **out) {
    void *b = (void *)buf;
    VipsAccess access = sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM;
    switch (loader) {
    case CVIPS_LOADER_JPEG: return vips_jpegload_buffer(b, len, out, "fail_on", fail_on, "access", access, NULL);
    case CVIPS_LOADER_PNG:
        return vips_pngload_buffer(b, len, out, "fail_on", fail_on, "access", access, "unlimited", unlimited, NULL);
    case CVIPS_LOADER_WEBP: return vips_webpload_buffer(b, len, out, "fail_on", fail_on, "access", access, NULL);
    case CVIPS_LOADER_TIFF: return vips_tiffload_buffer(b, len, out, "fail_on", fail_on, "access", access, NULL);
    case CVIPS_LOADER_HEIF:
        return vips_heifload_buffer(b, len, out, "fail_on", fail_on, "access", access, "unlimited", unlimited, NULL);
    case CVIPS_LOADER_GIF: return vips_gifload_buffer(b, len, out, "fail_on", fail_on, "access", access, NULL);
    case CVIPS_LOADER_JXL: return vips_jxlload_buffer(b, len, out, "fail_on", fail_on, "access", access, NULL);
    case CVIPS_LOADER_JP2K: return vips_jp2kload_buffer(b, len, out, "fail_on", fail_on, "access", access, NULL);
    case CVIPS_LOADER_PPM: {
        /* No ppmload_buffer in libvips: a source over the same memory (the loader keeps its own reference). */
        VipsSource *source = vips_source_new_from_memory(b, len);
        if (!source) return -1;
        int result = vips_ppmload_source(source, out, "fail_on", fail_on, "access", access, NULL);
        g_object_unref(source);
        return result;
    }
    case CVIPS_LOADER_FITS: return cvips_fitsload_memory(b, len, fail_on, out);
    default: vips_error("cvips", "unknown loader %d", loader); return -1;
    }
}

/* A private temporary file holding `len` bytes, with no name anyone else can open: O_TMPFILE, else mkstemp then
 * unlink at once. The descriptor, or -1 (the reason in vips' error buffer). */
static int cvips_private_file(const void *buf, size_t len) {
    const char *dir = g_get_tmp_dir();
    int fd = open(dir, O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) {
        char *path = g_build_filename(dir, "dwwebimage-fits-XXXXXX", NULL);
        fd = mkostemp(path, O_CLOEXEC);
        if (fd >= 0) unlink(path);
        g_free(path);
    }
    if (fd < 0) {
        vips_error("cvips", "cannot create a temporary file for fitsload: %s", g_strerror(errno));
        return -1;
    }
    const char *p = buf;
    size_t left = len;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            vips_error("cvips", "cannot write the temporary file for fitsload: %s", g_strerror(errno));
            close(fd);
            return -1;
        }
        p += n;
        left -= (size_t)n;
    }
    return fd;
}

/* libvips 8.14's fitsload reads only a named file (cfitsio opens it by name, once for the header and again for the
 * pixels): the bytes go to a private temporary file, named to libvips as /proc/self/fd/N, and the image is decoded
 * into memory before the file is closed. */
static int cvips_fitsload_memory(const void *buf, size_t len, int fail_on, VipsImage **out) {
    int fd = cvips_private_file(buf, len);
    if (fd < 0) return -1;
    char name[64];
    snprintf(name, sizeof name, "/proc/self/fd/%d", fd);
    VipsImage *image = NULL;
    int result = vips_fitsload(name, &image, "fail_on", fail_on, NULL);
    if (result == 0) {
        VipsImage *memory = vips_image_copy_memory(image);
        g_object_unref(image);
        if (memory) *out = memory;
        else result = -1;
    }
    close(fd);
    return result;
}

void cvips_own_blobs(VipsImage *image) {
    gchar **names = vips_image_get_fields(image);
    for (int i = 0; names[i]; i++) {
        const void *data;
        size_t length;
        if (vips_image_get_typeof(image, names[i]) != VIPS_TYPE_BLOB) continue;
        if (vips_image_get_blob(image, names[i], &data, &length) || !data || !length) continue;
        vips_image_set_blob_copy(image, names[i], data, length);
    }
    g_strfreev(names);
}

int cvips_heifload_thumbnail_buffer(const void *buf, size_t len, int fail_on, VipsImage **out) {
    return vips_heifload_buffer((void *)buf, len, out, "thumbnail", TRUE, "fail_on", fail_on, NULL);
}

int cvips_jpegload_shrink_buffer(const void *buf, size_t len, int shrink, int fail_on, int sequential,
                                 VipsImage **out) {
    return vips_jpegload_buffer((void *)buf, len, out, "shrink", shrink, "fail_on", fail_on,
                                "access", sequential ? VIPS_ACCESS_SEQUENTIAL : VIPS_ACCESS_RANDOM, NULL);
}

int cvips_svgload_buffer(const void *buf, size_t len, double scale, double dpi, VipsImage **out) {
    return vips_svgload_buffer((void *)buf, len, out, "scale", scale, "dpi", dpi, "unlimited", FALSE,
                               "access", VIPS_ACCESS_SEQUENTIAL, NULL);
}

int cvips_thumbnail_buffer(const void *buf, size_t len, int width, int height, int size, int crop, int fail_on,
                           const char *option_string, VipsImage **out) {
    if (option_string)
        return vips_thumbnail_buffer((void *)buf, len, out, width, "height", height, "size", size, "crop", crop,
                                     "fail_on", fail_on, "option_string", option_string, NULL);
    return vips_thumbnail_buffer((void *)buf, len, out, width, "height", height, "size", size, "crop", crop,
                                 "fail_on", fail_on, NULL);
}
int cvips_thumbnail_image(VipsImage *in, int width, int height, int size, int crop, VipsImage **out) {
    return vips_thumbnail_image(in, out, width, "height", height, "size", size, "crop", crop, NULL);
}
int cvips_from_memory(const void *pixels, size_t len, int width, int height, int bands, VipsImage **out) {
    VipsImage *image = vips_image_new_from_memory_copy(pixels, len, width, height, bands, VIPS_FORMAT_UCHAR);
    if (!image) return -1;
    image->Type = bands >= 3 ? VIPS_INTERPRETATION_sRGB : VIPS_INTERPRETATION_B_W;
    *out = image;
    return 0;
}

static void cvips_free_adopted(VipsImage *image, void *pixels) {
    (void)image;
    free(pixels);
}

int cvips_adopt_pixels(VipsImage *header, void *pixels, size_t len, VipsImage **out) {
    if (header->BandFmt != VIPS_FORMAT_UCHAR || len != VIPS_IMAGE_SIZEOF_IMAGE(header)) {
        free(pixels);
        return -1;
    }
    VipsImage *image =
        vips_image_new_from_memory(pixels, len, header->Xsize, header->Ysize, header->Bands, VIPS_FORMAT_UCHAR);
    if (!image) {
        free(pixels);
        return -1;
    }
    g_signal_connect(image, "postclose", G_CALLBACK(cvips_free_adopted), pixels);
    /* Header and metadata as render_here copies them (vips__image_copy_fields_array): no pipeline link to header. */
    VipsImage *fields[] = {header, NULL};
    if (vips__image_copy_fields_array(image, fields)) {
        g_object_unref(image);
        return -1;
    }
    *out = image;
    return 0;
}

int cvips_copy(VipsImage *in, VipsImage **out) { return vips_copy(in, out, NULL); }
int cvips_copy_memory(VipsImage *in, VipsImage **out) {
    VipsImage *image = vips_image_copy_memory(in);
    if (!image) return -1;
    *out = image;
    return 0;
}
int cvips_render_here(VipsImage *in, VipsImage **out) {
    switch (in->dtype) {
    case VIPS_IMAGE_SETBUF:
    case VIPS_IMAGE_SETBUF_FOREIGN:
    case VIPS_IMAGE_MMAPIN:
    case VIPS_IMAGE_MMAPINRW:
        g_object_ref(in);
        *out = in;
        return 0;
    default:
        break;
    }
    if (vips_image_pio_input(in)) return -1;
    /* The memory image gets in's header and metadata (vips__image_copy_fields_array, from vips/private.h: what
     * vips_image_pipelinev copies, without parsing an EXIF block again), not a pipeline link to it: pipelinev would
     * also give it in's reorder table, raw pointers to in's source images that outlive those images once in is
     * freed, and the encoder that later reads this image followed them and crashed (vips_image_write clears that
     * table with an internal call after writing to memory). */
    VipsImage *memory = vips_image_new_memory();
    VipsImage *fields[] = {in, NULL};
    if (vips__image_copy_fields_array(memory, fields) || vips_image_write_prepare(memory)) {
        g_object_unref(memory);
        return -1;
    }
    int tile_width, tile_height, lines;
    vips_get_tile_size(in, &tile_width, &tile_height, &lines);
    VipsRegion *source = vips_region_new(in);
    VipsRegion *target = vips_region_new(memory);
    int status = 0;
    for (int top = 0; status == 0 && top < in->Ysize; top += lines) {
        VipsRect strip = {0, top, in->Xsize, VIPS_MIN(lines, in->Ysize - top)};
        if (vips_region_image(target, &strip) || vips_region_prepare_to(source, target, &strip, 0, top)) status = -1;
    }
    g_object_unref(source);
    g_object_unref(target);
    if (status) {
        g_object_unref(memory);
        return -1;
    }
    *out = memory;
    return 0;
}
const void *cvips_memory_pixels(VipsImage *image) {
    switch (image->dtype) {
    case VIPS_IMAGE_SETBUF:
    case VIPS_IMAGE_SETBUF_FOREIGN:
        return VIPS_IMAGE_ADDR(image, 0, 0);
    default:
        return NULL;
    }
}
int cvips_autorot(VipsImage *in, VipsImage **out) { return vips_autorot(in, out, NULL); }
int cvips_icc_to_srgb_depth(VipsImage *in, int intent, int depth, VipsImage **out) {
    return vips_icc_transform(in, out, "srgb", "embedded", TRUE, "intent", intent, "depth", depth, NULL);
}
int cvips_icc_to_srgb(VipsImage *in, int intent, VipsImage **out) {
    return vips_icc_transform(in, out, "srgb", "embedded", TRUE, "intent", intent, "depth", 8, NULL);
}
int cvips_colourspace(VipsImage *in, int space, VipsImage **out) { return vips_colourspace(in, out, space, NULL); }
int cvips_cast(VipsImage *in, int format, VipsImage **out) { return vips_cast(in, out, (VipsBandFormat)format, NULL); }
int cvips_cast_uchar(VipsImage *in, VipsImage **out) { return vips_cast_uchar(in, out, NULL); }
int cvips_bandjoin_const1(VipsImage *in, double value, VipsImage **out) {
    return vips_bandjoin_const1(in, out, value, NULL);
}
int cvips_bandjoin2(VipsImage *a, VipsImage *b, VipsImage **out) { return vips_bandjoin2(a, b, out, NULL); }
int cvips_extract_band(VipsImage *in, int band, int n, VipsImage **out) {
    return vips_extract_band(in, out, band, "n", n, NULL);
}
int cvips_flatten(VipsImage *in, double r, double g, double b, VipsImage **out) {
    double background[3] = { r, g, b };
    VipsArrayDouble *array = vips_array_double_new(background, 3);
    int result = vips_flatten(in, out, "background", array, NULL);
    vips_area_unref(VIPS_AREA(array));
    return result;
}
int cvips_resize(VipsImage *in, double hscale, double vscale, VipsImage **out) {
    return vips_resize(in, out, hscale, "vscale", vscale, NULL);
}
int cvips_extract_area(VipsImage *in, int left, int top, int width, int height, VipsImage **out) {
    return vips_extract_area(in, out, left, top, width, height, NULL);
}
int cvips_gaussblur(VipsImage *in, double sigma, VipsImage **out) { return vips_gaussblur(in, out, sigma, NULL); }
int cvips_premultiply(VipsImage *in, VipsImage **out) { return vips_premultiply(in, out, NULL); }
int cvips_unpremultiply(VipsImage *in, VipsImage **out) { return vips_unpremultiply(in, out, NULL); }
int cvips_linear_uchar(VipsImage *in, const double *a, const double *b, int n, VipsImage **out) {
    return vips_linear(in, out, (double *)a, (double *)b, n, "uchar", TRUE, NULL);
}
int cvips_multiply(VipsImage *a, VipsImage *b, VipsImage **out) { return vips_multiply(a, b, out, NULL); }
int cvips_arrayjoin_vertical(VipsImage **in, int n, VipsImage **out) {
    return vips_arrayjoin(in, out, n, "across", 1, NULL);
}
int cvips_avg(VipsImage *in, double *out) { return vips_avg(in, out, NULL); }

void cvips_set_int(VipsImage *image, const char *name, int value) { vips_image_set_int(image, name, value); }
void cvips_set_array_int(VipsImage *image, const char *name, const int *values, int n) {
    vips_image_set_array_int(image, name, values, n);
}
void cvips_remove(VipsImage *image, const char *name) { vips_image_remove(image, name); }
char **cvips_field_names(VipsImage *image) { return vips_image_get_fields(image); }
void cvips_strfreev(char **names) { g_strfreev(names); }

int cvips_save_buffer(int saver, VipsImage *in, int quality, int effort, int strip, int interlace,
                      int palette_bitdepth, void **buf, size_t *len) {
    switch (saver) {
    case CVIPS_SAVER_JPEG:
        return vips_jpegsave_buffer(in, buf, len, "Q", quality, "strip", strip, "optimize_coding", TRUE,
                                    "interlace", interlace, NULL);
    case CVIPS_SAVER_PNG:
        if (palette_bitdepth > 0)
            return vips_pngsave_buffer(in, buf, len, "strip", strip, "compression", 6, "interlace", interlace,
                                       "filter", VIPS_FOREIGN_PNG_FILTER_NONE, "palette", TRUE,
                                       "bitdepth", palette_bitdepth, NULL);
        return vips_pngsave_buffer(in, buf, len, "strip", strip, "compression", 6, "interlace", interlace, NULL);
    case CVIPS_SAVER_WEBP:
        if (effort >= 0) return vips_webpsave_buffer(in, buf, len, "Q", quality, "strip", strip, "effort", effort, NULL);
        return vips_webpsave_buffer(in, buf, len, "Q", quality, "strip", strip, NULL);
    case CVIPS_SAVER_AVIF:
    case CVIPS_SAVER_HEIC: {
        VipsForeignHeifCompression compression =
            saver == CVIPS_SAVER_AVIF ? VIPS_FOREIGN_HEIF_COMPRESSION_AV1 : VIPS_FOREIGN_HEIF_COMPRESSION_HEVC;
        if (effort >= 0)
            return vips_heifsave_buffer(in, buf, len, "Q", quality, "strip", strip, "compression", compression,
                                        "effort", effort, NULL);
        return vips_heifsave_buffer(in, buf, len, "Q", quality, "strip", strip, "compression", compression, NULL);
    }
    case CVIPS_SAVER_GIF:
        if (effort >= 0) return vips_gifsave_buffer(in, buf, len, "strip", strip, "effort", effort, NULL);
        return vips_gifsave_buffer(in, buf, len, "strip", strip, NULL);
    case CVIPS_SAVER_JXL:
        return vips_jxlsave_buffer(in, buf, len, "Q", quality, "effort", effort, "strip", strip, NULL);
    case CVIPS_SAVER_TIFF: return vips_tiffsave_buffer(in, buf, len, "strip", strip, "compression",
                                                      VIPS_FOREIGN_TIFF_COMPRESSION_DEFLATE, NULL);
    default: vips_error("cvips", "unknown saver %d", saver); return -1;
    }
}
void *cvips_write_to_memory(VipsImage *in, size_t *len) { return vips_image_write_to_memory(in, len); }
int cvips_vipssave(VipsImage *in, const char *path) { return vips_vipssave(in, path, NULL); }
int cvips_vipsload(const char *path, VipsImage **out) { return vips_vipsload(path, out, NULL); }

int cvips_rot(VipsImage *in, int angle, VipsImage **out) {
    VipsAngle a = angle == 90 ? VIPS_ANGLE_D90 : angle == 180 ? VIPS_ANGLE_D180 : angle == 270 ? VIPS_ANGLE_D270 : VIPS_ANGLE_D0;
    return vips_rot(in, out, a, NULL);
}
int cvips_flip(VipsImage *in, int horizontal, VipsImage **out) {
    return vips_flip(in, out, horizontal ? VIPS_DIRECTION_HORIZONTAL : VIPS_DIRECTION_VERTICAL, NULL);
}
int cvips_embed(VipsImage *in, int x, int y, int width, int height, const double *background, int n, VipsImage **out) {
    VipsArrayDouble *bg = vips_array_double_new(background, n);
    int result = vips_embed(in, out, x, y, width, height, "extend", VIPS_EXTEND_BACKGROUND, "background", bg, NULL);
    vips_area_unref(VIPS_AREA(bg));
    return result;
}
int cvips_embed_mirror(VipsImage *in, int x, int y, int width, int height, VipsImage **out) {
    return vips_embed(in, out, x, y, width, height, "extend", VIPS_EXTEND_MIRROR, NULL);
}
int cvips_smartcrop_attention(VipsImage *in, int width, int height, VipsImage **out) {
    return vips_smartcrop(in, out, width, height, "interesting", VIPS_INTERESTING_ATTENTION, NULL);
}
int cvips_find_trim(VipsImage *in, double threshold, const double *background, int n, int *left, int *top, int *width,
                    int *height) {
    VipsArrayDouble *bg = vips_array_double_new(background, n);
    int result = vips_find_trim(in, left, top, width, height, "threshold", threshold, "background", bg, NULL);
    vips_area_unref(VIPS_AREA(bg));
    return result;
}
int cvips_sharpen(VipsImage *in, double sigma, VipsImage **out) { return vips_sharpen(in, out, "sigma", sigma, NULL); }
int cvips_shrink(VipsImage *in, double factor, VipsImage **out) { return vips_shrink(in, out, factor, factor, NULL); }
int cvips_zoom(VipsImage *in, int factor, VipsImage **out) { return vips_zoom(in, out, factor, factor, NULL); }
int cvips_composite_over(VipsImage *base, VipsImage *overlay, int x, int y, VipsImage **out) {
    return vips_composite2(base, overlay, out, VIPS_BLEND_MODE_OVER, "x", x, "y", y, NULL);
}
int cvips_linear(VipsImage *in, const double *a, const double *b, int n, VipsImage **out) {
    return vips_linear(in, out, (double *)a, (double *)b, n, NULL);
}
int cvips_recomb(VipsImage *in, const double *matrix, int rows, int cols, VipsImage **out) {
    VipsImage *m = vips_image_new_matrix_from_array(cols, rows, matrix, rows * cols);
    if (!m) return -1;
    int status = vips_recomb(in, out, m, NULL);
    g_object_unref(m);
    return status;
}
int cvips_conv(VipsImage *in, const double *matrix, int cols, int rows, VipsImage **out) {
    VipsImage *m = vips_image_new_matrix_from_array(cols, rows, matrix, cols * rows);
    if (!m) return -1;
    int status = vips_conv(in, out, m, "precision", VIPS_PRECISION_FLOAT, NULL);
    g_object_unref(m);
    return status;
}
int cvips_hist_equal(VipsImage *in, VipsImage **out) { return vips_hist_equal(in, out, NULL); }
int cvips_replicate(VipsImage *in, int across, int down, VipsImage **out) {
    return vips_replicate(in, out, across, down, NULL);
}
int cvips_load_webp_pages(const void *buf, size_t len, int fail_on, VipsImage **out) {
    return vips_webpload_buffer((void *)buf, len, out, "n", -1, "fail_on", fail_on, NULL);
}
int cvips_get_array_int(VipsImage *image, const char *name, int **out, int *n) {
    if (!vips_image_get_typeof(image, name)) return -1;
    return vips_image_get_array_int(image, name, out, n);
}

/* The helper processes (Engine/Helper/): prctl is variadic, and closefrom is a GNU extension. */
int cvips_prctl(int option, unsigned long arg) { return prctl(option, arg, 0UL, 0UL, 0UL); }
int cvips_spawn_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}
int cvips_set_rlimits(unsigned long cpu_soft, unsigned long cpu_hard, unsigned long address_space) {
    rlim_t space = address_space ? address_space : RLIM_INFINITY;
    struct rlimit cpu = {cpu_soft, cpu_hard}, as = {space, space};
    if (setrlimit(RLIMIT_CPU, &cpu) != 0) return -1;
    return setrlimit(RLIMIT_AS, &as);
}
int cvips_set_no_core_files(void) {
    struct rlimit core = {0, 0};
    return setrlimit(RLIMIT_CORE, &core);
}
int cvips_under_sanitizer(void) {
    return dlsym(RTLD_DEFAULT, "__asan_init") != NULL || dlsym(RTLD_DEFAULT, "__tsan_init") != NULL;
}
int cvips_schedule_idle(void) {
    struct sched_param none = {0};
    if (sched_getscheduler(0) == SCHED_IDLE || sched_setscheduler(0, SCHED_IDLE, &none) == 0) return 0;
    return setpriority(PRIO_PROCESS, 0, 19) == 0 ? 1 : 2;
}
int cvips_spawn_idle(posix_spawnattr_t *attributes) {
    struct sched_param none = {0};
    short flags = 0;
    if (posix_spawnattr_getflags(attributes, &flags) != 0 || posix_spawnattr_setschedparam(attributes, &none) != 0 ||
        posix_spawnattr_setschedpolicy(attributes, SCHED_IDLE) != 0)
        return -1;
    return posix_spawnattr_setflags(attributes, flags | POSIX_SPAWN_SETSCHEDULER);
}
