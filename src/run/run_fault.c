/* run_fault.c — a slowdown made on purpose, to test a regression gate end
 * to end: GPUBENCH_FAULT_SLOW=FACTOR:CASE-PATTERN makes every result whose
 * name matches the pattern (compare's names, "op/dtype/label/params/backend/
 * timing"; a glob or a substring, gb_name_matches) FACTOR times as long.
 *
 * Why in the runner, not in a file afterwards: a gate is judged on fresh
 * processes too (`compare --confirm`, `history check --confirm` run the
 * suspects again), and a slowdown written into one results file is gone in
 * them, so the gate rightly clears it. The variable is inherited by those
 * processes, so the slowdown is there in every process, as a real one is.
 *
 * How: each repetition (warm-up ones too) is recorded FACTOR times as long
 * as the backend measured it, and a busy wait of the difference follows it
 * before the next one starts. The op's own noise is kept, scaled; the wait
 * holds the thread, and the run's time budget, as a slower op would. A
 * device timing (CUDA events) is scaled the same way; its device did not
 * wait. Not applied to the lanes of --devices-concurrent. Every run with it set says so in its warnings and
 * records it as context.fault_slow; `history add` refuses such a file, and
 * `run --history` refuses to start with the variable set: a history holds
 * the machine's times. */
#include "run_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"

#define FAULT_VAR GB_FAULT_SLOW_VAR

static struct {
    double factor; /* 0: none (unset, or not read yet) */
    char pattern[300]; /* what follows the colon: shorter than value */
    char value[300]; /* the variable as given, for context.fault_slow */
} fault;

int gb_run_fault_read(gb_err *e) {
    fault.factor = 0;
    const char *v = getenv(FAULT_VAR);
    if (!v || !*v) return GB_OK;
    const char *colon = strchr(v, ':'), *end = NULL;
    double f = 0;
    if (!colon || gb_scan_decimal(v, &f, &end) != 0 || end != colon || !(f > 1) || f > 1000 || !colon[1] ||
        strlen(v) >= sizeof fault.value)
        return gb_errf(e, GB_FAIL,
                       "%s='%.80s': give FACTOR:CASE-PATTERN, FACTOR a number above 1 and at most 1000 "
                       "(e.g. %s=1.2:matmul/float32/256x256x256/math=default/cpu/host)",
                       FAULT_VAR, v, FAULT_VAR);
    fault.factor = f;
    snprintf(fault.pattern, sizeof fault.pattern, "%s", colon + 1);
    snprintf(fault.value, sizeof fault.value, "%s", v);
    return GB_OK;
}

void gb_run_fault_describe(cJSON *context) {
    if (fault.factor > 1) cJSON_AddStringToObject(context, "fault_slow", fault.value);
}

double gb_run_fault_factor(const gb_case_result *c, const gb_result *r) {
    if (fault.factor <= 1) return 1;
    char name[512];
    gb_result_name(c, r, NULL, name, sizeof name);
    return gb_name_matches(fault.pattern, name) ? fault.factor : 1;
}

void gb_run_fault_slow(double factor, double *seconds) {
    if (!(factor > 1)) return;
    double until = gb_now() + (factor - 1) * *seconds;
    while (gb_now() < until) {
    }
    *seconds *= factor;
}

int gb_run_fault_warnings(const gb_results *r, cJSON *warnings) {
    if (fault.factor <= 1) return 0;
    size_t hit = 0;
    char first[512] = "";
    for (size_t i = 0; i < r->ncases; i++)
        for (size_t j = 0; j < r->cases[i].nresults; j++) {
            const gb_result *res = &r->cases[i].results[j];
            if (res->status != GB_RS_OK || gb_run_fault_factor(&r->cases[i], res) <= 1) continue;
            if (!hit++) gb_result_name(&r->cases[i], res, NULL, first, sizeof first);
        }
    char msg[1024];
    if (hit)
        snprintf(msg, sizeof msg,
                 "%s is set: %zu result%s made x%g slower on purpose (%s%s), a fault to test a regression "
                 "gate; these times are not the machine's",
                 FAULT_VAR, hit, hit == 1 ? "" : "s", fault.factor, first, hit > 1 ? ", ..." : "");
    else
        snprintf(msg, sizeof msg, "%s is set, and no measured result matches its pattern '%s'", FAULT_VAR,
                 fault.pattern);
    cJSON_AddItemToArray(warnings, cJSON_CreateString(msg));
    return 1;
}
