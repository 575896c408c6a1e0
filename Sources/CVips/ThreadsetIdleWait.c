// ThreadsetIdleWait: keeps libvips' idle workers waiting in the versions whose thread set frees a worker while
// handing it work. Nothing else lives here.
//
// libvips 8.14.1 to 8.15.3 (iofuncs/threadset.c): an idle worker waits for its next task with
// vips_semaphore_down_timeout(&member->idle, 15 s) and, when the wait times out, takes itself off the free list and
// frees itself. vips_threadset_run takes a member off that list under the set's lock but writes the task into it and
// raises its semaphore after releasing the lock. When the member's wait timed out just before, the worker frees
// itself under run()'s hand: the task is lost (its pipeline waits for it forever), or run() writes into the freed
// member and locks its freed mutex, which corrupts the heap (glibc aborts later, e.g. "malloc_consolidate():
// unaligned fastbin chunk detected"). libvips 8.15.4 rewrote the thread set (libvips pull request 4137).
//
// In those versions that wait is the only caller of vips_semaphore_down_timeout, and libvips calls it through its
// PLT, so this definition, exported from the executable that links CVips, takes its place: the wait has no deadline,
// so an idle worker never exits on its own (vips_shutdown still stops it: it raises the semaphore with the member's
// kill flag set). The set then keeps the highest number of workers it ever ran at once, a few per pipeline in
// flight. In every other version this forwards to libvips' own function.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <vips/vips.h>

/// Whether the libvips loaded now is one whose idle workers race with run() (8.14.1 to 8.15.3).
static int cvips_threadset_races(void) {
    int version = vips_version(0) * 10000 + vips_version(1) * 100 + vips_version(2);
    return version >= 81401 && version < 81504;
}

int vips_semaphore_down_timeout(VipsSemaphore *s, gint64 timeout) {
    if (cvips_threadset_races()) return vips_semaphore_down(s);
    static int (*_Atomic libvips_own)(VipsSemaphore *, gint64);
    int (*own)(VipsSemaphore *, gint64) = libvips_own;
    if (!own) {
        own = (int (*)(VipsSemaphore *, gint64))dlsym(RTLD_NEXT, "vips_semaphore_down_timeout");
        if (!own) return vips_semaphore_down(s);
        libvips_own = own;
    }
    return own(s, timeout);
}
