# cmadebug: instrumentation and analysis for CMA and the ARM DMA-mapping code.
# See README.md.  Kernel builds and guest packages are cached in
# $(CMADEBUG_CACHE) (default ~/.cache/cmadebug), outside the clone.

ARCHES := arm arm64
# The boards to boot; 'make qemu-test ARCH=arm' picks one.
BOARDS := $(if $(ARCH),$(ARCH),$(ARCHES))
PYTHON ?= /usr/bin/python3
FIXTURES := tests/fixtures
UNIT_BIN := build/unit/test_cmadebug
PREFIX ?= /usr/local
DESTDIR ?=

all: cmadebug

deps:
	@scripts/deps.sh

# Install whatever is missing (a no-op when everything is there).
deps-if-missing:
	@scripts/deps.sh --check 2>/dev/null || scripts/deps.sh

cmadebug: deps-check-host
	@$(MAKE) -s -C cmadebug

deps-check-host:
	@command -v pkg-config >/dev/null && pkg-config --exists libtracefs libtraceevent || \
		{ echo "cmadebug: libtracefs-dev/libtraceevent-dev missing: run 'make deps'" >&2; exit 1; }

kernel-tree:
	@scripts/kernel-tree.sh prepare

# Regenerate kernel-patches/ from the commits on the cache tree's branch.
kernel-patches:
	@scripts/kernel-tree.sh export

kernel:
	@for a in $(BOARDS); do scripts/kernel-build.sh $$a || exit 1; done

# Every suite of every board (scripts/lib.sh board_suites); SUITES= picks some.
# Then the TLB A/B of the two boots that form it (tests/qemu/tlb_ab_host.py),
# and arm64 main's perf.data through the host's perf script
# (tests/qemu/perf_record_host.py).
# QEMU's TCG runs a one-CPU guest on one host thread: the boards' suites run
# side by side, one lane per board, after the kernels are built one at a
# time (they share the kernel tree); each lane's output is printed whole.
qemu-test:
	@$(MAKE) -s kernel >/dev/null
	@rc=0; pids=""; mkdir -p build; for a in $(BOARDS); do \
		( r=0; for s in $${SUITES:-$$(bash -c ". scripts/lib.sh && board_suites $$a")}; do \
			scripts/qemu-run.sh $$a test $$s || r=1; \
		done; \
		$(PYTHON) tests/qemu/tlb_ab_host.py build/$$a/tlb-results $$a || r=1; \
		[ $$a != arm64 ] || case " $${SUITES:-main} " in *" main "*) $(PYTHON) tests/qemu/perf_record_host.py \
			build/$$a/console-test.log $$a/main/perf-script || r=1 ;; esac; \
		exit $$r ) >build/qemu-test-$$a.log 2>&1 & pids="$$pids $$!"; \
	done; \
	for p in $$pids; do wait $$p || rc=1; done; \
	for a in $(BOARDS); do cat build/qemu-test-$$a.log; done; exit $$rc

# The debug boards: each arch's kernel built with kernel-patches/configs/
# debug.config (lockdep with raw-lock nesting, DEBUG_VM, KFENCE sampling every
# millisecond ...) and ARCH-debug.config (arm64: PREEMPT_RT, the EFI stub;
# arm: generic KASAN), main suite; the console checker fails on any report.
# make check boots both as variant boards (arm:debug, arm64:uefi).
# It found the spinlock the attribute-change path took under KFENCE's raw lock.
DEBUG_BOARDS ?= arm arm64
debug-test:
	@rc=0; for a in $(DEBUG_BOARDS); do \
		KCONFIG_DEBUG=1 scripts/qemu-run.sh $$a test main || rc=1; \
	done; exit $$rc

# Boards that real kernels look like, as kernel variants (lib.sh
# config_fragments, KERNEL_VARIANT): arm with LPAE (3-level tables, 2 MiB
# blocks), arm64 with 64 KiB pages (512 MiB blocks), with the suites that
# look at the linear map's shape; arm64 with KASAN_SW_TAGS and
# debug_pagealloc=on, with the main suite; the debug kernel (PREEMPT_RT,
# lockdep, KFENCE, the EFI stub) booted by edk2 with firmware carve-outs,
# suites kernel (main's kernel-facing cases) and rodata-full; the arm
# debug kernel (lockdep, KFENCE, generic KASAN), suite kernel; ARMv6
# (RealView EB, ARM1176: no TEX remap, armel userland), suite kernel (lib.sh
# variant_suites; VARIANT_SUITES= picks);
# built one at a time, booted side by side like qemu-test.
VARIANT_BOARDS ?= arm:lpae arm64:64k arm64:kasan arm64:uefi arm:debug arm:v6
variant-test: variant-kernels
	@rc=0; pids=""; mkdir -p build; for b in $(VARIANT_BOARDS); do \
		( r=0; for s in $${VARIANT_SUITES:-$$(bash -c ". scripts/lib.sh && variant_suites $${b%%:*} $${b#*:}")}; do \
			KERNEL_VARIANT=$${b#*:} scripts/qemu-run.sh $${b%%:*} test $$s || r=1; \
		done; exit $$r ) >build/variant-test-$${b%%:*}-$${b#*:}.log 2>&1 & pids="$$pids $$!"; \
	done; \
	for p in $$pids; do wait $$p || rc=1; done; \
	for b in $(VARIANT_BOARDS); do cat build/variant-test-$${b%%:*}-$${b#*:}.log; done; exit $$rc

# The variant boards' kernels and the stress board's (the debug kernel, which
# the UEFI board boots too), one at a time: make check then boots them side
# by side, and two builds of one kernel at once would share an object tree.
variant-kernels:
	@for b in $(VARIANT_BOARDS); do \
		KERNEL_VARIANT=$${b#*:} scripts/kernel-build.sh $${b%%:*} >/dev/null || exit 1; \
	done
	@for a in $(STRESS_BOARDS); do KCONFIG_DEBUG=1 scripts/kernel-build.sh $$a >/dev/null || exit 1; done

# Distribution kernels as test boards: Debian's own kernels (ARCH:FLAVOUR,
# linux-image-FLAVOUR, the version the archive serves, fetched once into the
# cache by scripts/distro-kernel.sh) on our boards with our device trees and
# initramfs, suite stock (tests/qemu/stock.sh): what a kernel without the
# series reports, and what cmadebug makes of it.  No kernel of ours is built.
DISTRO_BOARDS ?= arm64:arm64 arm:armmp arm:armmp-lpae
# (the initramfs is built with the kernel tree's gen_init_cpio)
distro-test: kernel-tree
	@rc=0; for b in $(DISTRO_BOARDS); do \
		kdir=$$(scripts/distro-kernel.sh $${b%%:*} $${b#*:}) && \
		KERNEL_DIR=$$kdir BOARD_FLAVOUR=$${b%%:*}-debian-$${b#*:} \
			scripts/qemu-run.sh $${b%%:*} test stock || \
			{ echo "distro-test: $$b failed (exit $$?)" >&2; rc=1; }; \
	done; exit $$rc

# The guest suites of both boards as LAVA jobs run by the real dispatcher
# (lava-run, installed when missing; root): scripts/lava-check.sh.  Fails on
# a failed case, an incomplete job, a case that never reported or a splat,
# and proves that with a deliberately failing case.  The TLB A/B suites run
# as make lava-tlb (one boot of each variant) and are checked as
# qemu-test checks its own.  One lane per board, as in qemu-test, and the
# gate beside them; logs in build/lava/, build/lava-tlb/.
lava-check:
	@$(MAKE) -s kernel >/dev/null
	@scripts/lava-check.sh install
	@rc=0; pids=""; mkdir -p build; for a in $(BOARDS); do \
		scripts/lava-check.sh board $$a >build/lava-check-$$a.log 2>&1 & pids="$$pids $$!"; \
	done; \
	scripts/lava-check.sh gate >build/lava-check-gate.log 2>&1 & pids="$$pids $$!"; \
	for p in $$pids; do wait $$p || rc=1; done; \
	for a in $(BOARDS) gate; do cat build/lava-check-$$a.log; done; exit $$rc

# The TLB A/B as LAVA jobs: BOOTS boots of each variant of a QEMU board in a
# shuffled order recorded in build/lava-tlb/BOARD/plan.tsv (SEED= repeats
# one), the jobs' results collected into tlb-ab.sh's layout and read by
# make tlb-report: scripts/lava-tlb.sh.
lava-tlb:
	@test -n "$(BOARD)" || { echo 'usage: make lava-tlb BOARD=arm64|arm [BOOTS=3] [SEED=N] [UNTIL=0.5%]' >&2; exit 1; }
	@$(if $(SEED),SEED=$(SEED)) $(if $(UNTIL),UNTIL=$(UNTIL)) scripts/lava-tlb.sh $(BOARD) $(or $(BOOTS),3)

# The stress workload (tests/qemu/stress.sh) on the debug board with two
# CPUs: DMA and debugfs allocations, every file read, alias_check walks,
# injection toggled and a trace recording, all at once, for STRESS_SECONDS;
# prints the operations done.  make check runs a minute of it.
STRESS_SECONDS ?= 600
STRESS_BOARDS ?= arm64
stress:
	@rc=0; for a in $(STRESS_BOARDS); do \
		STRESS_SECONDS=$(STRESS_SECONDS) QEMU_TIMEOUT=$$(($(STRESS_SECONDS) + 300)) \
			KCONFIG_DEBUG=1 scripts/qemu-run.sh $$a test stress || rc=1; \
		grep -h '^stress: ' build/$$a-debug/console-test-stress.log | tr -d '\r'; \
	done; exit $$rc

demo: deps-if-missing
	@scripts/qemu-run.sh arm demo

# Captured trees, the guest's own cmadebug output, and a real console log of
# the guest tests (for the KTAP checker's tests).
fixtures:
	@for a in $(BOARDS); do \
		scripts/qemu-run.sh $$a capture qemu-$$a && \
		scripts/qemu-run.sh $$a test && \
		tr -d '\r' < build/$$a/console-test.log > $(FIXTURES)/qemu-$$a/console-test.log || exit 1; \
	done
	@# the variant boards (make variant-test), for the ptdump fallback's LPAE
	@# and 64 KiB-page shapes; their trace recordings are not kept
	@KERNEL_VARIANT=lpae scripts/qemu-run.sh arm capture qemu-arm-lpae && \
		KERNEL_VARIANT=lpae scripts/qemu-run.sh arm test && \
		tr -d '\r' < build/arm-lpae/console-test.log > $(FIXTURES)/qemu-arm-lpae/console-test.log && \
		rm -rf $(FIXTURES)/qemu-arm-lpae/trace
	@KERNEL_VARIANT=64k scripts/qemu-run.sh arm64 capture qemu-arm64-64k && \
		rm -rf $(FIXTURES)/qemu-arm64-64k/trace
	@# Debian's own arm64 and armmp kernels (make distro-test): no CMA debugfs
	@KERNEL_DIR=$$(scripts/distro-kernel.sh arm64) BOARD_FLAVOUR=arm64-debian-arm64 \
		scripts/qemu-run.sh arm64 capture qemu-arm64-debian
	@KERNEL_DIR=$$(scripts/distro-kernel.sh arm armmp) BOARD_FLAVOUR=arm-debian-armmp \
		scripts/qemu-run.sh arm capture qemu-arm-debian

unit: cmadebug
	@mkdir -p build/unit
	@cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -Icmadebug/src \
		$$(pkg-config --cflags libtracefs libtraceevent) -o $(UNIT_BIN) \
		tests/unit/test_cmadebug.c cmadebug/libcmadebug.a \
		$$(pkg-config --libs libtracefs libtraceevent)
	@echo "== C unit tests (under valgrind: leaks and bad reads fail)"
	@valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=9 \
		$(UNIT_BIN) $(FIXTURES)
	@cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -Icmadebug/src -o build/unit/test_tlb \
		tests/unit/test_tlb.c cmadebug/libcmadebug.a
	@mkdir -p build/unit/tlb-csv
	@valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=9 \
		build/unit/test_tlb $(FIXTURES) build/unit/tlb-csv

pytest: cmadebug
	@echo "== pytest"
	@$(PYTHON) -m pytest -q tests/python

# Sanitizers and libFuzzer harnesses (tests/fuzz/Makefile, clang): the unit
# tests under ASan+UBSan, each harness over its seeds and regress/ inputs
# once (fuzz-regress), a fixed-seed fixed-length fuzzing run (fuzz-gate,
# part of 'make check': deterministic), or open-ended fuzzing for
# FUZZ_SECONDS per parser (fuzz: what it finds goes to tests/fuzz/regress/).
FUZZ_SECONDS ?= 10
unit-asan fuzz-regress fuzz-gate fuzz:
	@$(MAKE) -s -C tests/fuzz $@ FIXTURES=$(CURDIR)/$(FIXTURES) FUZZ_SECONDS=$(FUZZ_SECONDS)

# The libtraceevent plugin, loaded as trace-cmd loads it, formats records
# built on the captured formats of its three events, on all four patched
# guests (tests/unit/test_plugin.c).
plugin-test:
	@mkdir -p build/plugin
	@$(MAKE) -s -C tracepoints O=$(CURDIR)/build/plugin
	@cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g $$(pkg-config --cflags libtraceevent) \
		-o build/plugin/test_plugin tests/unit/test_plugin.c $$(pkg-config --libs libtraceevent)
	@echo "== libtraceevent plugin (under valgrind)"
	@valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=9 \
		build/plugin/test_plugin build/plugin $(FIXTURES)

check-fast: unit unit-asan plugin-test pytest fuzz-regress

# Each step of check says how long it took (CI's 10-minute warm budget).
timed = s=$$(date +%s); $(MAKE) -s $(1) && echo "== make $(1): $$(($$(date +%s) - s)) s"

check: deps-if-missing
	@# the kernel tree first: distro-test's initramfs needs it, and pytest
	@# would skip the tests that read it (or read it half unpacked)
	@$(call timed,kernel-tree)
	@# LAVA's packages now, not beside compare's package check (dpkg
	@# half-way through an install shows perl as not installed)
	@scripts/lava-check.sh install
	@# single-threaded steps side by side on two cores, each lane's output
	@# whole.  The debug kernel's main suite runs in variant-test (the UEFI
	@# board boots that kernel), and stress runs on it: not debug-test again.
	@# (check-fast's fuzz-regress in the second lane: the first is longer)
	@mkdir -p build; (r=0; ($(call timed,fuzz-regress)) || r=1; ($(call timed,fuzz-gate)) || r=1; \
		($(call timed,distro-test)) || r=1; exit $$r) >build/check-lane.log 2>&1 & lane=$$!; \
		$(call timed,unit unit-asan plugin-test pytest); rc=$$?; wait $$lane || rc=1; \
		cat build/check-lane.log; exit $$rc
	@# the boards' kernels, one at a time (they share the kernel tree)
	@$(MAKE) -s kernel >/dev/null
	@# the guest suites of both boards as LAVA jobs (what qemu-test boots,
	@# through the real dispatcher), compare's one guest at a time beside them
	@mkdir -p build; ($(call timed,compare ARCH=arm COMPARE_BOOTS=2)) >build/compare.log 2>&1 & cmp=$$!; \
		$(call timed,lava-check); rc=$$?; wait $$cmp || rc=1; cat build/compare.log; exit $$rc
	@# the stress board's two CPUs beside the variant boards (their kernels
	@# first, one at a time)
	@$(MAKE) -s variant-kernels
	@mkdir -p build; ($(call timed,stress STRESS_SECONDS=60)) >build/stress.log 2>&1 & st=$$!; \
		$(call timed,variant-test); rc=$$?; wait $$st || rc=1; cat build/stress.log; exit $$rc

# One self-contained HTML report (and a text summary) from cmadebug snapshots
# and, optionally, TLB A/B results: reports/README.md.
report:
	@test -n "$(SNAPSHOTS)$(TLB)" || { echo 'usage: make report SNAPSHOTS="a.json b.json" [TLB=RESULTS] [A=nosplit B=split] OUT=report.html' >&2; exit 1; }
	@# a results directory gets make tlb-report's layout check first (a JSON
	@# file was checked when make tlb-report wrote it)
	@for t in $(TLB); do if [ -d "$$t" ]; then \
		sh perf-scripts/tlb-ab.sh check $$t $(or $(A),nosplit) $(or $(B),split) || exit $$?; fi; done
	@PYTHONPATH=$(CURDIR)/reports $(PYTHON) -m cmadebug_report $(SNAPSHOTS) \
		$(foreach t,$(TLB),--tlb $(t)) -o $(or $(OUT),report.html)

# The TLB A/B of one workload's results (perf-scripts/tlb-ab.sh run ... -o DIR
# writes DIR/walk, DIR/tmpfs-read, ...): refuses variants whose walked range
# is not block-mapped in A and 4k-mapped in B, then abstats and the HTML.
# Beside the HTML, the statistics as JSON (OUT with .json for .html), which
# make compare TLB=FILE folds into the split strategy's column.
TLB_REPORT = $(or $(OUT),tlb-report.html)
tlb-report:
	@test -n "$(RESULTS)" || { echo 'usage: make tlb-report RESULTS=DIR/walk [A=nosplit B=split] [OUT=tlb-report.html] [ALLOW_INSUFFICIENT=1]' >&2; exit 1; }
	@sh perf-scripts/tlb-ab.sh check $(RESULTS) $(or $(A),nosplit) $(or $(B),split)
	@rc=0; PYTHONPATH=$(CURDIR)/reports $(PYTHON) -m cmadebug_report.abstats $(RESULTS) \
		--baseline $(or $(A),nosplit) --json $(basename $(TLB_REPORT)).json >/dev/null || rc=$$?; \
	case $$rc in 0|4) ;; *) exit $$rc ;; esac; \
	PYTHONPATH=$(CURDIR)/reports $(PYTHON) -m cmadebug_report --tlb $(basename $(TLB_REPORT)).json -o $(TLB_REPORT) || exit $$?; \
	echo ">> $(TLB_REPORT) $(basename $(TLB_REPORT)).json$$( [ $$rc = 0 ] || echo ' (too few boots: no interval drawn)')"; \
	[ $$rc = 0 ] || [ -n "$(ALLOW_INSUFFICIENT)" ] || exit $$rc

# The article's strategies side by side: one kernel booted under each
# (scripts/compare.sh), then the report, with --check asserting what must
# differ (exit 3).  ARCH=arm (default) or arm64, STRATEGIES= picks some;
# KERNEL_DIR= pins a built kernel, COMPARE_BOOT= boots a real board (README.md).
# COMPARE_BOOTS= boots per strategy (default 3); TLB= the TLB A/B of this
# board and kernel (make tlb-report's JSON, or its RESULTS directory, then
# checked first as make tlb-report does);
# WEIGHTS= the answer's weights (ROW=W,...).
COMPARE_ARCH = $(or $(ARCH),arm)
COMPARE_DIR = build/compare/$(COMPARE_ARCH)
compare: deps-if-missing
	@if [ -d "$(TLB)" ]; then sh perf-scripts/tlb-ab.sh check $(TLB) nosplit split; fi
	@COMPARE_BOOTS=$(or $(COMPARE_BOOTS),3) scripts/compare.sh $(COMPARE_ARCH) $(STRATEGIES)
	@PYTHONPATH=$(CURDIR)/reports $(PYTHON) -m cmadebug_report compare \
		$(if $(STRATEGIES),$(addprefix $(COMPARE_DIR)/,$(STRATEGIES)),$(COMPARE_DIR)) \
		$(if $(TLB),--tlb $(TLB)) $(if $(WEIGHTS),--weights $(WEIGHTS)) \
		-o $(COMPARE_DIR)/report.html --summary-json $(COMPARE_DIR)/summary.json --check
	@echo ">> $(COMPARE_DIR)/report.html"

# Instruction-count benchmarks (bench/); they print ratios, they do not fail.
bench: deps-if-missing
	@bench/cma-alloc.sh
	@bench/linear-map.sh
	@bench/debug-pagealloc.sh
	@bench/cmadebug-tool.sh

# checkpatch --strict on the series, as patches.  Run from outside this git
# tree: inside it checkpatch checks git-tracked files as plain source files
# (the export writes blank context lines empty so that mode stays quiet too).
checkpatch: kernel-tree
	@cp="$$(scripts/kernel-tree.sh path)/scripts/checkpatch.pl"; cd "$$(mktemp -d)" && perl "$$cp" \
		--strict --terse --no-summary $(CURDIR)/kernel-patches/*.patch 2>/dev/null; \
		echo "(the remaining CHECKs/WARNINGs are explained in each patch's notes, below ---)"

# The two series as a person posts them, under AUTHOR="Name <mail>" (the
# patches here carry a placeholder identity): build/posting/.
posting: kernel-tree
	@scripts/posting.sh "$(AUTHOR)"

# Each patch of the series, arm and arm64, new options on and off.
build-matrix:
	@scripts/build-matrix.sh

# The C files the series touches, W=1 and sparse, base against tip (arm and
# arm64 with the board configs; ARCH= picks one): no new warning.
kernel-lint:
	@$(MAKE) -s kernel >/dev/null
	@scripts/kernel-lint.sh $(BOARDS)

install: cmadebug
	@$(MAKE) -s -C cmadebug install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	@$(MAKE) -s -C tracepoints install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

clean:
	@$(MAKE) -s -C cmadebug clean
	@$(MAKE) -s -C tracepoints clean
	rm -rf build

.PHONY: posting kernel-lint variant-kernels lava-check lava-tlb stress variant-test distro-test all deps deps-if-missing deps-check-host cmadebug kernel-tree kernel-patches kernel debug-test \
	qemu-test demo fixtures unit unit-asan plugin-test fuzz-regress fuzz-gate fuzz pytest check-fast check report tlb-report compare bench checkpatch build-matrix install clean
