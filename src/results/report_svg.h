/* report_svg.h — log-log line charts as inline SVG, for the HTML report.
 *
 * The HTML report must stand alone (no network, no Python): a chart drawn
 * here is SVG text inside the page, so it opens anywhere a browser does and
 * scales with the window. The look follows scripts/plot.py: colour family
 * and marker name the side (CPU blue circles, GPU device-resident green
 * squares, GPU end-to-end orange triangles, dashed), a variant (another
 * dtype or params) a darker or lighter shade with hollow markers; the legend
 * sits outside the data, the x axis is ticked at the sizes that were run. */
#ifndef GB_REPORT_SVG_H
#define GB_REPORT_SVG_H
#include <stddef.h>
#include <stdio.h>

typedef struct {
    char label[160];
    int side;           /* 0 CPU, 1 GPU device-resident, 2 GPU end-to-end: colour family and marker */
    int variant;        /* shade and hollow markers */
    int joined;         /* draw a line through the points (a square sweep); else markers only */
    size_t n;
    double *x, *y;      /* n points, x ascending; non-positive or non-finite ones are skipped */
} gb_svg_series;

typedef struct {
    const char *title, *xlabel, *ylabel;
    double hline;           /* a labelled horizontal line (1× on a speedup chart); NAN: none */
    const char *hline_label;
} gb_svg_axes;

/* One chart, as an <svg> element. 0, or -1 when nothing could be drawn
 * (no positive point): the caller says so in words instead. */
int gb_svg_chart(FILE *out, const gb_svg_axes *ax, const gb_svg_series *s, size_t ns);
#endif
