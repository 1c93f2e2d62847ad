/* cmd_run.c — `gpubench run SUITE [options]`. */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backends.h"
#include "devices.h"
#include "node_env.h"
#include "run_require_gpu.h"
#include "commands.h"
#include "file_roles.h"
#include "fleet.h"
#include "export.h"
#include "op.h"
#include "output_lock.h"
#include "plot.h"
#include "report.h"
#include "results_io.h"
#include "writer.h"
#include "run_lines.h"
#include "run_options.h"
#include "run_peaks.h"
#include "run_signals.h"
#include "runner.h"
#include "sanity.h"
#include "suite.h"
#include "sysinfo.h"
#include "timer.h"

static void fmt_seconds(char *buf, size_t len, double s) {
    if (s < 60) snprintf(buf, len, "%.1f s", s);
    else snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
}

/* The time breakdown: into the results ("time_breakdown", with the same
 * parts per op under "by_op"; the model keeps it as JSON text) and on
 * stderr. GB_OK, or GB_FAIL on out of memory. */
static int record_breakdown(gb_results *results, const gb_time_breakdown *b, int quiet) {
    double counted = b->ceilings_s + b->write_s;
    for (int p = 0; p < GB_T_PARTS; p++) counted += b->all[p];
    double other = b->wall_s > counted ? b->wall_s - counted : 0;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "wall_s", b->wall_s);
    for (int p = 0; p < GB_T_PARTS; p++) cJSON_AddNumberToObject(o, gb_time_part_key[p], b->all[p]);
    cJSON_AddNumberToObject(o, "ceilings_s", b->ceilings_s);
    cJSON_AddNumberToObject(o, "write_s", b->write_s);
    cJSON_AddNumberToObject(o, "other_s", other);
    cJSON_AddNumberToObject(o, "kept_visits", (double)b->kept_visits);
    cJSON_AddNumberToObject(o, "prepared_again", (double)b->prepared_again);
    cJSON_AddNumberToObject(o, "kept_peak_bytes", b->kept_peak_bytes);
    cJSON_AddNumberToObject(o, "adopted_warmups", (double)b->adopted_warmups);
    cJSON *by_op = cJSON_AddObjectToObject(o, "by_op");
    for (int op = 0; op < GB_OP_COUNT; op++) {
        double total = 0;
        for (int p = 0; p < GB_T_PARTS; p++) total += b->by_op[op][p];
        if (total <= 0) continue;
        cJSON *x = cJSON_AddObjectToObject(by_op, gb_ops[op]->name);
        for (int p = 0; p < GB_T_PARTS; p++) cJSON_AddNumberToObject(x, gb_time_part_key[p], b->by_op[op][p]);
    }
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    if (!text) return GB_FAIL;
    free(results->time_breakdown_json);
    results->time_breakdown_json = text;

    char buf[32];
    fmt_seconds(buf, sizeof buf, b->wall_s);
    fprintf(stderr, "time: %s in all", buf);
    if (b->all[GB_T_SAMPLES] > 0) fprintf(stderr, ", %.1f× the timed samples", b->wall_s / b->all[GB_T_SAMPLES]);
    fprintf(stderr, "\n");
    if (quiet) return GB_OK;
    const double share = b->wall_s > 0 ? 100.0 / b->wall_s : 0;
    for (int p = 0; p < GB_T_PARTS; p++) {
        fmt_seconds(buf, sizeof buf, b->all[p]);
        fprintf(stderr, "  %-44s %9s %5.1f%%\n", gb_time_part_text[p], buf, b->all[p] * share);
        if (p == GB_T_SETUP && b->kept_visits + b->prepared_again > 0)
            fprintf(stderr, "    later rounds: %ld visits on a kept state (%.1f GiB held at most), %ld prepared again\n",
                    b->kept_visits, b->kept_peak_bytes / 1073741824.0, b->prepared_again);
        if (p == GB_T_WARMUP && b->adopted_warmups > 0)
            fprintf(stderr, "    %ld warm-up repetitions ran at speed and were kept as samples\n", b->adopted_warmups);
    }
    const struct { const char *text; double v; } rest[] = {
        {"measuring the ceilings", b->ceilings_s}, {"writing the results file", b->write_s}, {"the rest", other}};
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++) {
        fmt_seconds(buf, sizeof buf, rest[i].v);
        fprintf(stderr, "  %-44s %9s %5.1f%%\n", rest[i].text, buf, rest[i].v * share);
    }
    return GB_OK;
}


/* results/<suite>-<host>-<UTC timestamp>.json, creating results/ if needed:
 * 0, or the errno of a results/ that cannot be made (a read-only working
 * directory: "Permission denied", not "does not exist"). */
static int default_out_path(const char *suite, char *out, size_t len) {
    char host[128], name[128], safe_host[128], stamp[32];
    gb_sysinfo_hostname(host, sizeof host);
    gb_safe_file_name(suite, name, sizeof name);
    gb_safe_file_name(host, safe_host, sizeof safe_host);
    time_t now = time(NULL);
    strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", gmtime(&now));
    int err = mkdir("results", 0777) != 0 && errno != EEXIST ? errno : 0;
    snprintf(out, len, "results/%s-%s-%s.json", name, safe_host, stamp);
    return err;
}

/* The run's provenance — suite, context, peaks, warnings, health — as its
 * producers (sysinfo, the backends, the checks) write it: JSON, which
 * gb_run_set_provenance takes into the results model. */
static cJSON *new_provenance(const gb_suite *s, cJSON *context, const char *cache) {
    cJSON *doc = cJSON_CreateObject();
    cJSON *suite = cJSON_Duplicate(s->doc, 1);
    cJSON_AddStringToObject(suite, "path", s->path);
    cJSON_AddItemToObject(doc, "suite", suite);
    cJSON_AddStringToObject(context, "cache_mode", cache);
    cJSON_AddNumberToObject(context, "seed", (double)s->seed);
    cJSON_AddNumberToObject(context, "rounds", s->rounds);
    cJSON_AddItemToObject(doc, "context", context);
    cJSON_AddItemToObject(doc, "peaks", cJSON_CreateObject());
    cJSON_AddItemToObject(doc, "warnings", cJSON_CreateArray());
    cJSON_AddItemToObject(doc, "health", cJSON_CreateObject());
    return doc;
}

/* The results document of this run: a single-run file, not complete yet. */
static int new_results(gb_results *r, const char *path, gb_err *e) {
    if (gb_results_init(r, path, 0, e) != GB_OK) return GB_FAIL;
    if (gb_set_string(&r->gpubench_version, GB_VERSION) != GB_OK) {
        gb_results_free(r);
        return gb_errf(e, GB_FAIL, "%s: out of memory", path);
    }
    r->complete = r->interrupted = 0;
    return GB_OK;
}

static void record_health(gb_backend_set *set, cJSON *doc, const char *when) {
    cJSON *health = cJSON_GetObjectItemCaseSensitive(doc, "health");
    cJSON *h = cJSON_AddObjectToObject(health, when);
    for (int i = 0; i < set->count; i++) {
        gb_backend_slot *s = &set->slot[i];
        gb_err ue = {{0}};
        if (!s->selected || s->disabled || !s->b->health || !gb_backends_first_of_backend(s) ||
            gb_backends_use(s, &ue) != GB_OK)
            continue;
        s->b->health(cJSON_AddObjectToObject(h, s->name));
    }
}

/* Before anything is measured: no output is the suite or another output
 * (file_roles.h), the results file (and --export-gbench's) can be written
 * there, and no other run is writing the same results file (output_lock.h).
 * GB_OK, or GB_FAIL after saying why. */
static int claim_outputs(const char *suite, const char *path, int path_given, const char *gbench, const char *plot_dir,
                         int force) {
    gb_err e = {{0}};
    gb_file_roles roles = {0};
    gb_roles_input(&roles, "the suite", suite);
    gb_roles_output(&roles, path_given ? "--out" : "the results file", path);
    gb_roles_output(&roles, "--export-gbench", gbench);
    gb_roles_output_dir(&roles, "--plot", plot_dir);
    if (gb_roles_check(&roles, &e) != GB_OK || gb_output_check(path, &e) != GB_OK ||
        (gbench && gb_output_check(gbench, &e) != GB_OK) || gb_output_lock(path, force, &e) != GB_OK) {
        fprintf(stderr, "gpubench run: %s\n", e.msg);
        return GB_FAIL;
    }
    return GB_OK;
}

/* Step 3: health "after" and the warnings of the end of the run into the
 * model, and the model written, under the model's lock (the watchdog's).
 * Returns whether the file was written (else why says why); *bad: the
 * results that failed; *exit_code: the run's (1 for a failure, 128 + N for
 * signal N). */
static int write_final(gb_results *results, cJSON *doc, const char *path, int status, gb_time_breakdown *times,
                       double t_start, int quiet, int *bad, int *exit_code, char *why, size_t why_len) {
    gb_model_lock();
    gb_err pe = {{0}};
    int model_ok = gb_run_set_provenance(&results->runs[0], doc, path, &pe) == GB_OK;
    results->complete = !gb_interrupted && status == GB_OK;
    results->interrupted = gb_interrupted != 0;
    if (gb_interrupted && gb_set_string(&results->interrupted_by, gb_signal_name(gb_interrupted)) != GB_OK)
        model_ok = 0;
    *bad = gb_results_summarize(results);
    if (model_ok && gb_crossover_update(results, &pe) != GB_OK) model_ok = 0;
    times->wall_s = gb_now() - t_start;
    if (record_breakdown(results, times, quiet) != GB_OK) model_ok = 0;
    /* An interrupted run is not a success, even with every result verified:
     * 128 + the signal's number is the shell's code for "stopped by it". */
    *exit_code = *bad ? GB_EXIT_CHECK : gb_interrupted ? 128 + gb_interrupted : GB_EXIT_OK;
    gb_err we = {{0}};
    if (!model_ok) snprintf(why, why_len, "%s", pe.msg[0] ? pe.msg : "out of memory for the results");
    else if (gb_results_write(results, path, GB_WRITE_SAMPLES_6G, &we) != GB_OK) snprintf(why, why_len, "%s", we.msg);
    int written = model_ok && !we.msg[0];
    gb_run_signals_final_written();
    gb_model_unlock();
    return written;
}

/* Step 4: the final table (and the table per device) on standard output,
 * on stderr when -o - put the JSON there; where the results went, on stderr. */
static void show_results(const gb_results *results, const gb_backend_set *set, int format, int wide,
                         const char *path, int written, int bad, int accel_note) {
    FILE *out = strcmp(path, "-") ? stdout : stderr;
    gb_report_options ro = {.format = (gb_format)format, .ops = NULL, .wide = wide,
                            .color = format == GB_FMT_TABLE && gb_report_want_color(out),
                            .accel_reason_above = accel_note && gb_run_lines_one_stream()};
    if (format == GB_FMT_TABLE) fprintf(out, "\n");
    gb_report_render(results, &ro, out);
    /* With several devices, each case's median on each device against the
     * host's median device, slow devices flagged on compare's evidence: the
     * fleet report's table over this run's (device) columns. */
    if (gb_backends_device_count(set) > 1 && (format == GB_FMT_TABLE || format == GB_FMT_MD)) {
        gb_err fe = {{0}};
        if (format == GB_FMT_TABLE) fprintf(out, "\nPer device (gpubench report --fleet on this run):\n\n");
        else fprintf(out, "\n## Per device (`gpubench report --fleet`)\n\n");
        if (gb_fleet_render(results, out, gb_writer_at(format), &fe) != GB_OK)
            fprintf(stderr, "gpubench run: per-device table: %s\n", fe.msg);
    }
    fflush(out);
    if (!written)
        fprintf(stderr, "results: NOT written to %s (see above)\n", path);
    else if (gb_interrupted)
        fprintf(stderr, "results: %s (interrupted by %s: partial results)\n", path, gb_signal_name(gb_interrupted));
    else
        fprintf(stderr, "results: %s\n", path);
    if (bad) fprintf(stderr, "%d result(s) failed verification or errored: exit 1\n", bad);

}

/* Step 5: what the run was asked to do with its results file: the Google
 * Benchmark export, the plots, the history. The exit code, made worse by
 * what failed. */
static int after_run(const char *path, int written, const char *gbench, const char *plot_dir, const char *history,
                     int exit_code) {
    char why[GB_MSG_LEN];
    gb_err e = {{0}};
    /* Exported from the results file just written, as `gpubench export`
     * does: one code path, so the two give the same bytes. */
    if (gbench) {
        int st = -1;
        if (!strcmp(path, "-"))
            snprintf(why, sizeof why, "the results went to standard output; save them with --out FILE and "
                                      "run `gpubench export FILE --format gbench`");
        else if (!written)
            snprintf(why, sizeof why, "not written: the results file could not be written (see above)");
        else if ((st = gb_export_file(path, GB_EXPORT_GBENCH, gbench, &e)) != GB_OK)
            snprintf(why, sizeof why, "%s", e.msg);
        if (st != 0) {
            fprintf(stderr, "gpubench run: --export-gbench: %s\n", why);
            if (exit_code == GB_EXIT_OK) exit_code = GB_EXIT_USAGE;
        }
    }
    /* as `report --plot`: plots asked for and not drawn are a failure */
    if (plot_dir && gb_plot_run(path, plot_dir, "png", NULL, &e) != GB_OK) {
        fprintf(stderr, "gpubench run: --plot: %s\n", e.msg);
        if (exit_code == GB_EXIT_OK) exit_code = GB_EXIT_USAGE;
    }

    if (history) { /* a complete run written to a file: into the history */
        int st = gb_cli_history_add_run(history, written && strcmp(path, "-") && !gb_interrupted ? path : NULL);
        if (st != GB_EXIT_OK && exit_code == GB_EXIT_OK) exit_code = st;
    }

    return exit_code;
}

/* The command; *case_names (--case's list) is the caller's to free, so no
 * return path below can leak it. */
static int run_command(int argc, char **argv, const char ***case_names_out) {
    gb_run_opts o = {.format = GB_FMT_TABLE, .peaks = 1};
    gb_run_signals_arm_exit();
    int parsed = gb_run_parse_options(argc, argv, &o, case_names_out);
    if (parsed >= 0) return parsed;
    const char *backends = o.backends, *out_path = o.out_path, *plot_dir = o.plot_dir, *gbench = o.gbench;
    const char *history = o.history;
    gb_suite_filter filter = o.filter;
    gb_backend_options bopt = o.bopt;
    int format = o.format, quiet = o.quiet, peaks = o.peaks, concurrent = o.concurrent, wide = o.wide;
    int list_only = o.list_only, force = o.force;
    gb_err e = {{0}};
    /* No suite file: --op and --sizes make one (gb_suite_from_args). */
    int one_off = optind == argc && filter.ops && filter.sizes;
    if (!one_off && optind != argc - 1) {
        fprintf(stderr, "gpubench run: expected one suite file (or, without one, --op and --sizes), got %d "
                        "arguments\n\n", argc - optind);
        gb_run_usage(stderr);
        return GB_EXIT_USAGE;
    }
    int setup = list_only ? GB_EXIT_OK : gb_cli_setup_process("run"); /* --list measures nothing */
    if (setup != GB_EXIT_OK) return setup;
    if (history && !list_only && gb_cli_history_ready(history) != GB_EXIT_OK) return GB_EXIT_USAGE; /* before hours of work */
    char why[GB_MSG_LEN];

    gb_suite suite;
    int loaded = one_off ? gb_suite_from_args(&filter, &suite, &e) : gb_suite_load(argv[optind], &filter, &suite, &e);
    if (loaded != GB_OK) {
        fprintf(stderr, "gpubench run: %s\n", e.msg);
        return GB_EXIT_USAGE;
    }
    if (suite.count == 0) {
        fprintf(stderr, "gpubench run: %s: no case left after the --op/--dtype/--filter selection\n", suite.path);
        gb_suite_free(&suite);
        return GB_EXIT_USAGE;
    }
    if (list_only) { /* as Google Benchmark's --benchmark_list_tests: the plan, nothing measured */
        for (size_t i = 0; i < suite.count; i++) {
            char name[256];
            gb_case_name(&suite.items[i].c, name, sizeof name);
            printf("%s\n", name);
        }
        gb_suite_free(&suite);
        return GB_EXIT_OK;
    }
    if (gb_run_fault_read(&e) != GB_OK) { /* a malformed GPUBENCH_FAULT_SLOW: before any file is claimed */
        fprintf(stderr, "gpubench run: %s\n", e.msg);
        gb_suite_free(&suite);
        return GB_EXIT_USAGE;
    }
    char path[4096];
    int no_dir = 0;
    if (out_path) snprintf(path, sizeof path, "%s", out_path);
    else no_dir = default_out_path(suite.name, path, sizeof path);
    if (no_dir) {
        fprintf(stderr, "gpubench run: %s: cannot create the directory results here for the results file: %s "
                        "(give --out FILE)\n", path, strerror(no_dir));
        gb_suite_free(&suite);
        return GB_EXIT_USAGE;
    }
    if (claim_outputs(one_off ? NULL : argv[optind], path, out_path != NULL, gbench, plot_dir, force) != GB_OK) {
        gb_suite_free(&suite);
        return GB_EXIT_USAGE;
    }

    for (size_t i = 0; i < suite.count; i++) /* the ceilings the plan's GEMMs are held to */
        if (suite.items[i].c.op_id == GB_OP_MATMUL || suite.items[i].c.op_id == GB_OP_BATCHED_MATMUL)
            bopt.peak_dtypes |= 1u << suite.items[i].c.dtype;
    bopt.peaks_quick = !o.fresh_peaks; /* a first table in seconds; results raise them */
    gb_backend_set set;
    if (gb_backends_init(&set, backends, &bopt, &e) != GB_OK) {
        fprintf(stderr, "gpubench run: %s\n", e.msg);
        gb_backends_shutdown(&set);
        gb_suite_free(&suite);
        gb_output_unlock();
        return GB_EXIT_USAGE;
    }
    int accel_note = 0; /* said early, so nobody waits minutes without knowing */
    for (int i = 0; i < set.count; i++)
        if (!set.slot[i].available && !quiet) {
            fprintf(stderr, "note: backend %s unavailable: %s\n", set.slot[i].name, set.slot[i].reason);
            accel_note = 1;
        }

    if (concurrent && gb_backends_device_count(&set) == 0 && !quiet)
        fprintf(stderr, "note: --devices-concurrent: no device is measured in this run (no accelerator selected)\n");

    cJSON *context = gb_sysinfo_context(gb_full_argc, gb_full_argv);
    gb_run_fault_describe(context); /* context.fault_slow: these times are made slower on purpose */
    gb_backends_describe(&set, context);
    cJSON_AddBoolToObject(context, "devices_concurrent", concurrent);
    cJSON *doc = new_provenance(&suite, context, bopt.cache_cold ? "cold" : "hot");
    cJSON *warnings = cJSON_GetObjectItemCaseSensitive(doc, "warnings");
    gb_cli_checks(&set, context, warnings);
    const cJSON *w;
    cJSON_ArrayForEach(w, warnings) gb_cli_warning(stderr, w->valuestring);

    /* The model exists before the first stop signal can come, so that the
     * watchdog (run_signals.h) always has results to write, from the
     * ceilings on; the provenance is set again once they are measured. */
    gb_results results;
    memset(&results, 0, sizeof results);
    int made = new_results(&results, path, &e) == GB_OK;
    int provenance = made && gb_run_set_provenance(&results.runs[0], doc, path, &e) == GB_OK;
    if (provenance) {
        gb_run_signals_watch(&results, path, suite.count);
        gb_run_signals_catch();
    }

    gb_time_breakdown times = {0};
    double t_start = gb_now();
    gb_run_peaks rp = {.fresh = o.fresh_peaks, .quiet = quiet};
    if (provenance && peaks) gb_run_peaks_measure(&set, doc, &bopt, &rp);
    times.ceilings_s = gb_now() - t_start;
    record_health(&set, doc, "before");

    gb_model_lock();
    provenance = provenance && gb_run_set_provenance(&results.runs[0], doc, path, &e) == GB_OK;
    if (!provenance) gb_run_signals_watch(NULL, NULL, 0); /* freed below */
    gb_model_unlock();
    if (!provenance) {
        fprintf(stderr, "gpubench run: %s\n", e.msg);
        if (made) gb_results_free(&results);
        cJSON_Delete(doc);
        gb_backends_shutdown(&set);
        gb_suite_free(&suite);
        gb_output_unlock();
        return GB_EXIT_USAGE;
    }

    FILE *lines = format == GB_FMT_TABLE && strcmp(path, "-") ? stdout : stderr; /* -o -: JSON alone */
    /* Checkpoints replace a file; a stream (standard output, a device, a
     * FIFO) gets the one final document, not one per checkpoint. */
    gb_out_target target;
    int replaceable = gb_output_resolve(path, &target, &e) == GB_OK && target.kind == GB_OUT_FILE;
    gb_run_lines shown = {.progress = !quiet && isatty(2), .quiet = quiet, .lines = lines, .rounds = suite.rounds};
    gb_run_config cfg = {.backends = &set, .report = gb_run_lines_callbacks(&shown),
                         .cache_cold = bopt.cache_cold, .results = &results,
                         .out_path = replaceable ? path : NULL,
                         .breakdown = &times, .started = t_start, .concurrent = concurrent, .energy = o.energy};
    int status = gb_runner_run(&suite, &cfg, &e);
    record_health(&set, doc, "after");
    int before = cJSON_GetArraySize(warnings);
    gb_sanity_check_ceilings(&results, warnings);
    gb_run_peaks_after(&rp, &results);
    gb_run_energy_warnings(&results, warnings);
    gb_run_fault_warnings(&results, warnings);
    for (int i = before; i < cJSON_GetArraySize(warnings); i++)
        gb_cli_warning(stderr, cJSON_GetArrayItem(warnings, i)->valuestring);
    for (int i = 0; i < set.count; i++)
        if (set.slot[i].disabled) {
            char msg[GB_MSG_LEN + 64];
            snprintf(msg, sizeof msg, "backend %s was disabled during the run: %s", set.slot[i].name,
                     set.slot[i].reason);
            cJSON_AddItemToArray(warnings, cJSON_CreateString(msg));
            gb_cli_warning(stderr, msg);
        }

    char gpu_why[1024] = "";
    int gpu_missing = o.require_gpu && !gb_run_gpu_measured(&set, &results, gpu_why, sizeof gpu_why);
    if (o.require_gpu) gb_run_record_gpu_required(context, warnings, !gpu_missing, gpu_why);
    int bad = 0, exit_code = GB_EXIT_OK;
    int written = write_final(&results, doc, path, status, &times, t_start, quiet, &bad, &exit_code, why, sizeof why);
    gb_output_unlock(); /* the results file is final: another run may take it now */
    if (!written) {
        fprintf(stderr, "gpubench run: %s\n", why);
        exit_code = GB_EXIT_USAGE;
    } else if (status != GB_OK) {
        fprintf(stderr, "gpubench run: %s\n", e.msg);
        exit_code = GB_EXIT_USAGE;
    }

    show_results(&results, &set, format, wide, path, written, bad, accel_note);
    if (gpu_missing) {
        fprintf(stderr, "gpubench run: the GPU side was required (--require-gpu) and no device was measured: %s: "
                        "exit 3\n", gpu_why);
        if (exit_code == GB_EXIT_OK || exit_code == GB_EXIT_CHECK) exit_code = GB_EXIT_NO_GPU;
    }
    exit_code = after_run(path, written, gbench, plot_dir, history, exit_code);

    gb_results_free(&results);
    cJSON_Delete(doc);
    gb_backends_shutdown(&set);
    gb_suite_free(&suite);
    return exit_code;
}

int gb_cmd_run(int argc, char **argv) {
    const char **case_names = NULL;
    int rc = run_command(argc, argv, &case_names);
    free(case_names);
    return rc;
}
