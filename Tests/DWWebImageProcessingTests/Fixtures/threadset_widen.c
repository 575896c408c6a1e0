// threadset_widen.c (preloaded by ThreadsetIdleTests; not part of any product): libvips' thread-set idle wait with a
// 5 ms deadline instead of 15 s, and 1 ms between a timed-out wait and the worker taking the set's lock, so the race
// in libvips 8.14.1 to 8.15.3 (a worker timing out while handed work) shows in seconds. An executable that defines
// vips_semaphore_down_timeout itself (CVips' ThreadsetIdleWait.c) is not affected: its definition comes first.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <unistd.h>
#include <vips/vips.h>

int vips_semaphore_down_timeout(VipsSemaphore *s, gint64 timeout) {
    (void)timeout;
    int (*own)(VipsSemaphore *, gint64) =
        (int (*)(VipsSemaphore *, gint64))dlsym(RTLD_NEXT, "vips_semaphore_down_timeout");
    int result = own(s, 5000);
    if (result == -1) usleep(1000);
    return result;
}
