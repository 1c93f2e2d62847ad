/* cmd_slurm.c — `gpubench slurm SUITE [options] [-- RUN OPTIONS]`: write (and
 * with --submit, submit) a SLURM job array running the suite on many nodes,
 * and the merge job that waits for it (src/system/slurm_job.h). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "file_read.h"
#include "file_roles.h"
#include "results_io.h"
#include "slurm_job.h"
#include "suite.h"
#include "child_env.h"

static void usage(FILE *out) {
    fprintf(out,
            "usage: gpubench slurm SUITE.json [--nodes N | --nodelist LIST] [--partition P]\n"
            "                      [--gpus-per-node G [--gpu-type T] [--per-gpu]] [--time T] [--account A]\n"
            "                      [--qos Q] [--constraint C] [--reservation R] [--exclude LIST]\n"
            "                      [--no-exclusive] [--sbatch-option OPT]... [--merge-partition P]\n"
            "                      [--setup FILE] [--container IMAGE] [--dir SHARED] [--gpubench PATH]\n"
            "                      [--submit] [-- RUN OPTIONS...]\n"
            "       gpubench slurm --retry-failed SHARED\n\n"
            "Write a SLURM job array that runs the suite on many nodes (one task per node, each\n"
            "owning its node: --exclusive) and a merge job that runs after every task has ended,\n"
            "merges the results files that exist and names the tasks that failed, with why.\n\n"
            "  --nodes N           N array tasks on nodes SLURM picks (default 1)\n"
            "  --nodelist LIST     one task on each node of a SLURM hostlist (node[01-04],gpu7)\n"
            "  --partition P       #SBATCH --partition (the array; the merge job needs none)\n"
            "  --account A         #SBATCH --account\n"
            "  --qos Q, --constraint C, --reservation R, --exclude LIST\n"
            "                      the same #SBATCH options\n"
            "  --sbatch-option OPT any other sbatch option, repeatable (--sbatch-option \"--mem=200G\");\n"
            "                      written after ours, so where both set one it wins\n"
            "  --no-exclusive      no --exclusive and no --mem=0: share the node as the site allows\n"
            "  --merge-partition P the merge job's partition (default: the site's default)\n"
            "  --time T            #SBATCH --time, each task's limit (e.g. 01:00:00); the task's run\n"
            "                      stops on SLURM's SIGTERM and keeps what it measured\n"
            "  --gpus-per-node G   --gres=gpu:G per task, and `run --devices all --require-gpu` on each\n"
            "                      node: a node that cannot use a GPU fails, with why\n"
            "  --gpu-type T        --gres=gpu:T:G (a typed GPU, gpu:h100:4)\n"
            "  --per-gpu           one srun task per GPU (each bound to its own GPU, the one nearest its\n"
            "                      CPUs); the task fails naming any GPU not measured exactly once\n"
            "  --setup FILE        lines every task runs before gpubench (module load ..., source ...)\n"
            "  --container IMAGE   run gpubench in an Apptainer/Singularity image (exec --nv); then\n"
            "                      --gpubench is the path inside the image (default: gpubench)\n"
            "  --dir SHARED        directory on a file system every node sees (default\n"
            "                      ./gpubench-slurm-<suite>-<UTC time>); gets the scripts, the\n"
            "                      suite's copy, results/, logs/, merged.json and fleet.txt\n"
            "  --gpubench PATH     the gpubench the nodes run (default: this one), e.g. a bundle's\n"
            "                      bin/gpubench on the shared file system\n"
            "  --submit            also submit (sbatch) and print the job ids\n"
            "  --retry-failed DIR  resubmit the tasks DIR/failed-tasks.txt names (the next attempt)\n"
            "                      and merge again: each result from its newest attempt (attempts.txt)\n"
            "  -- RUN OPTIONS      passed to `gpubench run` on every node (-- --backend cpu --no-peak)\n"
            "  -h, --help          this help\n\n"
            "Writes SHARED/array.sbatch, task.sh, merge.sbatch and submit.sh (docs/clusters.md).\n"
            "exit: 0 written (and submitted), 1 sbatch failed, 2 usage error\n");
}

/* The suite, read as every suite is (file_read.h: a regular file of a
 * bounded size) and written by the one writer (results_io.h). */
static int copy_file(const char *from, const char *to, gb_err *e) {
    char *text;
    size_t len;
    if (gb_read_bounded(from, "a suite file", GB_LIMIT_SUITE, &text, &len, e) != GB_OK) return GB_FAIL;
    int rc = gb_file_write(to, text, len, e);
    free(text);
    return rc;
}

/* What this command made (directories, files), in the order made, so that a
 * refusal removes exactly that and nothing that was there before: a refused
 * `--dir a/b/c` left a, a/b and a/b/c behind. */
typedef struct {
    char **path;
    int n;
} made_list;

static int made_add(made_list *m, const char *path) {
    char **np = realloc(m->path, (size_t)(m->n + 1) * sizeof *np);
    if (!np || !(np[m->n] = strdup(path))) {
        if (np) m->path = np;
        return -1;
    }
    m->path = np;
    m->n++;
    return 0;
}

/* Record dir/name when it is not there yet (it is about to be made). */
static int made_will(made_list *m, const char *dir, const char *name) {
    char p[PATH_MAX + 64];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return lstat(p, &st) == 0 ? 0 : made_add(m, p);
}

/* Remove what was made, last first (files before their directory); with
 * undo 0 only forget it. */
static void made_end(made_list *m, int undo) {
    for (int i = m->n - 1; i >= 0; i--) {
        if (undo && remove(m->path[i]) != 0 && errno != ENOENT)
            fprintf(stderr, "gpubench slurm: could not remove %s, which it made: %s\n", m->path[i], strerror(errno));
        free(m->path[i]);
    }
    free(m->path);
    m->path = NULL;
    m->n = 0;
}

/* mkdir -p, each directory it makes recorded in made */
static int make_dirs(const char *path, made_list *made, gb_err *e) {
    char p[PATH_MAX];
    if (snprintf(p, sizeof p, "%s", path) >= (int)sizeof p) return gb_errf(e, GB_FAIL, "%.200s...: too long", path);
    for (char *s = p + 1;; s++) {
        if (*s && *s != '/') continue;
        char was = *s;
        *s = 0;
        if (mkdir(p, 0777) == 0) {
            if (made_add(made, p)) return gb_errf(e, GB_FAIL, "out of memory");
        } else if (errno != EEXIST) {
            return gb_errf(e, GB_FAIL, "%s: cannot create: %s", p, strerror(errno));
        }
        if (!was) break;
        *s = '/';
    }
    return GB_OK;
}

/* The command line as typed, for the scripts' header comment. */
static void command_line(char *buf, size_t len) {
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < gb_full_argc && n + 1 < len; i++)
        n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? " " : "", gb_full_argv[i]);
    for (char *p = buf; *p; p++)
        if (*p == '\n' || *p == '\r') *p = ' ';
}

/* Run submit.sh (bash: it uses arrays) with TASKS (NULL: all), its output
 * passing through. submit.sh itself cancels what it submitted when a later
 * sbatch fails, and says so: its advice is the one to follow. */
static int submit(const char *dir, const char *tasks) {
    char script[PATH_MAX + 16];
    snprintf(script, sizeof script, "%s/submit.sh", dir);
    fflush(stdout);
    char **envp = gb_child_envp(NULL); /* the user's environment and CPU set (child_env.h) */
    if (!envp) {
        fprintf(stderr, "gpubench slurm: --submit: out of memory\n");
        return GB_EXIT_CHECK;
    }
    gb_child_before_fork();
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "gpubench slurm: --submit: fork: %s\n", strerror(errno));
        gb_child_envp_free(envp);
        return GB_EXIT_CHECK;
    }
    if (pid == 0) {
        gb_child_after_fork();
        char *const args[] = {"bash", script, (char *)tasks, NULL};
        execvpe("bash", args, envp);
        fprintf(stderr, "gpubench slurm: --submit: cannot run bash: %s\n", strerror(errno));
        _exit(127);
    }
    gb_child_envp_free(envp);
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return GB_EXIT_OK;
    fprintf(stderr, "gpubench slurm: %s failed (exit %d): see its lines above for what was submitted and cancelled\n",
            script, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return GB_EXIT_CHECK;
}

/* --retry-failed DIR: the array tasks DIR/failed-tasks.txt names ("task N: ..."
 * or, per GPU, "task N.L: ..."), each once, as submit.sh's comma list in
 * *list (NULL when it names none). GB_FAIL when the file cannot be read. */
#define GB_SLURM_MAX_TASKS 100000
static int failed_tasks(const char *dir, char **list, gb_err *e) {
    char path[PATH_MAX + 32], *text;
    size_t len, n = 0;
    *list = NULL;
    snprintf(path, sizeof path, "%s/failed-tasks.txt", dir);
    if (gb_read_bounded(path, "the merge job's list of failed tasks", GB_LIMIT_SUITE, &text, &len, e) != GB_OK)
        return GB_FAIL;
    char *out = calloc(1, len + 2);
    unsigned char *seen = calloc(GB_SLURM_MAX_TASKS, 1);
    for (char *line = text; out && seen && line && *line;) {
        char *next = strchr(line, '\n'), *end;
        if (next) *next++ = '\0';
        if (!strncmp(line, "task ", 5) && line[5] >= '0' && line[5] <= '9') {
            long t = strtol(line + 5, &end, 10);
            if ((*end == ':' || *end == '.') && t < GB_SLURM_MAX_TASKS && !seen[t]) {
                seen[t] = 1;
                n += (size_t)sprintf(out + n, "%s%ld", n ? "," : "", t);
            }
        }
        line = next;
    }
    free(text);
    free(seen);
    if (!out) return gb_errf(e, GB_FAIL, "out of memory");
    if (n) *list = out;
    else free(out);
    return GB_OK;
}

static int retry_failed(const char *dir) {
    char abs[PATH_MAX], script[PATH_MAX + 16];
    gb_err e = {{0}};
    if (!realpath(dir, abs)) {
        fprintf(stderr, "gpubench slurm: --retry-failed: %s: %s\n", dir, strerror(errno));
        return GB_EXIT_USAGE;
    }
    snprintf(script, sizeof script, "%s/submit.sh", abs);
    if (access(script, R_OK) != 0) {
        fprintf(stderr, "gpubench slurm: --retry-failed: %s: no submit.sh: not a directory `gpubench slurm` wrote\n", abs);
        return GB_EXIT_USAGE;
    }
    char *tasks;
    if (failed_tasks(abs, &tasks, &e) != GB_OK) {
        fprintf(stderr, "gpubench slurm: --retry-failed: %s (the merge job writes it when it has run)\n", e.msg);
        return GB_EXIT_USAGE;
    }
    if (!tasks) {
        printf("%s/failed-tasks.txt names no failed task: nothing to retry\n", abs);
        return GB_EXIT_OK;
    }
    printf("retrying tasks %s of %s\n", tasks, abs);
    int rc = submit(abs, tasks);
    free(tasks);
    return rc;
}

static int slurm_write(gb_slurm_job *jp, int argc, char **argv, int end, const char *dir, const char *gpubench,
                       int do_submit);

int gb_cmd_slurm(int argc, char **argv) {
    static const struct option opts[] = {
        {"nodes", required_argument, 0, 'N'},     {"nodelist", required_argument, 0, 'w'},
        {"partition", required_argument, 0, 'p'}, {"gpus-per-node", required_argument, 0, 'G'},
        {"per-gpu", no_argument, 0, 'g'},         {"time", required_argument, 0, 't'},
        {"account", required_argument, 0, 'A'},   {"dir", required_argument, 0, 'D'},
        {"gpubench", required_argument, 0, 'B'},  {"submit", no_argument, 0, 's'},
        {"qos", required_argument, 0, 'q'},       {"constraint", required_argument, 0, 'C'},
        {"reservation", required_argument, 0, 'R'}, {"exclude", required_argument, 0, 'x'},
        {"gpu-type", required_argument, 0, 'T'},  {"no-exclusive", no_argument, 0, 'X'},
        {"sbatch-option", required_argument, 0, 'o'}, {"merge-partition", required_argument, 0, 'm'},
        {"setup", required_argument, 0, 'S'},     {"container", required_argument, 0, 'I'},
        {"retry-failed", required_argument, 0, 'r'}, {"help", no_argument, 0, 'h'},
        {0, 0, 0, 0}};
    /* Everything after "--" is for `gpubench run`, not for getopt. */
    int end = argc;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--")) {
            end = i;
            break;
        }
    gb_slurm_job j = {0};
    j.nodes = -1;
    j.run_args = argv + (end < argc ? end + 1 : argc);
    j.nrun_args = end < argc ? argc - end - 1 : 0;
    const char *dir = NULL, *gpubench = NULL, *retry = NULL;
    int do_submit = 0;
    /* --sbatch-option values: at most one per argument */
    char **sbopts = calloc((size_t)end + 1, sizeof *sbopts);
    if (!sbopts) {
        fprintf(stderr, "gpubench slurm: out of memory\n");
        return GB_EXIT_USAGE;
    }
    j.sbatch_opts = sbopts;
    long v;
    optind = 0;
    int c;
    while ((c = gb_cli_getopt(end, argv, "h", opts)) != -1) {
        switch (c) {
        case 'N':
        case 'G':
            if (gb_cli_parse_int(optarg, 1, c == 'N' ? 100000 : 1024, &v) != 0) {
                fprintf(stderr, "gpubench slurm: --%s: expected a whole number from 1, got \"%s\"\n",
                        c == 'N' ? "nodes" : "gpus-per-node", optarg);
                free(sbopts);
                return GB_EXIT_USAGE;
            }
            *(c == 'N' ? &j.nodes : &j.gpus_per_node) = v;
            break;
        case 'w': j.nodelist = optarg; break;
        case 'p': j.partition = optarg; break;
        case 'g': j.per_gpu = 1; break;
        case 't': j.time = optarg; break;
        case 'A': j.account = optarg; break;
        case 'D': dir = optarg; break;
        case 'B': gpubench = optarg; break;
        case 's': do_submit = 1; break;
        case 'q': j.qos = optarg; break;
        case 'C': j.constraint = optarg; break;
        case 'R': j.reservation = optarg; break;
        case 'x': j.exclude = optarg; break;
        case 'T': j.gpu_type = optarg; break;
        case 'X': j.shared = 1; break;
        case 'o': sbopts[j.nsbatch_opts++] = optarg; break;
        case 'm': j.merge_partition = optarg; break;
        case 'S': j.setup_path = optarg; break;
        case 'I': j.container = optarg; break;
        case 'r': retry = optarg; break;
        case 'h': free(sbopts); usage(stdout); return GB_EXIT_OK;
        default: free(sbopts); return gb_cli_bad_option("slurm", end, argv, "h");
        }
    }
    if (retry) {
        free(sbopts);
        if (optind != end || end != argc) {
            fprintf(stderr, "gpubench slurm: --retry-failed DIR takes nothing else: the job's scripts are in DIR\n");
            return GB_EXIT_USAGE;
        }
        return retry_failed(retry);
    }
    /* --setup's lines go into every task: read now, as every input is (a
     * regular file of a bounded size) */
    char *setup = NULL;
    size_t setup_len;
    gb_err e = {{0}};
    if (j.setup_path &&
        gb_read_bounded(j.setup_path, "--setup's file", GB_LIMIT_SUITE, &setup, &setup_len, &e) != GB_OK) {
        fprintf(stderr, "gpubench slurm: --setup: %s\n", e.msg);
        free(sbopts);
        return GB_EXIT_USAGE;
    }
    const char *cr = setup ? strchr(setup, '\r') : NULL;
    if (setup && (strlen(setup) != setup_len || cr)) {
        /* a CR at a line's end (a file saved on Windows) is read by bash as
         * part of the command: `module load cuda\r` fails in every task */
        int line = 1;
        for (const char *p = setup; cr && p < cr; p++) line += *p == '\n';
        if (strlen(setup) != setup_len)
            fprintf(stderr, "gpubench slurm: --setup: %s: holds a NUL byte: not shell lines\n", j.setup_path);
        else
            fprintf(stderr, "gpubench slurm: --setup: %s: line %d holds a carriage return (Windows line endings?): "
                            "bash would run it as part of the command in every task; convert it (dos2unix %s)\n",
                    j.setup_path, line, j.setup_path);
        free(setup);
        free(sbopts);
        return GB_EXIT_USAGE;
    }
    j.setup = setup;
    int rc = slurm_write(&j, argc, argv, end, dir, gpubench, do_submit);
    free(sbopts);
    free(setup);
    return rc;
}

/* The rest of `gpubench slurm` once the options are read: check, write,
 * and with --submit submit. */
static int slurm_write(gb_slurm_job *jp, int argc, char **argv, int end, const char *dir, const char *gpubench,
                       int do_submit) {
    gb_slurm_job j = *jp;
    (void)argc;
    if (optind != end - 1) {
        fprintf(stderr, "gpubench slurm: expected one suite file, got %d (options for `gpubench run` go after --)\n\n",
                end - optind);
        usage(stderr);
        return GB_EXIT_USAGE;
    }
    if (j.nodelist && j.nodes >= 0) {
        fprintf(stderr, "gpubench slurm: --nodes and --nodelist: give one (a list sets the number of nodes)\n");
        return GB_EXIT_USAGE;
    }
    if (!j.nodelist && j.nodes < 0) j.nodes = 1;
    const char *suite_path = argv[optind];

    /* The suite is checked here, before a hundred nodes find it broken. */
    gb_suite s;
    gb_err e = {{0}};
    if (gb_suite_load(suite_path, NULL, &s, &e) != GB_OK) {
        fprintf(stderr, "gpubench slurm: %s\n", e.msg);
        return GB_EXIT_USAGE;
    }
    char name[128];
    snprintf(name, sizeof name, "%s", *s.name ? s.name : "suite");
    gb_suite_free(&s);
    for (char *p = name; *p; p++)
        if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *p)) *p = '_';
    j.suite_name = name;

    char exe[PATH_MAX], absdir[PATH_MAX], suite_copy[PATH_MAX + 16], defdir[256], cmdline[4096];
    if (j.container) {
        /* the binary inside the image: not a path here */
        snprintf(exe, sizeof exe, "%s", gpubench ? gpubench : "gpubench");
    } else if (gpubench) {
        if (!realpath(gpubench, exe) || access(exe, X_OK) != 0) {
            fprintf(stderr, "gpubench slurm: --gpubench: %s: not an executable file here: %s\n", gpubench,
                    strerror(errno ? errno : EACCES));
            return GB_EXIT_USAGE;
        }
    } else if (!realpath("/proc/self/exe", exe)) {
        fprintf(stderr, "gpubench slurm: cannot find this executable's path (/proc/self/exe): %s\n", strerror(errno));
        return GB_EXIT_USAGE;
    }
    j.gpubench = exe;
    if (!dir) {
        time_t now = time(NULL);
        struct tm tm;
        gmtime_r(&now, &tm);
        snprintf(defdir, sizeof defdir, "gpubench-slurm-%s-%04d%02d%02dT%02d%02d%02dZ", name, tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        dir = defdir;
    }
    /* none of the files written in --dir is the suite (file_roles.h) */
    static const char *const written[] = {"suite.json", "array.sbatch", "merge.sbatch", "submit.sh", "task.sh"};
    char wpath[5][PATH_MAX + 16];
    gb_file_roles roles = {0};
    gb_roles_input(&roles, "the suite", suite_path);
    for (int i = 0; i < 5; i++) {
        snprintf(wpath[i], sizeof wpath[i], "%s/%s", dir, written[i]);
        gb_roles_output(&roles, "the file written in --dir", wpath[i]);
    }
    if (gb_roles_check(&roles, &e) != GB_OK) {
        fprintf(stderr, "gpubench slurm: %s\n", e.msg);
        return GB_EXIT_USAGE;
    }
    command_line(cmdline, sizeof cmdline);
    j.command_line = cmdline;
    /* The options checked before anything is made, on the directory as it
     * will be named (made absolute by hand: it does not exist yet) */
    if (dir[0] == '/') snprintf(absdir, sizeof absdir, "%s", dir);
    else if (!getcwd(absdir, sizeof absdir) || strlen(absdir) + strlen(dir) + 2 > sizeof absdir) absdir[0] = '\0';
    else strcat(strcat(absdir, "/"), dir);
    j.dir = absdir;
    if (absdir[0] && gb_slurm_check(&j, &e) != GB_OK) {
        fprintf(stderr, "gpubench slurm: %s\n", e.msg);
        return GB_EXIT_USAGE;
    }
    made_list made = {0};
    if (make_dirs(dir, &made, &e) != GB_OK || !realpath(dir, absdir)) {
        fprintf(stderr, "gpubench slurm: --dir: %s\n", *e.msg ? e.msg : strerror(errno));
        made_end(&made, 1);
        return GB_EXIT_USAGE;
    }
    snprintf(suite_copy, sizeof suite_copy, "%s/suite.json", absdir);
    j.suite = suite_copy;
    /* again on the real path (a link on the way may hold what #SBATCH cannot);
     * every later refusal takes back what was made */
    static const char *const files[] = {"suite.json", "results", "logs", "array.sbatch", "task.sh", "merge.sbatch",
                                          "submit.sh"};
    int bad = gb_slurm_check(&j, &e) != GB_OK;
    for (size_t i = 0; !bad && i < sizeof files / sizeof *files; i++)
        if (made_will(&made, absdir, files[i])) bad = gb_errf(&e, GB_FAIL, "out of memory") != GB_OK;
    /* Every node runs the copy, so the suite cannot change under a queued job. */
    if (bad || copy_file(suite_path, suite_copy, &e) != GB_OK || gb_slurm_write(&j, &e) != GB_OK) {
        fprintf(stderr, "gpubench slurm: %s\n", e.msg);
        made_end(&made, 1);
        return GB_EXIT_USAGE;
    }
    made_end(&made, 0);
    printf("wrote %s/array.sbatch, %s/task.sh, %s/merge.sbatch, %s/submit.sh\n", absdir, absdir, absdir, absdir);
    if (!do_submit) {
        printf("submit with: bash %s/submit.sh\n", absdir);
        return GB_EXIT_OK;
    }
    return submit(absdir, NULL);
}
