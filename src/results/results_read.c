/* results_read.c — loading a results document: what only the document
 * has (the schema and its versions, single-run against merged files, a
 * single-run file as its own run 0); every object in it is loaded by the
 * walker from the format's table (results_walk.c, results_format.c), with
 * every field checked; the first problem stops the load with the file and
 * the JSON path of the field. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "results_io.h"
#include "results_model_internal.h"

int gb_run_set_provenance(gb_run *run, const cJSON *obj, const char *name, gb_err *e) {
    gb_rm_chk k = {name, e};
    gb_rm_ctx c = {&k, NULL, -1, 0, 0};
    gb_run tmp;
    gb_rm_init(&gb_rm_t_run, &tmp);
    if (!cJSON_IsObject(obj)) {
        gb_errf(e, GB_FAIL, "%s: expected an object, got %s", name, gb_rm_type_name(obj));
        return GB_FAIL;
    }
    if (gb_rm_load(&c, &gb_rm_t_run, obj, "", &tmp, NULL, PROV) != 0) {
        gb_run_free(&tmp);
        return GB_FAIL;
    }
    gb_rm_free_mask(&gb_rm_t_run, run, PROV);
    run->context = tmp.context;
    run->peaks = tmp.peaks;
    run->warnings = tmp.warnings;
    run->suite_json = tmp.suite_json;
    run->suite_name = tmp.suite_name;
    run->health_json = tmp.health_json;
    return GB_OK;
}

/* ---- the document ------------------------------------------------------------ */

static int parse_doc(gb_rm_ctx *cx, const cJSON *doc, gb_results *r) {
    gb_rm_chk *k = cx->k;
    const gb_rm_type *t = &gb_rm_t_doc;
    const char *name = k->file;
    const cJSON *schema = gb_rm_item(doc, "schema");
    if (!cJSON_IsObject(doc) || !schema)
        return gb_errf(k->e, GB_FAIL, "%s: not a gpubench results file (no \"schema\")", name), -1;
    if (!cJSON_IsString(schema) || strcmp(schema->valuestring, GB_RESULTS_SCHEMA) != 0)
        return gb_errf(k->e, GB_FAIL, "%s: not a gpubench results file (schema \"%s\")", name,
                       cJSON_IsString(schema) ? schema->valuestring : "?"), -1;
    const cJSON *ver = gb_rm_item(doc, "schema_version");
    if (!cJSON_IsNumber(ver))
        return gb_errf(k->e, GB_FAIL, "%s: no numeric \"schema_version\", this gpubench reads %d", name,
                       GB_RESULTS_SCHEMA_VERSION), -1;
    /* The policy of docs/results-schema.md ("Versions"): every version up to
     * this one is read (fields added since are optional on read); a newer one
     * is refused, naming both, since its fields may mean something else. */
    if (!(ver->valuedouble >= 1) || ver->valuedouble != floor(ver->valuedouble))
        return gb_errf(k->e, GB_FAIL, "%s: schema_version %g is not a version (a whole number from 1), this gpubench "
                       "reads 1 to %d", name, ver->valuedouble, GB_RESULTS_SCHEMA_VERSION), -1;
    if (ver->valuedouble > GB_RESULTS_SCHEMA_VERSION)
        return gb_errf(k->e, GB_FAIL, "%s: schema_version %g, this gpubench reads %d", name, ver->valuedouble,
                       GB_RESULTS_SCHEMA_VERSION), -1;
    const cJSON *cases = gb_rm_item(doc, "cases");
    if (!cJSON_IsArray(cases))
        return gb_errf(k->e, GB_FAIL, "%s: not a valid results file (no \"cases\" array)", name), -1;
    const cJSON *runs = gb_rm_item(doc, "runs");
    if (runs && (!cJSON_IsArray(runs) || cJSON_GetArraySize(runs) == 0))
        return gb_errf(k->e, GB_FAIL, "%s: \"runs\" must be a non-empty array of run objects", name), -1;

    if (gb_rm_load_key(cx, t, doc, "", r, "gpubench_version") < 0 || gb_rm_load_key(cx, t, doc, "", r, "complete") < 0 ||
        gb_rm_load_key(cx, t, doc, "", r, "interrupted") < 0 || gb_rm_load_key(cx, t, doc, "", r, "interrupted_by") < 0 ||
        gb_rm_load_key(cx, t, doc, "", r, "summary") < 0 || gb_rm_load_key(cx, t, doc, "", r, "time_breakdown") < 0)
        return -1;
    r->merged = runs != NULL;
    if (runs) {
        if (gb_rm_load_key(cx, t, doc, "", r, "warnings") < 0 || gb_rm_load_key(cx, t, doc, "", r, "runs") < 0) return -1;
    } else {
        /* A single-run file is its own run 0. */
        if (!(r->runs = calloc(1, sizeof *r->runs))) return gb_rm_oom(k);
        gb_run *run = &r->runs[r->nruns++];
        gb_rm_init(&gb_rm_t_run, run);
        if (gb_rm_load(cx, &gb_rm_t_run, doc, "", run, NULL, PROV) < 0) return -1;
        run->complete = r->complete;
        run->interrupted = r->interrupted;
        if (gb_rm_copy(&gb_rm_t_summary, &run->summary, &r->summary) != 0 ||
            (r->gpubench_version && !(run->gpubench_version = xstrdup(r->gpubench_version))))
            return gb_rm_oom(k);
    }
    cx->nruns = (int)r->nruns;
    cx->doc = r;
    if (gb_rm_load_key(cx, t, doc, "", r, "cases") < 0 || gb_rm_load_key(cx, t, doc, "", r, "crossover") < 0) return -1;
    return gb_rm_order_from(k, doc, t, &r->order);
}

int gb_results_from_json(const cJSON *doc, const char *name, gb_results *out, gb_err *e) {
    gb_rm_chk k = {name, e};
    gb_rm_ctx c = {&k, NULL, -1, 0, 0};
    gb_rm_init(&gb_rm_t_doc, out);
    if (!(out->name = xstrdup(name)) || parse_doc(&c, doc, out) != 0) {
        gb_results_free(out);
        return GB_FAIL;
    }
    return GB_OK;
}

int gb_results_load(const char *path, gb_results *out, gb_err *e) {
    memset(out, 0, sizeof *out);
    cJSON *doc = NULL;
    if (gb_json_read_file(path, &doc, e) != GB_OK) return GB_FAIL;
    int rc = gb_results_from_json(doc, strcmp(path, "-") == 0 ? "<stdin>" : path, out, e);
    cJSON_Delete(doc);
    return rc;
}

/* ---- building ---------------------------------------------------------------- */

int gb_kvlist_from_cjson(gb_kvlist *l, const cJSON *obj, const char *name, gb_err *e) {
    gb_rm_chk k = {name, e};
    gb_kvlist tmp;
    if (!cJSON_IsObject(obj)) return gb_errf(e, GB_FAIL, "%s: expected an object, got %s", name, gb_rm_type_name(obj));
    /* get_kvlist reads an object at a key: hand it obj under one */
    cJSON *holder = cJSON_CreateObject();
    if (!holder || !cJSON_AddItemReferenceToObject(holder, "extra", (cJSON *)obj)) {
        cJSON_Delete(holder);
        return gb_errf(e, GB_FAIL, "%s: out of memory", name);
    }
    int got = gb_rm_get_kvlist(&k, holder, "", "extra", &tmp);
    cJSON_Delete(holder); /* a reference: obj itself is not freed */
    if (got < 0) {
        gb_kvlist_free(&tmp);
        return GB_FAIL;
    }
    gb_kvlist_free(l);
    *l = tmp;
    return GB_OK;
}
