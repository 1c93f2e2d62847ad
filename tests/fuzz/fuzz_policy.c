/* fuzz_policy.c — the compare policy loader: parse strictly, check, and ask
 * it for the rule of a few ops and backends (what compare does). */
#include "compare.h"
#include "fuzz.h"
#include "json_strict.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    cJSON *doc;
    gb_err e = {{0}};
    if (gb_json_parse_strict((const char *)data, size, "policy.json", &doc, &e) != GB_OK) {
        if (!e.msg[0]) __builtin_trap();
        return 0;
    }
    gb_policy *p = gb_policy_from_json(doc, "policy.json", &e);
    cJSON_Delete(doc);
    if (!p) {
        if (!e.msg[0]) __builtin_trap();
        return 0;
    }
    static const char *const ops[] = {"matmul", "fft", "spgemm", "nope", NULL};
    static const char *const backends[] = {"cpu", "cuda", NULL};
    gb_rule base = GB_DEFAULT_RULE;
    for (int i = 0; ops[i]; i++)
        for (int j = 0; backends[j]; j++) {
            gb_rule r = gb_policy_rule(p, ops[i], backends[j], base, 0);
            (void)r;
            r = gb_policy_rule(p, ops[i], backends[j], base, GB_CLI_THRESHOLD);
            (void)r;
        }
    gb_policy_free(p);
    return 0;
}
