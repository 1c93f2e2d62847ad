/* cmd_history.c — `gpubench history SUBCOMMAND`: the store of every run
 * (src/history/history.h, docs/history.md). Thin: parse, call, print.
 * Exit 0 success, 1 a check found a regression (check) or a slowdown
 * (bisect), 2 usage or input error. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "compare_confirm.h"
#include "history.h"
#include "results_io.h"
#include "runner.h"
#include "writer.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: gpubench history add RESULTS.json... [--commit SHA] [--branch B] [--commit-time ISO]\n"
            "       gpubench history list [filters]\n"
            "       gpubench history show CASE-PATTERN [filters]\n"
            "       gpubench history export [--format csv|json] [CASE-PATTERN] [filters]\n"
            "       gpubench history prune --keep N | --older-than DAYS\n"
            "       gpubench history check RESULTS.json [--baseline-runs N] [-t PCT] [-a A] [-p POLICY] [-f table|md|json]\n"
            "       gpubench history calibrate RESULTS.json [--inject X] [--min-time T] [-n N] [-t PCT] [-f table|json]\n"
            "       gpubench history bisect CASE-PATTERN [-t PCT] [filters]\n"
            "       gpubench history publish DIR [CASE-PATTERN] [-t PCT] [filters]\n"
            "\n"
            "Every run kept in one SQLite file: trends across commits and machines, a static\n"
            "dashboard, and CI against the trend (docs/history.md).\n"
            "\n"
            "  -d, --db PATH          the history (default $GPUBENCH_HISTORY, else %s)\n"
            "  filters: --machine M (hostname, CPU or GPU substring, or machine key), --suite S,\n"
            "           --branch B, --since DATE, --until DATE (ISO dates: 2026-11-30)\n"
            "  -t, --threshold PCT    smallest change that matters (default 5%%)\n"
            "  -a, --alpha A          check, calibrate: family-wise error rate (default 0.01)\n"
            "  -p, --policy FILE      check, calibrate: per-op thresholds (docs/ci.md)\n"
            "  -n, --baseline-runs N  check: the last N runs of this machine (default 8); calibrate: N others\n"
            "  -f, --format F         check: table, md or json; calibrate: table or json; export: csv or json\n"
            "  -U, --fail-on-unsure   check: exit 1 when every compared case is unsure\n"
            "  -v, --verbose          check: full names, each case's reason and what would decide it\n"
            "      --confirm SUITE    check: re-measure the suspects in fresh processes (compare --confirm);\n"
            "                         with the default 8 runs, what docs/ci.md recommends for CI\n"
            "      --confirm-runs N   check: how many fresh processes (default %d)\n"
            "      --confirm-unsure   check: re-measure every unsure case too, so that it can come out same\n"
            "  -q, --quiet            check --confirm: the re-measuring runs' output to a log, not stderr\n"
            "      --inject X         calibrate: also make each long case of each run X times slower (1.2)\n"
            "      --min-time T       calibrate: a long case takes T or more (default 100us)\n"
            "  -h, --help\n"
            "\n"
            "A CASE-PATTERN is a glob (matmul/float32/*/cuda/device) or a substring of the name\n"
            "op/dtype/label[/params]/backend/timing.\n"
            "calibrate judges each of the machine's last N+1 runs against the other N, as check would:\n"
            "what the gate flags on this machine's own noise, and (--inject) what it catches.\n"
            "exit status: 0 ok; 1 check: a regression or failed result, bisect: a slowdown found;\n"
            "2 usage or input error (a file already added, a database that is not a history).\n",
            GB_HISTORY_DEFAULT_PATH, GB_CI_CONFIRM_RUNS);
}

enum { O_COMMIT = 256, O_BRANCH, O_CTIME, O_MACHINE, O_SUITE, O_HBRANCH, O_SINCE, O_UNTIL, O_KEEP, O_OLDER,
       O_CONFIRM, O_CONFIRM_RUNS, O_CONFIRM_UNSURE, O_INJECT, O_MIN_TIME };

/* history check --confirm: compare's second stage, on the history's baseline */
static int history_confirm(gb_compare_result **cmp, const gb_results **docs, const char **names, size_t n,
                           gb_compare_options *o, void *ctx, gb_err *e) {
    if (gb_cli_compare_confirm(cmp, docs, names, (int)n, 1, o, *(const int *)ctx) != GB_EXIT_OK) {
        gb_errf(e, GB_FAIL, "--confirm: a suspect could not be re-measured (said above)");
        return -1;
    }
    return 0;
}

/* On a terminal, where a calibration with --inject is (it takes a while). */
static void calibrate_progress(void *ctx, size_t done, size_t total) {
    (void)ctx;
    if (done < total) fprintf(stderr, "\rcalibrating: run %zu of %zu", done + 1, total);
    else fprintf(stderr, "\r%40s\r", "");
}

/* history calibrate: the gate's false alarms and power on this history */
static int calibrate(gb_history *h, const char *path, long nbase, gb_rule rule, unsigned cli_set,
                     const char *policy_path, const char *format, double inject, double min_time, gb_err *e) {
    if (format && strcmp(format, "json") != 0 && strcmp(format, "table") != 0) {
        fprintf(stderr, "gpubench history calibrate: --format: table or json, got '%s'\n", format);
        return GB_EXIT_USAGE;
    }
    gb_policy *pol = NULL;
    if (policy_path && !(pol = gb_policy_load(policy_path, e))) return GB_EXIT_USAGE;
    gb_history_calibrate_options o = {.baseline_runs = (size_t)nbase, .inject = inject, .min_time_s = min_time};
    if (inject > 0 && isatty(STDERR_FILENO)) o.progress = calibrate_progress;
    o.cmp.rule = rule;
    o.cmp.cli_set = cli_set;
    o.cmp.policy = pol;
    o.cmp.policy_path = policy_path;
    o.cmp.require_present = gb_policy_require_present(pol, GB_DEFAULT_REQUIRE_PRESENT);
    int rc = gb_history_calibrate(h, path, &o, format && strcmp(format, "json") == 0, stdout, e) == 0 ? GB_EXIT_OK
                                                                                                   : GB_EXIT_USAGE;
    gb_policy_free(pol);
    return rc;
}

/* A date option strictly ISO 8601 (gb_parse_iso_time): "yesterday" matched
 * no run and exited 0; 1 when it is one, 0 after saying why. */
/* Does any of the files load as results? When none does, each is named
 * with its reason (when one does, the add names the others). */
static int any_loads(char **paths, int n) {
    gb_err *why = calloc((size_t)n, sizeof *why);
    int loads = 0;
    for (int i = 0; i < n && !loads; i++) {
        gb_results r;
        if (gb_results_load(paths[i], &r, why ? &why[i] : &(gb_err){{0}}) == GB_OK) {
            gb_results_free(&r);
            loads = 1;
        }
    }
    for (int i = 0; i < n && !loads && why; i++) fprintf(stderr, "gpubench history add: %s\n", why[i].msg);
    free(why);
    return loads;
}

static int iso_time(const char *opt, const char *v) {
    if (gb_parse_iso_time(v) == 0) return 1;
    fprintf(stderr, "gpubench history: %s: expected an ISO 8601 date or time (2026-11-30, 2026-11-30T14:05:00Z, "
                    "2026-11-30T14:05:00+01:00), got '%s'\n", opt, v);
    return 0;
}

int gb_cmd_history(int argc, char **argv) {
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? GB_EXIT_USAGE : GB_EXIT_OK;
    }
    const char *sub = argv[1];
    static const struct option opts[] = {
        {"db", required_argument, 0, 'd'},         {"commit", required_argument, 0, O_COMMIT},
        {"branch", required_argument, 0, O_BRANCH}, {"commit-time", required_argument, 0, O_CTIME},
        {"machine", required_argument, 0, O_MACHINE}, {"suite", required_argument, 0, O_SUITE},
        {"since", required_argument, 0, O_SINCE},  {"until", required_argument, 0, O_UNTIL},
        {"keep", required_argument, 0, O_KEEP},    {"older-than", required_argument, 0, O_OLDER},
        {"threshold", required_argument, 0, 't'},  {"alpha", required_argument, 0, 'a'},
        {"policy", required_argument, 0, 'p'},     {"baseline-runs", required_argument, 0, 'n'},
        {"format", required_argument, 0, 'f'},     {"help", no_argument, 0, 'h'},
        {"fail-on-unsure", no_argument, 0, 'U'},   {"verbose", no_argument, 0, 'v'},
        {"confirm", required_argument, 0, O_CONFIRM}, {"confirm-runs", required_argument, 0, O_CONFIRM_RUNS},
        {"quiet", no_argument, 0, 'q'},            {"confirm-unsure", no_argument, 0, O_CONFIRM_UNSURE},
        {"inject", required_argument, 0, O_INJECT}, {"min-time", required_argument, 0, O_MIN_TIME},
        {0, 0, 0, 0}};
    const char *db = NULL, *format = NULL, *policy_path = NULL;
    gb_history_source src = {0};
    gb_history_filter flt = {0};
    const char *add_branch = NULL;
    long keep = 0, nbase = 8;
    double older = 0, inject = 0, min_time = 100e-6;
    gb_rule rule = GB_DEFAULT_RULE;
    unsigned cli_set = 0;
    int fail_unsure = 0, verbose = 0, quiet = 0, confirm_unsure = 0;
    const char *confirm_suite = NULL;
    long confirm_runs = GB_CI_CONFIRM_RUNS; /* check --confirm is the CI recipe (docs/ci.md) */
    char why[160];
    optind = 1;
    int c;
    while ((c = gb_cli_getopt(argc - 1, argv + 1, "d:t:a:p:n:f:Uvqh", opts)) != -1) {
        switch (c) {
        case 'd': db = optarg; break;
        case O_COMMIT: src.commit = optarg; break;
        case O_BRANCH: add_branch = optarg; flt.branch = optarg; break;
        case O_CTIME: src.commit_time = optarg; if (!iso_time("--commit-time", optarg)) return GB_EXIT_USAGE; break;
        case O_MACHINE: flt.machine = optarg; break;
        case O_SUITE: flt.suite = optarg; break;
        case O_SINCE: flt.since = optarg; if (!iso_time("--since", optarg)) return GB_EXIT_USAGE; break;
        case O_UNTIL: flt.until = optarg; if (!iso_time("--until", optarg)) return GB_EXIT_USAGE; break;
        case O_KEEP:
            if (gb_cli_parse_int(optarg, 1, 1000000000, &keep) != 0) {
                fprintf(stderr, "gpubench history: --keep: expected a positive whole number, got '%s'\n", optarg);
                return GB_EXIT_USAGE;
            }
            break;
        case O_OLDER:
            /* days, up to a century: 1e300 days overflowed time_t (undefined behaviour) */
            if (gb_parse_real(optarg, 0, 36500, &older) != 0 || !(older > 0)) {
                fprintf(stderr, "gpubench history: --older-than: expected a positive number of days up to 36500, "
                                "got '%s'\n", optarg);
                return GB_EXIT_USAGE;
            }
            break;
        case O_INJECT: {
            /* a slowdown, as GPUBENCH_FAULT_SLOW takes it: what the gate is for */
            if (gb_parse_real(optarg, 1, 1000, &inject) != 0 || !(inject > 1)) {
                fprintf(stderr, "gpubench history: --inject: expected a slowdown factor above 1 and at most 1000, "
                                "such as 1.2 (20%% slower), got '%s'\n", optarg);
                return GB_EXIT_USAGE;
            }
            break;
        }
        case O_MIN_TIME:
            if (gb_parse_duration(optarg, &min_time, why, sizeof why) != 0) {
                fprintf(stderr, "gpubench history: --min-time: %s\n", why);
                return GB_EXIT_USAGE;
            }
            break;
        case 'U': fail_unsure = 1; break;
        case 'q': quiet = 1; break;
        case O_CONFIRM: confirm_suite = optarg; break;
        case O_CONFIRM_UNSURE: confirm_unsure = 1; break;
        case O_CONFIRM_RUNS:
            if (gb_cli_parse_int(optarg, 1, GB_CONFIRM_MAX_RUNS, &confirm_runs) != 0) {
                fprintf(stderr, "gpubench history: --confirm-runs: expected a whole number from 1 to %d, got '%s'\n",
                        GB_CONFIRM_MAX_RUNS, optarg);
                return GB_EXIT_USAGE;
            }
            break;
        case 'v': verbose = 1; break;
        case 't':
            if (gb_parse_percent(optarg, &rule.threshold, why, sizeof why) != 0 || !(rule.threshold > 0)) {
                fprintf(stderr, "gpubench history: --threshold: %s\n", why);
                return GB_EXIT_USAGE;
            }
            cli_set |= GB_CLI_THRESHOLD;
            break;
        case 'a': {
            char *end;
            rule.alpha = strtod(optarg, &end);
            if (*end || !(rule.alpha > 0 && rule.alpha < 1)) {
                fprintf(stderr, "gpubench history: --alpha: expected a number in (0, 1), got '%s'\n", optarg);
                return GB_EXIT_USAGE;
            }
            cli_set |= GB_CLI_ALPHA;
            break;
        }
        case 'p': policy_path = optarg; break;
        case 'n':
            if (gb_cli_parse_int(optarg, 2, 64, &nbase) != 0) {
                fprintf(stderr, "gpubench history: --baseline-runs: expected 2 to 64, got '%s'\n", optarg);
                return GB_EXIT_USAGE;
            }
            break;
        case 'f': format = optarg; break;
        case 'h': usage(stdout); return GB_EXIT_OK;
        default: return gb_cli_bad_option("history", argc - 1, argv + 1, "d:t:a:p:n:f:h");
        }
    }
    src.branch = add_branch;
    char **pos = argv + 1 + optind;
    int npos = argc - 1 - optind;
    const char *path = gb_history_path(db);
    int is_add = strcmp(sub, "add") == 0;
    int needs_pos = is_add || strcmp(sub, "show") == 0 || strcmp(sub, "check") == 0 || strcmp(sub, "bisect") == 0 ||
                    strcmp(sub, "publish") == 0 || strcmp(sub, "calibrate") == 0;
    if (!is_add && !needs_pos && strcmp(sub, "list") && strcmp(sub, "export") && strcmp(sub, "prune")) {
        fprintf(stderr, "gpubench history: unknown subcommand '%s' (add, list, show, export, prune, check, calibrate, "
                        "bisect, publish)\n", sub);
        return GB_EXIT_USAGE;
    }
    if (needs_pos && npos < 1) {
        fprintf(stderr, "gpubench history %s: missing argument (see --help)\n", sub);
        return GB_EXIT_USAGE;
    }
    if (strcmp(sub, "prune") == 0 && keep == 0 && older == 0) {
        fprintf(stderr, "gpubench history prune: give --keep N or --older-than DAYS\n");
        return GB_EXIT_USAGE;
    }
    gb_err e = {{0}};
    /* only add creates a history; the readers refuse a missing one. A new
     * history is made only for a file that loads: an add that can add nothing
     * leaves no empty history behind (checked before, not removed after: a
     * second add may have made the same file meanwhile). */
    if (is_add && access(path, F_OK) != 0 && !any_loads(pos, npos)) return GB_EXIT_USAGE;
    gb_history *h = gb_history_open(path, is_add, &e);
    if (!h) {
        fprintf(stderr, "gpubench history %s: %s\n", sub, e.msg);
        return GB_EXIT_USAGE;
    }
    int rc = GB_EXIT_OK;
    if (is_add) {
        for (int i = 0; i < npos; i++) {
            gb_history_added a;
            if (gb_history_add(h, pos[i], &src, NULL, NULL, &a, &e) != GB_OK) {
                fprintf(stderr, "gpubench history add: %s\n", e.msg);
                rc = GB_EXIT_USAGE;
            } else if (a.duplicate) {
                fprintf(stderr, "gpubench history add: %s: already in %s (run %lld, same sha256 %.16s...): not added\n",
                        pos[i], path, a.run_id, a.sha256);
                rc = GB_EXIT_USAGE;
            } else
                printf("%s: added as run %lld (%zu result%s, commit %.12s) to %s\n", pos[i], a.run_id, a.results,
                       a.results == 1 ? "" : "s", a.commit[0] ? a.commit : "unknown", path);
        }
    } else if (strcmp(sub, "list") == 0) {
        if (gb_history_list(h, &flt, stdout, &e) != GB_OK) rc = GB_EXIT_USAGE;
    } else if (strcmp(sub, "show") == 0) {
        flt.pattern = pos[0];
        if (gb_history_show(h, &flt, isatty(STDOUT_FILENO), stdout, &e) != GB_OK) rc = GB_EXIT_USAGE;
    } else if (strcmp(sub, "export") == 0) {
        gb_history_format fmt = GB_HIST_CSV;
        if (format && strcmp(format, "json") == 0) fmt = GB_HIST_JSON;
        else if (format && strcmp(format, "csv") != 0) {
            fprintf(stderr, "gpubench history export: --format: csv or json, got '%s'\n", format);
            gb_history_close(h);
            return GB_EXIT_USAGE;
        }
        flt.pattern = npos > 0 ? pos[0] : NULL;
        if (gb_history_export(h, &flt, fmt, stdout, &e) != GB_OK) rc = GB_EXIT_USAGE;
    } else if (strcmp(sub, "prune") == 0) {
        long removed = 0;
        if (gb_history_prune(h, keep, older, &removed, &e) != GB_OK) rc = GB_EXIT_USAGE;
        else printf("pruned %ld run%s from %s\n", removed, removed == 1 ? "" : "s", path);
    } else if (strcmp(sub, "bisect") == 0) {
        flt.pattern = pos[0];
        int r = gb_history_bisect(h, &flt, rule.threshold, stdout, &e);
        rc = r == GB_FAIL ? GB_EXIT_USAGE : r ? GB_EXIT_CHECK : GB_EXIT_OK;
    } else if (strcmp(sub, "publish") == 0) {
        flt.pattern = npos > 1 ? pos[1] : NULL;
        size_t pages = 0;
        if (gb_history_publish(h, &flt, pos[0], rule.threshold, &pages, &e) != GB_OK) rc = GB_EXIT_USAGE;
        else printf("%s/index.html: %zu case page%s\n", pos[0], pages, pages == 1 ? "" : "s");
    } else if (strcmp(sub, "calibrate") == 0) {
        rc = calibrate(h, pos[0], nbase, rule, cli_set, policy_path, format, inject, min_time, &e);
    } else { /* check */
        const gb_writer *cw = &gb_writer_term; /* NULL: the JSON document */
        if (format && strcmp(format, "md") == 0) cw = &gb_writer_md;
        else if (format && strcmp(format, "json") == 0) cw = NULL;
        else if (format && strcmp(format, "table") != 0) {
            fprintf(stderr, "gpubench history check: --format: table, md or json, got '%s'\n", format);
            gb_history_close(h);
            return GB_EXIT_USAGE;
        }
        gb_policy *pol = NULL;
        if (policy_path && !(pol = gb_policy_load(policy_path, &e))) {
            fprintf(stderr, "gpubench history check: %s\n", e.msg);
            gb_history_close(h);
            return GB_EXIT_USAGE;
        }
        gb_history_check_options o = {.baseline_runs = (size_t)nbase};
        o.cmp.rule = rule;
        o.cmp.cli_set = cli_set;
        o.cmp.policy = pol;
        o.cmp.policy_path = policy_path;
        o.cmp.require_present = gb_policy_require_present(pol, GB_DEFAULT_REQUIRE_PRESENT);
        o.cmp.fail_on_unsure = fail_unsure || gb_policy_fail_on_unsure(pol);
        o.verbose = verbose;
        if (confirm_unsure && !confirm_suite) {
            fprintf(stderr, "gpubench history check: --confirm-unsure needs --confirm SUITE (the suite to re-measure "
                            "with)\n");
            gb_policy_free(pol);
            gb_history_close(h);
            return GB_EXIT_USAGE;
        }
        if (confirm_suite) {
            o.cmp.confirm_runs = (int)confirm_runs;
            o.cmp.confirm_suite = confirm_suite;
            o.cmp.confirm_unsure = confirm_unsure;
            o.confirm = history_confirm;
            o.confirm_ctx = &quiet;
        }
        int ec = gb_history_check(h, pos[0], &o, cw, stdout, &e);
        rc = ec < 0 ? GB_EXIT_USAGE : ec;
        gb_policy_free(pol);
    }
    if (rc == GB_EXIT_USAGE && e.msg[0] && !is_add) fprintf(stderr, "gpubench history %s: %s\n", sub, e.msg);
    gb_history_close(h);
    return rc;
}

int gb_cli_history_add_run(const char *db, const char *path) {
    const char *hp = gb_history_path(db && *db ? db : NULL);
    if (!path) {
        fprintf(stderr, "gpubench run: --history: the run was not written to a file, or was stopped: not added to %s\n", hp);
        return GB_EXIT_USAGE;
    }
    gb_err e = {{0}};
    gb_history *h = gb_history_open(hp, 1, &e);
    gb_history_added a;
    int rc = GB_EXIT_OK;
    if (!h || gb_history_add(h, path, NULL, NULL, NULL, &a, &e) != GB_OK) {
        fprintf(stderr, "gpubench run: --history: %s\n", e.msg);
        rc = GB_EXIT_USAGE;
    } else
        fprintf(stderr, "history: added as run %lld to %s\n", a.run_id, hp);
    gb_history_close(h);
    return rc;
}

int gb_cli_history_ready(const char *db) {
    const char *hp = gb_history_path(db && *db ? db : NULL);
    const char *fault = getenv(GB_FAULT_SLOW_VAR);
    if (fault && *fault) {
        fprintf(stderr, "gpubench run: --history: %s is set (%.80s): a run made slower on purpose is not added to "
                        "%s, which keeps the machine's times; unset it, or leave out --history\n",
                GB_FAULT_SLOW_VAR, fault, hp);
        return GB_EXIT_USAGE;
    }
    gb_err e = {{0}};
    gb_history *h = gb_history_open(hp, 1, &e);
    if (!h) {
        fprintf(stderr, "gpubench run: --history: %s\n", e.msg);
        return GB_EXIT_USAGE;
    }
    gb_history_close(h);
    return GB_EXIT_OK;
}
