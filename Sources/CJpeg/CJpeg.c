// CJpeg: libjpeg's compressor into memory (jpeg_mem_dest), errors kept per call (error_exit longjmps back here with
// the message; warnings are dropped, as libvips drops them). No policy lives here.
#include "CJpeg.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <jpeglib.h>

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

int cjpeg_encode(const unsigned char *pixels, int width, int height, int components, size_t stride, int quality,
                 int subsample, int optimize_coding, unsigned char **out, size_t *length, char *error,
                 size_t error_size) {
    struct jpeg_compress_struct cinfo;
    struct cjpeg_error jerr;
    /* Read after a longjmp: volatile so the value written before it is the one seen. */
    unsigned char *volatile buffer = NULL;
    unsigned long size = 0;

    if (error_size > 0) error[0] = '\0';
    if (components != 1 && components != 3) {
        if (error_size > 0) snprintf(error, error_size, "%d bands: only 1 or 3 can be written", components);
        return -1;
    }
    memset(&jerr, 0, sizeof jerr);
    cinfo.err = jpeg_std_error(&jerr.pub);
    jerr.pub.error_exit = cjpeg_error_exit;
    jerr.pub.output_message = cjpeg_output_message;
    if (setjmp(jerr.jump)) {
        if (error_size > 0) snprintf(error, error_size, "%s", jerr.message);
        jpeg_destroy_compress(&cinfo);
        free(buffer);
        return -1;
    }
    jpeg_create_compress(&cinfo);
    jpeg_mem_dest(&cinfo, (unsigned char **)&buffer, &size);
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
    jpeg_destroy_compress(&cinfo);
    *out = buffer;
    *length = (size_t)size;
    return 0;
}

void cjpeg_free(void *buffer) { free(buffer); }
