#!/bin/sh
# Install the Debian/Ubuntu packages gpubench needs, by what they are for:
#   scripts/dev/install-deps.sh --run    building and running gpubench (make run):
#                                        compiler, CPU libraries (oneDNN: the CPU's bfloat16/int8
#                                        GEMM), cJSON, Python + matplotlib (plots)
#   scripts/dev/install-deps.sh --test   that and what the tests need (make test): python3-numpy,
#                                        python3-scipy and python3-torch (the framework peers, tests/peers,
#                                        and scripts/cpu-peer-check.py's test), python3-jsonschema for
#                                        the test that checks results/ against docs/results.schema.json,
#                                        slurm-wlm and munge
#                                        for the test that starts a one-node SLURM
#                                        (tests/slurm/run-slurm-test.sh), zsh, fish and groff-base
#                                        to check the generated completions and man page,
#                                        libbenchmark-tools (Google Benchmark's compare.py) to
#                                        read the Google Benchmark export
#   scripts/dev/install-deps.sh [--all]  that and what CI and packaging add (make deps, .ci/run):
#                                        clang and libclang-rt-14-dev (libFuzzer) for make fuzz,
#                                        valgrind for make valgrind, xz-utils and patchelf for
#                                        make bundle
# with, in any order:
#   --if-missing   say nothing when everything is installed already
#   --list         print the package names of the set and install nothing
# CUDA is not installed here: the CUDA backend is built when nvcc is found
# (/usr/local/cuda or PATH) and skipped otherwise.
set -eu

RUN_PACKAGES="build-essential pkg-config libopenblas-openmp-dev liblapacke-dev libfftw3-dev \
libsuitesparse-dev libgraphblas-dev libdnnl-dev libblis4-openmp libcjson-dev libsqlite3-dev python3 python3-matplotlib"
TEST_PACKAGES="python3-numpy python3-scipy python3-torch python3-jsonschema slurm-wlm munge zsh fish groff-base \
libbenchmark-tools"
DEV_PACKAGES="clang libclang-rt-14-dev valgrind xz-utils patchelf"

set_name=all quiet=0 list=0
for arg in "$@"; do
    case "$arg" in
    --run) set_name=run ;;
    --test) set_name=test ;;
    --all) set_name=all ;;
    --if-missing) quiet=1 ;;
    --list) list=1 ;;
    *) echo "usage: scripts/dev/install-deps.sh [--run|--test|--all] [--if-missing] [--list]" >&2; exit 2 ;;
    esac
done
case "$set_name" in
run) PACKAGES="$RUN_PACKAGES" ;;
test) PACKAGES="$RUN_PACKAGES $TEST_PACKAGES" ;;
*) PACKAGES="$RUN_PACKAGES $TEST_PACKAGES $DEV_PACKAGES" ;;
esac

if [ "$list" = 1 ]; then
    echo $PACKAGES
    exit 0
fi

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

if [ -z "$missing" ]; then
    [ "$quiet" = 1 ] || echo "install-deps: all packages present:$(echo " $PACKAGES" | tr -s ' ')"
    exit 0
fi

echo "install-deps: installing:$missing"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO apt-get install -y -q --no-install-recommends $missing
