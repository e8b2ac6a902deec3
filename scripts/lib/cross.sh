# Shared by scripts/package and scripts/arm64-check (sourced, not run): where the
# scratch roots live, how they are made and how a command runs inside one.
#
# Everything lands under .build-cross/ (ignored by git through `.build-*/`), or under
# $CROSS_DIR. Nothing here is a cache between CI runs: CI starts from a clean clone,
# so every root is made anew there. The check's trixie root keeps its .debs in
# $CROSS_DIR/apt-cache-trixie, which the check's apt reads again. The sid compiler root and
# the sysroot keep theirs to themselves: sharing one cache put 778 MB of amd64 compiler
# packages through the check root twice (in and out) for nothing, and the sysroot and the
# check root are made at the same time (.ci/run), so they must not write one cache.

CROSS_DIR=${CROSS_DIR:-$PWD/.build-cross}
# mmdebstrap wants its target's parent to exist ("unable to get absolute path of target
# directory"): a fresh clone has no .build-cross until something makes it.
mkdir -p "$CROSS_DIR"
APT_CACHE=$CROSS_DIR/apt-cache-trixie
# sid's Release file on this mirror is past its Valid-Until; trixie's is not, but the
# option is harmless there.
APTOPT=(--aptopt='Acquire::Check-Valid-Until "false"')

log() { printf '%s %s\n' "[$(date -u +%H:%M:%S)]" "$*" >&2; }
die() {
  printf 'FAILED: %s\n' "$*" >&2
  exit 1
}

# Step timings: `step NAME` starts one, `step_end` prints how long the last one took.
step() {
  STEP_NAME=$1
  STEP_T0=$(date +%s)
  log "== $STEP_NAME"
}
step_end() { log "== $STEP_NAME: $(($(date +%s) - STEP_T0)) s"; }

# Needs root (mmdebstrap's root mode, chroot, mounts), qemu for foreign binaries.
need_host_tools() {
  local missing=() p
  for p in mmdebstrap qemu-user-static binfmt-support arch-test; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    log "installing ${missing[*]}"
    DEBIAN_FRONTEND=noninteractive apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
  fi
}

# qemu-aarch64 registered with the kernel, so arm64 binaries in a chroot just run.
enable_binfmt() {
  [ -e /proc/sys/fs/binfmt_misc/status ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
  [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || die "qemu-aarch64 is not registered in binfmt_misc"
}

# make_root DIR SUITE ARCHES PACKAGES [extra mmdebstrap args...]: a directory root,
# made once (DIR/.made marks a finished one); a trixie root's .debs are shared through
# $APT_CACHE.
make_root() {
  local dir=$1 suite=$2 arches=$3 packages=$4 cache=()
  shift 4
  if [ -e "$dir/.made" ]; then
    log "root $dir exists"
    return
  fi
  rm -rf "$dir"
  if [ "$suite" = trixie ]; then
    mkdir -p "$APT_CACHE"
    cache=(--skip=essential/unlink
      --setup-hook='mkdir -p "$1"/var/cache/apt/archives/'
      --setup-hook="sync-in $APT_CACHE /var/cache/apt/archives/"
      --customize-hook="sync-out /var/cache/apt/archives $APT_CACHE")
  fi
  mmdebstrap --variant=apt --architectures="$arches" "${APTOPT[@]}" \
    --include="$packages" "${cache[@]}" \
    "$@" "$suite" "$dir" >&2
  touch "$dir/.made"
}

# make_sysroot DIR SUITE ARCH PACKAGES: a sysroot to compile and link against, made with
# --variant=extract: the packages and their dependencies are downloaded and unpacked, and
# no maintainer script runs (a sysroot needs headers and libraries, nothing configured).
# For arm64 that keeps qemu out of it: 29-39 s here from nothing, against 940 s for the
# --variant=apt root it replaced (every essential package's scripts under emulation).
# scripts/lib/sysroot-hook.sh writes DIR/.debs/ in place of dpkg's database (which
# package ships which file, their shlibs) for scripts/package's Depends:.
make_sysroot() {
  local dir=$1 suite=$2 arch=$3 packages=$4
  # A root made by the earlier --variant=apt recipe has no .debs/, and one made with
  # another package list (.made holds it) lacks what the build now links: made anew.
  if [ "$(cat "$dir/.made" 2>/dev/null)" = "$packages" ] && [ -s "$dir/.debs/files" ]; then
    log "sysroot $dir exists"
    return
  fi
  rm -rf "$dir"
  mmdebstrap --variant=extract --architectures="$arch" "${APTOPT[@]}" \
    --include="$packages" \
    --extract-hook="$PWD/scripts/lib/sysroot-hook.sh \"\$1\"" \
    "$suite" "$dir" >&2
  [ -s "$dir/.debs/files" ] || die "the sysroot hook wrote no $dir/.debs/files"
  # merged /usr's /lib64 (made on a system by its first boot's scripts, which extract runs
  # none of): amd64's libc.so names /lib64/ld-linux-x86-64.so.2, and lld reads it there.
  [ ! -d "$dir/usr/lib64" ] || [ -e "$dir/lib64" ] || ln -s usr/lib64 "$dir/lib64"
  echo "$packages" >"$dir/.made"
}

# The git rewrite of github.com to the local package copies, without the rest of the
# host's /etc/gitconfig (its credential helpers mean nothing in a root).
root_gitconfig() {
  local dir=$1
  : >"$dir/etc/gitconfig"
  git config --system --get-regexp '^url\..*\.insteadof$' | while read -r key value; do
    git config --file "$dir/etc/gitconfig" --add "$key" "$value"
  done
}

# mount_root DIR [HOSTDIR:INNERDIR ...]: /proc (the static Swift runtime reads its
# arguments there; without it every command prints the overview), /dev, and bind mounts.
# Undone by umount_root (scripts trap it).
MOUNTED=()
mount_root() {
  local dir=$1 spec src dst
  shift
  mountpoint -q "$dir/proc" || {
    mount -t proc proc "$dir/proc"
    MOUNTED+=("$dir/proc")
  }
  mountpoint -q "$dir/dev" || {
    mount --rbind /dev "$dir/dev"
    mount --make-rslave "$dir/dev"
    MOUNTED+=("$dir/dev")
  }
  for spec in "$@"; do
    src=${spec%%:*}
    dst=$dir${spec#*:}
    mkdir -p "$dst"
    mountpoint -q "$dst" || {
      mount --bind "$src" "$dst"
      MOUNTED+=("$dst")
    }
  done
}
umount_root() {
  local i
  for ((i = ${#MOUNTED[@]} - 1; i >= 0; i--)); do
    umount -R "${MOUNTED[$i]}" 2>/dev/null || umount -lR "${MOUNTED[$i]}" 2>/dev/null || true
  done
  MOUNTED=()
}
