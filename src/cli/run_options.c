/* run_options.c — see run_options.h. */
#include "run_options.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "devices.h"
#include "node_env.h"
#include "report.h"
#include "runner.h"
#include "stopping.h"
#include "sysinfo.h"

void gb_run_usage(FILE *out) {
    fprintf(out,
        "usage: gpubench run SUITE.json [options]\n"
        "       gpubench run --op OP[,OP...] --sizes N[,N...] [options]   (no suite file)\n\n"
        "Run every case of the suite on each backend, verify the answers agree, print a line per\n"
        "case and a summary table, and write the results JSON. Without a suite file, --op and\n"
        "--sizes make a one-off suite (validated as a file would be).\n\n"
        "What runs:\n"
        "  --op LIST           only these ops (e.g. matmul,fft)\n"
        "  --dtype LIST        only these dtypes: float32,float64,bfloat16,float16,float8_e4m3,int8\n"
        "                      (a suite naming no dtypes runs float32 and float64)\n"
        "  --sizes LIST        replace every benchmark's sizes: n or shapes, e.g. 1024,4096,10000x1000\n"
        "  --filter REGEX      only cases whose name matches (POSIX extended regex, anywhere in the\n"
        "                      name op/dtype/shape/params, e.g. matmul/float32/4096x4096x4096/math=tf32)\n"
        "  --case NAME         only the case named exactly NAME (as --list prints it); repeatable;\n"
        "                      a name no case has is an error\n"
        "  --list              print the names of the cases that would run, in order, and exit\n"
        "  --param KEY=VALUE   set an op param in every benchmark whose op takes it, e.g.\n"
        "                      batch=64, density=0.001, math=tf32; OP.KEY=VALUE for one op\n"
        "                      (fft.kind=c2c); repeatable (`gpubench list` shows the params)\n"
        "How long (these replace the suite's defaults and every benchmark's own):\n"
        "  --max-time T        stop a result after T (with a unit: 2s, 500ms, 1min); a size projected\n"
        "                      past it is skipped\n"
        "  --min-time T        measure a result for at least T (with a unit)\n"
        "  --warmup N          untimed repetitions before timing\n"
        "  --reps N            exactly N timed repetitions a result, shared by the rounds (at\n"
        "                      least one a round; --max-time still ends a slow one sooner)\n"
        "  --rounds N          passes over the whole suite, each with its share of the\n"
        "                      repetitions (default: the suite's, else 3)\n"
        "Where and how:\n"
        "  --backend LIST      backends to run: cpu,cuda (default: every available one)\n"
        "  -o, --out PATH      results file (default results/<suite>-<host>-<UTC time>.json);\n"
        "                      checked before anything is measured, locked against a second run\n"
        "  --force             write --out even while another run holds its lock\n"
        "  --require-gpu       fail (exit 3) when no GPU result is measured; results still written\n"
        "  --format FMT        stdout table format: table (default), md, csv\n"
        "  --wide              table: every column (by default the summary keeps to 100 columns)\n"
        "  --threads N         CPU threads (default: the %d CPUs this process may run on)\n"
        "  --device N          CUDA device ordinal (default 0)\n"
        "  --devices LIST      measure the GPU side on each of these devices in turn: all, or\n"
        "                      ordinals such as 0,2,3 (default: --device); multi-GPU ops use them\n"
        "  --devices-concurrent  then run each case on all listed devices at once (a thread\n"
        "                      each, repetitions started together): each device's time and\n"
        "                      the aggregate rate, as results marked \"concurrent\"\n"

        "  --seed N            input seed (default: the suite's, else 42)\n"
        "  --cache MODE        hot (default) or cold: flush CPU LLC / GPU L2 between repetitions\n"
        "  --no-peak           do not measure the ceilings (no %% of peak in the results)\n"
        "  --peak fresh|kept   kept (default): ceilings measured on this machine and build\n"
        "                      within 7 days are reused, marked kept; fresh: measure them again\n"
        "  --energy MODE       auto (default: where a counter advances), on (every case to 2%%) or\n"
        "                      off: joules per operation and watts next to the times (docs/energy.md)\n"
        , gb_node_cpu_set(NULL, 0) > 0 ? gb_node_cpu_set(NULL, 0) : gb_sysinfo_logical_cpus());
    gb_backend_options_help(out); /* the backends' own options (--openblas-core, --cpu-gemm, --cpu-blas) */
    fprintf(out,
        "  --plot DIR          render plots with scripts/plot.py (needs Python 3 + matplotlib)\n"
        "  --export-gbench F   also write Google Benchmark JSON to F\n"
        "  --history[=DB]      add the run to a history when it ends (docs/history.md; default\n"
        "                      $GPUBENCH_HISTORY, else results/history.sqlite)\n"
        "  --quiet             no per-case lines and no progress\n"
        "  -h, --help          this help\n\n"
        "Exit status: 0 all ran and verified; 1 a verification failed or a case errored;\n"
        "2 usage or input error (bad suite, unknown backend, an --out that cannot be written or\n"
        "is locked by another run, a results file, export or plot not written); 128+N stopped\n"
        "by signal N (130 Ctrl-C, 143 SIGTERM, 129 SIGHUP, 141 SIGPIPE: standard output's\n"
        "reader went away): the run stops after the current repetition and still writes the\n"
        "results measured so far, marked interrupted.\n");
}

int gb_run_parse_options(int argc, char **argv, gb_run_opts *o, const char ***case_names_out) {
    struct option opts[48] = {
        {"backend", required_argument, 0, 'b'}, {"op", required_argument, 0, 'x'},
        {"dtype", required_argument, 0, 'd'},   {"out", required_argument, 0, 'O'},
        {"wide", no_argument, 0, 'w'},
        {"format", required_argument, 0, 'f'},  {"threads", required_argument, 0, 't'},
        {"device", required_argument, 0, 'D'},  {"seed", required_argument, 0, 's'},
        {"devices", required_argument, 0, 'V'}, {"devices-concurrent", no_argument, 0, 'K'},
        {"rounds", required_argument, 0, 'R'},
        {"cache", required_argument, 0, 'c'},   {"no-peak", no_argument, 0, 'P'}, {"energy", required_argument, 0, 'E'},
        {"peak", required_argument, 0, 'k'},
        {"plot", required_argument, 0, 'p'},
        {"export-gbench", required_argument, 0, 'g'}, {"quiet", no_argument, 0, 'q'},
        {"sizes", required_argument, 0, 'S'},   {"max-time", required_argument, 0, 'M'},
        {"min-time", required_argument, 0, 'm'}, {"warmup", required_argument, 0, 'W'},
        {"filter", required_argument, 0, 'F'}, {"list", no_argument, 0, 'L'},
        {"case", required_argument, 0, 'N'},
        {"param", required_argument, 0, 'A'},  {"reps", required_argument, 0, 'n'},
        {"force", no_argument, 0, 'Y'}, {"require-gpu", no_argument, 0, 'r'},
        {"history", optional_argument, 0, 'H'},
        {"help", no_argument, 0, 'h'}};
    /* then the backends' own options (--openblas-core, --cpu-gemm, --cpu-blas: backend.h, gb_backend_process) */
    int nopts = 0;
    while (opts[nopts].name) nopts++;
    gb_backend_options_getopt(opts, nopts, 48);
    const char **case_names = NULL;
    int ch;
    long v;
    gb_err e = {{0}};
    optind = 1;
    while ((ch = gb_cli_getopt(argc, argv, "ho:", opts)) != -1) {
        int bo = gb_cli_backend_option("run", ch, optarg); /* a backend's own option */
        if (bo > 0) return bo;
        if (bo == 0) continue;
        switch (ch) {
        case 'b': o->backends = optarg; break;
        case 'x': o->filter.ops = optarg; break;
        case 'd': o->filter.dtypes = optarg; break;
        case 'o': /* fall through: -o is --out, as in every other command */
        case 'O': o->out_path = optarg; break;
        case 'w': o->wide = 1; break;
        case 'f':
            o->format = gb_format_parse(optarg);
            if (o->format < 0 || o->format == GB_FMT_HTML) {
                fprintf(stderr, "gpubench run: --format: expected table, md or csv, got \"%s\"\n", optarg);
                return GB_EXIT_USAGE;
            }
            break;
        case 't':
            if (gb_cli_parse_int(optarg, 1, 4096, &v)) {
                fprintf(stderr, "gpubench run: --threads: expected a positive integer, got \"%s\"\n", optarg);
                return GB_EXIT_USAGE;
            }
            o->bopt.threads = (int)v;
            break;
        case 'D':
            if (gb_cli_parse_int(optarg, 0, 1024, &v)) {
                fprintf(stderr, "gpubench run: --device: expected a device ordinal, got \"%s\"\n", optarg);
                return GB_EXIT_USAGE;
            }
            o->bopt.device = (int)v;
            break;
        case 'V':
            if (gb_devices_parse(optarg, &o->bopt, &e) != GB_OK) {
                fprintf(stderr, "gpubench run: %s\n", e.msg);
                return GB_EXIT_USAGE;
            }
            break;
        case 'K': o->concurrent = 1; break;
        case 's': {
            char *end;
            errno = 0;
            unsigned long long sv = strtoull(optarg, &end, 10);
            /* digits only (strtoull takes " -1" as 2^64-1, "+1", leading blanks) */
            if (errno || *end || end == optarg || strspn(optarg, "0123456789") != strlen(optarg)) {
                fprintf(stderr, "gpubench run: --seed: expected a non-negative integer, got \"%s\"\n", optarg);
                return GB_EXIT_USAGE;
            }
            o->filter.has_seed = 1;
            o->filter.seed = sv;
            break;
        }
        case 'R':
            if (gb_cli_parse_int(optarg, 1, GB_MAX_ROUNDS, &v)) {
                fprintf(stderr, "gpubench run: --rounds: expected an integer from 1 to %d, got \"%s\"\n",
                        GB_MAX_ROUNDS, optarg);
                return GB_EXIT_USAGE;
            }
            o->filter.rounds = (int)v;
            break;
        case 'c':
            if (strcmp(optarg, "hot") && strcmp(optarg, "cold")) {
                fprintf(stderr, "gpubench run: --cache: expected hot or cold, got \"%s\"\n", optarg);
                return GB_EXIT_USAGE;
            }
            o->bopt.cache_cold = strcmp(optarg, "cold") == 0;
            break;
        case 'E':
            if (gb_energy_mode_parse(optarg, &o->energy) == GB_OK) break;
            fprintf(stderr, "gpubench run: --energy: expected auto, on or off, got \"%s\"\n", optarg);
            return GB_EXIT_USAGE;
        case 'S': o->filter.sizes = optarg; break;
        case 'M':
        case 'm': {
            double sec;
            if (gb_cli_parse_duration(optarg, &sec)) {
                fprintf(stderr, "gpubench run: --%s: expected a positive time with its unit (2s, 500ms, "
                                "250us, 1min), got \"%s\"\n", ch == 'M' ? "max-time" : "min-time", optarg);
                return GB_EXIT_USAGE;
            }
            if (ch == 'M') o->filter.max_time_s = sec;
            else o->filter.min_time_s = sec;
            break;
        }
        case 'W':
            if (gb_cli_parse_int(optarg, 0, 1000, &v)) {
                fprintf(stderr, "gpubench run: --warmup: expected an integer from 0 to 1000, got \"%s\"\n",
                        optarg);
                return GB_EXIT_USAGE;
            }
            o->filter.has_warmup = 1;
            o->filter.warmup = (int)v;
            break;
        case 'F': o->filter.name_regex = optarg; break;
        case 'N': { /* argv outlives the run: the names are pointers into it */
            const char **more = realloc(case_names, (o->filter.ncase_names + 1) * sizeof *more);
            if (!more) {
                fprintf(stderr, "gpubench run: out of memory\n");
                return GB_EXIT_USAGE;
            }
            *case_names_out = case_names = more;
            case_names[o->filter.ncase_names++] = optarg;
            o->filter.case_names = case_names;
            break;
        }
        case 'A':
            if (!strchr(optarg, '=') || optarg[0] == '=') {
                fprintf(stderr, "gpubench run: --param: expected KEY=VALUE (e.g. kind=c2c), got \"%s\"\n", optarg);
                return GB_EXIT_USAGE;
            }
            if (o->filter.nparams == sizeof o->params / sizeof *o->params) {
                fprintf(stderr, "gpubench run: --param: at most %zu of them\n", sizeof o->params / sizeof *o->params);
                return GB_EXIT_USAGE;
            }
            o->params[o->filter.nparams++] = optarg;
            o->filter.params = o->params;
            break;
        case 'n':
            if (gb_cli_parse_int(optarg, 1, 1000000, &v)) {
                fprintf(stderr, "gpubench run: --reps: expected an integer from 1 to 1000000, got \"%s\"\n", optarg);
                return GB_EXIT_USAGE;
            }
            o->filter.reps = (int)v;
            break;
        case 'L': o->list_only = 1; break;
        case 'P': o->peaks = 0; break;
        case 'k':
            if (strcmp(optarg, "fresh") && strcmp(optarg, "kept")) {
                fprintf(stderr, "gpubench run: --peak: expected fresh or kept, got \"%s\"\n", optarg);
                return GB_EXIT_USAGE;
            }
            o->fresh_peaks = !strcmp(optarg, "fresh");
            break;
        case 'p': o->plot_dir = optarg; break;
        case 'g': o->gbench = optarg; break;
        case 'q': o->quiet = 1; break;
        case 'Y': o->force = 1; break;
        case 'r': o->require_gpu = 1; break;
        case 'H': o->history = optarg ? optarg : ""; break;
        case 'h': gb_run_usage(stdout); return GB_EXIT_OK;
        default: return gb_cli_bad_option("run", argc, argv, "ho:");
        }
    }
    if (o->filter.reps > 0 && o->filter.min_time_s > 0) {
        fprintf(stderr, "gpubench run: --reps and --min-time both set how long a result is measured: give one\n");
        return GB_EXIT_USAGE;
    }
    return -1;
}
