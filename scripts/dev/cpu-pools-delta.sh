#!/bin/sh
# cpu-pools-delta.sh DELTA_DIR [COMMIT]
#
# On the development machine: what scripts/dev/cpu-pools-gpu-host.sh needs
# beside the bundle to make its comparison builds A and C there — the CPU-only
# gpubench of COMMIT (default 2d55e1b, the build before issue #42), built in
# a temporary worktree, and Debian's pthread OpenBLAS (libopenblas0-pthread)
# and FFTW thread libraries, each with RUNPATH $ORIGIN (patchelf) so that
# their own dependencies resolve inside the bundle's lib/.
set -eu
DELTA=$1 COMMIT=${2:-2d55e1b}
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
MULTIARCH=$(cc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
PTHREAD=/usr/lib/$MULTIARCH/openblas-pthread
[ -f "$PTHREAD/libopenblas.so.0" ] || { echo "cpu-pools-delta: no $PTHREAD (apt-get install libopenblas0-pthread)" >&2; exit 1; }
mkdir -p "$DELTA"
W=$(mktemp -d "${TMPDIR:-/tmp}/gb-old.XXXXXX")
trap 'git -C "$ROOT" worktree remove --force "$W/src" >/dev/null 2>&1; rm -rf "$W"' EXIT
git -C "$ROOT" worktree add --detach "$W/src" "$COMMIT" >/dev/null
make -C "$W/src" -j"$(nproc)" CUDA=0 gpubench >/dev/null
cp "$W/src/gpubench" "$DELTA/old-gpubench"
for l in libopenblas.so.0 libblas.so.3 liblapack.so.3; do cp -L "$PTHREAD/$l" "$DELTA/$l"; done
for l in libfftw3_threads.so.3 libfftw3f_threads.so.3; do cp -L "/usr/lib/$MULTIARCH/$l" "$DELTA/$l"; done
for f in "$DELTA"/*.so.*; do
    chmod 755 "$f"
    patchelf --set-rpath '$ORIGIN' "$f"
done
du -sh "$DELTA"
