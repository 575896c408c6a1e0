// jpeg_floor.c (bench/serve/jpeg-floor): libjpeg's own cost for one cold serve transform, with nothing else —
// the 2048×1536 source decoded at 1/4 scale (the shrink-on-load both serve and thumbor's Pillow `draft` use), then
// the 512×384 result compressed at Q 80 with optimised Huffman tables: baseline (serve's and libvips' choice) or
// progressive (thumbor's default). Prints the medians over the files, in CPU milliseconds.
#include <stdio.h>  // before jpeglib.h, which uses FILE and size_t
#include <stdlib.h>
#include <time.h>

#include <jpeglib.h>

static double cpu_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int compare(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n) {
    qsort(v, n, sizeof *v, compare);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: jpeg_floor ROUNDS FILE...\n"); return 2; }
    int rounds = atoi(argv[1]), files = argc - 2, n = 0;
    double *dec = calloc((size_t)rounds * files, sizeof(double));
    double *base = calloc((size_t)rounds * files, sizeof(double));
    double *prog = calloc((size_t)rounds * files, sizeof(double));
    for (int r = 0; r < rounds; r++) {
        for (int f = 0; f < files; f++, n++) {
            FILE *in = fopen(argv[2 + f], "rb");
            if (!in) { perror(argv[2 + f]); return 1; }
            fseek(in, 0, SEEK_END);
            long size = ftell(in);
            fseek(in, 0, SEEK_SET);
            unsigned char *source = malloc(size);
            if (fread(source, 1, size, in) != (size_t)size) { perror("read"); return 1; }
            fclose(in);

            double t0 = cpu_ms();
            struct jpeg_decompress_struct d;
            struct jpeg_error_mgr derr;
            d.err = jpeg_std_error(&derr);
            jpeg_create_decompress(&d);
            jpeg_mem_src(&d, source, size);
            jpeg_read_header(&d, TRUE);
            d.scale_num = 1;
            d.scale_denom = 4;
            d.out_color_space = JCS_RGB;
            jpeg_start_decompress(&d);
            int w = d.output_width, h = d.output_height;
            unsigned char *pixels = malloc((size_t)w * h * 3);
            while (d.output_scanline < d.output_height) {
                JSAMPROW row = pixels + (size_t)d.output_scanline * w * 3;
                jpeg_read_scanlines(&d, &row, 1);
            }
            jpeg_finish_decompress(&d);
            jpeg_destroy_decompress(&d);
            dec[n] = cpu_ms() - t0;

            for (int progressive = 0; progressive < 2; progressive++) {
                double t1 = cpu_ms();
                struct jpeg_compress_struct c;
                struct jpeg_error_mgr cerr;
                c.err = jpeg_std_error(&cerr);
                jpeg_create_compress(&c);
                unsigned char *out = NULL;
                unsigned long out_size = 0;
                jpeg_mem_dest(&c, &out, &out_size);
                c.image_width = w;
                c.image_height = h;
                c.input_components = 3;
                c.in_color_space = JCS_RGB;
                jpeg_set_defaults(&c);
                jpeg_set_quality(&c, 80, TRUE);
                c.optimize_coding = TRUE;
                if (progressive) jpeg_simple_progression(&c);
                jpeg_start_compress(&c, TRUE);
                while (c.next_scanline < c.image_height) {
                    JSAMPROW row = pixels + (size_t)c.next_scanline * w * 3;
                    jpeg_write_scanlines(&c, &row, 1);
                }
                jpeg_finish_compress(&c);
                jpeg_destroy_compress(&c);
                free(out);
                (progressive ? prog : base)[n] = cpu_ms() - t1;
            }
            free(pixels);
            free(source);
        }
    }
    double md = median(dec, n), mb = median(base, n), mp = median(prog, n);
    printf("%.2f %.2f %.2f %.2f %.2f %d\n", md, mb, mp, md + mb, md + mp, n);
    return 0;
}
