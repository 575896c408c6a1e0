// CVips: typed, non-variadic entry points for the libvips calls DWWebImageProcessing makes.
// Every function is a thin forward (return 0 on success, -1 with libvips' error buffer set); which loader, which
// limits and which options to use is decided in Swift. libvips stays opaque to Swift: no glib types cross here.
#ifndef DW_CVIPS_H
#define DW_CVIPS_H

#include <stddef.h>

typedef struct _VipsImage VipsImage;

/* Start-up (call once; vips_init is not re-entrant the first time) and global settings. */
int cvips_init(const char *_Nonnull argv0);
void cvips_block_untrusted(int block);
/* vips_operation_block_set: block (1) or allow (0) an operation class and its subclasses by name. */
void cvips_operation_block_set(const char *_Nonnull name, int block);
void cvips_concurrency_set(int threads);
void cvips_cache_set(int max_operations, size_t max_memory, int max_files);
/* libvips' tracked memory: bytes allocated now, the most ever, and the allocations live now. */
size_t cvips_tracked_mem(void);
size_t cvips_tracked_mem_highwater(void);
int cvips_tracked_allocs(void);
/* Loads one libvips module (a loader plugin such as vips-heif.so), as vips_init does for its module directory;
 * 0 on success. */
int cvips_load_module(const char *_Nonnull path);
/* The file libvips itself was loaded from (dladdr), or NULL; free with cvips_free. */
char *_Nullable cvips_library_path(void);
/* Drops libvips' GLib warnings (e.g. "ignoring nclx profile") instead of printing them on stderr. */
/* prctl(option, arg, 0, 0, 0) (prctl is variadic). */
int cvips_prctl(int option, unsigned long arg);
/* posix_spawn_file_actions_addclosefrom_np: every descriptor from `from` up is closed in the child. */
#include <spawn.h>
#include <sys/prctl.h>
int cvips_spawn_closefrom(posix_spawn_file_actions_t *_Nonnull actions, int from);
/* This process's RLIMIT_CPU (seconds, soft and hard) and RLIMIT_AS (bytes, both; 0: unlimited); 0 or -1 with errno. */
int cvips_set_rlimits(unsigned long cpu_soft, unsigned long cpu_hard, unsigned long address_space);
/* RLIMIT_CORE 0 alone (every helper, first thing in the child): no core file; 0 or -1 with errno. */
int cvips_set_no_core_files(void);
/* Whether AddressSanitizer or ThreadSanitizer is linked in (their shadow memory needs terabytes of address space). */
int cvips_under_sanitizer(void);
/* The encode helper (IdleEncodeProcess): puts the calling thread (and every thread it starts later) at SCHED_IDLE
 * unless it already is; where that is refused, at nice 19. 0: SCHED_IDLE, 1: nice 19, 2: neither. */
int cvips_schedule_idle(void);
/* posix_spawn attributes that start the child at SCHED_IDLE (POSIX_SPAWN_SETSCHEDULER added to their flags). */
int cvips_spawn_idle(posix_spawnattr_t *_Nonnull attributes);
void cvips_silence_warnings(void);
const char *_Nonnull cvips_version(void);

/* The error buffer: copied and cleared in one step (NULL when empty); free with cvips_free. */
char *_Nullable cvips_error_take(void);
void cvips_free(void *_Nullable p);
void cvips_unref(VipsImage *_Nullable image);
/* vips_image_set_kill: a non-zero kill makes the next evaluation of a region of `image` fail ("killed"). */
void cvips_set_kill(VipsImage *_Nonnull image, int kill);

/* Header facts. */
int cvips_width(VipsImage *_Nonnull image);
int cvips_height(VipsImage *_Nonnull image);
int cvips_bands(VipsImage *_Nonnull image);
int cvips_band_format(VipsImage *_Nonnull image);   /* VipsBandFormat: 0 = uchar */
int cvips_interpretation(VipsImage *_Nonnull image);
int cvips_has_alpha(VipsImage *_Nonnull image);
int cvips_has_icc(VipsImage *_Nonnull image);
/* An int header field; 0 when present, -1 when absent. */
int cvips_get_int(VipsImage *_Nonnull image, const char *_Nonnull name, int *_Nonnull out);

/* Loaders (the buffer must outlive the image: libvips does not copy it). */
enum {
    CVIPS_LOADER_JPEG = 0,
    CVIPS_LOADER_PNG = 1,
    CVIPS_LOADER_WEBP = 2,
    CVIPS_LOADER_TIFF = 3,
    CVIPS_LOADER_HEIF = 4,
    CVIPS_LOADER_GIF = 5,
    CVIPS_LOADER_JXL = 7,
    /* PBM, PGM, PPM, PFM (libvips' ppmload, from a memory source) */
    CVIPS_LOADER_PPM = 8,
    /* JPEG 2000, JP2 file or bare codestream (libvips' jp2kload, OpenJPEG) */
    CVIPS_LOADER_JP2K = 9,
    /* FITS (libvips' fitsload, cfitsio): from a private unnamed temporary file, decoded into memory at once */
    CVIPS_LOADER_FITS = 10,
};
/* fail_on: VipsFailOn (0 none, 1 truncated, 2 error, 3 warning); unlimited applies to PNG (and HEIF) only. */
int cvips_load_buffer(int loader, const void *_Nonnull buf, size_t len, int fail_on, int sequential,
                      int unlimited, VipsImage *_Nullable *_Nonnull out);
/* Replaces every blob on `image` (EXIF, XMP, ICC, …) with a copy the blob owns. */
void cvips_own_blobs(VipsImage *_Nonnull image);
/* vips_heifload_buffer with thumbnail=TRUE: the embedded thumbnail (the primary image when there is none). */
int cvips_heifload_thumbnail_buffer(const void *_Nonnull buf, size_t len, int fail_on, VipsImage *_Nullable *_Nonnull out);
/* vips_svgload_buffer (librsvg) at `scale` and `dpi`, unlimited off (librsvg's XML limits stay), sequential access;
   a buffer has no base URL, so librsvg resolves no external reference (only data: URLs). */
int cvips_svgload_buffer(const void *_Nonnull buf, size_t len, double scale, double dpi,
                         VipsImage *_Nullable *_Nonnull out);
/* vips_jpegload_buffer with libjpeg's DCT scaling (shrink 1, 2, 4 or 8), sequential access. */
int cvips_jpegload_shrink_buffer(const void *_Nonnull buf, size_t len, int shrink, int fail_on, int sequential,
                                 VipsImage *_Nullable *_Nonnull out);
/* vips_thumbnail_buffer: size is VipsSize (0 both, 1 up, 2 down, 3 force), crop VipsInteresting (0 none, 1 centre). */
int cvips_thumbnail_buffer(const void *_Nonnull buf, size_t len, int width, int height, int size, int crop,
                           int fail_on, const char *_Nullable option_string, VipsImage *_Nullable *_Nonnull out);
int cvips_thumbnail_image(VipsImage *_Nonnull in, int width, int height, int size, int crop,
                          VipsImage *_Nullable *_Nonnull out);
/* A new image holding a copy of width × height × bands uchar pixels. */
int cvips_from_memory(const void *_Nonnull pixels, size_t len, int width, int height, int bands,
                      VipsImage *_Nullable *_Nonnull out);

/* An image over `pixels` (malloc'd, `len` bytes: `header`'s size, bands and uchar format, rows packed), with
 * `header`'s header fields and metadata, as if `header`'s own loader had decoded them; the image owns `pixels` from
 * here on (freed when it closes, on success or failure). */
int cvips_adopt_pixels(VipsImage *_Nonnull header, void *_Nonnull pixels, size_t len, VipsImage *_Nullable *_Nonnull out);

/* Operations. */
int cvips_copy(VipsImage *_Nonnull in, VipsImage *_Nullable *_Nonnull out);
/* Computes the pipeline into a new memory image. */
int cvips_copy_memory(VipsImage *_Nonnull in, VipsImage *_Nullable *_Nonnull out);
/* `in` computed into a new memory image on the calling thread, strip by strip from the top (the strips libvips'
 * thread pool would hand its workers), without starting a thread; an image already in memory is returned as is
 * (one more reference), as vips_image_copy_memory does. */
int cvips_render_here(VipsImage *_Nonnull in, VipsImage *_Nullable *_Nonnull out);
/* The first pixel of an image whose pixels are in memory (rows VIPS_IMAGE_SIZEOF_LINE apart), NULL for any other
 * (a pipeline, a file), which this never computes. */
const void *_Nullable cvips_memory_pixels(VipsImage *_Nonnull image);
int cvips_autorot(VipsImage *_Nonnull in, VipsImage *_Nullable *_Nonnull out);
/* vips_icc_transform to the built-in sRGB profile from the embedded one (intent: VipsIntent). */
/* vips_icc_transform to sRGB at `depth` bits (8 or 16), as cvips_icc_to_srgb. */
int cvips_icc_to_srgb_depth(VipsImage *_Nonnull in, int intent, int depth, VipsImage *_Nullable *_Nonnull out);
int cvips_icc_to_srgb(VipsImage *_Nonnull in, int intent, VipsImage *_Nullable *_Nonnull out);
/* vips_colourspace; space is VipsInterpretation (22 sRGB, 26 B_W). */
int cvips_colourspace(VipsImage *_Nonnull in, int space, VipsImage *_Nullable *_Nonnull out);
/* vips_cast to a VipsBandFormat (0 uchar, 2 ushort…), clipping. */
int cvips_cast(VipsImage *_Nonnull in, int format, VipsImage *_Nullable *_Nonnull out);
int cvips_cast_uchar(VipsImage *_Nonnull in, VipsImage *_Nullable *_Nonnull out);
int cvips_bandjoin_const1(VipsImage *_Nonnull in, double value, VipsImage *_Nullable *_Nonnull out);
int cvips_bandjoin2(VipsImage *_Nonnull a, VipsImage *_Nonnull b, VipsImage *_Nullable *_Nonnull out);
int cvips_extract_band(VipsImage *_Nonnull in, int band, int n, VipsImage *_Nullable *_Nonnull out);
int cvips_flatten(VipsImage *_Nonnull in, double r, double g, double b, VipsImage *_Nullable *_Nonnull out);
/* vips_resize with kernel lanczos3 (the default). */
int cvips_resize(VipsImage *_Nonnull in, double hscale, double vscale, VipsImage *_Nullable *_Nonnull out);
int cvips_extract_area(VipsImage *_Nonnull in, int left, int top, int width, int height,
                       VipsImage *_Nullable *_Nonnull out);
int cvips_gaussblur(VipsImage *_Nonnull in, double sigma, VipsImage *_Nullable *_Nonnull out);
int cvips_premultiply(VipsImage *_Nonnull in, VipsImage *_Nullable *_Nonnull out);
int cvips_unpremultiply(VipsImage *_Nonnull in, VipsImage *_Nullable *_Nonnull out);
/* out = in × a + b, per band (n = 1 or bands), uchar output. */
int cvips_linear_uchar(VipsImage *_Nonnull in, const double *_Nonnull a, const double *_Nonnull b, int n,
                       VipsImage *_Nullable *_Nonnull out);
int cvips_multiply(VipsImage *_Nonnull a, VipsImage *_Nonnull b, VipsImage *_Nullable *_Nonnull out);
/* Stacks n images top to bottom (one column). */
int cvips_arrayjoin_vertical(VipsImage *_Nonnull *_Nonnull in, int n, VipsImage *_Nullable *_Nonnull out);
/* The mean of every band of every pixel: forces a full decode. */
int cvips_avg(VipsImage *_Nonnull in, double *_Nonnull out);

/* Metadata for animated saves (set on the image itself: give it a private copy). */
void cvips_set_int(VipsImage *_Nonnull image, const char *_Nonnull name, int value);
void cvips_set_array_int(VipsImage *_Nonnull image, const char *_Nonnull name, const int *_Nonnull values, int n);
void cvips_remove(VipsImage *_Nonnull image, const char *_Nonnull name);
/* vips_image_get_fields: every field name, NULL-terminated; free with cvips_strfreev. */
char *_Nullable *_Nonnull cvips_field_names(VipsImage *_Nonnull image);
void cvips_strfreev(char *_Nullable *_Nonnull names);

/* Savers. quality is used by the lossy ones; effort by WebP, HEIF and GIF (-1: libvips' default). */
enum {
    CVIPS_SAVER_JPEG = 0,
    CVIPS_SAVER_PNG = 1,
    CVIPS_SAVER_WEBP = 2,
    CVIPS_SAVER_AVIF = 3,
    CVIPS_SAVER_HEIC = 4,
    CVIPS_SAVER_GIF = 5,
    CVIPS_SAVER_TIFF = 6,
    CVIPS_SAVER_JXL = 7,
};
/* strip: 1 drops every metadata block, 0 writes the image's metadata fields. effort: the saver's (-1: libvips'
 * default). interlace: progressive JPEG or Adam7 PNG. palette_bitdepth: a PNG quantised to a palette of this many
 * bits (1, 2, 4 or 8; 0: no palette). Free *buf with cvips_free. */
int cvips_save_buffer(int saver, VipsImage *_Nonnull in, int quality, int effort, int strip, int interlace,
                      int palette_bitdepth, void *_Nullable *_Nonnull buf, size_t *_Nonnull len);
/* The pixels, computed, packed (width × height × bands × sizeof(format)); NULL on failure. Free with cvips_free. */
void *_Nullable cvips_write_to_memory(VipsImage *_Nonnull in, size_t *_Nonnull len);
/* libvips' own format (every pixel and metadata field) to and from a file; the save needs a `.v` name, the load
 * does not (the encode helper reads /proc/self/fd/3). */
int cvips_vipssave(VipsImage *_Nonnull in, const char *_Nonnull path);
int cvips_vipsload(const char *_Nonnull path, VipsImage *_Nullable *_Nonnull out);

/* Geometry and filters for imgproxy's pipeline (ImgproxyStage). */
/* angle: 90, 180 or 270 clockwise. */
int cvips_rot(VipsImage *_Nonnull in, int angle, VipsImage *_Nullable *_Nonnull out);
/* horizontal: 1 mirrors left-right, 0 top-bottom. */
int cvips_flip(VipsImage *_Nonnull in, int horizontal, VipsImage *_Nullable *_Nonnull out);
/* Places in at (x, y) of a width × height canvas filled with background (n values, one per band). */
int cvips_embed(VipsImage *_Nonnull in, int x, int y, int width, int height, const double *_Nonnull background,
                int n, VipsImage *_Nullable *_Nonnull out);
/* Places in at (x, y) of a width × height canvas whose new pixels mirror the image's edge (VIPS_EXTEND_MIRROR). */
int cvips_embed_mirror(VipsImage *_Nonnull in, int x, int y, int width, int height, VipsImage *_Nullable *_Nonnull out);
/* libvips' smartcrop with VIPS_INTERESTING_ATTENTION. */
int cvips_smartcrop_attention(VipsImage *_Nonnull in, int width, int height, VipsImage *_Nullable *_Nonnull out);
/* The box of pixels that differ from background (n values) by more than threshold. */
int cvips_find_trim(VipsImage *_Nonnull in, double threshold, const double *_Nonnull background, int n,
                    int *_Nonnull left, int *_Nonnull top, int *_Nonnull width, int *_Nonnull height);
int cvips_sharpen(VipsImage *_Nonnull in, double sigma, VipsImage *_Nullable *_Nonnull out);
/* Integer block shrink and nearest-neighbour zoom (pixelate). */
int cvips_shrink(VipsImage *_Nonnull in, double factor, VipsImage *_Nullable *_Nonnull out);
int cvips_zoom(VipsImage *_Nonnull in, int factor, VipsImage *_Nullable *_Nonnull out);
/* overlay over base at (x, y), "over" blending. */
int cvips_composite_over(VipsImage *_Nonnull base, VipsImage *_Nonnull overlay, int x, int y,
                         VipsImage *_Nullable *_Nonnull out);
/* vips_linear to float (no cast). */
int cvips_linear(VipsImage *_Nonnull in, const double *_Nonnull a, const double *_Nonnull b, int n,
                 VipsImage *_Nullable *_Nonnull out);
/* out = matrix × in per pixel (vips_recomb): `rows` output bands from `cols` input bands, float output. */
int cvips_recomb(VipsImage *_Nonnull in, const double *_Nonnull matrix, int rows, int cols,
                 VipsImage *_Nullable *_Nonnull out);
/* Convolution by a `cols` × `rows` matrix (row-major), float precision, edges extended by copying (vips_conv). */
int cvips_conv(VipsImage *_Nonnull in, const double *_Nonnull matrix, int cols, int rows,
               VipsImage *_Nullable *_Nonnull out);
/* Histogram equalisation, each band on its own (vips_hist_equal). */
int cvips_hist_equal(VipsImage *_Nonnull in, VipsImage *_Nullable *_Nonnull out);
/* Copies in tiled replicas across a width × height canvas. */
int cvips_replicate(VipsImage *_Nonnull in, int across, int down, VipsImage *_Nullable *_Nonnull out);

/* Every page of an animated WebP as one tall image ("n" = -1), with page-height, delay and loop set. */
int cvips_load_webp_pages(const void *_Nonnull buf, size_t len, int fail_on, VipsImage *_Nullable *_Nonnull out);
/* An int-array header field (borrowed: valid while image lives); -1 when absent. */
int cvips_get_array_int(VipsImage *_Nonnull image, const char *_Nonnull name, int *_Nullable *_Nonnull out,
                        int *_Nonnull n);

#endif
