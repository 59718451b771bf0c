# tracetax build. `make run` and `make check` install what is missing first:
# `make run` the build's packages and the default plan's, `make check` the
# tests' (scripts/deps.sh has the groups; `make deps-all` adds the rest).
# V=1 shows full command lines. SAN=1 builds an ASan/UBSan variant in build-san/.
# NO_DEPS_CHECK=1 builds without asking dpkg for the packages (libraries
# built from source). `make fuzz FUZZ_SECONDS=N` runs the libFuzzer
# harnesses (clang, into build-fuzz/): not part of `make check`.

# Without its packages a build stops at the first missing header or at a
# pkg-config error that names neither: name the packages first, and the goal
# that installs those alone. Only for the goals that compile: not for those
# that install the packages first (deps-*; run, check and asan install
# theirs, then make all), nor for those that need none: clean, and the
# distclean and realclean that a package build's `debian/rules clean` asks
# for (dh_auto_clean), in a root that has only Build-Depends.
BUILD_GOALS := all programs install fuzz-bins build/% build-san/% build-fuzz/%
ifeq ($(NO_DEPS_CHECK),)
ifneq ($(filter $(BUILD_GOALS),$(or $(MAKECMDGOALS),all)),)
ifneq ($(shell scripts/deps.sh --check && echo ok),ok)
$(error run 'make deps-build' as root to install them)
endif
endif
endif

CC      ?= gcc
CLANG   ?= clang
BPFTOOL ?= bpftool
PKGS    := libbpf libtracefs libtraceevent jansson sqlite3 libpq audit

ifeq ($(SAN),1)
B       := build-san
SANFLAGS := -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
else
B       := build
SANFLAGS :=
endif

# The fuzzing build: everything with clang's fuzzer and address sanitizer
# instrumentation, and coverage mapping for the report of what was reached.
ifeq ($(FUZZ),1)
B       := build-fuzz
CC      := $(CLANG)
SANFLAGS := -fsanitize=fuzzer-no-link,address -fno-omit-frame-pointer \
	-fprofile-instr-generate -fcoverage-mapping -Wno-unknown-warning-option
endif
FUZZ_SECONDS ?= 60

VERSION := $(shell git describe --always --dirty 2>/dev/null || echo 0.1)
CFLAGS  ?= -O2 -g
# Messages are cut to their buffers on purpose: -Wformat-truncation only adds noise.
override CFLAGS += -std=gnu11 -Wall -Wextra -Werror -Wno-format-truncation -D_GNU_SOURCE -MMD -MP \
	-I$(B) -I$(B)/bpf -Isrc -Ibpf \
	$(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(SANFLAGS)
LDLIBS  := $(shell pkg-config --libs $(PKGS) 2>/dev/null) -lelf -lz -lpthread -lm
LDFLAGS += $(SANFLAGS)

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' $(1) $(2);
endif

# Every layer's folder (HACKING.md); load/, preload/ and ust/ are other programs.
LAYERS    := base audit attach vm results tracers tracers/audit tracers/bpf tracers/ftrace tracers/perf tracers/ptrace \
	tracers/tools tracers/user measure cli doc output store compare report cmd
SRCS      := src/main.c $(foreach d,$(LAYERS),$(wildcard src/$(d)/*.c)) src/load/syscalls.c
OBJS      := $(SRCS:%.c=$(B)/%.o) $(B)/src/load/workloads.o
# main(): not in the tests' link
MAIN_OBJ  := $(B)/src/main.o
LIB_OBJS  := $(filter-out $(MAIN_OBJ),$(OBJS))
LOAD_SRCS := $(filter-out src/load/syscalls.c,$(wildcard src/load/*.c))
LOAD_OBJS := $(LOAD_SRCS:%.c=$(B)/%.o)
PRELOAD_SRCS := $(wildcard src/preload/*.c)
BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_SKELS := $(BPF_SRCS:bpf/%.bpf.c=$(B)/bpf/%.skel.h)
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(UNIT_SRCS:tests/unit/%.c=$(B)/tests/%)
# Helpers of the integration tests: another tracer (tt-attach), the activity probe (tt-activity)
TEST_TOOLS := $(B)/tests/tt-attach $(B)/tests/tt-activity $(B)/tests/tt-getpid-n \
	$(B)/tests/tt-syscall-mix $(B)/tests/tt-syscall-ns
TOOL_BPF_OBJS := $(patsubst tests/tools/%.bpf.c,$(B)/tests/tools/%.bpf.o,$(wildcard tests/tools/*.bpf.c))
# LTTng-UST (the func-ust site, the lttng-ust tracer's probe): only where
# liblttng-ust-dev is installed; without it the site is empty and lttng-ust skips.
HAVE_UST  := $(shell pkg-config --exists lttng-ust 2>/dev/null && echo 1)
UST_LIB   := $(if $(HAVE_UST),$(B)/libtracetax-ust.so)
UST_CFLAGS := $(if $(HAVE_UST),-DTT_HAVE_UST $(shell pkg-config --cflags lttng-ust))
# Installing liblttng-ust-dev after a build (`make check` after `make run`)
# changes how the load compiles: its objects follow what pkg-config says.
UST_STAMP := $(B)/ust-cflags
ARCH      := $(shell uname -m | sed 's/x86_64/x86/;s/aarch64/arm64/')

.DELETE_ON_ERROR:
.PHONY: all run check check-audit-host unit deps deps-build deps-run deps-all clean asan fuzz fuzz-bins debian-kernel debian-kernels install uninstall \
	programs deb check-deb FORCE
.SECONDARY:

all: $(B)/tracetax $(B)/tracetax-load $(B)/libtracetax-target.so $(if $(PRELOAD_SRCS),$(B)/libtracetax-preload.so) $(UST_LIB) $(UNIT_BINS) \
	$(TEST_TOOLS)

$(B)/tracetax: $(OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# The workload process links nothing it does not need: its hot loops must
# not drag a library's start-up or atexit work into what is measured.
# cpus.c places the workload's threads as the core expects them, and
# --latency records into hist.c's buckets: one source each.
LOAD_MAIN_OBJS := $(filter-out $(B)/src/load/target.o,$(LOAD_OBJS)) $(B)/src/load/cpus.o \
	$(B)/src/load/hist.o
$(B)/tracetax-load: $(LOAD_MAIN_OBJS) $(B)/libtracetax-target.so
	$(call msg,LINK,$@)
	$(Q)$(CC) -o $@ $(LOAD_MAIN_OBJS) -L$(B) -ltracetax-target -Wl,-rpath,'$$ORIGIN' -lpthread

# The user-probe target, in a library of its own so that LD_PRELOAD can interpose it.
$(B)/libtracetax-target.so: src/load/target.c
	@mkdir -p $(@D)
	$(call msg,LINK,$@)
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 -g -fPIC -shared -o $@ $<

# Its interposers come from the workload registry.
$(B)/libtracetax-preload.so: $(PRELOAD_SRCS) src/load/workloads.def src/load/workloads.h
	$(call msg,LINK,$@)
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -g -fPIC -shared -Isrc -o $@ $(PRELOAD_SRCS) -ldl

# The probe of the func-ust tracepoint, LD_PRELOADed by lttng-ust only.
$(B)/libtracetax-ust.so: src/ust/provider.c src/load/ust_tp.h
	$(call msg,LINK,$@)
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -O2 -g -fPIC -shared -Isrc $(UST_CFLAGS) \
		-o $@ $< $(shell pkg-config --libs lttng-ust 2>/dev/null)

# Rewritten only when `git describe` changes, so that the version a run
# reports is the build's, yet an unchanged tree rebuilds nothing.
$(B)/version.h: FORCE
	@mkdir -p $(@D)
	@echo '#define TRACETAX_VERSION "$(VERSION)"' > $@.new
	@cmp -s $@.new $@ && rm -f $@.new || mv -f $@.new $@

FORCE:

# Every syscall's name by number, from the C library's headers: budget
# names the syscalls it counts, not only those the load makes.
$(B)/syscall_names.h:
	@mkdir -p $(@D)
	$(call msg,GEN,$@)
	$(Q)echo '#include <sys/syscall.h>' | $(CC) -dM -E - | \
		sed -n 's/^#define __NR_\([a-z0-9_]*\) \([0-9][0-9]*\)$$/{ \2, "\1" },/p' > $@.new && mv -f $@.new $@

$(B)/%.o: %.c | $(BPF_SKELS) $(B)/version.h $(B)/syscall_names.h
	@mkdir -p $(@D)
	$(call msg,CC,$<)
	$(Q)$(CC) $(CFLAGS) -c -o $@ $<

# The load generator is built without sanitizers so that SAN=1 does not
# change what is timed.
$(B)/src/load/cpus.o $(B)/src/load/hist.o: $(B)/src/load/%.o: src/base/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$<)
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -MMD -MP -Isrc -c -o $@ $<

$(UST_STAMP): FORCE
	@mkdir -p $(@D)
	@echo '$(UST_CFLAGS)' > $@.new
	@cmp -s $@.new $@ && rm -f $@.new || mv -f $@.new $@

$(LOAD_OBJS): $(UST_STAMP)

$(B)/src/load/%.o: src/load/%.c
	@mkdir -p $(@D)
	$(call msg,CC,$<)
	$(Q)$(CC) -std=gnu11 -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE -MMD -MP -Isrc $(UST_CFLAGS) -c -o $@ $<

# libbpf-bootstrap pipeline: clang -target bpf -> bpftool gen object -> skeleton
$(B)/bpf/%.tmp.o: bpf/%.bpf.c bpf/*.h
	@mkdir -p $(@D)
	$(call msg,BPF,$<)
	$(Q)$(CLANG) -g -O2 -target bpf $(BPF_CPU) -D__TARGET_ARCH_$(ARCH) -Ibpf -c $< -o $@

# pair's lock of its own needs compare-and-swap: BPF ISA v3 (kernel 5.12)
$(B)/bpf/pair.tmp.o: BPF_CPU := -mcpu=v3

$(BPF_SKELS:.skel.h=.bpf.o): $(B)/bpf/%.bpf.o: $(B)/bpf/%.tmp.o
	$(Q)$(BPFTOOL) gen object $@ $<

$(B)/bpf/%.skel.h: $(B)/bpf/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

$(B)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(call msg,CC,$<)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS) -lcmocka

# pair_measure, run --kernel and budget with the measurement's outcome set
# by the test: pair_run, the VM, budget's counter and run, the documents'
# writes, and no lock or signal thread (tests/unit/test_session.c)
$(B)/tests/test_session: LDFLAGS += -Wl,--wrap=pair_run,--wrap=output_pair_json \
	-Wl,--wrap=cmd_take_lock,--wrap=cmd_signals_once \
	-Wl,--wrap=vm_kernel_release,--wrap=vm_cleanup_stale,--wrap=vm_run,--wrap=output_json_file \
	-Wl,--wrap=run_measure,--wrap=rates_allowed,--wrap=rates_count,--wrap=doc_budget_write

# The test tools' BPF objects go through the same pipeline as bpf/.
$(B)/tests/tools/%.tmp.o: tests/tools/%.bpf.c
	@mkdir -p $(@D)
	$(call msg,BPF,$<)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -c $< -o $@

# static: $(B)/%.o: %.c would otherwise compile X.bpf.c with gcc
$(TOOL_BPF_OBJS): $(B)/tests/tools/%.bpf.o: $(B)/tests/tools/%.tmp.o
	$(Q)$(BPFTOOL) gen object $@ $<

$(B)/tests/tools/%.skel.h: $(B)/tests/tools/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< > $@

# A command of known events for the cmd: workload: plain, as a user's program is.
$(B)/tests/tt-getpid-n: tests/tools/getpid_n.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 -o $@ $<

# A fresh process's getpid in ns (tests/run.sh: the box's syscall cost, before and after).
$(B)/tests/tt-syscall-ns: tests/tools/syscall_ns.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 -o $@ $<

# Another of known events, of three kinds of syscall (budget's tests).
$(B)/tests/tt-syscall-mix: tests/tools/syscall_mix.c
	@mkdir -p $(@D)
	$(call msg,CC,$@)
	$(Q)$(CC) -std=gnu11 -Wall -Wextra -Werror -O2 -o $@ $<

$(B)/tests/tt-attach: tests/tools/attach.c $(B)/tests/tools/attach.skel.h
	$(call msg,CC,$<)
	$(Q)$(CC) $(CFLAGS) -I$(B)/tests/tools $(LDFLAGS) -o $@ $< $(LDLIBS)

$(B)/tests/tt-activity: tests/tools/activity.c $(LIB_OBJS)
	@mkdir -p $(@D)
	$(call msg,CC,$<)
	$(Q)$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

# libFuzzer harnesses of the document reader and the option parsers
$(B)/fuzz-%: tests/fuzz/fuzz_%.c $(LIB_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(CFLAGS) -fsanitize=fuzzer -o $@ $^ $(LDFLAGS) $(LDLIBS)

fuzz-bins: $(B)/fuzz-doc $(B)/fuzz-cli

fuzz:
	@scripts/fuzz.sh $(FUZZ_SECONDS)

# make install PREFIX=/usr/local DESTDIR=...: tracetax in bin; the load and
# the libraries it brings in lib/tracetax (the programs of tracetax's, not
# of the user's PATH); the experiments, the man page and the bash
# completion under share. tracetax finds the others relative to itself
# (cmd_find_load, experiments_dir), so the tree can move as a whole.
PREFIX  ?= /usr/local
BINDIR  := $(PREFIX)/bin
PKGLIBDIR := $(PREFIX)/lib/tracetax
DATADIR := $(PREFIX)/share/tracetax
MANDIR  := $(PREFIX)/share/man
COMPLETIONDIR := $(PREFIX)/share/bash-completion/completions
INSTALL ?= install
INSTALL_LIBS := $(B)/libtracetax-target.so $(if $(PRELOAD_SRCS),$(B)/libtracetax-preload.so) $(UST_LIB)

# What install installs, built (the Debian package's build: debian/rules).
programs: $(B)/tracetax $(B)/tracetax-load $(INSTALL_LIBS)

install: programs
	$(call msg,INSTALL,$(DESTDIR)$(PREFIX))
	$(Q)$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(DATADIR)/experiments \
		$(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(COMPLETIONDIR)
	$(Q)$(INSTALL) -m 755 $(B)/tracetax $(DESTDIR)$(BINDIR)/tracetax
	$(Q)$(INSTALL) -m 755 $(B)/tracetax-load $(DESTDIR)$(PKGLIBDIR)/tracetax-load
	$(Q)$(INSTALL) -m 644 $(INSTALL_LIBS) $(DESTDIR)$(PKGLIBDIR)/
	$(Q)$(INSTALL) -m 644 experiments/*.tt $(DESTDIR)$(DATADIR)/experiments/
	$(Q)$(INSTALL) -m 644 man/tracetax.1 $(DESTDIR)$(MANDIR)/man1/tracetax.1
	$(Q)$(INSTALL) -m 644 completion/tracetax.bash $(DESTDIR)$(COMPLETIONDIR)/tracetax

# What install put there, and its directories of our own when empty.
uninstall:
	$(call msg,UNINSTALL,$(DESTDIR)$(PREFIX))
	$(Q)rm -f $(DESTDIR)$(BINDIR)/tracetax $(DESTDIR)$(PKGLIBDIR)/tracetax-load \
		$(DESTDIR)$(PKGLIBDIR)/libtracetax-target.so $(DESTDIR)$(PKGLIBDIR)/libtracetax-preload.so \
		$(DESTDIR)$(PKGLIBDIR)/libtracetax-ust.so $(DESTDIR)$(MANDIR)/man1/tracetax.1 \
		$(DESTDIR)$(COMPLETIONDIR)/tracetax $(addprefix $(DESTDIR)$(DATADIR)/,$(wildcard experiments/*.tt))
	$(Q)rmdir $(DESTDIR)$(PKGLIBDIR) $(DESTDIR)$(DATADIR)/experiments $(DESTDIR)$(DATADIR) 2>/dev/null || true

# The Debian package (debian/): dpkg-buildpackage -b on a clean copy of the
# tree's files in build/deb/, where tracetax_VERSION_ARCH.deb lands (its path
# the last line), then lintian. check-deb installs it into a fresh debootstrap
# root (cached under build/deb-root/) and runs it there: minutes, so not in
# `make check` (tests/deb/t_deb_root.sh says why).
deb:
	@scripts/deb.sh build/deb

check-deb: deps
	@TRACETAX_BUILD=$(B) bash tests/deb/t_deb_root.sh

# The packages, by group (scripts/deps.sh): deps is the tests'.
deps-build:
	@scripts/deps.sh build

deps-run:
	@scripts/deps.sh run

deps:
	@scripts/deps.sh test

deps-all:
	@scripts/deps.sh all

# Debian's current kernel package, unpacked (not installed) under build/kernel/,
# for `tracetax run --kernel` and t_vm.sh; the image's path is the last line.
# KERNEL_SUITE=bookworm-backports KERNEL_FLAVOUR=rt-amd64 choose another
# (scripts/debian-kernel.sh); debian-kernels fetches the three that
# `tracetax experiment run kernels` compares: 6.1, and 6.12 and 6.12-rt
# from bookworm-backports.
debian-kernel:
	@KERNEL_SUITE='$(KERNEL_SUITE)' KERNEL_FLAVOUR='$(KERNEL_FLAVOUR)' scripts/debian-kernel.sh $(B)/kernel

debian-kernels:
	@scripts/debian-kernel.sh $(B)/kernel
	@KERNEL_SUITE=bookworm-backports scripts/debian-kernel.sh $(B)/kernel
	@KERNEL_SUITE=bookworm-backports KERNEL_FLAVOUR=rt-amd64 scripts/debian-kernel.sh $(B)/kernel

run: deps-run
	@$(MAKE) --no-print-directory all
	$(B)/tracetax run

check: deps
	@$(MAKE) --no-print-directory all
	@TRACETAX_BUILD=$(B) tests/run.sh

asan:
	@$(MAKE) --no-print-directory SAN=1 check

# The audit tests on this host, not in a VM (tests/integration/audit_lib.sh):
# audit enabled once leaves every process forked afterwards on the syscall
# audit slow path (about 95 ns a call more) until reboot.
check-audit-host: deps
	@$(MAKE) --no-print-directory all
	@echo "tracetax: the audit tests on this host: every process started after them pays the syscall audit slow path until reboot" >&2
	@TRACETAX_BUILD=$(B) TRACETAX_TEST_HOST_AUDIT=1 tests/run.sh \
		$$(grep -l '^\. .*/audit_lib\.sh"' tests/integration/t_*.sh | xargs -n 1 basename)

clean:
	rm -rf build build-san build-fuzz

-include $(OBJS:.o=.d) $(LOAD_MAIN_OBJS:.o=.d)
