// orc_race.c (built and run by OrcCodeLockTests; not part of any product): 8 threads compile, run and free small ORC
// programs, as libvips' pipelines do for their vector paths. ORC 0.4.33 allocates and frees JIT code memory without
// its lock: two threads can take one chunk, and a free merges chunks another thread is walking (a use after free).
// Exit 0 after argv[1] seconds without a fault.
#include <orc/orc.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop;
static atomic_long done;

static void *compile_and_free(void *arg) {
    long i = (long)arg;
    unsigned seed = (unsigned)i + 1;
    unsigned char src[256], dst[256];
    for (int k = 0; k < 256; k++) src[k] = (unsigned char)k;
    while (!atomic_load(&stop)) {
        OrcProgram *p = orc_program_new_ds(1, 1);
        int n = 1 + rand_r(&seed) % 24; /* programs of different sizes: chunks split and merge */
        for (int k = 0; k < n; k++) orc_program_append_ds_str(p, k % 2 ? "addusb" : "copyb", "d1", "s1");
        OrcCompileResult r = orc_program_compile(p);
        if (ORC_COMPILE_RESULT_IS_SUCCESSFUL(r)) {
            OrcExecutor *ex = orc_executor_new(p);
            orc_executor_set_n(ex, 256);
            orc_executor_set_array(ex, ORC_VAR_S1, src);
            orc_executor_set_array(ex, ORC_VAR_D1, dst);
            orc_executor_run(ex);
            orc_executor_free(ex);
        }
        orc_program_free(p);
        atomic_fetch_add(&done, 1);
    }
    return NULL;
}

int main(int argc, char **argv) {
    orc_init();
    int seconds = argc > 1 ? atoi(argv[1]) : 10;
    pthread_t t[8];
    for (long i = 0; i < 8; i++) pthread_create(&t[i], NULL, compile_and_free, (void *)i);
    sleep(seconds);
    atomic_store(&stop, 1);
    for (int i = 0; i < 8; i++) pthread_join(t[i], NULL);
    printf("no fault in %d s (%ld programs)\n", seconds, atomic_load(&done));
    return 0;
}
