#!/bin/sh
# scripts/lib/sysroot-hook.sh ROOT: mmdebstrap's --extract-hook for a sysroot made with
# --variant=extract (scripts/lib/cross.sh, make_sysroot). Nothing is installed in such a
# root, so dpkg knows none of its packages; this writes what scripts/package needs of
# dpkg's database instead, from the very .debs that were extracted:
#   ROOT/.debs/files            "PACKAGE /path" for every file each package ships
#   ROOT/.debs/PACKAGE.shlibs   the package's shlibs file (the dependency it declares)
# and the merged-/usr links that base-files would make (libc.so names /lib/...).
set -eu
root=$1
m=$root/.debs
mkdir -p "$m"
: >"$m/files"
for deb in "$root"/var/cache/apt/archives/*.deb; do
  pkg=$(dpkg-deb -f "$deb" Package)
  dpkg-deb -c "$deb" | awk -v p="$pkg" '{ sub(/^\./, "", $6); print p, $6 }' >>"$m/files"
  dpkg-deb --ctrl-tarfile "$deb" | tar -xO ./shlibs 2>/dev/null >"$m/$pkg.shlibs" || rm -f "$m/$pkg.shlibs"
done
for d in bin sbin lib; do
  [ -e "$root/$d" ] || [ ! -d "$root/usr/$d" ] || ln -s "usr/$d" "$root/$d"
done
