/* test_report_plot.c — `gpubench report --plot` and the plot script
 * (scripts/plot.py): the files it writes, what it says when something is
 * missing, several files overlaid. */
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "gb.h"
#include "plot.h"
#include "report.h"
#include "results_io.h"
#include "results_model.h"
#include "testlib.h"

#define FIX_H100 "tests/data/results_h100.json"
#define FIX_CPU "tests/data/results_cpu_only.json"

/* ---- plots ------------------------------------------------------------------- */

static int file_starts_with(const char *path, const void *magic, size_t n) {
    unsigned char buf[16] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t got = fread(buf, 1, n, f);
    fclose(f);
    return got == n && memcmp(buf, magic, n) == 0;
}

static int file_contains(const char *path, const char *needle) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, needle) != NULL;
}

TEST(plot_script_writes_png_and_svg) {
    char python[PATH_MAX];
    gb_err e = {{0}};
    const char *why = e.msg;
    if (gb_plot_find_python(python, sizeof python, &e) != GB_OK) {
        SKIP(why);
        return;
    }
    char dir[] = "/tmp/gb_test_plots_XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char out_png[PATH_MAX], out_svg[PATH_MAX], p[PATH_MAX + 64], cmd[3 * PATH_MAX];
    snprintf(out_png, sizeof out_png, "%s/png", dir);
    snprintf(out_svg, sizeof out_svg, "%s/svg", dir);
    /* PNG through gpubench's own launcher (script found from the build tree)… */
    fflush(stderr);
    int save2 = dup(2), devnull = open("/dev/null", O_WRONLY);
    dup2(devnull, 2);  /* the script's "wrote ..." lines */
    int st = gb_plot_run_from(".", "tests/data/results_small.json", out_png, "png", NULL, &e);
    dup2(save2, 2);
    close(save2);
    close(devnull);
    if (st) fprintf(stderr, "    %s\n", why);
    CHECK(st == 0);
    static const unsigned char png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    snprintf(p, sizeof p, "%s/matmul_float32.png", out_png);
    CHECK(file_starts_with(p, png, 8));
    snprintf(p, sizeof p, "%s/overview.png", out_png);
    CHECK(file_starts_with(p, png, 8));
    /* …and SVG of a CPU-only run straight from the script (no crash, just less). */
    char log[2048];
    snprintf(cmd, sizeof cmd, "%s scripts/plot.py tests/data/results_small_cpu_only.json --out %s --format svg",
             python, out_svg);
    CHECK(gb_test_sh(cmd, log, sizeof log) == 0);
    snprintf(p, sizeof p, "%s/matmul_float32.svg", out_svg);
    CHECK(file_contains(p, "<svg") && file_contains(p, "i7-1165G7"));
    snprintf(p, sizeof p, "%s/overview.svg", out_svg);
    CHECK(file_contains(p, "<svg"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    gb_test_sh(cmd, NULL, 0);
}

TEST(plot_says_what_is_missing) {
    char path[PATH_MAX];
    gb_err e = {{0}};
    const char *why = e.msg;
    setenv("GPUBENCH_PYTHON", "/nonexistent/python3", 1);
    int st = gb_plot_run_from(".", "tests/data/results_small.json", "/tmp/gb_never_written", "png", NULL, &e);
    unsetenv("GPUBENCH_PYTHON");
    CHECK(st == GB_SKIP);
    CHECK(strstr(why, "GPUBENCH_PYTHON=/nonexistent/python3 cannot be run") && strstr(why, "matplotlib"));
    st = gb_plot_run_from("/nonexistent-dir", "x.json", "/tmp/x", "png", NULL, &e);
    CHECK(st == GB_SKIP && strstr(why, "scripts/plot.py not found") &&
          strstr(why, "/nonexistent-dir/../share/gpubench/scripts/plot.py"));
    CHECK(gb_plot_run_from(".", "x.json", "/tmp/x", "pdf", NULL, &e) == GB_FAIL);

    /* Search order: build tree, then bundle, then install prefix. */
    char root[] = "/tmp/gb_test_find_XXXXXX", cmd[512];
    CHECK(mkdtemp(root) != NULL);
    snprintf(cmd, sizeof cmd,
             "mkdir -p %1$s/bin %1$s/share/gpubench/scripts && touch %1$s/share/gpubench/scripts/plot.py", root);
    CHECK(gb_test_sh(cmd, NULL, 0) == 0);
    char bin[600], want[700];
    snprintf(bin, sizeof bin, "%s/bin", root);
    CHECK(gb_plot_find_script(bin, path, sizeof path, &e) == GB_OK);
    snprintf(want, sizeof want, "%s/share/gpubench/scripts/plot.py", root); /* bin/.. said as its folder */
    CHECK(!strcmp(path, want));
    snprintf(cmd, sizeof cmd, "mkdir -p %1$s/scripts && touch %1$s/scripts/plot.py", root);
    CHECK(gb_test_sh(cmd, NULL, 0) == 0);
    CHECK(gb_plot_find_script(bin, path, sizeof path, &e) == GB_OK);
    snprintf(want, sizeof want, "%s/scripts/plot.py", root);
    CHECK(!strcmp(path, want));
    snprintf(cmd, sizeof cmd, "rm -rf %s", root);
    gb_test_sh(cmd, NULL, 0);
}

/* An op's note from the catalogue (transfer: the CPU column is a local copy)
 * is printed under that op's table and nowhere else. */

/* Several files drawn overlaid: every run a series of its own. */
TEST(plot_several_files_overlaid) {
    char cmd[512], out[8192];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || exit 77; rm -rf build/overlay && "
             "/usr/bin/python3 scripts/plot.py %s %s --op matmul --format svg --out build/overlay 2>&1",
             FIX_CPU, FIX_H100);
    int rc = gb_test_sh(cmd, out, sizeof out);
    if (rc == 77) {
        SKIP("no matplotlib for /usr/bin/python3");
        return;
    }
    CHECK(rc == 0);
    FILE *f = fopen("build/overlay/matmul_float32.svg", "r");
    CHECK(f != NULL);
    if (!f) return;
    static char svg[1 << 21];
    size_t n = fread(svg, 1, sizeof svg - 1, f);
    svg[n] = '\0';
    fclose(f);
    /* the legend names each file's run */
    CHECK(strstr(svg, "results_cpu") && strstr(svg, "results_h100"));
}
