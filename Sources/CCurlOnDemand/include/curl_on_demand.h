#ifndef BIKEPATH_CURL_ON_DEMAND_H
#define BIKEPATH_CURL_ON_DEMAND_H

/// Loads libcurl (libcurl.so.4) the first time the daemon talks to the hub, not when it
/// starts: the library and what it links (OpenSSL, nghttp2, libssh2, Kerberos, LDAP, ...)
/// are resident memory that a replay, a bike without a hub or any command but `sync` and
/// `run` with a hub never uses (docs/performance.md, "Memory of the daemon"). TLS then comes
/// from Debian's OpenSSL and its CA store, updated by apt for the years a bike computer runs,
/// instead of a BoringSSL compiled into the binary (Sources/BikePathSync/CurlExchange.swift).
///
/// The functions below have libcurl's own prototypes but a `bikepath_` prefix: the executable
/// must not define libcurl's names, or the library's calls to its own exported functions could
/// bind to them. curl_easy_setopt and curl_easy_getinfo are variadic, which Swift cannot call:
/// each argument type has a function of its own.
#define CURL_DISABLE_TYPECHECK 1
#include <curl/curl.h>

/// NULL once libcurl is loaded and initialised; otherwise why it cannot be (dlopen's, dlsym's
/// or curl_global_init's words). The first call loads it; later calls return the same answer.
const char *bikepath_curl_unavailable(void);

CURL *bikepath_curl_easy_init(void);
void bikepath_curl_easy_reset(CURL *curl);
void bikepath_curl_easy_cleanup(CURL *curl);
CURLcode bikepath_curl_easy_perform(CURL *curl);
const char *bikepath_curl_easy_strerror(CURLcode code);
struct curl_slist *bikepath_curl_slist_append(struct curl_slist *list, const char *string);
void bikepath_curl_slist_free_all(struct curl_slist *list);

CURLcode bikepath_curl_setopt_long(CURL *curl, CURLoption option, long value);
CURLcode bikepath_curl_setopt_offset(CURL *curl, CURLoption option, curl_off_t value);
CURLcode bikepath_curl_setopt_pointer(CURL *curl, CURLoption option, const void *value);
CURLcode bikepath_curl_setopt_write(CURL *curl, CURLoption option, curl_write_callback value);
CURLcode bikepath_curl_setopt_xferinfo(CURL *curl, CURLoption option, curl_xferinfo_callback value);
CURLcode bikepath_curl_setopt_debug(CURL *curl, CURLoption option, curl_debug_callback value);
CURLcode bikepath_curl_getinfo_long(CURL *curl, CURLINFO info, long *value);
CURLcode bikepath_curl_getinfo_offset(CURL *curl, CURLINFO info, curl_off_t *value);

#endif
