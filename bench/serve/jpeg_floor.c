// jpeg_floor.c (bench/serve/jpeg-floor): libjpeg's own cost for one cold serve transform, with nothing else —
// the 2048×1536 source decoded at 1/4 scale (the shrink-on-load both serve and thumbor's Pillow `draft` use), then
// the 512×384 result compressed at Q 80 with optimised Huffman tables: baseline (serve's and libvips' choice) or
// progressive (thumbor's default). Prints the medians over the files, in CPU milliseconds.
//
// With `--disk DIR`, also the file work serve's disk cache does for the same request (as `strace` of a release
// serve shows it, with its cache's own CRC-32C, Sources/CChecksum, linked in): the two lookups that miss (variant and
// source) and the partial-download folder's, then each entry — the 650 KB source and the encoded variant — as
// O_TMPFILE, one writev of header (its CRC-32C of the body) and body, linkat into DIR, close. The kernel's share is in
// the figures: CLOCK_PROCESS_CPUTIME_ID counts system time too.
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>  // before jpeglib.h, which uses FILE and size_t
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <jpeglib.h>

#include "CChecksum.h"

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

static long entries = 0;

// One cache entry as serve writes it: an O_TMPFILE in DIR, header and body in one writev, linked under a
// digest-length name, closed. 0, or -1 on a failed call.
static int write_entry(const char *dir, const unsigned char *body, size_t size) {
    unsigned char header[133];
    memset(header, 7, sizeof header);
    uint32_t crc = dw_crc32c(0, body, size);
    memcpy(header + 24, &crc, sizeof crc);
    int fd = open(dir, O_RDWR | O_TMPFILE | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    struct iovec parts[2] = {{header, sizeof header}, {(void *)body, size}};
    char name[4200];
    long i = entries++;
    snprintf(name, sizeof name, "%s/%08lx%08lx%08lx%08lx", dir, i, i * 31, i * 131, (long)getpid());
    int ok = writev(fd, parts, 2) == (ssize_t)(sizeof header + size)
        && linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH) == 0;
    close(fd);
    return ok ? 0 : -1;
}

// The lookups of a cold request that find nothing: the variant's entry, the source's, the partial folder.
static int miss(const char *dir) {
    char name[4200];
    for (long which = 1; which <= 2; which++) {  // names no entry has (write_entry's first field is the count)
        snprintf(name, sizeof name, "%s/%08lx%08lx%08lx%08lx", dir, 0x7fffffffL, which, entries, (long)getpid());
        if (open(name, O_RDONLY | O_NOATIME | O_CLOEXEC) >= 0) return -1;
    }
    snprintf(name, sizeof name, "%s/partial", dir);
    if (open(name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_DIRECTORY) >= 0) return -1;
    return 0;
}

int main(int argc, char **argv) {
    const char *disk = NULL;
    int first = 2;  // argv's first file
    if (argc > 3 && strcmp(argv[2], "--disk") == 0) {
        disk = argv[3];
        first = 4;
        mkdir(disk, 0700);
    }
    if (argc <= first) { fprintf(stderr, "usage: jpeg_floor ROUNDS [--disk DIR] FILE...\n"); return 2; }
    int rounds = atoi(argv[1]), files = argc - first, n = 0;
    double *dec = calloc((size_t)rounds * files, sizeof(double));
    double *base = calloc((size_t)rounds * files, sizeof(double));
    double *prog = calloc((size_t)rounds * files, sizeof(double));
    double *lookups = calloc((size_t)rounds * files, sizeof(double));
    double *source_entry = calloc((size_t)rounds * files, sizeof(double));
    double *variant_entry = calloc((size_t)rounds * files, sizeof(double));
    for (int r = 0; r < rounds; r++) {
        for (int f = 0; f < files; f++, n++) {
            FILE *in = fopen(argv[first + f], "rb");
            if (!in) { perror(argv[first + f]); return 1; }
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
                (progressive ? prog : base)[n] = cpu_ms() - t1;
                if (disk && !progressive) {
                    double t2 = cpu_ms();
                    if (miss(disk) != 0) { perror("lookup"); return 1; }
                    double t3 = cpu_ms();
                    if (write_entry(disk, source, size) != 0) { perror("source entry"); return 1; }
                    double t4 = cpu_ms();
                    if (write_entry(disk, out, out_size) != 0) { perror("variant entry"); return 1; }
                    lookups[n] = t3 - t2;
                    source_entry[n] = t4 - t3;
                    variant_entry[n] = cpu_ms() - t4;
                }
                free(out);
            }
            free(pixels);
            free(source);
        }
    }
    double md = median(dec, n), mb = median(base, n), mp = median(prog, n);
    printf("%.2f %.2f %.2f %.2f %.2f %d", md, mb, mp, md + mb, md + mp, n);
    if (disk) printf(" %.3f %.3f %.3f", median(lookups, n), median(source_entry, n), median(variant_entry, n));
    printf("\n");
    return 0;
}
