/* test_svd_methods_suite.c — suites/svd-methods.json is the one run that
 * decides the CUDA backend's svd "auto" rule: it must stay valid against the
 * catalogue and keep covering every cuSOLVER method at the deciding shapes,
 * both dtypes, and a wide shape (the transposed path of the tall-only
 * routines). */
#include <string.h>
#include "suite.h"
#include "testlib.h"

static int has_case(const gb_suite *s, int method, int64_t m, int64_t n, gb_dtype dt) {
    for (size_t i = 0; i < s->count; i++) {
        const gb_case *c = &s->items[i].c;
        if (c->op_id == GB_OP_SVD && c->params.svd_method == method && c->shape[0] == m &&
            c->shape[1] == n && c->dtype == dt)
            return 1;
    }
    return 0;
}

static int has_wide_case(const gb_suite *s, int method) {
    for (size_t i = 0; i < s->count; i++) {
        const gb_case *c = &s->items[i].c;
        if (c->op_id == GB_OP_SVD && c->params.svd_method == method && c->shape[0] < c->shape[1]) return 1;
    }
    return 0;
}

TEST(svd_methods_suite_covers_every_cusolver_method) {
    gb_suite s;
    gb_err e = {{0}};
    int status = gb_suite_load("suites/svd-methods.json", NULL, &s, &e);
    CHECK(status == GB_OK);
    if (status != GB_OK) return;
    const int measured[] = {GB_SVD_AUTO, GB_SVD_GESVD, GB_SVD_XGESVD, GB_SVD_GESVDJ, GB_SVD_GESVDP};
    const int64_t shapes[][2] = {{256, 256}, {1024, 1024}, {2048, 2048}, {10000, 1000}};
    for (size_t i = 0; i < sizeof measured / sizeof *measured; i++) {
        for (size_t j = 0; j < sizeof shapes / sizeof *shapes; j++) {
            CHECK(has_case(&s, measured[i], shapes[j][0], shapes[j][1], GB_FLOAT32));
            CHECK(has_case(&s, measured[i], shapes[j][0], shapes[j][1], GB_FLOAT64));
        }
        CHECK(has_wide_case(&s, measured[i]));
    }
    /* The float32 candidates: gesvdp64 (auto's square float32 choice),
     * xgesvdr, and gesvdj with a tolerance tighter than its default. */
    for (size_t j = 0; j < sizeof shapes / sizeof *shapes; j++) {
        CHECK(has_case(&s, GB_SVD_GESVDP64, shapes[j][0], shapes[j][1], GB_FLOAT32));
        CHECK(has_case(&s, GB_SVD_XGESVDR, shapes[j][0], shapes[j][1], GB_FLOAT32));
        int tight32 = 0, tight64 = 0;
        for (size_t i = 0; i < s.count; i++) {
            const gb_case *c = &s.items[i].c;
            if (c->op_id != GB_OP_SVD || c->params.svd_method != GB_SVD_GESVDJ || c->shape[0] != shapes[j][0] ||
                c->shape[1] != shapes[j][1] || !(c->params.svd_tol > 0))
                continue;
            if (c->dtype == GB_FLOAT32 && c->params.svd_tol < 0x1.0p-24) tight32 = 1;
            if (c->dtype == GB_FLOAT64 && c->params.svd_tol < 0x1.0p-53) tight64 = 1;
        }
        CHECK(tight32 && tight64);
    }
    CHECK(has_wide_case(&s, GB_SVD_GESVDP64) && has_wide_case(&s, GB_SVD_XGESVDR));
    /* xgesvdp runs the same routine as gesvdp: smoke-checked, not swept. */
    CHECK(has_case(&s, GB_SVD_XGESVDP, 256, 256, GB_FLOAT64));
    CHECK(has_wide_case(&s, GB_SVD_XGESVDP));
    gb_suite_free(&s);
}

/* tol came after the recorded H100 runs: at its default it stays out of a
 * case's params, so those runs still match new ones in `compare`. */
TEST(svd_tol_is_left_out_of_params_at_its_default) {
    gb_suite s;
    gb_err e = {{0}};
    const char *text = "{\"name\":\"t\",\"benchmarks\":[{\"op\":\"svd\",\"sizes\":[8],\"dtypes\":[\"float32\"]},"
                       "{\"op\":\"svd\",\"sizes\":[8],\"dtypes\":[\"float32\"],"
                       "\"params\":{\"method\":\"gesvdj\",\"tol\":1e-8}}]}";
    CHECK(gb_suite_parse(text, "t.json", NULL, &s, &e) == GB_OK);
    if (s.count != 2) return;
    cJSON *plain = gb_params_to_json(&s.items[0].c), *tight = gb_params_to_json(&s.items[1].c);
    CHECK(cJSON_GetObjectItem(plain, "tol") == NULL && cJSON_GetObjectItem(plain, "method") != NULL);
    CHECK(cJSON_IsNumber(cJSON_GetObjectItem(tight, "tol")) && cJSON_GetObjectItem(tight, "tol")->valuedouble == 1e-8);
    cJSON_Delete(plain);
    cJSON_Delete(tight);
    gb_suite_free(&s);
}
