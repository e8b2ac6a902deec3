// libmd (Debian's libmd0, which dpkg itself links: on every Debian system): SHA-256 for
// the device's hash chain without swift-crypto's copy of BoringSSL (docs/install.md).
#include <sha2.h>
