/* report_case.c — the line `gpubench run` prints for each case as it
 * finishes (report.h: gb_report_case), read from the same rows as the
 * report's tables (report_rows.c), so the live line and the saved report
 * agree. A terminal line: it is written as text, not through a writer. */
#include <math.h>
#include <string.h>

#include "format.h"
#include "report_internal.h"
#include "writer.h"

/* One line of a case as it finishes: a line per device when it ran on several. */
static void case_row(const gb_results *r, const gb_case_result *c, long device, const char *note, FILE *out) {
    row w;
    gb_rdoc_row(r, c, device, &w);
    side_names sn;
    gb_rdoc_side_names(r, c->run, &sn);
    char line[1024], buf[GB_CELL_LEN];
    int off = snprintf(line, sizeof line, "%-11s %-16s %-7s", w.op, w.label, w.dtype);
    if (*w.params && off < (int)sizeof line)
        off += snprintf(line + off, sizeof line - (size_t)off, " %-14s", w.params);
    for (int k = 0; k < NSIDES; k++) {
        const side *s = &w.s[k];
        if (!s->r || off >= (int)sizeof line) continue;
        if (!strcmp(s->status, "ok")) {
            gb_fmt_sig(buf, sizeof buf, s->median * 1e3);
            strncat(buf, " ms", sizeof buf - strlen(buf) - 1);
        } else {
            snprintf(buf, sizeof buf, "%s", s->status);
        }
        off += snprintf(line + off, sizeof line - (size_t)off, "  %s %s", sn.label[k], buf);
    }
    for (int j = 0; j < sn.nacc; j++) {
        if (isnan(w.speedup[j]) || off >= (int)sizeof line) continue;
        gb_fmt_speedup(buf, sizeof buf, w.speedup[j]);
        off += snprintf(line + off, sizeof line - (size_t)off, "  %s %s", buf, sn.brief[j]);
    }
    int ran = 0, bad = 0, passed = 0;
    for (int k = 0; k < NSIDES; k++) {
        const side *s = &w.s[k];
        if (!s->r || !strcmp(s->status, "skipped")) continue;
        ran++;
        if (strcmp(s->status, "ok") || !strcmp(s->verif, "failed")) bad++;
        else if (!strcmp(s->verif, "passed")) passed++;
    }
    /* nothing ran: the sides already say "skipped", and the next line why */
    if (off < (int)sizeof line && ran)
        off += snprintf(line + off, sizeof line - (size_t)off, "  %s",
                        bad ? "✗ FAILED" : passed == ran ? "✓" : "not checked");
    char energy[GB_CELL_LEN * 2];
    gb_report_energy_line(&w, energy, sizeof energy);
    if (*energy && off < (int)sizeof line) off += snprintf(line + off, sizeof line - (size_t)off, "%s", energy);
    if (note && *note && off < (int)sizeof line) snprintf(line + off, sizeof line - (size_t)off, "  (%s)", note);
    /* the runner's lines are terminal lines, written by the terminal writer */
    const gb_writer *term = gb_writer_at(GB_FMT_TABLE);
    term->lines(out, GB_LINE_TEXT, (const char *const[]){line}, 1);
    /* why, under the line: both GPU timings skipped for one reason say it once */
    char seen[NSIDES][GB_CELL_LEN * 3];
    int nseen = 0;
    for (int k = 0; k < NSIDES; k++) {
        const side *s = &w.s[k];
        if (!s->r || (!strcmp(s->status, "ok") && strcmp(s->verif, "failed"))) continue;
        char why[GB_CELL_LEN * 3];
        gb_rdoc_why_not_ok(s, why, sizeof why);
        int dup = 0;
        for (int i = 0; i < nseen && !dup; i++) dup = !strcmp(seen[i], why);
        if (dup) continue;
        snprintf(seen[nseen++], sizeof seen[0], "%s", why);
        int twin = k != SIDE_CPU && w.s[k == SIDE_DEV ? SIDE_E2E : SIDE_DEV].r &&
                   !strcmp(w.s[k == SIDE_DEV ? SIDE_E2E : SIDE_DEV].status, s->status);
        char because[GB_CELL_LEN * 4];
        snprintf(because, sizeof because, "    %s %s: %.*s", twin ? s->backend : sn.label[k], s->status,
                 (int)(sizeof because - 64), why);
        term->lines(out, GB_LINE_TEXT, (const char *const[]){because}, 1);
    }
    fflush(out);
}

/* One line per case as it finishes: op, shape, dtype and params (so two
 * variants of one shape, math=default and math=tf32, read apart), each
 * side's median or what happened to it, the speedups and the check; then,
 * each on a line of its own, why a side was skipped or failed (one line per
 * distinct reason). */
void gb_report_case(const gb_results *r, const gb_case_result *c, const char *note, FILE *out) {
    if (gb_rdoc_host_copy_only(r, c)) return; /* its twin's line said it */
    long devs[GB_MAX_DEVICES];
    int nd = gb_rdoc_case_devices(c, devs, GB_MAX_DEVICES);
    for (int k = 0; k < (nd > 1 ? nd : 1); k++) case_row(r, c, nd > 1 ? devs[k] : -1, note, out);
}
