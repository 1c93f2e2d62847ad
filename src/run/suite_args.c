/* suite_args.c — see suite_args.h. */
#include "suite_args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gb.h"
#include "op.h"

/* A size written as a number the way a person writes one: 1e3, 2.5e4, 1k,
 * 4M, 1G (k, M, G: powers of 1000, as a suite's 1e3 is 1000). 1 when the
 * entry is of that form, with the size in *v or the reason in *why (a sign,
 * a fraction, below 1); 0 when it is not (digits alone, a shape, a 64MiB). */
static int written_number(const char *p, size_t len, long long *v, const char **why) {
    char text[40];
    if (len == 0 || len >= sizeof text) return 0;
    memcpy(text, p, len);
    text[len] = '\0';
    double scale = 1;
    size_t n = len;
    switch (text[n - 1]) { /* a suffix: taken off, its power of 1000 kept */
    case 'k': scale = 1e3, text[--n] = '\0'; break;
    case 'M': scale = 1e6, text[--n] = '\0'; break;
    case 'G': scale = 1e9, text[--n] = '\0'; break;
    }
    int sign = text[0] == '-' || text[0] == '+';
    const char *q = text + sign;
    size_t digits = strspn(q, "0123456789");
    if (digits == 0) return 0;
    q += digits;
    if (*q == '.') q += 1 + strspn(q + 1, "0123456789");
    if (*q == 'e' || *q == 'E') {
        const char *x = q + 1 + (q[1] == '+' || q[1] == '-');
        size_t ed = strspn(x, "0123456789");
        if (ed == 0) return 0;
        q = x + ed;
    }
    if (*q || (!sign && scale == 1 && !strpbrk(text, ".eE"))) return 0; /* not this form, or plain digits */
    double d = strtod(text + sign, NULL) * scale;
    if (sign || !(d >= 1) || d > (double)((long long)1 << 53) || d != (double)(long long)d) {
        *why = "not a positive whole size (write 1000, 1e3 or 1k)";
        return 1;
    }
    *v = (long long)d;
    return 1;
}

/* "1024,4096,10000x1000" as suite sizes: [1024, 4096, [10000, 1000]]; an
 * entry that is not digits and x ("1MiB") goes in as the string a suite
 * would hold, so that the op's own parse_size (the one size parser for
 * suites and the command line) accepts or refuses it. Every entry and every
 * dimension must be there: "1x", "1,,2", ",1" and "" are refused (strtok
 * skipped the empty ones). NULL with the reason in e. */
static cJSON *sizes_json(const char *list, gb_err *e) {
    cJSON *arr = cJSON_CreateArray();
    if (!arr) {
        gb_errf(e, GB_FAIL, "--sizes: out of memory");
        return NULL;
    }
    const char *why = NULL;
    size_t bad_at = 0, bad_len = 0;
    for (const char *p = list;; p++) {
        size_t len = strcspn(p, ",");
        bad_at = (size_t)(p - list), bad_len = len;
        if (len == 0) {
            why = "an empty entry";
            break;
        }
        cJSON *item = NULL;
        long long written;
        if (written_number(p, len, &written, &why)) {
            if (why) break;
            item = cJSON_CreateNumber((double)written);
        } else if (strspn(p, "0123456789x") < len) {
            char *text = strndup(p, len); /* the op's parser judges it (a byte count such as 1MiB) */
            item = text ? cJSON_CreateString(text) : NULL;
            free(text);
        } else {
            cJSON *shape = cJSON_CreateArray();
            for (const char *d = p; shape && d <= p + len; d++) {
                size_t dl = strcspn(d, "x,");
                long long v;
                char num[24];
                if (dl == 0 || dl >= sizeof num) {
                    why = dl == 0 ? "an empty dimension (write n or a shape such as 10000x1000)" : "a number too large";
                    break;
                }
                memcpy(num, d, dl);
                num[dl] = '\0';
                if (gb_parse_count(num, 1, (long long)1 << 53, &v) != 0) {
                    why = "not a positive whole size";
                    break;
                }
                cJSON_AddItemToArray(shape, cJSON_CreateNumber((double)v));
                d += dl;
            }
            if (why || !shape) {
                cJSON_Delete(shape);
                if (!why) why = "out of memory";
                break;
            }
            item = cJSON_GetArraySize(shape) == 1 ? cJSON_DetachItemFromArray(shape, 0) : shape;
            if (item != shape) cJSON_Delete(shape);
        }
        if (!item) {
            why = "out of memory";
            break;
        }
        cJSON_AddItemToArray(arr, item);
        p += len;
        if (!*p) break;
    }
    if (why) {
        cJSON_Delete(arr);
        gb_errf(e, GB_FAIL, "--sizes \"%s\": %s at entry \"%.*s\" (expected sizes separated by commas, each n, a "
                            "shape such as 10000x1000, or what the op's sizes take, such as a transfer's 64MiB)",
                list, why, (int)bad_len, list + bad_at);
        return NULL;
    }
    return arr;
}

/* --param's VALUE as the JSON a suite's params hold for spec: a number for
 * an int or a double param (written in decimal: no 0x10, inf or blanks), true
 * or false for a bool, the text for an enum. A value of another form goes in
 * as its text, so that the suite's reader refuses it with its own reason. */
static cJSON *param_json(const gb_param_spec *spec, const char *value) {
    if (spec->type == GB_PARAM_INT || spec->type == GB_PARAM_DOUBLE) {
        char *end;
        double d = strtod(value, &end);
        if (*value && end != value && !*end && strspn(value, "0123456789.eE+-") == strlen(value))
            return cJSON_CreateNumber(d);
    } else if (spec->type == GB_PARAM_BOOL) {
        if (!strcmp(value, "true")) return cJSON_CreateTrue();
        if (!strcmp(value, "false")) return cJSON_CreateFalse();
    }
    return cJSON_CreateString(value);
}

static const gb_param_spec *op_param(const gb_op *op, const char *key, size_t key_len) {
    for (const gb_param_spec *ps = op ? op->params : NULL; ps && ps->key; ps++)
        if (strlen(ps->key) == key_len && !strncmp(ps->key, key, key_len)) return ps;
    return NULL;
}

/* The op of benchmark b when --op selects it, else NULL. */
static const gb_op *selected_op(const cJSON *b, const gb_suite_filter *f) {
    const char *name = cJSON_GetStringValue(cJSON_GetObjectItemCaseSensitive(b, "op"));
    const gb_op *op = name ? gb_op_find(name) : NULL;
    return op && (!f->ops || gb_list_contains(f->ops, op->name)) ? op : NULL;
}

/* One --param [OP.]KEY=VALUE into every selected benchmark (of op OP, when
 * named) whose op takes KEY. GB_FAIL naming the ops and their params when
 * none does. */
static int apply_param(cJSON *benches, const gb_suite_filter *f, const char *given, gb_err *e) {
    const char *eq = strchr(given, '=');
    if (!eq || eq == given) return gb_errf(e, GB_FAIL, "--param \"%s\": expected KEY=VALUE, e.g. kind=c2c", given);
    const char *dot = memchr(given, '.', (size_t)(eq - given)), *kv = dot ? dot + 1 : given;
    const gb_op *only = NULL;
    if (dot) {
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(dot - given), given);
        if (!(only = gb_op_find(name)))
            return gb_errf(e, GB_FAIL, "--param %s: \"%s\" is not an op (`gpubench list` names them)", given, name);
    }
    size_t key_len = (size_t)(eq - kv);
    int takers = 0;
    char ops[512] = "";
    size_t len = 0;
    cJSON *b;
    cJSON_ArrayForEach(b, benches) {
        const gb_op *op = cJSON_IsObject(b) ? selected_op(b, f) : NULL;
        if (!op || (only && op != only)) continue;
        const gb_param_spec *spec = op_param(op, kv, key_len);
        if (!spec) {
            char mine[160] = "";
            size_t ml = 0;
            for (const gb_param_spec *ps = op->params; ps && ps->key; ps++)
                ml += (size_t)snprintf(mine + ml, sizeof mine - ml, "%s%s", ml ? ", " : "", ps->key);
            char entry[200];
            snprintf(entry, sizeof entry, "%s: %s", op->name, ml ? mine : "none");
            if (!strstr(ops, entry) && len < sizeof ops)
                len += (size_t)snprintf(ops + len, sizeof ops - len, "%s%s", len ? "; " : "", entry);
            continue;
        }
        cJSON *params = cJSON_GetObjectItemCaseSensitive(b, "params");
        if (!params) params = cJSON_AddObjectToObject(b, "params");
        if (!cJSON_IsObject(params)) continue; /* the validation names it */
        cJSON_DeleteItemFromObjectCaseSensitive(params, spec->key);
        cJSON *v = param_json(spec, eq + 1);
        if (!v) return gb_errf(e, GB_FAIL, "--param: out of memory");
        cJSON_AddItemToObject(params, spec->key, v);
        takers++;
    }
    if (!takers)
        return gb_errf(e, GB_FAIL, "--param %s: no op of this run takes a param \"%.*s\" (%s)", given, (int)key_len,
                       kv, len ? ops : only ? "no benchmark of that op selected" : "no op selected");
    return GB_OK;
}

static void set_number(cJSON *obj, const char *key, double v) {
    cJSON_DeleteItemFromObjectCaseSensitive(obj, key);
    cJSON_AddNumberToObject(obj, key, v);
}

/* The command line's overrides, written into the suite document: into
 * "defaults", and out of every benchmark that set its own (the command line
 * wins over the file). Malformed documents are left to the validation. */
int gb_suite_apply_overrides(cJSON *doc, const gb_suite_filter *f, gb_err *e) {
    if (!f || !cJSON_IsObject(doc)) return GB_OK;
    cJSON *sizes = NULL;
    if (f->sizes && !(sizes = sizes_json(f->sizes, e))) return GB_FAIL;
    int any_budget = f->max_time_s > 0 || f->min_time_s > 0 || f->has_warmup || f->reps > 0;
    if (any_budget) {
        cJSON *defs = cJSON_GetObjectItemCaseSensitive(doc, "defaults");
        if (!defs) defs = cJSON_AddObjectToObject(doc, "defaults");
        if (cJSON_IsObject(defs)) {
            if (f->max_time_s > 0) set_number(defs, "max_time_s", f->max_time_s);
            if (f->min_time_s > 0) set_number(defs, "min_time_s", f->min_time_s);
            if (f->has_warmup) set_number(defs, "warmup", f->warmup);
            if (f->reps > 0) { /* the count alone decides: no time floor to reach */
                set_number(defs, "min_reps", f->reps);
                set_number(defs, "max_reps", f->reps);
                set_number(defs, "min_time_s", 0);
            }
        }
    }
    cJSON *benches = cJSON_GetObjectItemCaseSensitive(doc, "benchmarks");
    cJSON *b;
    if (cJSON_IsArray(benches))
        cJSON_ArrayForEach(b, benches) {
            if (!cJSON_IsObject(b)) continue;
            if (f->max_time_s > 0) cJSON_DeleteItemFromObjectCaseSensitive(b, "max_time_s");
            if (f->min_time_s > 0) cJSON_DeleteItemFromObjectCaseSensitive(b, "min_time_s");
            if (f->has_warmup) cJSON_DeleteItemFromObjectCaseSensitive(b, "warmup");
            if (f->reps > 0)
                for (const char *const *k = (const char *const[]){"min_reps", "max_reps", "min_time_s", NULL}; *k; k++)
                    cJSON_DeleteItemFromObjectCaseSensitive(b, *k);
            if (sizes) {
                cJSON_DeleteItemFromObjectCaseSensitive(b, "sizes");
                cJSON_AddItemToObject(b, "sizes", cJSON_Duplicate(sizes, 1));
            }
        }
    cJSON_Delete(sizes);
    for (size_t i = 0; i < f->nparams; i++)
        if (cJSON_IsArray(benches) && apply_param(benches, f, f->params[i], e) != GB_OK) return GB_FAIL;
    return GB_OK;
}

