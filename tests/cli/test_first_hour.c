/* test_first_hour.c — what a newcomer meets in the first hour (issue 32):
 * a refused flag in one line with where help is, not the whole usage. */
#include <stdio.h>
#include <string.h>
#include <cjson/cJSON.h>
#include "testlib.h"

static char out[1 << 14];

static int lines(const char *s) {
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

/* Every command: an unknown flag is one line, prefixed "gpubench CMD:",
 * naming the flag and the command's --help; exit status 2. */
TEST(cli_unknown_flag_is_one_line_with_a_hint) {
    static const char *const cmds[] = {"run", "report", "compare", "info", "list", "validate",
                                       "merge", "peak", "export", "slurm", "history"};
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char cmd[256], want[160];
        snprintf(cmd, sizeof cmd, "%s %s --bogus 2>&1", gb_test_binary(), cmds[i]);
        if (!strcmp(cmds[i], "history")) snprintf(cmd, sizeof cmd, "%s history add --bogus 2>&1", gb_test_binary());
        CHECK(gb_test_sh(cmd, out, sizeof out) == 2);
        snprintf(want, sizeof want, "gpubench %s: unrecognized option '--bogus' (see gpubench %s --help)\n", cmds[i],
                 cmds[i]);
        CHECK(strcmp(out, want) == 0);
        if (strcmp(out, want)) fprintf(stderr, "    got: %s", out);
    }
    /* a value missing, a value given to a switch, an unknown short option */
    char cmd[256];
    snprintf(cmd, sizeof cmd, "%s run --out 2>&1", gb_test_binary());
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2 && lines(out) == 1 &&
          strstr(out, "gpubench run: option '--out' needs a value") == out);
    snprintf(cmd, sizeof cmd, "%s run --help=3 2>&1", gb_test_binary());
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2 && lines(out) == 1 && strstr(out, "'--help' takes no value"));
    snprintf(cmd, sizeof cmd, "%s report -z 2>&1", gb_test_binary());
    CHECK(gb_test_sh(cmd, out, sizeof out) == 2 && lines(out) == 1 &&
          strstr(out, "gpubench report: unrecognized option '-z'") == out);
}

static const char *json_core_detected(const char *env) {
    static char got[64];
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "%s %s info --format json 2>/dev/null | python3 -c "
             "\"import json,sys; o=json.load(sys.stdin)['libraries']['openblas']; print(o.get('core_detected',''))\"",
             env, gb_test_binary());
    got[0] = 0;
    if (gb_test_sh(cmd, out, sizeof out) == 0) sscanf(out, "%63s", got);
    return got;
}

/* `info` (and so every results file's context) records what OpenBLAS
 * detects by itself also when OPENBLAS_CORETYPE forces another core: the
 * same name as without the variable. */
TEST(info_records_core_detected_when_openblas_coretype_is_set) {
    char plain[64];
    snprintf(plain, sizeof plain, "%s", json_core_detected("env -u OPENBLAS_CORETYPE"));
    CHECK(*plain);
    CHECK(strcmp(json_core_detected("OPENBLAS_CORETYPE=Haswell"), plain) == 0);
    CHECK(strcmp(json_core_detected("OPENBLAS_CORETYPE=Prescott OMP_WAIT_POLICY=PASSIVE"), plain) == 0);
}

#include <stdlib.h>
#include "format.h"

static int occurrences(const char *text, const char *needle) {
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle)) n++;
    return n;
}

/* A CPU-only report: the GPU's absence said once (the machine line), no
 * words about GPU timings that did not run. */
TEST(report_cpu_only_says_no_gpu_once_and_no_gpu_timing_words) {
    static char big[1 << 16];
    char cmd[256];
    snprintf(cmd, sizeof cmd, "NO_COLOR=1 %s report tests/data/results_small_cpu_only.json 2>&1", gb_test_binary());
    CHECK(gb_test_sh(cmd, big, sizeof big) == 0);
    CHECK(occurrences(big, "no CUDA device") == 1);
    CHECK(strstr(big, "Further GPU timings") == NULL && strstr(big, "e2e-ovl") == NULL);
    CHECK(strstr(big, "No GPU results in this run: GPU columns are omitted.") != NULL);
}

/* Tiny times keep three figures; a % of peak above 100 is capped with a
 * note that says why (the figure stays in the file). */
TEST(report_tiny_times_keep_three_figures_and_pct_above_100_is_capped) {
    char buf[32];
    gb_fmt_sig(buf, sizeof buf, 0.00004);
    CHECK(strcmp(buf, "0.0000400") == 0);
    gb_fmt_sig(buf, sizeof buf, 0.000061234);
    CHECK(strcmp(buf, "0.0000612") == 0);
    gb_fmt_sig(buf, sizeof buf, 0.00558);
    CHECK(strcmp(buf, "0.00558") == 0); /* as before from 0.001 up */
    static char big[1 << 17];
    char cmd[256];
    snprintf(cmd, sizeof cmd, "NO_COLOR=1 %s report tests/data/results_cpu_only.json 2>&1", gb_test_binary());
    CHECK(gb_test_sh(cmd, big, sizeof big) == 0);
    CHECK(strstr(big, "109%") == NULL && strstr(big, ">100%¹") != NULL);
    CHECK(strstr(big, "¹ >100% peak: faster than the memory ceiling") != NULL);
}

/* Crossover words for a byte-count op (transfer) in KiB/MiB/GiB, never a
 * bare byte count. */
TEST(report_transfer_crossover_sizes_have_units) {
    static char big[1 << 18];
    char cmd[256];
    snprintf(cmd, sizeof cmd, "NO_COLOR=1 %s report --op transfer results/reference/transfer-h100.json 2>&1",
             gb_test_binary());
    CHECK(gb_test_sh(cmd, big, sizeof big) == 0);
    CHECK(strstr(big, "from 4 KiB to 1 GiB") != NULL);
    CHECK(strstr(big, " KiB)") != NULL); /* "(crossing ≈ 334 KiB)" */
    int bare = 0;
    for (const char *p = big; (p = strstr(p, "crossing ≈ ")) != NULL; p++) {
        const char *q = p + strlen("crossing ≈ ");
        while ((*q >= '0' && *q <= '9') || *q == '.') q++;
        bare += *q == ')';
    }
    CHECK(bare == 0);
}

/* A CPU-only run of a case and its math=tf32 twin: the twin only copies the
 * CPU's result, so the table has no math=tf32 row and says what it left out. */
TEST(run_cpu_only_shows_no_tf32_copy_rows) {
    const char *suite = gb_test_tmp("tf32.json"), *res = gb_test_tmp("tf32-out.json");
    CHECK(gb_test_write_text(suite,
                             "{\"name\":\"tf\",\"defaults\":{\"dtypes\":[\"float32\"],\"min_reps\":3,\"min_time_s\":0.001,"
                             "\"max_time_s\":0.05,\"rounds\":1},\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[32]},"
                             "{\"op\":\"matmul\",\"sizes\":[32],\"params\":{\"math\":\"tf32\"}}]}") == 0);
    static char big[1 << 16];
    char cmd[512];
    snprintf(cmd, sizeof cmd, "NO_COLOR=1 %s run %s --backend cpu --no-peak --out %s 2>/dev/null", gb_test_binary(),
             suite, res);
    CHECK(gb_test_sh(cmd, big, sizeof big) == 0);
    CHECK(strstr(big, "Not shown: 1 case whose only difference is") != NULL);
    /* no line of the case itself (its label) names tf32: only the sentence saying what was left out */
    int tf32_rows = 0;
    for (char *line = strtok(big, "\n"); line; line = strtok(NULL, "\n"))
        tf32_rows += strstr(line, "32x32x32") && strstr(line, "tf32");
    CHECK(tf32_rows == 0);
    cJSON *doc = gb_test_load_json(res);
    CHECK(doc && cJSON_GetArraySize(cJSON_GetObjectItem(doc, "cases")) == 2); /* the file keeps both */
    cJSON_Delete(doc);
}

/* "Further GPU timings ... e2e-ovl" only where a row has such a timing: not
 * for a matmul-only or transfer-only report of a GPU run. */
TEST(report_names_e2e_ovl_only_where_a_row_has_it) {
    static char big[1 << 18];
    char cmd[256];
    snprintf(cmd, sizeof cmd, "NO_COLOR=1 %s report --op matmul results/reference/default-h100-fresh-vm-latest.json",
             gb_test_binary());
    CHECK(gb_test_sh(cmd, big, sizeof big) == 0 && strstr(big, "Further GPU timings") == NULL);
    snprintf(cmd, sizeof cmd, "NO_COLOR=1 %s report --op elementwise results/reference/default-h100-fresh-vm-latest.json",
             gb_test_binary());
    CHECK(gb_test_sh(cmd, big, sizeof big) == 0 && strstr(big, "Further GPU timings") != NULL &&
          strstr(big, "see docs/timing.md") != NULL);
}

/* A run without its accelerator says why once where stdout and stderr are
 * one stream (the early note; the summary points to it), and in the summary
 * where they are apart; a run where no counter measured energy shows no
 * energy columns of dashes, no paragraph on reading them and no line on
 * why (#47: it was under every table); a CPU-only --no-peak run no
 * crossover section and no %peak column of dashes. */
TEST(run_without_gpu_says_why_once_and_shows_no_empty_energy_columns) {
    const char *suite = gb_test_tmp("nogpu.json"), *res = gb_test_tmp("nogpu-out.json");
    CHECK(gb_test_write_text(suite,
                             "{\"name\":\"ng\",\"defaults\":{\"dtypes\":[\"float32\"],\"min_reps\":3,\"min_time_s\":0.001,"
                             "\"max_time_s\":0.05,\"rounds\":1},\"benchmarks\":[{\"op\":\"elementwise\",\"sizes\":[32]}]}") == 0);
    static char big[1 << 16];
    char cmd[512];
    /* Markdown: a terminal paragraph wraps at 100 columns, and the reason with it */
    snprintf(cmd, sizeof cmd, "NO_COLOR=1 %s run %s --no-peak --format md --out %s --force 2>&1", gb_test_binary(),
             suite, res);
    CHECK(gb_test_sh(cmd, big, sizeof big) == 0);
    const char *note = strstr(big, "note: backend cuda unavailable: ");
    if (!note) {
        SKIP("this machine's cuda backend is available");
        return;
    }
    char reason[200];
    const char *r0 = note + strlen("note: backend cuda unavailable: ");
    size_t rl = strcspn(r0, "\n");
    snprintf(reason, sizeof reason, "%.*s", (int)(rl < sizeof reason - 1 ? rl : sizeof reason - 1), r0);
    CHECK(occurrences(big, reason) == 1);
    CHECK(strstr(big, "GPU: none (why: the note above).") != NULL);
    snprintf(cmd, sizeof cmd, "NO_COLOR=1 %s run %s --no-peak --format md --out %s --force 2>/dev/null",
             gb_test_binary(), suite, res);
    CHECK(gb_test_sh(cmd, big, sizeof big) == 0);
    CHECK(occurrences(big, reason) == 1 && strstr(big, "(why: the note above)") == NULL);
    cJSON *doc = gb_test_load_json(res);
    const cJSON *c0 = doc ? cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "cases"), 0) : NULL;
    const cJSON *e = cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(c0, "results"), 0), "energy");
    const cJSON *st = cJSON_GetObjectItem(e, "status");
    if (cJSON_IsString(st) && !strcmp(st->valuestring, "not_measured"))
        CHECK(strstr(big, "J/op") == NULL && strstr(big, "energy not measured") == NULL); /* the JSON says why */
    CHECK(strstr(big, "Crossover") == NULL && strstr(big, "%peak") == NULL && strstr(big, "% peak") == NULL);
    cJSON_Delete(doc);
}

/* The line a case prints as it finishes shows its first round: it says so
 * when the run has several (#47: 5.36 ms on the line, 2.15 in the table),
 * and nothing when round 1 is the whole result. */
TEST(run_case_line_names_the_round_it_shows) {
    char cmd[512];
    static char said[1 << 14];
    const char *res = gb_test_tmp("round-line.json");
    snprintf(cmd, sizeof cmd, "NO_COLOR=1 %s run --op reduction --sizes 16 --dtype float32 --backend cpu --no-peak "
                              "--reps 6 --rounds 3 --out %s --force 2>&1", gb_test_binary(), res);
    CHECK(gb_test_sh(cmd, said, sizeof said) == 0);
    CHECK(strstr(said, "reduction   16x16") && strstr(said, "(round 1 of 3; the table has all)"));
    snprintf(cmd, sizeof cmd, "NO_COLOR=1 %s run --op reduction --sizes 16 --dtype float32 --backend cpu --no-peak "
                              "--reps 3 --rounds 1 --out %s --force 2>&1", gb_test_binary(), res);
    CHECK(gb_test_sh(cmd, said, sizeof said) == 0);
    CHECK(strstr(said, "reduction   16x16") && !strstr(said, "round 1 of"));
}

/* Columns of a line: its UTF-8 characters (the box and arrow glyphs are one
 * column each), escape sequences and the carriage returns of a pty left out. */
static size_t widest_line(const char *s, size_t *lines_out) {
    size_t widest = 0, col = 0, lines = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\033') { /* CSI ... letter */
            while (p[1] && !((p[1] >= 'A' && p[1] <= 'Z') || (p[1] >= 'a' && p[1] <= 'z'))) p++;
            if (p[1]) p++;
            continue;
        }
        if (*p == '\n') {
            lines++;
            col = 0;
            continue;
        }
        if (*p == '\r' || (*p & 0xC0) == 0x80) continue;
        if (++col > widest) widest = col;
    }
    if (lines_out) *lines_out = lines;
    return widest;
}

/* Every message within 100 columns on a terminal, one line a message when
 * piped (#47, #44): compare's header and warnings, run's warnings, info,
 * list, each through a pseudo-terminal (`script`) and through a pipe. */
TEST(first_hour_messages_keep_to_100_columns_on_a_terminal_and_one_line_piped) {
    if (gb_test_sh("command -v script", NULL, 0) != 0) {
        SKIP("no script(1) to give the commands a terminal");
        return;
    }
    static char said[1 << 16];
    static const char *const cmds[] = {
        "compare results/reference/quick-h100-run1.json results/reference/quick-h100-run2.json",
        "info", "list", "report tests/data/results_peer_small.json",
    };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd, "NO_COLOR=1 script -qec 'stty cols 100 2>/dev/null; %s %s' /dev/null",
                 gb_test_binary(), cmds[i]);
        gb_test_sh(cmd, said, sizeof said);
        size_t lines = 0, w = widest_line(said, &lines);
        if (!CHECK(lines > 3 && w <= 100)) fprintf(stderr, "    %s on a terminal: %zu columns\n", cmds[i], w);
    }
    /* piped: each of compare's warnings one line, whole */
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "%s compare results/reference/quick-h100-run1.json results/reference/quick-h100-run2.json "
                              "| grep '^!! WARNING: ' | grep -c 'differ.*the machine itself'", gb_test_binary());
    gb_test_sh(cmd, said, sizeof said);
    CHECK(atoi(said) >= 1);
}
