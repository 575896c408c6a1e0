// CJpeg: libjpeg's compressor into a growing buffer of ours, errors kept per call (error_exit longjmps back here with
// the message; warnings are dropped, as libvips drops them), and its decompressor into pixels of the caller's, which
// gives up at the first warning. No policy lives here.
#include "CJpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>
#include <jerror.h>

struct cjpeg_error {
    struct jpeg_error_mgr pub;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
};

static void cjpeg_error_exit(j_common_ptr cinfo) {
    struct cjpeg_error *error = (struct cjpeg_error *)cinfo->err;
    (*cinfo->err->format_message)(cinfo, error->message);
    longjmp(error->jump, 1);
}

static void cjpeg_output_message(j_common_ptr cinfo) { (void)cinfo; }

/* A growing buffer we own at every moment (libjpeg's jpeg_mem_dest frees and replaces its buffer as it grows and
 * hands the last one out only at the end, so after an error midway neither pointer is safe to free). */
struct cjpeg_destination {
    struct jpeg_destination_mgr pub;
    unsigned char *buffer;
    size_t capacity;
};

static void cjpeg_init_destination(j_compress_ptr cinfo) {
    struct cjpeg_destination *dest = (struct cjpeg_destination *)cinfo->dest;
    dest->pub.next_output_byte = dest->buffer;
    dest->pub.free_in_buffer = dest->capacity;
}

static boolean cjpeg_empty_output_buffer(j_compress_ptr cinfo) {
    struct cjpeg_destination *dest = (struct cjpeg_destination *)cinfo->dest;
    /* Called when the buffer is full (free_in_buffer is 0): double it. */
    size_t grown = dest->capacity * 2;
    unsigned char *buffer = realloc(dest->buffer, grown);
    if (!buffer) ERREXIT1(cinfo, JERR_OUT_OF_MEMORY, 10);
    dest->pub.next_output_byte = buffer + dest->capacity;
    dest->pub.free_in_buffer = grown - dest->capacity;
    dest->buffer = buffer;
    dest->capacity = grown;
    return TRUE;
}

static void cjpeg_term_destination(j_compress_ptr cinfo) { (void)cinfo; }

int cjpeg_encode(const unsigned char *pixels, int width, int height, int components, size_t stride, int quality,
                 int subsample, int optimize_coding, unsigned char **out, size_t *length, char *error,
                 size_t error_size) {
    struct jpeg_compress_struct cinfo;
    struct cjpeg_error jerr;
    /* On the heap and reached through a pointer set before setjmp: what libjpeg changes in it stays readable after
     * the longjmp (a local struct changed after setjmp would be indeterminate there). */
    struct cjpeg_destination *dest;

    if (error_size > 0) error[0] = '\0';
    if (components != 1 && components != 3) {
        if (error_size > 0) snprintf(error, error_size, "%d bands: only 1 or 3 can be written", components);
        return -1;
    }
    if (width <= 0 || height <= 0) {
        if (error_size > 0) snprintf(error, error_size, "empty image (%d x %d)", width, height);
        return -1;
    }
    dest = calloc(1, sizeof *dest);
    /* A quarter of the raw pixels holds a typical result at web qualities; it doubles when it does not. */
    if (dest) dest->capacity = (size_t)width * (size_t)height * (size_t)components / 4 + 4096;
    if (!dest || !(dest->buffer = malloc(dest->capacity))) {
        free(dest);
        if (error_size > 0) snprintf(error, error_size, "out of memory");
        return -1;
    }
    dest->pub.init_destination = cjpeg_init_destination;
    dest->pub.empty_output_buffer = cjpeg_empty_output_buffer;
    dest->pub.term_destination = cjpeg_term_destination;
    memset(&jerr, 0, sizeof jerr);
    cinfo.err = jpeg_std_error(&jerr.pub);
    jerr.pub.error_exit = cjpeg_error_exit;
    jerr.pub.output_message = cjpeg_output_message;
    if (setjmp(jerr.jump)) {
        if (error_size > 0) snprintf(error, error_size, "%s", jerr.message);
        jpeg_destroy_compress(&cinfo);
        free(dest->buffer);
        free(dest);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    cinfo.dest = &dest->pub;
    cinfo.image_width = (JDIMENSION)width;
    cinfo.image_height = (JDIMENSION)height;
    cinfo.input_components = components;
    cinfo.in_color_space = components == 3 ? JCS_RGB : JCS_GRAYSCALE;
    jpeg_set_defaults(&cinfo);
    cinfo.optimize_coding = optimize_coding ? TRUE : FALSE;
    jpeg_set_quality(&cinfo, quality, TRUE);
    if (!subsample) {
        for (int i = 0; i < cinfo.num_components; i++) {
            cinfo.comp_info[i].h_samp_factor = 1;
            cinfo.comp_info[i].v_samp_factor = 1;
        }
    }
    cinfo.write_JFIF_header = FALSE;
    jpeg_start_compress(&cinfo, TRUE);
    while (cinfo.next_scanline < cinfo.image_height) {
        JSAMPROW rows[16];
        JDIMENSION n = 0;
        while (n < 16 && cinfo.next_scanline + n < cinfo.image_height) {
            rows[n] = (JSAMPROW)(pixels + (size_t)(cinfo.next_scanline + n) * stride);
            n++;
        }
        jpeg_write_scanlines(&cinfo, rows, n);
    }
    jpeg_finish_compress(&cinfo);
    *length = dest->capacity - dest->pub.free_in_buffer;
    jpeg_destroy_compress(&cinfo);
    *out = dest->buffer;
    free(dest);
    return 0;
}

/* Decoding: any warning ends the decode (emit_message with a negative level), as does an error; both longjmp. */
static void cjpeg_decode_error_exit(j_common_ptr cinfo) { longjmp(((struct cjpeg_error *)cinfo->err)->jump, 1); }

static void cjpeg_decode_emit_message(j_common_ptr cinfo, int level) {
    if (level < 0) longjmp(((struct cjpeg_error *)cinfo->err)->jump, 1);
}

int cjpeg_decode(const unsigned char *data, size_t length, int shrink, int components, unsigned char *pixels,
                 int width, int height, size_t stride) {
    struct jpeg_decompress_struct cinfo;
    struct cjpeg_error jerr;

    if (!data || length == 0 || (components != 1 && components != 3) || width <= 0 || height <= 0) return 1;
    if (shrink != 1 && shrink != 2 && shrink != 4 && shrink != 8) return 1;
    /* One row of libjpeg's output when it is a column wider than the caller's (see below); allocated before setjmp,
     * so the pointer the error path frees is never changed after it. */
    unsigned char *const scratch = malloc(((size_t)width + 1) * (size_t)components);
    if (!scratch) return 1;
    memset(&jerr, 0, sizeof jerr);
    cinfo.err = jpeg_std_error(&jerr.pub);
    jerr.pub.error_exit = cjpeg_decode_error_exit;
    jerr.pub.emit_message = cjpeg_decode_emit_message;
    jerr.pub.output_message = cjpeg_output_message;
    if (setjmp(jerr.jump)) {
        free(scratch);
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    jpeg_create_decompress(&cinfo);
    jpeg_mem_src(&cinfo, data, (unsigned long)length);
    jpeg_read_header(&cinfo, TRUE);
    int colour = components == 3 ? cinfo.jpeg_color_space == JCS_YCbCr : cinfo.jpeg_color_space == JCS_GRAYSCALE;
    if (!colour || cinfo.num_components != components) {
        free(scratch);
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    cinfo.out_color_space = components == 3 ? JCS_RGB : JCS_GRAYSCALE;
    cinfo.scale_num = 1;
    cinfo.scale_denom = (unsigned int)shrink;
    jpeg_start_decompress(&cinfo);
    /* libvips' loader gives floor(side / shrink) where libjpeg decodes ceil(side / shrink): the last column and row
     * of libjpeg's output are then dropped, as libvips drops them. */
    int wide = (int)cinfo.output_width, tall = (int)cinfo.output_height;
    if (wide < width || wide > width + 1 || tall < height || tall > height + 1 ||
        cinfo.output_components != components) {
        free(scratch);
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    /* Rows go straight into pixels when libjpeg's width is the caller's, else through the scratch row. */
    int through = wide != width;
    while ((int)cinfo.output_scanline < height) {
        JSAMPROW rows[16];
        JDIMENSION n = 0, first = cinfo.output_scanline;
        if (through) {
            rows[0] = scratch;
            n = 1;
        } else {
            while (n < 16 && (int)(first + n) < height) {
                rows[n] = (JSAMPROW)(pixels + (size_t)(first + n) * stride);
                n++;
            }
        }
        JDIMENSION read = jpeg_read_scanlines(&cinfo, rows, n);
        if (read == 0) break; /* cannot happen with a memory source; never spin */
        if (through && read == 1) memcpy(pixels + (size_t)first * stride, scratch, (size_t)width * components);
    }
    free(scratch);
    if ((int)cinfo.output_scanline < height) {
        jpeg_destroy_decompress(&cinfo);
        return 1;
    }
    /* Not jpeg_finish_decompress: it reads on to the EOI marker, which libvips' loader does not ask for either. */
    jpeg_destroy_decompress(&cinfo);
    return 0;
}

void cjpeg_free(void *buffer) { free(buffer); }
