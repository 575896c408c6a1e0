// CCurlShim: libcurl opened on first use (dlopen), and typed, non-variadic entry points for the calls Swift cannot
// make directly. Every function is a one-line forward; retries, limits and other policy live in Swift.
#ifndef DW_CCURLSHIM_H
#define DW_CCURLSHIM_H

#include <curl/curl.h>

/* libcurl is opened with dlopen on first use ("libcurl.so.4", the soname the headers' package links), so a run that
   never transfers (a cache hit, --help) maps none of libcurl's ~35 libraries. dw_curl_load returns 0 once every
   function below can be called, else -1 and dw_curl_load_error says why (dlerror's text); it is thread-safe and
   cheap after the first call. Until it succeeded, the forwards below return their failure value (NULL,
   CURLE_FAILED_INIT, CURLM_INTERNAL_ERROR) and do nothing else. */
int dw_curl_load(void);
const char *_Nullable dw_curl_load_error(void);

/* The libcurl calls DWWebImage makes, by dlsym: same arguments and results as libcurl's without the dw_ prefix. */
CURLcode dw_curl_global_init(long flags);
curl_version_info_data *_Nullable dw_curl_version_info(CURLversion age);
CURL *_Nullable dw_curl_easy_init(void);
void dw_curl_easy_cleanup(CURL *_Nonnull h);
void dw_curl_easy_reset(CURL *_Nonnull h);
CURLcode dw_curl_easy_perform(CURL *_Nonnull h);
const char *_Nonnull dw_curl_easy_strerror(CURLcode code);
CURLM *_Nullable dw_curl_multi_init(void);
CURLMcode dw_curl_multi_cleanup(CURLM *_Nonnull m);
CURLMcode dw_curl_multi_add_handle(CURLM *_Nonnull m, CURL *_Nonnull h);
CURLMcode dw_curl_multi_remove_handle(CURLM *_Nonnull m, CURL *_Nonnull h);
CURLMcode dw_curl_multi_perform(CURLM *_Nonnull m, int *_Nonnull running);
CURLMcode dw_curl_multi_poll(CURLM *_Nonnull m, struct curl_waitfd *_Nullable fds, unsigned int count, int timeoutMs,
                             int *_Nullable ready);
CURLMcode dw_curl_multi_wakeup(CURLM *_Nonnull m);
const char *_Nonnull dw_curl_multi_strerror(CURLMcode code);
struct curl_slist *_Nullable dw_curl_slist_append(struct curl_slist *_Nullable list, const char *_Nonnull line);
void dw_curl_slist_free_all(struct curl_slist *_Nullable list);

/* curl_easy_setopt: one wrapper per argument kind, the option stays a parameter. */
CURLcode dw_curl_easy_setopt_long(CURL *_Nonnull h, CURLoption o, long v);
/* libcurl copies strings it is given (since 7.17.0). */
CURLcode dw_curl_easy_setopt_string(CURL *_Nonnull h, CURLoption o, const char *_Nullable v);
/* CURLOPT_AWS_SIGV4 ("aws:amz:REGION:s3") and CURLOPT_USERPWD ("key:secret"): libcurl signs the request (S3). */
CURLcode dw_curl_easy_setopt_aws_sigv4(CURL *_Nonnull h, const char *_Nonnull provider, const char *_Nonnull userpwd);
/* WRITEDATA, HEADERDATA, XFERINFODATA, PRIVATE, ERRORBUFFER. */
CURLcode dw_curl_easy_setopt_pointer(CURL *_Nonnull h, CURLoption o, void *_Nullable v);
CURLcode dw_curl_easy_setopt_slist(CURL *_Nonnull h, CURLoption o, struct curl_slist *_Nullable v);
/* WRITEFUNCTION and HEADERFUNCTION share the curl_write_callback type. */
CURLcode dw_curl_easy_setopt_write_callback(CURL *_Nonnull h, CURLoption o, curl_write_callback _Nullable cb);
CURLcode dw_curl_easy_setopt_xferinfo_callback(CURL *_Nonnull h, curl_xferinfo_callback _Nullable cb);
/* OPENSOCKETFUNCTION: called with the address of every connection libcurl opens (redirects included). */
CURLcode dw_curl_easy_setopt_opensocket_callback(CURL *_Nonnull h, curl_opensocket_callback _Nullable cb);
/* The IP of a curl_sockaddr in network order into out (4 or 16 bytes, the returned count; 0 for other families),
   and its port. */
int dw_curl_sockaddr_ip(const struct curl_sockaddr *_Nonnull a, unsigned char *_Nonnull out, int *_Nonnull port);

/* curl_easy_getinfo for long results. */
CURLcode dw_curl_easy_getinfo_long(CURL *_Nonnull h, CURLINFO i, long *_Nonnull out);

/* curl_multi_setopt. */
CURLMcode dw_curl_multi_setopt_long(CURLM *_Nonnull m, CURLMoption o, long v);

/* curl_multi_info_read with CURLMsg's union flattened. */
typedef struct {
    CURL *_Nullable easy;
    CURLcode result;
    int isDone; /* 1 when msg == CURLMSG_DONE */
    int found;  /* 0 when the queue was empty */
} dw_curl_message;
dw_curl_message dw_curl_multi_info_read(CURLM *_Nonnull m, int *_Nonnull msgsInQueue);

/* Constants that are macros in curl.h and do not import into Swift. */
static const long DW_CURL_GLOBAL_DEFAULT = CURL_GLOBAL_DEFAULT;
static const int DW_CURL_ERROR_SIZE = CURL_ERROR_SIZE;
static const curl_socket_t DW_CURL_SOCKET_BAD = CURL_SOCKET_BAD;

#endif
