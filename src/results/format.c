/* format.c — the outputs' number formats (format.h), moved here unchanged
 * from report.c and compare_render.c so that every output keeps its bytes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "json_strict.h"

/* Decimals that show about three significant digits of v without an exponent. */
static int decimals(double v) {
    double a = fabs(v);
    if (a >= 100) return 0;
    if (a >= 10) return 1;
    if (a >= 1) return 2;
    if (a >= 0.1) return 3;
    if (a >= 0.01) return 4;
    /* below, still three figures: a 4 KiB copy's 0.0000400 ms, not 0.00004 */
    int d = 4;
    while (a > 0 && a < 0.01 && d < 12) a *= 10, d++;
    return d;
}

void gb_fmt_sig(char *buf, size_t len, double v) {
    if (isnan(v)) snprintf(buf, len, "–");
    else snprintf(buf, len, "%.*f", decimals(v), v);
}

/* The median in ms and the 95% confidence interval of the median, which is
 * not symmetric about it: as its bounds, "2.27 [2.02, 2.52]" (each to about
 * three significant digits), or, where a terminal table must fit 100
 * columns, relative to the median, "2.27 +11%/−4.0%". "(1 rep)" when a single
 * repetition was all the budget allowed (no interval); "(clock step)" when
 * the interval has no width: the samples about the median were equal, their
 * spread below the clock's step (a 4 KiB copy of 40 ns on a clock of 10 ns
 * steps printed "+0.0%/−0.0%"). */
static void fmt_pct_dev(char *buf, size_t len, double v) {
    if (v < 0) v = 0;
    if (v >= 9.95) snprintf(buf, len, "%.0f%%", v);
    else snprintf(buf, len, "%.1f%%", v);
}

int gb_fmt_interval_collapsed(double median, double lo, double hi, int n) {
    return n > 1 && !isnan(lo) && !isnan(hi) && median > 0 && hi - lo <= 0;
}

void gb_fmt_median(char *buf, size_t len, char *spread, size_t slen, double median, double lo, double hi, int n,
                   int relative) {
    double ms = median * 1e3;
    char m[24], a[24], b[24];
    gb_fmt_sig(m, sizeof m, ms);
    if (spread) spread[0] = '\0';
    if (gb_fmt_interval_collapsed(median, lo, hi, n)) {
        /* not "+0.0%/−0.0%": the clock, not the op, was that steady */
        if (spread) {
            snprintf(buf, len, "%s", m);
            snprintf(spread, slen, "(clock step)");
        } else {
            snprintf(buf, len, "%s (clock step)", m);
        }
    } else if (!isnan(lo) && !isnan(hi) && ms > 0 && relative) {
        fmt_pct_dev(a, sizeof a, (hi * 1e3 / ms - 1) * 100);
        fmt_pct_dev(b, sizeof b, (1 - lo * 1e3 / ms) * 100);
        if (spread) {
            snprintf(buf, len, "%s", m);
            snprintf(spread, slen, "+%s/−%s", a, b);
        } else {
            snprintf(buf, len, "%s +%s/−%s", m, a, b);
        }
    } else if (!isnan(lo) && !isnan(hi)) {
        gb_fmt_sig(a, sizeof a, lo * 1e3);
        gb_fmt_sig(b, sizeof b, hi * 1e3);
        snprintf(buf, len, "%s [%s, %s]", m, a, b);
    } else if (n == 1) {
        if (spread) {
            snprintf(buf, len, "%s", m);
            snprintf(spread, slen, "(1 rep)");
        } else {
            snprintf(buf, len, "%s (1 rep)", m);
        }
    } else {
        snprintf(buf, len, "%s", m);
    }
}

void gb_fmt_speedup(char *buf, size_t len, double v) {
    if (!(v > 0)) snprintf(buf, len, "–");
    else if (v >= 100) snprintf(buf, len, "%.0f×", v);
    else if (v >= 10) snprintf(buf, len, "%.1f×", v);
    else snprintf(buf, len, "%.2f×", v);
}

void gb_fmt_pct(char *buf, size_t len, double v) {
    if (isnan(v)) snprintf(buf, len, "–");
    else if (v >= 10) snprintf(buf, len, "%.0f%%", v);
    else snprintf(buf, len, "%.1f%%", v);
}

void gb_superscript(char *buf, size_t len, int n) {
    static const char *const digit[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
    char dec[16];
    snprintf(dec, sizeof dec, "%d", n);
    buf[0] = '\0';
    for (const char *p = dec; *p; p++) strncat(buf, digit[*p - '0'], len - strlen(buf) - 1);
}

void gb_report_params_text(const gb_kvlist *params, const char *sep, const char *skip, char *buf, size_t len) {
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < params->n; i++) {
        if (skip && !strcmp(params->item[i].key, skip)) continue;
        char v[64];
        gb_value_text(&params->item[i].v, v, sizeof v);
        if (off < len)
            off += (size_t)snprintf(buf + off, len - off, "%s%s=%s", off ? sep : "", params->item[i].key, v);
    }
}

/* Every number of compare's table goes through gb_fmt_sig3, so a median and
 * a change are shown to the same precision (8.47 ms, not "8 ms"). */
void gb_fmt_sig3(double v, const char *u, char *buf, size_t len) {
    char e[32];
    snprintf(e, sizeof e, "%.2e", v); /* rounded to three figures first, so 999.96 reads 1.00e+03 */
    double r = strtod(e, NULL);
    int mag = r == 0 ? 0 : (int)floor(log10(fabs(r)) + 1e-9);
    snprintf(buf, len, "%.*f%s%s", mag >= 2 ? 0 : 2 - mag, r, *u ? " " : "", u);
}

void gb_fmt_time3(double s, char *buf, size_t len) {
    char e[32];
    snprintf(e, sizeof e, "%.2e", s);
    double r = strtod(e, NULL); /* the unit is chosen for the rounded value: 999.96 us is 1.00 ms */
    if (!isfinite(s)) snprintf(buf, len, "-");
    else if (r >= 1.0) gb_fmt_sig3(s, "s", buf, len);
    else if (r >= 1e-3) gb_fmt_sig3(s * 1e3, "ms", buf, len);
    else if (r >= 1e-6) gb_fmt_sig3(s * 1e6, "us", buf, len);
    else gb_fmt_sig3(s * 1e9, "ns", buf, len);
}

void gb_fmt_change(double f, char *buf, size_t len) {
    if (isnan(f)) snprintf(buf, len, "-");
    else if (isinf(f)) snprintf(buf, len, "%s", f > 0 ? "+inf" : "-inf");
    else if (fabs(f) < 0.01) snprintf(buf, len, "%+.2f%%", 100.0 * f); /* under 1%: to 0.01% */
    else {
        char n[16];
        gb_fmt_sig3(100.0 * f, "", n, sizeof n);
        snprintf(buf, len, "%s%.12s%%", f > 0 ? "+" : "", n);
    }
}

void gb_fmt_p(double p, char *buf, size_t len) {
    if (isnan(p)) snprintf(buf, len, "-");
    else if (p < 1e-4) snprintf(buf, len, "<1e-4");
    else snprintf(buf, len, "%.4f", p);
}

double gb_json_num(double v) { return isfinite(v) ? v : NAN; }

const char *gb_json_str(const char *s) { return s ? s : ""; }

void gb_json_add_num_or_null(cJSON *o, const char *k, double v) { cJSON_AddItemToObject(o, k, gb_json_num_or_null(v)); }

void gb_fmt_label_short(char *buf, size_t len, const char *label) {
    /* a cube "NxNxN" (or square "NxN") as "N³" ("N²"): the same size in a
     * third of the width; every other label as it is */
    char a[24] = "", b[24] = "", c[24] = ""; /* sscanf fills only what matched */
    int n = sscanf(label, "%23[0-9]x%23[0-9]x%23[0-9]", a, b, c);
    size_t la = strlen(a);
    int whole = n >= 2 && strlen(label) == (size_t)n * la + (size_t)(n - 1);
    if (whole && n == 3 && !strcmp(a, b) && !strcmp(b, c)) snprintf(buf, len, "%s³", a);
    else if (whole && n == 2 && !strcmp(a, b)) snprintf(buf, len, "%s²", a);
    else snprintf(buf, len, "%s", label);
}
