/* report_svg.h — log-log line charts as inline SVG, for the HTML report.
 *
 * The HTML report must stand alone (no network, no Python): a chart drawn
 * here is SVG text inside the page, so it opens anywhere a browser does and
 * scales with the window. The look follows scripts/plot.py, whose
 * plot_style.py decides the colours (a test holds the two together): marker
 * and line name the side (CPU circles, GPU device-resident squares, GPU
 * end-to-end triangles dashed, overlapped down-triangles dotted); in a chart
 * of one variant colour names the side too (CPU blue, device green,
 * end-to-end vermillion, overlapped purple), in a chart of several it names
 * the variant (float64 blue, float32 vermillion, ...), every second variant
 * with hollow markers. The legend sits under the data, the x axis is ticked
 * at the sizes that were run. */
#ifndef GB_REPORT_SVG_H
#define GB_REPORT_SVG_H
#include <stddef.h>
#include <stdio.h>

typedef struct {
    char label[400];
    int side;           /* 0 CPU, 1 GPU device-resident, 2 GPU end-to-end, 3 overlapped: marker and line */
    int variant;        /* which variant of the chart (its colour where there are several; odd: hollow) */
    int joined;         /* draw a line through the points (a square sweep); else markers only */
    size_t n;
    double *x, *y;      /* n points, x ascending; non-positive or non-finite ones are skipped */
    char dtype[24];     /* the variant's dtype: its colour, the same in every chart and plot */
    int identical;      /* the series stands for several variants with the same points */
    size_t row;         /* the caller's: where the series came from */
} gb_svg_series;

typedef struct {
    const char *title, *xlabel, *ylabel;
    double hline;           /* a labelled horizontal line (1× on a speedup chart); NAN: none */
    const char *hline_label;
    int x_bytes;            /* x is bytes: ticks say 4K, 1M */
} gb_svg_axes;

/* The colour of each series of a chart, as scripts/plot_style.py decides it
 * (see above): colours[i] for s[i]. */
void gb_svg_colours(const gb_svg_series *s, size_t ns, const char **colours);

/* The relative difference under which two of these series would be drawn
 * within 3 pixels of each other: closer, they read as one line. */
double gb_svg_coincide_tolerance(const gb_svg_series *s, size_t ns);

/* One chart, as an <svg> element. 0, or -1 when nothing could be drawn
 * (no positive point): the caller says so in words instead. */
int gb_svg_chart(FILE *out, const gb_svg_axes *ax, const gb_svg_series *s, size_t ns);
#endif
