#!/bin/bash
# Packs PETSc and Kokkos source trees that the user has (git repositories or checkouts) into small tarballs for
# tools/build-gpu-stack.sh, e.g. to carry them to a GPU machine without network access. It never downloads anything.
#
#   tools/pack-sources.sh --petsc <git dir or checkout> [--petsc-rev REV] --kokkos <git dir or checkout>
#                         [--kokkos-rev REV] [--out DIR]
#
#   --petsc      a PETSc git repository (its .git, a bare mirror, or a checkout); REV default HEAD
#   --kokkos     a Kokkos git repository; REV default the newest release tag 4.6.* (PETSc's Kokkos types failed with
#                development snapshots: see the README), else HEAD
#   --out        where petsc.tar.xz and kokkos.tar.gz are written (default: .gpu/src)
#
# The PETSc tarball leaves out what building the library does not read (doc/, src/binding/, the test directories and
# the expected outputs of the examples, share/petsc/datafiles): about 7 MB instead of 30 MB compressed. The PETSc
# tutorials stay (petsckp's tests build some of them). Kokkos is packed whole (its CMake reads every directory).
set -euo pipefail
usage() { sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit "${1:-0}"; }
die() { echo "pack-sources: $*" >&2; exit 1; }
PETSC="" PREV=HEAD KOKKOS="" KREV="" OUT=.gpu/src
while [ $# -gt 0 ]; do
  case "$1" in
  --petsc) PETSC=$2; shift 2 ;;
  --petsc-rev) PREV=$2; shift 2 ;;
  --kokkos) KOKKOS=$2; shift 2 ;;
  --kokkos-rev) KREV=$2; shift 2 ;;
  --out) OUT=$2; shift 2 ;;
  -h | --help) usage 0 ;;
  *) echo "unknown argument $1" >&2; usage 1 ;;
  esac
done
[ -n "$PETSC" ] || die "missing --petsc <PETSc git repository>"
[ -n "$KOKKOS" ] || die "missing --kokkos <Kokkos git repository>"
gitdir() { if [ -d "$1/.git" ]; then echo "$1/.git"; else echo "$1"; fi; }
PG=$(gitdir "$PETSC") KG=$(gitdir "$KOKKOS")
git --git-dir="$PG" rev-parse --verify -q "$PREV^{commit}" > /dev/null || die "$PETSC has no revision $PREV (is it a git repository?)"
if [ -z "$KREV" ]; then
  KREV=$(git --git-dir="$KG" tag -l '4.6.*' | sort -V | tail -1)
  [ -n "$KREV" ] || KREV=HEAD
fi
git --git-dir="$KG" rev-parse --verify -q "$KREV^{commit}" > /dev/null || die "$KOKKOS has no revision $KREV (is it a git repository?)"
git --git-dir="$PG" cat-file -e "$PREV:include/petscversion.h" 2> /dev/null || die "$PETSC is not a PETSc repository (no include/petscversion.h)"
git --git-dir="$KG" cat-file -e "$KREV:core/src/Kokkos_Core.hpp" 2> /dev/null || die "$KOKKOS is not a Kokkos repository (no core/src/Kokkos_Core.hpp)"
mkdir -p "$OUT"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
git --git-dir="$PG" archive --prefix=petsc/ "$PREV" | tar -x -C "$TMP"
rm -rf "$TMP/petsc/doc" "$TMP/petsc/src/binding" "$TMP/petsc/share/petsc/datafiles"
find "$TMP/petsc/src" -type d \( -name output -o -name tests \) -prune -exec rm -rf {} +
tar -C "$TMP" -cf - petsc | xz -T0 -6 > "$OUT/petsc.tar.xz"
git --git-dir="$KG" archive --prefix=kokkos/ "$KREV" | gzip -1 > "$OUT/kokkos.tar.gz"
echo "pack-sources: $OUT/petsc.tar.xz (PETSc $PREV, $(du -h "$OUT/petsc.tar.xz" | cut -f1)), $OUT/kokkos.tar.gz (Kokkos $KREV, $(du -h "$OUT/kokkos.tar.gz" | cut -f1))"
echo "  then: tools/build-gpu-stack.sh --petsc $OUT/petsc.tar.xz --kokkos $OUT/kokkos.tar.gz  (or bench/gpu/multi_gpu.sh with the same two)"
