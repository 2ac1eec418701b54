#!/bin/sh
# Installs every Debian package petsc-kokkos-plugins needs to build and test on a CPU machine (Debian 12).
set -e
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake pkg-config python3 \
  petsc-dev libpetsc3.18-dev-examples libtrilinos-kokkos-dev libgtest-dev \
  openmpi-bin libopenmpi-dev python3-numpy python3-scipy valgrind >/dev/null
echo "petsckp: Debian packages installed"
