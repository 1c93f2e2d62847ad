/* openblas_core.c — see openblas_core.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cblas.h>
#include "openblas_core.h"

static const char *openblas_config_now(void) { return openblas_get_config(); }

/* ---- OpenBLAS kernel level vs CPU ISA ------------------------------------ */

/* Instruction-set levels, in order: a core whose kernels use level L wastes
 * a CPU whose ISA reaches a level above L. */
enum { LVL_SSE = 1, LVL_AVX, LVL_AVX2, LVL_AVX512, LVL_AVX512_BF16, LVL_AMX };

static const char *const level_text[] = {
    [LVL_SSE] = "SSE", [LVL_AVX] = "AVX", [LVL_AVX2] = "AVX2", [LVL_AVX512] = "AVX-512",
    [LVL_AVX512_BF16] = "AVX-512 (with BF16)", [LVL_AMX] = "AVX-512 (and AMX)"};

/* The x86-64 cores of OpenBLAS's DYNAMIC_ARCH builds (the names
 * openblas_get_corename() returns) and the ISA their GEMM kernels use. */
static const struct {
    const char *core;
    int level;
} core_levels[] = {
    {"Katmai", LVL_SSE},       {"Coppermine", LVL_SSE},   {"Northwood", LVL_SSE},
    {"Prescott", LVL_SSE},     {"Banias", LVL_SSE},       {"Atom", LVL_SSE},
    {"Core2", LVL_SSE},        {"Penryn", LVL_SSE},       {"Dunnington", LVL_SSE},
    {"Nehalem", LVL_SSE},      {"Athlon", LVL_SSE},       {"Opteron", LVL_SSE},
    {"Opteron_SSE3", LVL_SSE}, {"Barcelona", LVL_SSE},    {"Nano", LVL_SSE},
    {"Bobcat", LVL_SSE},       {"Sandybridge", LVL_AVX},  {"Bulldozer", LVL_AVX},
    {"Piledriver", LVL_AVX},   {"Steamroller", LVL_AVX},  {"Excavator", LVL_AVX2},
    {"Haswell", LVL_AVX2},     {"Zen", LVL_AVX2},         {"SkylakeX", LVL_AVX512},
    {"Cooperlake", LVL_AVX512_BF16},                      {"SapphireRapids", LVL_AMX},
};

static int core_level(const char *core) {
    for (size_t i = 0; i < sizeof core_levels / sizeof core_levels[0]; i++)
        if (strcasecmp(core, core_levels[i].core) == 0) return core_levels[i].level;
    return 0; /* unknown (another architecture, or a newer name): no opinion */
}

static int has_flag(const cJSON *isa, const char *flag) {
    const cJSON *it;
    cJSON_ArrayForEach(it, isa) if (cJSON_IsString(it) && strcmp(it->valuestring, flag) == 0) return 1;
    return 0;
}

static int isa_level(const cJSON *isa) {
    if (has_flag(isa, "amx_tile")) return LVL_AMX;
    if (has_flag(isa, "avx512_bf16")) return LVL_AVX512_BF16;
    if (has_flag(isa, "avx512f")) return LVL_AVX512;
    if (has_flag(isa, "avx2")) return LVL_AVX2;
    if (has_flag(isa, "avx")) return LVL_AVX;
    return cJSON_GetArraySize(isa) > 0 ? LVL_SSE : 0;
}

/* "OpenBLAS 0.3.21 NO_LAPACKE DYNAMIC_ARCH ..." → 0.3.21 as 3021 (0 unknown). */
static int openblas_version(const char *config, char *text, size_t len) {
    int maj = 0, min = 0, pat = 0;
    if (text) snprintf(text, len, "OpenBLAS");
    if (!config || sscanf(config, "OpenBLAS %d.%d.%d", &maj, &min, &pat) < 2) return 0;
    if (text) snprintf(text, len, "OpenBLAS %d.%d.%d", maj, min, pat);
    return maj * 100000 + min * 1000 + pat;
}

/* The best core this OpenBLAS has for an ISA level. SapphireRapids (AMX)
 * is not in 0.3.21's DYNAMIC_ARCH list (Debian 12's build answers "Core not
 * found: SapphireRapids" and falls back), so it is asked for only from
 * 0.3.22 on; Cooperlake's AVX-512 BF16 kernels are the best before that. */
static const char *best_core(int level, int version) {
    switch (level) {
    case LVL_AMX: return version >= 3022 ? "SapphireRapids" : "Cooperlake";
    case LVL_AVX512_BF16: return "Cooperlake";
    case LVL_AVX512: return "SkylakeX";
    case LVL_AVX2: return "Haswell";
    case LVL_AVX: return "Sandybridge";
    default: return NULL;
    }
}

const char *gb_openblas_recommended_core(const cJSON *isa, const char *config, const char *core) {
    int have = core ? core_level(core) : 0, cpu = isa_level(isa);
    if (!have || cpu <= have) return NULL;
    const char *best = best_core(cpu, openblas_version(config, NULL, 0));
    return best && core_level(best) > have ? best : NULL;
}

/* The ISA flags of this CPU from /proc/cpuinfo (the same spelling the
 * context uses), as a cJSON array. */
static cJSON *cpu_isa_now(void) {
    static const char *const flags[] = {"avx", "avx2", "avx512f", "avx512_bf16", "amx_tile", NULL};
    cJSON *isa = cJSON_CreateArray();
    FILE *f = fopen("/proc/cpuinfo", "r");
    static char line[16384];
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "flags", 5) != 0) continue;
        line[strcspn(line, "\n")] = ' ';
        cJSON_AddItemToArray(isa, cJSON_CreateString("sse")); /* any x86-64 */
        for (const char *const *fl = flags; *fl; fl++) {
            char pat[32];
            snprintf(pat, sizeof pat, " %s ", *fl);
            if (strstr(line, pat)) cJSON_AddItemToArray(isa, cJSON_CreateString(*fl));
        }
        break;
    }
    if (f) fclose(f);
    return isa;
}

const char *gb_openblas_best_core_here(void) {
    cJSON *isa = cpu_isa_now();
    const char *best = best_core(isa_level(isa), openblas_version(openblas_config_now(), NULL, 0));
    cJSON_Delete(isa);
    return best;
}

const char *gb_openblas_isa_text(const cJSON *isa) {
    int level = isa_level(isa);
    return level ? level_text[level] : "an unknown ISA";
}

/* ---- who chose the core --------------------------------------------------- */

static const char *chosen_by;

const char *gb_openblas_core_chosen_by(void) {
    if (chosen_by) return chosen_by;
    const char *env = getenv("OPENBLAS_CORETYPE");
    return env && *env ? "environment" : "openblas";
}

void gb_openblas_set_core_chosen_by(const char *who) { chosen_by = who; }

static char ignored_env[64];

const char *gb_openblas_ignored_env(void) { return ignored_env[0] ? ignored_env : NULL; }
void gb_openblas_set_ignored_env(const char *name) { snprintf(ignored_env, sizeof ignored_env, "%s", name ? name : ""); }

/* ---- the warning ---------------------------------------------------------- */

static const char *string(const cJSON *o, const char *key) {
    const cJSON *v = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int gb_openblas_check(const cJSON *context, cJSON *warnings) {
    const cJSON *cpu = cJSON_GetObjectItemCaseSensitive(context, "cpu");
    const cJSON *isa = cpu ? cJSON_GetObjectItemCaseSensitive(cpu, "isa") : NULL;
    const cJSON *libs = cJSON_GetObjectItemCaseSensitive(context, "libraries");
    const cJSON *ob = libs ? cJSON_GetObjectItemCaseSensitive(libs, "openblas") : NULL;
    const char *core = string(ob, "core"), *config = string(ob, "config");
    int added = 0;
    if (ignored_env[0]) {
        char msg[512];
        snprintf(msg, sizeof msg,
                 "OPENBLAS_CORETYPE=%s is set in the environment but is not a core this OpenBLAS runs (an unknown "
                 "name, or one this build lacks): OpenBLAS ignored it, so it counts as not set and the %s kernels "
                 "run (core_chosen_by: %s)", ignored_env, core ? core : "detected", string(ob, "core_chosen_by") ?
                 string(ob, "core_chosen_by") : "openblas");
        cJSON_AddItemToArray(warnings, cJSON_CreateString(msg));
        added = 1;
    }
    const char *best = cJSON_IsArray(isa) && core ? gb_openblas_recommended_core(isa, config, core) : NULL;
    if (!best) return added;
    const char *who = string(ob, "core_chosen_by");
    char ver[48], why[160], msg[1024];
    openblas_version(config, ver, sizeof ver);
    if (who && !strcmp(who, "environment"))
        snprintf(why, sizeof why,
                 "because OPENBLAS_CORETYPE=%s is set in the environment (by you or by this machine's image)",
                 core);
    else if (who && !strcmp(who, "flag"))
        snprintf(why, sizeof why, "because --openblas-core %s asked for it", core);
    else if (who && !strcmp(who, "openblas"))
        snprintf(why, sizeof why, "as it detects this CPU itself (--openblas-core detected)");
    else
        snprintf(why, sizeof why, "although gpubench asked for a better core");
    snprintf(msg, sizeof msg,
             "%s runs its %s kernels on a CPU with %s, %s: GEMM may be several times slower. "
             "Pass --openblas-core auto (or set OPENBLAS_CORETYPE=%s) to use the %s kernels",
             ver, core, level_text[isa_level(isa)], why, best, best);
    cJSON_AddItemToArray(warnings, cJSON_CreateString(msg));
    return added + 1;
}
