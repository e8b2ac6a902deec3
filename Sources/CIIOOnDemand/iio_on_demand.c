// libiio loaded on first use (include/iio_on_demand.h says why). Each function below has
// <iio.h>'s prototype and forwards to libiio's own, resolved by dlsym from the library's
// handle, so a call reaches libiio even though the executable does not link it.
#include "iio_on_demand.h"

#include <dlfcn.h>
#include <errno.h>
#include <iio.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>

// The soname of libiio 0.x (Debian's libiio0: 0.24 in bookworm, 0.26 in trixie), whose ABI
// <iio.h> describes; libiio 1.x is libiio.so.1 with another API.
#define LIBIIO_SONAME "libiio.so.0"

#define IIO_FUNCTIONS(X)                                                                      \
    X(iio_buffer_destroy) X(iio_buffer_first) X(iio_buffer_refill) X(iio_buffer_step)         \
    X(iio_channel_attr_read_double) X(iio_channel_disable) X(iio_channel_enable)              \
    X(iio_channel_find_attr) X(iio_channel_get_data_format) X(iio_channel_get_id)             \
    X(iio_channel_get_modifier) X(iio_channel_get_type) X(iio_channel_is_output)              \
    X(iio_channel_is_scan_element) X(iio_context_destroy) X(iio_context_get_device)           \
    X(iio_context_get_devices_count) X(iio_context_set_timeout) X(iio_create_context_from_uri) \
    X(iio_device_attr_read) X(iio_device_attr_read_double) X(iio_device_attr_write_double)    \
    X(iio_device_attr_write_longlong) X(iio_device_create_buffer) X(iio_device_find_attr)     \
    X(iio_device_get_channel) X(iio_device_get_channels_count) X(iio_device_get_id)           \
    X(iio_device_get_name)

// libiio's functions, each a pointer of its own type (typeof of <iio.h>'s declaration).
static struct {
#define POINTER(name) __typeof__(name) *name;
    IIO_FUNCTIONS(POINTER)
#undef POINTER
} real;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char problem[256];
static const char *unavailable = "libiio was not loaded";

static void load(void) {
    void *library = dlopen(LIBIIO_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(problem, sizeof problem, "cannot load %s (install libiio0): %s", LIBIIO_SONAME, dlerror());
        unavailable = problem;
        return;
    }
#define RESOLVE(name)                                                                          \
    if (!(real.name = (__typeof__(name) *)dlsym(library, #name))) {                            \
        snprintf(problem, sizeof problem, "%s has no %s: %s", LIBIIO_SONAME, #name, dlerror()); \
        unavailable = problem;                                                                 \
        return;                                                                                \
    }
    IIO_FUNCTIONS(RESOLVE)
#undef RESOLVE
    unavailable = NULL;
}

const char *bikepath_iio_unavailable(void) {
    pthread_once(&once, load);
    return unavailable;
}

// The one way in: every other function takes an object this one made, so libiio is loaded
// by then. When it cannot be, no context: NULL with errno ELIBACC ("Can not access a needed
// shared library"), as libiio itself answers NULL and sets errno.
struct iio_context *iio_create_context_from_uri(const char *uri) {
    if (bikepath_iio_unavailable()) {
        errno = ELIBACC;
        return NULL;
    }
    return real.iio_create_context_from_uri(uri);
}

// The forwarders: (return type, name, parameters, arguments).
#define FORWARD(type, name, params, args) \
    type name params { return real.name args; }
#define FORWARD_VOID(name, params, args) \
    void name params { real.name args; }

FORWARD_VOID(iio_buffer_destroy, (struct iio_buffer *buf), (buf))
FORWARD(void *, iio_buffer_first, (const struct iio_buffer *buf, const struct iio_channel *chn), (buf, chn))
FORWARD(ssize_t, iio_buffer_refill, (struct iio_buffer *buf), (buf))
FORWARD(ptrdiff_t, iio_buffer_step, (const struct iio_buffer *buf), (buf))
FORWARD(int, iio_channel_attr_read_double, (const struct iio_channel *chn, const char *attr, double *val),
        (chn, attr, val))
FORWARD_VOID(iio_channel_disable, (struct iio_channel *chn), (chn))
FORWARD_VOID(iio_channel_enable, (struct iio_channel *chn), (chn))
FORWARD(const char *, iio_channel_find_attr, (const struct iio_channel *chn, const char *name), (chn, name))
FORWARD(const struct iio_data_format *, iio_channel_get_data_format, (const struct iio_channel *chn), (chn))
FORWARD(const char *, iio_channel_get_id, (const struct iio_channel *chn), (chn))
FORWARD(enum iio_modifier, iio_channel_get_modifier, (const struct iio_channel *chn), (chn))
FORWARD(enum iio_chan_type, iio_channel_get_type, (const struct iio_channel *chn), (chn))
FORWARD(bool, iio_channel_is_output, (const struct iio_channel *chn), (chn))
FORWARD(bool, iio_channel_is_scan_element, (const struct iio_channel *chn), (chn))
FORWARD_VOID(iio_context_destroy, (struct iio_context *ctx), (ctx))
FORWARD(struct iio_device *, iio_context_get_device, (const struct iio_context *ctx, unsigned int index), (ctx, index))
FORWARD(unsigned int, iio_context_get_devices_count, (const struct iio_context *ctx), (ctx))
FORWARD(int, iio_context_set_timeout, (struct iio_context *ctx, unsigned int timeout_ms), (ctx, timeout_ms))
FORWARD(ssize_t, iio_device_attr_read, (const struct iio_device *dev, const char *attr, char *dst, size_t len),
        (dev, attr, dst, len))
FORWARD(int, iio_device_attr_read_double, (const struct iio_device *dev, const char *attr, double *val),
        (dev, attr, val))
FORWARD(int, iio_device_attr_write_double, (const struct iio_device *dev, const char *attr, double val),
        (dev, attr, val))
FORWARD(int, iio_device_attr_write_longlong, (const struct iio_device *dev, const char *attr, long long val),
        (dev, attr, val))
FORWARD(struct iio_buffer *, iio_device_create_buffer, (const struct iio_device *dev, size_t samples_count, bool cyclic),
        (dev, samples_count, cyclic))
FORWARD(const char *, iio_device_find_attr, (const struct iio_device *dev, const char *name), (dev, name))
FORWARD(struct iio_channel *, iio_device_get_channel, (const struct iio_device *dev, unsigned int index), (dev, index))
FORWARD(unsigned int, iio_device_get_channels_count, (const struct iio_device *dev), (dev))
FORWARD(const char *, iio_device_get_id, (const struct iio_device *dev), (dev))
FORWARD(const char *, iio_device_get_name, (const struct iio_device *dev), (dev))
