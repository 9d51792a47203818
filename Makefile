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

qemu-test:
	@rc=0; for a in $(BOARDS); do scripts/qemu-run.sh $$a test || rc=1; done; exit $$rc

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

unit: cmadebug
	@mkdir -p build/unit
	@cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror -g -Icmadebug/src \
		$$(pkg-config --cflags libtracefs libtraceevent) -o $(UNIT_BIN) \
		tests/unit/test_cmadebug.c cmadebug/libcmadebug.a \
		$$(pkg-config --libs libtracefs libtraceevent)
	@echo "== C unit tests (under valgrind: leaks and bad reads fail)"
	@valgrind -q --leak-check=full --errors-for-leak-kinds=definite --error-exitcode=9 \
		$(UNIT_BIN) $(FIXTURES)

pytest: cmadebug
	@echo "== pytest"
	@$(PYTHON) -m pytest -q tests/python

check-fast: unit pytest

check: deps-if-missing
	@$(MAKE) -s check-fast
	@$(MAKE) -s qemu-test

# One self-contained HTML report (and a text summary) from cmadebug snapshots
# and, optionally, TLB A/B results: reports/README.md.
report:
	@test -n "$(SNAPSHOTS)$(TLB)" || { echo 'usage: make report SNAPSHOTS="a.json b.json" [TLB=RESULTS] OUT=report.html' >&2; exit 1; }
	@PYTHONPATH=$(CURDIR)/reports $(PYTHON) -m cmadebug_report $(SNAPSHOTS) \
		$(foreach t,$(TLB),--tlb $(t)) -o $(or $(OUT),report.html)

# Instruction-count benchmarks (bench/); they print ratios, they do not fail.
bench: deps-if-missing
	@bench/cma-alloc.sh

# checkpatch --strict on the series, as patches.  Run from outside this git
# tree: inside it checkpatch checks git-tracked files as plain source files
# (the export writes blank context lines empty so that mode stays quiet too).
checkpatch: kernel-tree
	@cp="$$(scripts/kernel-tree.sh path)/scripts/checkpatch.pl"; cd "$$(mktemp -d)" && perl "$$cp" \
		--strict --terse --no-summary $(CURDIR)/kernel-patches/*.patch 2>/dev/null; \
		echo "(the remaining CHECKs/WARNINGs are explained in each patch's notes, below ---)"

# Each patch of the series, arm and arm64, new options on and off.
build-matrix:
	@scripts/build-matrix.sh

install: cmadebug
	@$(MAKE) -s -C cmadebug install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)

clean:
	@$(MAKE) -s -C cmadebug clean
	rm -rf build

.PHONY: all deps deps-if-missing deps-check-host cmadebug kernel-tree kernel-patches kernel \
	qemu-test demo fixtures unit pytest check-fast check report bench checkpatch build-matrix install clean
