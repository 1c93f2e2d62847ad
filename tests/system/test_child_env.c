/* test_child_env.c — a process gpubench starts gets the user's environment
 * and the CPU set gpubench was given (child_env.h): a variable gpubench
 * changed comes back as the user had it (or not at all), gpubench's markers
 * never reach it, and a calling thread pinned to one CPU (as the CPU side
 * pins the main thread) does not hand the child that one CPU. The child is a
 * real shell that reports what it got; and a real `compare --confirm` child. */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child_env.h"
#include "node_env.h"
#include "testlib.h"

TEST(child_env_spawned_child_gets_the_users_environment_and_whole_cpu_set) {
    char whole[4096];
    gb_node_cpu_list(whole, sizeof whole);
    const char *report = gb_test_tmp("child-env.txt");
    setenv("GB_TEST_CHILD_VAR", "the user's", 1);
    gb_child_env_note_original("GB_TEST_CHILD_VAR", "the user's");
    setenv("GB_TEST_CHILD_VAR", "gpubench's", 1);      /* gpubench changed it for itself */
    gb_child_env_note_original("GB_TEST_CHILD_UNSET", NULL);
    setenv("GB_TEST_CHILD_UNSET", "gpubench's", 1);    /* the user had none */
    setenv("GPUBENCH_REEXEC_TOKEN", "1:2", 1);         /* a marker */
    int ncpu = gb_node_cpu_set(NULL, 0);
    cpu_set_t one, mine;
    pthread_getaffinity_np(pthread_self(), sizeof mine, &mine);
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    pthread_setaffinity_np(pthread_self(), sizeof one, &one); /* as cpu_bind.c pins the main thread */
    char script[1024];
    snprintf(script, sizeof script,
             "{ echo \"var=$GB_TEST_CHILD_VAR\"; echo \"unset=${GB_TEST_CHILD_UNSET-none}\"; "
             "echo \"marker=${GPUBENCH_REEXEC_TOKEN-none}\"; grep Cpus_allowed_list /proc/self/status; } > %s",
             report);
    char *argv[] = {"sh", "-c", script, NULL};
    char *extra[] = {"GB_TEST_CHILD_EXTRA=added", NULL};
    pid_t pid;
    int rc = gb_child_spawn(&pid, "/bin/sh", NULL, argv, extra, 0);
    CPU_ZERO(&one);
    pthread_getaffinity_np(pthread_self(), sizeof one, &one);
    CHECK(CPU_COUNT(&one) == 1); /* the caller's own mask is put back */
    pthread_setaffinity_np(pthread_self(), sizeof mine, &mine);
    unsetenv("GB_TEST_CHILD_VAR");
    unsetenv("GB_TEST_CHILD_UNSET");
    unsetenv("GPUBENCH_REEXEC_TOKEN");
    if (!CHECK(rc == 0)) return;
    int st;
    waitpid(pid, &st, 0);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    char *got = gb_test_read_file(report, NULL);
    if (!CHECK(got != NULL)) return;
    CHECK(strstr(got, "var=the user's\n") != NULL);
    CHECK(strstr(got, "unset=none\n") != NULL);
    CHECK(strstr(got, "marker=none\n") != NULL);
    char want[4200];
    snprintf(want, sizeof want, "Cpus_allowed_list:\t%s\n", whole);
    if (ncpu > 1 && !CHECK(strstr(got, want) != NULL)) fprintf(stderr, "    child: %s    wanted %s\n", got, want);
    free(got);
}

/* The original values travel through an exec as markers, and only a
 * token-checked import believes them. */
TEST(child_env_originals_travel_through_an_exec_only_with_the_token) {
    setenv("GPUBENCH_ORIGINAL_GB_TEST_TRAVEL", "=before", 1);
    setenv("GPUBENCH_ORIGINAL_GB_TEST_GONE", "", 1);
    CHECK(gb_child_env_import_originals(0) == 2); /* not believed: removed, counted */
    CHECK(getenv("GPUBENCH_ORIGINAL_GB_TEST_TRAVEL") == NULL && !gb_child_env_changed("GB_TEST_TRAVEL"));
    setenv("GPUBENCH_ORIGINAL_GB_TEST_TRAVEL", "=before", 1);
    setenv("GPUBENCH_ORIGINAL_GB_TEST_GONE", "", 1);
    CHECK(gb_child_env_import_originals(1) == 0);
    CHECK(gb_child_env_changed("GB_TEST_TRAVEL") && !strcmp(gb_child_env_original("GB_TEST_TRAVEL"), "before"));
    CHECK(gb_child_env_changed("GB_TEST_GONE") && gb_child_env_original("GB_TEST_GONE") == NULL);
    CHECK(getenv("GPUBENCH_ORIGINAL_GB_TEST_TRAVEL") == NULL);
}
