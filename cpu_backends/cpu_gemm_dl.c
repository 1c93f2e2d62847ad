/* cpu_gemm_dl.c — the CPU GEMM libraries opened at run time (cpu_backend.h,
 * gb_cpu_dl_*): BLIS, and the CBLAS library a site names with --cpu-blas PATH
 * (MKL's libmkl_rt.so, a newer OpenBLAS, ...).
 *
 * Why dlopen, not linking: both export cblas_* (and BLAS's sgemm_) under the
 * names OpenBLAS's have, and linked in, one would shadow the other for every
 * op (LAPACKE included). Opened RTLD_LOCAL their symbols stay out of the
 * process's global scope. BLIS is called through its own typed API
 * (bli_sgemm/bli_dgemm, names nothing else defines), so none of its calls can
 * bind to OpenBLAS's; a --cpu-blas library is opened with RTLD_DEEPBIND as
 * well (its cblas_sgemm may call its own sgemm_, which OpenBLAS's would win
 * otherwise) — except in a sanitized build, whose runtime refuses DEEPBIND.
 * The build needs neither: BLIS absent at run time is a candidate skipped
 * with the reason; the bundle carries libblis.so.4 (scripts/dev/bundle.sh).
 * Threads: each library's own setter, found by name (openblas_set_num_threads,
 * bli_thread_set_num_threads, MKL_Set_Num_Threads). */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cblas.h>

#include "cpu_backend.h"
#include "file_read.h"

#define BLIS_SONAME "libblis.so.4"
#define BLIS_OPENMP_FILE "/usr/lib/x86_64-linux-gnu/blis-openmp/" BLIS_SONAME

typedef void (*bli_gemm_fn)(int ta, int tb, int64_t m, int64_t n, int64_t k, const void *alpha, const void *a,
                            int64_t rsa, int64_t csa, const void *b, int64_t rsb, int64_t csb, const void *beta,
                            void *c, int64_t rsc, int64_t csc);
typedef void (*cblas_sgemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint, blasint,
                               blasint, float, const float *, blasint, const float *, blasint, float, float *, blasint);
typedef void (*cblas_dgemm_fn)(enum CBLAS_ORDER, enum CBLAS_TRANSPOSE, enum CBLAS_TRANSPOSE, blasint, blasint,
                               blasint, double, const double *, blasint, const double *, blasint, double, double *,
                               blasint);

typedef struct {
    int tried, ok;
    void *handle;
    char name[320];   /* for the results: "BLIS 0.9.0 (libblis.so.4, zen3)", the --cpu-blas path */
    char reason[320]; /* why not, when !ok */
    bli_gemm_fn bli_s, bli_d;
    cblas_sgemm_fn sgemm;
    cblas_dgemm_fn dgemm;
    void (*set_threads_int)(int);      /* openblas_set_num_threads, MKL_Set_Num_Threads */
    void (*set_threads_dim)(int64_t);  /* bli_thread_set_num_threads */
} dl_lib;

static dl_lib blis, user;
static const char *user_path; /* --cpu-blas */

static int open_flags(int deep) {
    int f = RTLD_NOW | RTLD_LOCAL;
#if defined(__SANITIZE_ADDRESS__)
    deep = 0;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    deep = 0;
#endif
#endif
#ifdef RTLD_DEEPBIND
    if (deep) f |= RTLD_DEEPBIND;
#endif
    return f;
}

/* $GPUBENCH_BLIS names another BLIS file; set empty, BLIS is not used (a
 * build machine's BLIS is then left out, as on a host without one). */
static void open_blis(void) {
    blis.tried = 1;
    const char *file = getenv("GPUBENCH_BLIS");
    if (file && !*file) {
        snprintf(blis.reason, sizeof blis.reason, "BLIS not used (GPUBENCH_BLIS is set empty)");
        return;
    }
    /* unnamed: the bundle's own (lib/ beside bin/), else Debian's OpenMP
     * build (libblis4-openmp: BLIS on the one libgomp pool, whichever build
     * Debian's alternatives made libblis.so.4), else the soname */
    char exe[1024], near[1100];
    ssize_t el = file ? -1 : readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (el > 0) {
        exe[el] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) *slash = '\0';
        snprintf(near, sizeof near, "%s/../lib/%s", exe, BLIS_SONAME);
        if (access(near, R_OK) == 0) file = near;
    }
    if (!file && access(BLIS_OPENMP_FILE, R_OK) == 0) file = BLIS_OPENMP_FILE;
    gb_err fe = {{0}};
    if (gb_check_library_file(file, &fe) != GB_OK) { /* a FIFO named here hung dlopen */
        snprintf(blis.reason, sizeof blis.reason, "BLIS not used (GPUBENCH_BLIS=%.200s)", fe.msg);
        return;
    }
    blis.handle = dlopen(file ? file : BLIS_SONAME, open_flags(0));
    if (!blis.handle) {
        snprintf(blis.reason, sizeof blis.reason, "BLIS not found (%s)", dlerror());
        return;
    }
    int64_t (*int_size)(void) = (int64_t (*)(void))dlsym(blis.handle, "bli_info_get_int_type_size");
    char *(*version)(void) = (char *(*)(void))dlsym(blis.handle, "bli_info_get_version_str");
    int (*arch_id)(void) = (int (*)(void))dlsym(blis.handle, "bli_arch_query_id");
    char *(*arch_name)(int) = (char *(*)(int))dlsym(blis.handle, "bli_arch_string");
    blis.bli_s = (bli_gemm_fn)dlsym(blis.handle, "bli_sgemm");
    blis.bli_d = (bli_gemm_fn)dlsym(blis.handle, "bli_dgemm");
    blis.set_threads_dim = (void (*)(int64_t))dlsym(blis.handle, "bli_thread_set_num_threads");
    if (!int_size || !blis.bli_s || !blis.bli_d || !blis.set_threads_dim) {
        snprintf(blis.reason, sizeof blis.reason, "%s lacks bli_sgemm/bli_dgemm/bli_thread_set_num_threads",
                 BLIS_SONAME);
        return;
    }
    /* dim_t/inc_t are BLIS's integer type: the prototypes here assume 64 bits */
    if (int_size() != 64) {
        snprintf(blis.reason, sizeof blis.reason, "%s was built with %d-bit dimensions (gpubench calls it with 64)",
                 BLIS_SONAME, (int)int_size());
        return;
    }
    snprintf(blis.name, sizeof blis.name, "BLIS %s (%s, %s kernels)", version ? version() : "?", BLIS_SONAME,
             arch_id && arch_name ? arch_name(arch_id()) : "?");
    blis.ok = 1;
}

void gb_cpu_set_blas_path(const char *path) {
    user_path = path;
    memset(&user, 0, sizeof user);
}

const char *gb_cpu_blas_path(void) { return user_path; }

static void open_user(void) {
    user.tried = 1;
    if (!user_path) {
        snprintf(user.reason, sizeof user.reason, "no --cpu-blas given");
        return;
    }
    gb_err fe = {{0}};
    if (gb_check_library_file(user_path, &fe) != GB_OK) { /* a FIFO named here hung dlopen */
        snprintf(user.reason, sizeof user.reason, "--cpu-blas %.250s", fe.msg);
        return;
    }
    user.handle = dlopen(user_path, open_flags(1));
    if (!user.handle) {
        snprintf(user.reason, sizeof user.reason, "--cpu-blas %s: %s", user_path, dlerror());
        return;
    }
    user.sgemm = (cblas_sgemm_fn)dlsym(user.handle, "cblas_sgemm");
    user.dgemm = (cblas_dgemm_fn)dlsym(user.handle, "cblas_dgemm");
    if (!user.sgemm || !user.dgemm) {
        snprintf(user.reason, sizeof user.reason, "--cpu-blas %s: no cblas_%s in it", user_path,
                 user.sgemm ? "dgemm" : "sgemm");
        return;
    }
    user.set_threads_int = (void (*)(int))dlsym(user.handle, "openblas_set_num_threads");
    if (!user.set_threads_int) user.set_threads_int = (void (*)(int))dlsym(user.handle, "MKL_Set_Num_Threads");
    if (!user.set_threads_int)
        user.set_threads_dim = (void (*)(int64_t))dlsym(user.handle, "bli_thread_set_num_threads");
    const char *(*ob_config)(void) = (const char *(*)(void))dlsym(user.handle, "openblas_get_config");
    void (*mkl_version)(char *, int) = (void (*)(char *, int))dlsym(user.handle, "MKL_Get_Version_String");
    char *(*blis_version)(void) = (char *(*)(void))dlsym(user.handle, "bli_info_get_version_str");
    char ver[200] = "";
    if (ob_config) snprintf(ver, sizeof ver, "%s", ob_config());
    else if (mkl_version) mkl_version(ver, (int)sizeof ver - 1);
    else if (blis_version) snprintf(ver, sizeof ver, "BLIS %s", blis_version());
    snprintf(user.name, sizeof user.name, "%s%s%s%s", user_path, *ver ? " (" : "", ver, *ver ? ")" : "");
    user.ok = 1;
}

static dl_lib *lib_of(int lib) {
    dl_lib *l = lib == GB_CPU_GEMM_BLIS ? &blis : lib == GB_CPU_GEMM_CBLAS ? &user : NULL;
    if (l && !l->tried) {
        if (l == &blis) open_blis();
        else open_user();
    }
    return l;
}

int gb_cpu_dl_available(int lib, gb_err *why) {
    dl_lib *l = lib_of(lib);
    if (!l) return gb_errf(why, GB_FAIL, "library %d is not opened at run time", lib);
    return l->ok ? GB_OK : gb_errf(why, GB_SKIP, "%s", l->reason);
}

const char *gb_cpu_dl_name(int lib) {
    dl_lib *l = lib_of(lib);
    return l && l->ok ? l->name : NULL;
}

void gb_cpu_dl_set_threads(int lib, int n) {
    dl_lib *l = lib_of(lib);
    if (!l || !l->ok) return;
    if (l->set_threads_int) l->set_threads_int(n);
    else if (l->set_threads_dim) l->set_threads_dim(n);
}

int gb_cpu_dl_threads_settable(int lib) {
    dl_lib *l = lib_of(lib);
    return l && l->ok && (l->set_threads_int || l->set_threads_dim);
}

void gb_cpu_dl_gemm(int lib, gb_dtype d, int m, int n, int k, const void *A, const void *B, void *C) {
    dl_lib *l = lib_of(lib);
    if (!l || !l->ok) return;
    if (l == &blis) {
        /* row-major: row stride the leading dimension, column stride 1 */
        float one_s = 1, zero_s = 0;
        double one_d = 1, zero_d = 0;
        int f32 = d == GB_FLOAT32;
        (f32 ? l->bli_s : l->bli_d)(0, 0, m, n, k, f32 ? (void *)&one_s : (void *)&one_d, A, k, 1, B, n, 1,
                                    f32 ? (void *)&zero_s : (void *)&zero_d, C, n, 1);
        return;
    }
    if (d == GB_FLOAT32)
        l->sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, A, k, B, n, 0.0f, C, n);
    else
        l->dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0, A, k, B, n, 0.0, C, n);
}
