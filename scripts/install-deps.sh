#!/bin/sh
# Install the Debian/Ubuntu packages gpubench builds against.
#   scripts/install-deps.sh               install (apt-get), saying what
#   scripts/install-deps.sh --if-missing  only when something is missing
#   scripts/install-deps.sh --list        print the package names
# patchelf is only for `make bundle`; python3-scipy for scripts/cpu-peer-check.py (and its test);
# slurm-wlm and munge for the test that starts a one-node SLURM (tests/slurm/run-slurm-test.sh);
# clang and libclang-rt-14-dev (libFuzzer) for `make fuzz`, valgrind for `make valgrind` (CI runs both);
# CUDA is not installed here: the CUDA backend is built when nvcc is found
# (/usr/local/cuda or PATH) and skipped otherwise.
set -eu

PACKAGES="build-essential pkg-config libopenblas-dev liblapacke-dev libfftw3-dev \
libsuitesparse-dev libgraphblas-dev libcjson-dev libsqlite3-dev sqlite3 python3 python3-matplotlib python3-scipy xz-utils patchelf \
slurm-wlm munge clang libclang-rt-14-dev valgrind"

if [ "${1:-}" = "--list" ]; then
    echo $PACKAGES
    exit 0
fi

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

if [ -z "$missing" ]; then
    [ "${1:-}" = "--if-missing" ] || echo "install-deps: all packages present:$(echo " $PACKAGES" | tr -s ' ')"
    exit 0
fi

echo "install-deps: installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
