// OrcCodeLock: one lock around ORC's program compile and free, which allocate and free ORC's JIT code memory; ORC
// 0.4.33 (Debian 12's) does both without a lock. Nothing else lives here.
//
// libvips compiles an ORC program for the vector path of some operations (the vertical reduce of every resize among
// them) when a pipeline is built, and frees it when the pipeline goes, on whichever thread runs that transform. In
// ORC 0.4.33 (orccodemem.c) orc_code_allocate_codemem takes a free chunk under ORC's global mutex but splits it and
// marks it used after releasing it, and orc_code_chunk_free merges and frees chunks with no lock at all: two
// transforms can be given the same code memory, and a free can free a chunk another thread is walking (glibc then
// aborts on a corrupt heap, or liborc dereferences a freed chunk's link). ORC 0.4.34 holds the mutex over both.
//
// libvips calls orc_program_compile and orc_program_free through its PLT, and every allocation and free of code memory
// happens inside one of them, so these definitions, exported from the executable that links CVips, take their place
// and call ORC's own (found with dlsym(RTLD_NEXT)) under one mutex. For a fixed ORC the lock only serialises what ORC
// serialises itself.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>

/// ORC's program (orc/orcprogram.h): only passed through.
typedef struct _OrcProgram OrcProgram;

/// ORC_COMPILE_RESULT_UNKNOWN_COMPILE: what orc_program_compile answers when it cannot compile.
enum { cvips_orc_cannot_compile = 0x100 };

static pthread_mutex_t cvips_orc_lock = PTHREAD_MUTEX_INITIALIZER;

int orc_program_compile(OrcProgram *program) {
    static int (*_Atomic orc_own)(OrcProgram *);
    int (*own)(OrcProgram *) = orc_own;
    if (!own) {
        own = (int (*)(OrcProgram *))dlsym(RTLD_NEXT, "orc_program_compile");
        if (!own) return cvips_orc_cannot_compile;
        orc_own = own;
    }
    pthread_mutex_lock(&cvips_orc_lock);
    int result = own(program);
    pthread_mutex_unlock(&cvips_orc_lock);
    return result;
}

void orc_program_free(OrcProgram *program) {
    static void (*_Atomic orc_own)(OrcProgram *);
    void (*own)(OrcProgram *) = orc_own;
    if (!own) {
        own = (void (*)(OrcProgram *))dlsym(RTLD_NEXT, "orc_program_free");
        if (!own) return;
        orc_own = own;
    }
    pthread_mutex_lock(&cvips_orc_lock);
    own(program);
    pthread_mutex_unlock(&cvips_orc_lock);
}
