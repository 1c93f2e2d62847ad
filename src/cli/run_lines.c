/* run_lines.c — see run_lines.h. */
#include "run_lines.h"

#include <sys/stat.h>
#include <unistd.h>


#include "report.h"
#include "timer.h"

static void fmt_duration(char *buf, size_t len, double s) {
    if (s < 60) snprintf(buf, len, "%.0fs", s);
    else if (s < 3600) snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
    else snprintf(buf, len, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
}

static void show_progress(void *ctx, const gb_run_progress *p) {
    const gb_run_lines *l = ctx;
    if (!l->progress) return;
    char elapsed[32], left[32];
    fmt_duration(elapsed, sizeof elapsed, p->elapsed_s);
    fmt_duration(left, sizeof left, p->left_s);
    fprintf(stderr, "\r\033[K[round %d/%d] [%zu/%zu] %s %s %s%s%s  %s elapsed, ~%s left", p->round + 1, p->rounds,
            p->index + 1, p->count, p->c->op->name, p->c->label, gb_dtype_name(p->c->dtype), p->backend ? ": " : "",
            p->backend ? p->backend : "", elapsed, left);
    fflush(stderr);
}

/* Round 0 prints the case's line as soon as it is measured, saying it is
 * round 1's (a 512³ matmul read 5.36 ms there and 2.15 in the table, with
 * nothing to say why); later rounds refine it in the final table. */
static void case_done(void *ctx, const gb_results *r, const gb_case_result *c, int round) {
    const gb_run_lines *l = ctx;
    if (l->progress) fprintf(stderr, "\r\033[K");
    if (round == 0 && !l->quiet && l->lines) {
        char note[64] = "";
        if (l->rounds > 1) snprintf(note, sizeof note, "round 1 of %d; the table has all", l->rounds);
        gb_report_case(r, c, note, l->lines);
        fflush(l->lines);
    }
}

gb_run_callbacks gb_run_lines_callbacks(gb_run_lines *lines) {
    return (gb_run_callbacks){.ctx = lines, .progress = show_progress, .case_done = case_done};
}

int gb_run_lines_one_stream(void) {
    struct stat a, b;
    return fstat(STDOUT_FILENO, &a) == 0 && fstat(STDERR_FILENO, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino;
}
