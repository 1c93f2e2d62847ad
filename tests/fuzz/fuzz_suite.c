/* fuzz_suite.c — the suite parser: any bytes either load as a valid suite
 * (whose plan is then walked) or fail with a message; never a crash, a leak
 * or a hang (validation is linear in the input: sizes are counted from the
 * parameters, never generated). */
#include <string.h>

#include "fuzz.h"
#include "suite.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    gb_suite s;
    gb_err e = {{0}};
    if (gb_suite_parse_bytes((const char *)data, size, "fuzz.json", NULL, &s, &e) == GB_OK) {
        /* Everything the runner reads from a plan item. */
        double sum = 0;
        for (size_t i = 0; i < s.count; i++) {
            const gb_plan_item *it = &s.items[i];
            sum += it->c.flops + it->c.bytes + it->budget.max_time_s + (double)strlen(it->c.label);
            if (it->c.op->host_bytes) sum += it->c.op->host_bytes(&it->c);
        }
        cJSON *p = s.count ? gb_params_to_json(&s.items[0].c) : NULL;
        cJSON_Delete(p);
        (void)sum;
        gb_suite_free(&s);
    } else if (!e.msg[0]) {
        __builtin_trap(); /* a failure must say why */
    }
    return 0;
}
