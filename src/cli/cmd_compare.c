/* cmd_compare.c — `gpubench compare BASELINE.json CURRENT.json`: the CI gate.
 * Exit 0 no regression, 1 a regression or a failed result in CURRENT,
 * 2 usage or input error. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "results_io.h"
#include "results_model.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: gpubench compare BASELINE.json CURRENT.json [options]\n"
            "\n"
            "Match every result of CURRENT with BASELINE (op, dtype, shape, params, backend,\n"
            "timing) and judge each from its samples: regression / improvement / same / unsure.\n"
            "\n"
            "  -t, --threshold PCT   smallest change that matters (default 5%%)\n"
            "  -a, --alpha A         significance level of the Mann-Whitney U test (default 0.01)\n"
            "  -m, --min-change D    smallest change of the median that counts, e.g. 10us (default);\n"
            "                        launch-bound calls move by a few us between processes\n"
            "  -p, --policy FILE     per-op thresholds (JSON; see docs/ci.md)\n"
            "  -f, --format F        table (default), md or json\n"
            "  -o, --output FILE     write the report there instead of stdout (atomically; checked\n"
            "                        before the inputs are read)\n"
            "  -h, --help\n"
            "\n"
            "exit status: 0 no regression; 1 a regression, or a failed/error result in CURRENT;\n"
            "2 usage or input error.\n");
}

int gb_cmd_compare(int argc, char **argv) {
    static const struct option opts[] = {
        {"threshold", required_argument, 0, 't'}, {"alpha", required_argument, 0, 'a'},
        {"policy", required_argument, 0, 'p'},    {"format", required_argument, 0, 'f'},
        {"min-change", required_argument, 0, 'm'},
        {"output", required_argument, 0, 'o'},    {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    gb_compare_options o = {.rule = GB_DEFAULT_RULE};
    gb_compare_format fmt = GB_CMP_TABLE;
    const char *policy_path = NULL, *output = NULL;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "t:a:m:p:f:o:h", opts, NULL)) != -1) {
        switch (c) {
        case 't':
            if (gb_parse_percent(optarg, &o.rule.threshold) != 0) {
                fprintf(stderr, "gpubench compare: --threshold: expected a percentage like 5%%, got '%s'\n", optarg);
                return GB_EXIT_USAGE;
            }
            o.cli_set |= GB_CLI_THRESHOLD;
            break;
        case 'a': {
            char *end;
            o.rule.alpha = strtod(optarg, &end);
            if (*end || !(o.rule.alpha > 0 && o.rule.alpha < 1)) {
                fprintf(stderr, "gpubench compare: --alpha: expected a number between 0 and 1, got '%s'\n", optarg);
                return GB_EXIT_USAGE;
            }
            o.cli_set |= GB_CLI_ALPHA;
            break;
        }
        case 'm':
            if (gb_parse_duration(optarg, &o.rule.min_change_s) != 0) {
                fprintf(stderr, "gpubench compare: --min-change: expected a duration like 10us, 0.5ms or 0, got '%s'\n",
                        optarg);
                return GB_EXIT_USAGE;
            }
            o.cli_set |= GB_CLI_MIN_CHANGE;
            break;
        case 'p': policy_path = optarg; break;
        case 'f':
            if (strcmp(optarg, "table") == 0) fmt = GB_CMP_TABLE;
            else if (strcmp(optarg, "md") == 0 || strcmp(optarg, "markdown") == 0) fmt = GB_CMP_MD;
            else if (strcmp(optarg, "json") == 0) fmt = GB_CMP_JSON;
            else {
                fprintf(stderr, "gpubench compare: --format: expected table, md or json, got '%s'\n", optarg);
                return GB_EXIT_USAGE;
            }
            break;
        case 'o': output = optarg; break;
        case 'h': usage(stdout); return GB_EXIT_OK;
        default: usage(stderr); return GB_EXIT_USAGE;
        }
    }
    if (argc - optind != 2) {
        fprintf(stderr, "gpubench compare: expected BASELINE.json and CURRENT.json, got %d file%s\n",
                argc - optind, argc - optind == 1 ? "" : "s");
        usage(stderr);
        return GB_EXIT_USAGE;
    }
    gb_err e = {{0}};
    gb_policy *policy = NULL;
    if (policy_path && !(policy = gb_policy_load(policy_path, &e))) {
        fprintf(stderr, "gpubench compare: %s\n", e.msg);
        return GB_EXIT_USAGE;
    }
    o.policy = policy;
    o.policy_path = policy_path;
    gb_results base, cur;
    if (gb_results_load(argv[optind], &base, &e) != GB_OK) {
        fprintf(stderr, "gpubench compare: %s\n", e.msg);
        gb_policy_free(policy);
        return GB_EXIT_USAGE;
    }
    if (gb_results_load(argv[optind + 1], &cur, &e) != GB_OK) {
        fprintf(stderr, "gpubench compare: %s\n", e.msg);
        gb_results_free(&base);
        gb_policy_free(policy);
        return GB_EXIT_USAGE;
    }
    int rc = GB_EXIT_USAGE;
    cJSON *cmp = NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *f = NULL;
    if (output && gb_output_check(output, &e) != GB_OK) {
        fprintf(stderr, "gpubench compare: %s\n", e.msg);
        goto out;
    }
    cmp = gb_compare_docs(&base, argv[optind], &cur, argv[optind + 1], &o);
    if (!cmp) {
        fprintf(stderr, "gpubench compare: out of memory\n");
        goto out;
    }
    /* -o FILE: rendered in memory, written by the one writer (results_io.h) */
    f = output ? open_memstream(&text, &len) : stdout;
    if (!f) {
        fprintf(stderr, "gpubench compare: out of memory\n");
        goto out;
    }
    gb_compare_render(cmp, fmt, f);
    if (output) {
        int bad = fclose(f) != 0;
        if (bad || gb_file_write(output, text, len, &e) != GB_OK) {
            fprintf(stderr, "gpubench compare: %s\n", bad ? "out of memory" : e.msg);
            goto out;
        }
    }
    /* Machine mismatches also go to stderr when the report itself does not
     * reach the terminal (JSON, or -o FILE), so a CI log still shows them. */
    const cJSON *w = cJSON_GetObjectItemCaseSensitive(cmp, "warnings");
    if (fmt == GB_CMP_JSON || output)
        for (const cJSON *x = w ? w->child : NULL; x; x = x->next)
            fprintf(stderr, "gpubench compare: WARNING: %s\n", x->valuestring);
    rc = cJSON_GetObjectItemCaseSensitive(cmp, "exit_code")->valueint ? GB_EXIT_CHECK : GB_EXIT_OK;
out:
    free(text);
    cJSON_Delete(cmp);
    gb_results_free(&base);
    gb_results_free(&cur);
    gb_policy_free(policy);
    return rc;
}
