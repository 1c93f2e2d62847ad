/* results_write.c — writing the results model as JSON: the document's own
 * order (a single-run file's provenance is its run 0's; the runner writes the
 * crossover after the summary, merge before it); every object in it is
 * written by the walker from the format's table (results_walk.c), from the
 * template of its keys as loaded, so a file loaded and written keeps its key
 * order and the keys this gpubench does not know. Plain values as JSON. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json_strict.h"
#include "results_io.h"
#include "results_model_internal.h"

/* ---- the document ------------------------------------------------------------ */

cJSON *gb_results_to_json(const gb_results *r, unsigned flags) {
    gb_rm_ctx c = {NULL, r, (int)r->nruns, r->merged, flags};
    gb_rm_emitter m;
    gb_rm_em_begin(&m, &gb_rm_t_doc, r);
    gb_rm_em_put(&m, "schema", cJSON_CreateString(GB_RESULTS_SCHEMA));
    gb_rm_em_put(&m, "schema_version", cJSON_CreateNumber(GB_RESULTS_SCHEMA_VERSION));
    static const char *const own[] = {"gpubench_version", "complete", "interrupted"};
    for (int i = 0; i < 3; i++) gb_rm_em_field(&m, &c, r, own[i]);
    if (r->merged) {
        gb_rm_em_field(&m, &c, r, "runs");
        gb_rm_em_field(&m, &c, r, "warnings");
    } else if (r->nruns > 0) {
        /* the run's provenance, in the single-run file's order, onto the document */
        static const char *const prov[] = {"suite", "context", "peaks", "warnings", "health"};
        for (int i = 0; i < 5; i++) {
            int skip;
            cJSON *v = gb_rm_field_value(&c, &gb_rm_t_run, &r->runs[0], prov[i], &skip);
            if (!skip) gb_rm_em_put(&m, prov[i], v);
        }
    }
    gb_rm_em_field(&m, &c, r, "cases");
    /* The runner's order: crossover after the summary; merge's: before it. */
    if (r->merged) gb_rm_em_field(&m, &c, r, "crossover");
    gb_rm_em_field(&m, &c, r, "summary");
    gb_rm_em_field(&m, &c, r, "interrupted_by");
    if (!r->merged) gb_rm_em_field(&m, &c, r, "crossover");
    gb_rm_em_field(&m, &c, r, "time_breakdown");
    return gb_rm_em_end(&m);
}

int gb_results_write(const gb_results *r, const char *path, unsigned flags, gb_err *e) {
    cJSON *doc = gb_results_to_json(r, flags);
    if (!doc) return gb_errf(e, GB_FAIL, "%s: out of memory", path);
    gb_json_scrub(doc); /* never write what the loader refuses */
    int rc = gb_json_write_atomic(doc, path, e);
    cJSON_Delete(doc);
    return rc;
}

