/* suite.c — parse and validate suite files into a plan (see suite.h).
 *
 * Validation is strict on purpose: a typo'd key must never silently run the
 * defaults. Every error names the file, the JSON path and the reason. */
#include "suite.h"

#include "data_files.h"
#include "json_strict.h"
#include "suite_args.h"

#include <errno.h>
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Error with "file: path: reason". */
#define FAIL_AT(e, s, where, ...)                                                   \
    do {                                                                            \
        char reason_[GB_MSG_LEN];                                                   \
        snprintf(reason_, sizeof reason_, __VA_ARGS__);                             \
        return gb_errf(e, GB_FAIL, "%s: %s: %s", (s)->path, where, reason_);        \
    } while (0)

static const char *json_type_name(const cJSON *v) {
    if (!v) return "nothing";
    if (cJSON_IsNumber(v)) return "a number";
    if (cJSON_IsString(v)) return "a string";
    if (cJSON_IsArray(v)) return "an array";
    if (cJSON_IsObject(v)) return "an object";
    if (cJSON_IsBool(v)) return "a boolean";
    return "null";
}

/* Reject keys of obj not in allowed (NULL-terminated). */
static int check_keys(const gb_suite *s, const cJSON *obj, const char *where,
                      const char *const *allowed, gb_err *e) {
    for (const cJSON *it = obj->child; it; it = it->next) {
        int ok = 0;
        for (const char *const *k = allowed; *k; k++)
            if (strcmp(it->string, *k) == 0) ok = 1;
        if (!ok) {
            char list[256] = "";
            size_t len = 0;
            for (const char *const *k = allowed; *k; k++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k == allowed ? "" : ", ", *k);
            FAIL_AT(e, s, where, "unknown key \"%s\" (allowed: %s)", it->string, list);
        }
    }
    return GB_OK;
}

static int read_dtypes(const gb_suite *s, const cJSON *v, const char *where, unsigned *mask,
                       gb_err *e) {
    if (!cJSON_IsArray(v) || cJSON_GetArraySize(v) == 0)
        FAIL_AT(e, s, where, "expected a non-empty array of \"float32\"/\"float64\", got %s",
                json_type_name(v));
    *mask = 0;
    int i = 0;
    for (const cJSON *it = v->child; it; it = it->next, i++) {
        int d = cJSON_IsString(it) ? gb_dtype_parse(it->valuestring) : -1;
        if (d < 0) {
            char w[128];
            snprintf(w, sizeof w, "%s[%d]", where, i);
            if (cJSON_IsString(it))
                FAIL_AT(e, s, w, "unknown dtype \"%s\" (allowed: %s)", it->valuestring,
                        gb_dtype_list((char[128]){0}, 128));
            FAIL_AT(e, s, w, "expected \"float32\" or \"float64\", got %s", json_type_name(it));
        }
        *mask |= 1u << d;
    }
    return GB_OK;
}

static int read_number(const gb_suite *s, const cJSON *v, const char *where, double lo, double hi,
                       int integer, double *out, gb_err *e) {
    if (!cJSON_IsNumber(v))
        FAIL_AT(e, s, where, "expected %s, got %s", integer ? "an integer" : "a number",
                json_type_name(v));
    double d = v->valuedouble;
    if (integer && d != floor(d)) FAIL_AT(e, s, where, "expected an integer, got %g", d);
    if (!(d >= lo && d <= hi)) FAIL_AT(e, s, where, "expected a value in [%g, %g], got %g", lo, hi, d);
    *out = d;
    return GB_OK;
}

/* The timing keys shared by "defaults" and each benchmark. */
static int read_budget_keys(const gb_suite *s, const cJSON *obj, const char *where, gb_budget *b,
                            gb_err *e) {
    char w[192];
    double d;
    const cJSON *v;
    if ((v = cJSON_GetObjectItemCaseSensitive(obj, "warmup"))) {
        snprintf(w, sizeof w, "%s.warmup", where);
        if (read_number(s, v, w, 0, 1000, 1, &d, e)) return GB_FAIL;
        b->warmup = (int)d;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(obj, "min_warmup_s"))) {
        snprintf(w, sizeof w, "%s.min_warmup_s", where);
        if (read_number(s, v, w, 0, 3600, 0, &d, e)) return GB_FAIL;
        b->min_warmup_s = d;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(obj, "min_reps"))) {
        snprintf(w, sizeof w, "%s.min_reps", where);
        if (read_number(s, v, w, 1, 1e6, 1, &d, e)) return GB_FAIL;
        b->min_reps = (int)d;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(obj, "min_time_s"))) {
        snprintf(w, sizeof w, "%s.min_time_s", where);
        if (read_number(s, v, w, 0, 3600, 0, &d, e)) return GB_FAIL;
        b->min_time_s = d;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(obj, "max_time_s"))) {
        snprintf(w, sizeof w, "%s.max_time_s", where);
        if (read_number(s, v, w, 1e-3, 86400, 0, &d, e)) return GB_FAIL;
        b->max_time_s = d;
    }
    if ((v = cJSON_GetObjectItemCaseSensitive(obj, "max_reps"))) {
        snprintf(w, sizeof w, "%s.max_reps", where);
        if (read_number(s, v, w, 1, 1e7, 1, &d, e)) return GB_FAIL;
        b->max_reps = (int)d;
    }
    if (b->max_reps < b->min_reps)
        FAIL_AT(e, s, where, "max_reps (%d) is smaller than min_reps (%d)", b->max_reps, b->min_reps);
    if (b->max_time_s < b->min_time_s)
        FAIL_AT(e, s, where, "max_time_s (%g) is smaller than min_time_s (%g)", b->max_time_s,
                b->min_time_s);
    return GB_OK;
}

/* One param's value into p, as its spec reads it; GB_FAIL with "path:
 * where: reason" in e. */
static int read_param(const gb_suite *s, const gb_param_spec *spec, const cJSON *it, const char *w, gb_params *p,
                      gb_err *e) {
    char *field = (char *)p + spec->offset;
    double d;
    switch (spec->type) {
    case GB_PARAM_INT:
        if (read_number(s, it, w, spec->min, spec->max, 1, &d, e)) return GB_FAIL;
        *(int *)field = (int)d;
        break;
    case GB_PARAM_DOUBLE:
        if (read_number(s, it, w, spec->min, spec->max, 0, &d, e)) return GB_FAIL;
        *(double *)field = d;
        break;
    case GB_PARAM_BOOL:
        if (!cJSON_IsBool(it)) FAIL_AT(e, s, w, "expected true or false, got %s", json_type_name(it));
        *(int *)field = cJSON_IsTrue(it);
        break;
    case GB_PARAM_ENUM: {
        int found = -1;
        char list[256] = "";
        size_t len = 0;
        for (int k = 0; spec->values[k]; k++) {
            if (cJSON_IsString(it) && strcmp(spec->values[k], it->valuestring) == 0) found = k;
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "", spec->values[k]);
        }
        if (found < 0) {
            if (cJSON_IsString(it)) FAIL_AT(e, s, w, "unknown value \"%s\" (allowed: %s)", it->valuestring, list);
            FAIL_AT(e, s, w, "expected one of %s, got %s", list, json_type_name(it));
        }
        *(int *)field = found;
        break;
    }
    }
    return GB_OK;
}

/* The --param that set op's key ("KEY=VALUE" or "OP.KEY=VALUE"), or NULL:
 * the file's own. */
static const char *param_from_command_line(const gb_suite_filter *f, const gb_op *op, const char *key) {
    size_t n = strlen(key), on = strlen(op->name);
    for (size_t i = 0; f && i < f->nparams; i++) {
        const char *kv = f->params[i];
        if (!strncmp(kv, op->name, on) && kv[on] == '.') kv += on + 1;
        if (!strncmp(kv, key, n) && kv[n] == '=') return f->params[i];
    }
    return NULL;
}

static int read_params(const gb_suite *s, const gb_op *op, const cJSON *obj, const char *where,
                       const gb_suite_filter *f, gb_params *p, gb_err *e) {
    if (!cJSON_IsObject(obj)) FAIL_AT(e, s, where, "expected an object, got %s", json_type_name(obj));
    for (const cJSON *it = obj->child; it; it = it->next) {
        const gb_param_spec *spec = NULL;
        for (const gb_param_spec *ps = op->params; ps && ps->key; ps++)
            if (strcmp(ps->key, it->string) == 0) spec = ps;
        char w[192];
        snprintf(w, sizeof w, "%s.%s", where, it->string);
        if (!spec) {
            char list[256] = "";
            size_t len = 0;
            for (const gb_param_spec *ps = op->params; ps && ps->key; ps++)
                len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", ps->key);
            FAIL_AT(e, s, w, "unknown param for op %s (allowed: %s)", op->name, len ? list : "none");
        }
        if (read_param(s, spec, it, w, p, e) == GB_OK) continue;
        const char *given = param_from_command_line(f, op, it->string);
        if (given && (!f->ops || gb_list_contains(f->ops, op->name))) { /* the user's --param, not the file's: named as given, the reason kept */
            char prefix[GB_MSG_LEN], reason[GB_MSG_LEN];
            size_t pl = (size_t)snprintf(prefix, sizeof prefix, "%s: %s: ", s->path, w);
            snprintf(reason, sizeof reason, "%s", strncmp(e->msg, prefix, pl) ? e->msg : e->msg + pl);
            const char *eq = strchr(given, '=');
            if (memchr(given, '.', (size_t)(eq - given)))
                return gb_errf(e, GB_FAIL, "--param %s: %s (op %s)", given, reason, op->name);
            return gb_errf(e, GB_FAIL, "--param %s: %s (op %s; --param OP.%s sets it for one op)", given, reason,
                           op->name, given);
        }
        return GB_FAIL;
    }
    return GB_OK;
}

cJSON *gb_params_to_json(const gb_case *c) {
    cJSON *o = cJSON_CreateObject();
    gb_params defaults;
    gb_params_default(&defaults);
    for (const gb_param_spec *ps = c->op->params; ps && ps->key; ps++) {
        const char *field = (const char *)&c->params + ps->offset;
        size_t size = ps->type == GB_PARAM_DOUBLE ? sizeof(double) : sizeof(int);
        int late = 0;
        for (const char *const *k = c->op->late_params; k && *k && !late; k++) late = strcmp(*k, ps->key) == 0;
        if (late && memcmp(field, (const char *)&defaults + ps->offset, size) == 0) continue;
        switch (ps->type) {
        case GB_PARAM_INT: cJSON_AddNumberToObject(o, ps->key, *(const int *)field); break;
        case GB_PARAM_DOUBLE: cJSON_AddNumberToObject(o, ps->key, *(const double *)field); break;
        case GB_PARAM_BOOL: cJSON_AddBoolToObject(o, ps->key, *(const int *)field); break;
        case GB_PARAM_ENUM: cJSON_AddStringToObject(o, ps->key, ps->values[*(const int *)field]); break;
        }
    }
    return o;
}

static int check_filter(const char *list, const char *what, int (*known)(const char *),
                        const char *allowed, gb_err *e) {
    if (!list) return GB_OK;
    size_t len = strlen(list);
    /* every entry named: "--op ''" or "matmul,,fft" is an error, not "all" */
    if (!len || list[0] == ',' || list[len - 1] == ',' || strstr(list, ",,"))
        return gb_errf(e, GB_FAIL, "--%s \"%s\": an empty entry (known: %s)", what, list, allowed);
    char buf[256];
    if (len >= sizeof buf) return gb_errf(e, GB_FAIL, "--%s: the list is too long (known: %s)", what, allowed);
    snprintf(buf, sizeof buf, "%s", list);
    for (char *tok = strtok(buf, ","); tok; tok = strtok(NULL, ","))
        if (!known(tok))
            return gb_errf(e, GB_FAIL, "--%s: unknown %s \"%s\" (known: %s)", what, what, tok, allowed);
    return GB_OK;
}

static int known_op(const char *n) { return gb_op_find(n) != NULL; }
static int known_dtype(const char *n) { return gb_dtype_parse(n) >= 0; }

static int add_item(gb_suite *s, size_t *cap, const gb_plan_item *it, gb_err *e) {
    if (s->count == *cap) {
        size_t ncap = *cap ? 2 * *cap : 64;
        gb_plan_item *n = realloc(s->items, ncap * sizeof *n);
        if (!n) return gb_errf(e, GB_FAIL, "out of memory building the plan");
        s->items = n;
        *cap = ncap;
    }
    s->items[s->count++] = *it;
    return GB_OK;
}

void gb_case_name(const gb_case *c, char *buf, size_t len) {
    size_t off = (size_t)snprintf(buf, len, "%s/%s/%s", c->op->name, gb_dtype_name(c->dtype), c->label);
    cJSON *params = gb_params_to_json(c);
    int first = 1;
    const cJSON *p;
    cJSON_ArrayForEach(p, params) {
        char v[64];
        if (cJSON_IsString(p)) snprintf(v, sizeof v, "%s", p->valuestring);
        else if (cJSON_IsBool(p)) snprintf(v, sizeof v, "%s", cJSON_IsTrue(p) ? "true" : "false");
        else snprintf(v, sizeof v, "%g", p->valuedouble);
        if (off < len) off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", first ? "/" : ",", p->string, v);
        first = 0;
    }
    cJSON_Delete(params);
}

/* name is one of --case's; used[i] marks the names that found their case. */
static int named_case(const gb_suite_filter *f, const char *name, unsigned char *used) {
    int hit = 0;
    for (size_t i = 0; i < f->ncase_names; i++)
        if (strcmp(f->case_names[i], name) == 0) hit = used[i] = 1;
    return hit;
}

/* Every case the suite names (filtered out or not) with where it came from:
 * two cases of one name (sizes [32, 32], or one case from two entries) made
 * results that compare paired by position, so a suite with one is refused. */
typedef struct {
    char name[256];
    int bench, size;
} seen_case;
typedef struct {
    seen_case *v;
    size_t n, cap;
} seen_list;

static int seen_add(seen_list *l, const gb_case *c, int bench, int size) {
    if (l->n == l->cap) {
        size_t ncap = l->cap ? 2 * l->cap : 64;
        seen_case *nv = realloc(l->v, ncap * sizeof *nv);
        if (!nv) return -1;
        l->v = nv, l->cap = ncap;
    }
    seen_case *x = &l->v[l->n++];
    gb_case_name(c, x->name, sizeof x->name);
    x->bench = bench, x->size = size;
    return 0;
}

static int by_name_then_place(const void *a, const void *b) {
    const seen_case *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c) return c;
    return x->bench != y->bench ? (x->bench > y->bench) - (x->bench < y->bench) : (x->size > y->size) - (x->size < y->size);
}

/* The first case named twice, as both its places; GB_OK when none. */
static int refuse_duplicates(const gb_suite *s, seen_list *l, gb_err *e) {
    qsort(l->v, l->n, sizeof *l->v, by_name_then_place);
    for (size_t i = 1; i < l->n; i++)
        if (!strcmp(l->v[i].name, l->v[i - 1].name))
            return gb_errf(e, GB_FAIL, "%s: benchmarks[%d].sizes[%d]: the case %s is already made by "
                           "benchmarks[%d].sizes[%d] (a case twice would make two results of one name, which "
                           "compare and merge cannot tell apart)", s->path, l->v[i].bench, l->v[i].size,
                           l->v[i].name, l->v[i - 1].bench, l->v[i - 1].size);
    return GB_OK;
}

static int parse_benchmark(gb_suite *s, const cJSON *b, int index, const gb_suite_filter *f,
                           const regex_t *name_re, unsigned char *used, seen_list *seen, size_t *cap, gb_err *e) {
    static const char *const keys[] = {"op", "sizes", "dtypes", "params", "warmup", "min_reps",
                                       "min_time_s", "max_time_s", "max_reps", "min_warmup_s", NULL};
    char where[64], w[128];
    snprintf(where, sizeof where, "benchmarks[%d]", index);
    if (!cJSON_IsObject(b)) FAIL_AT(e, s, where, "expected an object, got %s", json_type_name(b));
    if (check_keys(s, b, where, keys, e)) return GB_FAIL;

    const cJSON *opv = cJSON_GetObjectItemCaseSensitive(b, "op");
    snprintf(w, sizeof w, "%s.op", where);
    if (!opv) FAIL_AT(e, s, where, "missing required key \"op\"");
    if (!cJSON_IsString(opv)) FAIL_AT(e, s, w, "expected a string, got %s", json_type_name(opv));
    const gb_op *op = gb_op_find(opv->valuestring);
    if (!op) {
        char list[512];
        FAIL_AT(e, s, w, "unknown op \"%s\" (known: %s)", opv->valuestring, gb_op_list(list, sizeof list));
    }

    gb_budget budget = s->defaults;
    if (read_budget_keys(s, b, where, &budget, e)) return GB_FAIL;

    unsigned dtypes = s->dtypes;
    const cJSON *dv = cJSON_GetObjectItemCaseSensitive(b, "dtypes");
    if (dv) {
        snprintf(w, sizeof w, "%s.dtypes", where);
        if (read_dtypes(s, dv, w, &dtypes, e)) return GB_FAIL;
    } else if (!s->dtypes_named && f && f->dtypes) {
        /* Neither the benchmark nor the defaults name dtypes: --dtype says
         * which to run, so `--dtype bfloat16` reaches the dtypes no suite
         * runs unasked (the reduced precisions). A suite that names its
         * dtypes is only narrowed by --dtype. */
        dtypes = (1u << GB_DTYPE_COUNT) - 1;
    }

    gb_params params;
    gb_params_default(&params);
    const cJSON *pv = cJSON_GetObjectItemCaseSensitive(b, "params");
    if (pv) {
        snprintf(w, sizeof w, "%s.params", where);
        if (read_params(s, op, pv, w, f, &params, e)) return GB_FAIL;
    }

    const cJSON *sizes = cJSON_GetObjectItemCaseSensitive(b, "sizes");
    snprintf(w, sizeof w, "%s.sizes", where);
    if (!sizes) FAIL_AT(e, s, where, "missing required key \"sizes\"");
    if (!cJSON_IsArray(sizes) || cJSON_GetArraySize(sizes) == 0)
        FAIL_AT(e, s, w, "expected a non-empty array of sizes, got %s", json_type_name(sizes));

    /* Parse every size even if filtered out: a bad suite is bad whatever
     * the command line selects. */
    int k = 0;
    for (const cJSON *sz = sizes->child; sz; sz = sz->next, k++) {
        gb_case c;
        memset(&c, 0, sizeof c);
        c.op = op;
        c.op_id = op->id;
        c.params = params;
        c.seed = s->seed;
        gb_err why;
        if (op->parse_size(sz, &c, &why) != GB_OK) {
            if (f && f->sizes) { /* the user's --sizes, not the suite's: named as given (10x20) */
                char given[128] = "";
                if (cJSON_IsString(sz)) snprintf(given, sizeof given, "%s", sz->valuestring);
                for (const cJSON *d = cJSON_IsArray(sz) ? sz->child : sz; d && cJSON_IsNumber(d); d = d->next) {
                    size_t l = strlen(given);
                    snprintf(given + l, sizeof given - l, "%s%.0f", l ? "x" : "", d->valuedouble);
                    if (!cJSON_IsArray(sz)) break;
                }
                return gb_errf(e, GB_FAIL, "--sizes: \"%s\" is not a size of op %s: %s", given, op->name, why.msg);
            }
            char ws[160];
            snprintf(ws, sizeof ws, "%s[%d]", w, k);
            /* op messages may start with "[i]: " for a shape element */
            if (why.msg[0] == '[') {
                char *colon = strchr(why.msg, ':');
                if (colon) {
                    size_t n = (size_t)(colon - why.msg);
                    snprintf(ws + strlen(ws), sizeof ws - strlen(ws), "%.*s", (int)n, why.msg);
                    FAIL_AT(e, s, ws, "%s", colon + 2);
                }
            }
            FAIL_AT(e, s, ws, "%s", why.msg);
        }
        for (int d = 0; d < GB_DTYPE_COUNT; d++) {
            if (!(dtypes & (1u << d))) continue;
            c.dtype = (gb_dtype)d;
            /* A suite as written that makes a case twice is refused whatever
             * is selected; one whose sizes --sizes replaced, only for the
             * ops and dtypes chosen (`default.json --op matmul --sizes 256`
             * made svd's two 256s, an op not run). */
            int as_written = !(f && f->sizes);
            if (as_written && seen_add(seen, &c, index, k)) return gb_errf(e, GB_FAIL, "%s: out of memory", s->path);
            if (f && f->ops && !gb_list_contains(f->ops, op->name)) continue;
            if (f && f->dtypes && !gb_list_contains(f->dtypes, gb_dtype_name(c.dtype))) continue;
            if (!as_written && seen_add(seen, &c, index, k)) return gb_errf(e, GB_FAIL, "%s: out of memory", s->path);
            if (name_re || (f && f->ncase_names)) {
                char name[256];
                gb_case_name(&c, name, sizeof name);
                if (name_re && regexec(name_re, name, 0, NULL, 0) != 0) continue;
                if (f && f->ncase_names && !named_case(f, name, used)) continue;
            }
            op->count(&c);
            c.memory_bound = strcmp(op->rate_kind, "bytes") == 0;
            gb_plan_item item = {.c = c, .budget = budget, .benchmark = index};
            if (add_item(s, cap, &item, e)) return GB_FAIL;
        }
    }
    return GB_OK;
}

int gb_suite_from_args(const gb_suite_filter *f, gb_suite *s, gb_err *e) {
    memset(s, 0, sizeof *s);
    if (!f || !f->ops || !*f->ops || !f->sizes)
        return gb_errf(e, GB_FAIL, "a run without a suite file needs --op and --sizes (e.g. --op matmul "
                                   "--sizes 1024,4096)");
    cJSON *doc = cJSON_CreateObject();
    char name[128];
    snprintf(name, sizeof name, "%s", f->ops);
    for (char *p = name; *p; p++)
        if (*p == ',') *p = '+';
    cJSON_AddStringToObject(doc, "name", name);
    cJSON_AddStringToObject(doc, "description", "built from the command line");
    cJSON *benches = cJSON_AddArrayToObject(doc, "benchmarks");
    char *copy = strdup(f->ops);
    for (char *save = NULL, *op = copy ? strtok_r(copy, ",", &save) : NULL; op; op = strtok_r(NULL, ",", &save)) {
        cJSON *b = cJSON_CreateObject();
        cJSON_AddStringToObject(b, "op", op);
        cJSON_AddItemToObject(b, "sizes", cJSON_CreateArray()); /* --sizes replaces it */
        cJSON_AddItemToArray(benches, b);
    }
    free(copy);
    char *text = cJSON_PrintUnformatted(doc);
    cJSON_Delete(doc);
    if (!text) return gb_errf(e, GB_FAIL, "(command line): out of memory");
    int status = gb_suite_parse(text, "(command line)", f, s, e);
    free(text);
    return status;
}

/* The plan from a parsed suite (doc is the suite's from here on, freed with it). */
static int suite_from_doc(cJSON *doc, const char *path, const gb_suite_filter *f, gb_suite *s, gb_err *e) {
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s", path);
    s->doc = doc;
    char ops[512], dtypes[128];
    if (f && (check_filter(f->ops, "op", known_op, gb_op_list(ops, sizeof ops), e) ||
              check_filter(f->dtypes, "dtype", known_dtype, gb_dtype_list(dtypes, sizeof dtypes), e))) {
        gb_suite_free(s);
        return GB_FAIL;
    }
    int status = GB_FAIL;
    regex_t name_re;
    int have_re = 0;
    unsigned char *used = NULL;
    seen_list seen = {0};
    if (f && f->name_regex) {
        int rc = regcomp(&name_re, f->name_regex, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char why[256];
            regerror(rc, &name_re, why, sizeof why);
            gb_errf(e, GB_FAIL, "--filter: \"%s\" is not a regular expression: %s", f->name_regex, why);
            goto out;
        }
        have_re = 1;
    }
    if (gb_suite_apply_overrides(doc, f, e) != GB_OK) goto out;
    static const char *const top_keys[] = {"name", "description", "defaults", "benchmarks", NULL};
    static const char *const default_keys[] = {"dtypes", "warmup", "min_reps", "min_time_s",
                                               "max_time_s", "max_reps", "min_warmup_s", "seed", "rounds",
                                               NULL};
    if (!cJSON_IsObject(doc)) {
        gb_errf(e, GB_FAIL, "%s: top level: expected an object, got %s", path, json_type_name(doc));
        goto out;
    }
    if (check_keys(s, doc, "top level", top_keys, e)) goto out;

    const cJSON *name = cJSON_GetObjectItemCaseSensitive(doc, "name");
    if (!name) { gb_errf(e, GB_FAIL, "%s: top level: missing required key \"name\"", path); goto out; }
    if (!cJSON_IsString(name) || !name->valuestring[0]) {
        gb_errf(e, GB_FAIL, "%s: name: expected a non-empty string, got %s", path, json_type_name(name));
        goto out;
    }
    /* The name becomes part of the results file's name: bounded here, and
     * reduced to a safe alphabet where it names a file (gb_safe_file_name). */
    if (strlen(name->valuestring) >= sizeof s->name) {
        gb_errf(e, GB_FAIL, "%s: name: %zu bytes, at most %zu allowed", path, strlen(name->valuestring),
                sizeof s->name - 1);
        goto out;
    }
    snprintf(s->name, sizeof s->name, "%s", name->valuestring);
    const cJSON *desc = cJSON_GetObjectItemCaseSensitive(doc, "description");
    if (desc) {
        if (!cJSON_IsString(desc)) {
            gb_errf(e, GB_FAIL, "%s: description: expected a string, got %s", path, json_type_name(desc));
            goto out;
        }
        snprintf(s->description, sizeof s->description, "%s", desc->valuestring);
    }

    /* Built-in defaults, overridden by the suite's "defaults". */
    s->defaults = (gb_budget){.warmup = 2, .min_warmup_s = 0.1, .min_reps = 5, .max_reps = 1000,
                              .min_time_s = 0.2, .max_time_s = 5};
    s->dtypes = gb_dtype_default_mask();
    s->seed = 42;
    s->rounds = 3;
    const cJSON *defs = cJSON_GetObjectItemCaseSensitive(doc, "defaults");
    if (defs) {
        if (!cJSON_IsObject(defs)) {
            gb_errf(e, GB_FAIL, "%s: defaults: expected an object, got %s", path, json_type_name(defs));
            goto out;
        }
        if (check_keys(s, defs, "defaults", default_keys, e)) goto out;
        if (read_budget_keys(s, defs, "defaults", &s->defaults, e)) goto out;
        const cJSON *dv = cJSON_GetObjectItemCaseSensitive(defs, "dtypes");
        if (dv && read_dtypes(s, dv, "defaults.dtypes", &s->dtypes, e)) goto out;
        s->dtypes_named = dv != NULL;
        const cJSON *sv = cJSON_GetObjectItemCaseSensitive(defs, "seed");
        double d;
        if (sv) {
            if (read_number(s, sv, "defaults.seed", 0, 9007199254740991.0, 1, &d, e)) goto out;
            s->seed = (uint64_t)d;
        }
        const cJSON *rv = cJSON_GetObjectItemCaseSensitive(defs, "rounds");
        if (rv) {
            if (read_number(s, rv, "defaults.rounds", 1, GB_MAX_ROUNDS, 1, &d, e)) goto out;
            s->rounds = (int)d;
        }
    }
    if (f && f->has_seed) s->seed = f->seed;
    if (f && f->rounds > 0) s->rounds = f->rounds;

    const cJSON *benches = cJSON_GetObjectItemCaseSensitive(doc, "benchmarks");
    if (!benches) { gb_errf(e, GB_FAIL, "%s: top level: missing required key \"benchmarks\"", path); goto out; }
    if (!cJSON_IsArray(benches) || cJSON_GetArraySize(benches) == 0) {
        gb_errf(e, GB_FAIL, "%s: benchmarks: expected a non-empty array, got %s", path,
                json_type_name(benches));
        goto out;
    }
    size_t cap = 0;
    int i = 0;
    used = f && f->ncase_names ? calloc(f->ncase_names, 1) : NULL;
    if (f && f->ncase_names && !used) { gb_errf(e, GB_FAIL, "%s: out of memory", path); goto out; }
    for (const cJSON *b = benches->child; b; b = b->next, i++)
        if (parse_benchmark(s, b, i, f, have_re ? &name_re : NULL, used, &seen, &cap, e)) goto out;
    if (refuse_duplicates(s, &seen, e)) goto out;
    for (size_t k = 0; used && k < f->ncase_names; k++)
        if (!used[k]) {
            gb_errf(e, GB_FAIL, "%s: --case \"%s\": no case of the suite has this name (`gpubench run %s --list` "
                    "prints them)", path, f->case_names[k], path);
            goto out;
        }
    status = GB_OK;
out:
    free(used);
    free(seen.v);
    if (have_re) regfree(&name_re);
    if (status != GB_OK) gb_suite_free(s);
    return status;
}

int gb_suite_parse_bytes(const char *text, size_t len, const char *path, const gb_suite_filter *f, gb_suite *s,
                         gb_err *e) {
    cJSON *doc;
    memset(s, 0, sizeof *s);
    if (gb_json_parse_strict(text, len, path, &doc, e) != GB_OK) return GB_FAIL;
    return suite_from_doc(doc, path, f, s, e);
}

int gb_suite_parse(const char *text, const char *path, const gb_suite_filter *f, gb_suite *s, gb_err *e) {
    return gb_suite_parse_bytes(text, strlen(text), path, f, s, e);
}

/* A suite named as gpubench's own (quick, quick.json: a name, no folder)
 * where no such file is here: its path among the installed suites
 * (data_files.h) into found. 1 when it was looked for, with GB_FAIL in e
 * when none is there; 0 when path is taken as given. */
static int suite_by_name(const char *path, char *found, size_t len, gb_err *e) {
    if (strchr(path, '/') || !strcmp(path, "-") || access(path, F_OK) == 0 || errno != ENOENT) return 0;
    size_t n = strlen(path);
    char name[256];
    snprintf(name, sizeof name, "%s%s", path, n > 5 && !strcmp(path + n - 5, ".json") ? "" : ".json");
    gb_err why = {{0}};
    if (gb_data_file_find(NULL, "suites", name, found, len, &why) == GB_OK) return 1;
    gb_errf(e, GB_FAIL, "%s: no such file, nor one of gpubench's suites (%s; `gpubench list` names them)", path,
            why.msg);
    return 1;
}

int gb_suite_load(const char *path, const gb_suite_filter *f, gb_suite *s, gb_err *e) {
    cJSON *doc;
    memset(s, 0, sizeof *s);
    char found[4096] = "";
    if (suite_by_name(path, found, sizeof found, e)) {
        if (!found[0]) return GB_FAIL;
        path = found;
    }
    if (gb_json_read_limited(path, "a suite file", GB_LIMIT_SUITE, &doc, e) != GB_OK) return GB_FAIL;
    return suite_from_doc(doc, path, f, s, e);
}

void gb_suite_free(gb_suite *s) {
    cJSON_Delete(s->doc);
    free(s->items);
    memset(s, 0, sizeof *s);
}
