#!/bin/sh
# bundle.sh VERSION — a relocatable tarball for hosts that lack our CPU
# libraries (cluster nodes): dist/gpubench-VERSION-linux-x86_64.tar.xz
#
#   bin/gpubench                    RUNPATH $ORIGIN/../lib (set by the Makefile)
#   lib/gpubench/gpubench-cuda.so   RUNPATH $ORIGIN/..:$ORIGIN/../..:<CUDA_HOME>/lib64
#   lib/libblis.so.4                BLIS, which gpubench opens at run time (dlopen, so
#                                   ldd does not list it), when this machine has it
#   lib/*.so.*                      every shared library gpubench and the plugin load
#                                   except glibc's and the CUDA/driver ones, each under
#                                   its SONAME, with RUNPATH $ORIGIN (so that their own
#                                   dependencies, e.g. liblapacke → liblapack, resolve
#                                   inside the bundle too)
#   suites/ scripts/ (and scripts/dev/) README.md BUNDLE.txt
#
# CUDA itself (libcudart, cuBLAS, cuFFT, cuSOLVER, cuSPARSE, the driver) is
# not bundled: it comes from the GPU host (toolkit or module), and
# `gpubench list` names the library it could not load.
#
# Needs at bundle time (not on the target): patchelf, ldd, readelf, xz.
# Ends by unpacking the tarball into a temporary directory and running
# `env -i PATH=/usr/bin:/bin .../bin/gpubench list` from there.
set -eu

die() { echo "bundle: $*" >&2; exit 1; }

VERSION=${1:-}
[ -n "$VERSION" ] || die "usage: scripts/dev/bundle.sh VERSION"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
[ -x gpubench ] || die "no ./gpubench: run make first"
for tool in ldd readelf xz tar; do
    command -v "$tool" >/dev/null 2>&1 || die "$tool is needed to bundle"
done
command -v patchelf >/dev/null 2>&1 ||
    die "patchelf is needed at bundle time to give the bundled libraries RUNPATH \$ORIGIN (Debian/Ubuntu: apt-get install patchelf); the target host does not need it"

NAME=gpubench-$VERSION-linux-x86_64
STAGE=dist/$NAME
TARBALL=dist/$NAME.tar.xz
LIMIT=$((64 * 1024 * 1024))
rm -rf "$STAGE" "$TARBALL"
mkdir -p "$STAGE/bin" "$STAGE/lib/gpubench" "$STAGE/suites" "$STAGE/scripts"

cp gpubench "$STAGE/bin/gpubench"
OBJECTS="$STAGE/bin/gpubench"
if [ -f gpubench-cuda.so ]; then
    cp gpubench-cuda.so "$STAGE/lib/gpubench/gpubench-cuda.so"
    OBJECTS="$OBJECTS $STAGE/lib/gpubench/gpubench-cuda.so"
else
    echo "bundle: warning: no gpubench-cuda.so (built without nvcc): the bundle is CPU-only and says 'built without CUDA'" >&2
fi

# The standalone library-call programs (tests/standalone/, `make tools`) so
# that scripts/dev/check-cpu-overhead.sh runs on the target host too.
if ls build/standalone/* >/dev/null 2>&1; then
    mkdir -p "$STAGE/tools"
    for t in build/standalone/*; do
        cp "$t" "$STAGE/tools/"
        OBJECTS="$OBJECTS $STAGE/tools/$(basename "$t")"
    done
fi

# Libraries gpubench opens with dlopen (cpu_backends/cpu_gemm_dl.c): ldd
# cannot see them, so they are named here, copied when this machine has them
# (the bundle then runs BLIS where the target has none) and their own
# dependencies collected with the rest below. dlopen finds them through
# bin/gpubench's RUNPATH ($ORIGIN/../lib).
DLOPENED=""
for soname in libblis.so.4; do
    # BLIS's OpenMP build first (libblis4-openmp: the one pool), whatever
    # Debian's alternatives point libblis.so.4 at
    path=/usr/lib/$(gcc -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)/blis-openmp/$soname
    [ -f "$path" ] || path=$(ldconfig -p 2>/dev/null | awk -v s="$soname" '$1 == s && /x86-64/ { print $NF; exit }')
    if [ -z "$path" ]; then
        echo "bundle: note: no $soname here: the bundle has no BLIS (its GEMM candidate is skipped with the reason)" >&2
        continue
    fi
    cp -L "$path" "$STAGE/lib/$soname"
    chmod 755 "$STAGE/lib/$soname"
    patchelf --set-rpath '$ORIGIN' "$STAGE/lib/$soname"
    OBJECTS="$OBJECTS $STAGE/lib/$soname"
    DLOPENED="$DLOPENED $soname"
done

# The Makefile's rpaths are what make the bundle relocatable: check them.
readelf -d "$STAGE/bin/gpubench" | grep -E 'R(UN)?PATH' | grep -qF '$ORIGIN/../lib' ||
    die "bin/gpubench lacks the rpath \$ORIGIN/../lib (see LDFLAGS in the Makefile)"
if [ -f "$STAGE/lib/gpubench/gpubench-cuda.so" ]; then
    readelf -d "$STAGE/lib/gpubench/gpubench-cuda.so" | grep -E 'R(UN)?PATH' | grep -qF '$ORIGIN/..' ||
        die "gpubench-cuda.so lacks the rpath \$ORIGIN/.. (see GPU_LIBS in the Makefile)"
fi

# Libraries every Linux host has (glibc's, and the GCC C++ runtime that the
# CUDA libraries themselves need) and those that must come from the GPU host
# (CUDA toolkit and driver) stay out. The C++ runtime stays out on purpose:
# the plugin asks it for nothing newer than CXXABI_1.3, while Debian 12's
# libstdc++ would raise the bundle's glibc floor from 2.35 to 2.36.
excluded() {
    case "$1" in
        linux-vdso.so*|ld-linux*|libc.so.*|libm.so.*|libdl.so.*|libpthread.so.*|librt.so.*) return 0 ;;
        libmvec.so.*|libresolv.so.*|libutil.so.*) return 0 ;;
        libstdc++.so.*|libgcc_s.so.*) return 0 ;;
        libcuda.so*|libcudart.so*|libcublas.so*|libcublasLt.so*|libcufft.so*|libcufftw.so*) return 0 ;;
        libcusolver.so*|libcusolverMg.so*|libcusparse.so*|libnvJitLink.so*|libnvrtc*|libcurand.so*) return 0 ;;
        libnvidia-*|libnvToolsExt*|libnvperf*) return 0 ;;
    esac
    return 1
}

# ldd lists the whole dependency tree. Debian reaches OpenBLAS through
# alternatives symlinks (libblas.so.3 → /etc/alternatives → openblas-pthread):
# cp -L copies the real file under the SONAME the loader asks for.
ldd $OBJECTS | awk '$2 == "=>" { print $1, $3 }' | sort -u > "$STAGE/.deps"
copied=""
while read -r soname path; do
    excluded "$soname" && continue
    [ "$path" != "not" ] || die "$soname: not found by ldd on this machine"
    [ -f "$STAGE/lib/$soname" ] && continue
    cp -L "$path" "$STAGE/lib/$soname"
    chmod 755 "$STAGE/lib/$soname"
    patchelf --set-rpath '$ORIGIN' "$STAGE/lib/$soname"
    copied="$copied $soname"
done < "$STAGE/.deps"
rm -f "$STAGE/.deps"
[ -n "$copied" ] || die "no libraries collected (ldd output unexpected?)"
copied="$copied$DLOPENED"

cp suites/*.json "$STAGE/suites/"
# The user scripts and the developers' (gpu-host-check.sh runs from an
# unpacked bundle on the GPU host, with test-gpu.sh and the check-* scripts).
mkdir -p "$STAGE/scripts/dev"
for f in scripts/* scripts/dev/*; do
    [ -f "$f" ] && cp "$f" "$STAGE/$f"
done
if [ -f README.md ]; then cp README.md "$STAGE/README.md"; else echo "bundle: warning: no README.md to include" >&2; fi

# The newest glibc symbol version anything in the bundle needs: the floor
# for the target host (the bundle carries no glibc of its own).
glibc_need=$(for f in "$STAGE"/bin/gpubench "$STAGE"/lib/*.so* "$STAGE"/lib/gpubench/*.so; do
    [ -f "$f" ] && objdump -T "$f" 2>/dev/null | grep -o 'GLIBC_[0-9][0-9.]*'
done | sed 's/GLIBC_//' | sort -uV | tail -n 1)
cuda_built=$(sed -n 's/^#define CUDART_VERSION *\([0-9]*\).*/\1/p' "${CUDA_HOME:-/usr/local/cuda}/include/cuda_runtime_api.h" 2>/dev/null || true)
{
    echo "gpubench $VERSION, linux-x86_64, built $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
    echo "commit: ${GIT_COMMIT:-unknown} (what bin/gpubench records as context.build.git_commit)"
    echo "needs: glibc >= ${glibc_need:-?} on the target host"
    if [ -f "$STAGE/lib/gpubench/gpubench-cuda.so" ]; then
        [ -n "$cuda_built" ] && echo "CUDA plugin built against CUDA runtime $((cuda_built / 1000)).$(((cuda_built % 1000) / 10)): the host needs that toolkit's libraries (libcudart, cuBLAS, cuFFT, cuSOLVER, cuSPARSE) on its library path and a driver that supports it"
        echo "CUDA libraries are looked up in: LD_LIBRARY_PATH, ${CUDA_HOME:-/usr/local/cuda}/lib64, the system library path"
    else
        echo "no CUDA plugin in this bundle"
    fi
    echo "bundled libraries:$copied"
} > "$STAGE/BUNDLE.txt"

# ---- pack, keeping under the size limit ------------------------------------
pack() { tar -C dist -cf - "$NAME" | xz "$1" -T0 > "$TARBALL"; }
pack -6
size=$(stat -c %s "$TARBALL")
if [ "$size" -gt "$LIMIT" ]; then
    pack -9e
    size=$(stat -c %s "$TARBALL")
fi
[ "$size" -le "$LIMIT" ] || die "$TARBALL is $size bytes, over the 64 MiB limit"

# ---- smoke test: unpack elsewhere, run with an empty environment ------------
T=$(mktemp -d "${TMPDIR:-/tmp}/gpubench-bundle.XXXXXX")
trap 'rm -rf "$T"' EXIT
tar -C "$T" -xJf "$TARBALL"
B=$T/$NAME
if ! env -i PATH=/usr/bin:/bin "$B/bin/gpubench" list > "$T/list.txt" 2>&1; then
    cat "$T/list.txt" >&2
    die "the unpacked bundle's 'gpubench list' failed"
fi
# Every bundled library must resolve from the bundle, not from the system.
env -i PATH=/usr/bin:/bin ldd "$B/bin/gpubench" > "$T/ldd.txt" 2>&1
[ -f "$B/lib/gpubench/gpubench-cuda.so" ] && env -i PATH=/usr/bin:/bin ldd "$B/lib/gpubench/gpubench-cuda.so" >> "$T/ldd.txt" 2>&1
want_dir=$(cd "$B/lib" && pwd -P)
for soname in $copied; do
    grep -E "^[[:space:]]*$soname => " "$T/ldd.txt" | awk '{ print $3 }' | sort -u | while read -r got; do
        got_dir=$(cd "$(dirname "$got")" 2>/dev/null && pwd -P || echo "$got")
        [ "$got_dir" = "$want_dir" ] || die "$soname resolves outside the bundle: $got"
    done
done
# A dlopened library must open from the bundle too (info reports BLIS's version or why not).
case "$DLOPENED" in *libblis*)
    env -i PATH=/usr/bin:/bin "$B/bin/gpubench" info --format json > "$T/info.json" 2>&1 || true
    grep -q '"version":[[:space:]]*"BLIS' "$T/info.json" || die "the unpacked bundle's gpubench could not open its libblis.so.4 (see gpubench info)"
    ;;
esac
cuda_line=$(grep -E '^ +cuda +' "$T/list.txt" | sed 's/^ *//')
echo "bundle: $TARBALL ($(( (size + 1048575) / 1048576 )) MiB, limit 64 MiB)"
echo "bundle: $(echo "$copied" | wc -w) libraries bundled; needs glibc >= ${glibc_need:-?}"
echo "bundle: unpacked and run with an empty environment: ${cuda_line:-no cuda line in gpubench list}"
