/* op_spgemm.c — C = A·B for sparse n×n CSR matrices (catalogue entry).
 *
 * in:  A_rowptr, A_colind (I32), A_val; B_rowptr, B_colind (I32), B_val
 * out: C_rowptr, C_colind (I32), C_val (column order within a row is free)
 *
 * Structure: every entry is present independently with probability
 * `density` (Erdős–Rényi), generated row by row with geometric skips: the gap
 * to the next present column is floor(log(u)/log(1-p)), u uniform in (0,1].
 * That is O(nnz) work, gives distinct columns already sorted, and each draw
 * is the counter-based generator at (seed, stream, row·(n+1) + draw), so the
 * matrices do not depend on the thread count. Values are uniform in
 * [0.5, 1.5): positive, so no entry of C cancels and every entry's relative
 * error is bounded by its number of terms times eps.
 *
 * Work: count() reports the number of multiply-adds, Σ over nonzeros a_ik
 * of nnz(B row k): exactly, by regenerating the structure, while the
 * matrices are small (expected nnz up to SPG_EXACT_NNZ), and else its
 * expectation p²·n³ (and p·n² nonzeros), whose relative error is about
 * 1/√nnz < 0.4%. count() runs when a suite is validated, for every size:
 * counting exactly would make validating {"sizes": [1000000000]} take
 * hours, so the work done there is bounded by the parameters alone.
 * flops = 2 × multiply-adds. bytes = A and B read + C written, with C's nnz
 * its expectation n²·(1-(1-p²)^n) (the exact value is known only after the
 * product; the backends report it as extra.output_nnz). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "op.h"
#include "rng.h"

#define SPG_STREAM_AS 0x5350470001ull
#define SPG_STREAM_AV 0x5350470002ull
#define SPG_STREAM_BS 0x5350470003ull
#define SPG_STREAM_BV 0x5350470004ull

static const gb_param_spec spgemm_params[] = {
    {"density", GB_PARAM_DOUBLE, offsetof(gb_params, density), 1e-9, 1, NULL,
     "fraction of non-zero entries in A and B, in (0, 1], default 0.01"},
    {NULL, 0, 0, 0, 0, NULL, NULL},
};

static double density_of(const gb_case *c) {
    double p = c->params.density;
    return p > 0 && p <= 1 ? p : 0.01;
}

/* Walk row i of a matrix drawn from `stream`: calls emit(col) for each
 * present column in increasing order; returns the count. cols may be NULL to
 * count only. */
static size_t gen_row(uint64_t seed, uint64_t stream, size_t n, double log1mp, size_t i, int32_t *cols) {
    size_t count = 0;
    double j = -1;
    uint64_t base = (uint64_t)i * ((uint64_t)n + 1);
    for (uint64_t t = 0;; t++) {
        double u = 1.0 - gb_rng_uniform(seed, stream, base + t, 0, 1); /* (0, 1] */
        double skip = log1mp == -INFINITY ? 0 : floor(log(u) / log1mp);
        j += 1 + skip;
        if (j >= (double)n) break;
        if (cols) cols[count] = (int32_t)j;
        count++;
    }
    return count;
}

static double log1mp_of(double p) { return p >= 1 ? -INFINITY : log1p(-p); }

/* Row counts of one matrix into cnt[0..n-1]; returns nnz. */
static size_t row_counts(uint64_t seed, uint64_t stream, size_t n, double p, int64_t *cnt) {
    double l = log1mp_of(p);
    size_t nnz = 0;
#pragma omp parallel for schedule(dynamic, 64) reduction(+ : nnz)
    for (size_t i = 0; i < n; i++) {
        cnt[i] = (int64_t)gen_row(seed, stream, n, l, i, NULL);
        nnz += (size_t)cnt[i];
    }
    return nnz;
}

/* Exact nnz(A), nnz(B), multiply-adds. Returns -1 out of memory. */
static int exact_work(const gb_case *c, double *nnz_a, double *nnz_b, double *madds) {
    size_t n = (size_t)c->shape[0];
    double p = density_of(c), l = log1mp_of(p);
    int64_t *bcnt = malloc(n * sizeof *bcnt);
    if (!bcnt) return -1;
    *nnz_b = (double)row_counts(c->seed, SPG_STREAM_BS, n, p, bcnt);
    double na = 0, m = 0;
    int fail = 0;
#pragma omp parallel reduction(+ : na, m, fail)
    {
        /* A row has at most n columns; the expected count is p·n. */
        size_t cap = 256;
        int32_t *cols = malloc(cap * sizeof *cols);
        if (!cols) fail++;
#pragma omp for schedule(dynamic, 64)
        for (size_t i = 0; i < n; i++) {
            if (!cols) continue;
            size_t r = gen_row(c->seed, SPG_STREAM_AS, n, l, i, NULL);
            if (r > cap) {
                free(cols);
                cap = r;
                cols = malloc(cap * sizeof *cols);
                if (!cols) {
                    fail++;
                    continue;
                }
            }
            gen_row(c->seed, SPG_STREAM_AS, n, l, i, cols);
            na += (double)r;
            for (size_t k = 0; k < r; k++) m += (double)bcnt[cols[k]];
        }
        free(cols);
    }
    free(bcnt);
    if (fail) return -1;
    *nnz_a = na;
    *madds = m;
    return 0;
}

static double expected_c_nnz(double n, double p) {
    /* P(c_ij ≠ 0) = 1 - (1 - p²)^n */
    return n * n * -expm1(n * log1p(-p * p));
}

/* Above this many expected nonzeros per matrix the work is estimated. */
#define SPG_EXACT_NNZ 65536.0

static void spgemm_count(gb_case *c) {
    double n = (double)c->shape[0], p = density_of(c);
    double sz = gb_dtype_size(c->dtype);
    double na, nb, madds;
    if (p * n * n > SPG_EXACT_NNZ || exact_work(c, &na, &nb, &madds) != 0) { /* large, or out of memory */
        na = nb = p * n * n;
        madds = p * p * n * n * n;
    }
    c->flops = 2 * madds;
    double csr = 3 * (n + 1) * 4;
    c->bytes = csr + (na + nb + expected_c_nnz(n, p)) * (4 + sz);
}

static double spgemm_host_bytes(const gb_case *c) {
    double n = (double)c->shape[0], p = density_of(c);
    double sz = gb_dtype_size(c->dtype);
    double nnz = p * n * n, cnnz = expected_c_nnz(n, p);
    /* inputs; backend copies with 64-bit indices (GraphBLAS); two outputs;
     * the reference product in double with its row sort buffers. */
    return 2 * nnz * (4 + sz) + 2 * nnz * (8 + sz) + 2 * cnnz * (4 + sz) + cnnz * (4 + 8) + 10 * n * 8;
}

static int make_matrix(const gb_case *c, gb_arrays *in, const char *prefix, uint64_t s_struct,
                       uint64_t s_val, gb_err *e) {
    size_t n = (size_t)c->shape[0];
    double p = density_of(c), l = log1mp_of(p);
    char name[24];
    snprintf(name, sizeof name, "%s_rowptr", prefix);
    gb_array *rp = gb_arrays_add(in, name, GB_E_I32, n + 1, e);
    if (!rp) return GB_SKIP;
    int64_t *cnt = malloc(n * sizeof *cnt);
    if (!cnt) return gb_errf(e, GB_SKIP, "out of host memory for row counts");
    size_t nnz = row_counts(c->seed, s_struct, n, p, cnt);
    if (nnz > INT32_MAX) {
        free(cnt);
        return gb_errf(e, GB_SKIP, "%s has %zu non-zeros, more than 32-bit CSR indices hold", prefix, nnz);
    }
    int32_t *rowptr = rp->data;
    rowptr[0] = 0;
    for (size_t i = 0; i < n; i++) rowptr[i + 1] = rowptr[i] + (int32_t)cnt[i];
    free(cnt);
    snprintf(name, sizeof name, "%s_colind", prefix);
    gb_array *ci = gb_arrays_add(in, name, GB_E_I32, nnz, e);
    if (!ci) return GB_SKIP;
    snprintf(name, sizeof name, "%s_val", prefix);
    gb_array *va = gb_arrays_add(in, name, gb_real_elem(c->dtype), nnz, e);
    if (!va) return GB_SKIP;
    int32_t *col = ci->data;
#pragma omp parallel for schedule(dynamic, 64)
    for (size_t i = 0; i < n; i++) gen_row(c->seed, s_struct, n, l, i, col + rowptr[i]);
    if (c->dtype == GB_FLOAT32)
        gb_rng_fill_f32(va->data, nnz, c->seed, s_val, 0.5, 1.5);
    else
        gb_rng_fill_f64(va->data, nnz, c->seed, s_val, 0.5, 1.5);
    return GB_OK;
}

static int spgemm_make_inputs(const gb_case *c, gb_arrays *in, gb_err *e) {
    if ((double)c->shape[0] + 1 > INT32_MAX) return gb_errf(e, GB_SKIP, "n too large for 32-bit CSR");
    int s = make_matrix(c, in, "A", SPG_STREAM_AS, SPG_STREAM_AV, e);
    if (s != GB_OK) return s;
    return make_matrix(c, in, "B", SPG_STREAM_BS, SPG_STREAM_BV, e);
}

/* A CSR view of a set of arrays, values read as double. */
typedef struct {
    const int32_t *rowptr, *col;
    const gb_array *val;
    size_t nnz;
} csr;

static double vat(const gb_array *a, size_t i) {
    return a->elem == GB_E_F32 ? ((const float *)a->data)[i] : ((const double *)a->data)[i];
}

/* Find prefix_rowptr/colind/val and check the CSR invariants: rowptr starts
 * at 0, never decreases, ends at nnz; columns in [0, n). */
static int csr_view(const gb_arrays *a, const char *prefix, size_t n, gb_elem val_elem, csr *m,
                    gb_err *why) {
    const gb_array *rp, *ci, *va;
    if (!gb_arrays_find_csr(a, prefix, &rp, &ci, &va) || rp->elem != GB_E_I32 || ci->elem != GB_E_I32 || va->elem != val_elem) {
        return gb_errf(why, GB_FAIL, "%s: CSR arrays missing or of the wrong type", prefix);
    }
    if (rp->count != n + 1 || ci->count != va->count) {
        return gb_errf(why, GB_FAIL, "%s: rowptr has %zu entries (want %zu), colind %zu, val %zu", prefix, rp->count,
                 n + 1, ci->count, va->count);
    }
    const int32_t *r = rp->data, *col = ci->data;
    if (r[0] != 0 || (size_t)r[n] != ci->count) {
        return gb_errf(why, GB_FAIL, "%s: rowptr[0] = %d, rowptr[n] = %d, nnz = %zu", prefix, r[0], r[n], ci->count);
    }
    for (size_t i = 0; i < n; i++)
        if (r[i + 1] < r[i]) {
            return gb_errf(why, GB_FAIL, "%s: rowptr decreases at row %zu", prefix, i);
        }
    for (size_t k = 0; k < ci->count; k++)
        if (col[k] < 0 || (size_t)col[k] >= n) {
            return gb_errf(why, GB_FAIL, "%s: column index %d out of range at position %zu", prefix, col[k], k);
        }
    m->rowptr = r;
    m->col = col;
    m->val = va;
    m->nnz = ci->count;
    return 0;
}

/* Per-entry relative-error bound: an entry of C sums at most kmax positive
 * products (kmax = the longest row of A), each rounded once, so its computed
 * value is within (kmax + 1)·eps of the exact one (Higham, §3.1) — 2×(that+1)
 * gives room for FMA ordering and, against another backend, both errors. */
static double spgemm_tol(const gb_case *c, int32_t kmax, int two_sided) {
    return (two_sided ? 2 : 1) * 2 * ((double)kmax + 2) * gb_eps(c->dtype);
}

static void spgemm_verify(const gb_case *c, const gb_arrays *in, const gb_arrays *out,
                          const gb_arrays *ref, gb_verdict *v) {
    size_t n = (size_t)c->shape[0];
    gb_elem ve = gb_real_elem(c->dtype);
    csr A, B, C, R;
    memset(v, 0, sizeof *v);
    v->status = GB_VERIFY_FAILED;
    snprintf(v->metric, sizeof v->metric, "max_rel_err");
    int have_ref = ref && gb_arrays_find(ref, "C_rowptr");
    if (!have_ref) snprintf(v->against, sizeof v->against, "reference"); /* else the runner names the backend */
    v->error = INFINITY;
    gb_err why = {{0}};
    if (csr_view(in, "A", n, ve, &A, &why) || csr_view(in, "B", n, ve, &B, &why) || csr_view(out, "C", n, ve, &C, &why) ||
        (have_ref && csr_view(ref, "C", n, ve, &R, &why))) {
        snprintf(v->detail, sizeof v->detail, "%.200s", why.msg);
        return;
    }
    int32_t kmax = 0;
    for (size_t i = 0; i < n; i++)
        if (A.rowptr[i + 1] - A.rowptr[i] > kmax) kmax = A.rowptr[i + 1] - A.rowptr[i];
    v->tolerance = spgemm_tol(c, kmax, have_ref);

    /* Compare row by row (in parallel); the first structural mismatch wins.
     * The reference row is scattered into a dense row (acc, stamped by mark)
     * and the output row is checked entry by entry against it, so neither
     * row is sorted: sorting both with qsort was most of a default run's
     * 7 s of spgemm verification on the H100 host. An output column that is
     * not in the reference, or appears twice (its stamp is consumed by the
     * first), is a structural mismatch, as is a different count. */
    double worst = 0;
    size_t worst_row = 0, bad_row = (size_t)-1;
    char bad_msg[160] = "";
    int oom = 0;
    const char *ref_name = have_ref ? "reference backend" : "Gustavson reference";
#pragma omp parallel
    {
        double *acc = malloc(n * sizeof *acc);
        int64_t *mark = malloc(n * sizeof *mark);
        if (!acc || !mark) {
#pragma omp atomic
            oom++;
        }
        if (mark)
            for (size_t j = 0; j < n; j++) mark[j] = -1;
        double my_worst = 0;
        size_t my_row = 0;
#pragma omp for schedule(dynamic, 64)
        for (size_t i = 0; i < n; i++) {
            if (!acc || !mark) continue;
            const int64_t here = (int64_t)i, used = -2 - (int64_t)i; /* stamps of this row */
            size_t lb = 0;
            if (have_ref) {
                for (int32_t q = R.rowptr[i]; q < R.rowptr[i + 1]; q++) {
                    int32_t j = R.col[q];
                    if (mark[j] != here) lb++;
                    mark[j] = here;
                    acc[j] = vat(R.val, (size_t)q);
                }
            } else {
                /* Gustavson: row i of A·B accumulated densely in double. */
                for (int32_t p = A.rowptr[i]; p < A.rowptr[i + 1]; p++) {
                    int32_t k = A.col[p];
                    double aik = vat(A.val, (size_t)p);
                    for (int32_t q = B.rowptr[k]; q < B.rowptr[k + 1]; q++) {
                        int32_t j = B.col[q];
                        if (mark[j] != here) {
                            mark[j] = here;
                            acc[j] = 0;
                            lb++;
                        }
                        acc[j] += aik * vat(B.val, (size_t)q);
                    }
                }
            }
            size_t la = (size_t)(C.rowptr[i + 1] - C.rowptr[i]);
            char problem[140] = "";
            if (la != lb) {
                snprintf(problem, sizeof problem, "row %zu has %zu entries, %s has %zu", i, la, ref_name, lb);
            } else {
                for (int32_t t = C.rowptr[i]; t < C.rowptr[i + 1]; t++) {
                    int32_t j = C.col[t];
                    if (mark[j] != here) {
                        snprintf(problem, sizeof problem, "row %zu: column %d %s", i, j,
                                 mark[j] == used ? "appears twice" : "is not in the reference");
                        break;
                    }
                    mark[j] = used;
                    double e = fabs(vat(C.val, (size_t)t) - acc[j]) / fabs(acc[j]);
                    if (isnan(e)) e = INFINITY;
                    if (e > my_worst) {
                        my_worst = e;
                        my_row = i;
                    }
                }
            }
            if (problem[0]) {
#pragma omp critical(spgemm_bad)
                if (i < bad_row) {
                    bad_row = i;
                    snprintf(bad_msg, sizeof bad_msg, "%s", problem);
                }
            }
        }
#pragma omp critical(spgemm_worst)
        if (my_worst > worst) {
            worst = my_worst;
            worst_row = my_row;
        }
        free(acc);
        free(mark);
    }
    if (oom) {
        v->status = GB_VERIFY_NOT_CHECKED;
        snprintf(v->detail, sizeof v->detail, "out of memory for the row buffers");
        return;
    }
    if (bad_row != (size_t)-1) {
        snprintf(v->metric, sizeof v->metric, "structure");
        v->error = INFINITY;
        snprintf(v->detail, sizeof v->detail, "structure differs: %s", bad_msg);
        return;
    }
    v->error = worst;
    v->status = worst <= v->tolerance ? GB_VERIFY_PASSED : GB_VERIFY_FAILED;
    snprintf(v->detail, sizeof v->detail, "%s; same structure (%zu nnz); worst value in row %zu",
             have_ref ? "vs reference backend" : "vs Gustavson in double", C.nnz, worst_row);
}

const gb_op gb_op_spgemm = {
    .id = GB_OP_SPGEMM,
    .name = "spgemm",
    .summary = "C = A·B, A and B sparse n×n CSR at a given density",
    .rate_kind = "flops",
    .params = spgemm_params,
    .parse_size = gb_parse_square_size,
    .count = spgemm_count,
    .host_bytes = spgemm_host_bytes,
    .make_inputs = spgemm_make_inputs,
    .verify = spgemm_verify,
};
