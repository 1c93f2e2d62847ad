/* cmd_merge.c — `gpubench merge A.json B.json ... -o all.json`.
 *
 * Combines runs (several machines, or partial runs of one suite) into one
 * results file in the merged form of docs/results-schema.md: every input
 * run's provenance (context, peaks, warnings, suite, health) moves into
 * "runs", and each case names its run with "run": index, so results of the
 * same case on two machines stay apart. Merged inputs are flattened. When a
 * case appears twice for the same machine (a partial run repeated), the later
 * file wins and a warning says so. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "gb.h"
#include "results_io.h"
#include "runner.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: gpubench merge A.json B.json ... -o all.json [--name NAME ...]\n"
            "\n"
            "  -o, --output FILE   merged results file (written atomically; '-' = stdout)\n"
            "  -n, --name NAME     name of the next input's run (default: its hostname);\n"
            "                      repeat once per input, in order\n"
            "  -h, --help\n");
}

static const char *str_at(const cJSON *o, const char *a, const char *b) {
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, a);
    if (b) v = cJSON_GetObjectItemCaseSensitive(v, b);
    return cJSON_IsString(v) ? v->valuestring : "";
}

/* Same machine: same CPU model and GPU name (hostnames repeat across
 * containers, and a partial run on one machine should keep one name). */
static int same_machine(const cJSON *ca, const cJSON *cb) {
    return strcmp(str_at(ca, "cpu", "model"), str_at(cb, "cpu", "model")) == 0 &&
           strcmp(str_at(ca, "gpu", "name"), str_at(cb, "gpu", "name")) == 0;
}

static int same_case(const cJSON *a, const cJSON *b) {
    static const char *const keys[] = {"op", "dtype", "shape", "params"};
    for (int i = 0; i < 4; i++) {
        const cJSON *x = cJSON_GetObjectItemCaseSensitive(a, keys[i]);
        const cJSON *y = cJSON_GetObjectItemCaseSensitive(b, keys[i]);
        if (!x && !y) continue;
        if (!x || !y || !cJSON_Compare(x, y, 1)) return 0;
    }
    return 1;
}

static const char *const run_keys[] = {"context", "peaks", "warnings", "suite", "health",
                                       "complete", "interrupted", "summary", "gpubench_version"};

int gb_cmd_merge(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"name", required_argument, 0, 'n'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *output = NULL;
    const char *names[256];
    int nnames = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "o:n:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'n':
            if (nnames < 256) names[nnames++] = optarg;
            break;
        case 'h': usage(stdout); return GB_EXIT_OK;
        default: usage(stderr); return GB_EXIT_USAGE;
        }
    }
    int ninputs = argc - optind;
    if (ninputs < 1 || !output) {
        fprintf(stderr, "gpubench merge: expected input files and -o OUTPUT\n");
        usage(stderr);
        return GB_EXIT_USAGE;
    }
    if (nnames > ninputs) {
        fprintf(stderr, "gpubench merge: %d --name for %d inputs\n", nnames, ninputs);
        return GB_EXIT_USAGE;
    }

    cJSON *out = cJSON_CreateObject();
    cJSON_AddStringToObject(out, "schema", GB_RESULTS_SCHEMA);
    cJSON_AddNumberToObject(out, "schema_version", GB_RESULTS_SCHEMA_VERSION);
    cJSON_AddStringToObject(out, "gpubench_version", GB_VERSION);
    cJSON_AddTrueToObject(out, "complete");
    cJSON_AddFalseToObject(out, "interrupted");
    int all_complete = 1, any_interrupted = 0;
    cJSON *runs = cJSON_AddArrayToObject(out, "runs");
    cJSON *warnings = cJSON_AddArrayToObject(out, "warnings");
    cJSON *cases = cJSON_AddArrayToObject(out, "cases");
    cJSON *crossover = cJSON_AddArrayToObject(out, "crossover");
    int rc = GB_EXIT_USAGE;
    char why[1024];

    for (int in = 0; in < ninputs; in++) {
        const char *path = argv[optind + in];
        cJSON *doc = gb_results_load_json(path, why, sizeof why);
        if (!doc) {
            fprintf(stderr, "gpubench merge: %s\n", why);
            goto out;
        }
        int first = cJSON_GetArraySize(runs), nr = gb_results_run_count(doc);
        int *map = malloc((size_t)nr * sizeof *map);
        if (!map) { cJSON_Delete(doc); fprintf(stderr, "gpubench merge: out of memory\n"); goto out; }
        for (int i = 0; i < nr; i++) {
            const cJSON *src = gb_results_run(doc, i);
            cJSON *run = cJSON_CreateObject();
            char name[256];
            snprintf(name, sizeof name, "%s",
                     !gb_results_is_merged(doc) && in < nnames ? names[in] : gb_results_run_name_json(doc, i));
            /* The same name on another machine (containers all called
             * "localhost") gets a suffix; the same machine keeps its name. */
            const cJSON *ctx = cJSON_GetObjectItemCaseSensitive(src, "context");
            for (int k = 2;; k++) {
                int clash = 0;
                for (const cJSON *r = runs->child; r; r = r->next)
                    if (strcmp(str_at(r, "name", NULL), name) == 0 &&
                        !same_machine(cJSON_GetObjectItemCaseSensitive(r, "context"), ctx))
                        clash = 1;
                if (!clash) break;
                snprintf(name, sizeof name, "%s#%d", gb_results_run_name_json(doc, i), k);
            }
            cJSON_AddStringToObject(run, "name", name);
            const cJSON *source = cJSON_GetObjectItemCaseSensitive(src, "source");
            cJSON_AddStringToObject(run, "source", cJSON_IsString(source) ? source->valuestring : path);
            for (size_t k = 0; k < sizeof run_keys / sizeof *run_keys; k++) {
                const cJSON *v = cJSON_GetObjectItemCaseSensitive(src, run_keys[k]);
                if (!v && strcmp(run_keys[k], "gpubench_version") == 0)
                    v = cJSON_GetObjectItemCaseSensitive(doc, "gpubench_version");
                if (v) cJSON_AddItemToObject(run, run_keys[k], cJSON_Duplicate(v, 1));
            }
            if (cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(src, "complete"))) all_complete = 0;
            if (cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(src, "interrupted"))) any_interrupted = 1;
            cJSON_AddItemToArray(runs, run);
            map[i] = first + i;
        }
        const cJSON *dc = cJSON_GetObjectItemCaseSensitive(doc, "cases");
        for (const cJSON *cs = dc->child; cs; cs = cs->next) {
            int run = map[gb_results_case_run(cs)];
            const char *rname = str_at(cJSON_GetArrayItem(runs, run), "name", NULL);
            /* a repeat of a case on the same machine replaces the earlier one */
            for (cJSON *old = cases->child; old; old = old->next) {
                const cJSON *orun = cJSON_GetArrayItem(runs, gb_results_case_run(old));
                if (strcmp(str_at(orun, "name", NULL), rname) == 0 && same_case(old, cs)) {
                    char line[600];
                    snprintf(line, sizeof line, "%s %s %s on %s appears in %s and %s; kept the later (%s)",
                             str_at(cs, "op", NULL), str_at(cs, "dtype", NULL), str_at(cs, "label", NULL), rname,
                             str_at(orun, "source", NULL), path, path);
                    fprintf(stderr, "gpubench merge: warning: %s\n", line);
                    cJSON_AddItemToArray(warnings, cJSON_CreateString(line));
                    cJSON_DetachItemViaPointer(cases, old);
                    cJSON_Delete(old);
                    break;
                }
            }
            cJSON *copy = cJSON_Duplicate(cs, 1);
            cJSON_DeleteItemFromObjectCaseSensitive(copy, "run");
            cJSON_AddNumberToObject(copy, "run", run);
            cJSON_AddItemToArray(cases, copy);
        }
        const cJSON *dx = cJSON_GetObjectItemCaseSensitive(doc, "crossover");
        for (const cJSON *x = dx ? dx->child : NULL; x; x = x->next) {
            cJSON *copy = cJSON_Duplicate(x, 1);
            int r = map[gb_results_case_run(x) < nr ? gb_results_case_run(x) : 0];
            cJSON_DeleteItemFromObjectCaseSensitive(copy, "run");
            cJSON_AddNumberToObject(copy, "run", r);
            cJSON_AddItemToArray(crossover, copy);
        }
        free(map);
        cJSON_Delete(doc);
    }

    cJSON_ReplaceItemInObjectCaseSensitive(out, "complete", cJSON_CreateBool(all_complete));
    cJSON_ReplaceItemInObjectCaseSensitive(out, "interrupted", cJSON_CreateBool(any_interrupted));

    /* summary over what was kept: the runner's own count */
    gb_runner_summarize(out);
    int ncases = cJSON_GetArraySize(cases);

    if (gb_results_write_atomic(out, output, why, sizeof why) != 0) {
        fprintf(stderr, "gpubench merge: %s\n", why);
        goto out;
    }
    if (strcmp(output, "-") != 0)
        fprintf(stderr, "gpubench merge: %d run%s, %d cases -> %s\n", cJSON_GetArraySize(runs),
                cJSON_GetArraySize(runs) == 1 ? "" : "s", ncases, output);
    rc = GB_EXIT_OK;
out:
    cJSON_Delete(out);
    return rc;
}
