// libcurl loaded on first use (include/curl_on_demand.h says why), as CIIOOnDemand loads
// libiio. Each function forwards to libcurl's own, resolved by dlsym from the library's handle.
#include "curl_on_demand.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

// libcurl's soname since 7.16 (Debian's libcurl4t64 in trixie, libcurl4 in bookworm); the
// functions used here exist since 7.32 (xferinfo) and 7.55 (the _T/off_t infos).
#define LIBCURL_SONAME "libcurl.so.4"

#define CURL_FUNCTIONS(X)                                                                 \
    X(curl_global_init) X(curl_easy_init) X(curl_easy_reset) X(curl_easy_cleanup)        \
    X(curl_easy_perform) X(curl_easy_strerror) X(curl_easy_setopt) X(curl_easy_getinfo) \
    X(curl_slist_append) X(curl_slist_free_all)

static struct {
#define POINTER(name) __typeof__(name) *name;
    CURL_FUNCTIONS(POINTER)
#undef POINTER
} real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char problem[256];
static const char *unavailable = "libcurl was not loaded";

static void load(void) {
    void *library = dlopen(LIBCURL_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(problem, sizeof problem, "cannot load %s (install libcurl4t64): %s", LIBCURL_SONAME, dlerror());
        unavailable = problem;
        return;
    }
#define RESOLVE(name)                                                                            \
    if (!(real.name = (__typeof__(name) *)dlsym(library, #name))) {                              \
        snprintf(problem, sizeof problem, "%s has no %s: %s", LIBCURL_SONAME, #name, dlerror()); \
        unavailable = problem;                                                                   \
        return;                                                                                  \
    }
    CURL_FUNCTIONS(RESOLVE)
#undef RESOLVE
    // Once, before any handle and inside pthread_once: curl_global_init is not thread-safe
    // in every libcurl version still shipped.
    CURLcode code = real.curl_global_init(CURL_GLOBAL_DEFAULT);
    if (code != CURLE_OK) {
        snprintf(problem, sizeof problem, "curl_global_init failed: %s", real.curl_easy_strerror(code));
        unavailable = problem;
        return;
    }
    unavailable = NULL;
}

const char *bikepath_curl_unavailable(void) {
    pthread_once(&once, load);
    return unavailable;
}

// Callers ask bikepath_curl_unavailable() first; these assume the library is loaded.
CURL *bikepath_curl_easy_init(void) { return real.curl_easy_init(); }
void bikepath_curl_easy_reset(CURL *curl) { real.curl_easy_reset(curl); }
void bikepath_curl_easy_cleanup(CURL *curl) { real.curl_easy_cleanup(curl); }
CURLcode bikepath_curl_easy_perform(CURL *curl) { return real.curl_easy_perform(curl); }
const char *bikepath_curl_easy_strerror(CURLcode code) { return real.curl_easy_strerror(code); }
struct curl_slist *bikepath_curl_slist_append(struct curl_slist *list, const char *string) {
    return real.curl_slist_append(list, string);
}
void bikepath_curl_slist_free_all(struct curl_slist *list) { real.curl_slist_free_all(list); }

CURLcode bikepath_curl_setopt_long(CURL *curl, CURLoption option, long value) {
    return real.curl_easy_setopt(curl, option, value);
}
CURLcode bikepath_curl_setopt_offset(CURL *curl, CURLoption option, curl_off_t value) {
    return real.curl_easy_setopt(curl, option, value);
}
CURLcode bikepath_curl_setopt_pointer(CURL *curl, CURLoption option, const void *value) {
    return real.curl_easy_setopt(curl, option, value);
}
CURLcode bikepath_curl_setopt_write(CURL *curl, CURLoption option, curl_write_callback value) {
    return real.curl_easy_setopt(curl, option, value);
}
CURLcode bikepath_curl_setopt_xferinfo(CURL *curl, CURLoption option, curl_xferinfo_callback value) {
    return real.curl_easy_setopt(curl, option, value);
}
CURLcode bikepath_curl_setopt_debug(CURL *curl, CURLoption option, curl_debug_callback value) {
    return real.curl_easy_setopt(curl, option, value);
}
CURLcode bikepath_curl_getinfo_long(CURL *curl, CURLINFO info, long *value) {
    return real.curl_easy_getinfo(curl, info, value);
}
CURLcode bikepath_curl_getinfo_offset(CURL *curl, CURLINFO info, curl_off_t *value) {
    return real.curl_easy_getinfo(curl, info, value);
}
