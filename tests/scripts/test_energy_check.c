/* test_energy_check.c — scripts/dev/energy-gpu-check.sh's analysis
 * (scripts/dev/energy_check.py) on fabricated files of the shapes the GPU
 * host writes: the default run's results, the long second run, nvidia-smi's
 * 100 ms log and gpubench's energy-window log. Each check must come out as
 * the numbers say (a window 10% off the independent reader fails, one at
 * 0.0% passes, a short one is left out). And the shell script itself, run
 * where gpubench and nvidia-smi are stand-ins that fail, must still finish,
 * stop its reader and write checks.txt saying N/A. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "testlib.h"

#define PY "TZ=UTC /usr/bin/python3"

static void put(const char *dir, const char *name, const char *text) {
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static const char *case_json(const char *op, const char *label, double j, double bound, double w, int capped) {
    static char buf[2][1500];
    static int k;
    char *b = buf[k++ % 2];
    snprintf(b, sizeof buf[0],
             "{\"op\":\"%s\",\"dtype\":\"float32\",\"label\":\"%s\",\"results\":["
             "{\"backend\":\"cpu\",\"timing\":\"host\",\"status\":\"ok\",\"energy\":{\"status\":\"not_measured\","
             "\"reason\":\"no RAPL interface: test\"}},"
             "{\"backend\":\"cuda\",\"timing\":\"device\",\"status\":\"ok\",\"energy\":{\"status\":\"measured\","
             "\"j_per_op\":%g,\"bound\":%g,\"power_w\":%g,\"idle_w\":80,\"power_limit_w\":700,\"gflop_per_j\":500,"
             "\"phase\":\"timed\"},\"clocks\":{\"sm_mhz\":1755,\"mem_mhz\":2619,\"samples\":50,\"reasons\":[%s],"
             "\"power_limited\":%s,\"thermal_limited\":false}}]}",
             op, label, j, bound, w, capped ? "\"power_cap\"" : "", capped ? "true" : "false");
    return b;
}

TEST(energy_check_analysis_of_fabricated_logs) {
    if (gb_test_sh("/usr/bin/python3 -c 1 >/dev/null 2>&1", NULL, 0) != 0) {
        SKIP("no /usr/bin/python3");
        return;
    }
    const char *dir = gb_test_tmp("energy_check");
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf %s && mkdir -p %s", dir, dir);
    gb_test_sh(cmd, NULL, 0);
    /* nvidia-smi: 600 W for 5 s, then 300 W, every 100 ms from 2027-01-15 08:00:00 UTC (1800000000) */
    static char smi[1 << 16];
    size_t off = 0;
    for (int i = 0; i < 100; i++)
        off += (size_t)snprintf(smi + off, sizeof smi - off, "2027/01/15 08:00:%02d.%d00, %s, 1755, 2619, 0x4\n",
                                i / 10, i % 10, i < 50 ? "600.00" : "300.00");
    put(dir, "smi.csv", smi);
    put(dir, "energy-log.jsonl",
        /* 600 W over 3.5 s: as the reader says */
        "{\"op\":\"matmul\",\"dtype\":\"float32\",\"label\":\"8192x8192x8192\",\"backend\":\"cuda\",\"timing\":"
        "\"device\",\"unix_start\":1800000000.0,\"unix_end\":1800000004.0,\"energy_j\":2100,\"seconds\":3.5,"
        "\"span_s\":4.0,\"reps\":100}\n"
        /* 330 W where the reader says 300: 10% off */
        "{\"op\":\"elementwise\",\"dtype\":\"float32\",\"label\":\"8192x8192\",\"backend\":\"cuda\",\"timing\":"
        "\"device\",\"unix_start\":1800000005.0,\"unix_end\":1800000009.0,\"energy_j\":1155,\"seconds\":3.5,"
        "\"span_s\":4.0,\"reps\":1000}\n"
        /* too short for a reader averaging over a second: left out */
        "{\"op\":\"matmul\",\"dtype\":\"float32\",\"label\":\"256x256x256\",\"backend\":\"cuda\",\"timing\":"
        "\"device\",\"unix_start\":1800000001.0,\"unix_end\":1800000001.6,\"energy_j\":1,\"seconds\":0.5,"
        "\"span_s\":0.6,\"reps\":10}\n"
        "not json\n");
    static char run[8192];
    snprintf(run, sizeof run,
             "{\"schema\":\"gpubench-results\",\"cases\":[%s,%s],\"warnings\":[\"1 result ran power-limited ...\"],"
             "\"time_breakdown\":{\"wall_s\":291,\"energy_s\":3.2}}",
             case_json("matmul", "8192x8192x8192", 2.1, 0.03, 600, 1),
             case_json("elementwise", "8192x8192", 0.4, 0.05, 300, 0));
    put(dir, "run1.json", run);
    snprintf(run, sizeof run, "{\"schema\":\"gpubench-results\",\"cases\":[%s,%s]}",
             case_json("matmul", "8192x8192x8192", 2.15, 0.005, 610, 1),
             case_json("elementwise", "8192x8192", 0.5, 0.004, 330, 0));
    put(dir, "run2.json", run);
    static char out[1 << 15];
    snprintf(cmd, sizeof cmd, PY " scripts/dev/energy_check.py %s 2>&1", dir);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "1. GEMM 8192 average power between idle and the enforced limit (run1): PASS") != NULL);
    CHECK(strstr(out, "2. elementwise 8192 power between idle and the limit (run1): PASS") != NULL);
    CHECK(strstr(out, "FAIL (1 of 2 beyond 5%)") != NULL);
    CHECK(strstr(out, "+0.0%") != NULL && strstr(out, "+10.0%") != NULL);
    CHECK(strstr(out, "256x256x256") == NULL); /* the short window */
    /* matmul overlaps (2.1 +-3% and 2.15 +-0.5%); elementwise does not (0.4 +-5%, 0.5 +-0.4%) */
    CHECK(strstr(out, "4. two runs' J/op intervals overlap: FAIL (1 of 2 do not overlap)") != NULL);
    CHECK(strstr(out, "5. power-capped results (clocks.power_limited): 2") != NULL);
    CHECK(strstr(out, "no RAPL interface: test") != NULL);
    CHECK(strstr(out, "wall 291 s (budget 300 s: PASS)") != NULL);
    char path[512];
    snprintf(path, sizeof path, "%s/checks.txt", dir);
    char *written = gb_test_slurp(path, NULL);
    CHECK(written && strstr(written, "3. J/op against nvidia-smi") != NULL);
    free(written);
}

TEST(energy_gpu_check_script_finishes_with_failing_tools) {
    if (gb_test_sh("/usr/bin/python3 -c 1 >/dev/null 2>&1 && command -v timeout >/dev/null", NULL, 0) != 0) {
        SKIP("no /usr/bin/python3 or timeout");
        return;
    }
    /* a directory standing for an unpacked bundle: bin/gpubench fails every
     * run; nvidia-smi prints a line every 0.1 s until it is stopped */
    const char *dir = gb_test_tmp("energy_gpu_check");
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "rm -rf %s && mkdir -p %s/bin %s/fake %s/scripts/dev %s/suites && "
             "cp scripts/dev/energy-gpu-check.sh scripts/dev/energy_check.py %s/scripts/dev/ && "
             "printf '#!/bin/sh\\necho gpubench-stand-in >&2\\nexit 2\\n' > %s/bin/gpubench && "
             "printf '#!/bin/sh\\ncase \"$*\" in *-lms*) ;; *) echo name; exit 0;; esac\\n"
             "while :; do echo \"2027/01/15 08:00:00.000, 100.00, 1980, 2619, 0x1\"; sleep 0.1; done\\n' "
             "> %s/fake/nvidia-smi && chmod +x %s/bin/gpubench %s/fake/nvidia-smi",
             dir, dir, dir, dir, dir, dir, dir, dir, dir, dir);
    CHECK(gb_test_sh(cmd, NULL, 0) == 0);
    static char out[1 << 15];
    snprintf(cmd, sizeof cmd, "cd %s && PATH=%s/fake:$PATH timeout 60 bash scripts/dev/energy-gpu-check.sh out 2>&1", dir,
             dir);
    int rc = gb_test_sh(cmd, out, sizeof out);
    CHECK(rc == 0);
    char path[512];
    snprintf(path, sizeof path, "%s/out/checks.txt", dir);
    char *checks = gb_test_slurp(path, NULL);
    CHECK(checks != NULL);
    CHECK(checks && strstr(checks, "N/A") != NULL);
    CHECK(checks && strstr(checks, "run1.json") != NULL); /* says the run left no results */
    free(checks);
    /* the reader was stopped: no stand-in nvidia-smi of this directory is left */
    snprintf(cmd, sizeof cmd, "sleep 0.3; ps -eo args | grep -v grep | grep -c '%s/fake/nvidia-smi'", dir);
    gb_test_sh(cmd, out, sizeof out);
    CHECK(atoi(out) == 0);
}
