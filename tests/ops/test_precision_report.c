/* The report's mixed-precision sentences (src/results/report_precision.c),
 * on real CPU runs: a reduced precision beside float32 gets its multiple of
 * float32's rate and its error against float64; a run of float32 alone gets
 * no such section. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testlib.h"

static int run_and_report(const char *dtypes, const char *name, char *out, unsigned long cap) {
    char cmd[1024];
    const char *res = gb_test_tmp(name);
    snprintf(cmd, sizeof cmd,
             "GPUBENCH_CPU_GEMM_CHOICE= %s run --op matmul --sizes 64,128 --dtype %s --backend cpu --no-peak "
             "--rounds 1 --min-time 10ms --quiet --threads 1 -o %s >/dev/null 2>&1 && %s report %s",
             gb_test_binary(), dtypes, res, gb_test_binary(), res);
    return gb_test_sh(cmd, out, cap);
}

TEST(precision_report_says_int8_rate_as_multiple_of_float32_with_its_error) {
    static char out[65536];
    if (!CHECK(run_and_report("float32,int8", "prec_report_int8.json", out, sizeof out) == 0)) return;
    if (!strstr(out, " 0 skipped")) {
        SKIP("no int8 GEMM kernel on this CPU");
        return;
    }
    CHECK(strstr(out, "Precision: each side against its own float32") != NULL);
    /* the largest size both dtypes ran, the side, and the exact int8 answer */
    CHECK(strstr(out, "matmul at 128x128x128: int8 on the CPU is ") != NULL);
    CHECK(strstr(out, "float32's rate (exact against float64)") != NULL);
}

TEST(precision_report_has_no_precision_section_without_a_reduced_dtype) {
    static char out[65536];
    if (!CHECK(run_and_report("float32", "prec_report_f32.json", out, sizeof out) == 0)) return;
    CHECK(strstr(out, "Precision:") == NULL);
}
