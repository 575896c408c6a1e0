// One-line forwards to libcurl's variadic and union-returning calls (see include/CCurlShim.h).
#include "CCurlShim.h"
#include <netinet/in.h>
#include <string.h>

CURLcode dw_curl_easy_setopt_long(CURL *h, CURLoption o, long v) { return curl_easy_setopt(h, o, v); }
CURLcode dw_curl_easy_setopt_string(CURL *h, CURLoption o, const char *v) { return curl_easy_setopt(h, o, v); }
CURLcode dw_curl_easy_setopt_aws_sigv4(CURL *h, const char *provider, const char *userpwd) {
    CURLcode c = curl_easy_setopt(h, CURLOPT_AWS_SIGV4, provider);
    return c != CURLE_OK ? c : curl_easy_setopt(h, CURLOPT_USERPWD, userpwd);
}
CURLcode dw_curl_easy_setopt_pointer(CURL *h, CURLoption o, void *v) { return curl_easy_setopt(h, o, v); }
CURLcode dw_curl_easy_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) { return curl_easy_setopt(h, o, v); }
CURLcode dw_curl_easy_setopt_write_callback(CURL *h, CURLoption o, curl_write_callback cb) { return curl_easy_setopt(h, o, cb); }
CURLcode dw_curl_easy_setopt_xferinfo_callback(CURL *h, curl_xferinfo_callback cb) {
    return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, cb);
}
CURLcode dw_curl_easy_setopt_opensocket_callback(CURL *h, curl_opensocket_callback cb) {
    return curl_easy_setopt(h, CURLOPT_OPENSOCKETFUNCTION, cb);
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
