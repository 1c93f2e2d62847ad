/* test_report.c — report rendering in every format, colour, `gpubench
 * report` errors, the per-case lines and --pair, on the fixtures in
 * tests/data/ (the crossover: test_report_crossover.c; the plots:
 * test_report_plot.c). */
#include <fcntl.h>
#include <math.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "format.h"
#include "gb.h"
#include "plot.h"
#include "report.h"
#include "results_io.h"
#include "results_model.h"
#include "testlib.h"

#define FIX_H100 "tests/data/results_h100.json"
#define FIX_CPU "tests/data/results_cpu_only.json"

/* Render a fixture into a malloc'd string (caller frees); NULL on failure. */
static char *render_opts(const char *path, gb_format f, const char *ops, int color, int wide) {
    gb_err e = {{0}};
    gb_results doc;
    if (gb_results_load(path, &doc, &e) != GB_OK) {
        fprintf(stderr, "    %s\n", e.msg);
        return NULL;
    }
    CHECK(gb_crossover_update(&doc, &e) == GB_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    gb_report_options o = {.format = f, .ops = ops, .color = color, .wide = wide};
    int rc = gb_report_render(&doc, &o, out);
    fclose(out);
    gb_results_free(&doc);
    if (rc != 0) {
        free(buf);
        return NULL;
    }
    return buf;
}
static char *render(const char *path, gb_format f, const char *ops, int color) {
    return render_opts(path, f, ops, color, 0);
}

/* Run gpubench report in this process with stdout+stderr captured. */
static int run_report(char *captured, size_t cap, int argc, ...) {
    char *argv[16];
    va_list ap;
    va_start(ap, argc);
    for (int i = 0; i < argc && i < 15; i++) argv[i] = va_arg(ap, char *);
    va_end(ap);
    argv[argc] = NULL;
    char tmpl[] = "/tmp/gb_test_report_XXXXXX";
    int fd = mkstemp(tmpl);
    if (fd < 0) return -1;
    fflush(stdout);
    fflush(stderr);
    int save1 = dup(1), save2 = dup(2);
    dup2(fd, 1);
    dup2(fd, 2);
    int rc = gb_cmd_report(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(save1, 1);
    dup2(save2, 2);
    close(save1);
    close(save2);
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, captured, cap - 1);
    captured[n > 0 ? n : 0] = '\0';
    close(fd);
    unlink(tmpl);
    return rc;
}

/* ---- formats --------------------------------------------------------------- */

TEST(report_table_has_columns_speedups_and_notes) {
    char *s = render_opts(FIX_H100, GB_FMT_TABLE, NULL, 0, 1);
    CHECK(s != NULL);
    if (!s) return;
    CHECK(strstr(s, "CPU ms") && strstr(s, "GPU ms dev") && strstr(s, "GPU ms e2e"));
    CHECK(strstr(s, "speedup dev") && strstr(s, "CPU GFLOP/s") && strstr(s, "GPU %peak"));
    CHECK(strstr(s, "GB/s"));                        /* elementwise is judged in GB/s */
    CHECK(strstr(s, "12.8×"));                       /* matmul 8192 float32: 286 ms / 22.4 ms */
    CHECK(strstr(s, "0.15×"));                       /* matmul 128 float32: the CPU wins */
    CHECK(strstr(s, "95% confidence"));              /* the spread is named (the paragraph wraps) */
    CHECK(strstr(s, "skipped¹") && strstr(s, "workspace of 12.9 GB"));
    CHECK(strstr(s, "✗ FAILED") && strstr(s, "max_rel_err"));
    CHECK(strstr(s, "Crossover") && strstr(s, "the CPU wins at every size tested, from 100 to 10000"));
    CHECK(strstr(s, "NVIDIA H100 80GB HBM3") && strstr(s, "48 threads"));
    CHECK(strchr(s, '\033') == NULL);                /* colour off */
    free(s);
}

TEST(report_single_repetition_says_so_instead_of_an_interval) {
    /* One sample (a huge case, cut by max_time_s) has ci95 bounds equal to
     * it: printing "± <1" would claim a precision nobody measured. */
    gb_err e = {{0}};
    gb_results doc;
    CHECK(gb_results_load(FIX_CPU, &doc, &e) == GB_OK);
    if (doc.ncases == 0) return;
    gb_result_stats *st = &doc.cases[0].results[0].stats;
    st->n = 1;
    st->ci95_low = st->ci95_high = st->median;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    gb_report_options o = {.format = GB_FMT_TABLE};
    CHECK(gb_report_render(&doc, &o, out) == 0);
    fclose(out);
    const char *at = buf ? strstr(buf, "(1 rep)") : NULL;
    CHECK(at != NULL);
    if (at) { /* and no ± on that line */
        const char *start = at, *end = strchr(at, '\n');
        while (start > buf && start[-1] != '\n') start--;
        const char *pm = strstr(start, "±");
        CHECK(!pm || (end && pm > end));
    }
    free(buf);
    gb_results_free(&doc);
}

TEST(report_table_columns_align) {
    char *s = render_opts(FIX_H100, GB_FMT_TABLE, "matmul", 0, 1);
    CHECK(s != NULL);
    if (!s) return;
    /* Every row of the matmul table has the display width of the rule under its header. */
    char *rule = strstr(s, "──");
    CHECK(rule != NULL);
    if (!rule) { free(s); return; }
    char *eol = strchr(rule, '\n');
    size_t width = 0;
    for (char *p = rule; p < eol; p++) width += ((unsigned char)*p & 0xC0) != 0x80;
    int rows = 0;
    for (char *line = eol + 1; *line && *line != '\n' && line[0] != ' ';) {
        char *end = strchr(line, '\n');
        size_t w = 0;
        for (char *p = line; p < end; p++) w += ((unsigned char)*p & 0xC0) != 0x80;
        /* The last (left-aligned "check") column is not padded: rows may be shorter. */
        CHECK(w <= width && w + 20 >= width);
        rows++;
        line = end + 1;
    }
    CHECK(rows == 11);
    free(s);
}

static int count_pipes(const char *line, const char *end) {
    int n = 0;
    for (const char *p = line; p < end; p++)
        if (*p == '|' && (p == line || p[-1] != '\\')) n++;
    return n;
}

TEST(report_markdown_tables_are_well_formed) {
    char *s = render(FIX_H100, GB_FMT_MD, NULL, 0);
    CHECK(s != NULL);
    if (!s) return;
    CHECK(strstr(s, "### matmul\n") && strstr(s, "### svd\n") && strstr(s, "### Crossover"));
    CHECK(strstr(s, "_CPU: AMD EPYC 9454 48-Core Processor (48 threads) · GPU: NVIDIA H100 80GB HBM3"));
    CHECK(strstr(s, "| 12.8× |"));
    CHECK(strstr(s, "**✗ FAILED**"));
    /* Within each table, every row has as many pipes as the header. */
    int tables = 0, bad = 0, expect = -1;
    for (char *line = s; *line;) {
        char *end = strchr(line, '\n');
        if (!end) end = line + strlen(line);
        if (*line == '|') {
            int n = count_pipes(line, end);
            if (expect < 0) { expect = n; tables++; }
            else if (n != expect) bad++;
        } else {
            expect = -1;
        }
        line = *end ? end + 1 : end;
    }
    CHECK(tables == 7);  /* 6 ops + crossover */
    CHECK(bad == 0);
    CHECK(strchr(s, '\033') == NULL);
    free(s);
}

/* Fields of one CSV record (RFC 4180 quoting); advances *p past the record. */
static int csv_record(const char **p, char fields[][64], int max) {
    int n = 0, len = 0, quoted = 0;
    const char *s = *p;
    if (!*s) return -1;
    for (;; s++) {
        if (quoted) {
            if (*s == '"' && s[1] == '"') { if (len < 63) fields[n][len++] = '"'; s++; }
            else if (*s == '"') quoted = 0;
            else if (!*s) break;
            else if (len < 63) fields[n][len++] = *s;
            continue;
        }
        if (*s == '"') { quoted = 1; continue; }
        if (*s == ',' || *s == '\r' || *s == '\n' || !*s) {
            if (n < max) fields[n][len] = '\0';
            n++;
            len = 0;
            if (*s == ',') continue;
            if (*s == '\r') s++;
            if (*s) s++;
            break;
        }
        if (n < max && len < 63) fields[n][len++] = *s;
    }
    *p = s;
    return n;
}

TEST(report_csv_has_constant_columns) {
    char *s = render(FIX_H100, GB_FMT_CSV, NULL, 0);
    CHECK(s != NULL);
    if (!s) return;
    CHECK(!strncmp(s, "record,op,label,shape,size,dtype,params,", 40));
    static char f[64][64];
    const char *p = s;
    int ncols = csv_record(&p, f, 64), rows = 0, crossover = 0, sp_col = -1, found = 0;
    for (int i = 0; i < ncols; i++)
        if (!strcmp(f[i], "speedup_device")) sp_col = i;
    CHECK(ncols > 20 && sp_col > 0);
    int n;
    while ((n = csv_record(&p, f, 64)) >= 0) {
        CHECK(n == ncols);
        rows++;
        if (!strcmp(f[0], "crossover")) crossover++;
        if (!strcmp(f[0], "case") && !strcmp(f[2], "8192x8192x8192") && !strcmp(f[5], "float32") &&
            !strcmp(f[6], "math=default")) {
            found = 1;
            CHECK_NEAR(atof(f[sp_col]), 12.79, 0.01);
        }
    }
    CHECK(found);
    CHECK(rows == 26 + crossover && crossover == 16);
    free(s);
}

TEST(report_html_is_a_page_with_the_tables) {
    char *s = render(FIX_H100, GB_FMT_HTML, NULL, 0);
    CHECK(s != NULL);
    if (!s) return;
    CHECK(!strncmp(s, "<!DOCTYPE html>", 15));
    CHECK(strstr(s, "<meta charset=\"utf-8\">") && strstr(s, "<style>"));
    CHECK(strstr(s, "</html>\n"));
    int tables = 0;
    for (const char *p = s; (p = strstr(p, "<table>")); p++) tables++;
    CHECK(tables == 7);
    CHECK(strstr(s, ">12.8×</td>"));
    CHECK(strstr(s, "class=\"num bad\">failed"));
    CHECK(!strstr(s, "http"));  /* self-contained: nothing fetched */
    /* the title names the suite, the host and the GPU; tables scroll in their box */
    CHECK(strstr(s, "<title>gpubench: ") && strstr(s, "NVIDIA H100 80GB HBM3)</title>"));
    CHECK(strstr(s, "<div class=\"scroll\"><table>") && strstr(s, ".scroll{overflow-x:auto"));
    /* a time and a speedup chart per op, inline SVG with the 1× line; matmul's
     * (three variants, eight or nine series each) one chart per variant */
    int charts = 0;
    for (const char *p = s; (p = strstr(p, "<svg class=\"chart\"")); p++) charts++;
    CHECK(charts == 16); /* 5 ops × 2 + matmul 3 variants × 2 */
    CHECK(strstr(s, "fft: median time") && strstr(s, "fft: speedup") && strstr(s, "1× (same speed)"));
    CHECK(strstr(s, "<title>matmul float32 math=tf32: median time</title>") &&
          strstr(s, "<title>matmul float64 math=default: speedup (CPU median / GPU median)</title>"));
    CHECK(!strstr(s, "<title>matmul: median time</title>"));
    CHECK(strstr(s, "<polyline") && strstr(s, "Crossover"));
    free(s);
    /* a CPU-only run: its time charts, no speedup chart, and its warnings */
    s = render(FIX_CPU, GB_FMT_HTML, NULL, 0);
    CHECK(s && strstr(s, "CPU only)</title>") && strstr(s, ": median time") && !strstr(s, ": speedup (CPU"));
    CHECK(s && strstr(s, "class=\"warnings\"") && strstr(s, "powersave"));
    free(s);
}

/* Each op's footnotes sit in one box with its table, before its charts. */
TEST(report_html_footnotes_sit_with_their_table) {
    char *s = render(FIX_H100, GB_FMT_HTML, "solve,svd", 0);
    CHECK(s != NULL);
    if (!s) return;
    int boxes = 0;
    for (const char *op = strstr(s, "<h2>"); op; op = strstr(op + 1, "<h2>")) {
        const char *next = strstr(op + 1, "<h2>"), *box = strstr(op, "<div class=\"optable\">");
        const char *table_end = box ? strstr(box, "</table>") : NULL;
        const char *notes = table_end ? strstr(table_end, "<ul class=\"notes\">") : NULL;
        const char *charts = strstr(op, "<div class=\"charts\">");
        if (next && (!box || box > next)) continue; /* a section without a table (crossover) */
        if (!next && !box) break;
        boxes++;
        /* table, then its notes (¹ …) closing the box, then the charts */
        CHECK(table_end && notes && charts && notes < charts);
        CHECK(notes && strstr(notes, "<li>¹ ") && strstr(notes, "</ul>\n</div>\n<div class=\"charts\">") ==
                                                      strstr(notes, "</ul>"));
    }
    CHECK(boxes == 2);
    free(s);
}

/* Series that coincide (a host result shared between cases that differ only
 * in what the accelerator reads) are one line in the HTML chart, and its
 * legend says so; series apart stay apart. */
TEST(report_html_draws_coinciding_series_once) {
    char dir[] = "/tmp/gb_test_coincide_XXXXXX", path[128], cmd[1536];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(path, sizeof path, "%s/r.json", dir);
    /* two fft variants of the CPU-only fixture, one with its times copied
     * into the other: identical; a third 30% slower: apart */
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c \"import json,copy;d=json.load(open('%s'));"
             "f=[c for c in d['cases'] if c['op']=='fft'];a=[copy.deepcopy(c) for c in f];b=[copy.deepcopy(c) for c in f]\n"
             "for c in a: c['params']=dict(c.get('params') or {},kind='c2c')\n"
             "for c in b:\n c['params']=dict(c.get('params') or {},kind='slow')\n"
             " for r in c['results']:\n  st=r.get('stats') or {}\n"
             "  for k in ('median','ci95_low','ci95_high'):\n   st[k]=st[k]*1.3 if isinstance(st.get(k),float) else st.get(k)\n"
             "d['cases']=f+a+b;d.pop('crossover',None);json.dump(d,open('%s','w'))\"",
             FIX_CPU, path);
    if (gb_test_sh(cmd, NULL, 0) != 0) {
        SKIP("no /usr/bin/python3 to make the fixture");
        return;
    }
    char *s = render(path, GB_FMT_HTML, "fft", 0);
    CHECK(s && strstr(s, "(identical)"));
    int lines = 0;
    const char *chart = s ? strstr(s, "<title>fft: median time</title>") : NULL;
    const char *end = chart ? strstr(chart, "</svg>") : NULL;
    for (const char *p = chart; p && p < end && (p = strstr(p, "<polyline")) && p < end; p++) lines++;
    CHECK(lines == 2); /* the original and its copy as one, the slow one apart */
    free(s);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    gb_test_sh(cmd, NULL, 0);
}

TEST(report_op_filter_and_cpu_only) {
    char *s = render(FIX_CPU, GB_FMT_TABLE, "fft,svd", 0);
    CHECK(s != NULL);
    if (!s) return;
    CHECK(strstr(s, "GPU columns are omitted"));
    CHECK(!strstr(s, "GPU ms dev"));
    CHECK(strstr(s, "\nfft\n") && strstr(s, "\nsvd\n") && !strstr(s, "\nmatmul\n"));
    CHECK(!strstr(s, "Crossover")); /* a CPU-only run has no crossover section to say so in (#47) */
    CHECK(strstr(s, "powersave"));  /* the run's warnings are shown */
    free(s);
    s = render(FIX_CPU, GB_FMT_MD, NULL, 0);
    CHECK(s && strstr(s, "| size | dtype |") && !strstr(s, "speedup"));
    free(s);
}

TEST(report_merged_file_has_a_run_column) {
    char *s = render("tests/data/results_merged.json", GB_FMT_TABLE, NULL, 0);
    CHECK(s != NULL);
    if (!s) return;
    CHECK(strstr(s, "\nrun ") && strstr(s, "\nh100 ") && strstr(s, "\nlaptop "));
    CHECK(strstr(s, "Run h100") && strstr(s, "Run laptop") && strstr(s, "i7-1165G7"));
    CHECK(strstr(s, "matmul (h100)"));  /* crossover per run */
    free(s);
}

/* ---- colour ---------------------------------------------------------------- */

TEST(report_colour_only_when_asked_and_on_a_terminal) {
    char *s = render(FIX_H100, GB_FMT_TABLE, "matmul,solve", 1);
    CHECK(s && strstr(s, "\033[32m12.8×\033[0m"));  /* GPU wins: green */
    CHECK(s && strstr(s, "\033[33m0.15×\033[0m"));  /* CPU wins: yellow */
    CHECK(s && strstr(s, "\033[1;31m✗ FAILED"));    /* failures: red */
    free(s);
    /* Colour never leaks into the other formats. */
    s = render(FIX_H100, GB_FMT_MD, NULL, 1);
    CHECK(s && !strchr(s, '\033'));
    free(s);

    FILE *f = tmpfile();
    unsetenv("NO_COLOR");
    CHECK(!gb_report_want_color(f));  /* not a terminal */
    fclose(f);
    int master = posix_openpt(O_RDWR | O_NOCTTY);
    if (master < 0 || grantpt(master) || unlockpt(master)) {
        SKIP("no pseudo-terminal available to check the terminal case");
        if (master >= 0) close(master);
        return;
    }
    FILE *tty = fopen(ptsname(master), "w");
    CHECK(tty != NULL);
    if (tty) {
        CHECK(gb_report_want_color(tty));
        setenv("NO_COLOR", "1", 1);
        CHECK(!gb_report_want_color(tty));
        setenv("NO_COLOR", "", 1);  /* no-color.org: only a non-empty value disables */
        CHECK(gb_report_want_color(tty));
        unsetenv("NO_COLOR");
        fclose(tty);
    }
    close(master);
}

TEST(report_command_on_a_pipe_has_no_escape_codes) {
    static char out[1 << 18];
    unsetenv("NO_COLOR");
    int rc = run_report(out, sizeof out, 4, "report", "--op", "matmul,fft", FIX_H100);
    CHECK(rc == GB_EXIT_OK);
    CHECK(strstr(out, "12.8×") && !strchr(out, '\033'));
    CHECK(strstr(out, "\nfft\n") && !strstr(out, "\nsvd\n"));
}

/* ---- errors ------------------------------------------------------------------ */

TEST(report_command_rejects_bad_input_with_exit_2) {
    static char out[1 << 16];
    int rc = run_report(out, sizeof out, 2, "report", "tests/data/no_such_results.json");
    CHECK(rc == GB_EXIT_USAGE);
    CHECK(strstr(out, "tests/data/no_such_results.json") && strstr(out, "cannot open"));

    char path[] = "/tmp/gb_test_bad_json_XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0 && write(fd, "{\"schema\": \"gpubench-results\",\n  \"cases\": [", 42) == 42);
    close(fd);
    rc = run_report(out, sizeof out, 2, "report", path);
    CHECK(rc == GB_EXIT_USAGE);
    CHECK(strstr(out, path) && strstr(out, "JSON"));
    unlink(path);

    rc = run_report(out, sizeof out, 2, "report", "tests/data/not_results.json");
    CHECK(rc == GB_EXIT_USAGE);
    CHECK(strstr(out, "tests/data/not_results.json: not a gpubench results file"));

    rc = run_report(out, sizeof out, 4, "report", "--op", "matmull", FIX_H100);
    CHECK(rc == GB_EXIT_USAGE && strstr(out, "\"matmull\"") && strstr(out, "matmul, elementwise"));
    rc = run_report(out, sizeof out, 4, "report", "--format", "pdf", FIX_H100);
    CHECK(rc == GB_EXIT_USAGE && strstr(out, "pdf"));
    rc = run_report(out, sizeof out, 1, "report");
    CHECK(rc == GB_EXIT_USAGE);
    rc = run_report(out, sizeof out, 2, "report", "--help");
    CHECK(rc == GB_EXIT_OK && strstr(out, "--format"));
}

/* The per-case lines of the H100 fixture's cases idx[0..n), as printed. */
static char *case_lines(const int *idx, int n) {
    gb_err e = {{0}};
    gb_results model;
    CHECK(gb_results_load(FIX_H100, &model, &e) == GB_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    for (int i = 0; i < n; i++) {
        CHECK((size_t)idx[i] < model.ncases);
        if ((size_t)idx[i] < model.ncases) gb_report_case(&model, &model.cases[idx[i]], NULL, out);
    }
    fclose(out);
    gb_results_free(&model);
    return buf;
}

TEST(report_case_line_is_compact) {
    const int idx[] = {3, 22}; /* matmul 8192 float32; solve 2048: GPU failed */
    char *buf = case_lines(idx, 2);
    if (!buf) return;
    CHECK(strstr(buf, "matmul") && strstr(buf, "8192x8192x8192") && strstr(buf, "float32"));
    CHECK(strstr(buf, "cpu 286 ms") && strstr(buf, "12.8× dev") && strstr(buf, "✓\n"));
    CHECK(strstr(buf, "solve") && strstr(buf, "gpu dev failed") && strstr(buf, "✗ FAILED"));
    int lines = 0;
    for (char *p = buf; *p; p++) lines += *p == '\n';
    CHECK(lines == 3); /* the two cases, and why solve's GPU side failed, once for both timings */
    CHECK(strstr(buf, "\n    cuda failed: "));
    free(buf);
}

/* Two variants of one shape read apart: the line names the params; a
 * skipped side says why on a line of its own, not "skipped  skipped". */
TEST(report_case_line_names_params_and_why_skipped) {
    const int idx[] = {2, 6, 25}; /* matmul 2048 float32 default and tf32; svd 10000x1000: the GPU skipped */
    char *buf = case_lines(idx, 3);
    if (!buf) return;
    CHECK(strstr(buf, "math=default") && strstr(buf, "math=tf32") && strstr(buf, "method=auto"));
    const char *svd = strstr(buf, "svd");
    CHECK(svd && strstr(svd, "gpu dev skipped") && strstr(svd, "\n    cuda skipped: "));
    CHECK(strstr(buf, "skipped  skipped") == NULL);
    free(buf);
}

TEST(report_prints_an_ops_note_under_its_table_only) {
    char suite[64], results[64], cmd[512];
    snprintf(suite, sizeof suite, "/tmp/gb_note_suite_%d.json", (int)getpid());
    snprintf(results, sizeof results, "/tmp/gb_note_results_%d.json", (int)getpid());
    FILE *f = fopen(suite, "w");
    CHECK(f != NULL);
    if (!f) return;
    fputs("{\"name\":\"note\",\"defaults\":{\"dtypes\":[\"float32\"],\"warmup\":1,\"min_reps\":2,\"min_time_s\":0,"
          "\"max_time_s\":1,\"rounds\":1},\"benchmarks\":[{\"op\":\"matmul\",\"sizes\":[16]},"
          "{\"op\":\"transfer\",\"sizes\":[\"4KiB\"]}]}",
          f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s run %s --backend cpu --no-peak --quiet --out %s", gb_test_binary(), suite, results);
    CHECK(gb_test_sh(cmd, NULL, 0) == 0);
    char *md = render(results, GB_FMT_MD, NULL, 0);
    CHECK(md != NULL);
    if (md) {
        const char *note = strstr(md, "slower than a local copy"), *tr = strstr(md, "### transfer"),
                   *mm = strstr(md, "### matmul");
        CHECK(note && tr && mm && note > tr);
        CHECK(note && strstr(note + 1, "slower than a local copy") == NULL); /* once */
        /* matmul's section comes first: a note after "### transfer" is not under matmul's table */
        CHECK(mm && tr && mm < tr);
        free(md);
    }
    remove(suite);
    remove(results);
}

/* The default terminal report keeps every line to 100 columns (wide
 * columns dropped and named, sentences wrapped) and prints the spread of a
 * median as its interval, never as a symmetric ±. */
static void check_fits(const char *s, size_t max) {
    for (const char *line = s; *line;) {
        const char *end = strchr(line, '\n');
        if (!end) end = line + strlen(line);
        size_t w = 0;
        for (const char *p = line; p < end; p++) w += ((unsigned char)*p & 0xC0) != 0x80;
        if (w > max) fprintf(stderr, "\n    %zu columns: %.*s", w, (int)(end - line), line);
        CHECK(w <= max);
        line = *end ? end + 1 : end;
    }
}

TEST(report_table_fits_100_columns_unless_wide) {
    const char *files[] = {FIX_H100, "results/reference/default-h100-newcomer.json", FIX_CPU};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char *s = render(files[i], GB_FMT_TABLE, NULL, 0);
        CHECK(s != NULL);
        if (!s) continue;
        check_fits(s, 100);
        CHECK(strstr(s, "±") == NULL);
        free(s);
    }
    char *s = render(FIX_H100, GB_FMT_TABLE, "matmul", 0);
    CHECK(s && strstr(s, "+") && strstr(s, "%/−"));           /* "2.27  +15%/−7.0%" */
    CHECK(s && strstr(s, "not shown, to fit 100 columns") && strstr(s, "--wide"));
    free(s);
    s = render_opts(FIX_H100, GB_FMT_TABLE, "matmul", 0, 1);
    CHECK(s && strstr(s, "GPU %peak") && strstr(s, "GPU ms e2e"));
    CHECK(s && strstr(s, "±") == NULL && strstr(s, " ["));   /* "2.27 [2.11, 2.61]" */
    free(s);
}

/* ---- across machines ---------------------------------------------------------- */

/* One machine's CPU against another's GPU: the CPU-only fixture's CPU
 * against the H100 fixture's GPU, case by case, with the speedup between
 * the two files' medians. */
TEST(report_pair_cpu_of_one_file_against_gpu_of_another) {
    gb_err e = {{0}};
    gb_results cpu, gpu;
    CHECK(gb_results_load(FIX_CPU, &cpu, &e) == GB_OK);
    CHECK(gb_results_load(FIX_H100, &gpu, &e) == GB_OK);
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    gb_report_options o = {.format = GB_FMT_MD};
    CHECK(gb_report_pair(&cpu, FIX_CPU, &gpu, FIX_H100, &o, out) == 0);
    fclose(out);
    CHECK(buf && strstr(buf, "the CPU of") && strstr(buf, "against the GPU of"));
    CHECK(buf && strstr(buf, "cases compared"));
    /* every row's speedup is that CPU's median over this GPU's: find one case
     * on both and check its figure */
    const gb_case_result *g = NULL, *c = NULL;
    for (size_t i = 0; i < gpu.ncases && !c; i++)
        for (size_t j = 0; j < cpu.ncases && !c; j++)
            if (!strcmp(gpu.cases[i].op, cpu.cases[j].op) && !strcmp(gpu.cases[i].dtype, cpu.cases[j].dtype) &&
                gb_shape_equal(&gpu.cases[i], &cpu.cases[j]) &&
                gb_kvlist_equal(&gpu.cases[i].params, &cpu.cases[j].params) &&
                cpu.cases[j].results[0].status == GB_RS_OK && gpu.cases[i].nresults > 1 &&
                gpu.cases[i].results[1].status == GB_RS_OK)
                g = &gpu.cases[i], c = &cpu.cases[j];
    CHECK(c != NULL);
    if (c && buf) {
        double sp = c->results[0].stats.median / g->results[1].stats.median;
        char want[32];
        if (sp >= 100) snprintf(want, sizeof want, "| %.0f× |", sp);
        else if (sp >= 10) snprintf(want, sizeof want, "| %.1f× |", sp);
        else snprintf(want, sizeof want, "| %.2f× |", sp);
        CHECK(strstr(buf, want) != NULL);
        CHECK(strstr(buf, g->label) != NULL);
    }
    free(buf);
    gb_results_free(&cpu);
    gb_results_free(&gpu);
    /* the command: two files needed */
    static char cap[1 << 16];
    CHECK(run_report(cap, sizeof cap, 4, "report", FIX_CPU, FIX_H100, "--pair") == 0);
    CHECK(strstr(cap, "cases compared") != NULL);
    CHECK(run_report(cap, sizeof cap, 3, "report", FIX_CPU, "--pair") == 2);
    CHECK(strstr(cap, "two results files with --pair") != NULL);
}

/* A 4 KiB copy of 40 ns, every sample equal at the clock's step, printed
 * "+0.0%/−0.0%": an interval of no width says "(clock step)" in both
 * formats, and one of some width keeps its figures. */
TEST(report_an_interval_of_no_width_says_clock_step) {
    char buf[64], spread[32];
    gb_fmt_median(buf, sizeof buf, spread, sizeof spread, 4e-8, 4e-8, 4e-8, 1000, 1);
    CHECK(!strcmp(spread, "(clock step)") && !strcmp(buf, "0.0000400"));
    gb_fmt_median(buf, sizeof buf, NULL, 0, 4e-8, 4e-8, 4e-8, 1000, 0);
    CHECK(!strcmp(buf, "0.0000400 (clock step)"));
    gb_fmt_median(buf, sizeof buf, spread, sizeof spread, 5.15e-7, 5.11e-7, 5.31e-7, 1000, 1);
    CHECK(!strcmp(spread, "+3.1%/−0.8%"));
    gb_fmt_median(buf, sizeof buf, spread, sizeof spread, 4e-8, NAN, NAN, 1, 1);
    CHECK(!strcmp(spread, "(1 rep)"));
}

/* A narrow table's size: a cube or a square in a third of the width, any
 * other label (a skinny shape, a byte size, digits past the buffer, a label
 * that is not a shape at all) as it is. */
TEST(report_narrow_label_shortens_cubes_and_squares_only) {
    char buf[64];
    const char *cases[][2] = {{"1024x1024x1024", "1024³"}, {"512x512", "512²"}, {"32x4096x4096", "32x4096x4096"},
                              {"4KiB", "4KiB"}, {"1000", "1000"}, {"x", "x"}, {"", ""},
                              {"12x12x12x", "12x12x12x"}, {"123456789012345678901234567x1", "123456789012345678901234567x1"},
                              {"batch=8 64x64x64", "batch=8 64x64x64"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        gb_fmt_label_short(buf, sizeof buf, cases[i][0]);
        if (!CHECK(!strcmp(buf, cases[i][1]))) fprintf(stderr, "    %s -> %s\n", cases[i][0], buf);
    }
}

/* The framework peers (#46 part 3): each peer result a row of the
 * frameworks section with what it leaves on the table (its time over the
 * library's on the same side, computed here from the file), the skipped
 * ones in a sentence, a "peer" record each in the CSV; a peer never takes
 * the CPU's column, even where the CPU result is missing. */
#define FIX_PEERS "tests/data/results_peers_cpu.json"
TEST(report_peers_are_rows_of_their_own_beside_the_library) {
    gb_err e = {{0}};
    gb_results doc;
    if (!CHECK(gb_results_load(FIX_PEERS, &doc, &e) == GB_OK)) return;
    const gb_case_result *mm = &doc.cases[0];
    double cpu = NAN, numpy = NAN;
    for (size_t i = 0; i < mm->nresults; i++) {
        if (!strcmp(mm->results[i].backend, "cpu")) cpu = mm->results[i].stats.median;
        if (!strcmp(mm->results[i].backend, "numpy")) numpy = mm->results[i].stats.median;
    }
    gb_results_free(&doc);
    if (!CHECK(cpu > 0 && numpy > 0)) return;
    char want[64], ratio[32];
    gb_fmt_speedup(ratio, sizeof ratio, numpy / cpu);
    snprintf(want, sizeof want, "numpy cpu");
    char *s = render(FIX_PEERS, GB_FMT_TABLE, NULL, 0);
    const char *sec = s ? strstr(s, "Frameworks beside the libraries") : NULL;
    CHECK(sec && strstr(sec, want) && strstr(sec, ratio) && strstr(sec, "Not timed: scipy matmul (scipy: "));
    free(s);
    s = render(FIX_PEERS, GB_FMT_MD, NULL, 0);
    CHECK(s && strstr(s, "| op | size | dtype | framework | ms | ÷ library |"));
    free(s);
    s = render(FIX_PEERS, GB_FMT_CSV, NULL, 0);
    CHECK(s && strstr(s, ",peer,peer_vs_library") && strstr(s, "\npeer,matmul,64x64x64,"));
    free(s);
    /* without the CPU's result, NumPy's time stays out of the CPU column */
    const char *nocpu = gb_test_tmp("peers_nocpu.json");
    char cmd[512];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 -c \"import json; d=json.load(open('%s'));"
                              "[c.__setitem__('results', [r for r in c['results'] if r['backend'] != 'cpu']) for c in d['cases']];"
                              "json.dump(d, open('%s', 'w'))\"", FIX_PEERS, nocpu);
    if (!CHECK(gb_test_sh(cmd, NULL, 0) == 0)) return;
    s = render(nocpu, GB_FMT_CSV, NULL, 0);
    CHECK(s && strstr(s, "\ncase,matmul,64x64x64,\"[64,64,64]\",64,float32,math=default,flops,GFLOP/s,,,"));
    free(s);
}
