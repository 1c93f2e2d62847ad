/* sysinfo.c — provenance from /proc, /sys, uname and the build. */
#include "sysinfo.h"
#include "child_env.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>

#include "gb.h"
#include "node_env.h"

#ifndef GB_GIT_COMMIT
#define GB_GIT_COMMIT "unknown"
#endif
#ifndef GB_COMPILER
#define GB_COMPILER "unknown"
#endif
#ifndef GB_BUILD_FLAGS
#define GB_BUILD_FLAGS "unknown"
#endif

const char *gb_sysinfo_build_commit(void) { return GB_GIT_COMMIT; }
const char *gb_sysinfo_build_compiler(void) { return GB_COMPILER; }

int gb_read_line(const char *path, char *buf, unsigned long len) {
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    int ok = fgets(buf, (int)len, f) != NULL;
    fclose(f);
    if (ok) buf[strcspn(buf, "\n")] = 0;
    return ok;
}

int gb_sysinfo_logical_cpus(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void gb_sysinfo_hostname(char *out, unsigned long len) {
    if (gethostname(out, len) != 0 || !out[0]) snprintf(out, len, "unknown-host");
    out[len - 1] = '\0';
    for (char *p = out; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
              *p == '-' || *p == '.' || *p == '_'))
            *p = '_';
}

/* The ISA extensions a reader of a benchmark cares about, as /proc/cpuinfo
 * spells them. */
static const char *const isa_flags[] = {
    "sse4_2", "avx", "avx2", "fma", "avx512f", "avx512dq", "avx512bw", "avx512vl",
    "avx512_vnni", "avx512_bf16", "avx512_fp16", "amx_tile", "amx_bf16", "amx_int8", NULL};

static void add_cpu(cJSON *ctx) {
    cJSON *cpu = cJSON_AddObjectToObject(ctx, "cpu");
    char model[256] = "unknown", line[8192];
    cJSON *isa = cJSON_CreateArray();
    int have_flags = 0, max_phys = -1;
    /* Distinct (physical id, core id) pairs = physical cores. */
    enum { MAXC = 4096 };
    static int seen[MAXC];
    int nseen = 0, phys = 0;
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon) continue;
        char *val = colon + 2 <= line + strlen(line) ? colon + 2 : colon + 1;
        val[strcspn(val, "\n")] = '\0';
        if (strncmp(line, "model name", 10) == 0 && strcmp(model, "unknown") == 0)
            snprintf(model, sizeof model, "%s", val);
        else if (strncmp(line, "physical id", 11) == 0) {
            phys = atoi(val);
            if (phys > max_phys) max_phys = phys;
        } else if (strncmp(line, "core id", 7) == 0) {
            int key = phys * 100000 + atoi(val), dup = 0;
            for (int i = 0; i < nseen; i++) dup |= seen[i] == key;
            if (!dup && nseen < MAXC) seen[nseen++] = key;
        } else if (strncmp(line, "flags", 5) == 0 && !have_flags) {
            have_flags = 1;
            for (const char *const *fl = isa_flags; *fl; fl++) {
                char pat[64];
                snprintf(pat, sizeof pat, " %s ", *fl);
                char padded[8200];
                snprintf(padded, sizeof padded, " %s ", val);
                if (strstr(padded, pat)) cJSON_AddItemToArray(isa, cJSON_CreateString(*fl));
            }
        }
    }
    if (f) fclose(f);
    int logical = gb_sysinfo_logical_cpus();
    cJSON_AddStringToObject(cpu, "model", model);
    cJSON_AddNumberToObject(cpu, "sockets", max_phys >= 0 ? max_phys + 1 : 1);
    cJSON_AddNumberToObject(cpu, "cores", nseen > 0 ? nseen : logical);
    cJSON_AddNumberToObject(cpu, "logical_cpus", logical);
    cJSON_AddItemToObject(cpu, "isa", isa);
    double mem = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    cJSON_AddNumberToObject(cpu, "memory_bytes", mem);
}

double gb_sysinfo_steal_s(void) {
    char line[512];
    unsigned long long v[8] = {0};
    if (!gb_read_line("/proc/stat", line, sizeof line) ||
        sscanf(line, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
               &v[7]) != 8)
        return -1;
    long hz = sysconf(_SC_CLK_TCK);
    return (double)v[7] / (double)(hz > 0 ? hz : 100);
}

void gb_sysinfo_cpu_model(char *out, unsigned long len) {
    char line[1024];
    snprintf(out, len, "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) != 0 || !colon) continue;
        colon += colon[1] == ' ' ? 2 : 1;
        colon[strcspn(colon, "\n")] = 0;
        snprintf(out, len, "%s", colon);
        break;
    }
    if (f) fclose(f);
}

static void add_os(cJSON *ctx) {
    char pretty[256] = "unknown", line[256];
    FILE *f = fopen("/etc/os-release", "r");
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "PRETTY_NAME=", 12) == 0) {
            char *v = line + 12;
            v[strcspn(v, "\n")] = '\0';
            if (*v == '"') { v++; v[strcspn(v, "\"")] = '\0'; }
            snprintf(pretty, sizeof pretty, "%.200s", v);
        }
    }
    if (f) fclose(f);
    cJSON_AddStringToObject(ctx, "os", pretty);
    struct utsname u;
    if (uname(&u) == 0) {
        char k[400];
        snprintf(k, sizeof k, "%s %s %s", u.sysname, u.release, u.machine);
        cJSON_AddStringToObject(ctx, "kernel", k);
    }
}

cJSON *gb_sysinfo_context(int argc, char **argv) {
    cJSON *ctx = cJSON_CreateObject();
    char date[32];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    cJSON_AddStringToObject(ctx, "date", date);
    char host[256];
    if (gethostname(host, sizeof host) != 0) snprintf(host, sizeof host, "unknown");
    host[sizeof host - 1] = '\0';
    cJSON_AddStringToObject(ctx, "hostname", host);
    add_os(ctx);
    /* The exact command line, so a reader can re-run it. */
    char cmd[4096] = "";
    size_t len = 0;
    for (int i = 0; i < argc && len < sizeof cmd; i++)
        len += (size_t)snprintf(cmd + len, sizeof cmd - len, "%s%s", i ? " " : "", argv[i]);
    cJSON_AddStringToObject(ctx, "command_line", cmd);
    add_cpu(ctx);
    cJSON *build = cJSON_AddObjectToObject(ctx, "build");
    cJSON_AddStringToObject(build, "version", GB_VERSION);
    cJSON_AddStringToObject(build, "git_commit", gb_sysinfo_build_commit());
    cJSON_AddStringToObject(build, "compiler", gb_sysinfo_build_compiler());
    cJSON_AddStringToObject(build, "flags", GB_BUILD_FLAGS);
    cJSON *libs = cJSON_AddObjectToObject(ctx, "libraries");
    cJSON_AddStringToObject(libs, "cjson", cJSON_Version());
    /* the user's values, as the process was started: gpubench's own
     * OPENBLAS_CORETYPE (cpu_environment.c) is the library's core, recorded
     * under libraries.openblas, not here (child_env.h keeps the original) */
    cJSON *env = cJSON_AddObjectToObject(ctx, "environment");
    static const char *const vars[] = {"OPENBLAS_CORETYPE", "OMP_NUM_THREADS", "OMP_WAIT_POLICY", "GOMP_SPINCOUNT",
                                       "OPENBLAS_NUM_THREADS", "CUDA_VISIBLE_DEVICES", NULL};
    for (const char *const *v = vars; *v; v++) {
        const char *val = gb_child_env_original(*v);
        cJSON_AddStringToObject(env, *v, val ? val : "");
    }
    /* the CPUs the process was given, and the job it ran in (absent outside
     * SLURM), so a run can be joined to sacct */
    cJSON *aff = gb_node_affinity_json();
    if (aff) cJSON_AddItemToObject(ctx, "cpu_affinity", aff);
    cJSON *job = gb_node_job_json();
    if (job) cJSON_AddItemToObject(ctx, "job", job);
    return ctx;
}
