#ifndef BIKEPATH_IIO_ON_DEMAND_H
#define BIKEPATH_IIO_ON_DEMAND_H

/// Loads libiio (libiio.so.0) the first time an IMU is opened, not when the daemon starts:
/// the library and what it links (libxml2 and its ICU, Avahi, libusb, libserialport) are
/// 1–2 MB of resident memory that a replay, a GNSS-only bike or any command other than
/// `run`/`record`/`diagnose` with an IMU never uses (docs/performance.md, "Memory of the
/// daemon"). The iio_* functions the daemon calls are defined in iio_on_demand.c with
/// libiio's own prototypes (<iio.h>, through CIIO) and forward to the library.
///
/// NULL once libiio is loaded; otherwise why it cannot be (dlopen's or dlsym's words). The
/// first call loads it; later calls return the same answer.
const char *bikepath_iio_unavailable(void);

#endif
