/* compare_match.c — matching results across runs (compare_internal.h):
 * every result of a file as an entry, the index that finds an entry's match
 * in another file in constant time, whether a result can be compared, the
 * plans a library chose, and the names results go by. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compare_internal.h"

/* ---- names and keys --------------------------------------------------- */

void gb_result_device_tag(const gb_result *r, char *buf, size_t len) {
    buf[0] = '\0';
    if (r->device.present && (r->device.index != 0 || r->concurrent.present))
        snprintf(buf, len, "/gpu%ld%s", r->device.index, r->concurrent.present ? "/concurrent" : "");
}

void gb_result_case_name(const gb_case_result *c, char *buf, size_t len) {
    char label[96] = "";
    if (*c->label) {
        snprintf(label, sizeof label, "%s", c->label);
    } else { /* shape as AxBxC when no label */
        size_t n = 0;
        for (size_t i = 0; i < c->rank && n < sizeof label - 24; i++)
            n += (size_t)snprintf(label + n, sizeof label - n, "%s%.0f", n ? "x" : "", c->shape[i]);
    }
    char params[160] = "";
    size_t n = 0;
    for (size_t i = 0; i < c->params.n && n < sizeof params - 1; i++) {
        const gb_kv *p = &c->params.item[i];
        char v[48];
        if (p->v.kind == GB_VAL_STRING) snprintf(v, sizeof v, "%s", p->v.text);
        else if (p->v.kind == GB_VAL_NUMBER) snprintf(v, sizeof v, "%g", p->v.num);
        else if (p->v.kind == GB_VAL_BOOL) snprintf(v, sizeof v, "%s", p->v.b ? "true" : "false");
        else snprintf(v, sizeof v, "?");
        n += (size_t)snprintf(params + n, sizeof params - n, "%s%s=%s", n ? "," : "", p->key, v);
    }
    if (n >= sizeof params) n = sizeof params - 1;
    snprintf(buf, len, "%s/%s/%s%s%s", c->op, c->dtype, label, n ? "/" : "", params);
}

void gb_result_name(const gb_case_result *c, const gb_result *r, const char *machine, char *buf, size_t len) {
    char cname[320], dev[24];
    gb_result_case_name(c, cname, sizeof cname);
    gb_result_device_tag(r, dev, sizeof dev);
    snprintf(buf, len, "%s/%s/%s%s%s%s", cname, r->backend, r->timing, dev, machine ? "@" : "",
             machine ? machine : "");
}


int gb_cmp_distinct_run_names(const gb_results *doc) {
    int distinct = 0;
    for (size_t i = 0; i < doc->nruns; i++) {
        int seen = 0;
        for (size_t j = 0; j < i; j++)
            if (strcmp(gb_results_run_name(doc, (int)i), gb_results_run_name(doc, (int)j)) == 0) seen = 1;
        distinct += !seen;
    }
    return distinct;
}

int gb_cmp_collect(const gb_results *doc, int by_machine, entries *out) {
    for (size_t i = 0; i < doc->ncases; i++) {
        const gb_case_result *c = &doc->cases[i];
        for (size_t j = 0; j < c->nresults; j++) {
            if (out->n == out->cap) {
                size_t cap = out->cap ? out->cap * 2 : 64;
                entry *e = realloc(out->e, cap * sizeof *e);
                if (!e) return -1;
                out->e = e;
                out->cap = cap;
            }
            out->e[out->n++] = (entry){c, &c->results[j], by_machine ? gb_results_run_name(doc, c->run) : NULL, c->run, 0};
        }
    }
    return 0;
}

static int same_key(const entry *a, const entry *b) {
    if (strcmp(a->c->op, b->c->op) != 0 || strcmp(a->c->dtype, b->c->dtype) != 0) return 0;
    if (strcmp(a->r->backend, b->r->backend) != 0) return 0;
    if (strcmp(a->r->timing, b->r->timing) != 0) return 0;
    if (!gb_result_same_series(a->r, b->r)) return 0;
    if (a->machine && b->machine && strcmp(a->machine, b->machine) != 0) return 0;
    if (!gb_shape_equal(a->c, b->c)) return 0;
    const gb_kvlist *pa = &a->c->params, *pb = &b->c->params;
    /* a missing params object means "no params" */
    if (pa->n == 0 && pb->n == 0) return 1;
    return pa->present && pb->present && gb_kvlist_equal(pa, pb);
}


static uint64_t entry_hash(const entry *x) {
    uint64_t h = gb_case_hash(GB_HASH_START, x->c, 1);
    h = gb_hash_str(gb_hash_str(h, x->r->backend), x->r->timing);
    return x->machine ? gb_hash_str(h, x->machine) : h;
}

static int same_as_probe(const void *ctx, size_t i) {
    const matcher *m = ctx;
    return same_key(m->probe, &m->ec->e[i]);
}

int gb_cmp_matcher_init(matcher *m, const entries *ec) {
    memset(m, 0, sizeof *m);
    m->ec = ec;
    m->next = malloc((ec->n ? ec->n : 1) * sizeof *m->next);
    m->head = malloc((ec->n ? ec->n : 1) * sizeof *m->head);
    if (!m->next || !m->head || gb_index_init(&m->index, ec->n) != GB_OK) return -1;
    size_t *last = malloc((ec->n ? ec->n : 1) * sizeof *last); /* last[first]: the chain's tail */
    if (!last) return -1;
    for (size_t i = 0; i < ec->n; i++) {
        m->next[i] = SIZE_MAX;
        m->probe = &ec->e[i];
        uint64_t h = entry_hash(&ec->e[i]);
        long f = gb_index_find(&m->index, h, same_as_probe, m);
        if (f < 0) {
            m->head[i] = last[i] = i;
            if (gb_index_add(&m->index, h, i) != GB_OK) {
                free(last);
                return -1;
            }
        } else {
            m->next[last[f]] = i;
            last[f] = i;
        }
    }
    free(last);
    return 0;
}

/* The first unmatched current entry with b's key, or NULL. */
entry *gb_cmp_matcher_take(matcher *m, entries *ec, const entry *b) {
    m->probe = b;
    long f = gb_index_find(&m->index, entry_hash(b), same_as_probe, m);
    if (f < 0) return NULL;
    size_t i = m->head[f];
    while (i != SIZE_MAX && ec->e[i].matched) i = m->next[i];
    m->head[f] = i;
    return i == SIZE_MAX ? NULL : &ec->e[i];
}

void gb_cmp_matcher_free(matcher *m) {
    gb_index_free(&m->index);
    free(m->next);
    free(m->head);
}

static int verification_failed(const gb_result *r) {
    return r->verification.present && r->verification.status == GB_VS_FAILED;
}

/* ok, or the status with its reason ("skipped: too big for GPU memory") */
int gb_cmp_result_ok(const gb_result *r, char *desc, size_t len) {
    if (r->status == GB_RS_OK && !verification_failed(r)) {
        snprintf(desc, len, "ok");
        return 1;
    }
    const char *why = r->reason;
    if (r->status == GB_RS_OK) why = "verification failed";
    snprintf(desc, len, "%s%s%s", r->status == GB_RS_OK ? "failed" : gb_result_status_name(r->status), *why ? ": " : "",
             why);
    return 0;
}

int gb_cmp_current_failed(const gb_result *r) {
    return r->status == GB_RS_FAILED || r->status == GB_RS_ERROR || verification_failed(r);
}

#define GB_PLAN_LEN 96
#define GB_PLANS_MAX 64

/* The plans a library chose for a result, when its backend records one
 * (extra.plan: FFTW's, with planner=measure picked per process; and
 * extra.round_plans, the plan of every round, where a round prepared its
 * state again): copied into out (up to max), the count returned. */
static int plans_of(const gb_result *r, char (*out)[GB_PLAN_LEN], int max) {
    int n = 0;
    const gb_value *v = gb_kv_find(&r->extra, "plan");
    if (v && v->kind == GB_VAL_STRING && n < max) snprintf(out[n++], GB_PLAN_LEN, "%s", v->text);
    const gb_value *rp = gb_kv_find(&r->extra, "round_plans");
    if (!rp || rp->kind != GB_VAL_JSON || !rp->text) return n;
    cJSON *a = cJSON_Parse(rp->text);
    const cJSON *it;
    cJSON_ArrayForEach(it, a)
        if (cJSON_IsString(it) && n < max) snprintf(out[n++], GB_PLAN_LEN, "%s", it->valuestring);
    cJSON_Delete(a);
    return n;
}

static int plan_known(char (*seen)[GB_PLAN_LEN], int n, const char *p) {
    for (int j = 0; j < n; j++)
        if (!strcmp(seen[j], p)) return 1;
    return 0;
}

/* How many distinct plans the baseline's runs chose (in any round), and
 * whether a current run chose one none of them did. */
void gb_cmp_compare_plans(matched *m) {
    char seen[GB_PLANS_MAX][GB_PLAN_LEN], p[16][GB_PLAN_LEN];
    int n = 0;
    for (int k = 0; k < m->kb; k++) {
        int np = plans_of(m->bp[k], p, 16);
        for (int i = 0; i < np; i++)
            if (!plan_known(seen, n, p[i]) && n < GB_PLANS_MAX) memcpy(seen[n++], p[i], GB_PLAN_LEN);
    }
    m->plans_b = n;
    for (int k = 0; k < m->kc; k++) {
        int np = plans_of(m->cp[k], p, 16);
        for (int i = 0; i < np; i++)
            if (n > 0 && !plan_known(seen, n, p[i])) m->plan_changed = 1;
    }
}

void gb_cmp_views_of(const gb_result *const *r, int k, gb_proc_view *v) {
    for (int i = 0; i < k; i++)
        v[i] = (gb_proc_view){r[i]->samples, r[i]->nsamples, r[i]->round_sizes, r[i]->nrounds};
}

/* The first unmatched entry of es with b's key, marked matched; NULL when none. */
entry *gb_cmp_match_in(entries *es, matcher *m, const entry *b) {
    entry *x = gb_cmp_matcher_take(m, es, b);
    if (x) x->matched = 1;
    return x;
}

