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

int gb_parse_percent(const char *s, double *out, char *why, size_t len) {
    const char *end = NULL;
    double v = 0;
    if (gb_scan_decimal(s, &v, &end) != 0) { /* decimal only: no sign, blank, hexadecimal, inf */
        snprintf(why, len, "expected a percentage like 5%%, got '%s'", s ? s : "");
        return -1;
    }
    if (*end == '\0') {
        snprintf(why, len, "'%s' has no %% sign: give it as %g%% (or, if a fraction was meant, %g%%)", s, v,
                 100.0 * v);
        return -1;
    }
    if (strcmp(end, "%") != 0) {
        snprintf(why, len, "expected a percentage like 5%%, got '%s'", s);
        return -1;
    }
    *out = v / 100.0;
    return 0;
}

int gb_parse_duration(const char *s, double *out, char *why, size_t len) {
    static const struct { const char *unit; double scale; } units[] = {
        {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}};
    const char *end = NULL;
    double v = 0;
    if (gb_scan_decimal(s, &v, &end) != 0) {
        snprintf(why, len, "expected a duration like 10us or 0.5ms, got '%s'", s ? s : "");
        return -1;
    }
    if (*end == '\0') {
        if (v == 0) { *out = 0; return 0; }
        snprintf(why, len, "%s: give a unit: %gus, %gms or %gs", s, v, v, v);
        return -1;
    }
    for (size_t i = 0; i < sizeof units / sizeof *units; i++)
        if (strcmp(end, units[i].unit) == 0) {
            *out = v * units[i].scale;
            return 0;
        }
    snprintf(why, len, "'%s': unknown unit '%s' (ns, us, ms or s)", s, end);
    return -1;
}

/* threshold: "5%" (a string with its sign). alpha: a number in (0, 1).
 * min_change: "10us" (a string with its unit). require_present: "90%". */
static int check_rule_obj(const cJSON *obj, const char *where, int allow_ops, int allow_backends,
                          const char *name, gb_err *e) {
    if (!cJSON_IsObject(obj)) {
        gb_errf(e, GB_FAIL, "%s: %s: expected an object", name, where);
        return -1;
    }
    for (const cJSON *it = obj->child; it; it = it->next) {
        const char *k = it->string;
        int pct = !strcmp(k, "threshold") || (allow_ops && !strcmp(k, "require_present"));
        if (pct || strcmp(k, "min_change") == 0) {
            double v;
            char why[160];
            if (!cJSON_IsString(it)) {
                char *txt = cJSON_PrintUnformatted(it);
                snprintf(why, sizeof why, "%s is not a string: write it with its %s, e.g. %s", txt ? txt : "?",
                         pct ? "% sign" : "unit", pct ? "\"5%\"" : "\"10us\"");
                free(txt);
            }
            if (!cJSON_IsString(it) || (pct ? gb_parse_percent(it->valuestring, &v, why, sizeof why)
                                            : gb_parse_duration(it->valuestring, &v, why, sizeof why)) != 0) {
                gb_errf(e, GB_FAIL, "%s: %s.%s: %s", name, where, k, why);
                return -1;
            }
            if (!strcmp(k, "require_present") && v > 1) {
                gb_errf(e, GB_FAIL, "%s: %s.require_present: %s is over 100%%", name, where, it->valuestring);
                return -1;
            }
        } else if (strcmp(k, "alpha") == 0) {
            if (!cJSON_IsNumber(it) || !(it->valuedouble > 0 && it->valuedouble < 1)) {
                gb_errf(e, GB_FAIL, "%s: %s.alpha: expected a number between 0 and 1", name, where);
                return -1;
            }
        } else if (allow_ops && strcmp(k, "fail_on_unsure") == 0) {
            if (!cJSON_IsBool(it)) {
                gb_errf(e, GB_FAIL, "%s: fail_on_unsure: expected true or false", name);
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
                     where, k, allow_ops ? ", require_present, fail_on_unsure, ops" : "", allow_backends ? ", backends" : "");
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
    if (gb_json_read_limited(path, "a compare policy", GB_LIMIT_POLICY, &doc, e) != GB_OK) return NULL;
    gb_policy *p = gb_policy_from_json(doc, path, e);
    cJSON_Delete(doc);
    return p;
}

double gb_policy_require_present(const gb_policy *p, double base) {
    const cJSON *rp = p ? cJSON_GetObjectItemCaseSensitive(p->doc, "require_present") : NULL;
    double v;
    char why[160];
    if (cJSON_IsString(rp) && gb_parse_percent(rp->valuestring, &v, why, sizeof why) == 0) return v;
    return base;
}

int gb_policy_fail_on_unsure(const gb_policy *p) {
    return p && cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(p->doc, "fail_on_unsure"));
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
    char why[160];
    /* validated when loaded: strings with their units */
    if (m && set_m && cJSON_IsString(m) && gb_parse_duration(m->valuestring, &v, why, sizeof why) == 0)
        r->min_change_s = v;
    if (t && set_t && cJSON_IsString(t) && gb_parse_percent(t->valuestring, &v, why, sizeof why) == 0)
        r->threshold = v;
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
