#!/bin/bash
# Installs the build tree into a scratch prefix and builds a consumer three ways: CMake package, pkg-config, makefile.
#   run.sh <build dir> <scratch dir> <PETSc prefix> <C compiler> [PETSc pkg-config dir]
set -euo pipefail
export PKG_CONFIG_PATH=${PKG_CONFIG_PATH:-}
B=$1; S=$2; PETSC_PREFIX=$3; CC=$4
[ -n "${5:-}" ] && export PKG_CONFIG_PATH="$5:$PKG_CONFIG_PATH"
SRC=$(cd "$(dirname "$0")" && pwd)
rm -rf "$S" && mkdir -p "$S/work"
cmake --install "$B" --prefix "$S/prefix" > /dev/null
cp "$SRC/consumer.c" "$SRC/CMakeLists.txt" "$SRC/makefile" "$S/work/"
cd "$S/work"
cmake -S . -B cm -DCMAKE_PREFIX_PATH="$S/prefix" -DCMAKE_C_COMPILER="$CC" > /dev/null
cmake --build cm > /dev/null
./cm/consumer | grep -q "^petsckp " && echo "find_package(PetscKP): ok"
PKG_CONFIG_PATH="$S/prefix/lib/pkgconfig:$PKG_CONFIG_PATH" $CC consumer.c $(PKG_CONFIG_PATH="$S/prefix/lib/pkgconfig:$PKG_CONFIG_PATH" pkg-config --cflags --libs petsckp) -lm -o consumer_pc
./consumer_pc | grep -q "^petsckp " && echo "pkg-config petsckp: ok"
if [ -f "$PETSC_PREFIX/lib/petsc/conf/variables" ]; then
  make -s consumer_mk PETSC_DIR="$PETSC_PREFIX" PETSC_ARCH= PETSCKP_PREFIX="$S/prefix" > /dev/null
  ./consumer_mk | grep -q "^petsckp " && echo "petsckp.mk: ok"
fi
