/* test_plot.c — scripts/plot.py on the fixtures in tests/data/: the --op and
 * --dtype filters, a CPU-only file's overview, non-square shapes as their own
 * series, and the one-line message without matplotlib. The plots' data series
 * carry SVG ids (data-<panel>-<side>-<op>-v<variant>-s<shape group>), so the
 * checks read the SVG rather than pixels. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot.h"
#include "testlib.h"

#define FIX_H100 "tests/data/results_h100.json"
#define FIX_CPU_SMALL "tests/data/results_small_cpu_only.json"

/* A Python that can import matplotlib, or SKIP with the reason. */
static int find_python(char *python, size_t len) {
    gb_err why = {{0}};
    char msg[GB_MSG_LEN + 64];
    if (gb_plot_find_python(python, len, &why) == GB_OK) return 1;
    snprintf(msg, sizeof msg, "no Python with matplotlib, plots not drawn: %s", why.msg);
    SKIP(msg);
    return 0;
}

static int exists(const char *dir, const char *name) {
    char p[PATH_MAX + 128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

static int count_files(const char *dir) {
    char cmd[PATH_MAX + 64], out[64];
    snprintf(cmd, sizeof cmd, "ls -1 %s | wc -l", dir);
    if (gb_test_sh(cmd, out, sizeof out) != 0) return -1;
    return atoi(out);
}

/* 1 if the file holds the string. */
static int holds(const char *dir, const char *name, const char *needle) {
    char p[PATH_MAX + 128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "rb");
    if (!f) return 0;
    static char buf[4 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, needle) != NULL;
}

static void rm_rf(const char *dir) {
    char cmd[PATH_MAX + 16];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    gb_test_sh(cmd, NULL, 0);
}

TEST(plot_op_and_dtype_filters_draw_only_those) {
    char python[PATH_MAX];
    if (!find_python(python, sizeof python)) return;
    char dir[] = "/tmp/gb_test_plot_filter_XXXXXX", cmd[3 * PATH_MAX], log[2048];
    CHECK(mkdtemp(dir) != NULL);
    /* --op matmul: its two dtypes and the overview, nothing else. */
    snprintf(cmd, sizeof cmd, "%s scripts/plot.py %s --out %s/op --op matmul", python, FIX_H100, dir);
    CHECK(gb_test_sh(cmd, log, sizeof log) == 0);
    char sub[PATH_MAX];
    snprintf(sub, sizeof sub, "%s/op", dir);
    CHECK(exists(sub, "matmul_float32.png") && exists(sub, "matmul_float64.png") && exists(sub, "overview.png"));
    CHECK(!exists(sub, "fft_float32.png") && !exists(sub, "svd_float32.png"));
    CHECK(count_files(sub) == 3);
    /* --op and --dtype together, as lists. */
    snprintf(cmd, sizeof cmd, "%s scripts/plot.py %s --out %s/both --op matmul,reduction --dtype float64 --format svg",
             python, FIX_H100, dir);
    CHECK(gb_test_sh(cmd, log, sizeof log) == 0);
    snprintf(sub, sizeof sub, "%s/both", dir);
    CHECK(exists(sub, "matmul_float64.svg") && exists(sub, "reduction_float64.svg"));
    CHECK(!exists(sub, "matmul_float32.svg") && count_files(sub) == 3);
    /* The overview has only the ops asked for. */
    CHECK(holds(sub, "overview.svg", "data-speedup-device-matmul-") &&
          holds(sub, "overview.svg", "data-speedup-device-reduction-"));
    CHECK(!holds(sub, "overview.svg", "data-speedup-device-fft-"));
    /* A name the file does not have: exit 2, saying what it has. */
    snprintf(cmd, sizeof cmd, "%s scripts/plot.py %s --out %s/bad --op matmull", python, FIX_H100, dir);
    CHECK(gb_test_sh(cmd, log, sizeof log) == 2);
    CHECK(strstr(log, "no cases of op \"matmull\"") && strstr(log, "matmul, elementwise"));
    snprintf(cmd, sizeof cmd, "%s scripts/plot.py %s --out %s/bad --dtype float16", python, FIX_H100, dir);
    CHECK(gb_test_sh(cmd, log, sizeof log) == 2 && strstr(log, "no cases of dtype \"float16\""));
    rm_rf(dir);
}

TEST(plot_cpu_only_overview_is_drawn) {
    char python[PATH_MAX];
    if (!find_python(python, sizeof python)) return;
    char dir[] = "/tmp/gb_test_plot_cpu_XXXXXX", cmd[3 * PATH_MAX], log[2048];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "%s scripts/plot.py %s --out %s --format svg", python, FIX_CPU_SMALL, dir);
    CHECK(gb_test_sh(cmd, log, sizeof log) == 0);
    /* Not blank: every op's CPU time, titled as such, naming the CPU. */
    CHECK(holds(dir, "overview.svg", "id=\"data-time-cpu-matmul-v0-s0\""));
    CHECK(holds(dir, "overview.svg", "CPU time of every op"));
    CHECK(holds(dir, "overview.svg", "i7-1165G7"));
    /* The per-op figure has the CPU's time and rate, and no speedup panel. */
    CHECK(holds(dir, "matmul_float32.svg", "data-time-cpu-matmul-v0-s0"));
    CHECK(holds(dir, "matmul_float32.svg", "data-rate-cpu-matmul-v0-s0"));
    CHECK(!holds(dir, "matmul_float32.svg", "data-speedup-"));
    rm_rf(dir);
}

TEST(plot_non_square_shapes_are_their_own_series) {
    char python[PATH_MAX];
    if (!find_python(python, sizeof python)) return;
    char dir[] = "/tmp/gb_test_plot_shape_XXXXXX", cmd[3 * PATH_MAX], log[2048];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "%s scripts/plot.py %s --out %s --format svg --op svd,matmul", python, FIX_H100, dir);
    CHECK(gb_test_sh(cmd, log, sizeof log) == 0);
    /* svd 10000x1000 and matmul 1024x2048x512: shape group 1, apart from the
     * square sweep (group 0), labelled with the shape. */
    CHECK(holds(dir, "svd_float32.svg", "data-time-cpu-svd-v0-s0"));
    CHECK(holds(dir, "svd_float32.svg", "data-time-cpu-svd-v0-s1"));
    CHECK(holds(dir, "svd_float32.svg", "10000×1000"));
    CHECK(holds(dir, "matmul_float32.svg", "data-speedup-device-matmul-v0-s1"));
    /* math=default and math=tf32: two series in one figure. */
    CHECK(holds(dir, "matmul_float32.svg", "data-speedup-device-matmul-v1-s0"));
    rm_rf(dir);
}

TEST(plot_without_matplotlib_says_so_in_one_line) {
    /* Any Python 3 will do: a shim package on PYTHONPATH makes `import
     * matplotlib` fail the way a missing one does. */
    char python[PATH_MAX];
    gb_err why = {{0}};
    if (gb_plot_find_python(python, sizeof python, &why) != GB_OK) {
        if (gb_test_sh("command -v python3 >/dev/null", NULL, 0) != 0) {
            SKIP("no python3 at all: nothing to run scripts/plot.py with");
            return;
        }
        snprintf(python, sizeof python, "python3");
    }
    char dir[] = "/tmp/gb_test_plot_nompl_XXXXXX", cmd[3 * PATH_MAX], log[4096];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd,
             "mkdir -p %1$s/shim/matplotlib && "
             "echo 'raise ModuleNotFoundError(\"No module named matplotlib\", name=\"matplotlib\")' "
             "> %1$s/shim/matplotlib/__init__.py",
             dir);
    CHECK(gb_test_sh(cmd, NULL, 0) == 0);
    snprintf(cmd, sizeof cmd, "PYTHONPATH=%s/shim %s scripts/plot.py %s --out %s/out", dir, python, FIX_H100, dir);
    int rc = gb_test_sh(cmd, log, sizeof log);
    CHECK(rc == 2);
    size_t n = strlen(log);
    CHECK(n > 0 && log[n - 1] == '\n' && strchr(log, '\n') == log + n - 1); /* exactly one line */
    CHECK(strstr(log, "python3-matplotlib") != NULL && strstr(log, "pip install matplotlib") != NULL);
    CHECK(strstr(log, "Traceback") == NULL);
    if (rc != 2 || !strstr(log, "python3-matplotlib")) fprintf(stderr, "    got: %s\n", log);
    /* --help needs no matplotlib. */
    snprintf(cmd, sizeof cmd, "PYTHONPATH=%s/shim %s scripts/plot.py --help", dir, python);
    CHECK(gb_test_sh(cmd, log, sizeof log) == 0 && strstr(log, "--op"));
    rm_rf(dir);
}

/* `gpubench report --op matmul --plot DIR` draws matmul only. */
TEST(plot_report_op_filter_reaches_the_script) {
    char python[PATH_MAX];
    if (!find_python(python, sizeof python)) return;
    char dir[] = "/tmp/gb_test_plot_report_op_XXXXXX", cmd[PATH_MAX + 256], out[4096];
    CHECK(mkdtemp(dir) != NULL);
    snprintf(cmd, sizeof cmd, "%s report " FIX_H100 " --op matmul --plot %s > /dev/null 2>&1; ls %s",
             gb_test_binary(), dir, dir);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    CHECK(strstr(out, "matmul_float32.png") != NULL);
    CHECK(strstr(out, "fft") == NULL && strstr(out, "svd") == NULL && strstr(out, "solve") == NULL);
    rm_rf(dir);
}
