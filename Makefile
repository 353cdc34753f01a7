# ppbench: `make` builds, `make test` runs every test that needs no GPU (`make check`: its quick part), `make run`
# installs what is missing, builds and runs ppbench on this machine. See README.md and docs/ARCHITECTURE.md.

V ?= 0
Q = $(if $(filter 1,$(V)),,@)
say = $(if $(filter 1,$(V)),,@printf '  %-5s %s\n' $(1) $(2);)

PREFIX  ?= /usr/local
DESTDIR ?=
BUILD   ?= build
NVCC    ?= $(firstword $(wildcard /usr/local/cuda/bin/nvcc) $(shell command -v nvcc 2>/dev/null))
# OpenMP target offload to NVIDIA GPUs: GCC with its nvptx offload compiler (Debian: gcc-12-offload-nvptx),
# found as nvcc is: $(CC) when it has accel/nvptx-none/mkoffload; OFFLOAD_CC= builds without the model.
OFFLOAD_CC ?= $(if $(filter /%,$(shell $(CC) -print-prog-name=accel/nvptx-none/mkoffload 2>/dev/null)),$(CC))
# The same model built by clang's OpenMP offload (Debian: clang-19 + libomp-19-dev, whose lib/ holds the nvptx
# device runtime libomptarget-nvptx-<arch>.bc), with a CUDA toolkit's ptxas and nvlink for the device code
# (OMPT_CLANG_CUDA: Debian's CUDA 11.8 ones that scripts/cuda118.sh unpacks into .deps/cuda-11.8, else CUDA_PATH;
# LLVM 19's runtime cannot load the cubins of CUDA 12.8 and later, see scripts/cuda118.sh): found as nvcc is;
# OFFLOAD_CLANG= builds without it, OFFLOAD_CLANG=<LLVM's bin/clang, a full path> with another LLVM (its lib/
# beside bin/ holds the device runtime and libomptarget, else set OMPT_CLANG_LIB).
CUDA_PATH       ?= /usr/local/cuda
OMPT_CLANG_CUDA ?= $(firstword $(wildcard $(CURDIR)/.deps/cuda-11.8) $(CUDA_PATH))
OMPT_CLANG_ARCH ?= sm_90
OFFLOAD_CLANG   ?= $(if $(wildcard $(OMPT_CLANG_CUDA)/bin/ptxas),$(if $(wildcard $(OMPT_CLANG_CUDA)/bin/nvlink),$(firstword \
                   $(foreach v,19,$(if $(wildcard /usr/lib/llvm-$(v)/lib/libomptarget-nvptx-$(OMPT_CLANG_ARCH).bc),\
                   $(wildcard /usr/lib/llvm-$(v)/bin/clang))))))
VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)

CFLAGS        ?= -O2 -g
KERNEL_CFLAGS ?= -O3 -g
# The host OpenMP kernels' math: no errno from sqrt and no trapping semantics, so that a loop with a square root
# or a conditional division (HACC's pair terms) can be vectorised at all (GCC: "control flow in loop"); IEEE
# results are the same (no reassociation, no fast-math), only errno and exception flags are given up.
KERNEL_MATH_FLAGS = -fno-math-errno -fno-trapping-math
SANITIZE      ?=
WARN           = -Wall -Wextra -Werror -Wno-unknown-pragmas -Wno-format-truncation
PKGS           = jansson OpenCL libcurl
SERVER_PKGS    = libmicrohttpd libpq libsystemd
CPPFLAGS      += -I. -I$(BUILD)/gen -D_GNU_SOURCE $(shell pkg-config --cflags $(SERVER_PKGS) 2>/dev/null)
BASE_CFLAGS    = -std=c11 $(WARN) -fopenmp $(SANITIZE) $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
ALL_CFLAGS     = $(BASE_CFLAGS) $(CFLAGS)
LDLIBS         = $(shell pkg-config --libs $(PKGS) 2>/dev/null || echo -ljansson -lOpenCL -lcurl) -ldl -lm
SERVER_LDLIBS  = $(shell pkg-config --libs $(SERVER_PKGS) jansson libcurl 2>/dev/null) -lpthread -lm
CLI_LDLIBS     = $(shell pkg-config --libs jansson libcurl 2>/dev/null) -lm
LDFLAGS       += -fopenmp $(SANITIZE)

# CUDA: sm_80 and sm_90 machine code plus sm_90 PTX, static runtime, one shared object loaded with dlopen.
NVCC_FLAGS ?= -O3 -std=c++20 -Xcompiler -fPIC,-Wall \
              -gencode arch=compute_80,code=sm_80 -gencode arch=compute_90,code=sm_90 \
              -gencode arch=compute_90,code=compute_90
CUDA_SO     = $(BUILD)/lib/ppbench/libppbench-cuda.so

# OpenMP offload: host code and nvptx code (PTX for sm_80, which the driver compiles for the GPU it runs on)
# in one shared object loaded with dlopen; math from the offload libm. GCC 12's offload table
# (crtoffloadtable.o) is not position-independent: -z notext accepts its text relocations.
OMPT_ISA   ?= sm_80
OMPT_FLAGS ?= -fopenmp -foffload=nvptx-none -foffload-options=nvptx-none=-misa=$(OMPT_ISA) \
              -foffload-options=nvptx-none=-lm
OMPT_SO     = $(BUILD)/lib/ppbench/libppbench-omptarget.so

# clang's OpenMP offload: host code and an sm_90 cubin (clang's PTX through CUDA's ptxas and nvlink) in one
# shared object, libppbench-omptarget-clang.so, that needs LLVM's libomp and libomptarget (its CUDA plugin
# inside) at run time, found through the RUNPATH of the LLVM it was built with (or LD_LIBRARY_PATH). Debian's
# clang does not look for the device runtime in its own lib/, hence --libomptarget-nvptx-bc-path; clang 19
# knows CUDA up to 12.5 and treats CUDA 13 as 12.5 (PTX ISA 8.5, which CUDA 13's ptxas takes). simd loops
# that the nvptx back end does not vectorise warn (-Wpass-failed): on the GPU one OpenMP thread is one CUDA
# thread there, and simd has no lanes to spread over.
OMPT_CLANG_LIB  ?= $(abspath $(dir $(OFFLOAD_CLANG))../lib)
OMPT_CLANG_FLAGS ?= -fopenmp --offload-arch=$(OMPT_CLANG_ARCH) --cuda-path=$(OMPT_CLANG_CUDA) \
                    --libomptarget-nvptx-bc-path=$(OMPT_CLANG_LIB) -Wno-pass-failed
OMPT_CLANG_SO     = $(BUILD)/lib/ppbench/libppbench-omptarget-clang.so

LIB_SRC    = lib/error.c lib/info.c lib/stats.c lib/log.c lib/cron.c lib/sweep.c lib/babelstream.c lib/sha256.c \
             lib/runner_json.c
# kernels/ is suite-major: kernels/<suite>/ holds a suite's driver, reference, device code and one file per
# model (openmp.c, opencl.c + <suite>.cl, <suite>.cu); kernels/<model>/ holds only a model's core.
SUITES     = $(patsubst kernels/%/,%,$(filter-out kernels/openmp/ kernels/opencl/ kernels/cuda/ kernels/omptarget/,$(sort $(dir $(wildcard kernels/*/*)))))
OMP_KERNEL_SRC = $(foreach s,$(SUITES),$(wildcard kernels/$(s)/openmp.c))
# The OpenMP offload model (its core and kernels/<suite>/openmp.c built again with -DPP_OMP_TARGET: one file
# per suite serves both OpenMP models, kernels/openmp/body.h) goes into its own shared objects only.
OMPT_SRC   = $(wildcard kernels/omptarget/*.c) $(OMP_KERNEL_SRC)
KERNEL_SRC = $(filter-out $(OMP_KERNEL_SRC) $(OMPT_SRC),$(wildcard kernels/*.c kernels/*/*.c))
WORKER_SRC = $(wildcard worker/*.c)
SERVER_SRC = $(wildcard server/*.c server/*/*.c)
CLI_SRC    = $(wildcard cli/*.c)
SCHEMA_SQL = $(sort $(wildcard schema/*.sql))
SCHEMA_FUNCTIONS_SQL = $(sort $(wildcard schema/functions/*.sql))
CL_SRC     = $(wildcard kernels/*/*.cl)
# device code OpenCL shares with CUDA, embedded as a .cl is: each header that says so in its head comment
CL_SHARED  = $(shell grep -l 'OpenCL: embedded as pp_cl_[a-z]' kernels/*.h kernels/*/*.h)
CUDA_SRC   = $(wildcard kernels/*/*.cu)
TEST_SRC   = $(wildcard tests/unit/test_*.c)
TEST_CXX_SRC = $(wildcard tests/unit/test_*.cc) # header-only checks that need C++ (a counting number type)

obj = $(patsubst %.c,$(BUILD)/obj/%.o,$(1))
CORE_OBJ   = $(call obj,$(LIB_SRC) $(KERNEL_SRC) $(OMP_KERNEL_SRC)) \
             $(patsubst kernels/%.cl,$(BUILD)/obj/cl/%.o,$(CL_SRC)) \
             $(patsubst kernels/%.h,$(BUILD)/obj/cl/%.o,$(CL_SHARED))
WORKER_OBJ = $(call obj,$(WORKER_SRC))
TESTS      = $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(TEST_SRC)) \
             $(patsubst tests/unit/%.cc,$(BUILD)/tests/%,$(TEST_CXX_SRC))
WORKER     = $(BUILD)/bin/ppbench-worker
SERVER     = $(if $(SERVER_SRC),$(BUILD)/bin/ppbenchd)
CLI        = $(if $(CLI_SRC),$(BUILD)/bin/ppbench)
# ppbenchd links the suite table and its checks (kernels/suite.c, suites.c; lattice.c for the lattice rule) and
# the suites' byte and flop models (kernels/<suite>/model.c), the same code the worker checks a job with and
# states its models by; the drivers are weak references there (NULL).
SUITE_TABLE_SRC = kernels/lattice.c kernels/suite.c kernels/suites.c $(wildcard kernels/*/model.c)
SERVER_OBJ = $(call obj,$(SERVER_SRC) lib/error.c lib/info.c lib/stats.c lib/log.c lib/cron.c lib/sweep.c lib/babelstream.c lib/strbuf.c $(SUITE_TABLE_SRC) kernels/divergence.c) $(BUILD)/obj/schema.o \
             $(BUILD)/obj/openapi.o

ifneq ($(NVCC),)
CUDA_TARGET = $(CUDA_SO) $(BUILD)/bench/d2d
endif
ifneq ($(OFFLOAD_CC),)
OMPT_TARGET = $(OMPT_SO)
endif
ifneq ($(OFFLOAD_CLANG),)
OMPT_TARGET += $(OMPT_CLANG_SO)
endif

.PHONY: all test test-builds asan-build check run run-standalone install deb clean deps test-deps format bench-gpu bench-server fuzz FORCE
all: $(WORKER) $(SERVER) $(CLI) $(TESTS) $(CUDA_TARGET) $(OMPT_TARGET)
ifeq ($(NVCC),)
	@echo "note: nvcc not found: the cuda backend was not built (install the CUDA toolkit or set NVCC=...)"
endif
ifeq ($(OFFLOAD_CC),)
	@echo "note: omp-target not built with gcc: install gcc-12-offload-nvptx (GCC's nvptx offload compiler) or set OFFLOAD_CC=..."
endif
ifeq ($(OFFLOAD_CLANG),)
	@echo "note: omp-target not built with clang: install clang-19 and libomp-19-dev (clang's OpenMP offload), and the CUDA toolkit's ptxas and nvlink at CUDA_PATH=$(CUDA_PATH), or set OFFLOAD_CLANG=..."
else ifeq ($(wildcard $(CURDIR)/.deps/cuda-11.8),)
	@echo "note: omp-target's clang build uses the ptxas of $(OMPT_CLANG_CUDA); from CUDA 12.8 on LLVM 19's runtime finds no device with it: scripts/cuda118.sh (make deps runs it) fetches Debian's CUDA 11.8 ptxas"
endif

# make deps: what building and running need; make test-deps: those and the test tooling (scripts/deps.sh).
deps:
	@scripts/deps.sh run
test-deps:
	@scripts/deps.sh test

# The tests run twice: on the normal build (with CUDA when nvcc exists) and on a build with AddressSanitizer,
# LeakSanitizer and UndefinedBehaviorSanitizer (host code only; nvcc output is not instrumented), whose OpenMP
# kernels are compiled at -O1 with line tables (-g1): instrumented at -O3 -g, one kernel file took longer to
# compile than the rest of both builds, and the kernels as measured are the normal build's. `make test`
# builds the normal tree, then tests/run.sh runs its files while it builds the sanitizer tree beside them at a
# lower priority (the scripts leave a core idle about a third of the time, waiting on their servers), and adds
# that tree's files to the same pool once built. `make test-builds` builds both trees at once. `make check`, the edit-test loop: the unit tests and the suites' runs
# (tests/suites) on the normal build.
ASAN_FLAGS = -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
MAKE_JOBS  = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))
RUN_TESTS  = PPBENCH_CUDA_BUILD=$(if $(NVCC),$(BUILD)) \
             PPBENCH_OMPTARGET_BUILD=$(if $(OFFLOAD_CC)$(OFFLOAD_CLANG),$(BUILD)) tests/run.sh
test: test-deps
	@$(MAKE) --no-print-directory $(MAKE_JOBS) all
	@$(RUN_TESTS) --make asan-build $(BUILD)-asan $(BUILD) $(BUILD)-asan

test-builds:
	@$(MAKE) --no-print-directory all & all=$$!; \
	$(MAKE) --no-print-directory asan-build; asan=$$?; wait $$all && exit $$asan

asan-build:
	@$(MAKE) --no-print-directory BUILD=$(BUILD)-asan SANITIZE="$(ASAN_FLAGS)" KERNEL_CFLAGS="$(KERNEL_CFLAGS) -O1 -g1" \
		NVCC= OFFLOAD_CC= OFFLOAD_CLANG= $(patsubst $(BUILD)/%,$(BUILD)-asan/%,$(WORKER) $(SERVER) $(CLI) $(TESTS))

check:
	@$(MAKE) --no-print-directory $(MAKE_JOBS) all
	@$(RUN_TESTS) --quick $(BUILD)

run: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) scripts/run-local.sh

run-standalone: deps
	@$(MAKE) --no-print-directory all
	@BUILD=$(BUILD) scripts/run-standalone.sh

# libFuzzer targets of tests/fuzz, FUZZ_TIME seconds each (default 60), from their kept corpora.
fuzz:
	@BUILD=$(BUILD) tests/fuzz/run.sh

bench-server: all
	bench/server.sh

# Build information baked into the binaries (provenance); rewritten only when it changes.
$(BUILD)/gen/buildinfo.h: FORCE
	@mkdir -p $(@D)
	@{ echo '#define PPBENCH_VERSION "$(VERSION)"'; \
	   echo '#define PPBENCH_CC "$(shell $(CC) --version | head -n 1)"'; \
	   echo '#define PPBENCH_CFLAGS "$(strip $(ALL_CFLAGS))"'; \
	   echo '#define PPBENCH_KERNEL_CFLAGS "$(strip $(BASE_CFLAGS) $(KERNEL_CFLAGS) $(KERNEL_MATH_FLAGS))"'; \
	   echo '#define PPBENCH_NVCC_FLAGS "$(strip $(NVCC_FLAGS))"'; \
	   echo '#define PPBENCH_OMPTARGET_FLAGS "$(strip $(KERNEL_CFLAGS) $(OMPT_FLAGS))"'; \
	   echo '#define PPBENCH_OMPTARGET_CLANG_FLAGS "$(strip $(KERNEL_CFLAGS) $(OMPT_CLANG_FLAGS))"'; } >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@

# Which models are built (PP_HAVE_CUDA, PP_HAVE_OMPTARGET), in a header rewritten only when it changes, so
# that building once without nvcc and once with it rebuilds the registry (a flag on the command line would not).
$(BUILD)/gen/models.h: FORCE
	@mkdir -p $(@D)
	@{ echo '/* generated by the Makefile: the models this build has */'; \
	   $(if $(NVCC),echo '#define PP_HAVE_CUDA 1';) \
	   $(if $(OFFLOAD_CC)$(OFFLOAD_CLANG),echo '#define PP_HAVE_OMPTARGET 1';) true; } >$@.tmp
	@cmp -s $@.tmp $@ && rm -f $@.tmp || mv $@.tmp $@
$(BUILD)/obj/kernels/registry.o: $(BUILD)/gen/models.h

$(BUILD)/obj/%.o: %.c | $(BUILD)/gen/buildinfo.h
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

# The OpenMP kernels get the kernel flags (optimisation level of the measured code).
$(call obj,$(OMP_KERNEL_SRC)): $(BUILD)/obj/%.o: %.c | $(BUILD)/gen/buildinfo.h
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(CPPFLAGS) $(BASE_CFLAGS) $(KERNEL_CFLAGS) $(KERNEL_MATH_FLAGS) -MMD -MP -c $< -o $@

# OpenCL sources (kernels/<suite>/<file>.cl) are embedded as NUL-terminated strings named pp_cl_<file>, and so
# are the headers of device code that OpenCL shares with CUDA (CL_SHARED); a suite's opencl.c declares those it
# builds (OPENCL_SOURCE, kernels/opencl/opencl.h).
define embed_cl
@mkdir -p $(@D)
@printf '\t.section .rodata\n\t.global pp_cl_%s\n\t.type pp_cl_%s, @object\npp_cl_%s:\n\t.incbin "%s"\n\t.byte 0\n\t.section .note.GNU-stack,"",@progbits\n' \
	$(notdir $*) $(notdir $*) $(notdir $*) $< >$(BUILD)/obj/cl/$*.S
$(call say,EMBED,$<)$(CC) -c $(BUILD)/obj/cl/$*.S -o $@
endef
$(BUILD)/obj/cl/%.o: kernels/%.cl
	$(embed_cl)
$(BUILD)/obj/cl/%.o: kernels/%.h
	$(embed_cl)

$(WORKER): $(WORKER_OBJ) $(CORE_OBJ)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/bin/ppbenchd: $(SERVER_OBJ)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(SERVER_LDLIBS)

$(BUILD)/bin/ppbench: $(call obj,$(CLI_SRC) lib/error.c lib/sweep.c $(SUITE_TABLE_SRC))
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(CLI_LDLIBS)

# The SQL is embedded in ppbenchd as NULL-terminated tables of {name, sql} in file order (server/migrate.c
# applies them): pp_schema, the migrations (schema/NNN_name.sql), and pp_schema_functions, the current
# definitions of the functions, views and triggers (schema/functions/*.sql).
$(BUILD)/obj/schema.o: $(SCHEMA_SQL) $(SCHEMA_FUNCTIONS_SQL)
	@mkdir -p $(@D)
	$(call say,EMBED,schema/)
	$(Q)emit() { t=$$1; shift; printf '\t.section .rodata\n'; i=0; for f in "$$@"; do \
	  printf '%s_sql_%d:\n\t.incbin "%s"\n\t.byte 0\n%s_name_%d:\n\t.asciz "%s"\n' $$t $$i $$f $$t $$i $$(basename $$f); \
	  i=$$((i+1)); done; printf '\t.section .data.rel.ro\n\t.balign 8\n\t.global %s\n%s:\n' $$t $$t; i=0; \
	  for f in "$$@"; do printf '\t.quad %s_name_%d, %s_sql_%d\n' $$t $$i $$t $$i; i=$$((i+1)); done; \
	  printf '\t.quad 0, 0\n'; }; \
	{ emit pp_schema $(SCHEMA_SQL); emit pp_schema_functions $(SCHEMA_FUNCTIONS_SQL); \
	  printf '\t.section .note.GNU-stack,"",@progbits\n'; } >$(BUILD)/obj/schema.S
	$(Q)$(CC) -c $(BUILD)/obj/schema.S -o $@

# docs/openapi.json is served by ppbenchd as pp_openapi_json.
$(BUILD)/obj/openapi.o: docs/openapi.json
	@mkdir -p $(@D)
	$(call say,EMBED,$<)
	$(Q)printf '\t.section .rodata\n\t.global pp_openapi_json\npp_openapi_json:\n\t.incbin "%s"\n\t.byte 0\n\t.section .note.GNU-stack,"",@progbits\n' $< >$(BUILD)/obj/openapi.S
	$(Q)$(CC) -c $(BUILD)/obj/openapi.S -o $@

# Code divergence's line sets (docs/METHODOLOGY.md, "Code divergence"): scripts/linesets.sh preprocesses each
# suite's driver, plug-in, model cores and model files with what they include, for each variant and precision
# (kernels/<suite>/linesets says which files and options), and tools/lineset fingerprints the source lines kept;
# ppbenchd embeds the result as the NUL-terminated string pp_linesets (server/api/linesets.c reads it).
LINESET_SPECS = $(sort $(wildcard kernels/*/linesets))
LINESET_TOOL  = $(BUILD)/tools/lineset
$(LINESET_TOOL): tools/lineset.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -o $@ $<
$(BUILD)/gen/linesets.txt: $(LINESET_TOOL) scripts/linesets.sh $(LINESET_SPECS) $(wildcard kernels/*.[ch] kernels/*/*.c kernels/*/*.h kernels/*/*.cl kernels/*/*.cu lib/*.h)
	@mkdir -p $(@D)
	$(call say,GEN,$@)scripts/linesets.sh $(LINESET_TOOL) $(LINESET_SPECS) >$@.tmp && mv $@.tmp $@
$(BUILD)/obj/linesets.o: $(BUILD)/gen/linesets.txt
	@mkdir -p $(@D)
	$(call say,EMBED,$<)
	$(Q)printf '\t.section .rodata\n\t.global pp_linesets\npp_linesets:\n\t.incbin "%s"\n\t.byte 0\n\t.section .note.GNU-stack,"",@progbits\n' $< >$(BUILD)/obj/linesets.S
	$(Q)$(CC) -c $(BUILD)/obj/linesets.S -o $@
$(BUILD)/bin/ppbenchd: $(BUILD)/obj/linesets.o

# The dashboard is embedded in ppbenchd (one binary, no internet needed): every file of web/ and Chart.js from
# Debian's libjs-chart.js (served as chart.js) become a NULL-terminated table pp_web_files of {name, bytes,
# size}, each file followed by a NUL; server/http/static.c serves them at / and /ui/<name>. Text files only.
WEB_FILES = $(sort $(wildcard web/*.html web/*.css web/*.js))
CHARTJS  ?= /usr/share/javascript/chart.js/chart.min.js
$(BUILD)/bin/ppbenchd: $(BUILD)/obj/web.o
$(BUILD)/obj/web.o: $(WEB_FILES) $(wildcard $(CHARTJS))
	@mkdir -p $(@D)
	@test -f $(CHARTJS) || { echo "$(CHARTJS) not found: install libjs-chart.js (make deps) or set CHARTJS=" >&2; exit 1; }
	$(call say,EMBED,web/)
	$(Q){ printf '\t.section .rodata\n'; i=0; for f in $(WEB_FILES) $(CHARTJS); do \
	  n=$$(basename $$f); [ $$f = $(CHARTJS) ] && n=chart.js; \
	  printf 'pp_web_data_%d:\n\t.incbin "%s"\npp_web_end_%d:\n\t.byte 0\npp_web_name_%d:\n\t.asciz "%s"\n' $$i $$f $$i $$i $$n; i=$$((i+1)); done; \
	  printf '\t.section .data.rel.ro\n\t.balign 8\n\t.global pp_web_files\npp_web_files:\n'; i=0; for f in $(WEB_FILES) $(CHARTJS); do \
	  printf '\t.quad pp_web_name_%d, pp_web_data_%d, pp_web_end_%d - pp_web_data_%d\n' $$i $$i $$i $$i; i=$$((i+1)); done; \
	  printf '\t.quad 0, 0, 0\n\t.section .note.GNU-stack,"",@progbits\n'; } >$(BUILD)/obj/web.S
	$(Q)$(CC) -c $(BUILD)/obj/web.S -o $@

$(BUILD)/tests/%: tests/unit/%.cc
	@mkdir -p $(@D)
	$(call say,CXX,$<)$(CXX) -std=c++17 -Wall -Wextra -Werror -O1 $(SANITIZE) $(CPPFLAGS) -fopenmp \
		$(shell pkg-config --cflags $(PKGS) 2>/dev/null) -MMD -MP -o $@ $<
# kept: as intermediates of the pattern rule below a first build deleted them, and the next build (whose .d
# files name them) compiled them all again
.SECONDARY: $(patsubst tests/unit/%.c,$(BUILD)/obj/tests/unit/%.o,$(TEST_SRC))
$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(CORE_OBJ) $(filter-out $(BUILD)/obj/worker/main.o,$(WORKER_OBJ))
	@mkdir -p $(@D)
	$(call say,LD,$@)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The CUDA backend carries its own position-independent copy of the small shared helpers it uses.
CUDA_PIC_OBJ = $(BUILD)/obj/pic/lib/error.o $(BUILD)/obj/pic/lib/info.o
$(BUILD)/obj/pic/%.o: %.c
	@mkdir -p $(@D)
	$(call say,CC,$<)$(CC) $(CPPFLAGS) $(ALL_CFLAGS) -fPIC -fvisibility=hidden -c $< -o $@

$(CUDA_SO): $(CUDA_SRC) $(wildcard kernels/*.h kernels/*/*.h) $(CUDA_PIC_OBJ)
	@mkdir -p $(@D)
	$(call say,NVCC,$@)$(NVCC) $(NVCC_FLAGS) -I. -shared -cudart static -o $@ $(CUDA_SRC) $(CUDA_PIC_OBJ)

# The OpenMP offload backend: its objects (host code plus the nvptx IR that the link offloads), position
# independent and hidden but for pp_backend_omptarget, with its own copy of the shared helpers it uses.
OMPT_OBJ = $(patsubst %.c,$(BUILD)/obj/omptarget/%.o,$(OMPT_SRC))
$(OMPT_OBJ): $(BUILD)/obj/omptarget/%.o: %.c | $(BUILD)/gen/buildinfo.h
	@mkdir -p $(@D)
	$(call say,CC,$<)$(OFFLOAD_CC) $(CPPFLAGS) -DPP_OMP_TARGET $(BASE_CFLAGS) $(KERNEL_CFLAGS) $(OMPT_FLAGS) -fPIC \
		-fvisibility=hidden -MMD -MP -c $< -o $@
$(OMPT_SO): $(OMPT_OBJ) $(CUDA_PIC_OBJ)
	@mkdir -p $(@D)
	$(call say,LD,$@)$(OFFLOAD_CC) $(BASE_CFLAGS) $(KERNEL_CFLAGS) $(OMPT_FLAGS) -shared -Wl,-z,notext \
		-o $@ $^ -ldl

# The same sources by clang (OFFLOAD_CLANG), objects apart; the link runs clang-linker-wrapper, which links the
# device code (nvlink) and embeds the image.
# The objects hold device code: built again when the toolkit or the flags change (the stamp's text).
OMPT_CLANG_OBJ = $(patsubst %.c,$(BUILD)/obj/omptarget-clang/%.o,$(OMPT_SRC))
OMPT_CLANG_STAMP = $(BUILD)/obj/omptarget-clang/toolchain
$(OMPT_CLANG_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(OFFLOAD_CLANG) $(OMPT_CLANG_CUDA) $(OMPT_CLANG_FLAGS)' | cmp -s - $@ || \
		echo '$(OFFLOAD_CLANG) $(OMPT_CLANG_CUDA) $(OMPT_CLANG_FLAGS)' >$@
$(OMPT_CLANG_OBJ): $(BUILD)/obj/omptarget-clang/%.o: %.c $(OMPT_CLANG_STAMP) | $(BUILD)/gen/buildinfo.h
	@mkdir -p $(@D)
	$(call say,CLANG,$<)$(OFFLOAD_CLANG) $(CPPFLAGS) -DPP_OMP_TARGET $(BASE_CFLAGS) $(KERNEL_CFLAGS) $(OMPT_CLANG_FLAGS) -fPIC \
		-fvisibility=hidden -MMD -MP -c $< -o $@
$(OMPT_CLANG_SO): $(OMPT_CLANG_OBJ) $(CUDA_PIC_OBJ) kernels/omptarget/exports.map
	@mkdir -p $(@D)
	$(call say,LD,$@)$(OFFLOAD_CLANG) $(BASE_CFLAGS) $(KERNEL_CFLAGS) $(OMPT_CLANG_FLAGS) -shared \
		-Wl,--version-script=kernels/omptarget/exports.map -Wl,-rpath,$(OMPT_CLANG_LIB) \
		-o $@ $(filter %.o,$^) -ldl -lm

$(BUILD)/bench/d2d: bench/gpu/d2d.cu
	@mkdir -p $(@D)
	$(call say,NVCC,$@)$(NVCC) -O2 -std=c++17 -o $@ $<

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/ppbench
	install -m 755 $(WORKER) $(SERVER) $(CLI) $(DESTDIR)$(PREFIX)/bin/
ifneq ($(NVCC),)
	install -m 755 $(CUDA_SO) $(DESTDIR)$(PREFIX)/lib/ppbench/
endif
ifneq ($(OMPT_TARGET),)
	install -m 755 $(OMPT_TARGET) $(DESTDIR)$(PREFIX)/lib/ppbench/
endif

# Debian packages of this build into $(BUILD)/deb (scripts/deb.sh: its table of packages; deploy/README.md
# installs them on the nodes; tests/service/deb.sh checks them).
deb: all
	@BUILD=$(BUILD) scripts/deb.sh

bench-gpu: all
	bench/gpu/stream.sh

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cu')

clean:
	rm -rf $(BUILD) $(BUILD)-asan

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
