// libcurl through dlopen on first use, and one-line forwards to its calls (see include/CCurlShim.h).
#include "CCurlShim.h"
#include <dlfcn.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

// The functions resolved from libcurl; all set, or loadError says why not.
static struct {
    CURLcode (*global_init)(long);
    curl_version_info_data *(*version_info)(CURLversion);
    CURL *(*easy_init)(void);
    void (*easy_cleanup)(CURL *);
    void (*easy_reset)(CURL *);
    CURLcode (*easy_perform)(CURL *);
    CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
    CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
    const char *(*easy_strerror)(CURLcode);
    CURLM *(*multi_init)(void);
    CURLMcode (*multi_cleanup)(CURLM *);
    CURLMcode (*multi_add_handle)(CURLM *, CURL *);
    CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
    CURLMcode (*multi_perform)(CURLM *, int *);
    CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
    CURLMcode (*multi_wakeup)(CURLM *);
    CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
    CURLMsg *(*multi_info_read)(CURLM *, int *);
    const char *(*multi_strerror)(CURLMcode);
    struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
    void (*slist_free_all)(struct curl_slist *);
} fn;
static pthread_once_t loadOnce = PTHREAD_ONCE_INIT;
static int loaded;
static char loadError[512] = "libcurl not loaded yet";

static void load(void) {
    void *lib = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
    if (lib == NULL) {
        snprintf(loadError, sizeof loadError, "%s", dlerror());
        return;
    }
#define DW_SYM(field, name)                                                                                            \
    if ((*(void **)&fn.field = dlsym(lib, name)) == NULL) {                                                            \
        snprintf(loadError, sizeof loadError, "libcurl.so.4 has no %s", name);                                      \
        return;                                                                                                        \
    }
    DW_SYM(global_init, "curl_global_init")
    DW_SYM(version_info, "curl_version_info")
    DW_SYM(easy_init, "curl_easy_init")
    DW_SYM(easy_cleanup, "curl_easy_cleanup")
    DW_SYM(easy_reset, "curl_easy_reset")
    DW_SYM(easy_perform, "curl_easy_perform")
    DW_SYM(easy_setopt, "curl_easy_setopt")
    DW_SYM(easy_getinfo, "curl_easy_getinfo")
    DW_SYM(easy_strerror, "curl_easy_strerror")
    DW_SYM(multi_init, "curl_multi_init")
    DW_SYM(multi_cleanup, "curl_multi_cleanup")
    DW_SYM(multi_add_handle, "curl_multi_add_handle")
    DW_SYM(multi_remove_handle, "curl_multi_remove_handle")
    DW_SYM(multi_perform, "curl_multi_perform")
    DW_SYM(multi_poll, "curl_multi_poll")
    DW_SYM(multi_wakeup, "curl_multi_wakeup")
    DW_SYM(multi_setopt, "curl_multi_setopt")
    DW_SYM(multi_info_read, "curl_multi_info_read")
    DW_SYM(multi_strerror, "curl_multi_strerror")
    DW_SYM(slist_append, "curl_slist_append")
    DW_SYM(slist_free_all, "curl_slist_free_all")
#undef DW_SYM
    loaded = 1;
}

int dw_curl_load(void) {
    pthread_once(&loadOnce, load);
    return loaded ? 0 : -1;
}
const char *dw_curl_load_error(void) { return dw_curl_load() == 0 ? NULL : loadError; }

CURLcode dw_curl_global_init(long flags) { return dw_curl_load() == 0 ? fn.global_init(flags) : CURLE_FAILED_INIT; }
curl_version_info_data *dw_curl_version_info(CURLversion age) {
    return dw_curl_load() == 0 ? fn.version_info(age) : NULL;
}
CURL *dw_curl_easy_init(void) { return dw_curl_load() == 0 ? fn.easy_init() : NULL; }
void dw_curl_easy_cleanup(CURL *h) { if (dw_curl_load() == 0) fn.easy_cleanup(h); }
void dw_curl_easy_reset(CURL *h) { if (dw_curl_load() == 0) fn.easy_reset(h); }
CURLcode dw_curl_easy_perform(CURL *h) { return dw_curl_load() == 0 ? fn.easy_perform(h) : CURLE_FAILED_INIT; }
const char *dw_curl_easy_strerror(CURLcode code) { return dw_curl_load() == 0 ? fn.easy_strerror(code) : loadError; }
CURLM *dw_curl_multi_init(void) { return dw_curl_load() == 0 ? fn.multi_init() : NULL; }
CURLMcode dw_curl_multi_cleanup(CURLM *m) { return dw_curl_load() == 0 ? fn.multi_cleanup(m) : CURLM_INTERNAL_ERROR; }
CURLMcode dw_curl_multi_add_handle(CURLM *m, CURL *h) {
    return dw_curl_load() == 0 ? fn.multi_add_handle(m, h) : CURLM_INTERNAL_ERROR;
}
CURLMcode dw_curl_multi_remove_handle(CURLM *m, CURL *h) {
    return dw_curl_load() == 0 ? fn.multi_remove_handle(m, h) : CURLM_INTERNAL_ERROR;
}
CURLMcode dw_curl_multi_perform(CURLM *m, int *running) {
    return dw_curl_load() == 0 ? fn.multi_perform(m, running) : CURLM_INTERNAL_ERROR;
}
CURLMcode dw_curl_multi_poll(CURLM *m, struct curl_waitfd *fds, unsigned int count, int timeoutMs, int *ready) {
    return dw_curl_load() == 0 ? fn.multi_poll(m, fds, count, timeoutMs, ready) : CURLM_INTERNAL_ERROR;
}
CURLMcode dw_curl_multi_wakeup(CURLM *m) { return dw_curl_load() == 0 ? fn.multi_wakeup(m) : CURLM_INTERNAL_ERROR; }
const char *dw_curl_multi_strerror(CURLMcode code) { return dw_curl_load() == 0 ? fn.multi_strerror(code) : loadError; }
struct curl_slist *dw_curl_slist_append(struct curl_slist *list, const char *line) {
    return dw_curl_load() == 0 ? fn.slist_append(list, line) : NULL;
}
void dw_curl_slist_free_all(struct curl_slist *list) { if (dw_curl_load() == 0) fn.slist_free_all(list); }

// The variadic and union-returning calls (handles exist only once libcurl is loaded).
CURLcode dw_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return fn.easy_setopt(h, o, v); }
CURLcode dw_curl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return fn.easy_setopt(h, o, v); }
CURLcode dw_curl_easy_setopt_aws_sigv4(CURL *h, const char *provider, const char *userpwd) {
    CURLcode c = fn.easy_setopt(h, CURLOPT_AWS_SIGV4, provider);
    return c != CURLE_OK ? c : fn.easy_setopt(h, CURLOPT_USERPWD, userpwd);
}
CURLcode dw_curl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return fn.easy_setopt(h, o, v); }
CURLcode dw_curl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return fn.easy_setopt(h, o, v); }
CURLcode dw_curl_easy_setopt_write_callback(CURL *h, CURLoption o, curl_write_callback cb) {
    return fn.easy_setopt(h, o, cb);
}
CURLcode dw_curl_easy_setopt_xferinfo_callback(CURL *h, curl_xferinfo_callback cb) {
    return fn.easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb);
}
CURLcode dw_curl_easy_setopt_opensocket_callback(CURL *h, curl_opensocket_callback cb) {
    return fn.easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, cb);
}
int dw_curl_sockaddr_ip(const struct curl_sockaddr *a, unsigned char *out, int *port) {
    if (a->family == AF_INET && a->addrlen >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)&a->addr;
        memcpy(out, &in->sin_addr, 4);
        *port = ntohs(in->sin_port);
        return 4;
    }
    if (a->family == AF_INET6 && a->addrlen >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&a->addr;
        memcpy(out, &in6->sin6_addr, 16);
        *port = ntohs(in6->sin6_port);
        return 16;
    }
    return 0;
}

CURLcode dw_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *out) { return fn.easy_getinfo(h, i, out); }

CURLMcode dw_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return fn.multi_setopt(m, o, v); }

dw_curl_message dw_curl_multi_info_read(CURLM *m, int *msgsInQueue) {
    dw_curl_message out = { NULL, CURLE_OK, 0, 0 };
    CURLMsg *msg = fn.multi_info_read(m, msgsInQueue);
    if (msg != NULL) {
        out.found = 1;
        out.easy = msg->easy_handle;
        out.isDone = msg->msg == CURLMSG_DONE;
        if (out.isDone) out.result = msg->data.result;
    }
    return out;
}
