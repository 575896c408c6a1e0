// bench/fetch/floor.c: the file-system work each fetch row cannot avoid, measured (bench/fetch/cpu builds and runs
// it). Usage: floor MODE CORPUS_DIR WORK_DIR; prints "user_s system_s" of the loop alone (getrusage around it).
//   curl      what curl's tool does per body: open(O_CREAT|O_TRUNC), write, close.
//   nocache   what a `dwfetch --no-cache -o` run must do for an output that appears whole: O_TMPFILE, write,
//             linkat, close.
//   cold      what a cold `dwfetch -o` run must do for a self-validating entry and its output: the lookup that
//             misses, O_TMPFILE, write, CRC-32C of the body (the cache's own, Sources/CChecksum, linked in), the
//             header as an extended attribute, linkat into the cache directory, the output as a hard link, close.
// The bodies are read into memory before the clock starts, as they arrive from the network in the real runs.
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "CChecksum.h"

static double seconds(struct timeval t) { return t.tv_sec + t.tv_usec / 1e6; }

int main(int argc, char **argv) {
    if (argc != 4) return 2;
    const char *mode = argv[1], *corpus = argv[2], *work = argv[3];
    DIR *d = opendir(corpus);
    if (!d) return 1;
    char **bodies = NULL;
    size_t *sizes = NULL, count = 0, capacity = 0;
    char path[4096];
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", corpus, e->d_name);
        int fd = open(path, O_RDONLY);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0) return 1;
        if (count == capacity) {
            capacity = capacity ? capacity * 2 : 1024;
            bodies = realloc(bodies, capacity * sizeof *bodies);
            sizes = realloc(sizes, capacity * sizeof *sizes);
        }
        bodies[count] = malloc(st.st_size);
        if (read(fd, bodies[count], st.st_size) != st.st_size) return 1;
        sizes[count++] = st.st_size;
        close(fd);
    }
    closedir(d);
    char out[4096], cache[4096];
    snprintf(out, sizeof out, "%s/out", work);
    snprintf(cache, sizeof cache, "%s/cache", work);
    mkdir(out, 0755);
    mkdir(cache, 0755);
    char header[133];
    memset(header, 7, sizeof header);
    struct rusage before, after;
    getrusage(RUSAGE_SELF, &before);
    for (size_t i = 0; i < count; i++) {
        char name[8320], entry[8320];
        snprintf(name, sizeof name, "%s/img%05zu", out, i);
        if (strcmp(mode, "curl") == 0) {
            int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
            if (fd < 0 || write(fd, bodies[i], sizes[i]) != (ssize_t)sizes[i]) return 1;
            close(fd);
            continue;
        }
        // a digest-length name, as the cache's
        snprintf(entry, sizeof entry, "%s/%08zx%08zx%08zx%08zx", cache, i, i * 31, i * 131, i * 1031);
        if (strcmp(mode, "cold") == 0) {
            int miss = open(entry, O_RDONLY | O_CLOEXEC);
            if (miss >= 0) return 1;
        }
        int fd = open(strcmp(mode, "cold") == 0 ? cache : out, O_WRONLY | O_TMPFILE | O_CLOEXEC, 0644);
        if (fd < 0 || write(fd, bodies[i], sizes[i]) != (ssize_t)sizes[i]) return 1;
        if (strcmp(mode, "nocache") == 0) {
            if (linkat(fd, "", AT_FDCWD, name, AT_EMPTY_PATH) != 0) return 1;
        } else {
            uint32_t crc = dw_crc32c(0, bodies[i], sizes[i]);
            memcpy(header, &crc, 4);
            if (fsetxattr(fd, "user.dwwebimage.entry", header, sizeof header, 0) != 0) return 1;
            if (linkat(fd, "", AT_FDCWD, entry, AT_EMPTY_PATH) != 0) return 1;
            if (link(entry, name) != 0) return 1;
        }
        close(fd);
    }
    getrusage(RUSAGE_SELF, &after);
    printf("%.6f %.6f\n", seconds(after.ru_utime) - seconds(before.ru_utime),
        seconds(after.ru_stime) - seconds(before.ru_stime));
    return 0;
}
