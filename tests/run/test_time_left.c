/* test_time_left.c — the progress line's estimate of the time left
 * (gb_time_left), on a scripted clock: the visits' costs are given, not
 * measured, so the test holds the arithmetic, not a machine's speed. */
#include <string.h>
#include "runner.h"
#include "testlib.h"

/* A run of n identical cases over 3 rounds, played visit by visit on a
 * scripted clock (a first visit costs 2 s, of which 0.5 s is the warm-up
 * and timed loop a later visit repeats, and a later visit costs 0.5 s): at
 * every step the estimate is the time the rest of the script takes, exactly.
 * The first estimate priced each visit to come at a whole first visit and
 * said 3 × 2 s per case not yet visited: 2.4 times too high here. */
TEST(time_left_is_what_the_rest_of_a_scripted_run_takes) {
    enum { N = 10, ROUNDS = 3 };
    const double first = 2, repeat = 0.5, later = 0.5;
    gb_visit_times v[N];
    memset(v, 0, sizeof v);
    double total = N * (first + (ROUNDS - 1) * later), clock = 0;
    for (int round = 0; round < ROUNDS; round++)
        for (int i = 0; i < N; i++) {
            if (round > 0 || i > 0) CHECK_NEAR(gb_time_left(v, N, ROUNDS), total - clock, 1e-9);
            double took = round == 0 ? first : later;
            clock += took;
            if (round == 0) v[i].first_s = took, v[i].repeat_s = repeat;
            else v[i].later_s += took;
            v[i].visits = round + 1;
            v[i].again = round + 1 < ROUNDS;
        }
    CHECK_NEAR(gb_time_left(v, N, ROUNDS), 0, 1e-12);
}

/* Cases that reached max_time_s in their first visit have no later one,
 * and a case not yet visited is priced with that share; a later visit that
 * costs more than the part it repeats (a state prepared again) scales the
 * cases still to be visited again. */
TEST(time_left_counts_only_the_later_visits_cases_have) {
    gb_visit_times v[4] = {
        {.visits = 1, .again = 1, .first_s = 2, .repeat_s = 0.5}, /* to come: 2 rounds × 0.5 */
        {.visits = 1, .again = 0, .first_s = 2, .repeat_s = 0},   /* done */
        {0}, {0}};                                                /* (4 + 2 × 0.5) / 2 each */
    CHECK_NEAR(gb_time_left(v, 4, 3), 2 * 0.5 + 2 * 2.5, 1e-12);
    /* case 0's second visit took 1 s, twice what it repeats: its last visit
     * is priced at its own 1 s; the others' later rounds at twice theirs */
    v[0].visits = 2;
    v[0].later_s = 1;
    CHECK_NEAR(gb_time_left(v, 4, 3), 1 + 2 * (4 + 2 * (0.5 * 2)) / 2, 1e-12);
    /* nothing visited yet: nothing measured to price it with */
    gb_visit_times none[2] = {{0}, {0}};
    CHECK(gb_time_left(none, 2, 3) == 0);
}
