/* test_install.c — `make install PREFIX=` as a user runs it (#47): the
 * binary, its suites found by name from any directory, and the man page
 * and bash, zsh and fish completions generated from the binary's own
 * option tables (scripts/dev/gen-man.sh), each checked by the tool that
 * reads it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testlib.h"

static char out[1 << 16];
static char prefix[256];

/* A shell script with $P the install prefix and $B the binary under test. */
static int sh(const char *script) {
    static char cmd[8192];
    snprintf(cmd, sizeof cmd, "export P=%s; B=$(realpath %s); %s", prefix, gb_test_binary(), script);
    return gb_test_sh(cmd, out, sizeof out);
}

/* Installed once for the tests below (into the run's scratch folder). */
static int installed(void) {
    static int done = -1;
    if (done >= 0) return done;
    snprintf(prefix, sizeof prefix, "%s", gb_test_tmp("install"));
    int rc = sh("rm -rf $P && make -s -o all install PREFIX=$P INSTALL_BIN=$(realpath --relative-to=. $B) "
                "MAN_DIR=$P.man 2>&1");
    if (rc != 0) fprintf(stderr, "    make install -> %d: %.2000s\n", rc, out);
    done = rc == 0;
    return done;
}

TEST(install_puts_the_binary_suites_man_page_and_completions_in_place) {
    if (!CHECK(installed())) return;
    static const char *const files[] = {"bin/gpubench", "share/gpubench/suites/quick.json",
                                        "share/gpubench/scripts/plot.py", "share/man/man1/gpubench.1",
                                        "share/bash-completion/completions/gpubench", "share/zsh/site-functions/_gpubench",
                                        "share/fish/vendor_completions.d/gpubench.fish"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s", prefix, files[i]);
        if (!CHECK(access(path, R_OK) == 0)) fprintf(stderr, "    not installed: %s\n", path);
    }
}

/* `gpubench run quick` from any directory finds the installed suite; a file
 * of that name where the user is wins; a name that is neither is refused
 * naming where it looked. */
TEST(install_suites_are_found_by_name_from_any_directory) {
    if (!CHECK(installed())) return;
    CHECK(sh("cd / && $P/bin/gpubench run quick --list") == 0 && strstr(out, "matmul/float32/"));
    CHECK(sh("cd / && $P/bin/gpubench validate quick.json") == 0);
    CHECK(sh("cd / && $P/bin/gpubench list") == 0 && strstr(out, "suites:") && strstr(out, " quick ") &&
          strstr(out, "share/gpubench/suites: `gpubench run NAME`"));
    CHECK(sh("d=$(mktemp -d) && cd $d && printf '{\"name\":\"mine\",\"benchmarks\":[{\"op\":\"reduction\",\"sizes\":[8]}]}' "
             "> quick && $P/bin/gpubench run quick --list; rc=$?; rm -rf $d; exit $rc") == 0);
    CHECK(strstr(out, "reduction/") && !strstr(out, "matmul/"));
    int rc = sh("cd / && $P/bin/gpubench run nosuch --list");
    CHECK(rc == 2 && strstr(out, "nosuch: no such file, nor one of gpubench's suites") &&
          strstr(out, "share/gpubench/suites/nosuch.json"));
}

/* The man page renders without a warning and holds every command's help;
 * every option of every command's table is in that command's help (what
 * the completions describe an option with). */
TEST(install_man_page_renders_and_every_option_is_in_its_help) {
    if (!CHECK(installed())) return;
    if (sh("command -v groff") != 0) {
        SKIP("groff is not installed (install-deps.sh --test adds groff-base)");
    } else {
        int rc = sh("groff -man -Tutf8 -ww -z $P/share/man/man1/gpubench.1 2>&1");
        if (!CHECK(rc == 0 && out[0] == '\0')) fprintf(stderr, "    groff: %.2000s\n", out);
        CHECK(sh("groff -man -Tutf8 $P/share/man/man1/gpubench.1 2>/dev/null | col -b") == 0 &&
              strstr(out, "GPUBENCH RUN") && strstr(out, "GPUBENCH HISTORY") && strstr(out, "--param KEY=VALUE") &&
              strstr(out, "EXIT STATUS"));
    }
    int rc = sh("for c in $($B --help | awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1}'); do "
                "  t=$c; [ $c = history ] && t='history list'; "
                "  for o in $($B $t --gpubench-options | cut -f1 | grep -- '^--' | grep -v '^--help$'); do "
                "    $B $c --help 2>&1 | grep -q -e \"$o\\b\" || echo \"missing: $c $o\"; done; done; echo checked");
    if (!CHECK(rc == 0 && strstr(out, "checked") && !strstr(out, "missing:"))) fprintf(stderr, "    %.2000s\n", out);
}

/* What each shell offers, asked as the shell asks it. */
TEST(install_completions_offer_the_commands_options_and_values) {
    if (!CHECK(installed())) return;
    static const struct { const char *words, *want; } bash[] = {
        {"gpubench hi", "history"},
        {"gpubench run --ca", "--cache --case"},
        {"gpubench run --op matmul,ff", "matmul,fft matmul,fft_xt"},
        {"gpubench run --dtype bf", "bfloat16"},
        {"gpubench run qu", "quick"},
        {"gpubench history ch", "check"},
        {"gpubench compare --conf", "--confirm --confirm-runs --confirm-unsure"},
    };
    for (size_t i = 0; i < sizeof bash / sizeof *bash; i++) {
        char script[1024];
        snprintf(script, sizeof script,
                 "bash -c 'source $P/share/bash-completion/completions/gpubench; COMP_WORDS=(%s); "
                 "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _gpubench; echo \"[${COMPREPLY[*]}]\"'", bash[i].words);
        int rc = sh(script);
        if (!CHECK(rc == 0 && strstr(out, bash[i].want))) fprintf(stderr, "    bash %s -> %s\n", bash[i].words, out);
    }
    if (sh("command -v zsh") == 0) CHECK(sh("zsh -n $P/share/zsh/site-functions/_gpubench") == 0);
    else SKIP("zsh is not installed (install-deps.sh --test adds it)");
    if (sh("command -v fish") == 0) {
        CHECK(sh("fish -n $P/share/fish/vendor_completions.d/gpubench.fish") == 0);
        int rc = sh("fish -c 'source $P/share/fish/vendor_completions.d/gpubench.fish; complete -C \"gpubench run --pa\"'");
        CHECK(rc == 0 && strstr(out, "--param") && strstr(out, "set an op param"));
        rc = sh("fish -c 'source $P/share/fish/vendor_completions.d/gpubench.fish; complete -C \"gpubench \"'");
        CHECK(rc == 0 && strstr(out, "run") && strstr(out, "compare two results files"));
    } else {
        SKIP("fish is not installed (install-deps.sh --test adds it)");
    }
}
