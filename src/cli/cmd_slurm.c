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

static void usage(FILE *out) {
    fprintf(out,
            "usage: gpubench slurm SUITE.json [--nodes N | --nodelist LIST] [--partition P]\n"
            "                      [--gpus-per-node G [--per-gpu]] [--time T] [--account A]\n"
            "                      [--dir SHARED] [--gpubench PATH] [--submit] [-- RUN OPTIONS...]\n\n"
            "Write a SLURM job array that runs the suite on many nodes (one task per node, each\n"
            "owning its node: --exclusive) and a merge job that runs after every task has ended,\n"
            "merges the results files that exist and names the tasks that failed, with why.\n\n"
            "  --nodes N           N array tasks on nodes SLURM picks (default 1)\n"
            "  --nodelist LIST     one task on each node of a SLURM hostlist (node[01-04],gpu7)\n"
            "  --partition P       #SBATCH --partition\n"
            "  --account A         #SBATCH --account\n"
            "  --time T            #SBATCH --time, each task's limit (e.g. 01:00:00); the task's run\n"
            "                      stops on SLURM's SIGTERM and keeps what it measured\n"
            "  --gpus-per-node G   --gres=gpu:G per task, and `run --devices all` on each node\n"
            "  --per-gpu           one task per GPU instead (G tasks per node, --gres=gpu:1 each)\n"
            "  --dir SHARED        directory on a file system every node sees (default\n"
            "                      ./gpubench-slurm-<suite>-<UTC time>); gets the scripts, the\n"
            "                      suite's copy, results/, logs/, merged.json and fleet.txt\n"
            "  --gpubench PATH     the gpubench the nodes run (default: this one), e.g. a bundle's\n"
            "                      bin/gpubench on the shared file system\n"
            "  --submit            also submit (sbatch) and print the job ids\n"
            "  -- RUN OPTIONS      passed to `gpubench run` on every node (-- --backend cpu --no-peak)\n"
            "  -h, --help          this help\n\n"
            "Writes SHARED/array.sbatch, SHARED/merge.sbatch and SHARED/submit.sh (docs/multi-gpu.md, \"A\n"
            "cluster through SLURM\"). exit: 0 written (and submitted), 1 sbatch failed, 2 usage error\n");
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

/* Run submit.sh (bash: it uses arrays), its output passing through. */
static int submit(const char *dir) {
    char script[PATH_MAX + 16];
    snprintf(script, sizeof script, "%s/submit.sh", dir);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "gpubench slurm: --submit: fork: %s\n", strerror(errno));
        return GB_EXIT_CHECK;
    }
    if (pid == 0) {
        execlp("bash", "bash", script, (char *)NULL);
        fprintf(stderr, "gpubench slurm: --submit: cannot run bash: %s\n", strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {}
    if (WIFEXITED(st) && WEXITSTATUS(st) == 0) return GB_EXIT_OK;
    fprintf(stderr, "gpubench slurm: --submit: %s failed (exit %d); the files are written, run it again once sbatch "
                    "works\n", script, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
    return GB_EXIT_CHECK;
}

int gb_cmd_slurm(int argc, char **argv) {
    static const struct option opts[] = {
        {"nodes", required_argument, 0, 'N'},     {"nodelist", required_argument, 0, 'w'},
        {"partition", required_argument, 0, 'p'}, {"gpus-per-node", required_argument, 0, 'G'},
        {"per-gpu", no_argument, 0, 'g'},         {"time", required_argument, 0, 't'},
        {"account", required_argument, 0, 'A'},   {"dir", required_argument, 0, 'D'},
        {"gpubench", required_argument, 0, 'B'},  {"submit", no_argument, 0, 's'},
        {"help", no_argument, 0, 'h'},            {0, 0, 0, 0}};
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
    const char *dir = NULL, *gpubench = NULL;
    int do_submit = 0;
    long v;
    optind = 0;
    int c;
    while ((c = getopt_long(end, argv, "h", opts, NULL)) != -1) {
        switch (c) {
        case 'N':
        case 'G':
            if (gb_cli_parse_int(optarg, 1, c == 'N' ? 100000 : 1024, &v) != 0) {
                fprintf(stderr, "gpubench slurm: --%s: expected a whole number from 1, got \"%s\"\n",
                        c == 'N' ? "nodes" : "gpus-per-node", optarg);
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
        case 'h': usage(stdout); return GB_EXIT_OK;
        default: return gb_cli_bad_option("slurm", end, argv, "h");
        }
    }
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
    if (gpubench) {
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
    static const char *const written[] = {"suite.json", "array.sbatch", "merge.sbatch", "submit.sh"};
    char wpath[4][PATH_MAX + 16];
    gb_file_roles roles = {0};
    gb_roles_input(&roles, "the suite", suite_path);
    for (int i = 0; i < 4; i++) {
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
    static const char *const files[] = {"suite.json", "results", "logs", "array.sbatch", "merge.sbatch", "submit.sh"};
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
    printf("wrote %s/array.sbatch, %s/merge.sbatch, %s/submit.sh\n", absdir, absdir, absdir);
    if (!do_submit) {
        printf("submit with: bash %s/submit.sh\n", absdir);
        return GB_EXIT_OK;
    }
    return submit(absdir);
}
