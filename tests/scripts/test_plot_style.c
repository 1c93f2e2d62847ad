/* test_plot_style.c — what the pictures are made of, without drawing one:
 * tests/scripts/plot_checks.py on scripts/plot_data.py and plot_style.py
 * (coinciding series, the sizes a panel spans, ticks, colours apart for
 * colour-blind vision), and the HTML charts' colours (report_svg.c) being
 * plot_style.py's. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "plot.h"
#include "report_svg.h"
#include "testlib.h"

/* A Python 3 (matplotlib not needed: the checks draw nothing), or SKIP. */
static int python3(char *python, size_t len) {
    gb_err why = {{0}};
    if (gb_plot_find_python(python, len, &why) == GB_OK) return 1;
    if (gb_test_sh("command -v python3 >/dev/null", NULL, 0) != 0) {
        SKIP("no python3 to run the plot scripts with");
        return 0;
    }
    snprintf(python, len, "python3");
    return 1;
}

static void run_check(const char *name) {
    char python[PATH_MAX], cmd[PATH_MAX + 128], log[4096];
    if (!python3(python, sizeof python)) return;
    snprintf(cmd, sizeof cmd, "%s tests/scripts/plot_checks.py scripts %s 2>&1", python, name);
    int rc = gb_test_sh(cmd, log, sizeof log);
    if (rc != 0) fprintf(stderr, "%s", log);
    CHECK(rc == 0);
}

TEST(plot_coinciding_series_are_grouped_not_chained) { run_check("coinciding"); }
TEST(plot_panel_spans_only_the_sizes_it_draws) { run_check("skipped_sizes"); }
TEST(plot_ticks_are_plain_and_at_least_three) { run_check("ticks"); }
TEST(plot_colours_stay_apart_for_colour_blind_vision) { run_check("colours"); }

/* The HTML chart's colour of each series equals plot_style.py's: the side's
 * colour in a chart of one variant, the variant's (by dtype) in one of several. */
TEST(html_chart_colours_are_plot_style_colours) {
    char python[PATH_MAX], cmd[PATH_MAX + 1024], out[1024];
    if (!python3(python, sizeof python)) return;
    snprintf(cmd, sizeof cmd,
             "%s -c \"import sys; sys.path.insert(0, 'scripts'); import plot_style as p\n"
             "class V:\n def __init__(s, i, d): s.index, s.dtype = i, d\n"
             "c = p.variant_colours([V(0, 'float32'), V(1, 'float32'), V(2, 'float64'), V(3, 'int8')])\n"
             "print(' '.join([p.SIDES[k][1] for k in ('cpu', 'device', 'end_to_end', 'end_to_end_overlapped')]"
             " + [c[i] for i in range(4)]))\"",
             python);
    CHECK(gb_test_sh(cmd, out, sizeof out) == 0);
    char want[8][16];
    CHECK(sscanf(out, "%15s %15s %15s %15s %15s %15s %15s %15s", want[0], want[1], want[2], want[3], want[4],
                 want[5], want[6], want[7]) == 8);
    gb_svg_series s[4];
    const char *got[4];
    memset(s, 0, sizeof s);
    for (int i = 0; i < 4; i++) s[i].side = i, s[i].variant = 0, snprintf(s[i].dtype, sizeof s[i].dtype, "float32");
    gb_svg_colours(s, 4, got);
    for (int i = 0; i < 4; i++) {
        CHECK(!strcasecmp(got[i], want[i]));
        if (strcasecmp(got[i], want[i])) fprintf(stderr, "    side %d: %s, plot_style %s\n", i, got[i], want[i]);
    }
    static const char *const dtype[4] = {"float32", "float32", "float64", "int8"};
    for (int i = 0; i < 4; i++) s[i].side = 0, s[i].variant = i, snprintf(s[i].dtype, sizeof s[i].dtype, "%s", dtype[i]);
    gb_svg_colours(s, 4, got);
    for (int i = 0; i < 4; i++) {
        CHECK(!strcasecmp(got[i], want[4 + i]));
        if (strcasecmp(got[i], want[4 + i])) fprintf(stderr, "    variant %d: %s, plot_style %s\n", i, got[i], want[4 + i]);
    }
}
