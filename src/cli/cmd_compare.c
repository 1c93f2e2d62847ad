/* cmd_compare.c — `gpubench compare BASELINE.json CURRENT.json`: the CI gate.
 * Exit 0 no regression, 1 a regression or a failed result in CURRENT,
 * 2 usage or input error. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "compare_confirm.h"
#include "confirm_run.h"
#include "file_roles.h"
#include "suite.h"
#include "writer.h"
#include "results_io.h"
#include "results_model.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: gpubench compare BASELINE.json CURRENT.json [options]\n"
            "       gpubench compare [options] BASE1.json BASE2.json ... -- CURRENT.json [CURRENT2.json ...]\n"
            "\n"
            "Match every result of the baseline with the current run (op, dtype, shape, params,\n"
            "backend, timing) and judge each from its rounds and runs: regression / improvement /\n"
            "same / unsure. Each file is one process: a baseline of two or more runs measures how\n"
            "much every case moves between processes (its own noise floor).\n"
            "\n"
            "  -t, --threshold PCT        smallest change that matters, with its sign (default 5%%)\n"
            "  -a, --alpha A              family-wise error rate over all cases, Holm (default 0.01)\n"
            "  -m, --min-change D         also require the medians to differ by D, with its unit\n"
            "                             (10us, 0.5ms; default 0: none)\n"
            "  -r, --require-present PCT  share of the baseline's results the current run must hold\n"
            "                             (default 100%%; fewer: exit 2)\n"
            "  -p, --policy FILE          per-op thresholds (JSON; see docs/ci.md)\n"
            "  -f, --format F             table (default), md, html (a page) or json\n"
            "  -o, --output FILE          write the report there instead of stdout (atomically; checked\n"
            "                             before the inputs are read)\n"
            "  -c, --confirm SUITE        re-measure the suspects (regressions, and unsure cases whose\n"
            "                             estimate is beyond +threshold) in fresh processes of this\n"
            "                             gpubench (`run SUITE --case ...`) and keep only the regressions\n"
            "                             those confirm (Holm over the suspects)\n"
            "  -n, --confirm-runs N       how many fresh processes (1 to %d, default %d)\n"
            "      --confirm-unsure       re-measure every unsure case too, so that it can come out\n"
            "                             same (one current process cannot show its own shift)\n"
            "  -q, --quiet                the re-measuring runs' output to a log, not to stderr\n"
            "      --ci SUITE             what a CI job should use (docs/ci.md): --confirm SUITE with\n"
            "                             %d fresh processes (unless -n), and a warning when the baseline\n"
            "                             has fewer than %d runs (the power docs/ci.md measured)\n"
            "  -U, --fail-on-unsure       exit 1 when every compared case is unsure (nothing decided;\n"
            "                             policy key fail_on_unsure)\n"
            "  -b, --budget D             the extra time the summary counts decidable unsure cases\n"
            "                             for (default 60s)\n"
            "  -v, --verbose              full case names, and each case's reason and what would\n"
            "                             decide it (the table keeps to 100 columns without it)\n"
            "  -h, --help\n"
            "\n"
            "exit status: 0 no regression; 1 a regression, or a failed/error result in CURRENT;\n"
            "2 usage or input error, or nothing (or too little) compared, or --confirm could not\n"
            "re-measure a suspect (its run failed, or the case is missing from its results).\n",
            GB_CONFIRM_MAX_RUNS, GB_CONFIRM_DEFAULT_RUNS, GB_CI_CONFIRM_RUNS, GB_CI_BASELINE_RUNS);
}

/* --confirm: the suspects of the first judgement (cmp's summary.confirm.cases)
 * re-measured in o->confirm_runs fresh processes, and *cmp replaced by the
 * judgement with its second stage. GB_EXIT_OK (also when there is no suspect:
 * nothing runs), or GB_EXIT_USAGE after saying which case could not be
 * re-measured and why. */
int gb_cli_compare_confirm(gb_compare_result **cmp, const gb_results **ptr, const char **names, int nb, int ncf,
                           gb_compare_options *o, int quiet) {
    const gb_cmp_strs *cases = &(*cmp)->summary.confirm.cases;
    int n = (int)cases->n;
    if (n == 0 || *(*cmp)->error) return GB_EXIT_OK;
    const char **list = calloc((size_t)n, sizeof *list);
    if (!list) {
        fprintf(stderr, "gpubench compare: out of memory\n");
        return GB_EXIT_USAGE;
    }
    int k = 0;
    for (size_t i = 0; i < cases->n; i++) list[k++] = cases->item[i];
    /* every suspect must be a case of the suite, or its re-measurement is missing */
    gb_suite_filter f = {.case_names = list, .ncase_names = (size_t)n};
    gb_suite s;
    gb_err e = {{0}};
    if (gb_suite_load(o->confirm_suite, &f, &s, &e) != GB_OK) {
        fprintf(stderr, "gpubench compare: --confirm: cannot re-measure a suspect: %s\n", e.msg);
        free(list);
        return GB_EXIT_USAGE;
    }
    gb_suite_free(&s);
    gb_confirm_runs cr;
    char why[1200];
    int rc = GB_EXIT_USAGE;
    if (gb_confirm_run(o->confirm_suite, list, (size_t)n, o->confirm_runs, quiet, &cr, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench compare: --confirm: %s%s%s\n", why, cr.dir[0] ? "; kept: " : "", cr.dir);
        gb_confirm_free(&cr, 0);
        free(list);
        return GB_EXIT_USAGE;
    }
    const gb_results **docs = calloc((size_t)cr.loaded, sizeof *docs);
    if (docs) {
        for (int i = 0; i < cr.loaded; i++) docs[i] = &cr.docs[i];
        o->confirm = docs;
        o->confirm_names = (const char *const *)cr.paths;
        o->nconfirm = (size_t)cr.loaded;
        o->confirm_seconds = cr.seconds;
        gb_compare_result *two = gb_compare_judge_runs(ptr, names, (size_t)nb, ptr + nb, names + nb, (size_t)ncf, o);
        if (two) {
            gb_compare_result_free(*cmp);
            *cmp = two;
            rc = GB_EXIT_OK;
        }
        o->confirm = NULL;
        o->confirm_names = NULL;
    }
    if (rc != GB_EXIT_OK) fprintf(stderr, "gpubench compare: out of memory\n");
    free(docs);
    gb_confirm_free(&cr, 1);
    free(list);
    return rc;
}

int gb_cmd_compare(int argc, char **argv) {
    static const struct option opts[] = {
        {"threshold", required_argument, 0, 't'}, {"alpha", required_argument, 0, 'a'},
        {"policy", required_argument, 0, 'p'},    {"format", required_argument, 0, 'f'},
        {"min-change", required_argument, 0, 'm'}, {"require-present", required_argument, 0, 'r'},
        {"output", required_argument, 0, 'o'},    {"help", no_argument, 0, 'h'},
        {"confirm", required_argument, 0, 'c'},   {"confirm-runs", required_argument, 0, 'n'},
        {"quiet", no_argument, 0, 'q'},          {"fail-on-unsure", no_argument, 0, 'U'},
        {"budget", required_argument, 0, 'b'},   {"verbose", no_argument, 0, 'v'},
        {"ci", required_argument, 0, 'C'},       {"confirm-unsure", no_argument, 0, 'N'},
        {0, 0, 0, 0}};
    gb_compare_options o = {.rule = GB_DEFAULT_RULE, .require_present = GB_DEFAULT_REQUIRE_PRESENT};
    const gb_writer *writer = &gb_writer_term; /* NULL: the JSON document */
    const char *policy_path = NULL, *output = NULL, *confirm_suite = NULL;
    int confirm_runs = GB_CONFIRM_DEFAULT_RUNS, confirm_runs_set = 0, quiet = 0, verbose = 0, fail_unsure = 0;
    /* "--" splits baseline files from current files; getopt would swallow
     * it (and permute the files around it), so the split is found first. */
    int dd = argc;
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--") == 0) { dd = i; break; }
    optind = 1;
    int c;
    char why[200];
    while ((c = gb_cli_getopt(dd, argv, "t:a:m:r:p:f:o:c:n:qUb:vh", opts)) != -1) {
        switch (c) {
        case 't':
            if (gb_parse_percent(optarg, &o.rule.threshold, why, sizeof why) != 0) {
                fprintf(stderr, "gpubench compare: --threshold %s\n", why);
                return GB_EXIT_USAGE;
            }
            o.cli_set |= GB_CLI_THRESHOLD;
            break;
        case 'r':
            if (gb_parse_percent(optarg, &o.require_present, why, sizeof why) != 0 || o.require_present > 1) {
                if (o.require_present > 1) snprintf(why, sizeof why, "%s is over 100%%", optarg);
                fprintf(stderr, "gpubench compare: --require-present %s\n", why);
                return GB_EXIT_USAGE;
            }
            o.cli_set |= GB_CLI_REQUIRE_PRESENT;
            break;
        case 'a': {
            const char *end = NULL;
            if (gb_scan_decimal(optarg, &o.rule.alpha, &end) != 0 || *end || !(o.rule.alpha > 0 && o.rule.alpha < 1)) {
                fprintf(stderr, "gpubench compare: --alpha: expected a number between 0 and 1, got '%s'\n", optarg);
                return GB_EXIT_USAGE;
            }
            o.cli_set |= GB_CLI_ALPHA;
            break;
        }
        case 'm':
            if (gb_parse_duration(optarg, &o.rule.min_change_s, why, sizeof why) != 0) {
                fprintf(stderr, "gpubench compare: --min-change %s\n", why);
                return GB_EXIT_USAGE;
            }
            o.cli_set |= GB_CLI_MIN_CHANGE;
            break;
        case 'p': policy_path = optarg; break;
        case 'f':
            if (strcmp(optarg, "table") == 0) writer = &gb_writer_term;
            else if (strcmp(optarg, "md") == 0 || strcmp(optarg, "markdown") == 0) writer = &gb_writer_md;
            else if (strcmp(optarg, "html") == 0) writer = &gb_writer_html;
            else if (strcmp(optarg, "json") == 0) writer = NULL;
            else {
                fprintf(stderr, "gpubench compare: --format: expected table, md, html or json, got '%s'\n", optarg);
                return GB_EXIT_USAGE;
            }
            break;
        case 'o': output = optarg; break;
        case 'c': confirm_suite = optarg; break;
        case 'C':
            confirm_suite = optarg;
            o.ci = 1;
            break;
        case 'n': {
            long v;
            if (gb_cli_parse_int(optarg, 1, GB_CONFIRM_MAX_RUNS, &v) != 0) {
                fprintf(stderr, "gpubench compare: --confirm-runs: expected a whole number from 1 to %d, got '%s'\n",
                        GB_CONFIRM_MAX_RUNS, optarg);
                return GB_EXIT_USAGE;
            }
            confirm_runs = (int)v;
            confirm_runs_set = 1;
            break;
        }
        case 'q': quiet = 1; break;
        case 'N': o.confirm_unsure = 1; break;
        case 'U': fail_unsure = 1; break;
        case 'v': verbose = 1; break;
        case 'b':
            if (gb_parse_duration(optarg, &o.budget_s, why, sizeof why) != 0) {
                fprintf(stderr, "gpubench compare: --budget %s\n", why);
                return GB_EXIT_USAGE;
            }
            break;
        case 'h': usage(stdout); return GB_EXIT_OK;
        default: return gb_cli_bad_option("compare", dd, argv, "t:a:m:r:p:f:o:c:n:qh");
        }
    }
    /* files: BASE CUR, or BASE... -- CUR... */
    char **bfiles = argv + optind, **cfiles;
    int nb, ncf;
    if (dd < argc) {
        nb = dd - optind;
        cfiles = argv + dd + 1;
        ncf = argc - dd - 1;
    } else {
        nb = argc - optind == 2 ? 1 : argc - optind;
        cfiles = argv + optind + 1;
        ncf = argc - optind == 2 ? 1 : 0;
    }
    if (nb < 1 || ncf < 1 || nb > 64 || ncf > 64) {
        fprintf(stderr, "gpubench compare: expected BASELINE.json CURRENT.json, or BASE1.json ... -- CURRENT.json "
                "(at most 64 a side); got %d baseline and %d current file%s\n", nb < 0 ? 0 : nb, ncf,
                ncf == 1 ? "" : "s");
        usage(stderr);
        return GB_EXIT_USAGE;
    }
    if ((confirm_runs_set || o.confirm_unsure) && !confirm_suite) {
        fprintf(stderr, "gpubench compare: %s needs --confirm SUITE (the suite to re-measure with)\n",
                confirm_runs_set ? "--confirm-runs" : "--confirm-unsure");
        return GB_EXIT_USAGE;
    }
    gb_err e = {{0}};
    /* the suite is checked before anything is read or run: a typo must not
     * surface only after a regression was found */
    if (confirm_suite) {
        gb_suite s;
        if (gb_suite_load(confirm_suite, NULL, &s, &e) != GB_OK) {
            fprintf(stderr, "gpubench compare: --confirm: %s\n", e.msg);
            return GB_EXIT_USAGE;
        }
        gb_suite_free(&s);
    }
    gb_policy *policy = NULL;
    if (policy_path && !(policy = gb_policy_load(policy_path, &e))) {
        fprintf(stderr, "gpubench compare: %s\n", e.msg);
        return GB_EXIT_USAGE;
    }
    o.policy = policy;
    o.policy_path = policy_path;
    if (!(o.cli_set & GB_CLI_REQUIRE_PRESENT)) o.require_present = gb_policy_require_present(policy, o.require_present);
    o.fail_on_unsure = fail_unsure || gb_policy_fail_on_unsure(policy);
    int rc = GB_EXIT_USAGE, nfiles = nb + ncf, loaded = 0;
    gb_results *docs = calloc((size_t)nfiles, sizeof *docs);
    const gb_results **ptr = calloc((size_t)nfiles, sizeof *ptr);
    const char **names = calloc((size_t)nfiles, sizeof *names);
    gb_compare_result *cmp = NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *f = NULL;
    if (!docs || !ptr || !names) {
        fprintf(stderr, "gpubench compare: out of memory\n");
        goto out;
    }
    gb_file_roles roles = {0};
    for (int i = 0; i < nfiles; i++)
        gb_roles_input(&roles, i < nb ? "the baseline" : "the current results", i < nb ? bfiles[i] : cfiles[i - nb]);
    gb_roles_input(&roles, "the policy", policy_path);
    gb_roles_input(&roles, "the --confirm suite", confirm_suite);
    gb_roles_output(&roles, "-o", output);
    if (gb_roles_check(&roles, &e) != GB_OK || (output && gb_output_check(output, &e) != GB_OK)) {
        fprintf(stderr, "gpubench compare: %s\n", e.msg);
        goto out;
    }
    for (int i = 0; i < nfiles; i++, loaded++) {
        names[i] = i < nb ? bfiles[i] : cfiles[i - nb];
        ptr[i] = &docs[i];
        if (gb_results_load(names[i], &docs[i], &e) != GB_OK) {
            fprintf(stderr, "gpubench compare: %s\n", e.msg);
            goto out;
        }
    }
    /* --ci: the processes the simulation needed for +10% at H100-like noise */
    if (o.ci && !confirm_runs_set) confirm_runs = GB_CI_CONFIRM_RUNS;
    o.confirm_runs = confirm_suite ? confirm_runs : 0;
    o.confirm_suite = confirm_suite;
    cmp = gb_compare_judge_runs(ptr, names, (size_t)nb, ptr + nb, names + nb, (size_t)ncf, &o);
    if (!cmp) {
        fprintf(stderr, "gpubench compare: out of memory\n");
        goto out;
    }
    if (confirm_suite && gb_cli_compare_confirm(&cmp, ptr, names, nb, ncf, &o, quiet) != GB_EXIT_OK) goto out;
    /* -o FILE: rendered in memory, written by the one writer (results_io.h) */
    f = output ? open_memstream(&text, &len) : stdout;
    if (!f) {
        fprintf(stderr, "gpubench compare: out of memory\n");
        goto out;
    }
    if (writer) gb_compare_render_verbose(cmp, writer, f, verbose);
    else gb_compare_print_json(cmp, f);
    if (output) {
        int bad = fclose(f) != 0;
        if (bad || gb_file_write(output, text, len, &e) != GB_OK) {
            fprintf(stderr, "gpubench compare: %s\n", bad ? "out of memory" : e.msg);
            goto out;
        }
    }
    /* Machine mismatches also go to stderr when the report itself does not
     * reach the terminal (JSON, or -o FILE), so a CI log still shows them. */
    if (!writer || output)
        for (size_t i = 0; i < cmp->warnings.n; i++)
            fprintf(stderr, "gpubench compare: WARNING: %s\n", cmp->warnings.item[i]);
    if (*cmp->error) fprintf(stderr, "gpubench compare: %s\n", cmp->error);
    rc = cmp->exit_code;
out:
    free(text);
    gb_compare_result_free(cmp);
    for (int i = 0; i < loaded && docs; i++) gb_results_free(&docs[i]);
    free(docs);
    free(ptr);
    free(names);
    gb_policy_free(policy);
    return rc;
}
