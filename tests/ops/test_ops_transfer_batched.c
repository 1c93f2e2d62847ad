/* test_ops_transfer_batched.c — transfer and batched_matmul: sizes and
 * counts, the CPU implementations against what they must produce, and the
 * ops' verify() rejecting corrupted outputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"
#include "testlib_ops.h"
#include "op.h"
#include "backend.h"

/* ---- transfer -------------------------------------------------------------- */

/* A case whose size goes through the op's own parser (bytes for transfer). */
static gb_case sized_case(gb_op_id id, gb_dtype d, const char *size_json, gb_err *e, int *status) {
    gb_case c = gb_test_op_case(id, d, 0, 0);
    cJSON *j = cJSON_Parse(size_json);
    *status = c.op->parse_size(j, &c, e);
    cJSON_Delete(j);
    if (*status == GB_OK) c.op->count(&c);
    return c;
}

TEST(transfer_sizes_are_bytes_and_counts_are_bytes_moved) {
    gb_err e = {{0}};
    int s;
    gb_case c = sized_case(GB_OP_TRANSFER, GB_FLOAT32, "\"4KiB\"", &e, &s);
    CHECK(s == GB_OK && c.rank == 1 && c.shape[0] == 4096 && strcmp(c.label, "4KiB") == 0);
    CHECK_NEAR(c.bytes, 4096, 0);
    CHECK_NEAR(c.flops, 0, 0);
    c = sized_case(GB_OP_TRANSFER, GB_FLOAT64, "1073741824", &e, &s);
    CHECK(s == GB_OK && strcmp(c.label, "1GiB") == 0);
    c = sized_case(GB_OP_TRANSFER, GB_FLOAT64, "\"1.5MiB\"", &e, &s);
    CHECK(s == GB_OK && c.shape[0] == 1572864 && strcmp(c.label, "1536KiB") == 0);
    c = sized_case(GB_OP_TRANSFER, GB_FLOAT64, "1000", &e, &s);
    CHECK(s == GB_OK && strcmp(c.label, "1000B") == 0);
    /* Not a whole number of elements, an unknown unit, too big: errors that say so. */
    sized_case(GB_OP_TRANSFER, GB_FLOAT32, "12", &e, &s);
    CHECK(s == GB_FAIL && strstr(e.msg, "multiple of 8"));
    sized_case(GB_OP_TRANSFER, GB_FLOAT32, "\"4KB\"", &e, &s);
    CHECK(s == GB_FAIL && strstr(e.msg, "KiB"));
    sized_case(GB_OP_TRANSFER, GB_FLOAT32, "\"4096GiB\"", &e, &s);
    CHECK(s == GB_FAIL && strstr(e.msg, "2^40"));
    /* both: the bytes cross twice. */
    c = sized_case(GB_OP_TRANSFER, GB_FLOAT32, "65536", &e, &s);
    c.params.direction = GB_DIR_BOTH;
    c.op->count(&c);
    CHECK_NEAR(c.bytes, 2 * 65536.0, 0);
    CHECK(strcmp(c.op->rate_kind, "bytes") == 0);
    /* The table's note says what the speedup means for this op. */
    CHECK(c.op->note && strstr(c.op->note, "slower than a local copy"));
    CHECK(gb_ops[GB_OP_MATMUL]->note == NULL);
}

TEST(transfer_cpu_copy_arrives_intact_in_every_direction) {
    static const char *const sizes[] = {"8", "4104", "\"3MiB\""}; /* one element, a tail, several threads' chunks */
    for (int dir = GB_DIR_H2D; dir <= GB_DIR_BOTH; dir++)
        for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
            gb_err e = {{0}};
            int s;
            gb_case c = sized_case(GB_OP_TRANSFER, i % 2 ? GB_FLOAT32 : GB_FLOAT64, sizes[i], &e, &s);
            c.params.direction = dir;
            gb_arrays in = {0}, out = {0};
            gb_verdict v;
            CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
            CHECK(strcmp(v.metric, "differing_bytes") == 0 && v.error == 0 && v.tolerance == 0);
            CHECK((gb_arrays_find(&out, "y_back") != NULL) == (dir == GB_DIR_BOTH));
            gb_arrays_free(&in);
            gb_arrays_free(&out);
        }
}

TEST(transfer_verify_fails_a_missed_chunk_a_corrupted_byte_a_missing_leg) {
    gb_err e = {{0}};
    int s;
    gb_case c = sized_case(GB_OP_TRANSFER, GB_FLOAT32, "\"64KiB\"", &e, &s);
    c.params.direction = GB_DIR_BOTH;
    c.op->count(&c);
    gb_arrays in = {0}, out = {0};
    gb_verdict v;
    CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
    unsigned char *y = gb_arrays_find(&out, "y")->data, *yb = gb_arrays_find(&out, "y_back")->data;
    /* A chunk the copy skipped keeps the poison (all-ones bytes). */
    unsigned char saved[4096];
    memcpy(saved, y + 8192, sizeof saved);
    memset(y + 8192, 0xff, sizeof saved);
    c.op->verify(&c, &in, &out, NULL, &v);
    /* (a random source byte may itself be 0xff: not quite all 4096 differ) */
    CHECK(v.status == GB_VERIFY_FAILED && v.error > 4000 && v.error <= 4096 && strstr(v.detail, "at byte 819"));
    memcpy(y + 8192, saved, sizeof saved);
    /* One flipped bit in the other leg. */
    yb[65535] ^= 0x10;
    c.op->verify(&c, &in, &out, &out, &v);
    CHECK(v.status == GB_VERIFY_FAILED && v.error == 1 && strstr(v.detail, "y_back"));
    yb[65535] ^= 0x10;
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_PASSED);
    /* Direction both with one leg's output missing. */
    gb_arrays one = {0};
    gb_array *src = gb_arrays_find(&out, "y");
    gb_arrays_add_copy(&one, "y", src->elem, src->count, src->data, &e);
    c.op->verify(&c, &in, &one, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED && strstr(v.detail, "y_back"));
    gb_arrays_free(&one);
    gb_arrays_free(&in);
    gb_arrays_free(&out);
}

TEST(transfer_cpu_ceiling_is_the_copy_in_bytes_delivered) {
    gb_err e = {{0}};
    int s;
    gb_case c = sized_case(GB_OP_TRANSFER, GB_FLOAT32, "4096", &e, &s);
    c.memory_bound = 1;
    gb_test_cpu_up();
    CHECK(gb_cpu_backend()->supports(&c, &e) == GB_OK);
    /* GB/s of a copy count the bytes delivered; STREAM's copy_gbs counts them twice. */
    CHECK(strcmp(gb_cpu_backend()->ceiling(&c, 0), "copy_delivered_gbs") == 0);
}

/* ---- batched_matmul ---------------------------------------------------------- */

TEST(batched_matmul_counts_2mnk_per_product) {
    gb_err e = {{0}};
    int s;
    gb_case c = sized_case(GB_OP_BATCHED_MATMUL, GB_FLOAT32, "[2,3,4]", &e, &s);
    CHECK(s == GB_OK && c.params.batch == 1000 && strcmp(c.label, "2x3x4") == 0);
    c.params.batch = 10;
    c.op->count(&c);
    CHECK_NEAR(c.flops, 2.0 * 2 * 3 * 4 * 10, 0);
    CHECK_NEAR(c.bytes, 4.0 * 10 * (2 * 3 + 3 * 4 + 2 * 4), 0);
    CHECK(strcmp(c.op->rate_kind, "flops") == 0 && strcmp(c.op->params[0].key, "batch") == 0);
}

TEST(batched_matmul_cpu_matches_each_naive_product) {
    for (int d = GB_FLOAT32; d <= GB_FLOAT64; d++) {
        gb_err e = {{0}};
        int s;
        gb_case c = sized_case(GB_OP_BATCHED_MATMUL, (gb_dtype)d, "[5,7,3]", &e, &s);
        c.params.batch = 37;
        gb_arrays in = {0}, out = {0};
        gb_verdict v;
        CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
        const gb_array *A = gb_arrays_find(&in, "A"), *B = gb_arrays_find(&in, "B"), *C = gb_arrays_find(&out, "C");
        double worst = 0;
        for (int b = 0; b < 37; b++)
            for (int i = 0; i < 5; i++)
                for (int j = 0; j < 3; j++) {
                    double sum = 0;
                    for (int l = 0; l < 7; l++)
                        sum += gb_test_get_real(A, (size_t)(b * 35 + i * 7 + l)) * gb_test_get_real(B, (size_t)(b * 21 + l * 3 + j));
                    double diff = fabs(sum - gb_test_get_real(C, (size_t)(b * 15 + i * 3 + j)));
                    if (diff > worst) worst = diff;
                }
        CHECK(worst < (d == GB_FLOAT32 ? 1e-5 : 1e-13));
        c.op->verify(&c, &in, &out, &out, &v);
        CHECK(v.status == GB_VERIFY_PASSED && v.error == 0);
        gb_arrays_free(&in);
        gb_arrays_free(&out);
    }
}

TEST(batched_matmul_verify_names_the_wrong_product) {
    gb_err e = {{0}};
    int s;
    gb_case c = sized_case(GB_OP_BATCHED_MATMUL, GB_FLOAT32, "16", &e, &s);
    c.params.batch = 20;
    gb_arrays in = {0}, out = {0}, ref = {0};
    gb_verdict v;
    CHECK(gb_test_run_and_verify(&c, &in, &out, &v) == GB_VERIFY_PASSED);
    gb_test_copy_arrays(&out, &ref);
    gb_array *C = gb_arrays_find(&out, "C");
    /* One element of product 13 off by 1e-3 of the output's scale. */
    size_t at = 13 * 256 + 5 * 16 + 9;
    gb_test_set_real(C, at, gb_test_get_real(C, at) + 4e-3);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED && strstr(v.detail, "product 13"));
    c.op->verify(&c, &in, &out, &ref, &v);
    CHECK(v.status == GB_VERIFY_FAILED && strstr(v.detail, "product 13"));
    /* A product left unwritten (poison) in the last slot. */
    memcpy(C->data, ref.item[0].data, C->count * sizeof(float));
    for (size_t i = 19 * 256; i < 20 * 256; i++) gb_test_set_real(C, i, NAN);
    c.op->verify(&c, &in, &out, NULL, &v);
    CHECK(v.status == GB_VERIFY_FAILED && strstr(v.detail, "product 19"));
    gb_arrays_free(&in);
    gb_arrays_free(&out);
    gb_arrays_free(&ref);
}
