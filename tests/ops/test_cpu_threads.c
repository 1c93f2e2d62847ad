/* test_cpu_threads.c — the CPU side's threads run where the binding put
 * them (cpu_bind.c): OpenBLAS's worker pthreads pinned one per CPU like the
 * OpenMP threads; and with GPUBENCH_FFTW_OMP_THREADS=1, FFTW's parallel
 * loops on the OpenMP threads (fftw_threads_set_callback) instead of its
 * own (the default: faster on the GPU host). In this process, with the CPU
 * backend brought up as the op tests do (threads from the CPU set). */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <cblas.h>
#include <cjson/cJSON.h>

#include "cpu_backend.h"
#include "testlib.h"
#include "testlib_ops.h"

TEST(cpu_openblas_workers_pinned_and_fftw_loops_on_openmp_only_when_asked) {
    gb_test_cpu_up();
    cJSON *ctx = cJSON_CreateObject();
    gb_cpu_describe_binding(ctx);
    const cJSON *b = cJSON_GetObjectItem(ctx, "cpu_binding");
    int bound = cJSON_IsTrue(cJSON_GetObjectItem(b, "bound"));
    const char *how = cJSON_GetStringValue(cJSON_GetObjectItem(b, "how"));
    if (!bound || gb_cpu_threads() < 2) {
        SKIP("threads are not bound here (one CPU, or OMP_PROC_BIND / OMP_PLACES set)");
        cJSON_Delete(ctx);
        return;
    }
    CHECK(how && strstr(how, "OpenBLAS's") != NULL);
    cJSON_Delete(ctx);
    /* worker 0 on one CPU, and not on the same CPU as the caller's first
     * OpenMP worker would leave it: each worker alone on its CPU */
    cpu_set_t one;
    CPU_ZERO(&one);
    CHECK(openblas_getaffinity(0, sizeof one, &one) == 0);
    CHECK(CPU_COUNT(&one) == 1);
    for (int omp = 1; omp >= 0; omp--) {
        setenv("GPUBENCH_FFTW_OMP_THREADS", omp ? "1" : "0", 1);
        long before = gb_cpu_fftw_omp_loops();
        gb_case c = gb_test_op_case(GB_OP_FFT, GB_FLOAT64, 512, 512);
        gb_arrays in = {0}, out = {0};
        gb_verdict v;
        CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
        CHECK(omp ? gb_cpu_fftw_omp_loops() > before : gb_cpu_fftw_omp_loops() == before);
        gb_arrays_free(&in);
        gb_arrays_free(&out);
    }
    unsetenv("GPUBENCH_FFTW_OMP_THREADS");
}
