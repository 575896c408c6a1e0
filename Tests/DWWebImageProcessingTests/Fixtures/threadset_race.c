// threadset_race.c (built and run by ThreadsetIdleTests; not part of any product): 8 threads run tiny libvips
// pipelines with random pauses, so the thread set's workers go idle, time out and are handed work all the time.
// Exit 0 after `seconds` (argv[1]) without a fault; 3 when a pipeline has waited 2 s for a worker (a lost task).
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <vips/vips.h>

static atomic_long progress[8];
static atomic_long done;

static long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static void *pipelines(void *arg) {
    long i = (long)arg;
    unsigned seed = (unsigned)i * 7919u + 1;
    VipsImage *black;
    if (vips_black(&black, 32, 32, NULL)) return NULL;
    for (;;) {
        double average;
        VipsImage *copy;
        if (vips_copy(black, &copy, NULL)) continue;
        vips_image_set_int(copy, "n", (int)atomic_fetch_add(&done, 1)); /* a new pipeline, no cache hit */
        if (vips_avg(copy, &average, NULL)) fprintf(stderr, "avg failed: %s\n", vips_error_buffer());
        g_object_unref(copy);
        atomic_store(&progress[i], now_ms());
        usleep(rand_r(&seed) % 10000);
        atomic_store(&progress[i], now_ms());
    }
    return NULL;
}

int main(int argc, char **argv) {
    if (VIPS_INIT(argv[0])) return 1;
    vips_cache_set_max(0);
    vips_concurrency_set(2);
    int seconds = argc > 1 ? atoi(argv[1]) : 10;
    pthread_t threads[8];
    for (long i = 0; i < 8; i++) {
        atomic_store(&progress[i], now_ms());
        pthread_create(&threads[i], NULL, pipelines, (void *)i);
    }
    for (int tick = 0; tick < seconds * 10; tick++) {
        usleep(100000);
        long now = now_ms();
        for (int i = 0; i < 8; i++)
            if (now - atomic_load(&progress[i]) > 2000) {
                printf("lost task after %.1f s: a pipeline has waited 2 s for its worker (%ld pipelines)\n",
                       tick / 10.0, atomic_load(&done));
                fflush(stdout);
                _exit(3);
            }
    }
    printf("no lost task in %d s (%ld pipelines)\n", seconds, atomic_load(&done));
    fflush(stdout);
    _exit(0);
}
