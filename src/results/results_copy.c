/* results_copy.c — building, copying and freeing the structs of the results
 * model: the public entry points over the walker (results_walk.c), the plain
 * values it holds (key/value lists, lists of strings), and the functions the
 * runner and merge build documents with. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "results_model_internal.h"

/* ---- copying and freeing: the walker ------------------------------------------ */

void gb_results_free(gb_results *r) { gb_rm_free(&gb_rm_t_doc, r); }
void gb_run_free(gb_run *run) { gb_rm_free(&gb_rm_t_run, run); }
void gb_case_result_free(gb_case_result *c) { gb_rm_free(&gb_rm_t_case, c); }
void gb_crossover_entry_free(gb_crossover_entry *x) { gb_rm_free(&gb_rm_t_cross, x); }
void gb_result_energy_free(gb_result_energy *e) { gb_rm_free(&gb_rm_t_energy, e); }
void gb_result_clocks_free(gb_result_clocks *c) { gb_rm_free(&gb_rm_t_clocks, c); }

/* A copied run is written in the schema's order, without keys this gpubench
 * does not know (what merge has always done): its table keeps no order. */
int gb_run_copy(gb_run *dst, const gb_run *src) { return gb_rm_copy(&gb_rm_t_run, dst, src) ? GB_FAIL : GB_OK; }
int gb_case_result_copy(gb_case_result *dst, const gb_case_result *src) {
    return gb_rm_copy(&gb_rm_t_case, dst, src) ? GB_FAIL : GB_OK;
}
int gb_crossover_entry_copy(gb_crossover_entry *dst, const gb_crossover_entry *src) {
    return gb_rm_copy(&gb_rm_t_cross, dst, src) ? GB_FAIL : GB_OK;
}

int gb_result_copy(gb_result *dst, const gb_result *src) {
    gb_result tmp;
    if (gb_rm_copy(&gb_rm_t_result, &tmp, src) != 0) return GB_FAIL;
    gb_rm_free(&gb_rm_t_result, dst);
    *dst = tmp;
    return GB_OK;
}

/* ---- building ---------------------------------------------------------------- */

int gb_set_string(char **field, const char *value) {
    char *copy = xstrdup(value);
    if (!copy) return GB_FAIL;
    free(*field);
    *field = copy;
    return GB_OK;
}

int gb_device_id_set(gb_device_id *d, long index, const char *name, const char *uuid, const char *pci_bus_id) {
    gb_rm_free(&gb_rm_t_device, d);
    d->present = 1;
    d->index = index;
    if (!(d->name = xstrdup(name ? name : "")) || !(d->uuid = xstrdup(uuid ? uuid : "")) ||
        !(d->pci_bus_id = xstrdup(pci_bus_id ? pci_bus_id : ""))) {
        gb_rm_free(&gb_rm_t_device, d);
        return GB_FAIL;
    }
    return GB_OK;
}

/* Grow an array of n elements of type t by one, emptied; NULL on out of memory. */
static void *grow_one(void **arr, size_t *n, const gb_rm_type *t) {
    char *bigger = realloc(*arr, (*n + 1) * t->size);
    if (!bigger) return NULL;
    *arr = bigger;
    void *el = bigger + *n * t->size;
    if (gb_rm_empty(t, el) != 0) {
        gb_rm_free(t, el);
        return NULL;
    }
    (*n)++;
    return el;
}

gb_run *gb_results_add_run(gb_results *r) { return grow_one((void **)&r->runs, &r->nruns, &gb_rm_t_run); }
gb_case_result *gb_results_add_case(gb_results *r) { return grow_one((void **)&r->cases, &r->ncases, &gb_rm_t_case); }
gb_result *gb_case_add_result(gb_case_result *c) { return grow_one((void **)&c->results, &c->nresults, &gb_rm_t_result); }

int gb_results_init(gb_results *r, const char *name, int merged, gb_err *e) {
    gb_rm_init(&gb_rm_t_doc, r);
    r->merged = merged;
    if (!(r->name = xstrdup(name)) || (!merged && !gb_results_add_run(r))) {
        gb_results_free(r);
        return gb_errf(e, GB_FAIL, "%s: out of memory", name);
    }
    return GB_OK;
}
