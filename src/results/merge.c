/* merge.c — see merge.h. */
#include "merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Same machine: same CPU model and GPU name (hostnames repeat across
 * containers, and a partial run on one machine should keep one name). */
static int same_machine(const gb_context *a, const gb_context *b) {
    return strcmp(a->cpu_model, b->cpu_model) == 0 && strcmp(a->gpu_name, b->gpu_name) == 0;
}

static const char *job_key(const gb_job_info *j) { return j->array_job_id ? j->array_job_id : j->job_id; }

static int same_str(const char *a, const char *b) { return a && b ? !strcmp(a, b) : a == b; }

/* Whether run b, being added, continues run a under a's name (its repeated
 * cases replacing a's) rather than being a run of its own beside it. Only on
 * the same machine, and only where one of them is a part: the same run given
 * twice (same start date), a partial run and the run that completed it, or a
 * retried SLURM task (attempt > 1) of the same partition. Two finished runs
 * on one host, and two jobs (a CPU-partition and a GPU-partition job both
 * naming their runs task0-<host>), are kept apart: merging them used to
 * replace one's results with the other's. */
static int continues(const gb_run *a, const gb_run *b) {
    if (!same_machine(&a->context, &b->context)) return 0;
    const gb_job_info *ja = &a->context.job, *jb = &b->context.job;
    if (ja->present && jb->present && !same_str(job_key(ja), job_key(jb)))
        return jb->attempt > 1 && same_str(ja->partition, jb->partition);
    if (!strcmp(a->context.date, b->context.date)) return 1;
    return a->complete == 0 || b->complete == 0;
}

/* The same case: op, dtype, shape and params (a missing params object is
 * another case than an empty one). */
static int same_case(const gb_case_result *a, const gb_case_result *b) {
    if (strcmp(a->op, b->op) || strcmp(a->dtype, b->dtype) || !gb_shape_equal(a, b)) return 0;
    if (!a->params.present && !b->params.present) return 1;
    return a->params.present && b->params.present && gb_kvlist_equal(&a->params, &b->params);
}

/* Room for one more after n elements of size sz; NULL on out of memory. The
 * capacity doubles whenever n is a power of two (every array here starts
 * empty and grows only through this), so n appends copy O(n) bytes in all:
 * growing by one each time copied the whole array per case. */
static void *grow(void *arr, size_t n, size_t sz) {
    if (n & (n - 1)) return arr;
    return realloc(arr, (n ? 2 * n : 1) * sz);
}

typedef struct {
    const gb_results *out;
    const char *run_name;
    const gb_case_result *c;
} repeat_probe;

static int is_repeat(const void *ctx, size_t j) {
    const repeat_probe *q = ctx;
    const gb_case_result *old = &q->out->cases[j];
    return strcmp(q->out->runs[old->run].name, q->run_name) == 0 && same_case(old, q->c);
}

static uint64_t repeat_hash(const char *run_name, const gb_case_result *c) {
    return gb_case_hash(gb_hash_str(GB_HASH_START, run_name), c, 1);
}

/* Drop the cases marked gone. */
static void drop_gone(gb_results *out, const gb_merge *k) {
    size_t w = 0;
    for (size_t i = 0; i < out->ncases; i++)
        if (!k->gone[i]) out->cases[w++] = out->cases[i];
    out->ncases = w;
    if (w) memset(k->gone, 0, w); /* dropping twice drops nothing more */
}

static int add_warning(gb_results *out, const char *line, gb_err *e) {
    char **w = grow(out->warnings.item, out->warnings.n, sizeof *w);
    if (!w) return gb_errf(e, GB_FAIL, "out of memory");
    out->warnings.item = w;
    if (!(w[out->warnings.n] = strdup(line))) return gb_errf(e, GB_FAIL, "out of memory");
    out->warnings.n++;
    return GB_OK;
}

/* One more case of run `run` that an earlier file (source) also had; its
 * line kept in the details. 0, or -1 out of memory. */
static int tally_repeat(gb_merge *k, int run, const char *source, const char *line) {
    if (!source) source = "";
    char **d = grow(k->details.item, k->details.n, sizeof *d);
    if (!d) return -1;
    k->details.item = d;
    if (!(d[k->details.n] = strdup(line))) return -1;
    k->details.n++;
    for (size_t t = 0; t < k->nrepeats; t++)
        if (k->repeats[t].run == run && !strcmp(k->repeats[t].source, source)) {
            k->repeats[t].n++;
            return 0;
        }
    gb_merge_repeat *r = grow(k->repeats, k->nrepeats, sizeof *r);
    if (!r) return -1;
    k->repeats = r;
    if (!(r[k->nrepeats].source = strdup(source))) return -1;
    r[k->nrepeats].run = run;
    r[k->nrepeats++].n = 1;
    return 0;
}

static int add_input(gb_results *out, gb_merge *k, const gb_results *doc, const char *path, const char *name, gb_err *e) {
    int first = (int)out->nruns;
    for (size_t i = 0; i < doc->nruns; i++) {
        gb_run *grown = grow(out->runs, out->nruns, sizeof *out->runs);
        if (!grown) return gb_errf(e, GB_FAIL, "out of memory");
        out->runs = grown;
        gb_run *run = &out->runs[out->nruns];
        if (gb_run_copy(run, &doc->runs[i]) != GB_OK) return gb_errf(e, GB_FAIL, "out of memory");
        out->nruns++;
        /* A name is at most 200 bytes, so "#<k>" always fits after it (a
         * cut suffix once made every try the same name, and merge looped). */
        char nm[256];
        const char *base = !doc->merged && name ? name : gb_results_run_name(doc, (int)i);
        snprintf(nm, sizeof nm, "%.200s", base);
        /* The same name on another machine (containers all called
         * "localhost"), or another run or job on it, gets a suffix; a run
         * that continues one (see continues) keeps its name. */
        for (int n = 2;; n++) {
            int clash = 0;
            for (size_t r = 0; r + 1 < out->nruns; r++)
                if (strcmp(out->runs[r].name, nm) == 0 && !continues(&out->runs[r], run)) clash = 1;
            if (!clash) break;
            snprintf(nm, sizeof nm, "%.200s#%d", base, n);
        }
        free(run->name);
        free(run->source);
        run->name = strdup(nm);
        run->source = strdup(doc->runs[i].source ? doc->runs[i].source : path);
        if (!run->gpubench_version && doc->gpubench_version) run->gpubench_version = strdup(doc->gpubench_version);
        if (!run->name || !run->source || (doc->gpubench_version && !run->gpubench_version))
            return gb_errf(e, GB_FAIL, "out of memory");
        if (run->complete == 0) out->complete = 0;
        if (run->interrupted == 1) out->interrupted = 1;
    }
    for (size_t i = 0; i < doc->ncases; i++) {
        const gb_case_result *cs = &doc->cases[i];
        int run = first + cs->run;
        const char *rname = out->runs[run].name;
        /* a repeat of a case on the same machine replaces the earlier one */
        repeat_probe q = {out, rname, cs};
        uint64_t h = repeat_hash(rname, cs);
        long found = gb_index_find(&k->index, h, is_repeat, &q);
        if (found >= 0) {
            size_t j = (size_t)found;
            const gb_case_result *old = &out->cases[j];
            const gb_run *orun = &out->runs[old->run];
            char line[600];
            snprintf(line, sizeof line, "%s %s %s on %s appears in %s and %s; kept the later (%s)", cs->op, cs->dtype,
                     cs->label, rname, orun->source, path, path);
            if (tally_repeat(k, run, orun->source, line) != 0) return gb_errf(e, GB_FAIL, "out of memory");
            gb_case_result_free(&out->cases[j]);
            k->gone[j] = 1;
        }
        gb_case_result *grown = grow(out->cases, out->ncases, sizeof *out->cases);
        if (!grown) return gb_errf(e, GB_FAIL, "out of memory");
        out->cases = grown;
        unsigned char *gone = grow(k->gone, out->ncases, 1);
        if (!gone) return gb_errf(e, GB_FAIL, "out of memory");
        k->gone = gone;
        k->gone[out->ncases] = 0;
        if (gb_case_result_copy(&out->cases[out->ncases], cs) != GB_OK) return gb_errf(e, GB_FAIL, "out of memory");
        out->cases[out->ncases].run = run;
        if (found >= 0) gb_index_replace(&k->index, h, (size_t)found, out->ncases);
        else if (gb_index_add(&k->index, h, out->ncases) != GB_OK) return gb_errf(e, GB_FAIL, "out of memory");
        out->ncases++;
    }
    /* one line per run and earlier file in the merged file's warnings (a
     * second run of a whole suite once printed 111 lines); each case is in
     * m->details (merge --verbose prints them) */
    for (size_t t = 0; t < k->nrepeats; t++) {
        char line[700];
        gb_merge_repeat *r = &k->repeats[t];
        snprintf(line, sizeof line, "%zu case%s of run %s appear%s in %s and %s; kept the later (%s)", r->n,
                 r->n == 1 ? "" : "s", out->runs[r->run].name, r->n == 1 ? "s" : "", r->source, path, path);
        free(r->source);
        r->source = NULL; /* gb_merge_free frees what is left after a failure */
        if (add_warning(out, line, e) != GB_OK) return GB_FAIL;
    }
    k->nrepeats = 0;
    for (size_t i = 0; i < doc->ncrossover; i++) {
        gb_crossover_entry *grown = grow(out->crossover, out->ncrossover, sizeof *out->crossover);
        if (!grown) return gb_errf(e, GB_FAIL, "out of memory");
        out->crossover = grown;
        if (gb_crossover_entry_copy(&out->crossover[out->ncrossover], &doc->crossover[i]) != GB_OK)
            return gb_errf(e, GB_FAIL, "out of memory");
        out->crossover[out->ncrossover++].run = first + doc->crossover[i].run;
    }
    return GB_OK;
}

int gb_merge_init(gb_merge *m, const char *output, gb_err *e) {
    memset(m, 0, sizeof *m);
    if (gb_index_init(&m->index, 1024) != GB_OK) return gb_errf(e, GB_FAIL, "out of memory");
    if (gb_results_init(&m->out, output, 1, e) != GB_OK || gb_set_string(&m->out.gpubench_version, GB_VERSION) != GB_OK) {
        m->inited = 1;
        return gb_errf(e, GB_FAIL, "out of memory");
    }
    m->inited = 1;
    m->out.complete = 1;
    m->out.interrupted = 0;
    m->out.warnings.present = 1;
    m->out.has_crossover = 1;
    return GB_OK;
}

int gb_merge_add(gb_merge *m, const gb_results *doc, const char *path, const char *name, gb_err *e) {
    return add_input(&m->out, m, doc, path, name, e);
}

int gb_merge_warn(gb_merge *m, const char *line, gb_err *e) { return add_warning(&m->out, line, e); }

gb_results *gb_merge_finish(gb_merge *m) {
    drop_gone(&m->out, m);
    return &m->out;
}

void gb_merge_free(gb_merge *m) {
    if (m->inited) {
        drop_gone(&m->out, m); /* gone cases are freed already */
        gb_results_free(&m->out);
    }
    gb_index_free(&m->index);
    free(m->gone);
    for (size_t i = 0; i < m->details.n; i++) free(m->details.item[i]);
    free(m->details.item);
    for (size_t i = 0; i < m->nrepeats; i++) free(m->repeats[i].source);
    free(m->repeats);
    memset(m, 0, sizeof *m);
}
