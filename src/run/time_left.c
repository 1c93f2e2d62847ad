/* time_left.c — the progress line's estimate of the time left (runner.h,
 * gb_time_left). Priced only from what this run has measured: the first
 * estimate priced every visit to come at a whole first visit (inputs,
 * prepare, warm-up, timed loop, verification), so a 3-round suite was
 * estimated at three times its first round — ~11m35s left at 35 s into a
 * run that ended at 7m10s. A later visit repeats only the warm-up and its
 * round's share of the timed loop (the state and inputs are kept, the
 * answer is checked once), and many cases never have one (their first
 * visit reached max_time_s). */
#include "runner.h"

double gb_time_left(const gb_visit_times *v, size_t n, int rounds) {
    /* how a later visit compares with the part of the first it repeats,
     * where both have been seen (1 until then) */
    double later = 0, repeat = 0, first_sum = 0, again_sum = 0;
    size_t visited = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i].visits == 0) continue;
        visited++;
        first_sum += v[i].first_s;
        if (v[i].visits > 1) later += v[i].later_s, repeat += v[i].repeat_s * (v[i].visits - 1);
    }
    double q = later > 0 && repeat > 0 ? later / repeat : 1;
    for (size_t i = 0; i < n; i++)
        if (v[i].visits > 0) again_sum += v[i].repeat_s * q;
    double left = 0;
    for (size_t i = 0; i < n; i++) {
        const gb_visit_times *x = &v[i];
        if (x->visits == 0) {
            /* a case to come: the mean first visit, and the mean later
             * visit (0 for a case that had none) for each later round */
            if (visited) left += (first_sum + again_sum * (rounds - 1)) / (double)visited;
        } else if (x->again && x->visits < rounds) {
            double each = x->visits > 1 ? x->later_s / (x->visits - 1) : x->repeat_s * q;
            left += each * (rounds - x->visits);
        }
    }
    return left;
}
