/* test_mutation.c — every reader of a results file survives every mutation
 * (docs/reliability.md, "Reading results files").
 *
 * A real results file (and a compare policy) is taken apart at EVERY JSON
 * path (pre-order: each key's value, each array element, the root); at each
 * path each mutation of MUTATIONS makes one mutant (the value deleted, or
 * replaced by a value of every JSON type, an empty or huge one); a mutant
 * equal to the original is skipped. Every reading command then runs on each
 * mutant: report in every format, --fleet and --pair, compare with the
 * mutant on either side, merge, export in both formats (a policy mutant:
 * compare --policy). The rules:
 *   - every command exits 0 or 2 (compare: 0, 1 or 2; 1 is its "regression
 *     found"), never anything else: a crash, an abort, a sanitizer report
 *     (built with SANITIZE=..., every report ends the process) fail the sweep;
 *   - when the loader refuses the mutant, every command exits 2 and its
 *     message names the mutated path, or the object holding it (a prefix of
 *     at least one component: "cases[0].results[1]" for a cross-field check
 *     like stats.n against samples_s), in the loader's own path notation;
 *   - when the loader accepts it, report (but --fleet and --pair), export
 *     and merge exit 0.
 *
 * The commands run IN THIS PROCESS (gb_cmd_report(argc, argv), ...): one
 * file write and a few reads per mutant instead of a process start per
 * command, so the whole sweep (31,245 mutants, 12 commands each) runs
 * in minutes under ASan. One mutant in GB_MUTATION_PROC_EVERY of those
 * swept is also run through the real binary ($GPUBENCH) as a process, which
 * holds what the in-process pass cannot: main()'s own paths (signals,
 * standard output checked at exit) and the exit status the shell sees.
 *
 * Which mutants run: the i-th (counted over all files in a fixed order) runs
 * when i % GB_MUTATION_EVERY == GB_MUTATION_OFFSET. Deterministic: no clock,
 * no random numbers. `make test` runs a share (every 61st); `make
 * mutation-sweep` all of them, under ASan+UBSan; .ci/run a bounded share
 * of that. GB_MUTATION_SEEDS=DIR writes the first mutant of each distinct
 * refusal (the message with its path, numbers and quoted text taken out)
 * there: how tests/fuzz/corpus/{results,policy}/mut_*.json were made. */
#include <cjson/cJSON.h>
#include <ctype.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "compare.h"
#include "gb.h"
#include "report.h"
#include "results_model.h"
#include "testlib.h"

/* NULL: delete the value (an object's key, or an array's element). */
static const struct {
    const char *name, *json;
} MUTATIONS[] = {
    {"missing", NULL},     {"null", "null"},          {"false", "false"},       {"zero", "0"},
    {"minus_one", "-1"},   {"half", "0.5"},           {"huge", "1e300"},        {"empty_string", "\"\""},
    {"string", "\"\\u00e9t\\u00e9\""}, {"empty_array", "[]"}, {"empty_object", "{}"},
};
enum { NMUT = sizeof MUTATIONS / sizeof MUTATIONS[0] };

#define ORIGINAL "tests/data/results_small.json"

/* The commands, as argv: "@M" is the mutant's file, "@O" the original. */
typedef struct {
    const char *argv[8];
    int compare; /* exit 1 (a regression found) is a verdict, not a failure */
    int judges;  /* may exit 2 on a file the loader accepts: the fleet report
                  * may find no two columns to set side by side, --pair no CPU
                  * or GPU to pair, compare too few results */
} command;

static const command RESULTS_COMMANDS[] = {
    {{"report", "@M", "--format", "table", NULL}, 0, 0},
    {{"report", "@M", "--format", "md", NULL}, 0, 0},
    {{"report", "@M", "--format", "csv", NULL}, 0, 0},
    {{"report", "@M", "--format", "html", NULL}, 0, 0},
    {{"report", "--fleet", "@M", NULL}, 0, 1},
    {{"report", "--fleet", "@M", "--format", "json", NULL}, 0, 1},
    {{"report", "@O", "@M", "--pair", NULL}, 0, 1},
    {{"compare", "@O", "@M", NULL}, 1, 1},
    {{"compare", "@M", "@O", "--format", "json", NULL}, 1, 1},
    {{"merge", "@M", "@O", "-o", "-", NULL}, 0, 0},
    {{"export", "@M", "--format", "gbench", NULL}, 0, 0},
    {{"export", "@M", "--format", "benchmark-action", NULL}, 0, 0},
};
static const command POLICY_COMMANDS[] = {
    {{"compare", ORIGINAL, ORIGINAL, "--policy", "@M", NULL}, 1, 1},
};

typedef struct {
    const char *file;
    int policy; /* a compare policy, not a results file */
} input;

static const input INPUTS[] = {
    {"tests/data/results_small.json", 0},
    {"tests/data/results_merged.json", 0},
    {"tests/data/results_multigpu.json", 0},
    {"tests/data/compare/policy.json", 1},
};

/* ---- the sweep's state ----------------------------------------------------- */

typedef struct {
    long every, offset, proc_every;
    const char *seeds; /* GB_MUTATION_SEEDS, or NULL */
    char dir[64], mutant[96], mpath[96];
    long index;        /* mutants made so far, over all inputs */
    long at;           /* the number of the one being swept (for messages) */
    long swept, refused, accepted, procs, full_path, prefix_only, failures, commands;
    char **seen;       /* refusal templates already seeded */
    size_t nseen;
} sweep;

/* What was being done, for a crash report (a sanitizer's death callback or
 * a fatal signal): the mutant and the command, written to the standard
 * output the sweep started with (standard error is the runner's capture,
 * lost with the process; standard output is /dev/null during a command). */
static char current[600];
static int report_fd = -1, trace_fd = -1;

static void say_current(void) {
    if (!current[0] || report_fd < 0) return;
    ssize_t w = write(report_fd, current, strlen(current));
    (void)w;
}

static void on_fatal(int sig) {
    say_current();
    signal(sig, SIG_DFL);
    raise(sig);
}

/* Present in sanitized builds only. */
extern void __sanitizer_set_death_callback(void (*)(void)) __attribute__((weak));

static long env_long(const char *name, long dflt) {
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : dflt;
}

/* ---- paths ------------------------------------------------------------------- */

typedef struct {
    cJSON **node;
    char **path;
    size_t n, cap;
} pathlist;

static void add_path(pathlist *l, cJSON *node, const char *path) {
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 1024;
        l->node = realloc(l->node, l->cap * sizeof *l->node);
        l->path = realloc(l->path, l->cap * sizeof *l->path);
    }
    l->node[l->n] = node;
    l->path[l->n++] = strdup(path);
}

/* Every value of the tree in pre-order, with its path as the loaders write
 * it ("cases[2].results[0].op"; the root is ""). */
static void collect(pathlist *l, cJSON *v, const char *path) {
    add_path(l, v, path);
    size_t i = 0;
    for (cJSON *c = v->child; c; c = c->next, i++) {
        char p[600];
        if (cJSON_IsObject(v)) snprintf(p, sizeof p, "%s%s%s", path, *path ? "." : "", c->string);
        else snprintf(p, sizeof p, "%s[%zu]", path, i);
        collect(l, c, p);
    }
}

static void pathlist_free(pathlist *l) {
    for (size_t i = 0; i < l->n; i++) free(l->path[i]);
    free(l->node);
    free(l->path);
}

/* The parent of node in the tree at root (NULL for the root). */
static cJSON *parent_of(cJSON *root, const cJSON *node) {
    for (cJSON *c = root->child; c; c = c->next) {
        if (c == node) return root;
        cJSON *p = parent_of(c, node);
        if (p) return p;
    }
    return NULL;
}

/* How many leading components of path msg names: the longest prefix, cut at
 * a '.' or '[', that occurs in msg (0: none). Full match: *full = 1. */
static int named_prefix(const char *msg, const char *path, int *full) {
    char pre[600];
    *full = 0;
    if (strstr(msg, path)) {
        *full = 1;
        return 1;
    }
    for (size_t len = strlen(path); len > 0; len--) {
        if (path[len] != '.' && path[len] != '[') continue;
        memcpy(pre, path, len);
        pre[len] = '\0';
        if (strstr(msg, pre)) return 1;
    }
    return 0;
}

/* ---- running a command --------------------------------------------------------- */

static int (*command_fn(const char *name))(int, char **) {
    if (!strcmp(name, "report")) return gb_cmd_report;
    if (!strcmp(name, "compare")) return gb_cmd_compare;
    if (!strcmp(name, "merge")) return gb_cmd_merge;
    if (!strcmp(name, "export")) return gb_cmd_export;
    return NULL;
}

static int build_argv(const command *c, const char *mutant, const char *original, char **argv) {
    int n = 0;
    for (; c->argv[n]; n++) {
        const char *a = c->argv[n];
        argv[n] = (char *)(!strcmp(a, "@M") ? mutant : !strcmp(a, "@O") ? original : a);
    }
    argv[n] = NULL;
    return n;
}

/* The command in this process: standard output to /dev/null, standard
 * error into err (cap bytes). Returns its exit code. */
static int in_process(const command *c, const char *mutant, const char *original, char *err, size_t cap) {
    char *argv[8];
    int argc = build_argv(c, mutant, original, argv);
    fflush(stdout);
    fflush(stderr);
    int out_fd = dup(1), err_fd = dup(2), null_fd = open("/dev/null", O_WRONLY);
    FILE *cap_f = tmpfile();
    if (out_fd < 0 || err_fd < 0 || null_fd < 0 || !cap_f) {
        snprintf(err, cap, "cannot redirect the command's output");
        return -1;
    }
    dup2(null_fd, 1);
    dup2(fileno(cap_f), 2);
    int rc = command_fn(c->argv[0])(argc, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    close(out_fd);
    close(err_fd);
    close(null_fd);
    rewind(cap_f);
    size_t got = fread(err, 1, cap - 1, cap_f);
    err[got] = '\0';
    fclose(cap_f);
    return rc;
}

/* The command through the real binary, as a shell runs it. */
static int as_process(const command *c, const char *mutant, const char *original, char *err, size_t cap) {
    char *argv[8], cmd[2048];
    build_argv(c, mutant, original, argv);
    size_t off = (size_t)snprintf(cmd, sizeof cmd, "%s", gb_test_binary());
    for (int i = 0; argv[i] && off < sizeof cmd; i++)
        off += (size_t)snprintf(cmd + off, sizeof cmd - off, " '%s'", argv[i]);
    if (off < sizeof cmd) snprintf(cmd + off, sizeof cmd - off, " 2>&1 >/dev/null");
    return gb_test_sh(cmd, err, cap);
}

static void fail(sweep *s, const char *how, const command *c, int rc, const char *msg) {
    s->failures++;
    if (s->failures > 20) return; /* enough to see the pattern */
    fprintf(stderr, "mutant #%ld (%s) %s:", s->at, s->mutant, how);
    for (int i = 0; c->argv[i]; i++) fprintf(stderr, " %s", c->argv[i]);
    fprintf(stderr, ": exit %d: %.400s\n", rc, msg);
}

/* One command on the current mutant. refused: the loader's verdict. */
static void check_command(sweep *s, const command *c, const char *mfile, const char *ofile, int refused,
                          const char *path, int proc) {
    char msg[8192];
    int len = snprintf(current, sizeof current, "\nmutation sweep: died on mutant #%ld (%s), command %s %s\n",
                       s->at, s->mutant, c->argv[0], c->argv[1]);
    /* UBSan ends the process without the death callback: the file
     * GB_MUTATION_TRACE always holds the command under way */
    if (trace_fd >= 0 && len > 0 && pwrite(trace_fd, current, (size_t)len, 0) >= 0 && ftruncate(trace_fd, len) != 0)
        trace_fd = -1;
    int rc = proc ? as_process(c, mfile, ofile, msg, sizeof msg) : in_process(c, mfile, ofile, msg, sizeof msg);
    s->commands++;
    const char *how = proc ? "as a process" : "in process";
    if (strstr(msg, "Sanitizer") || strstr(msg, "runtime error:")) return fail(s, how, c, rc, msg);
    if (!(rc == 0 || rc == 2 || (c->compare && rc == 1))) return fail(s, how, c, rc, msg);
    if (refused) {
        int full;
        if (rc != 2) return fail(s, how, c, rc, "the loader refused this mutant, the command did not");
        if (*path && !named_prefix(msg, path, &full)) return fail(s, how, c, rc, msg);
    } else if (rc != 0 && !c->judges) { /* an accepted file is rendered */
        return fail(s, how, c, rc, msg);
    }
}

/* What tells one refusal from another, for picking seeds: the message's
 * reason without the file name, the path, what was found ("got ...") and
 * numbers or quoted text: "expected a string or null", "missing (expected an
 * array)", "is outside [min, max] = [, ]". */
static void refusal_template(const char *msg, const char *file, char *out, size_t len) {
    const char *p = strstr(msg, file);
    p = p ? p + strlen(file) : msg;
    if (!strncmp(p, ": ", 2)) p += 2;
    const char *reason = strstr(p, ": "); /* after the path, when there is one */
    if (reason && (!memchr(p, ' ', (size_t)(reason - p)) || !strncmp(p, "(top level)", 11))) p = reason + 2;
    size_t k = 0;
    while (*p && strncmp(p, "got ", 4) != 0) {
        size_t n = strcspn(p, " ");
        char w[128];
        snprintf(w, sizeof w, "%.*s", (int)(n < 127 ? n : 127), p);
        int value = strpbrk(w, "0123456789\"'") || !strcmp(w, "null") || !strcmp(w, "false") ||
                    !strcmp(w, "true") || !strncmp(w, "[]", 2) || !strncmp(w, "{}", 2) || !strncmp(w, "nan", 3);
        if (!value && k + n + 2 < len) {
            memcpy(out + k, w, n);
            k += n;
            out[k++] = ' ';
        }
        for (p += n; *p == ' '; p++) {}
    }
    out[k] = '\0';
}

static void seed(sweep *s, const char *text, const char *msg, int policy) {
    char t[GB_MSG_LEN];
    if (!s->seeds) return;
    refusal_template(msg, s->mpath, t, sizeof t);
    for (size_t i = 0; i < s->nseen; i++)
        if (!strcmp(s->seen[i], t)) return;
    s->seen = realloc(s->seen, (s->nseen + 1) * sizeof *s->seen);
    s->seen[s->nseen++] = strdup(t);
    if (getenv("GB_MUTATION_VERBOSE")) printf("seed %zu: %s\n   %s\n", s->nseen, t, msg);
    char f[512];
    snprintf(f, sizeof f, "%s/%s/mut_%03zu.json", s->seeds, policy ? "policy" : "results", s->nseen);
    FILE *o = fopen(f, "w");
    if (o) fputs(text, o), fclose(o);
}

/* ---- the sweep ------------------------------------------------------------------ */

static void one_mutant(sweep *s, const input *in, cJSON *copy, const char *path) {
    char *text = cJSON_PrintUnformatted(copy);
    FILE *f = fopen(s->mpath, "w");
    if (!text || !f || fputs(text, f) < 0 || fclose(f) != 0) {
        CHECK(!"cannot write the mutant");
        free(text);
        return;
    }
    gb_err e = {{0}};
    int refused;
    if (in->policy) {
        gb_policy *p = gb_policy_load(s->mpath, &e);
        refused = p == NULL;
        gb_policy_free(p);
    } else {
        gb_results r;
        refused = gb_results_load(s->mpath, &r, &e) != GB_OK;
        if (!refused) gb_results_free(&r);
    }
    s->swept++;
    refused ? s->refused++ : s->accepted++;
    if (refused) {
        int full = 0;
        if (!e.msg[0] || (*path && !named_prefix(e.msg, path, &full))) {
            s->failures++;
            fprintf(stderr, "mutant #%ld (%s): the loader's message does not name the path: %s\n", s->at,
                    s->mutant, e.msg);
        }
        full ? s->full_path++ : s->prefix_only++;
        seed(s, text, e.msg, in->policy);
    }
    if (s->seeds) { /* picking seeds: the loader's verdict is all it needs */
        free(text);
        return;
    }
    int proc = s->proc_every > 0 && (s->swept - 1) % s->proc_every == 0;
    const command *cmds = in->policy ? POLICY_COMMANDS : RESULTS_COMMANDS;
    size_t ncmds = in->policy ? sizeof POLICY_COMMANDS / sizeof *POLICY_COMMANDS
                              : sizeof RESULTS_COMMANDS / sizeof *RESULTS_COMMANDS;
    for (size_t c = 0; c < ncmds; c++) {
        check_command(s, &cmds[c], s->mpath, in->file, refused, path, 0);
        if (proc) check_command(s, &cmds[c], s->mpath, in->file, refused, path, 1);
    }
    if (proc) s->procs++;
    free(text);
}

static void sweep_input(sweep *s, const input *in) {
    cJSON *orig = gb_test_load_json(in->file);
    CHECK(orig != NULL);
    if (!orig) return;
    pathlist l = {0};
    collect(&l, orig, "");
    for (size_t i = 0; i < l.n; i++) {
        for (int m = 0; m < NMUT; m++) {
            const cJSON *node = l.node[i];
            if (!MUTATIONS[m].json && i == 0) continue; /* the root cannot be deleted */
            cJSON *with = MUTATIONS[m].json ? cJSON_Parse(MUTATIONS[m].json) : NULL;
            if (with && cJSON_Compare(with, node, 1)) {
                cJSON_Delete(with);
                continue;
            }
            long index = s->index++;
            if (index % s->every != s->offset) {
                cJSON_Delete(with);
                continue;
            }
            s->at = index;
            snprintf(s->mutant, sizeof s->mutant, "%s: %.40s: %s", in->file, *l.path[i] ? l.path[i] : "(root)",
                     MUTATIONS[m].name);
            /* the same node in a copy of the tree: by its pre-order number */
            cJSON *copy = cJSON_Duplicate(orig, 1);
            pathlist cl = {0};
            collect(&cl, copy, "");
            cJSON *target = cl.node[i], *parent = parent_of(copy, target);
            if (!parent) {
                cJSON_Delete(copy);
                copy = with;
            } else if (!with) {
                cJSON_Delete(cJSON_DetachItemViaPointer(parent, target));
            } else {
                if (cJSON_IsObject(parent)) with->string = strdup(target->string);
                cJSON_ReplaceItemViaPointer(parent, target, with);
            }
            pathlist_free(&cl);
            one_mutant(s, in, copy, l.path[i]);
            cJSON_Delete(copy);
        }
    }
    pathlist_free(&l);
    cJSON_Delete(orig);
}

TEST(mutation_sweep_every_reader_survives_every_mutation) {
    sweep s = {0};
    s.every = env_long("GB_MUTATION_EVERY", 61);
    s.offset = env_long("GB_MUTATION_OFFSET", 0) % (s.every > 0 ? s.every : 1);
    s.proc_every = env_long("GB_MUTATION_PROC_EVERY", 25);
    s.seeds = getenv("GB_MUTATION_SEEDS");
    if (s.every < 1) s.every = 1;
    snprintf(s.dir, sizeof s.dir, "/tmp/gb_mutation_XXXXXX");
    CHECK(mkdtemp(s.dir) != NULL);
    snprintf(s.mpath, sizeof s.mpath, "%s/mutant.json", s.dir);
    fflush(stdout);
    report_fd = dup(1);
    if (getenv("GB_MUTATION_TRACE")) trace_fd = open(getenv("GB_MUTATION_TRACE"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (__sanitizer_set_death_callback) __sanitizer_set_death_callback(say_current);
    void (*old_segv)(int) = signal(SIGSEGV, on_fatal), (*old_abrt)(int) = signal(SIGABRT, on_fatal);
    for (size_t i = 0; i < sizeof INPUTS / sizeof *INPUTS; i++) sweep_input(&s, &INPUTS[i]);
    signal(SIGSEGV, old_segv);
    signal(SIGABRT, old_abrt);
    current[0] = '\0';
    close(report_fd);
    report_fd = -1;
    if (trace_fd >= 0) close(trace_fd), unlink(getenv("GB_MUTATION_TRACE"));
    trace_fd = -1;
    unlink(s.mpath);
    rmdir(s.dir);
    for (size_t i = 0; i < s.nseen; i++) free(s.seen[i]);
    free(s.seen);
    /* the counts: on standard output when asked (the runner shows stderr
     * only for a failing test) */
    FILE *to = getenv("GB_MUTATION_VERBOSE") ? stdout : stderr;
    fprintf(to,
            "\nmutation sweep: %ld mutants of %ld (every %ld from %ld), %ld refused (%ld naming the full path, %ld "
            "the object holding it), %ld accepted; %ld commands run, %ld mutants also as processes; %ld "
            "failures\n",
            s.swept, s.index, s.every, s.offset, s.refused, s.full_path, s.prefix_only, s.accepted, s.commands,
            s.procs, s.failures);
    CHECK(s.swept > 0);
    CHECK(s.failures == 0);
}

/* The mutant the sweep first found: context.date of another type freed
 * context.hostname twice (SIGABRT in every reader). Each string field of a
 * context, single-run and merged, is refused with its path instead. */
TEST(mutation_context_string_of_another_type_is_refused_with_its_path) {
    static const struct { const char *file, *obj, *key, *path; } cases[] = {
        {"tests/data/results_small.json", NULL, "date", "context.date"},
        {"tests/data/results_small.json", NULL, "hostname", "context.hostname"},
        {"tests/data/results_merged.json", "runs", "date", "runs[0].context.date"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *doc = gb_test_load_json(cases[i].file);
        CHECK(doc != NULL);
        if (!doc) continue;
        cJSON *holder = cases[i].obj ? cJSON_GetArrayItem(cJSON_GetObjectItem(doc, cases[i].obj), 0) : doc;
        cJSON *ctx = cJSON_GetObjectItem(holder, "context");
        CHECK(ctx != NULL);
        cJSON_ReplaceItemInObject(ctx, cases[i].key, cJSON_CreateNumber(5));
        gb_results r;
        gb_err e = {{0}};
        CHECK(gb_results_from_json(doc, "m.json", &r, &e) == GB_FAIL);
        CHECK(strstr(e.msg, cases[i].path) && strstr(e.msg, "expected a string, got a number"));
        cJSON_Delete(doc);
    }
}

/* The sweep's second find: params.gpus of 1e300 reached an int conversion
 * in the scaling table (undefined; UBSan ended the process). A "gpus" that
 * is no device count leaves its case out of the table. */
TEST(mutation_params_gpus_beyond_a_device_count_is_left_out_of_the_scaling_table) {
    cJSON *doc = gb_test_load_json("tests/data/results_multigpu.json");
    CHECK(doc != NULL);
    if (!doc) return;
    size_t n[2] = {0, 0};
    for (int huge = 0; huge < 2; huge++) {
        const cJSON *c;
        cJSON_ArrayForEach(c, cJSON_GetObjectItem(doc, "cases")) {
            cJSON *params = cJSON_GetObjectItem(c, "params");
            if (huge && cJSON_GetObjectItem(params, "gpus"))
                cJSON_ReplaceItemInObject(params, "gpus", cJSON_CreateNumber(1e300));
        }
        gb_results r;
        gb_err e = {{0}};
        gb_scaling_row *rows = NULL;
        CHECK(gb_results_from_json(doc, "m.json", &r, &e) == GB_OK);
        CHECK(gb_scaling_compute(&r, &rows, &n[huge], &e) == GB_OK);
        free(rows);
        gb_results_free(&r);
    }
    CHECK(n[0] > 0 && n[1] == 0);
    cJSON_Delete(doc);
}

/* The sweep on the merged code of 2026-11-26: a median of 1e300 made the
 * HTML chart's axis run past DBL_MAX, and the tick code cast log10(inf) to
 * an int (undefined; UBSan ended the process). Every format renders such a
 * file; under the sanitized build (`make test SANITIZE=...`) a cast like that
 * would end this test. */
TEST(mutation_huge_median_renders_in_every_report_format) {
    cJSON *doc = gb_test_load_json("tests/data/results_small.json");
    CHECK(doc != NULL);
    if (!doc) return;
    cJSON *r0 = cJSON_GetArrayItem(cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(doc, "cases"), 0), "results"), 0);
    cJSON *stats = cJSON_GetObjectItem(r0, "stats");
    CHECK(stats != NULL);
    if (stats) cJSON_ReplaceItemInObject(stats, "median", cJSON_CreateNumber(1e300));
    gb_results r;
    gb_err e = {{0}};
    CHECK(gb_results_from_json(doc, "m.json", &r, &e) == GB_OK);
    for (int f = GB_FMT_TABLE; f <= GB_FMT_HTML; f++) {
        FILE *out = tmpfile();
        CHECK(out != NULL);
        if (!out) continue;
        gb_report_options o = {.format = (gb_format)f};
        CHECK(gb_report_render(&r, &o, out) == 0);
        CHECK(ftell(out) > 0);
        fclose(out);
    }
    gb_results_free(&r);
    cJSON_Delete(doc);
}
