/* test_crossover.c — every change of winner along a size sweep, and the
 * sentence that says where each side wins: on synthetic sweeps (GPU wins in
 * the middle only, never, everywhere, back and forth, one size), and on the
 * committed H100 reference run, where each rendered sentence is checked
 * against the speedups that the test reads from the JSON itself. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "results_io.h"
#include "results_model.h"
#include "testlib.h"

#define REF_H100 "results/reference/default-h100.json"

static const cJSON *get(const cJSON *o, const char *k) { return cJSON_GetObjectItemCaseSensitive(o, k); }

/* A results document with one sweep: matmul float32, square sizes, the given
 * device speedups (end-to-end absent), GPU results from backend "cuda". */
static cJSON *sweep_doc(const double *size, const double *sp, int n) {
    cJSON *doc = cJSON_CreateObject();
    cJSON_AddStringToObject(doc, "schema", GB_RESULTS_SCHEMA);
    cJSON_AddNumberToObject(doc, "schema_version", GB_RESULTS_SCHEMA_VERSION);
    cJSON *cases = cJSON_AddArrayToObject(doc, "cases");
    for (int i = 0; i < n; i++) {
        cJSON *c = cJSON_CreateObject();
        cJSON_AddStringToObject(c, "op", "matmul");
        cJSON_AddStringToObject(c, "dtype", "float32");
        cJSON *shape = cJSON_AddArrayToObject(c, "shape");
        for (int k = 0; k < 2; k++) cJSON_AddItemToArray(shape, cJSON_CreateNumber(size[i]));
        cJSON_AddObjectToObject(c, "params");
        cJSON *rs = cJSON_AddArrayToObject(c, "results");
        cJSON *r = cJSON_CreateObject();
        cJSON_AddStringToObject(r, "backend", "cuda");
        cJSON_AddStringToObject(r, "timing", "device");
        cJSON_AddStringToObject(r, "status", "ok");
        cJSON_AddItemToArray(rs, r);
        cJSON_AddNumberToObject(cJSON_AddObjectToObject(c, "speedup"), "device", sp[i]);
        cJSON_AddItemToArray(cases, c);
    }
    return doc;
}

/* The one crossover entry of a one-sweep document, as the model computes it
 * and as the runner writes it, its sentence and its "GPU wins at" cell
 * (sweep_free frees them). */
typedef struct {
    cJSON *doc;
    const cJSON *entry;
    gb_results model;
    const gb_crossover_entry *x;
    char *text, *gpu_sizes;
} sweep;

static sweep describe(const double *size, const double *sp, int n) {
    static const gb_crossover_entry none;
    sweep s = {0};
    gb_err e = {{0}};
    /* as the runner does: the model computes the crossover and writes it */
    cJSON *doc = sweep_doc(size, sp, n);
    CHECK(gb_results_from_json(doc, "sweep", &s.model, &e) == GB_OK);
    cJSON_Delete(doc);
    CHECK(gb_crossover_update(&s.model, &e) == GB_OK);
    s.doc = gb_results_to_json(&s.model, 0);
    const cJSON *xs = get(s.doc, "crossover");
    CHECK(cJSON_GetArraySize(xs) == 1);
    s.entry = cJSON_GetArrayItem(xs, 0);
    CHECK(s.model.ncrossover == 1);
    s.x = s.model.ncrossover == 1 ? &s.model.crossover[0] : &none;
    s.text = s.model.ncrossover == 1 ? gb_crossover_text(s.x) : NULL;
    s.gpu_sizes = s.model.ncrossover == 1 ? gb_crossover_gpu_sizes(s.x) : NULL;
    CHECK(s.text != NULL && s.gpu_sizes != NULL);
    if (!s.text) s.text = strdup("");
    if (!s.gpu_sizes) s.gpu_sizes = strdup("");
    return s;
}

static void sweep_free(sweep *s) {
    free(s->text);
    free(s->gpu_sizes);
    gb_results_free(&s->model);
    cJSON_Delete(s->doc);
}

/* The zero of the log-log line through (a, sa) and (b, sb). */
static double loglog_cross(double a, double sa, double b, double sb) {
    double t = -log(sa) / (log(sb) - log(sa));
    return exp(log(a) + t * (log(b) - log(a)));
}

/* ---- the changes, as computed ------------------------------------------------ */

TEST(crossover_lists_every_change_with_its_bracket_and_direction) {
    double size[] = {128, 256, 512, 1024, 2048}, sp[] = {0.5, 1.5, 3, 2, 0.8};
    gb_crossover x;
    CHECK(gb_crossover_find(size, sp, 5, &x) == GB_CROSS_INTERPOLATED);
    CHECK(x.sign_changes == 2);
    if (x.sign_changes == 2) {
        CHECK(x.changes[0].to_gpu == 1 && x.changes[0].lo == 128 && x.changes[0].hi == 256);
        CHECK_NEAR(x.changes[0].size, loglog_cross(128, 0.5, 256, 1.5), 1e-9);
        CHECK(x.changes[1].to_gpu == 0 && x.changes[1].lo == 1024 && x.changes[1].hi == 2048);
        CHECK_NEAR(x.changes[1].size, loglog_cross(1024, 2, 2048, 0.8), 1e-9);
        /* status and size still say where the GPU first wins */
        CHECK_NEAR(x.size, x.changes[0].size, 0);
    }
    gb_crossover_free(&x);
}

TEST(crossover_a_tie_is_not_a_gpu_win) {
    /* Exactly 1× is not "the GPU wins": the GPU first wins at 400. */
    double size[] = {100, 200, 400}, sp[] = {0.5, 1.0, 2.0};
    gb_crossover x;
    CHECK(gb_crossover_find(size, sp, 3, &x) == GB_CROSS_INTERPOLATED);
    CHECK(x.sign_changes == 1);
    CHECK(x.lo == 200 && x.hi == 400);
    CHECK_NEAR(x.size, 200, 1e-9);  /* the log-log line reaches 1× at 200 itself */
    gb_crossover_free(&x);
    double one[] = {1.0};
    CHECK(gb_crossover_find(size, one, 1, &x) == GB_CROSS_NOT_REACHED);
    gb_crossover_free(&x);
}

TEST(crossover_entry_stores_the_changes_in_the_json) {
    double size[] = {128, 256, 512, 1024, 2048}, sp[] = {0.5, 1.5, 3, 2, 0.8};
    sweep s = describe(size, sp, 5);
    const cJSON *ch = get(s.entry, "changes");
    CHECK(cJSON_IsArray(ch) && cJSON_GetArraySize(ch) == 2);
    CHECK(get(s.entry, "sign_changes")->valueint == 2);
    /* the fields it had before "changes" are unchanged */
    CHECK(!strcmp(get(s.entry, "status")->valuestring, "interpolated"));
    CHECK_NEAR(get(s.entry, "size")->valuedouble, loglog_cross(128, 0.5, 256, 1.5), 1e-9);
    CHECK(get(s.entry, "tested_min")->valuedouble == 128 && get(s.entry, "tested_max")->valuedouble == 2048);
    const cJSON *a = cJSON_GetArrayItem(ch, 0), *b = cJSON_GetArrayItem(ch, 1);
    CHECK(a && !strcmp(get(a, "to")->valuestring, "cuda") && get(a, "lo")->valuedouble == 128 &&
          get(a, "hi")->valuedouble == 256);
    CHECK(b && !strcmp(get(b, "to")->valuestring, "cpu") && get(b, "lo")->valuedouble == 1024 &&
          get(b, "hi")->valuedouble == 2048);
    CHECK(b && get(b, "size")->valuedouble > 1024 && get(b, "size")->valuedouble < 2048);
    /* and read back into the model, each change knows which side it goes to */
    CHECK(s.x->nchanges == 2 && s.x->changes[0].to_accelerator && !s.x->changes[1].to_accelerator);
    sweep_free(&s);
}

/* ---- the sentences ------------------------------------------------------------- */

TEST(crossover_text_gpu_wins_in_the_middle_only_names_both_changes) {
    double size[] = {128, 256, 512, 1024, 2048}, sp[] = {0.5, 1.5, 3, 2, 0.8};
    sweep s = describe(size, sp, 5);
    char want[512];
    snprintf(want, sizeof want,
             "the CPU wins at 128; the GPU wins from 256 to 1024 (crossing ≈ %.0f); "
             "the CPU wins again at 2048 (crossing ≈ %.0f)",
             loglog_cross(128, 0.5, 256, 1.5), loglog_cross(1024, 2, 2048, 0.8));
    CHECK(!strcmp(s.text, want));
    if (strcmp(s.text, want)) fprintf(stderr, "    got:  %s\n    want: %s\n", s.text, want);
    CHECK(!strcmp(s.gpu_sizes, "256–1024"));
    sweep_free(&s);
}

TEST(crossover_text_gpu_never_wins) {
    double size[] = {128, 512, 2048}, sp[] = {0.01, 0.2, 0.9};
    sweep s = describe(size, sp, 3);
    CHECK(!strcmp(s.text, "the CPU wins at every size tested, from 128 to 2048"));
    CHECK(!strstr(s.text, "GPU"));
    CHECK(!strcmp(s.gpu_sizes, "none"));
    sweep_free(&s);
}

TEST(crossover_text_gpu_wins_everywhere) {
    double size[] = {128, 512, 2048}, sp[] = {1.5, 3, 9};
    sweep s = describe(size, sp, 3);
    CHECK(!strcmp(s.text, "the GPU wins at every size tested, from 128 to 2048"));
    CHECK(!strstr(s.text, "CPU"));
    CHECK(!strcmp(s.gpu_sizes, "128–2048"));
    sweep_free(&s);
}

TEST(crossover_text_back_and_forth_names_every_change) {
    double size[] = {100, 200, 400, 800, 1600}, sp[] = {2, 0.5, 2, 0.5, 2};
    sweep s = describe(size, sp, 5);
    CHECK(get(s.entry, "sign_changes")->valueint == 4);
    /* Symmetric speedups: each crossing is the geometric midpoint. */
    char want[512];
    snprintf(want, sizeof want,
             "the GPU wins at 100; the CPU wins at 200 (crossing ≈ %.0f); the GPU wins again at 400 "
             "(crossing ≈ %.0f); the CPU wins again at 800 (crossing ≈ %.0f); the GPU wins again at 1600 "
             "(crossing ≈ %.0f)",
             sqrt(100.0 * 200), sqrt(200.0 * 400), sqrt(400.0 * 800), sqrt(800.0 * 1600));
    CHECK(!strcmp(s.text, want));
    if (strcmp(s.text, want)) fprintf(stderr, "    got:  %s\n    want: %s\n", s.text, want);
    CHECK(!strcmp(s.gpu_sizes, "100, 400, 1600"));
    sweep_free(&s);
}

TEST(crossover_text_single_size) {
    double size[] = {512}, win[] = {3}, lose[] = {0.4};
    sweep s = describe(size, win, 1);
    CHECK(!strcmp(s.text, "the GPU wins at the only size tested, 512"));
    CHECK(!strcmp(s.gpu_sizes, "512"));
    sweep_free(&s);
    s = describe(size, lose, 1);
    CHECK(!strcmp(s.text, "the CPU wins at the only size tested, 512"));
    CHECK(!strcmp(s.gpu_sizes, "none"));
    sweep_free(&s);
}

TEST(crossover_text_is_never_cut_short) {
    /* 41 sizes, the winner changing at every step: 40 changes, all named. */
    enum { N = 41 };
    double size[N], sp[N];
    for (int i = 0; i < N; i++) {
        size[i] = 100 + 10 * i;
        sp[i] = i % 2 ? 0.5 : 2;
    }
    sweep s = describe(size, sp, N);
    int crossings = 0;
    for (const char *p = s.text; (p = strstr(p, "crossing ≈")); p++) crossings++;
    CHECK(crossings == 40);
    CHECK(strstr(s.text, "; the GPU wins again at 500 (crossing ≈ 495)") != NULL);
    sweep_free(&s);
}

TEST(crossover_text_of_an_entry_without_changes) {
    /* A file from before "changes": with changes counted, the sentence does
     * not pretend to know where they are; without, one winner is certain. */
    gb_crossover_entry e = {.status = "below_smallest", .tested_min = 512, .tested_max = 8192, .points = 5,
                            .sign_changes = 1, .has_changes = 0};
    char *t = gb_crossover_text(&e);
    CHECK(t && strstr(t, "changes 1 times") && !strstr(t, "every size"));
    free(t);
    e.sign_changes = 0;
    t = gb_crossover_text(&e);
    CHECK(t && !strcmp(t, "the GPU wins at every size tested, from 512 to 8192"));
    free(t);
}

/* ---- on the committed H100 reference run ------------------------------------------ */

/* Params as the report prints them: "k=v k=v", or "–" when none. */
static void params_words(const cJSON *params, char *buf, size_t len) {
    buf[0] = '\0';
    const cJSON *p;
    cJSON_ArrayForEach(p, params) {
        char v[64];
        if (cJSON_IsString(p)) snprintf(v, sizeof v, "%s", p->valuestring);
        else if (cJSON_IsBool(p)) snprintf(v, sizeof v, "%s", cJSON_IsTrue(p) ? "true" : "false");
        else snprintf(v, sizeof v, "%g", p->valuedouble);
        snprintf(buf + strlen(buf), len - strlen(buf), "%s%s=%s", *buf ? " " : "", p->string, v);
    }
    if (!*buf) snprintf(buf, len, "–");
}

/* The sweep of one (op, dtype, params, timing), read from the cases by the
 * test itself: distinct sizes ascending (geometric mean of the shape) and
 * whether the GPU wins each (speedup > 1). Returns the number of sizes. */
#define MAXPTS 64
static int sweep_of(const cJSON *doc, const char *op, const char *dtype, const char *params,
                    const char *timing, double *size, int *gpu) {
    double sz[MAXPTS], logsp[MAXPTS];
    int n = 0;
    const cJSON *c;
    cJSON_ArrayForEach(c, get(doc, "cases")) {
        char pw[256];
        params_words(get(c, "params"), pw, sizeof pw);
        if (strcmp(get(c, "op")->valuestring, op) || strcmp(get(c, "dtype")->valuestring, dtype) ||
            strcmp(pw, params))
            continue;
        const cJSON *v = get(get(c, "speedup"), timing);
        if (!cJSON_IsNumber(v) || !(v->valuedouble > 0) || n == MAXPTS) continue;
        double lg = 0;
        int dims = cJSON_GetArraySize(get(c, "shape"));
        const cJSON *d;
        cJSON_ArrayForEach(d, get(c, "shape")) lg += log(d->valuedouble);
        sz[n] = exp(lg / dims);
        logsp[n] = log(v->valuedouble);
        n++;
    }
    /* distinct sizes, ascending; repeated sizes by geometric mean */
    int m = 0;
    while (1) {
        double next = INFINITY;
        for (int i = 0; i < n; i++)
            if (sz[i] < next && (m == 0 || sz[i] > size[m - 1] * (1 + 1e-9))) next = sz[i];
        if (isinf(next)) break;
        double sum = 0;
        int k = 0;
        for (int i = 0; i < n; i++)
            if (fabs(sz[i] - next) <= next * 1e-9) sum += logsp[i], k++;
        size[m] = next;
        gpu[m] = sum / k > 0;
        m++;
    }
    return m;
}

/* The crossover rows of the rendered terminal table: its six columns, split
 * at runs of two or more spaces (no cell holds two spaces in a row). */
typedef struct {
    char f[6][1024];
} xrow;

static int crossover_rows(const char *report, xrow *rows, int max) {
    const char *p = strstr(report, "\nCrossover: where the GPU wins\n");
    if (!p || !(p = strstr(p, "──")) || !(p = strchr(p, '\n'))) return -1;
    p++;
    int n = 0;
    while (*p && *p != '\n' && *p != '*' && n < max) {
        const char *eol = strchr(p, '\n');
        if (!eol) eol = p + strlen(p);
        xrow *r = &rows[n];
        memset(r, 0, sizeof *r);
        int k = 0;
        size_t len = 0;
        for (const char *q = p; q < eol && k < 6;) {
            if (q[0] == ' ' && q + 1 < eol && q[1] == ' ') {
                while (q < eol && *q == ' ') q++;
                if (len) { k++; len = 0; }
                continue;
            }
            if (len < sizeof r->f[0] - 1) r->f[k][len++] = *q;
            q++;
        }
        n++;
        p = *eol ? eol + 1 : eol;
    }
    return n;
}

/* Check one sentence against the sweep it describes: reading the sentence,
 * every tested size is in exactly one named range, and that range names the
 * side that actually wins there; each crossing lies strictly between the last
 * size of the range before it and the first of its own, so the sizes the
 * sentence names bracket every actual change of winner. */
static int sentence_matches(const char *text, const double *size, const int *gpu, int n) {
    int covered[MAXPTS] = {0}, ok = 1;
    double prev_end = NAN;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s", text);
    for (char *save = NULL, *seg = strtok_r(buf, ";", &save); seg; seg = strtok_r(NULL, ";", &save)) {
        while (*seg == ' ') seg++;
        int is_gpu;
        if (!strncmp(seg, "the GPU wins", 12)) is_gpu = 1;
        else if (!strncmp(seg, "the CPU wins", 12)) is_gpu = 0;
        else return 0;
        double a, b, cross = NAN;
        const char *at;
        if ((at = strstr(seg, "at the only size tested, "))) {
            a = b = strtod(at + strlen("at the only size tested, "), NULL);
        } else if ((at = strstr(seg, "from "))) {
            char *end;
            a = strtod(at + 5, &end);
            if (strncmp(end, " to ", 4)) return 0;
            b = strtod(end + 4, NULL);
        } else if ((at = strstr(seg, " at "))) {
            a = b = strtod(at + 4, NULL);
        } else {
            return 0;
        }
        if ((at = strstr(seg, "(crossing ≈ "))) cross = strtod(at + strlen("(crossing ≈ "), NULL);
        /* the crossing, when named, sits between the two ranges it joins */
        if (!isnan(prev_end) && !(cross > prev_end && cross < a)) ok = 0;
        if (isnan(prev_end) && !isnan(cross)) ok = 0;
        prev_end = b;
        /* printed sizes are whole numbers from 100 up: within half a unit */
        for (int i = 0; i < n; i++) {
            if (size[i] < a - 0.5 || size[i] > b + 0.5) continue;
            covered[i]++;
            if (gpu[i] != is_gpu) ok = 0;
        }
    }
    for (int i = 0; i < n; i++)
        if (covered[i] != 1) ok = 0;
    return ok;
}

/* The terminal report of a file (as `gpubench report` renders it), and the
 * file's JSON, which the checks read for themselves (caller frees both). */
static char *render_table(const char *path, cJSON **doc_out) {
    gb_err e = {{0}};
    gb_results r;
    *doc_out = NULL;
    if (gb_json_read_file(path, doc_out, &e) != GB_OK || gb_results_load(path, &r, &e) != GB_OK) {
        fprintf(stderr, "    %s\n", e.msg);
        return NULL;
    }
    CHECK(gb_crossover_update(&r, &e) == GB_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    gb_report_options o = {.format = GB_FMT_TABLE, .wide = 1}; /* one row per line: no wrapped sentences */
    int rc = gb_report_render(&r, &o, out);
    fclose(out);
    CHECK(rc == 0);
    /* the crossover as computed, where the checks look for it */
    cJSON_Delete(*doc_out);
    *doc_out = gb_results_to_json(&r, 0);
    gb_results_free(&r);
    return buf;
}

TEST(crossover_h100_elementwise_reduction_e2e_say_where_the_cpu_wins_again) {
    cJSON *doc = NULL;
    char *s = render_table(REF_H100, &doc);
    CHECK(s != NULL);
    if (!s) return;
    static xrow rows[128];
    int n = crossover_rows(s, rows, 128), seen = 0;
    CHECK(n > 0);
    for (int i = 0; i < n; i++) {
        const char *op = rows[i].f[0], *timing = rows[i].f[3], *text = rows[i].f[5];
        if ((strcmp(op, "elementwise") && strcmp(op, "reduction")) || strcmp(timing, "end-to-end")) continue;
        seen++;
        /* the CPU wins 2048–8192 end-to-end on every one of these sweeps... */
        CHECK(!strstr(text, "every size") && !strstr(text, "smallest size"));
        /* ...and the sentence says so, after the GPU's range */
        const char *g = strstr(text, "the GPU wins"), *c = strstr(text, "the CPU wins");
        CHECK(g && c && c > g);
        if (!(g && c && c > g)) fprintf(stderr, "    %s %s: %s\n", op, rows[i].f[1], text);
    }
    CHECK(seen == 4);  /* elementwise, reduction × float32, float64 */
    free(s);
    cJSON_Delete(doc);
}

TEST(crossover_h100_every_sentence_matches_the_speedups) {
    cJSON *doc = NULL;
    char *s = render_table(REF_H100, &doc);
    CHECK(s != NULL);
    if (!s) return;
    static xrow rows[128];
    int n = crossover_rows(s, rows, 128);
    CHECK(n == cJSON_GetArraySize(get(doc, "crossover")) && n > 0);
    int changes = 0;
    for (int i = 0; i < n; i++) {
        const xrow *r = &rows[i];
        double size[MAXPTS];
        int gpu[MAXPTS];
        const char *timing = !strcmp(r->f[3], "end-to-end") ? "end_to_end" : r->f[3];
        int m = sweep_of(doc, r->f[0], r->f[1], r->f[2], timing, size, gpu);
        CHECK(m > 0);
        for (int k = 1; k < m; k++) changes += gpu[k] != gpu[k - 1];
        int ok = m > 0 && sentence_matches(r->f[5], size, gpu, m);
        CHECK(ok);
        if (!ok) fprintf(stderr, "    %s %s %s %s: %s\n", r->f[0], r->f[1], r->f[2], r->f[3], r->f[5]);
        /* "GPU wins at" is "none" exactly when the GPU wins no size */
        int any = 0;
        for (int k = 0; k < m; k++) any |= gpu[k];
        CHECK(!strcmp(r->f[4], "none") == !any);
    }
    /* the reference run has changes of winner (elementwise, reduction, svd):
     * the check above is not vacuous */
    CHECK(changes >= 8);
    free(s);
    cJSON_Delete(doc);
}

TEST(crossover_h100_sentence_in_every_format) {
    /* md, csv and html carry the same sentence as the terminal table. */
    gb_err e = {{0}};
    gb_results doc;
    CHECK(gb_results_load(REF_H100, &doc, &e) == GB_OK);
    CHECK(gb_crossover_update(&doc, &e) == GB_OK);
    const gb_crossover_entry *want = NULL;
    for (size_t i = 0; i < doc.ncrossover; i++) {
        const gb_crossover_entry *x = &doc.crossover[i];
        if (!strcmp(x->op, "elementwise") && !strcmp(x->dtype, "float32") && !strcmp(x->timing, "end_to_end"))
            want = x;
    }
    CHECK(want != NULL);
    char *text = want ? gb_crossover_text(want) : NULL;
    CHECK(text && strstr(text, "the GPU wins from 512 to 1024; the CPU wins from 2048 to 8192"));
    static const gb_format formats[] = {GB_FMT_TABLE, GB_FMT_MD, GB_FMT_CSV, GB_FMT_HTML};
    for (int i = 0; i < 4 && text; i++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *out = open_memstream(&buf, &len);
        gb_report_options o = {.format = formats[i], .wide = 1}; /* the sentence unwrapped */
        CHECK(gb_report_render(&doc, &o, out) == 0);
        fclose(out);
        CHECK(buf && strstr(buf, text));
        free(buf);
    }
    free(text);
    gb_results_free(&doc);
}

/* A sweep's sizes written as numbers people read: the geometric mean of
 * 16384x4096 is 8192, not 8191.9999999999945 (exp of a mean of logs). */
TEST(crossover_sizes_are_whole_where_they_should_be) {
    gb_err e = {{0}};
    gb_results r;
    CHECK(gb_results_load("results/reference/default-h100.json", &r, &e) == GB_OK);
    CHECK(gb_crossover_update(&r, &e) == GB_OK);
    int checked = 0;
    for (size_t i = 0; i < r.ncrossover; i++) {
        const double v[] = {r.crossover[i].tested_min, r.crossover[i].tested_max};
        for (int k = 0; k < 2; k++) {
            double w = nearbyint(v[k]);
            if (fabs(v[k] - w) < 1e-6 * w) CHECK(v[k] == w), checked++;
        }
    }
    CHECK(checked > 0);
    gb_results_free(&r);
}
