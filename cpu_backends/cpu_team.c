/* cpu_team.c — how many threads a prepared op runs on (gb_cpu_team_choose,
 * cpu_backend.h): all of them, or one.
 *
 * Why not always all: even with workers that spin before they sleep
 * (libgomp's default, cpu_environment.c), a parallel region costs a fork and
 * a join, and a 4 KiB copy takes 0.1 us on one thread; small LAPACK calls
 * (a 64² Cholesky, a 64² SVD) are made of many tiny BLAS calls, each its own
 * region. No fixed rule fits every op and machine (one thread per MiB made a
 * 256² float64 elementwise 3.3x slower: its sin and cos are compute), so, as
 * FFTW's planner does, it is measured: on the prepared state itself, one
 * thread against all, each warmed up once, then timed in turn (A B A B ...)
 * for GB_TEAM_ROUNDS rounds, each time as the second of two repetitions in a
 * row (the runner's repetitions follow each other with the same team). One
 * thread is chosen only when it is GB_TEAM_MARGIN (10%) faster than all both
 * in its median and in its fastest round: a stall only adds time, and a
 * measurement whose rounds on all threads the VM stalled once chose one
 * thread on the median alone (issue #29).
 *
 * A choice is kept per machine and build (GB_TEAM_FILE in the cache
 * folder, under a key of the CPU, the CPU set's size, the thread count, the
 * OpenBLAS core, the build and the user's OpenMP wait settings) and used
 * again by every later process without measuring: measured anew in each
 * process, a near-tie flipped between processes (a 64² stencil ran 0.04 ms
 * in one run and 1.59 ms in the next, issue #42), which is the spread a
 * regression check then reads as a change. The first measurement decides;
 * a changed key (another build, CPU set or setting) measures again.
 *
 * A case whose repetition on every thread takes GB_TEAM_MEASURE_S or more
 * (the faster of two tries) runs on every thread, unmeasured: its fork and join are a few % of it,
 * and one thread would take up to 16 times as long to measure. --threads N
 * is the team "all" means. The choice is each result's extra.threads, and
 * extra.team says how it was made ("kept: ..." when it came from the file).
 * It is measured with warm caches, also for a cold-cache run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cblas.h>

#include "cpu_backend.h"
#include "file_read.h"
#include "node_env.h"
#include "results_io.h"
#include "stats.h"
#include "sysinfo.h"

#define GB_TEAM_MEASURE_S 2e-3
#define GB_TEAM_ROUNDS 5
#define GB_TEAM_MARGIN 1.10
#define GB_TEAM_MAX_S 0.25 /* the most a choice may take; fewer rounds past it */
#define GB_TEAM_FILE_MAGIC "gpubench-cpu-teams 1"
#define GB_TEAM_FILE_LIMIT ((size_t)4 << 20) /* more than any machine's cases: past it nothing more is kept */

/* ---- the kept choices ------------------------------------------------------
 * The file: a first line GB_TEAM_FILE_MAGIC and the key, then one line a
 * case, "TEAM<TAB>CASE<TAB>WHY". Read once per process; a line that is not
 * that (a team other than 1 or all, no case) is ignored with one warning and
 * its case measured again; a file that does not start with the magic line is
 * not ours and is neither read nor replaced. */
typedef struct {
    char *key;   /* "op dtype shape params" */
    int team;
    char *why;
} kept_team;
static kept_team *kept;
static size_t nkept, capkept;
static int kept_loaded, kept_disabled;
static char kept_path[4096], kept_key[768];
static struct stat written; /* the kept file as this process last wrote it */

static void machine_key(char *buf, size_t len) {
    char model[256] = "unknown";
    gb_sysinfo_cpu_model(model, sizeof model);
    const char *policy = getenv("OMP_WAIT_POLICY"), *spin = getenv("GOMP_SPINCOUNT");
    snprintf(buf, len, "cpu=%s|cpus=%d|threads=%d|openblas=%s|build=%s|wait=%s|spin=%s", model,
             gb_node_cpu_set(NULL, 0), gb_cpu_threads(), openblas_get_corename(), GB_GIT_COMMIT,
             policy ? policy : "", spin ? spin : "");
    for (char *p = buf; *p; p++)
        if (*p == '\n' || *p == '\t') *p = ' ';
}

static uint64_t fnv1a(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

static int add_kept(const char *key, int team, const char *why) {
    if (nkept == capkept) {
        size_t cap = capkept ? 2 * capkept : 64;
        kept_team *k = realloc(kept, cap * sizeof *k);
        if (!k) return 0;
        kept = k, capkept = cap;
    }
    kept[nkept].key = strdup(key);
    kept[nkept].why = strdup(why);
    if (!kept[nkept].key || !kept[nkept].why) {
        free(kept[nkept].key);
        free(kept[nkept].why);
        return 0;
    }
    kept[nkept++].team = team;
    return 1;
}

static const kept_team *find_kept(const char *key) {
    for (size_t i = 0; i < nkept; i++)
        if (!strcmp(kept[i].key, key)) return &kept[i];
    return NULL;
}

/* Parse the file's text into the table: the lines of this key's file. */
static void parse_kept(char *text, int all, int *bad) {
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        char *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
        char *end;
        long team = t1 ? strtol(line, &end, 10) : 0;
        if (!t1 || !t2 || end != t1 || (team != 1 && team != all) || t2 == t1 + 1) {
            (*bad)++;
            continue;
        }
        *t1 = *t2 = 0;
        if (!find_kept(t1 + 1)) add_kept(t1 + 1, (int)team, t2 + 1);
    }
}

static void load_kept(void) {
    if (kept_loaded) return;
    kept_loaded = 1;
    char dir[2048];
    if (!gb_cache_dir(dir, sizeof dir)) {
        kept_disabled = 1;
        return;
    }
    machine_key(kept_key, sizeof kept_key);
    snprintf(kept_path, sizeof kept_path, "%s/cpu-teams-%016llx.txt", dir, (unsigned long long)fnv1a(kept_key));
    char *text;
    size_t len;
    gb_err e = {{0}};
    if (access(kept_path, F_OK) != 0) return; /* none yet */
    if (gb_read_bounded(kept_path, "the kept CPU teams", GB_TEAM_FILE_LIMIT, &text, &len, &e) != GB_OK) {
        fprintf(stderr, "warning: kept CPU teams not used (each case is measured, nothing is kept): %s\n", e.msg);
        kept_disabled = 1;
        return;
    }
    size_t magic = strlen(GB_TEAM_FILE_MAGIC);
    char *nl = strchr(text, '\n');
    if (strncmp(text, GB_TEAM_FILE_MAGIC " ", magic + 1) != 0 || !nl) {
        fprintf(stderr, "warning: %s is not a file of kept CPU teams: left alone, nothing is kept\n", kept_path);
        kept_disabled = 1;
        free(text);
        return;
    }
    *nl = 0;
    int bad = 0;
    if (!strcmp(text + magic + 1, kept_key)) parse_kept(nl + 1, gb_cpu_threads(), &bad);
    if (bad) fprintf(stderr, "warning: %s: %d line%s not a kept CPU team: ignored, measured again\n", kept_path, bad,
                     bad == 1 ? "" : "s");
    free(text);
}

/* Keep a new choice: the file read again (another process may have kept
 * cases since) and written whole with it (gb_cache_write: a temp file
 * renamed into place, a regular file only). */
static void save_kept(const char *key, int team, const char *why) {
    if (kept_disabled || !*kept_path || !add_kept(key, team, why)) return;
    char *text = NULL;
    size_t len = 0;
    gb_err e = {{0}};
    /* read again only when another process changed the file since this one
     * last wrote it: re-reading on every save made a 10,000-case suite
     * quadratic (every save parsed every line, each looked up linearly) */
    struct stat st;
    int changed = stat(kept_path, &st) == 0 && (st.st_ino != written.st_ino || st.st_size != written.st_size ||
                                                 st.st_mtim.tv_sec != written.st_mtim.tv_sec ||
                                                 st.st_mtim.tv_nsec != written.st_mtim.tv_nsec);
    if (changed &&
        gb_read_bounded(kept_path, "the kept CPU teams", GB_TEAM_FILE_LIMIT, &text, &len, &e) == GB_OK) {
        size_t magic = strlen(GB_TEAM_FILE_MAGIC);
        char *nl = strchr(text, '\n');
        int bad = 0;
        if (nl && !strncmp(text, GB_TEAM_FILE_MAGIC " ", magic + 1)) {
            *nl = 0;
            if (!strcmp(text + magic + 1, kept_key)) parse_kept(nl + 1, gb_cpu_threads(), &bad);
        }
        free(text);
    }
    size_t cap = strlen(GB_TEAM_FILE_MAGIC) + strlen(kept_key) + 2, used = 0;
    for (size_t i = 0; i < nkept; i++) cap += strlen(kept[i].key) + strlen(kept[i].why) + 16;
    if (cap > GB_TEAM_FILE_LIMIT) return; /* full: later cases are measured in each process */
    char *out = malloc(cap + 1);
    if (!out) return;
    used += (size_t)snprintf(out + used, cap + 1 - used, "%s %s\n", GB_TEAM_FILE_MAGIC, kept_key);
    for (size_t i = 0; i < nkept; i++)
        used += (size_t)snprintf(out + used, cap + 1 - used, "%d\t%s\t%s\n", kept[i].team, kept[i].key, kept[i].why);
    gb_cache_write(kept_path, "a file of kept CPU teams", GB_TEAM_FILE_MAGIC " ", out, used);
    if (stat(kept_path, &st) == 0) written = st;
    free(out);
}

/* The second of two repetitions on this team (the first wakes it). */
static int timed(const gb_op_impl *impl, void *state, int team, double *seconds) {
    gb_err e = {{0}};
    impl->set_threads(state, team);
    return impl->run(state, 0, seconds, &e) == GB_OK && impl->run(state, 0, seconds, &e) == GB_OK && *seconds >= 0;
}

/* The measurement itself (the rule in the header). */
static int measure_team(const gb_op_impl *impl, void *state, int all, char *why, size_t len) {
    double first, again;
    /* the faster of two tries: a stall (the VM, another process) only adds
     * time, and one stalled try made a 64² SVD "too long to measure" */
    if (!timed(impl, state, all, &first) || !timed(impl, state, all, &again)) return -1;
    if (again < first) first = again;
    if (first >= GB_TEAM_MEASURE_S) {
        snprintf(why, len, "all: a repetition on %d threads took %.3g ms (teams are measured under %.3g ms)", all,
                 first * 1e3, GB_TEAM_MEASURE_S * 1e3);
        return all;
    }
    const int team[2] = {1, all};
    double t[2][GB_TEAM_ROUNDS], warm = first;
    if (!timed(impl, state, 1, &first)) return -1; /* one thread's warm-up (all's was above) */
    warm += first;
    int rounds = GB_TEAM_ROUNDS;
    if (warm * rounds > GB_TEAM_MAX_S) rounds = warm > 0 ? (int)(GB_TEAM_MAX_S / warm) : 1;
    if (rounds < 1) rounds = 1;
    for (int r = 0; r < rounds; r++)
        for (int i = 0; i < 2; i++)
            if (!timed(impl, state, team[i], &t[i][r])) return -1;
    double one = gb_median(t[0], (size_t)rounds), every = gb_median(t[1], (size_t)rounds);
    double one_min = gb_fastest(t[0], (size_t)rounds), every_min = gb_fastest(t[1], (size_t)rounds);
    int pick = every > one * GB_TEAM_MARGIN && every_min > one_min * GB_TEAM_MARGIN ? 1 : all;
    snprintf(why, len, "measured, us of %d round%s (median, fastest): 1 thread %.3g, %.3g; %d threads %.3g, %.3g",
             rounds, rounds == 1 ? "" : "s", one * 1e6, one_min * 1e6, all, every * 1e6, every_min * 1e6);
    return pick;
}

int gb_cpu_team_choose(const gb_op_impl *impl, void *state, const char *case_key, char *why, size_t len) {
    int all = gb_cpu_threads();
    impl->set_threads(state, all);
    if (all <= 1) {
        snprintf(why, len, "all: one thread to run on");
        return all;
    }
    if (case_key) {
        load_kept();
        const kept_team *k = find_kept(case_key);
        if (k) {
            snprintf(why, len, "kept: %s", k->why);
            impl->set_threads(state, k->team);
            return k->team;
        }
    }
    int pick = measure_team(impl, state, all, why, len);
    if (pick < 0) {
        impl->set_threads(state, all);
        snprintf(why, len, "all: a repetition failed while the team was measured");
        return all;
    }
    impl->set_threads(state, pick);
    if (case_key) save_kept(case_key, pick, why);
    return pick;
}
