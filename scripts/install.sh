#!/usr/bin/env bash
# Installs bikepathd on Raspberry Pi OS / Debian (run as root from the repository):
#   scripts/install.sh                 build (release) and install, then set up user, udev, unit
#   scripts/install.sh --deps          also apt-get the runtime and build packages first
#   scripts/install.sh --binary PATH   install a binary built elsewhere instead of building
#   scripts/install.sh --destdir DIR   stage into DIR only (packaging, tests): no users, udev or systemctl
# An existing /etc/bikepath/bikepathd.toml is never overwritten; the example is
# always installed as /usr/local/share/doc/bikepath/bikepathd.toml.example.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
destdir=""
binary=""
deps=0
while [ $# -gt 0 ]; do
    case "$1" in
        --destdir) destdir=${2:?--destdir needs a directory}; shift 2 ;;
        --binary) binary=${2:?--binary needs a path}; shift 2 ;;
        --deps) deps=1; shift ;;
        -h|--help) sed -n '2,9p' "$0"; exit 0 ;;
        *) echo "install.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
if [ -z "$destdir" ] && [ "$(id -u)" -ne 0 ]; then
    echo "install.sh: run as root (or use --destdir to stage)" >&2
    exit 1
fi

if [ "$deps" = 1 ]; then
    apt-get update
    apt-get install -y gpsd libgps-dev libiio-dev libiio-utils libsqlite3-dev libmd-dev libcurl4-openssl-dev pkg-config
fi

if [ -z "$binary" ]; then
    # The static Swift runtime and the package's build flags (scripts/lib/link-flags.sh,
    # lld's: -use-ld=lld) keep the daemon's resident memory down (docs/performance.md,
    # "Memory of the daemon"); a separate build folder keeps it apart.
    echo "==> building (release, static Swift runtime, the package's build flags)"
    source "$here/scripts/lib/link-flags.sh"
    bikepathd_build_flags "$here/scripts/lib/bikepathd.order"
    (cd "$here" && swift build -c release --static-swift-stdlib --scratch-path .build-static --product bikepathd \
        -Xswiftc -use-ld=lld "${BUILD_FLAGS[@]}" 2>&1 | bikepathd_link_filter)
    binary="$here/.build-static/release/bikepathd"
fi
[ -x "$binary" ] || { echo "install.sh: $binary is not an executable" >&2; exit 1; }

echo "==> installing into ${destdir:-/}"
install -D -m 0755 "$binary" "$destdir/usr/local/bin/bikepathd"
install -D -m 0644 "$here/systemd/bikepathd.service" "$destdir/etc/systemd/system/bikepathd.service"
install -D -m 0644 "$here/systemd/sysusers.d/bikepath.conf" "$destdir/usr/lib/sysusers.d/bikepath.conf"
install -D -m 0644 "$here/systemd/90-bikepath-iio.rules" "$destdir/etc/udev/rules.d/90-bikepath-iio.rules"
docdir="$destdir/usr/local/share/doc/bikepath"
install -D -m 0644 "$here/systemd/bikepathd.toml" "$docdir/bikepathd.toml.example"
for doc in install.md configuration.md; do
    [ -f "$here/docs/$doc" ] && install -D -m 0644 "$here/docs/$doc" "$docdir/$doc"
done
config="$destdir/etc/bikepath/bikepathd.toml"
if [ -e "$config" ]; then
    echo "    keeping existing /etc/bikepath/bikepathd.toml"
else
    install -D -m 0644 "$here/systemd/bikepathd.toml" "$config"
fi

if [ -n "$destdir" ]; then
    echo "==> staged in $destdir (no users, udev or systemd changes made)"
    exit 0
fi

echo "==> user, device access, unit"
systemd-sysusers /usr/lib/sysusers.d/bikepath.conf
udevadm control --reload
udevadm trigger --subsystem-match=iio --action=add || true
systemctl daemon-reload
echo "==> checking the configuration"
/usr/local/bin/bikepathd config check /etc/bikepath/bikepathd.toml
cat <<'DONE'
==> done. Next:
    systemctl enable --now bikepathd     # start now and at every boot
    journalctl -u bikepathd -f           # its log
    usermod -aG bikepath "$USER"         # then log in again: lets you run `bikepathd status` / `tail`
DONE
