/* test_slurm.c — `gpubench slurm`: the files it writes, and a real SLURM
 * (tests/slurm/run-slurm-test.sh starts munged, slurmctld and slurmd here,
 * submits a 3-task array and one with a failing task, and checks the
 * merge). That test skips only where SLURM cannot run: not root, or the
 * packages are missing; CI runs as root with them installed. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

static char out[1 << 17];

static int sh(const char *cmd) { return gb_test_sh(cmd, out, sizeof out); }

static char *slurp(const char *path) {
    static char buf[1 << 16];
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* A fresh directory for one test's files. */
static void tmpdir(char *dir, size_t len) {
    snprintf(dir, len, "/tmp/gb-slurm-gen.XXXXXX");
    if (!mkdtemp(dir)) dir[0] = 0;
}

TEST(slurm_array_script_has_the_directives_a_cluster_needs) {
    char dir[64], cmd[1024], path[128];
    tmpdir(dir, sizeof dir);
    snprintf(cmd, sizeof cmd,
             "%s slurm suites/quick.json --nodes 4 --partition gpu --account proj7 --time 01:30:00 "
             "--gpus-per-node 8 --dir %s/job -- --no-peak --op 'matmul,fft'",
             gb_test_binary(), dir);
    if (!CHECK(sh(cmd) == 0)) { fprintf(stderr, "%s\n", out); return; }
    snprintf(path, sizeof path, "%s/job/array.sbatch", dir);
    const char *a = slurp(path);
    if (!CHECK(a != NULL)) return;
    CHECK(!strncmp(a, "#!/bin/bash\n", 12));
    CHECK(strstr(a, "\n#SBATCH --array=0-3\n"));
    CHECK(strstr(a, "\n#SBATCH --nodes=1\n"));
    CHECK(strstr(a, "\n#SBATCH --exclusive\n"));
    CHECK(strstr(a, "\n#SBATCH --gres=gpu:8\n"));
    CHECK(strstr(a, "\n#SBATCH --time=01:30:00\n"));
    CHECK(strstr(a, "\n#SBATCH --partition=gpu\n"));
    CHECK(strstr(a, "\n#SBATCH --account=proj7\n"));
    snprintf(path, sizeof path, "\n#SBATCH --output=%s/job/logs/task_%%A_%%a.out\n", dir);
    CHECK(strstr(a, path));
    snprintf(path, sizeof path, "\n#SBATCH --error=%s/job/logs/task_%%A_%%a.err\n", dir);
    CHECK(strstr(a, path));
    /* every directive before the first command: sbatch stops reading them there */
    const char *first_cmd = strstr(a, "\nset -u");
    CHECK(first_cmd && !strstr(first_cmd, "#SBATCH"));
    CHECK(strstr(a, "srun --nodes=1 --ntasks=1 --cpus-per-task=\"${SLURM_CPUS_ON_NODE}\" --gres=gpu:8"));
    CHECK(strstr(a, "--devices all '--no-peak' '--op' 'matmul,fft'"));
    CHECK(strstr(a, "GPUBENCH='/")); /* the binary's path is absolute */
    snprintf(path, sizeof path, "SUITE='%s/job/suite.json'", dir);
    CHECK(strstr(a, path));
    snprintf(path, sizeof path, "%s/job/suite.json", dir);
    CHECK(access(path, R_OK) == 0);
    snprintf(path, sizeof path, "%s/job/submit.sh", dir);
    const char *s = slurp(path);
    CHECK(s && strstr(s, "sbatch --parsable \"$DIR/array.sbatch\"") && strstr(s, "--dependency=afterany:"));
    snprintf(cmd, sizeof cmd, "bash -n %s/job/array.sbatch && bash -n %s/job/merge.sbatch && bash -n %s/job/submit.sh",
             dir, dir, dir);
    CHECK(sh(cmd) == 0);
    snprintf(path, sizeof path, "%s/job/merge.sbatch", dir);
    const char *m = slurp(path);
    CHECK(m && strstr(m, "merge --allow-missing") && strstr(m, "report --fleet merged.json"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}

TEST(slurm_per_gpu_and_nodelist_modes) {
    char dir[64], cmd[1024], path[128];
    tmpdir(dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "%s slurm suites/quick.json --nodes 2 --gpus-per-node 4 --per-gpu --dir %s/g",
             gb_test_binary(), dir);
    CHECK(sh(cmd) == 0);
    snprintf(path, sizeof path, "%s/g/array.sbatch", dir);
    const char *a = slurp(path);
    CHECK(a && strstr(a, "#SBATCH --array=0-7\n") && strstr(a, "#SBATCH --gres=gpu:1\n") &&
          !strstr(a, "#SBATCH --exclusive") && strstr(a, "-gpu${CUDA_VISIBLE_DEVICES:-none}.json"));
    snprintf(cmd, sizeof cmd, "%s slurm suites/quick.json --nodelist 'node[01-03],gpu7' --dir %s/l",
             gb_test_binary(), dir);
    CHECK(sh(cmd) == 0);
    snprintf(path, sizeof path, "%s/l/array.sbatch", dir);
    a = slurp(path);
    CHECK(a && !strstr(a, "#SBATCH --array"));
    snprintf(path, sizeof path, "%s/l/submit.sh", dir);
    const char *s = slurp(path);
    CHECK(s && strstr(s, "scontrol show hostnames 'node[01-03],gpu7'") &&
          strstr(s, "--array=\"$ntasks\" --nodelist=\"$node\""));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}

TEST(slurm_bad_options_exit_2_naming_the_option) {
    char cmd[512];
    const char *bin = gb_test_binary();
    struct { const char *args, *expect; } cases[] = {
        {"suites/quick.json --nodes 2 --nodelist n1", "--nodes and --nodelist"},
        {"suites/quick.json --time soon", "--time: \"soon\""},
        {"suites/quick.json --per-gpu", "--per-gpu needs --gpus-per-node"},
        {"suites/quick.json --nodes 0", "--nodes"},
        {"suites/quick.json --partition 'a b'", "--partition"},
        {"suites/nope.json", "nope.json"},
        {"", "expected one suite file"},
        {"suites/quick.json --gpubench /nonexistent/gpubench", "--gpubench"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(cmd, sizeof cmd, "%s slurm %s --dir %s", bin, cases[i].args, gb_test_tmp("slurm-bad-opts"));
        int rc = sh(cmd);
        if (!CHECK(rc == 2 && strstr(out, cases[i].expect))) fprintf(stderr, "    %s -> %d: %s\n", cmd, rc, out);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", gb_test_tmp("slurm-bad-opts"));
    sh(cmd);
}

TEST(slurm_real_cluster_array_merge_and_partial_failure) {
    char cmd[512];
    snprintf(cmd, sizeof cmd, "tests/slurm/run-slurm-test.sh %s", gb_test_binary());
    int rc = sh(cmd);
    if (rc == 77) {
        const char *why = strstr(out, "SKIP: ");
        char reason[300];
        snprintf(reason, sizeof reason, "%s", why ? why + 6 : "SLURM unavailable");
        char *nl = strchr(reason, '\n');
        if (nl) *nl = 0;
        SKIP(reason);
        return;
    }
    if (!CHECK(rc == 0)) fprintf(stderr, "%s\n", out);
}

/* The merge job's merge: a missing or broken input is left out with its
 * reason in the merged file's warnings, --note lines join them, and only
 * when nothing is left does the merge fail. */
TEST(merge_allow_missing_merges_the_rest_and_names_what_is_missing) {
    char cmd[1024];
    const char *bin = gb_test_binary();
    snprintf(cmd, sizeof cmd,
             "%s merge --allow-missing --note 'task 1 (n2): TIMEOUT' tests/data/fleet/cpu_a.json /nonexistent/t1.json "
             "tests/data/not_results.json tests/data/fleet/cpu_b.json -o %s",
             bin, gb_test_tmp("merge-allow-missing.json"));
    int rc = sh(cmd);
    if (!CHECK(rc == 0)) fprintf(stderr, "%s\n", out);
    CHECK(strstr(out, "not merged: /nonexistent/t1.json: cannot open"));
    const char *m = slurp(gb_test_tmp("merge-allow-missing.json"));
    CHECK(m && strstr(m, "not merged: /nonexistent/t1.json: cannot open: No such file or directory"));
    CHECK(m && strstr(m, "not merged: tests/data/not_results.json: not a gpubench results file"));
    CHECK(m && strstr(m, "task 1 (n2): TIMEOUT"));
    CHECK(m && strstr(m, "\"name\":\t\"cpu-a\"") && strstr(m, "\"name\":\t\"cpu-b\""));
    /* without --allow-missing the same inputs fail, naming the file */
    snprintf(cmd, sizeof cmd, "%s merge tests/data/fleet/cpu_a.json /nonexistent/t1.json -o %s", bin,
             gb_test_tmp("merge-x.json"));
    CHECK(sh(cmd) == 2 && strstr(out, "/nonexistent/t1.json"));
    /* nothing left: exit 2, nothing written */
    snprintf(cmd, sizeof cmd, "%s merge --allow-missing /nonexistent/t1.json -o %s", bin,
             gb_test_tmp("merge-none.json"));
    CHECK(sh(cmd) == 2 && strstr(out, "nothing written") && access(gb_test_tmp("merge-none.json"), F_OK) != 0);
    remove(gb_test_tmp("merge-allow-missing.json"));
    remove(gb_test_tmp("merge-x.json"));
}

/* A refused `slurm` takes back exactly what it made: no directory of a nested
 * --dir chain, no file, and nothing that was there before it ran. */
TEST(slurm_a_refusal_removes_exactly_what_it_made) {
    char dir[128], cmd[16384];
    tmpdir(dir, sizeof dir);
    static char bin[4096], cwd[4096];
    if (!realpath(gb_test_binary(), bin) || !getcwd(cwd, sizeof cwd)) { SKIP("no gpubench binary"); return; }
    /* refused before anything is made: a path #SBATCH cannot hold, a bad option */
    snprintf(cmd, sizeof cmd, "cd %s && %.1000s slurm %.1000s/suites/quick.json --dir 'a/b c/d' ; echo rc=$?; "
             "%.1000s slurm %.1000s/suites/quick.json --dir a/b/c --time soon; echo rc=$?; find . | sort",
             dir, bin, cwd, bin, cwd);
    sh(cmd);
    CHECK(strstr(out, "rc=2\n") && strstr(strstr(out, "rc=2\n") + 4, "rc=2\n"));
    CHECK(strstr(out, "--dir") && strstr(out, "--time"));
    CHECK(strstr(out, "./a") == NULL); /* no directory of either chain */
    /* refused after the chain was made: through a link, the real path holds a
     * space; the link and its target were there before and stay */
    snprintf(cmd, sizeof cmd, "cd %s && mkdir 'x y' && ln -s 'x y' link && %.1000s slurm %.1000s/suites/quick.json --dir "
             "link/p/q/r; echo rc=$?; find . | sort",
             dir, bin, cwd);
    sh(cmd);
    CHECK(strstr(out, "rc=2\n") && strstr(out, "no spaces"));
    CHECK(strstr(out, "./x y\n") && strstr(out, "./link\n") && !strstr(out, "./x y/p"));
    /* refused while writing (array.sbatch is a directory there): what it wrote
     * goes, the directory and what it held before stay */
    snprintf(cmd, sizeof cmd, "cd %s && mkdir -p pre/array.sbatch && touch pre/keep && %.1000s slurm %.1000s/suites/quick.json "
             "--dir pre; echo rc=$?; find pre | sort",
             dir, bin, cwd);
    sh(cmd);
    CHECK(strstr(out, "rc=2\n") && strstr(out, "array.sbatch"));
    CHECK(strstr(out, "pre\npre/array.sbatch\npre/keep\nrc=") || strstr(out, "rc=2\npre\npre/array.sbatch\npre/keep\n"));
    CHECK(!strstr(out, "pre/suite.json") && !strstr(out, "pre/results") && !strstr(out, "pre/logs"));
    /* a run that succeeds keeps everything */
    snprintf(cmd, sizeof cmd, "cd %s && %.1000s slurm %.1000s/suites/quick.json --dir ok/a/b > /dev/null; echo rc=$?; "
             "ls ok/a/b | tr '\\n' ' '", dir, bin, cwd);
    sh(cmd);
    CHECK(strstr(out, "rc=0") && strstr(out, "array.sbatch logs merge.sbatch results submit.sh suite.json"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}
