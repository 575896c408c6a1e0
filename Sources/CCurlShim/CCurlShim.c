// One-line forwards to libcurl's variadic and union-returning calls (see include/CCurlShim.h).
#include "CCurlShim.h"

CURLcode dw_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
CURLcode dw_curl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
CURLcode dw_curl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
CURLcode dw_curl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
CURLcode dw_curl_easy_setopt_write_callback(CURL *h, CURLoption o, curl_write_callback cb) { return curl_easy_setopt(h, o, cb); }
CURLcode dw_curl_easy_setopt_xferinfo_callback(CURL *h, curl_xferinfo_callback cb) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb);
}

CURLcode dw_curl_easy_getinfo_long(CURL *h, CURLINFO i, long *out) { return curl_easy_getinfo(h, i, out); }

CURLMcode dw_curl_multi_setopt_long(CURLM *m, CURLMoption o, long v) { return curl_multi_setopt(m, o, v); }

dw_curl_message dw_curl_multi_info_read(CURLM *m, int *msgsInQueue) {
    dw_curl_message out = { NULL, CURLE_OK, 0, 0 };
    CURLMsg *msg = curl_multi_info_read(m, msgsInQueue);
    if (msg != NULL) {
        out.found = 1;
        out.easy = msg->easy_handle;
        out.isDone = msg->msg == CURLMSG_DONE;
        if (out.isDone) out.result = msg->data.result;
    }
    return out;
}
