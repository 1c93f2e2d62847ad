/* compare_result.c — the comparison's lists and their freeing
 * (compare_result.h). */
#include <stdlib.h>
#include <string.h>

#include "compare.h"

int gb_cmp_strs_add(gb_cmp_strs *l, const char *s) {
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        char **more = realloc(l->item, cap * sizeof *more);
        if (!more) return -1;
        l->item = more;
        l->cap = cap;
    }
    char *copy = malloc(strlen(s) + 1);
    if (!copy) return -1;
    strcpy(copy, s);
    l->item[l->n++] = copy;
    return 0;
}

int gb_cmp_strs_has(const gb_cmp_strs *l, const char *s) {
    for (size_t i = 0; i < l->n; i++)
        if (!strcmp(l->item[i], s)) return 1;
    return 0;
}

void gb_cmp_strs_free(gb_cmp_strs *l) {
    for (size_t i = 0; i < l->n; i++) free(l->item[i]);
    free(l->item);
    memset(l, 0, sizeof *l);
}

static void file_free(gb_cmp_file *f) { free(f->runs); }

void gb_compare_result_free(gb_compare_result *r) {
    if (!r) return;
    file_free(&r->baseline);
    file_free(&r->current);
    for (size_t i = 0; i < r->nbase && r->baseline_files; i++) file_free(&r->baseline_files[i]);
    for (size_t i = 0; i < r->ncur && r->current_files; i++) file_free(&r->current_files[i]);
    free(r->baseline_files);
    free(r->current_files);
    gb_cmp_strs_free(&r->warnings);
    gb_cmp_strs_free(&r->only_in_baseline);
    gb_cmp_strs_free(&r->only_in_current);
    gb_cmp_strs_free(&r->summary.confirm.cases);
    free(r->items);
    free(r);
}


const char *gb_cmp_outcome(const gb_compare_result *r) {
    if (*r->error) return "error";
    const gb_cmp_summary *s = &r->summary;
    int bad = s->count[GB_V_REGRESSION] + s->count[GB_V_FAILED] + s->failed_only_in_current + s->shift_regressions;
    if (bad) return "fail";
    if (s->all_unsure) return "all_unsure";
    return "pass";
}
