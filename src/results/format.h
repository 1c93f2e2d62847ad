/* format.h — how the outputs write numbers, in one place: the report's
 * medians, intervals, speedups and percentages, compare's three-figure times
 * and signed changes, footnote markers, params as words, and the few JSON
 * helpers every writer of a results-derived document shares. Each output
 * keeps its own look (compare reads "8.47 ms", the report "8.47" in an "ms"
 * column): these are the functions that were copied between report.c,
 * compare_render.c and fleet_render.c, moved here unchanged. */
#ifndef GB_FORMAT_H
#define GB_FORMAT_H
#include <stddef.h>
#include <cjson/cJSON.h>

#include "results_model.h"

/* ---- the report's numbers (report.c, the per-case lines) ------------------ */

/* v to about three significant digits without an exponent; "–" for NaN. */
void gb_fmt_sig(char *buf, size_t len, double v);
/* A median in ms with its 95% confidence interval (seconds in; lo, hi NaN
 * when there is none; n the samples): "2.27 [2.02, 2.52]", or relative to
 * the median, "2.27 +11%/−4.0%", or "2.27 (1 rep)". spread: NULL, or where
 * the relative interval goes (its own column, so medians stay aligned). */
/* Whether a median's 95% interval has no width (n > 1): its samples were
 * equal at the clock's step. */
/* A case's label for a narrow table: a cube "1024x1024x1024" as "1024³", a
 * square "512x512" as "512²", any other label as it is. */
void gb_fmt_label_short(char *buf, size_t len, const char *label);
int gb_fmt_interval_collapsed(double median, double lo, double hi, int n);
void gb_fmt_median(char *buf, size_t len, char *spread, size_t slen, double median, double lo, double hi, int n,
                   int relative);
/* "12.3×", "–" when not positive. */
void gb_fmt_speedup(char *buf, size_t len, double v);
/* A share in percent: "12%", "4.5%", "–" for NaN. */
void gb_fmt_pct(char *buf, size_t len, double v);
/* Superscript footnote marker: ¹ ² … ¹⁰. */
void gb_superscript(char *buf, size_t len, int n);
/* Params as "k=v k=v" (sep between them), leaving out key skip (NULL: none). */
void gb_report_params_text(const gb_kvlist *params, const char *sep, const char *skip, char *buf, size_t len);

/* ---- compare's numbers (compare_render.c) --------------------------------- */

/* v to three significant figures, trailing zeros kept ("8.00", "228",
 * "0.0451"), unit u after a blank when not "". */
void gb_fmt_sig3(double v, const char *u, char *buf, size_t len);
/* Seconds in the unit that suits them, three figures: "8.47 ms", "-" when
 * not finite. */
void gb_fmt_time3(double s, char *buf, size_t len);
/* A change as a signed percentage: "+12.3%", "-0.45%", "+inf", "-" for NaN. */
void gb_fmt_change(double f, char *buf, size_t len);
/* A p-value: "0.0123", "<1e-4", "-". */
void gb_fmt_p(double p, char *buf, size_t len);

/* ---- JSON ----------------------------------------------------------------- */

/* A number as its JSON document has it: NAN for a non-finite one (JSON has
 * no NaN or infinity; null: no value), so that a table rendered from the
 * typed result prints what the document says. */
double gb_json_num(double v);
/* A string as its JSON document has it: "" for NULL (a key left out). */
const char *gb_json_str(const char *s);
/* Add k: v to object o, or k: null when v is not finite (JSON has no NaN). */
void gb_json_add_num_or_null(cJSON *o, const char *k, double v);
#endif
