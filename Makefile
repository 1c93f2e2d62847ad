# gpubench — build, test, install, bundle.
#
#   make            build ./gpubench (and the CUDA plugin when nvcc is found),
#                   one job per CPU (nproc) unless -jN is given
#   make run        install missing packages, build, run suites/default.json
#   make test       build and run the tests (no GPU needed)
#   make test T=stopping
#                   only the tests whose name contains "stopping" (the runner's
#                   filter: build/tests/run_tests stopping does the same)
#   make test-gpu   GPU verification over every op and dtype (needs a GPU)
#   make bundle     relocatable tarball for hosts without our CPU libraries
#   make dist       source tarball (git archive) whose build records its commit
#   make install PREFIX=/usr/local DESTDIR=
#                   the binary, the plugin, the suites and the user scripts
#                   (scripts/*.py; the developers' scripts/dev/ stay behind)
#   make deps       install every package CI uses (scripts/dev/install-deps.sh;
#                   make run installs only what running needs, make test adds
#                   what testing needs)
#   make CUDA=0     build without the CUDA plugin; make WERROR=1 as in CI
#   make test SANITIZE=address,undefined
#                   the tests against a sanitized build (in build-san/, binary
#                   build-san/gpubench: the normal build is left alone)
#   make fuzz FUZZ_TIME=secs   each libFuzzer harness for that long (clang)
#   make valgrind   a quick CPU run and every reading command under valgrind
#   make mutation-sweep [MUTATION_EVERY=N] [MUTATION_JOBS=J]
#                   12 reading commands on each of 31,245 mutants of real
#                   results files, under ASan+UBSan (tests/results/test_mutation.c),
#                   in J processes (default 2): 14-22 CPU-minutes, so 7-11 min
#                   on two idle cores; N=8 (CI) 2-3 CPU-min. Every Nth only.

# `make` alone builds on every CPU (one job per CPU, from nproc): the first
# build of a fresh clone in about half the time on two cores; an explicit -jN
# (-j1 included) wins; a make started by another make (MAKELEVEL > 0)
# keeps the jobserver it was given (forcing -j there resets it, with a warning).
ifeq ($(MAKELEVEL),0)
MAKEFLAGS += -j$(shell nproc 2>/dev/null || echo 1)
endif

VERSION   := $(shell sed -n 's/^\#define GB_VERSION "\(.*\)"/\1/p' src/core/gb.h)
PREFIX    ?= /usr/local
DESTDIR   ?=
# SANITIZE=address,undefined (any -fsanitize= list): its own build folder and
# binary; any report stops the test (-fno-sanitize-recover), float-to-int
# overflow included where the compiler has the check.
SANITIZE  ?=
ifneq ($(strip $(SANITIZE)),)
  BUILD   ?= build-san
  GB_BIN  := $(BUILD)/gpubench
  SAN_FLOAT := $(shell $(or $(CC),cc) -fsanitize=float-cast-overflow -x c -c /dev/null -o /dev/null 2>/dev/null && echo -fsanitize=float-cast-overflow)
  SAN_FLAGS := -fsanitize=$(SANITIZE) $(SAN_FLOAT) -fno-sanitize-recover=all -fno-omit-frame-pointer -g -DGB_CHECKED_EXIT
  OPT     ?= -O1
  CUDA    := 0
endif
# FUZZ=1 (set by `make fuzz`): clang, libFuzzer's instrumentation, ASan and
# UBSan, no OpenMP (the fuzzed code is single-threaded; no libomp needed).
ifeq ($(FUZZ),1)
  BUILD   ?= build-fuzz
  SAN_FLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -g
  OPT     ?= -O1
  CUDA    := 0
endif
BUILD     ?= build
GB_BIN    ?= gpubench
CC        ?= cc
PKG_CONFIG ?= pkg-config

# OpenBLAS: Debian's OpenMP build (libopenblas-openmp-dev), so that every
# CPU library runs on the one libgomp pool (docs/timing.md, "One pool").
# Installing it beside the pthread build changes nothing by itself: Debian's
# alternatives keep the pthread build as libopenblas.so.0, libblas.so.3 and
# liblapack.so.3 (priority 100 against 95), and liblapacke loads the last
# two. So the OpenMP build's folder is named here, gpubench links its
# libblas.so.3 and liblapack.so.3 directly (kept with --no-as-needed, so that
# the loader has them by soname before liblapacke asks for them) and finds
# them there through its run-path. tests/cpu/test_one_pool.c reads a running
# benchmark's /proc/self/maps for exactly one OpenBLAS and one libgomp.
MULTIARCH ?= $(shell $(or $(CC),cc) -print-multiarch 2>/dev/null || echo x86_64-linux-gnu)
OPENBLAS_DIR ?= /usr/lib/$(MULTIARCH)/openblas-openmp
OPENBLAS_INC ?= /usr/include/$(MULTIARCH)/openblas-openmp
OPENBLAS_LIBS := -L$(OPENBLAS_DIR) -Wl,-rpath,$(OPENBLAS_DIR) -Wl,--push-state,--no-as-needed \
                 -lopenblas -llapack -lblas -Wl,--pop-state
# The other CPU libraries: pkg-config where the Debian package ships a .pc
# file, the standard names otherwise (GraphBLAS and fftw3_omp have none).
PKGS      := lapacke fftw3 fftw3f libcjson sqlite3
PKG_CFLAGS := -I$(OPENBLAS_INC) $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   := $(OPENBLAS_LIBS) $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)
ifeq ($(strip $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null)),)
  PKG_CFLAGS := -I$(OPENBLAS_INC) -I/usr/include/cjson
  PKG_LIBS   := $(OPENBLAS_LIBS) -llapacke -lfftw3 -lfftw3f -lcjson -lsqlite3
endif
# oneDNN (libdnnl-dev): the CPU's reduced-precision GEMM; Debian ships no .pc
# for it, so it is named here (the pkg-config branch is used when one exists).
DNNL_LIBS := $(shell $(PKG_CONFIG) --libs dnnl 2>/dev/null || echo -ldnnl)
# FFTW's threads through fftw3_omp: on the same OpenMP pool, not a pool of its own.
CPU_LIBS  := $(PKG_LIBS) $(DNNL_LIBS) -lfftw3_omp -lfftw3f_omp -lgraphblas -lm -ldl -lpthread

WARN      := -Wall -Wextra -Wshadow -Wno-unused-parameter
ifeq ($(WERROR),1)
  WARN += -Werror
endif
# -fno-math-errno lets GCC call glibc's vector math (libmvec) for sin/cos in
# `#pragma omp simd` loops; it changes no results, only errno reporting.
OPT       ?= -O3 -fno-math-errno
# The commit: from git, else from .git-commit, which `git archive` (and so
# `make dist` and a forge's source tarball) fills in (.gitattributes
# export-subst), else `make GIT_COMMIT=...`; "unknown" only when none has it.
ifeq ($(origin GIT_COMMIT),undefined)
GIT_COMMIT := $(shell git rev-parse --short=12 HEAD 2>/dev/null || \
                sed -n 's/^\([0-9a-f]\{12\}\)[0-9a-f]*$$/\1/p' .git-commit 2>/dev/null | grep . || echo unknown)
endif
DEFS      := -D_GNU_SOURCE -DGB_GIT_COMMIT='"$(GIT_COMMIT)"' \
             -DGB_BUILD_FLAGS='"$(OPT) $(WARN)"' -DGB_COMPILER='"$(shell $(CC) --version | head -n1)"'
# src/ is in rooms (cli, core, ops, results, history, system); every room is on the
# include path so a header is named by its file name alone.
SRC_ROOMS := src/cli src/run src/core src/ops src/results src/history src/system
INC_SRC   := $(addprefix -I,$(SRC_ROOMS))
OMP       := $(if $(filter 1,$(FUZZ)),-Wno-unknown-pragmas -Wno-source-uses-openmp,-fopenmp)
CFLAGS    += -std=c11 $(OPT) $(WARN) $(OMP) $(SAN_FLAGS) $(INC_SRC) -Icpu_backends -Ipeer_backends $(PKG_CFLAGS) $(DEFS)
LDFLAGS   += $(if $(filter 1,$(FUZZ)),,-fopenmp) $(SAN_FLAGS) -Wl,-rpath,'$$ORIGIN/../lib'
# Header dependencies come from the compiler: each object's .d file (next to
# it) lists the headers it included, so touching a header rebuilds only what
# includes it; -MP keeps a deleted header from breaking the build. Only the
# object rules use it (a rule that compiles and links in one step would write
# its .d files into the source tree).
DEPFLAGS  := -MMD -MP

SRC_MAIN  := src/cli/main.c
SRC_CORE  := $(filter-out $(SRC_MAIN),$(wildcard $(addsuffix /*.c,$(SRC_ROOMS)))) $(wildcard cpu_backends/*.c) $(wildcard peer_backends/*.c)
OBJ_CORE  := $(SRC_CORE:%.c=$(BUILD)/%.o)
OBJ_MAIN  := $(SRC_MAIN:%.c=$(BUILD)/%.o)
# Tests live by room (tests/README.md): every tests/ROOM/test_*.c (a new
# room's folder needs no change here; a test not yet filed in one, directly in
# tests/, still runs), the shared testlib and the ops' helpers.
SRC_TEST  := $(wildcard tests/test_*.c tests/*/test_*.c) tests/testlib.c tests/ops/testlib_ops.c
OBJ_TEST  := $(SRC_TEST:%.c=$(BUILD)/%.o)
# testlib.h and testlib_ops.h from any room's folder
$(OBJ_TEST): CFLAGS += -Itests -Itests/ops
TOOLS     := $(patsubst tests/standalone/%.c,$(BUILD)/standalone/%,$(wildcard tests/standalone/*.c))

# ---- CUDA plugin ------------------------------------------------------------
CUDA_HOME ?= /usr/local/cuda
NVCC      ?= $(shell command -v nvcc 2>/dev/null || (test -x $(CUDA_HOME)/bin/nvcc && echo $(CUDA_HOME)/bin/nvcc))
ifeq ($(CUDA),0)
  NVCC :=
endif
PLUGIN    := gpubench-cuda.so
ifneq ($(strip $(NVCC)),)
  CUDA_ARCHS ?= -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
                -gencode arch=compute_90,code=compute_90
  CU_FLAGS  := -O3 -std=c++17 $(CUDA_ARCHS) -Xcompiler -fPIC,-fvisibility=hidden \
               $(INC_SRC) -Igpu_backends $(PKG_CFLAGS) -D_GNU_SOURCE $(if $(filter 1,$(WERROR)),-Werror all-warnings)
  # -fopenmp: gb.c's large copies and fills (set-up, fetch) are threaded
  GPU_CFLAGS := -std=c11 $(OPT) $(WARN) -fopenmp -fPIC -fvisibility=hidden $(INC_SRC) -Igpu_backends \
               -isystem $(CUDA_HOME)/include $(PKG_CFLAGS) $(DEFS)
  GPU_SRC_C := $(wildcard gpu_backends/*.c) src/core/gb.c src/core/dtype.c src/core/precision.c src/core/rng.c
  GPU_SRC_CU := $(wildcard gpu_backends/*.cu)
  GPU_OBJ   := $(GPU_SRC_C:%.c=$(BUILD)/plugin/%.o) $(GPU_SRC_CU:%.cu=$(BUILD)/plugin/%.o)
  # nvcc drives the link: linker options go through -Xlinker (it rejects -Wl,).
  # --cudart=shared: one CUDA runtime, libcudart.so, found like the libraries.
  GPU_LIBS  := --cudart=shared -L$(CUDA_HOME)/lib64 -lcudart -lcublas -lcublasLt -lcufft -lcusolver -lcusolverMg -lcusparse \
               -lcjson -lgomp -ldl -lm -Xlinker --no-undefined \
               -Xlinker -rpath,'$$ORIGIN/..' -Xlinker -rpath,'$$ORIGIN/../..' -Xlinker -rpath,$(CUDA_HOME)/lib64
  ALL_PLUGIN := $(PLUGIN)
endif

.PHONY: all run test test-gpu check-gpu bundle dist print-git-commit man install clean deps tools fuzz valgrind FORCE

all: $(GB_BIN) $(ALL_PLUGIN)

# The commit a binary records (context.build.git_commit) is compiled into
# sysinfo.o: a stamp that changes with HEAD rebuilds it (without it, a
# bundle made after a commit kept recording the commit sysinfo.o was built at).
$(BUILD)/git-commit: FORCE
	@mkdir -p $(@D)
	@echo '$(GIT_COMMIT)' | cmp -s - $@ || echo '$(GIT_COMMIT)' > $@
$(BUILD)/src/system/sysinfo.o: $(BUILD)/git-commit

$(GB_BIN): $(OBJ_MAIN) $(OBJ_CORE)
	$(CC) $(LDFLAGS) -o $@ $^ $(CPU_LIBS)

# Objects built before the header dependencies came from the compiler have no
# .d file, so make would never rebuild them when a header changes (a stale
# report_table.o read a table of the old layout): a build folder without this
# stamp rebuilds everything once.
DEPS_STAMP := $(BUILD)/.deps-from-compiler
$(DEPS_STAMP):
	@mkdir -p $(@D)
	@touch $@

$(BUILD)/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(PLUGIN): $(GPU_OBJ)
	$(NVCC) -shared -o $@ $^ $(CU_FLAGS) -Xlinker --exclude-libs,ALL $(GPU_LIBS)

$(BUILD)/plugin/%.o: %.c $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(CC) $(GPU_CFLAGS) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/plugin/%.o: %.cu $(DEPS_STAMP)
	@mkdir -p $(dir $@)
	$(NVCC) $(CU_FLAGS) $(DEPFLAGS) -c -o $@ $<

$(BUILD)/tests/run_tests: $(OBJ_TEST) $(OBJ_CORE)
	$(CC) $(LDFLAGS) -o $@ $^ $(CPU_LIBS)

$(BUILD)/standalone/%: tests/standalone/%.c src/core/gb.c src/core/dtype.c src/core/rng.c $(wildcard cpu_backends/*.c)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $< $(CPU_LIBS)

tools: $(TOOLS)

# Every package: running, testing, fuzzing, valgrind, bundling (as CI installs).
deps:
	scripts/dev/install-deps.sh --all

# The README's first command: install what running needs and is missing (no
# test, fuzz or packaging tools), build, run the default suite.
run:
	scripts/dev/install-deps.sh --run --if-missing
	$(MAKE) all
	./gpubench run suites/default.json

# ---- fuzzing (tests/fuzz/README.md) -------------------------------------------
# Each harness is built twice: a replay binary with the normal compiler, which
# `make test` runs over the committed corpus and every past crash (seconds, no
# clang needed), and with clang's libFuzzer for `make fuzz`.
FUZZERS    := suite results policy kept
FUZZ_TIME  ?= 180
FUZZ_BUILD := build-fuzz
REPLAYS    := $(FUZZERS:%=$(BUILD)/fuzz/replay_%)
# What the harnesses reach: the suite parser and ops, the results model and
# its readers, merge, the kept ceilings (and the cache folder they are in);
# not the runner or the backends. The results room finds
# and runs plot.py through system/python.c (with child_env.c and the CPU
# set of node_env.c that a child is given back), so those come along.
FUZZ_SRC   := $(filter-out src/core/stopping.c,$(wildcard src/core/*.c)) src/run/suite.c src/run/suite_args.c \
              $(wildcard src/ops/*.c) $(wildcard src/results/*.c) src/system/python.c src/system/data_files.c src/system/child_env.c \
              src/system/node_env.c src/run/peaks_kept.c cpu_backends/cpu_cache_dir.c
FUZZ_OBJ   := $(FUZZ_SRC:%.c=$(BUILD)/%.o)

$(BUILD)/fuzz/replay_%: tests/fuzz/fuzz_%.c tests/fuzz/replay.c tests/fuzz/fuzz.h $(OBJ_CORE)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/fuzz $(LDFLAGS) -o $@ tests/fuzz/fuzz_$*.c tests/fuzz/replay.c $(OBJ_CORE) $(CPU_LIBS)

$(BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(FUZZ_OBJ)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -Itests/fuzz -fsanitize=fuzzer -o $@ tests/fuzz/fuzz_$*.c $(FUZZ_OBJ) $(PKG_LIBS) -lm -ldl -lpthread

fuzz:
	$(MAKE) FUZZ=1 CC=clang $(FUZZERS:%=$(FUZZ_BUILD)/fuzz/fuzz_%)
	scripts/dev/fuzz.sh $(FUZZ_BUILD) $(FUZZ_TIME) $(FUZZERS)

valgrind: $(GB_BIN)
	scripts/dev/valgrind-check.sh ./$(GB_BIN)

MUTATION_EVERY ?= 1
MUTATION_JOBS  ?= 2
.PHONY: mutation-sweep
mutation-sweep:
	$(MAKE) SANITIZE=address,undefined build-san/gpubench build-san/tests/run_tests
	scripts/dev/mutation-sweep.sh build-san $(MUTATION_EVERY) $(MUTATION_JOBS)

# The README's second command: like `make run`, it works on a fresh machine,
# adding what the tests need (SciPy, a one-node SLURM).
# T=NAME runs only the tests whose name contains NAME (and not the fuzz replays).
T ?=
# Under a sanitizer the runs leave BLIS out of the CPU GEMM choice
# (GPUBENCH_BLIS empty, as on a host without it): LeakSanitizer cannot stop
# BLIS's own threads at exit ("Tracer caught signal 11", exit 1 after every
# run that measured BLIS). BLIS through --cpu-blas is still tested.
SAN_TEST_ENV := $(if $(strip $(SANITIZE)),GPUBENCH_BLIS= ,)
test:
	scripts/dev/install-deps.sh --test --if-missing
	$(MAKE) $(GB_BIN) $(BUILD)/tests/run_tests $(REPLAYS) $(ALL_PLUGIN)
	@mkdir -p build/tests # the tests' scratch files (a sanitized run from a fresh clone builds only build-san/)
	$(SAN_TEST_ENV)GPUBENCH=./$(GB_BIN) $(BUILD)/tests/run_tests $(T)
	$(if $(T),,for f in $(FUZZERS); do $(BUILD)/fuzz/replay_$$f tests/fuzz/corpus/$$f tests/fuzz/crashes/$$f || exit 1; done)

test-gpu: gpubench $(ALL_PLUGIN)
	scripts/dev/test-gpu.sh ./gpubench

bundle: all tools
	GIT_COMMIT=$(GIT_COMMIT) scripts/dev/bundle.sh $(VERSION)

# A source archive whose build records its commit (.git-commit filled in).
dist:
	@mkdir -p dist
	git archive --format=tar.gz --prefix=gpubench-$(VERSION)/ -o dist/gpubench-$(VERSION)-src.tar.gz HEAD
	@echo "dist/gpubench-$(VERSION)-src.tar.gz ($(GIT_COMMIT))"

print-git-commit:
	@echo $(GIT_COMMIT)

# The scripts a user runs (scripts/README.md), with the modules plot.py imports
# from beside it (plot_*.py); scripts/dev/ is not installed.
USER_SCRIPTS := $(wildcard scripts/*.py)
# The man page and the bash, zsh and fish completions, generated from the
# binary's own option tables and help texts (scripts/dev/gen-man.sh);
# INSTALL_BIN: the binary installed and described (the tests give theirs).
INSTALL_BIN ?= gpubench
MAN_DIR := $(BUILD)/man
man: all
	scripts/dev/gen-man.sh ./$(INSTALL_BIN) $(MAN_DIR)
# Suites are found by name from $(PREFIX)/share/gpubench/suites
# (`gpubench run quick` from any directory).
install: all man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/gpubench $(DESTDIR)$(PREFIX)/share/gpubench/suites $(DESTDIR)$(PREFIX)/share/gpubench/scripts
	install -d $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	  $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 $(INSTALL_BIN) $(DESTDIR)$(PREFIX)/bin/gpubench
	$(if $(ALL_PLUGIN),install -m 755 $(PLUGIN) $(DESTDIR)$(PREFIX)/lib/gpubench/$(PLUGIN))
	install -m 644 suites/*.json $(DESTDIR)$(PREFIX)/share/gpubench/suites/
	install -m 755 $(USER_SCRIPTS) $(DESTDIR)$(PREFIX)/share/gpubench/scripts/
	install -m 644 $(MAN_DIR)/gpubench.1 $(DESTDIR)$(PREFIX)/share/man/man1/gpubench.1
	install -m 644 $(MAN_DIR)/gpubench.bash $(DESTDIR)$(PREFIX)/share/bash-completion/completions/gpubench
	install -m 644 $(MAN_DIR)/_gpubench $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_gpubench
	install -m 644 $(MAN_DIR)/gpubench.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/gpubench.fish

# The compiler's header lists (see DEPFLAGS); absent before the first build.
-include $(wildcard $(patsubst %.o,%.d,$(OBJ_MAIN) $(OBJ_CORE) $(OBJ_TEST) $(GPU_OBJ)))

clean:
	rm -rf $(BUILD) build-san $(FUZZ_BUILD) gpubench $(PLUGIN) dist
