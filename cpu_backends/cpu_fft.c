/* cpu_fft.c — 2-D FFT on the CPU with FFTW3 (threaded).
 *
 * prepare: one plan per case with fftw[f]_plan_with_nthreads(threads) and the
 * suite's planner rigour (estimate / measure / patient), made on the
 * backend's own buffers before the input is copied in, because MEASURE and
 * PATIENT overwrite them while trying algorithms. The planning time is part
 * of setup time. c2c promotes the real input to complex here, untimed.
 * run: fftw[f]_execute of that plan, nothing else (an out-of-place r2c or c2c
 * plan preserves its input, so no restore is needed).
 *
 * Wisdom: FFTW_MEASURE plans cost seconds each at 4096² and above (on the
 * H100 host, 45 s of a default run's set-up), and a plan found once is found
 * again from wisdom in no time, the same plan. So wisdom is kept between
 * runs, as a careful FFTW user keeps it: imported before planning, exported
 * after (through a temporary file and rename, so a concurrent run never reads
 * half a file), in $GPUBENCH_FFTW_WISDOM when set (empty: off), else in
 * $XDG_CACHE_HOME/gpubench (~/.cache/gpubench) under a name with the host and
 * the thread count, since a plan is only the best for the machine and threads
 * that measured it. Single-precision wisdom adds ".f32" (FFTW keeps the two
 * precisions in separate formats). A missing or unreadable file is fine. The
 * wisdom file is read through file_read.h (a regular file of at most
 * GB_LIMIT_WISDOM, opened without blocking: a FIFO or /dev/zero there is
 * refused at once, with a warning, instead of hanging the run) and written
 * only where a regular file is or none is yet. The
 * result's extra.wisdom says "imported", "none" (nothing to import) or
 * "off". Only set-up time changes: the plans are as good either way. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>
#include <fftw3.h>
#include "cpu_backend.h"
#include "file_read.h"
#include "results_io.h"
#include "timer.h"

typedef struct {
    gb_dtype dtype;
    int c2c;
    size_t n, in_count, out_count;
    unsigned flags;
    void *in, *out;        /* fftw_malloc'd: real n×n (r2c) or complex n×n (c2c); output */
    fftw_plan plan;
    fftwf_plan planf;
    double plan_s;
    char wisdom[16];       /* "imported", "none", "off" */
} fft_state;

static int threads_ready;

static unsigned planner_flags(int planner) {
    switch (planner) {
    case GB_PLAN_ESTIMATE: return FFTW_ESTIMATE;
    case GB_PLAN_PATIENT: return FFTW_PATIENT;
    default: return FFTW_MEASURE;
    }
}

static const char *planner_name(unsigned flags) {
    return flags == FFTW_ESTIMATE ? "estimate" : flags == FFTW_PATIENT ? "patient" : "measure";
}

/* The wisdom file for this precision, or NULL when wisdom is off. The
 * default folder is created on first use. */
static const char *wisdom_path(gb_dtype d, char *buf, size_t len) {
    const char *w = getenv("GPUBENCH_FFTW_WISDOM");
    const char *f32 = d == GB_FLOAT32 ? ".f32" : "";
    if (w) {
        if (!*w) return NULL;
        snprintf(buf, len, "%s%s", w, f32);
        return buf;
    }
    char dir[2048], host[256] = "host";
    if (!gb_cpu_cache_dir(dir, sizeof dir)) return NULL;
    gethostname(host, sizeof host - 1);
    snprintf(buf, len, "%s/fftw-wisdom-%s-%dthreads%s", dir, host, gb_cpu_threads(), f32);
    return buf;
}

/* Save the wisdom through gpubench's one writer of caches (results_io.h:
 * a regular file only, a temp file renamed into place, removed if a signal
 * ends the run). A failure to save it costs the next run its planning. */
static void save_wisdom(const char *path, int f32) {
    char *text = f32 ? fftwf_export_wisdom_to_string() : fftw_export_wisdom_to_string();
    if (!text) return;
    gb_cache_write(path, "FFTW wisdom", "(fftw-", text, strlen(text));
    free(text);
}

/* Import the wisdom file at path: "imported", or "none" when there is none
 * (or it is not FFTW's). One that is not a regular file of a bounded size is
 * refused before it is read, with a warning naming it (file_read.h). */
static const char *load_wisdom(const char *path, int f32) {
    char *text;
    size_t len;
    gb_err e = {{0}};
    if (access(path, F_OK) != 0 && errno == ENOENT) return "none";
    if (gb_read_bounded(path, "an FFTW wisdom file", GB_LIMIT_WISDOM, &text, &len, &e) != GB_OK) {
        static int warned;
        if (!warned++) fprintf(stderr, "warning: FFTW wisdom not used: %s\n", e.msg);
        return "none";
    }
    int ok = f32 ? fftwf_import_wisdom_from_string(text) : fftw_import_wisdom_from_string(text);
    free(text);
    return ok ? "imported" : "none";
}

static void fft_release(void *state) {
    fft_state *s = state;
    if (!s) return;
    if (s->plan) fftw_destroy_plan(s->plan);
    if (s->planf) fftwf_destroy_plan(s->planf);
    if (s->dtype == GB_FLOAT32) {
        fftwf_free(s->in);
        fftwf_free(s->out);
    } else {
        fftw_free(s->in);
        fftw_free(s->out);
    }
    free(s);
}

static int fft_prepare(const gb_case *c, const gb_arrays *in, void **state, gb_err *e) {
    const gb_array *x = gb_arrays_find(in, "x");
    if (!x) return gb_errf(e, GB_FAIL, "fft: input 'x' missing");
    if (c->shape[0] > 1 << 30) return gb_errf(e, GB_SKIP, "fft: n too large for FFTW's int sizes");
    if (!threads_ready) {
        if (!fftw_init_threads() || !fftwf_init_threads())
            return gb_errf(e, GB_FATAL, "fftw_init_threads failed");
        threads_ready = 1;
    }
    fft_state *s = calloc(1, sizeof *s);
    if (!s) return gb_errf(e, GB_SKIP, "out of host memory");
    s->dtype = c->dtype;
    s->c2c = c->params.fft_kind == GB_FFT_C2C;
    s->n = (size_t)c->shape[0];
    s->in_count = s->n * s->n;
    s->out_count = s->c2c ? s->n * s->n : s->n * (s->n / 2 + 1);
    s->flags = planner_flags(c->params.fft_planner);
    int n = (int)s->n;
    size_t real = gb_dtype_size(c->dtype);
    size_t in_bytes = s->in_count * real * (s->c2c ? 2 : 1), out_bytes = s->out_count * 2 * real;
    char wbuf[4096];
    const char *wpath = wisdom_path(c->dtype, wbuf, sizeof wbuf);
    snprintf(s->wisdom, sizeof s->wisdom, "off");

    double t0 = gb_now();
    if (c->dtype == GB_FLOAT32) {
        s->in = fftwf_malloc(in_bytes);
        s->out = fftwf_malloc(out_bytes);
        if (!s->in || !s->out) goto oom;
        fftwf_plan_with_nthreads(gb_cpu_threads());
        if (wpath) snprintf(s->wisdom, sizeof s->wisdom, "%s", load_wisdom(wpath, 1));
        s->planf = s->c2c ? fftwf_plan_dft_2d(n, n, s->in, s->out, FFTW_FORWARD, s->flags)
                          : fftwf_plan_dft_r2c_2d(n, n, s->in, s->out, s->flags);
        if (!s->planf) goto noplan;
        if (wpath) save_wisdom(wpath, 1);
    } else {
        s->in = fftw_malloc(in_bytes);
        s->out = fftw_malloc(out_bytes);
        if (!s->in || !s->out) goto oom;
        fftw_plan_with_nthreads(gb_cpu_threads());
        if (wpath) snprintf(s->wisdom, sizeof s->wisdom, "%s", load_wisdom(wpath, 0));
        s->plan = s->c2c ? fftw_plan_dft_2d(n, n, s->in, s->out, FFTW_FORWARD, s->flags)
                         : fftw_plan_dft_r2c_2d(n, n, s->in, s->out, s->flags);
        if (!s->plan) goto noplan;
        if (wpath) save_wisdom(wpath, 0);
    }
    s->plan_s = gb_now() - t0;

    /* Copy (and for c2c promote) the input after planning. */
    if (!s->c2c) {
        gb_copy(s->in, x->data, in_bytes);
    } else if (c->dtype == GB_FLOAT32) {
        const float *src = x->data;
        float *dst = s->in;
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < s->in_count; i++) {
            dst[2 * i] = src[i];
            dst[2 * i + 1] = 0;
        }
    } else {
        const double *src = x->data;
        double *dst = s->in;
#pragma omp parallel for schedule(static)
        for (size_t i = 0; i < s->in_count; i++) {
            dst[2 * i] = src[i];
            dst[2 * i + 1] = 0;
        }
    }
    /* Poison the output so an entry the transform did not write fails verification. */
    gb_array out_view = {.elem = gb_complex_elem(c->dtype), .count = s->out_count, .data = s->out};
    gb_array_poison(&out_view);
    *state = s;
    return GB_OK;
oom:
    fft_release(s);
    return gb_errf(e, GB_SKIP, "out of host memory for FFT buffers (%.3g GiB)",
                   (double)(in_bytes + out_bytes) / (1 << 30));
noplan:
    gb_errf(e, GB_FAIL, "FFTW could not create a %s plan for %d×%d", s->c2c ? "c2c" : "r2c", n, n);
    fft_release(s);
    return GB_FAIL;
}

static int fft_run(void *state, int timing, double *seconds, gb_err *e) {
    fft_state *s = state;
    double t0 = gb_now();
    if (s->dtype == GB_FLOAT32)
        fftwf_execute(s->planf);
    else
        fftw_execute(s->plan);
    *seconds = gb_now() - t0;
    return GB_OK;
}

static int fft_fetch(void *state, gb_arrays *out, gb_err *e) {
    fft_state *s = state;
    return gb_arrays_add_copy(out, "X", gb_complex_elem(s->dtype), s->out_count, s->out, e) ? GB_OK
                                                                                            : GB_FAIL;
}

/* Which plan FFTW chose, as a short fingerprint of fftw_sprint_plan's
 * description (FNV-1a): with planner=measure FFTW times candidates and may
 * pick another plan in another process (seen: fft r2c 32x32 at 5.2 or
 * 9.5 us). compare reads extra.plan to tell that lottery from a change of
 * the code (docs/regression-statistics.md). */
static void plan_fingerprint(const fft_state *s, char *buf, size_t len) {
    char *txt = s->dtype == GB_FLOAT32 ? fftwf_sprint_plan(s->planf) : fftw_sprint_plan(s->plan);
    unsigned long long h = 1469598103934665603ull;
    for (const char *q = txt; q && *q; q++) h = (h ^ (unsigned char)*q) * 1099511628211ull;
    snprintf(buf, len, "%s", txt ? "" : "unknown");
    if (txt) snprintf(buf, len, "fftw:%016llx", h);
    free(txt);
}

static void fft_annotate(void *state, cJSON *extra) {
    fft_state *s = state;
    char plan[32];
    plan_fingerprint(s, plan, sizeof plan);
    cJSON_AddStringToObject(extra, "plan", plan);
    char routine[48];
    snprintf(routine, sizeof routine, "%s_plan_dft%s_2d", s->dtype == GB_FLOAT32 ? "fftwf" : "fftw",
             s->c2c ? "" : "_r2c");
    cJSON_AddStringToObject(extra, "routine", routine);
    cJSON_AddStringToObject(extra, "planner", planner_name(s->flags));
    cJSON_AddNumberToObject(extra, "plan_s", s->plan_s);
    cJSON_AddNumberToObject(extra, "threads", gb_cpu_threads());
    cJSON_AddStringToObject(extra, "wisdom", s->wisdom);
    cJSON_AddStringToObject(extra, "fftw_threads", "openmp"); /* fftw3_omp: the one OpenMP pool */
}

const gb_op_impl gb_cpu_fft = {
    .prepare = fft_prepare,
    .run = fft_run,
    .fetch = fft_fetch,
    .annotate = fft_annotate,
    .release = fft_release,
};
