/* compare_policy.c — threshold and duration strings, and the --policy file.
 *
 * The policy is kept small on purpose: a default threshold, alpha and time
 * floor (min_change), and per-op (and per-op-per-backend) overrides of the
 * same three keys. Every key
 * is checked, because a misspelt "treshold" that silently falls back to the
 * default is exactly the kind of mistake a CI gate must not hide. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "json_strict.h"
#include "op.h"

struct gb_policy {
    cJSON *doc; /* validated copy */
};

int gb_parse_percent(const char *s, double *out) {
    if (!s || !*s) return -1;
    char *end = NULL;
    double v = strtod(s, &end);
    if (end == s) return -1;
    while (*end == ' ') end++;
    if (*end == '%') end++;
    if (*end != '\0' || !isfinite(v) || v < 0) return -1;
    *out = v / 100.0;
    return 0;
}

int gb_parse_duration(const char *s, double *out) {
    static const struct { const char *unit; double scale; } units[] = {
        {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"", 1}};
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !isfinite(v) || v < 0) return -1;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(end, units[i].unit) == 0) {
            *out = v * units[i].scale;
            return 0;
        }
    return -1;
}

/* threshold: "5%" or a number (percent). alpha: a number in (0, 1).
 * min_change: "10us" or a number of seconds. */
static int check_rule_obj(const cJSON *obj, const char *where, int allow_ops, int allow_backends,
                          const char *name, gb_err *e) {
    if (!cJSON_IsObject(obj)) {
        gb_errf(e, GB_FAIL, "%s: %s: expected an object", name, where);
        return -1;
    }
    for (const cJSON *it = obj->child; it; it = it->next) {
        const char *k = it->string;
        if (strcmp(k, "threshold") == 0) {
            double t;
            if (cJSON_IsString(it) ? gb_parse_percent(it->valuestring, &t) != 0
                                   : !(cJSON_IsNumber(it) && it->valuedouble >= 0)) {
                gb_errf(e, GB_FAIL, "%s: %s.threshold: expected a percentage like \"5%%\"", name, where);
                return -1;
            }
        } else if (strcmp(k, "min_change") == 0) {
            double d;
            if (cJSON_IsString(it) ? gb_parse_duration(it->valuestring, &d) != 0
                                   : !(cJSON_IsNumber(it) && it->valuedouble >= 0)) {
                gb_errf(e, GB_FAIL, "%s: %s.min_change: expected a duration like \"10us\" (or seconds)", name,
                         where);
                return -1;
            }
        } else if (strcmp(k, "alpha") == 0) {
            if (!cJSON_IsNumber(it) || !(it->valuedouble > 0 && it->valuedouble < 1)) {
                gb_errf(e, GB_FAIL, "%s: %s.alpha: expected a number between 0 and 1", name, where);
                return -1;
            }
        } else if (allow_ops && strcmp(k, "ops") == 0) {
            if (!cJSON_IsObject(it)) {
                gb_errf(e, GB_FAIL, "%s: ops: expected an object keyed by op name", name);
                return -1;
            }
            for (const cJSON *op = it->child; op; op = op->next) {
                char sub[200];
                snprintf(sub, sizeof sub, "ops.%s", op->string);
                if (!gb_op_find(op->string)) {
                    gb_errf(e, GB_FAIL, "%s: %s: unknown op \"%s\"", name, sub, op->string);
                    return -1;
                }
                if (check_rule_obj(op, sub, 0, 1, name, e) != 0) return -1;
            }
        } else if (allow_backends && strcmp(k, "backends") == 0) {
            if (!cJSON_IsObject(it)) {
                gb_errf(e, GB_FAIL, "%s: %s.backends: expected an object keyed by backend", name, where);
                return -1;
            }
            for (const cJSON *b = it->child; b; b = b->next) {
                char sub[240];
                snprintf(sub, sizeof sub, "%s.backends.%s", where, b->string);
                if (!gb_backend_builtin(b->string)) {
                    gb_errf(e, GB_FAIL, "%s: %s: unknown backend \"%s\" (expected %s)", name, sub, b->string,
                            gb_backend_builtin_names());
                    return -1;
                }
                if (check_rule_obj(b, sub, 0, 0, name, e) != 0) return -1;
            }
        } else {
            gb_errf(e, GB_FAIL, "%s: %s: unknown key \"%s\" (expected threshold, alpha, min_change%s%s)", name,
                     where, k, allow_ops ? ", ops" : "", allow_backends ? ", backends" : "");
            return -1;
        }
    }
    return 0;
}

gb_policy *gb_policy_from_json(const cJSON *doc, const char *name, gb_err *e) {
    if (check_rule_obj(doc, "(top level)", 1, 0, name, e) != 0) return NULL;
    gb_policy *p = calloc(1, sizeof *p);
    if (!p || !(p->doc = cJSON_Duplicate(doc, 1))) {
        free(p);
        gb_errf(e, GB_FAIL, "%s: out of memory", name);
        return NULL;
    }
    return p;
}

gb_policy *gb_policy_load(const char *path, gb_err *e) {
    cJSON *doc;
    if (gb_json_read_strict(path, &doc, e) != GB_OK) return NULL;
    gb_policy *p = gb_policy_from_json(doc, path, e);
    cJSON_Delete(doc);
    return p;
}

void gb_policy_free(gb_policy *p) {
    if (!p) return;
    cJSON_Delete(p->doc);
    free(p);
}

static void apply(const cJSON *obj, gb_rule *r, int set_t, int set_a, int set_m) {
    if (!obj) return;
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(obj, "threshold");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, "alpha");
    const cJSON *m = cJSON_GetObjectItemCaseSensitive(obj, "min_change");
    double v;
    if (m && set_m) {
        if (cJSON_IsString(m) && gb_parse_duration(m->valuestring, &v) == 0) r->min_change_s = v;
        else if (cJSON_IsNumber(m)) r->min_change_s = m->valuedouble;
    }
    if (t && set_t) {
        if (cJSON_IsString(t) && gb_parse_percent(t->valuestring, &v) == 0) r->threshold = v;
        else if (cJSON_IsNumber(t)) r->threshold = t->valuedouble / 100.0;
    }
    if (cJSON_IsNumber(a) && set_a) r->alpha = a->valuedouble;
}

gb_rule gb_policy_rule(const gb_policy *p, const char *op, const char *backend, gb_rule base,
                       unsigned cli_set) {
    gb_rule r = base;
    if (!p) return r;
    apply(p->doc, &r, !(cli_set & GB_CLI_THRESHOLD), !(cli_set & GB_CLI_ALPHA), !(cli_set & GB_CLI_MIN_CHANGE));
    const cJSON *ops = cJSON_GetObjectItemCaseSensitive(p->doc, "ops");
    const cJSON *o = op ? cJSON_GetObjectItemCaseSensitive(ops, op) : NULL;
    apply(o, &r, 1, 1, 1);
    const cJSON *bs = cJSON_GetObjectItemCaseSensitive(o, "backends");
    apply(backend ? cJSON_GetObjectItemCaseSensitive(bs, backend) : NULL, &r, 1, 1, 1);
    return r;
}
