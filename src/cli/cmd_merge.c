/* cmd_merge.c — `gpubench merge A.json B.json ... -o all.json`.
 *
 * Combines runs (several machines, or partial runs of one suite) into one
 * results file in the merged form of docs/results-schema.md: every input
 * run's provenance (context, peaks, warnings, suite, health) moves into
 * "runs", and each case names its run with "run": index, so results of the
 * same case on two machines stay apart. Merged inputs are flattened. When a
 * case appears twice for the same machine (a partial run repeated), the later
 * file wins and a warning says so. Inputs are read, and the output written,
 * through the results model: a broken input is refused with its file and the
 * JSON path of what is wrong — or, with --allow-missing (the SLURM merge
 * job: a failed node is normal on a cluster), left out with the reason in
 * the merged file's warnings. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "file_roles.h"
#include "gb.h"
#include "results_io.h"
#include "case_index.h"
#include "results_model.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: gpubench merge A.json B.json ... -o all.json [--name NAME ...] [--allow-missing]\n"
            "                      [--note TEXT ...]\n"
            "\n"
            "  -o, --output FILE   merged results file (written atomically; '-' = stdout)\n"
            "  -n, --name NAME     name of the next input's run (default: its hostname);\n"
            "                      repeat once per input, in order\n"
            "      --allow-missing an input that is missing or not a valid results file is\n"
            "                      left out with a warning (kept in the merged file's warnings)\n"
            "                      instead of failing the merge: a cluster job where some nodes\n"
            "                      failed still merges the others; exit 2 only when none is left\n"
            "      --note TEXT     add TEXT to the merged file's warnings (repeatable): what the\n"
            "                      SLURM merge job knows about a failed task (gpubench slurm)\n"
            "  -h, --help\n");
}

/* Same machine: same CPU model and GPU name (hostnames repeat across
 * containers, and a partial run on one machine should keep one name). */
static int same_machine(const gb_context *a, const gb_context *b) {
    return strcmp(a->cpu_model, b->cpu_model) == 0 && strcmp(a->gpu_name, b->gpu_name) == 0;
}

/* The same case: op, dtype, shape and params (a missing params object is
 * another case than an empty one). */
static int same_case(const gb_case_result *a, const gb_case_result *b) {
    if (strcmp(a->op, b->op) || strcmp(a->dtype, b->dtype) || !gb_shape_equal(a, b)) return 0;
    if (!a->params.present && !b->params.present) return 1;
    return a->params.present && b->params.present && gb_kvlist_equal(&a->params, &b->params);
}

/* Room for one more after n elements of size sz; NULL on out of memory. The
 * capacity doubles whenever n is a power of two (every array here starts
 * empty and grows only through this), so n appends copy O(n) bytes in all:
 * growing by one each time copied the whole array per case. */
static void *grow(void *arr, size_t n, size_t sz) {
    if (n & (n - 1)) return arr;
    return realloc(arr, (n ? 2 * n : 1) * sz);
}

/* The cases kept so far, found by run name and case in constant time (a
 * repeat is looked up once per case: merging 20,000 cases compared every
 * pair before). A replaced case is marked gone and dropped at the end, so
 * the others keep their order. */
typedef struct {
    gb_index index;
    unsigned char *gone; /* per out->cases */
} kept;

typedef struct {
    const gb_results *out;
    const char *run_name;
    const gb_case_result *c;
} repeat_probe;

static int is_repeat(const void *ctx, size_t j) {
    const repeat_probe *q = ctx;
    const gb_case_result *old = &q->out->cases[j];
    return strcmp(q->out->runs[old->run].name, q->run_name) == 0 && same_case(old, q->c);
}

static uint64_t repeat_hash(const char *run_name, const gb_case_result *c) {
    return gb_case_hash(gb_hash_str(GB_HASH_START, run_name), c, 1);
}

/* Drop the cases marked gone. */
static void drop_gone(gb_results *out, const kept *k) {
    size_t w = 0;
    for (size_t i = 0; i < out->ncases; i++)
        if (!k->gone[i]) out->cases[w++] = out->cases[i];
    out->ncases = w;
    if (w) memset(k->gone, 0, w); /* dropping twice drops nothing more */
}

/* Append a line to the merged file's warnings. GB_OK or GB_FAIL. */
static int add_warning(gb_results *out, const char *line, gb_err *e) {
    char **w = grow(out->warnings.item, out->warnings.n, sizeof *w);
    if (!w) return gb_errf(e, GB_FAIL, "out of memory");
    out->warnings.item = w;
    if (!(w[out->warnings.n] = strdup(line))) return gb_errf(e, GB_FAIL, "out of memory");
    out->warnings.n++;
    return GB_OK;
}

/* Add one input file's runs, cases and crossover to out. GB_OK or GB_FAIL
 * (message in e). name: the --name for a single-run input, or NULL. */
static int add_input(gb_results *out, kept *k, const gb_results *doc, const char *path, const char *name, gb_err *e) {
    int first = (int)out->nruns;
    for (size_t i = 0; i < doc->nruns; i++) {
        gb_run *grown = grow(out->runs, out->nruns, sizeof *out->runs);
        if (!grown) return gb_errf(e, GB_FAIL, "out of memory");
        out->runs = grown;
        gb_run *run = &out->runs[out->nruns];
        if (gb_run_copy(run, &doc->runs[i]) != GB_OK) return gb_errf(e, GB_FAIL, "out of memory");
        out->nruns++;
        /* A name is at most 200 bytes, so "#<k>" always fits after it (a
         * cut suffix once made every try the same name, and merge looped). */
        char nm[256];
        const char *base = !doc->merged && name ? name : gb_results_run_name(doc, (int)i);
        snprintf(nm, sizeof nm, "%.200s", base);
        /* The same name on another machine (containers all called
         * "localhost") gets a suffix; the same machine keeps its name. */
        for (int n = 2;; n++) {
            int clash = 0;
            for (size_t r = 0; r + 1 < out->nruns; r++)
                if (strcmp(out->runs[r].name, nm) == 0 && !same_machine(&out->runs[r].context, &run->context))
                    clash = 1;
            if (!clash) break;
            snprintf(nm, sizeof nm, "%.200s#%d", base, n);
        }
        free(run->name);
        free(run->source);
        run->name = strdup(nm);
        run->source = strdup(doc->runs[i].source ? doc->runs[i].source : path);
        if (!run->gpubench_version && doc->gpubench_version) run->gpubench_version = strdup(doc->gpubench_version);
        if (!run->name || !run->source || (doc->gpubench_version && !run->gpubench_version))
            return gb_errf(e, GB_FAIL, "out of memory");
        if (run->complete == 0) out->complete = 0;
        if (run->interrupted == 1) out->interrupted = 1;
    }
    for (size_t i = 0; i < doc->ncases; i++) {
        const gb_case_result *cs = &doc->cases[i];
        int run = first + cs->run;
        const char *rname = out->runs[run].name;
        /* a repeat of a case on the same machine replaces the earlier one */
        repeat_probe q = {out, rname, cs};
        uint64_t h = repeat_hash(rname, cs);
        long found = gb_index_find(&k->index, h, is_repeat, &q);
        if (found >= 0) {
            size_t j = (size_t)found;
            const gb_case_result *old = &out->cases[j];
            const gb_run *orun = &out->runs[old->run];
            char line[600];
            snprintf(line, sizeof line, "%s %s %s on %s appears in %s and %s; kept the later (%s)", cs->op, cs->dtype,
                     cs->label, rname, orun->source, path, path);
            fprintf(stderr, "gpubench merge: warning: %s\n", line);
            if (add_warning(out, line, e) != GB_OK) return GB_FAIL;
            gb_case_result_free(&out->cases[j]);
            k->gone[j] = 1;
        }
        gb_case_result *grown = grow(out->cases, out->ncases, sizeof *out->cases);
        if (!grown) return gb_errf(e, GB_FAIL, "out of memory");
        out->cases = grown;
        unsigned char *gone = grow(k->gone, out->ncases, 1);
        if (!gone) return gb_errf(e, GB_FAIL, "out of memory");
        k->gone = gone;
        k->gone[out->ncases] = 0;
        if (gb_case_result_copy(&out->cases[out->ncases], cs) != GB_OK) return gb_errf(e, GB_FAIL, "out of memory");
        out->cases[out->ncases].run = run;
        if (found >= 0) gb_index_replace(&k->index, h, (size_t)found, out->ncases);
        else if (gb_index_add(&k->index, h, out->ncases) != GB_OK) return gb_errf(e, GB_FAIL, "out of memory");
        out->ncases++;
    }
    for (size_t i = 0; i < doc->ncrossover; i++) {
        gb_crossover_entry *grown = grow(out->crossover, out->ncrossover, sizeof *out->crossover);
        if (!grown) return gb_errf(e, GB_FAIL, "out of memory");
        out->crossover = grown;
        if (gb_crossover_entry_copy(&out->crossover[out->ncrossover], &doc->crossover[i]) != GB_OK)
            return gb_errf(e, GB_FAIL, "out of memory");
        out->crossover[out->ncrossover++].run = first + doc->crossover[i].run;
    }
    return GB_OK;
}

int gb_cmd_merge(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"name", required_argument, 0, 'n'},
                                         {"allow-missing", no_argument, 0, 'A'},
                                         {"note", required_argument, 0, 'N'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *output = NULL;
    const char *names[256], *notes[256];
    int nnames = 0, nnotes = 0, allow_missing = 0;
    optind = 1;
    int c;
    while ((c = getopt_long(argc, argv, "o:n:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': output = optarg; break;
        case 'n':
            if (nnames < 256) names[nnames++] = optarg;
            break;
        case 'A': allow_missing = 1; break;
        case 'N':
            if (nnotes == 256) {
                fprintf(stderr, "gpubench merge: more than 256 --note\n");
                return GB_EXIT_USAGE;
            }
            notes[nnotes++] = optarg;
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

    gb_results out;
    gb_err e = {{0}};
    gb_file_roles roles = {0};
    for (int i = optind; i < argc; i++) gb_roles_input(&roles, "the input", argv[i]);
    gb_roles_output(&roles, "-o", output);
    /* before reading (maybe many) inputs */
    if (gb_roles_check(&roles, &e) != GB_OK || gb_output_check(output, &e) != GB_OK) {
        fprintf(stderr, "gpubench merge: %s\n", e.msg);
        return GB_EXIT_USAGE;
    }
    int rc = GB_EXIT_USAGE;
    kept k = {{0}, NULL};
    if (gb_index_init(&k.index, 1024) != GB_OK) {
        fprintf(stderr, "gpubench merge: out of memory\n");
        return GB_EXIT_USAGE;
    }
    if (gb_results_init(&out, output, 1, &e) != GB_OK || gb_set_string(&out.gpubench_version, GB_VERSION) != GB_OK) {
        fprintf(stderr, "gpubench merge: out of memory\n");
        goto out;
    }
    out.complete = 1;
    out.interrupted = 0;
    out.warnings.present = 1;
    out.has_crossover = 1;
    int left_out = 0;
    for (int in = 0; in < ninputs; in++) {
        const char *path = argv[optind + in];
        gb_results doc;
        int st = gb_results_load(path, &doc, &e);
        if (st != GB_OK && allow_missing) {
            /* the load message starts with the path and says why */
            char line[GB_MSG_LEN + 32];
            snprintf(line, sizeof line, "not merged: %s", e.msg);
            fprintf(stderr, "gpubench merge: warning: %s\n", line);
            left_out++;
            if (add_warning(&out, line, &e) != GB_OK) {
                fprintf(stderr, "gpubench merge: %s\n", e.msg);
                goto out;
            }
            continue;
        }
        if (st == GB_OK) st = add_input(&out, &k, &doc, path, in < nnames ? names[in] : NULL, &e);
        gb_results_free(&doc);
        if (st != GB_OK) {
            fprintf(stderr, "gpubench merge: %s\n", e.msg);
            goto out;
        }
    }
    drop_gone(&out, &k);
    if (left_out == ninputs) {
        fprintf(stderr, "gpubench merge: none of the %d input%s could be merged; nothing written\n", ninputs,
                ninputs == 1 ? "" : "s");
        goto out;
    }
    for (int i = 0; i < nnotes; i++) {
        fprintf(stderr, "gpubench merge: note: %s\n", notes[i]);
        if (add_warning(&out, notes[i], &e) != GB_OK) {
            fprintf(stderr, "gpubench merge: %s\n", e.msg);
            goto out;
        }
    }
    /* summary over what was kept */
    gb_results_summarize(&out);
    if (gb_results_write(&out, output, 0, &e) != GB_OK) {
        fprintf(stderr, "gpubench merge: %s\n", e.msg);
        goto out;
    }
    if (strcmp(output, "-") != 0)
        fprintf(stderr, "gpubench merge: %zu run%s, %zu cases -> %s\n", out.nruns, out.nruns == 1 ? "" : "s",
                out.ncases, output);
    rc = GB_EXIT_OK;
out:
    if (rc != GB_EXIT_OK) drop_gone(&out, &k); /* gone cases are freed already */
    gb_results_free(&out);
    gb_index_free(&k.index);
    free(k.gone);
    return rc;
}
