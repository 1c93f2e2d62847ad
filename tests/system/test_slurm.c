/* test_slurm.c — `gpubench slurm`: the files it writes, and a real SLURM
 * (tests/slurm/run-slurm-test.sh starts munged, slurmctld and slurmd here
 * with fake GPUs, two partitions and a reservation, and walks an admin's
 * checks: arrays merged, a failed task and its retry, a driverless GPU node,
 * --per-gpu, a submission refused half-way, the site options; its header
 * lists them). That test skips only where SLURM cannot run: not root, or the
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
    snprintf(path, sizeof path, "\n#SBATCH --output=\"%s/job/logs/task_%%A_%%a.out\"\n", dir);
    CHECK(strstr(a, path));
    snprintf(path, sizeof path, "\n#SBATCH --error=\"%s/job/logs/task_%%A_%%a.err\"\n", dir);
    CHECK(strstr(a, path));
    /* every directive before the first command: sbatch stops reading them there */
    const char *first_cmd = strstr(a, "\nset -u");
    CHECK(first_cmd && !strstr(first_cmd, "#SBATCH"));
    CHECK(strstr(a, "srun --nodes=1 --ntasks=\"$GPUS_PER_TASK\" --cpus-per-task=\"$cpt\" --gres=gpu:8 bash \"$DIR/task.sh\""));
    CHECK(strstr(a, "export GPUBENCH_SLURM_ATTEMPT=${GPUBENCH_SLURM_ATTEMPT:-1}"));
    CHECK(strstr(a, "echo \"limits: time "));
    snprintf(path, sizeof path, "%s/job/task.sh", dir);
    const char *t = slurp(path);
    if (!CHECK(t != NULL)) return;
    /* asked for GPUs: every node must use them, or fail saying why */
    CHECK(strstr(t, "--devices all --require-gpu '--no-peak' '--op' 'matmul,fft'"));
    CHECK(strstr(t, "GPUBENCH='/")); /* the binary's path is absolute */
    snprintf(path, sizeof path, "SUITE='%s/job/suite.json'", dir);
    CHECK(strstr(t, path));
    CHECK(strstr(t, "-a${GPUBENCH_SLURM_ATTEMPT}-${HOST}.json"));
    snprintf(path, sizeof path, "%s/job/suite.json", dir);
    CHECK(access(path, R_OK) == 0);
    snprintf(path, sizeof path, "%s/job/submit.sh", dir);
    const char *s = slurp(path);
    CHECK(s && strstr(s, "--export=ALL,GPUBENCH_SLURM_ATTEMPT=${attempt}") && strstr(s, "--dependency=afterany:"));
    snprintf(cmd, sizeof cmd, "bash -n %s/job/array.sbatch && bash -n %s/job/merge.sbatch && bash -n %s/job/submit.sh"
             " && bash -n %s/job/task.sh", dir, dir, dir, dir);
    CHECK(sh(cmd) == 0);
    snprintf(path, sizeof path, "%s/job/merge.sbatch", dir);
    const char *m = slurp(path);
    CHECK(m && strstr(m, "merge --allow-missing") && strstr(m, "report --fleet merged.json"));
    /* the merge job needs no GPU and not the array's partition (#31 item 8) */
    CHECK(m && !strstr(m, "#SBATCH --partition") && !strstr(m, "#SBATCH --gres") && strstr(m, "#SBATCH --cpus-per-task=1\n"));
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
    /* one array task per node holding its G GPUs, one srun task bound to each */
    CHECK(a && strstr(a, "#SBATCH --array=0-1\n") && strstr(a, "#SBATCH --ntasks=4\n") && strstr(a, "#SBATCH --gres=gpu:4\n") &&
          strstr(a, "--gres=gpu:4 --gpu-bind=single:1 bash") && strstr(a, "was not measured"));
    snprintf(path, sizeof path, "%s/g/task.sh", dir);
    a = slurp(path);
    CHECK(a && strstr(a, "export CUDA_VISIBLE_DEVICES=${gpus[$L]:-}") &&
          strstr(a, "task${TASK}.${L}-a${GPUBENCH_SLURM_ATTEMPT}-${HOST}-gpu${GPU}.json") && strstr(a, " --require-gpu") &&
          !strstr(a, "--devices all"));
    snprintf(cmd, sizeof cmd, "%s slurm suites/quick.json --nodelist 'node[01-03],gpu7' --dir %s/l",
             gb_test_binary(), dir);
    CHECK(sh(cmd) == 0);
    snprintf(path, sizeof path, "%s/l/array.sbatch", dir);
    a = slurp(path);
    CHECK(a && !strstr(a, "#SBATCH --array"));
    snprintf(path, sizeof path, "%s/l/submit.sh", dir);
    const char *s = slurp(path);
    CHECK(s && strstr(s, "scontrol show hostnames 'node[01-03],gpu7'") &&
          strstr(s, "--array=\"$ntasks\" --nodelist=\"$node\"") && strstr(s, "give_up \"sbatch of task"));
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
        {"suites/quick.json --sbatch-option qos=high", "--sbatch-option: \"qos=high\""},
        {"suites/quick.json --sbatch-option --array=1-3", "gpubench sets this itself"},
        {"suites/quick.json --gpu-type h100", "--gpu-type needs --gpus-per-node"},
        {"suites/quick.json --qos 'a b'", "--qos"},
        {"suites/quick.json --constraint 'a;rm'", "--constraint"},
        {"suites/quick.json --exclude 'n 1'", "--exclude"},
        {"suites/quick.json --setup /nonexistent/env.sh", "--setup"},
        {"suites/quick.json --setup tests/data/setup-crlf.sh", "line 1 holds a carriage return"},
        {"suites/quick.json --retry-failed /nonexistent/job", "--retry-failed"},
        /* a second --out would win over each task's own: the merge found nothing */
        {"suites/quick.json -- --out x.json", "-- --out: gpubench sets each task's --out itself"},
        {"suites/quick.json -- --ou=x.json", "-- --ou=x.json: gpubench sets each task's --out itself"},
        {"suites/quick.json -- -ox.json", "-- -ox.json: gpubench sets each task's --out itself"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        snprintf(cmd, sizeof cmd, "%s slurm %s --dir %s", bin, cases[i].args, gb_test_tmp("slurm-bad-opts"));
        int rc = sh(cmd);
        if (!CHECK(rc == 2 && strstr(out, cases[i].expect))) fprintf(stderr, "    %s -> %d: %s\n", cmd, rc, out);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", gb_test_tmp("slurm-bad-opts"));
    sh(cmd);
}

/* A name with a line break in it ended task.sh's --setup comment and ran
 * what followed as a command (issue #41): any name that reaches the scripts
 * holding a control character is refused before anything is written. */
TEST(slurm_refuses_control_characters_in_names_that_reach_the_scripts) {
    char cmd[2048];
    const char *d = gb_test_tmp("slurm-ctl");
    static const char *const opts[] = {"--setup \"$f\"", "--container \"$f\"", "--gpubench \"$f\"",
                                       "--dir \"$f.d\"", "-- --note \"$f\""};
    for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
        snprintf(cmd, sizeof cmd,
                 "b=$(realpath %s) && w=$(pwd) && rm -rf %s && mkdir -p %s && cd %s && f=\"$(printf 'setup\\ntouch X\\n.sh')\" && : >\"$f\" && chmod +x \"$f\" && "
                 "\"$b\" slurm \"$w/suites/quick.json\" --dir j %s 2>&1; rc=$?; ls -R . | grep -c '^X$'; "
                 "grep -rl 'touch X' j 2>/dev/null; echo rc=$rc",
                 gb_test_binary(), d, d, d, opts[i]);
        int rc = sh(cmd);
        if (!CHECK(rc == 0 && strstr(out, "control character") && strstr(out, "rc=2") && strstr(out, "\n0\n") &&
                   !strstr(out, "task.sh")))
            fprintf(stderr, "    %s -> %d: %s\n", opts[i], rc, out);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", d);
    sh(cmd);
}

TEST(slurm_real_cluster_arrays_gpus_retries_site_options_and_failed_submissions) {
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
    snprintf(cmd, sizeof cmd, "cd %s && %.1000s slurm %.1000s/suites/quick.json --dir 'a/b%%c/d' ; echo rc=$?; "
             "%.1000s slurm %.1000s/suites/quick.json --dir a/b/c --time soon; echo rc=$?; find . | sort",
             dir, bin, cwd, bin, cwd);
    sh(cmd);
    CHECK(strstr(out, "rc=2\n") && strstr(strstr(out, "rc=2\n") + 4, "rc=2\n"));
    CHECK(strstr(out, "--dir") && strstr(out, "--time"));
    CHECK(strstr(out, "./a") == NULL); /* no directory of either chain */
    /* refused after the chain was made: through a link, the real path holds a
     * %% (a SLURM file name pattern); the link and its target were there before and stay */
    snprintf(cmd, sizeof cmd, "cd %s && mkdir 'x%%y' && ln -s 'x%%y' link && %.1000s slurm %.1000s/suites/quick.json --dir "
             "link/p/q/r; echo rc=$?; find . | sort",
             dir, bin, cwd);
    sh(cmd);
    CHECK(strstr(out, "rc=2\n") && strstr(out, "SLURM's file name patterns"));
    CHECK(strstr(out, "./x%y\n") && strstr(out, "./link\n") && !strstr(out, "./x%y/p"));
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
    CHECK(strstr(out, "rc=0") && strstr(out, "array.sbatch logs merge.sbatch results submit.sh suite.json task.sh"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}

/* #31 item 4: the options sites need, each where sbatch (or the task) reads
 * it; --sbatch-option lines after ours, so that a site's value wins. */
TEST(slurm_site_options_are_written_where_sbatch_and_the_task_read_them) {
    char dir[64], cmd[2048], path[128];
    tmpdir(dir, sizeof dir);
    snprintf(cmd, sizeof cmd,
             "printf 'module load cuda/12\\nsource /opt/site/env.sh\\n' > %s/env.sh && "
             "%s slurm suites/quick.json --nodes 2 --partition gpu --qos high --constraint 'a100&ib' --reservation maint "
             "--exclude 'n[1-2]' --gpus-per-node 4 --gpu-type h100 --no-exclusive --sbatch-option --mem=200G "
             "--sbatch-option --mail-type=END --setup %s/env.sh --container /images/gb.sif --merge-partition cpu "
             "--dir '%s/with space'",
             dir, gb_test_binary(), dir, dir);
    if (!CHECK(sh(cmd) == 0)) { fprintf(stderr, "%s\n", out); return; }
    snprintf(path, sizeof path, "%s/with space/array.sbatch", dir);
    const char *a = slurp(path);
    if (!CHECK(a != NULL)) return;
    CHECK(strstr(a, "\n#SBATCH --qos=high\n") && strstr(a, "\n#SBATCH --constraint=a100&ib\n") &&
          strstr(a, "\n#SBATCH --reservation=maint\n") && strstr(a, "\n#SBATCH --exclude=n[1-2]\n") &&
          strstr(a, "\n#SBATCH --gres=gpu:h100:4\n") && strstr(a, "--gres=gpu:h100:4 bash"));
    CHECK(!strstr(a, "--exclusive") && !strstr(a, "--mem=0"));
    const char *ours = strstr(a, "#SBATCH --partition=gpu"), *site = strstr(a, "#SBATCH --mem=200G");
    CHECK(ours && site && ours < site && strstr(a, "#SBATCH --mail-type=END\n"));
    snprintf(path, sizeof path, "\n#SBATCH --output=\"%s/with space/logs/task_%%A_%%a.out\"\n", dir);
    CHECK(strstr(a, path));
    snprintf(path, sizeof path, "%s/with space/task.sh", dir);
    const char *t = slurp(path);
    if (!CHECK(t != NULL)) return;
    const char *setup = strstr(t, "module load cuda/12\nsource /opt/site/env.sh\n# ---- end of --setup\n");
    const char *run = strstr(t, "exec \"$RUNTIME\" exec --nv --bind \"$DIR\" \"$IMAGE\"");
    CHECK(setup && run && setup < run);
    CHECK(strstr(t, "GPUBENCH='gpubench'\n") && strstr(t, "IMAGE='/images/gb.sif'\n"));
    snprintf(path, sizeof path, "%s/with space/merge.sbatch", dir);
    const char *m = slurp(path);
    CHECK(m && strstr(m, "\n#SBATCH --partition=cpu\n") && !strstr(m, "#SBATCH --qos") && !strstr(m, "#SBATCH --gres") &&
          strstr(m, "exec --bind \"$DIR\" \"$IMAGE\" \"$GPUBENCH\""));
    snprintf(cmd, sizeof cmd, "cd '%s/with space' && bash -n array.sbatch && bash -n task.sh && bash -n merge.sbatch && "
             "bash -n submit.sh", dir);
    CHECK(sh(cmd) == 0);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}

/* --retry-failed reads the merge job's failed-tasks.txt: without one it is a
 * usage error naming the file; with none failed it submits nothing. (The
 * retry itself runs on the real SLURM: run-slurm-test.sh.) */
TEST(slurm_retry_failed_needs_the_merge_jobs_list_and_submits_nothing_when_none_failed) {
    char dir[64], cmd[1024];
    tmpdir(dir, sizeof dir);
    snprintf(cmd, sizeof cmd, "%s slurm suites/quick.json --dir %s/j > /dev/null && %s slurm --retry-failed %s/j",
             gb_test_binary(), dir, gb_test_binary(), dir);
    CHECK(sh(cmd) == 2 && strstr(out, "failed-tasks.txt") && strstr(out, "the merge job writes it"));
    snprintf(cmd, sizeof cmd, ": > %s/j/failed-tasks.txt && %s slurm --retry-failed %s/j", dir, gb_test_binary(), dir);
    CHECK(sh(cmd) == 0 && strstr(out, "nothing to retry"));
    snprintf(cmd, sizeof cmd, "%s slurm --retry-failed %s/j suites/quick.json", gb_test_binary(), dir);
    CHECK(sh(cmd) == 2 && strstr(out, "takes nothing else"));
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    sh(cmd);
}
