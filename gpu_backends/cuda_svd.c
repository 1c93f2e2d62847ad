/* cuda_svd.c — how the GPU does SVD: the thin SVD A = U·diag(S)·VT of an
 * m×n column-major matrix with cuSOLVER (k = min(m,n); S descending, U m×k,
 * VT k×n), by one of five routines chosen with the op's "method" param:
 *
 *   method   routine                       algorithm          shape rule
 *   gesvd    cusolverDn{S,D}gesvd          QR iteration       m ≥ n only
 *   xgesvd   cusolverDnXgesvd (64-bit API) QR iteration       m ≥ n only
 *   gesvdj   cusolverDn{S,D}gesvdj, econ   one-sided Jacobi   any m, n
 *   gesvdp   cusolverDnXgesvdp, econ       polar decomposition + syevd
 *   xgesvdp  cusolverDnXgesvdp, econ       (the same routine: cuSOLVER has no
 *                                           32-bit gesvdp; both names accepted)
 *   gesvdp64 cusolverDnXgesvdp in float64  as gesvdp, on float32 data: A is
 *            on float32 data               converted up, S, U, VT down (a kernel
 *                                          of ours, cuda_convert.cu), all in the rep
 *   xgesvdr  cusolverDnXgesvdr, k = min(m,n), randomized range finder (no
 *            p = 0, 2 power iterations      oversampling: the range is whole)
 *                                           + SVD of the projection
 *   auto     svd_auto_method() below, chosen from measurements on an H100
 *   gesdd    skipped: a LAPACK routine; cuSOLVER has none
 *
 * Shapes. gesvd and Xgesvd only accept m ≥ n. For a wide A (m < n) the op
 * factors Aᵀ (n×m, tall) instead: Aᵀ = U'·S·V'ᵀ gives A = V'·S·U'ᵀ, so
 * U = V' and VT = U'ᵀ. The polar-decomposition route of Xgesvdp is built for
 * tall matrices too (Xpolar requires m ≥ n), so it takes the same path.
 * Jacobi takes any shape and factors A as it is.
 *
 * What a rep is: restore the work copy of A from the pristine one (the
 * routines destroy their input; a D2D cudaMemcpyAsync, or for the
 * transposed path one cublas{S,D}geam that copies and transposes in one
 * pass), run the routine, then the transposes that turn its outputs into
 * U and VT (cublas geam: gesvdj and Xgesvdp return V, not VT; the wide path
 * swaps the roles of U and V). All of that is in every rep, both timings.
 * Workspaces (bufferSize queries), the work copy, temporaries, devInfo and
 * the gesvdj / 64-bit parameter objects are made in prepare.
 *
 * Synchronization: issue() itself never waits, but cusolverDnXgesvdp
 * returns h_err_sigma in host memory and so synchronizes before it returns
 * (forced by the API). devInfo is read in fetch: info > 0 is "did not
 * converge", info < 0 a wrong parameter.
 *
 * Where the time goes: the host time spent inside the routine's call is
 * recorded for every rep (annotate: routine_host_ms_min/median/max). A
 * routine that only enqueues returns in microseconds; one that is driven from
 * the host (cuSOLVER's gesvd family runs parts of its QR iteration with host
 * synchronizations) blocks for most of the device time, and then its time
 * and its spread follow the host thread's scheduling rather than the GPU. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cuda_common.h"
#include "timer.h"

/* Power iterations of xgesvdr: at full rank the sampled range is A's whole
 * range whatever the iterations; two sharpen the basis against rounding in
 * the range finder (cuSOLVER's documentation example uses 2). */
#define XGESVDR_NITERS 2
/* Reps whose host time inside the routine is kept for the annotation. */
#define HOST_TIMES 64

/* The method AUTO resolves to, per shape and dtype: the fastest routine that
 * passed the op's accuracy checks on the H100 host (suites/svd-methods.json;
 * the measurements are the table in docs/gpu-ops.md). Float32 QDWH (gesvdp)
 * loses accuracy as the condition number grows (a random n×n matrix has cond
 * ~ n) and failed on 1024² and 2048², while the tall and wide random
 * matrices, far better conditioned, pass; gesvdj failed the orthogonality
 * bound at every shape. So float64 takes gesvdp, and float32 takes gesvdp
 * only for aspect ratios of 2 or more and for small squares, Xgesvd otherwise. */
static gb_svd_method svd_auto_method(int64_t m, int64_t n, gb_dtype dtype) {
    if (dtype == GB_FLOAT64) return GB_SVD_GESVDP;
    int64_t lo = m < n ? m : n, hi = m < n ? n : m;
    if (hi >= 2 * lo || hi <= 256) return GB_SVD_GESVDP;
    /* Square-ish float32, where single-precision QDWH is not accurate
     * enough: QDWH in float64 on the converted data where float64 runs at
     * least a quarter of float32's rate (data-centre GPUs: A100, H100 have
     * ratio 2), since float64 gesvdp measured 31 ms at 1024² and 86 ms at
     * 2048² against Xgesvd float32's 112 and 321 ms (table above); on GPUs
     * with slow float64 (ratio 32–64), Xgesvd. */
    int ratio = 0;
    if (cudaDeviceGetAttribute(&ratio, cudaDevAttrSingleToDoublePrecisionPerfRatio, gb_cuda.device) != cudaSuccess)
        (void)cudaGetLastError(), ratio = 0;
    return ratio > 0 && ratio <= 4 ? GB_SVD_GESVDP64 : GB_SVD_XGESVD;
}

static const char *method_name(int method) {
    return method >= 0 && method < GB_SVD_METHOD_COUNT ? gb_svd_method_names[method] : "?";
}

typedef struct {
    gb_cuda_io io;
    int64_t m, n, k;
    gb_dtype dtype;
    size_t esz;
    cudaDataType ctype;
    int method, requested;    /* resolved method; what the suite asked for */
    int mixed;                /* gesvdp64 on float32: dtype/esz/ctype are the compute type, float64 */
    void *d_A32, *out_S, *out_U, *out_VT; /* mixed: the float32 input and outputs (owned by io) */
    double tol;               /* gesvdj tolerance; 0 = library default */
    double host_s[HOST_TIMES];/* host time inside the routine's call, per rep (ring) */
    int host_n;
    int transposed;           /* factor Aᵀ (wide A with a tall-only routine) */
    int64_t mw, nw;           /* shape of the matrix the routine sees: mw×nw */
    char routine[48];
    void *d_A;                /* pristine input (owned by io; mixed: its float64 copy, ours) */
    void *d_S, *d_U, *d_VT;   /* outputs (owned by io; mixed: float64, ours) */
    void *d_W;                /* work copy of A or Aᵀ, destroyed by the routine */
    void *d_T1;               /* n×k: V from gesvdj/Xgesvdp, or U' on the wide path */
    void *d_T2;               /* k×k: VT' of gesvd on the wide path */
    int *d_info;
    void *d_work;             /* device workspace */
    size_t work_bytes;
    int lwork;                /* typed routines: workspace in elements */
    void *d_rwork;            /* gesvd: unconverged superdiagonal (k-1 reals) */
    void *h_work;             /* 64-bit API host workspace */
    size_t host_work_bytes;
    cusolverDnParams_t params;
    gesvdjInfo_t gesvdj;
    double err_sigma;         /* Xgesvdp: perturbation added to near-zero singular values */
} svd_state;

/* The methods that return V (n×k) rather than VT, as gesvdp does. */
static int returns_v(int method) {
    return method == GB_SVD_GESVDJ || method == GB_SVD_GESVDP || method == GB_SVD_XGESVDP ||
           method == GB_SVD_GESVDP64 || method == GB_SVD_XGESVDR;
}

static int tall_only(int method) { return method != GB_SVD_GESVDJ; }

/* Device bytes the plan needs besides the routine's own workspace. */
static double plan_bytes(int method, double m, double n, double esz) {
    double k = m < n ? m : n;
    double bytes = esz * (2 * m * n + k + m * k + k * n);  /* A, its work copy, S, U, VT */
    if (method == GB_SVD_GESVDJ) bytes += esz * n * k;      /* V */
    else if (m < n) bytes += esz * (n * k + k * k);         /* U' and VT' (or V) of Aᵀ */
    else if (returns_v(method)) bytes += esz * n * k;       /* V */
    return bytes + sizeof(int);
}

static int svd_supports(const gb_case *c, gb_err *why) {
    int method = c->params.svd_method;
    int64_t m = c->shape[0], n = c->shape[1];
    if (method == GB_SVD_GESDD)
        return gb_errf(why, GB_SKIP, "gesdd is a LAPACK routine; cuSOLVER has gesvd, gesvdj, gesvdp, Xgesvd, Xgesvdp");
    if (method == GB_SVD_AUTO) method = svd_auto_method(m, n, c->dtype);
    if (method <= GB_SVD_GESDD || method >= GB_SVD_METHOD_COUNT)
        return gb_errf(why, GB_SKIP, "svd method %d is not known to the CUDA backend", c->params.svd_method);
    if (c->params.svd_tol > 0 && method != GB_SVD_GESVDJ)
        return gb_errf(why, GB_SKIP, "tol applies to gesvdj only (method here: %s)", method_name(method));
    /* The typed routines take int dimensions and an int workspace size. */
    if ((method == GB_SVD_GESVD || method == GB_SVD_GESVDJ) && (m > INT_MAX || n > INT_MAX))
        return gb_errf(why, GB_SKIP, "%s takes 32-bit dimensions; %lldx%lld does not fit (use xgesvd)",
                       method_name(method), (long long)m, (long long)n);
    double esz = gb_dtype_bytes(c->dtype);
    double k = (double)(m < n ? m : n), big = (double)(m > n ? m : n);
    /* gesvdp64 on float32: the plan is float64, plus the float32 input and outputs. */
    double io32 = 0;
    if (method == GB_SVD_GESVDP64 && c->dtype == GB_FLOAT32) {
        io32 = 4.0 * ((double)m * (double)n + k + (double)m * k + k * (double)n);
        esz = 8.0;
    }
    /* Workspace stand-in until the real query in prepare: a few panels of
     * the bidiagonal / QR reduction plus the k×k eigenproblem of gesvdp. */
    double workspace = esz * (2 * big * k + 2 * k * k);
    return gb_cuda_fits(plan_bytes(method, (double)m, (double)n, esz) + workspace + io32, why);
}

static void svd_release(void *p) {
    svd_state *st = p;
    if (!st) return;
    (void)cudaStreamSynchronize(gb_cuda.stream);
    cudaFree(st->d_W);
    cudaFree(st->d_T1);
    cudaFree(st->d_T2);
    cudaFree(st->d_info);
    cudaFree(st->d_work);
    cudaFree(st->d_rwork);
    if (st->d_A32) { /* mixed, after the swap: the float64 buffers are ours */
        cudaFree(st->d_A);
        cudaFree(st->d_S);
        cudaFree(st->d_U);
        cudaFree(st->d_VT);
    }
    free(st->h_work);
    if (st->params) cusolverDnDestroyParams(st->params);
    if (st->gesvdj) cusolverDnDestroyGesvdjInfo(st->gesvdj);
    gb_cuda_io_free(&st->io);
    free(st);
}

/* Workspace sizes of the chosen routine (pointers only describe types and
 * shapes here; nothing is read). */
static int query_workspace(svd_state *st, gb_err *e) {
    int status = GB_OK;
    cusolverDnHandle_t h = gb_cuda.cusolver;
    int f32 = st->dtype == GB_FLOAT32;
    int mw = (int)st->mw, nw = (int)st->nw;
    switch (st->method) {
    case GB_SVD_GESVD:
        if (f32) CUSOLVER_TRY(cusolverDnSgesvd_bufferSize(h, mw, nw, &st->lwork));
        else CUSOLVER_TRY(cusolverDnDgesvd_bufferSize(h, mw, nw, &st->lwork));
        st->work_bytes = (size_t)st->lwork * st->esz;
        break;
    case GB_SVD_GESVDJ:
        if (f32)
            CUSOLVER_TRY(cusolverDnSgesvdj_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, 1, (int)st->m, (int)st->n,
                                                      st->d_W, (int)st->m, st->d_S, st->d_U, (int)st->m,
                                                      st->d_T1, (int)st->n, &st->lwork, st->gesvdj));
        else
            CUSOLVER_TRY(cusolverDnDgesvdj_bufferSize(h, CUSOLVER_EIG_MODE_VECTOR, 1, (int)st->m, (int)st->n,
                                                      st->d_W, (int)st->m, st->d_S, st->d_U, (int)st->m,
                                                      st->d_T1, (int)st->n, &st->lwork, st->gesvdj));
        st->work_bytes = (size_t)st->lwork * st->esz;
        break;
    case GB_SVD_XGESVD: {
        void *u = st->transposed ? st->d_T1 : st->d_U, *vt = st->transposed ? st->d_T2 : st->d_VT;
        CUSOLVER_TRY(cusolverDnXgesvd_bufferSize(h, st->params, 'S', 'S', st->mw, st->nw, st->ctype, st->d_W,
                                                 st->mw, st->ctype, st->d_S, st->ctype, u, st->mw, st->ctype,
                                                 vt, st->nw, st->ctype, &st->work_bytes, &st->host_work_bytes));
        break;
    }
    case GB_SVD_XGESVDR: {
        void *u = st->transposed ? st->d_T1 : st->d_U, *v = st->transposed ? st->d_U : st->d_T1;
        CUSOLVER_TRY(cusolverDnXgesvdr_bufferSize(h, st->params, 'S', 'S', st->mw, st->nw, st->k, 0, XGESVDR_NITERS,
                                                  st->ctype, st->d_W, st->mw, st->ctype, st->d_S, st->ctype, u,
                                                  st->mw, st->ctype, v, st->nw, st->ctype, &st->work_bytes,
                                                  &st->host_work_bytes));
        break;
    }
    case GB_SVD_GESVDP:
    case GB_SVD_XGESVDP:
    case GB_SVD_GESVDP64: {
        void *u = st->transposed ? st->d_T1 : st->d_U, *v = st->transposed ? st->d_U : st->d_T1;
        CUSOLVER_TRY(cusolverDnXgesvdp_bufferSize(h, st->params, CUSOLVER_EIG_MODE_VECTOR, 1, st->mw, st->nw,
                                                  st->ctype, st->d_W, st->mw, st->ctype, st->d_S, st->ctype,
                                                  u, st->mw, st->ctype, v, st->nw, st->ctype,
                                                  &st->work_bytes, &st->host_work_bytes));
        break;
    }
    default:
        return gb_errf(e, GB_FAIL, "svd: no workspace query for method %s", method_name(st->method));
    }
fail:
    return status;
}

static int svd_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    int status = GB_OK;
    *state = NULL;
    svd_state *st = calloc(1, sizeof *st);
    if (!st) return gb_errf(e, GB_SKIP, "svd: out of host memory for the plan");
    st->m = c->shape[0];
    st->n = c->shape[1];
    st->k = st->m < st->n ? st->m : st->n;
    st->requested = c->params.svd_method;
    st->method = st->requested == GB_SVD_AUTO ? (int)svd_auto_method(st->m, st->n, c->dtype) : st->requested;
    st->mixed = st->method == GB_SVD_GESVDP64 && c->dtype == GB_FLOAT32;
    st->tol = c->params.svd_tol;
    st->dtype = st->mixed ? GB_FLOAT64 : c->dtype; /* the type the routine computes in */
    st->esz = gb_dtype_size(st->dtype);
    st->ctype = gb_cuda_data_type(st->dtype);
    st->transposed = tall_only(st->method) && st->m < st->n;
    st->mw = st->transposed ? st->n : st->m;
    st->nw = st->transposed ? st->m : st->n;
    int f32 = st->dtype == GB_FLOAT32;
    switch (st->method) {
    case GB_SVD_GESVD: snprintf(st->routine, sizeof st->routine, "cusolverDn%cgesvd", f32 ? 'S' : 'D'); break;
    case GB_SVD_GESVDJ: snprintf(st->routine, sizeof st->routine, "cusolverDn%cgesvdj", f32 ? 'S' : 'D'); break;
    case GB_SVD_XGESVD: snprintf(st->routine, sizeof st->routine, "cusolverDnXgesvd"); break;
    case GB_SVD_GESVDP: case GB_SVD_XGESVDP: snprintf(st->routine, sizeof st->routine, "cusolverDnXgesvdp"); break;
    case GB_SVD_GESVDP64:
        snprintf(st->routine, sizeof st->routine, st->mixed ? "cusolverDnXgesvdp (float64)" : "cusolverDnXgesvdp");
        break;
    case GB_SVD_XGESVDR: snprintf(st->routine, sizeof st->routine, "cusolverDnXgesvdr"); break;
    default:
        status = gb_errf(e, GB_SKIP, "svd method %s is not supported by the CUDA backend",
                         method_name(st->method));
        goto fail;
    }

    const gb_array *A = gb_arrays_find(in, "A");
    if (!A || A->count != (size_t)(st->m * st->n)) {
        status = gb_errf(e, GB_FAIL, "svd: input A (%lldx%lld) expected%s", (long long)st->m, (long long)st->n,
                         A ? " with m·n elements" : "");
        goto fail;
    }
    gb_elem re = gb_real_elem(c->dtype);
    status = gb_cuda_io_input(&st->io, A, &st->d_A, e);
    if (status == GB_OK) status = gb_cuda_io_output(&st->io, "S", re, (size_t)st->k, &st->d_S, e);
    if (status == GB_OK) status = gb_cuda_io_output(&st->io, "U", re, (size_t)(st->m * st->k), &st->d_U, e);
    if (status == GB_OK) status = gb_cuda_io_output(&st->io, "VT", re, (size_t)(st->k * st->n), &st->d_VT, e);
    if (status != GB_OK) goto fail;
    if (st->mixed) {
        /* The routine works on float64 copies; the float32 buffers of io
         * are converted from and into in every rep. The float64 outputs
         * are poisoned as io's are, so what the routine leaves unwritten
         * still fails verification. */
        st->d_A32 = st->d_A;
        st->out_S = st->d_S;
        st->out_U = st->d_U;
        st->out_VT = st->d_VT;
        st->d_A = st->d_S = st->d_U = st->d_VT = NULL;
        CUDA_TRY(cudaMalloc(&st->d_A, (size_t)(st->m * st->n) * 8));
        CUDA_TRY(cudaMalloc(&st->d_S, (size_t)st->k * 8));
        CUDA_TRY(cudaMalloc(&st->d_U, (size_t)(st->m * st->k) * 8));
        CUDA_TRY(cudaMalloc(&st->d_VT, (size_t)(st->k * st->n) * 8));
        CUDA_TRY(cudaMemsetAsync(st->d_S, 0xff, (size_t)st->k * 8, gb_cuda.stream));
        CUDA_TRY(cudaMemsetAsync(st->d_U, 0xff, (size_t)(st->m * st->k) * 8, gb_cuda.stream));
        CUDA_TRY(cudaMemsetAsync(st->d_VT, 0xff, (size_t)(st->k * st->n) * 8, gb_cuda.stream));
    }

    CUDA_TRY(cudaMalloc(&st->d_W, (size_t)(st->m * st->n) * st->esz));
    /* T1 (n×k): V of gesvdj / tall Xgesvdp / Xgesvdr, U' of Aᵀ on the wide path. */
    if (st->transposed || returns_v(st->method))
        CUDA_TRY(cudaMalloc(&st->d_T1, (size_t)(st->n * st->k) * st->esz));
    /* T2 (k×k): VT' of Aᵀ from gesvd / Xgesvd on the wide path. */
    if (st->transposed && (st->method == GB_SVD_GESVD || st->method == GB_SVD_XGESVD))
        CUDA_TRY(cudaMalloc(&st->d_T2, (size_t)(st->k * st->k) * st->esz));
    CUDA_TRY(cudaMalloc((void **)&st->d_info, sizeof(int)));
    CUDA_TRY(cudaMemsetAsync(st->d_info, 0, sizeof(int), gb_cuda.stream));
    if (st->method == GB_SVD_GESVD) {
        size_t nr = (size_t)(st->k > 1 ? st->k - 1 : 1);
        CUDA_TRY(cudaMalloc(&st->d_rwork, nr * st->esz));
    }
    if (st->method == GB_SVD_GESVDJ) {
        /* Library defaults: tolerance = machine precision, 100 sweeps,
         * singular values sorted descending. */
        CUSOLVER_TRY(cusolverDnCreateGesvdjInfo(&st->gesvdj));
        if (st->tol > 0) CUSOLVER_TRY(cusolverDnXgesvdjSetTolerance(st->gesvdj, st->tol));
    } else if (st->method != GB_SVD_GESVD) {
        CUSOLVER_TRY(cusolverDnCreateParams(&st->params));
    }

    status = query_workspace(st, e);
    if (status != GB_OK) goto fail;
    status = gb_cuda_fits((double)st->work_bytes, e);
    if (status != GB_OK) {
        char why[GB_MSG_LEN];
        snprintf(why, sizeof why, "%s", e->msg);
        status = gb_errf(e, status, "%s workspace: %s", st->routine, why);
        goto fail;
    }
    CUDA_TRY(cudaMalloc(&st->d_work, st->work_bytes ? st->work_bytes : 16));
    if (st->host_work_bytes) {
        st->h_work = malloc(st->host_work_bytes);
        if (!st->h_work) {
            status = gb_errf(e, GB_SKIP, "svd: out of host memory for %s's host workspace (%zu bytes)",
                             st->routine, st->host_work_bytes);
            goto fail;
        }
    }
    CUDA_TRY(cudaStreamSynchronize(gb_cuda.stream));
    *state = st;
    return GB_OK;
fail:
    svd_release(st);
    return status;
}

/* dst (cols×rows, leading dimension cols) = srcᵀ, src rows×cols with
 * leading dimension rows, by cublas geam. B is src again under transpose
 * with beta = 0: geam's documentation does not promise that B is unread
 * when beta is 0, and the destinations hold NaN poison (0·NaN = NaN),
 * while src is finite. */
static int transpose(svd_state *st, const void *src, int64_t rows, int64_t cols, void *dst, gb_err *e) {
    int status = GB_OK;
    if (st->dtype == GB_FLOAT32) {
        const float one = 1.0f, zero = 0.0f;
        CUBLAS_TRY(cublasSgeam(gb_cuda.cublas, CUBLAS_OP_T, CUBLAS_OP_T, (int)cols, (int)rows, &one,
                               (const float *)src, (int)rows, &zero, (const float *)src, (int)rows,
                               (float *)dst, (int)cols));
    } else {
        const double one = 1.0, zero = 0.0;
        CUBLAS_TRY(cublasDgeam(gb_cuda.cublas, CUBLAS_OP_T, CUBLAS_OP_T, (int)cols, (int)rows, &one,
                               (const double *)src, (int)rows, &zero, (const double *)src, (int)rows,
                               (double *)dst, (int)cols));
    }
fail:
    return status;
}

/* One rep: fresh input, the routine, the output transposes. */
static int svd_issue(void *p, gb_err *e) {
    svd_state *st = p;
    int status = GB_OK;
    cusolverDnHandle_t h = gb_cuda.cusolver;
    int f32 = st->dtype == GB_FLOAT32;
    int mw = (int)st->mw, nw = (int)st->nw;
    double h0;

    /* 0. gesvdp64: the float32 input up to float64. */
    if (st->mixed) {
        status = gb_cuda_convert(st->d_A32, GB_E_F32, st->d_A, GB_E_F64, (size_t)(st->m * st->n), e);
        if (status != GB_OK) goto fail;
    }

    /* 1. The routines overwrite their input: restore it (transposed if the
     *    routine only takes tall matrices and A is wide). */
    if (st->transposed) {
        status = transpose(st, st->d_A, st->m, st->n, st->d_W, e);
        if (status != GB_OK) goto fail;
    } else {
        CUDA_TRY(cudaMemcpyAsync(st->d_W, st->d_A, (size_t)(st->m * st->n) * st->esz, cudaMemcpyDeviceToDevice,
                                 gb_cuda.stream));
    }

    /* 2. The routine, into U/VT directly where the layouts allow; the host
     *    time inside the call is kept (see the top of the file). */
    h0 = gb_now();
    switch (st->method) {
    case GB_SVD_GESVD: {
        /* jobu = jobvt = 'S': the first k columns of U (mw×k) and rows of VT
         * (k×nw; k = nw since mw ≥ nw). */
        void *u = st->transposed ? st->d_T1 : st->d_U, *vt = st->transposed ? st->d_T2 : st->d_VT;
        if (f32)
            CUSOLVER_TRY(cusolverDnSgesvd(h, 'S', 'S', mw, nw, st->d_W, mw, st->d_S, u, mw, vt, nw,
                                          st->d_work, st->lwork, st->d_rwork, st->d_info));
        else
            CUSOLVER_TRY(cusolverDnDgesvd(h, 'S', 'S', mw, nw, st->d_W, mw, st->d_S, u, mw, vt, nw,
                                          st->d_work, st->lwork, st->d_rwork, st->d_info));
        break;
    }
    case GB_SVD_XGESVD: {
        void *u = st->transposed ? st->d_T1 : st->d_U, *vt = st->transposed ? st->d_T2 : st->d_VT;
        CUSOLVER_TRY(cusolverDnXgesvd(h, st->params, 'S', 'S', st->mw, st->nw, st->ctype, st->d_W, st->mw,
                                      st->ctype, st->d_S, st->ctype, u, st->mw, st->ctype, vt, st->nw,
                                      st->ctype, st->d_work, st->work_bytes, st->h_work, st->host_work_bytes,
                                      st->d_info));
        break;
    }
    case GB_SVD_GESVDJ:
        /* econ = 1: U m×k, V n×k (V, not VT). */
        if (f32)
            CUSOLVER_TRY(cusolverDnSgesvdj(h, CUSOLVER_EIG_MODE_VECTOR, 1, (int)st->m, (int)st->n, st->d_W,
                                           (int)st->m, st->d_S, st->d_U, (int)st->m, st->d_T1, (int)st->n,
                                           st->d_work, st->lwork, st->d_info, st->gesvdj));
        else
            CUSOLVER_TRY(cusolverDnDgesvdj(h, CUSOLVER_EIG_MODE_VECTOR, 1, (int)st->m, (int)st->n, st->d_W,
                                           (int)st->m, st->d_S, st->d_U, (int)st->m, st->d_T1, (int)st->n,
                                           st->d_work, st->lwork, st->d_info, st->gesvdj));
        break;
    case GB_SVD_XGESVDR: {
        /* As gesvdp: U mw×k, V nw×k. */
        void *u = st->transposed ? st->d_T1 : st->d_U, *v = st->transposed ? st->d_U : st->d_T1;
        CUSOLVER_TRY(cusolverDnXgesvdr(h, st->params, 'S', 'S', st->mw, st->nw, st->k, 0, XGESVDR_NITERS, st->ctype,
                                       st->d_W, st->mw, st->ctype, st->d_S, st->ctype, u, st->mw, st->ctype, v,
                                       st->nw, st->ctype, st->d_work, st->work_bytes, st->h_work,
                                       st->host_work_bytes, st->d_info));
        break;
    }
    case GB_SVD_GESVDP:
    case GB_SVD_XGESVDP:
    case GB_SVD_GESVDP64: {
        /* econ = 1: U mw×k, V nw×k. Tall: U is ours, V goes to T1. Wide
         * (Aᵀ): its U' goes to T1, its V' (m×m) is our U. Synchronizes:
         * h_err_sigma is a host output. */
        void *u = st->transposed ? st->d_T1 : st->d_U, *v = st->transposed ? st->d_U : st->d_T1;
        CUSOLVER_TRY(cusolverDnXgesvdp(h, st->params, CUSOLVER_EIG_MODE_VECTOR, 1, st->mw, st->nw, st->ctype,
                                       st->d_W, st->mw, st->ctype, st->d_S, st->ctype, u, st->mw, st->ctype, v,
                                       st->nw, st->ctype, st->d_work, st->work_bytes, st->h_work,
                                       st->host_work_bytes, st->d_info, &st->err_sigma));
        break;
    }
    default:
        return gb_errf(e, GB_FAIL, "svd: method %s has no routine", method_name(st->method));
    }
    st->host_s[st->host_n++ % HOST_TIMES] = gb_now() - h0;

    /* 3. Outputs into U (m×k) and VT (k×n). In every case but tall
     *    gesvd/Xgesvd, T1 is n×k and VT = T1ᵀ. */
    if (returns_v(st->method) || st->transposed) {
        status = transpose(st, st->d_T1, st->n, st->k, st->d_VT, e);
        if (status != GB_OK) goto fail;
    }
    /* Wide gesvd/Xgesvd: U = (VT' of Aᵀ)ᵀ, k×k. */
    if (st->d_T2) {
        status = transpose(st, st->d_T2, st->k, st->k, st->d_U, e);
        if (status != GB_OK) goto fail;
    }
    /* 4. gesvdp64: the outputs down to float32. */
    if (st->mixed) {
        status = gb_cuda_convert(st->d_S, GB_E_F64, st->out_S, GB_E_F32, (size_t)st->k, e);
        if (status == GB_OK)
            status = gb_cuda_convert(st->d_U, GB_E_F64, st->out_U, GB_E_F32, (size_t)(st->m * st->k), e);
        if (status == GB_OK)
            status = gb_cuda_convert(st->d_VT, GB_E_F64, st->out_VT, GB_E_F32, (size_t)(st->k * st->n), e);
    }
fail:
    return status;
}

static int svd_run(void *p, int timing, double *seconds, gb_err *e) {
    svd_state *st = p;
    return gb_cuda_time(&st->io, timing, svd_issue, st, seconds, e);
}

static int svd_fetch(void *p, gb_arrays *out, gb_err *e) {
    svd_state *st = p;
    int status = GB_OK;
    int info = 0;
    CUDA_TRY(cudaMemcpyAsync(&info, st->d_info, sizeof info, cudaMemcpyDeviceToHost, gb_cuda.stream));
    CUDA_TRY(cudaStreamSynchronize(gb_cuda.stream));
    if (info > 0) {
        if (st->method == GB_SVD_GESVDJ)
            return gb_errf(e, GB_FAIL, "%s: devInfo = %d: did not converge within the tolerance and maximum "
                           "sweeps", st->routine, info);
        if (st->method == GB_SVD_GESVD || st->method == GB_SVD_XGESVD)
            return gb_errf(e, GB_FAIL, "%s: devInfo = %d: did not converge (%d superdiagonals of the "
                           "bidiagonal form did not reach zero)", st->routine, info, info);
        return gb_errf(e, GB_FAIL, "%s: devInfo = %d: did not converge", st->routine, info);
    }
    if (info < 0)
        return gb_errf(e, GB_FAIL, "%s: devInfo = %d: parameter %d is wrong", st->routine, info, -info);
    return gb_cuda_io_fetch(&st->io, out, e);
fail:
    return status;
}

static void svd_annotate(void *p, cJSON *extra) {
    svd_state *st = p;
    cJSON_AddStringToObject(extra, "routine", st->routine);
    cJSON_AddStringToObject(extra, "method", method_name(st->method));
    if (st->requested != st->method)
        cJSON_AddStringToObject(extra, "method_requested", method_name(st->requested));
    cJSON_AddBoolToObject(extra, "transposed", st->transposed);  /* wide A factored as Aᵀ */
    cJSON_AddNumberToObject(extra, "workspace_bytes", (double)st->work_bytes);
    if (st->mixed) cJSON_AddStringToObject(extra, "compute_dtype", "float64");
    if (st->method == GB_SVD_GESVDJ)
        cJSON_AddNumberToObject(extra, "gesvdj_tolerance", st->tol);  /* 0: the library's default */
    /* Host time inside the routine's call over the last reps: near the
     * device time means a host-driven routine (top of the file). */
    int nh = st->host_n < HOST_TIMES ? st->host_n : HOST_TIMES;
    if (nh > 0) {
        double t[HOST_TIMES], lo = st->host_s[0], hi = st->host_s[0];
        for (int i = 0; i < nh; i++) {
            t[i] = st->host_s[i];
            if (t[i] < lo) lo = t[i];
            if (t[i] > hi) hi = t[i];
        }
        /* median by insertion sort (at most 64 values) */
        for (int i = 1; i < nh; i++)
            for (int j = i; j > 0 && t[j - 1] > t[j]; j--) {
                double x = t[j];
                t[j] = t[j - 1];
                t[j - 1] = x;
            }
        cJSON_AddNumberToObject(extra, "routine_host_ms_min", lo * 1e3);
        cJSON_AddNumberToObject(extra, "routine_host_ms_median", (nh % 2 ? t[nh / 2] : 0.5 * (t[nh / 2 - 1] + t[nh / 2])) * 1e3);
        cJSON_AddNumberToObject(extra, "routine_host_ms_max", hi * 1e3);
        cJSON_AddNumberToObject(extra, "routine_host_reps", nh);
    }
    if (st->method == GB_SVD_GESVDJ && st->gesvdj) {
        /* Read after fetch, so the last rep has finished. */
        double residual = 0;
        int sweeps = 0;
        if (cusolverDnXgesvdjGetResidual(gb_cuda.cusolver, st->gesvdj, &residual) == CUSOLVER_STATUS_SUCCESS)
            cJSON_AddNumberToObject(extra, "gesvdj_residual", residual);
        if (cusolverDnXgesvdjGetSweeps(gb_cuda.cusolver, st->gesvdj, &sweeps) == CUSOLVER_STATUS_SUCCESS)
            cJSON_AddNumberToObject(extra, "gesvdj_sweeps", sweeps);
    }
    if (st->method == GB_SVD_GESVDP || st->method == GB_SVD_XGESVDP || st->method == GB_SVD_GESVDP64)
        cJSON_AddNumberToObject(extra, "gesvdp_err_sigma", st->err_sigma);
}

const gb_op_impl gb_cuda_svd = {
    .supports = svd_supports,
    .prepare = svd_prepare,
    .run = svd_run,
    .fetch = svd_fetch,
    .annotate = svd_annotate,
    .release = svd_release,
};
