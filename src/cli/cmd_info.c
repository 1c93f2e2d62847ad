/* cmd_info.c — `gpubench info`: the provenance a run records, printed. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backends.h"
#include "commands.h"
#include "report.h"
#include "report_table.h"
#include "sanity.h"
#include "sysinfo.h"

/* A plain value as text (an object or array as "{...}"/"[...]"). */
static void print_scalar(const cJSON *x) {
    if (cJSON_IsString(x)) printf("%s", x->valuestring);
    else if (cJSON_IsNumber(x)) printf("%.15g", x->valuedouble);
    else if (cJSON_IsBool(x)) printf("%s", cJSON_IsTrue(x) ? "true" : "false");
    else if (cJSON_IsNull(x)) printf("null");
    else printf(cJSON_IsArray(x) ? "[...]" : "{...}");
}

/* Print an object as indented "key: value" lines, within 100 columns: an
 * empty object or array says "none"; a long text is wrapped on a terminal
 * (one line when piped); an array of plain values goes on its
 * key's line when it fits, else a "- item" line each; an array of objects
 * is a "- key: value, key: value" line each (a backend's timings). */
static void print_tree(const cJSON *o, int depth) {
    const cJSON *it;
    cJSON_ArrayForEach(it, o) {
        printf("%*s%s:", 2 * depth, "", it->string ? it->string : "-");
        if ((cJSON_IsObject(it) || cJSON_IsArray(it)) && !it->child) {
            printf(" none\n");
        } else if (cJSON_IsObject(it)) {
            printf("\n");
            print_tree(it, depth + 1);
        } else if (cJSON_IsArray(it)) {
            const cJSON *x;
            size_t width = 2 * (size_t)depth + strlen(it->string ? it->string : "-") + 1;
            int objects = 0;
            cJSON_ArrayForEach(x, it) {
                objects |= cJSON_IsObject(x);
                width += 1 + (cJSON_IsString(x) ? strlen(x->valuestring) : 16);
            }
            if (!objects && width <= 100) {
                cJSON_ArrayForEach(x, it) {
                    printf(" ");
                    print_scalar(x);
                }
                printf("\n");
                continue;
            }
            printf("\n");
            cJSON_ArrayForEach(x, it) {
                printf("%*s- ", 2 * depth + 2, "");
                if (!cJSON_IsObject(x)) {
                    print_scalar(x);
                } else {
                    const cJSON *kv;
                    cJSON_ArrayForEach(kv, x) {
                        printf("%s%s: ", kv == x->child ? "" : ", ", kv->string);
                        print_scalar(kv);
                    }
                }
                printf("\n");
            }
        } else if (cJSON_IsString(it) && isatty(STDOUT_FILENO)) { /* piped: one line a value, for grep */
            size_t col = 2 * (size_t)depth + strlen(it->string ? it->string : "-") + 2;
            printf(" ");
            gb_wrap_text(stdout, it->valuestring, GB_REPORT_COLUMNS, col, 2 * (size_t)depth + 4);
            printf("\n");
        } else {
            printf(" ");
            print_scalar(it);
            printf("\n");
        }
    }
}

int gb_cmd_info(int argc, char **argv) {
    struct option opts[16] = {
        {"format", required_argument, 0, 'f'}, {"threads", required_argument, 0, 't'},
        {"device", required_argument, 0, 'D'}, {"help", no_argument, 0, 'h'}};
    gb_backend_options_getopt(opts, 4, 16);
    int ch, json = 0;
    gb_backend_options opt = {0};
    optind = 1;
    while ((ch = gb_cli_getopt(argc, argv, "h", opts)) != -1) {
        int bo = gb_cli_backend_option("info", ch, optarg); /* a backend's own option */
        if (bo > 0) return bo;
        if (bo == 0) continue;
        switch (ch) {
        case 'f':
            if (strcmp(optarg, "json") && strcmp(optarg, "text")) {
                fprintf(stderr, "gpubench info: --format: expected text or json, got \"%s\"\n", optarg);
                return GB_EXIT_USAGE;
            }
            json = strcmp(optarg, "json") == 0;
            break;
        case 't':
        case 'D': {
            long v; /* the ranges of `run`'s --threads and --device */
            if (gb_cli_parse_int(optarg, ch == 't' ? 1 : 0, ch == 't' ? 4096 : 1024, &v)) {
                fprintf(stderr, "gpubench info: --%s: expected %s, got \"%s\"\n", ch == 't' ? "threads" : "device",
                        ch == 't' ? "an integer from 1 to 4096" : "a device ordinal from 0 to 1024", optarg);
                return GB_EXIT_USAGE;
            }
            if (ch == 't') opt.threads = (int)v;
            else opt.device = (int)v;
            break;
        }
        case 'h':
            printf("usage: gpubench info [--format text|json] [--threads N] [--device N]\n"
                   "                    ");
            gb_backend_options_synopsis(stdout); /* the backends' own options */
            printf("\n\n"
                   "The system as a run records it: CPU model, sockets, cores, ISA extensions,\n"
                   "memory, OS, GPU, library versions (OpenBLAS with the core it runs, who chose it\n"
                   "— gpubench picks the best for this CPU unless OPENBLAS_CORETYPE or\n"
                   "--openblas-core says otherwise — and its\n"
                   "threads, oneDNN with the ISA it dispatches to, BLIS or why it is not there,\n"
                   "the --cpu-blas library when given, FFTW, GraphBLAS, cJSON, CUDA libraries),\n"
                   "compiler and build flags,\n"
                   "and warnings about anything that would make CPU numbers unfair.\n");
            return GB_EXIT_OK;
        default: return gb_cli_bad_option("info", argc, argv, "h");
        }
    }
    int setup = gb_cli_setup_process("info");
    if (setup != GB_EXIT_OK) return setup;
    gb_backend_set set;
    gb_err e;
    gb_backends_init(&set, NULL, &opt, &e);
    cJSON *ctx = gb_sysinfo_context(gb_full_argc, gb_full_argv);
    gb_backends_describe(&set, ctx);
    cJSON *warnings = cJSON_CreateArray();
    gb_cli_checks(&set, ctx, warnings);
    if (json) {
        cJSON_AddItemToObject(ctx, "warnings", warnings);
        char *text = cJSON_Print(ctx);
        printf("%s\n", text);
        free(text);
    } else {
        printf("gpubench %s\n", GB_VERSION);
        print_tree(ctx, 0);
        const cJSON *w;
        cJSON_ArrayForEach(w, warnings) gb_cli_warning(stdout, w->valuestring);
        cJSON_Delete(warnings);
    }
    cJSON_Delete(ctx);
    gb_backends_shutdown(&set);
    return GB_EXIT_OK;
}
