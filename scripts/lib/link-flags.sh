# The daemon's release build flags, declared once for scripts/package (the .deb) and
# scripts/install.sh (the from-source build); sourced, not run. Each flag is there for the
# daemon's resident memory (docs/performance.md, "Memory of the daemon"; peak RSS of
# `run --replay`, x86-64 static build, bench/rss.sh):
#   lld                         the flags below are lld's (gold: 42.3 MB, lld: 40.6 MB); it is
#                               named outside BUILD_FLAGS (scripts/package's SDK toolset names it,
#                               scripts/install.sh passes -Xswiftc -use-ld=lld): a -Xswiftc flag
#                               is on every compile's command line, and a changed line recompiles
#                               a warm build from nothing (45 min here);
#   -z pack-relative-relocs     DT_RELR (glibc >= 2.36; trixie has 2.41): the PIE's 145,000
#                               relative relocations, 3.4 MB of .rela.dyn all read at start,
#                               become 28 KB (36.7 MB);
#   --no-export-dynamic         the static runtime's link file asks for -export-dynamic: a
#                               1.2 MB .dynsym, its strings and hash table mapped and read (35.4 MB);
#   --icf=safe                  identical functions folded (33.7 MB, measured with --icf=all);
#   --symbol-ordering-file      the functions the daemon runs laid out together
#                               (scripts/lib/bikepathd.order, written by scripts/text-order): the
#                               kernel maps code 64 KB around each fault, so scattered code kept
#                               21 MB of the 31 MB text resident (33.5 -> 28.1 MB);
#   -function-sections          (Swift, -Xfrontend) and -ffunction-sections (C, C++): each
#                               function of every module, ours and the dependencies', in a
#                               section of its own, so the order above moves functions, not a
#                               file's whole .text: resident .text 11.3 -> 9.6 MB, peak RSS
#                               26.8 -> 25.2 MB with the order file written again for it;
#   -disable-llvm-merge-functions-pass  (Swift, -Xfrontend) LLVM's MergeFunctions gives the one
#                               body of identical functions no name (.L__unnamed_N, both callers
#                               jump to it): callgrind cannot name it, nor the order file place it.
#                               With Swift's private functions (-T below), 2,047 unnamed bodies ran
#                               and kept 3.4 MB of .text resident outside the ordered code; the two
#                               flags were measured one after the other. lld's --icf=safe folds identical
#                               functions instead, by name. With the order file written again
#                               (shared sections last, scripts/text-order): 22.5 -> 21.7 MiB, 25.1
#                               -> 23.3 MiB with the review page (the amd64 package, in a trixie
#                               root). A warm build keeps its objects when only such a flag changes
#                               (the frontend skips LLVM when the IR's hash, .swift_modhash, is
#                               unchanged): delete its *.swift.o to see a codegen flag's effect;
#   -T private-code.ld          Swift's other private functions (closure contexts' objectdestroy,
#                               key path accessors) have no name either: laid out together
#                               (scripts/lib/private-code.ld), 21.7 -> 20.1 MiB, 23.3 -> 21.8 MiB.
# bikepathd_build_flags ORDER: sets BUILD_FLAGS, swift build arguments; ORDER is the order file's
# path as the linker sees it (scripts/package links inside a root where the tree is /src).
bikepathd_build_flags() {
  BUILD_FLAGS=(-Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections
    -Xswiftc -Xfrontend -Xswiftc -disable-llvm-merge-functions-pass
    -Xlinker -z -Xlinker pack-relative-relocs -Xlinker --no-export-dynamic -Xlinker --icf=safe
    -Xlinker "--symbol-ordering-file=$1" -Xlinker -T -Xlinker "$(dirname "$1")/private-code.ld")
}

# What the link prints that is not a problem, left out of the build's output (a filter):
# - lld says once per object of the runtime's archives (551 lines) that --icf=safe leaves it
#   unfolded (its address-significance table was lost to `ld -r`): that is the safe case;
# - lld names each function of the order file it does not find (no --no-warn-symbol-ordering,
#   so the count stays visible): names valgrind gave to folded or local copies, and functions
#   another toolchain's runtime (sid's 6.2.3 for the package) or architecture lacks, and (with
#   function sections) those --gc-sections dropped as unused in this build. One line counts
#   them; when most of the file is missing, run scripts/text-order again.
bikepathd_link_filter() {
  awk '/conservatively ignores SHT_LLVM_ADDRSIG/ { next }
    /symbol ordering file: no such symbol|unable to order discarded symbol/ { missing++; next }
    { print; fflush() }  # line by line: a log tailed while the build runs shows where it is
    END { if (missing) printf "link: %d functions of scripts/lib/bikepathd.order not in this build\n", missing }'
}
