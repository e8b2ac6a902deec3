#!/usr/bin/env bash
# Installs the Debian packages the build, the tests and the demo need, only when
# something is missing (a fresh Debian 12 / Raspberry Pi OS machine needs nothing else
# but a Swift toolchain). Needs root or sudo when it has to install.
set -euo pipefail
packages=(pkg-config libsqlite3-dev sqlite3 libmd-dev libcurl4-openssl-dev libgps-dev gpsd gpsd-clients libiio-dev libiio-utils iiod triggerhappy
          python3 python3-venv libxml2-utils util-linux procps postgresql
          chromium chromium-driver fonts-dejavu-core  # chromium: the review page's and the map page's browser tests
          libjs-leaflet  # the hub's map page (/map) serves Debian's Leaflet
          eslint python3-cssutils)  # scripts/lint/page: the pages' JavaScript and CSS
# The hub's map on PostgreSQL: PostGIS for the network's geometries, pgRouting for routes (docs/hub.md).
packages+=(postgresql-15-postgis-3 postgresql-15-pgrouting)
# The hub's OpenStreetMap import (`bikepath-hub import-osm`) reads .osm.pbf through osmium (places by
# name: PostgreSQL's pg_trgm comes with postgresql-15).
packages+=(osmium-tool)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "ensure-deps: installing ${missing[*]}" >&2
sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
# gpsd's package enables a system service; the tests start their own gpsd on other ports.
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  $sudo systemctl disable --now gpsd.socket gpsd.service >/dev/null 2>&1 || true
  # Likewise PostgreSQL's: the hub's tests start a throwaway cluster of their own (Tests/Support/PostgresCluster.swift).
  $sudo systemctl disable --now postgresql.service >/dev/null 2>&1 || true
fi
