# shellcheck shell=bash
# Shared helpers for the build/boot scripts.  Sourced, never run.

CMADEBUG_CACHE=${CMADEBUG_CACHE:-${HOME:-/root}/.cache/cmadebug}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${CMADEBUG_BUILD:-$TOP/build}
KERNEL_SRC=$CMADEBUG_CACHE/linux
KERNEL_TARBALL=${KERNEL_TARBALL:-/usr/src/linux-source-6.12.tar.xz}
# Bump when a script change must invalidate cached kernels.
BUILD_RECIPE_VERSION=1

die() {
	echo "cmadebug: $*" >&2
	exit 1
}

note() {
	echo ">> $*" >&2
}

# The distribution kernel's modules a stock-kernel guest loads, in order
# (scripts/distro-kernel.sh): virtio-blk over PCI, a driver whose rings a
# stock kernel allocates from CMA.
DISTRO_MODULES="drivers/virtio/virtio_pci_modern_dev drivers/virtio/virtio_pci_legacy_dev
	drivers/virtio/virtio_pci drivers/block/virtio_blk"
# ... and the device they drive (scripts/qemu-run.sh adds it for a kernel
# with modules/): iommu_platform=on makes the driver use the DMA API, so its
# rings (two pages and more) come from dma_alloc_coherent() and so from CMA.
DISTRO_QEMU_ARGS="-blockdev null-co,node-name=cmablk,read-zeroes=on
	-device virtio-blk-pci,drive=cmablk,iommu_platform=on,disable-legacy=on"

# apt_update CMD...: CMD (an apt-get update) again after 20, 40 and 80 s
# while it fails, then carry on with a note: a Debian mirror in the middle
# of a sync serves index files that do not match their Release file ("File
# has unexpected size ... Mirror sync in progress?"), for minutes or
# longer.  apt keeps every list it did fetch, so what follows still works
# unless its package is in a list that failed, and then it fails with its
# own message.
apt_update() {
	local wait
	for wait in 20 40 80; do
		"$@" && return 0
		note "'$*' failed; again in $wait s (a mirror sync?)"
		sleep "$wait"
	done
	"$@" && return 0
	note "'$*' failed 4 times: going on with the package lists it fetched"
}

check_arch() {
	case $1 in
	arm | arm64) ;;
	*) die "unknown ARCH '$1' (expected arm or arm64)" ;;
	esac
}

cross_compile() {
	case $1 in
	arm) echo arm-linux-gnueabihf- ;;
	arm64) echo aarch64-linux-gnu- ;;
	esac
}

deb_arch() {
	case $1 in
	arm) echo armhf ;;
	arm64) echo arm64 ;;
	esac
}

# The guest userland's Debian architecture and cross compiler: the ARMv6
# board (KERNEL_VARIANT=v6) runs Debian's armel (ARMv5TE, soft float);
# armhf needs ARMv7.  Its kernel is built with the armhf compiler all the
# same: the kernel sets its own -march and float ABI.
guest_deb_arch() {
	case $1:${KERNEL_VARIANT:-} in
	arm:v6) echo armel ;;
	*) deb_arch "$1" ;;
	esac
}

guest_cross_compile() {
	case $1:${KERNEL_VARIANT:-} in
	arm:v6) echo arm-linux-gnueabi- ;;
	*) cross_compile "$1" ;;
	esac
}

kernel_image_path() {
	case $1 in
	arm) echo arch/arm/boot/zImage ;;
	arm64) echo arch/arm64/boot/Image ;;
	esac
}

# The kernel's version as the base tarball names it (e.g. 6.12.118-1~deb12u1).
kernel_base_version() {
	dpkg-query -W -f='${Version}' linux-source-6.12 2>/dev/null || echo unknown
}

# The flavour of Debian's kernel (linux-image-FLAVOUR) a board boots as a
# stock-kernel test board unless told (scripts/distro-kernel.sh, make distro-test).
distro_default_flavour() {
	case $1 in
	arm) echo armmp ;;
	arm64) echo arm64 ;;
	esac
}

# The versioned image package a kernel metapackage's candidate depends on,
# as "PACKAGE VERSION": linux-image-arm64 (6.1.192-3) ->
# "linux-image-6.1.0-57-arm64 6.1.192-3".  distro_image_package META
# [APT-CACHE OPTIONS...].  Only the candidate is shown (the lists hold every
# version the archive serves), and awk reads all of apt-cache's output: one
# that stopped at the first match would leave apt-cache writing into a
# closed pipe, and under pipefail the caller died of SIGPIPE (exit 141)
# whenever more than one version was listed.
distro_image_package() {
	local meta=$1
	shift
	apt-cache "$@" show --no-all-versions "$meta" 2>/dev/null |
		awk '/^Depends:/ && !done { sub(/^Depends: */, "");
			if (match($0, /^[^ ,|]+ \(= [^)]+\)/)) {
				split(substr($0, 1, RLENGTH), f, / \(= |\)/); print f[1], f[2] }
			done = 1 }'
}

# The kernel a board variant boots: its own (<arch>-VARIANT.config), or
# for the UEFI board the debug kernel, which has the EFI stub and KFENCE
# (configs/arm64-debug.config), and for arm's debug board the arm debug
# kernel (configs/arm-debug.config: generic KASAN).  kernel_variant ARCH:
# the variant whose fragment is built; kernel_debug ARCH: 1 for the debug
# kernel.
kernel_variant() {
	case $1:${KERNEL_VARIANT:-} in
	arm64:uefi | arm:debug) echo "" ;;
	*) echo "${KERNEL_VARIANT:-}" ;;
	esac
}

kernel_debug() {
	case $1:${KERNEL_VARIANT:-} in
	arm64:uefi | arm:debug) echo 1 ;;
	*) echo "${KCONFIG_DEBUG:-0}" ;;
	esac
}

# The Kconfig fragments merged over tinyconfig, in order.  With
# KERNEL_VARIANT=NAME also <arch>-NAME.config (a board that real kernels
# look like: arm-lpae, arm64-64k); debug.config (lockdep and friends, slow
# under TCG) and <arch>-debug.config where there is one, only for the debug
# kernel (KCONFIG_DEBUG=1).
config_fragments() {
	local variant
	variant=$(kernel_variant "$1")
	echo "$TOP/kernel-patches/configs/common.config"
	echo "$TOP/kernel-patches/configs/$1.config"
	if [ -n "$variant" ]; then
		echo "$TOP/kernel-patches/configs/$1-$variant.config"
	fi
	if [ "$(kernel_debug "$1")" = 1 ]; then
		echo "$TOP/kernel-patches/configs/debug.config"
		[ ! -f "$TOP/kernel-patches/configs/$1-debug.config" ] ||
			echo "$TOP/kernel-patches/configs/$1-debug.config"
	fi
}

# Hash of everything that determines a kernel binary for one arch.
kernel_build_hash() {
	local arch=$1
	{
		echo "recipe $BUILD_RECIPE_VERSION"
		echo "base $(kernel_base_version)"
		echo "arch $arch"
		cat "$TOP/kernel-patches/series"
		grep -v '^#' "$TOP/kernel-patches/series" | while read -r p; do
			[ -n "$p" ] && cat "$TOP/kernel-patches/$p"
		done
		for f in $(config_fragments "$arch"); do
			cat "$f"
		done
	} | sha256sum | cut -c1-16
}

# The kernel's name in the cache: ARCH, then -VARIANT with KERNEL_VARIANT,
# then -debug with KCONFIG_DEBUG=1 (arm-lpae, arm64-debug).
kernel_flavour() {
	local variant
	variant=$(kernel_variant "$1")
	echo "$1${variant:+-$variant}$([ "$(kernel_debug "$1")" = 1 ] && echo -debug)"
}

# The board's name in build/ (its console logs, initramfs, device tree):
# the kernel's flavour, but the UEFI board's own (arm64-uefi).
board_flavour() {
	echo "$1${KERNEL_VARIANT:+-$KERNEL_VARIANT}$([ "${KCONFIG_DEBUG:-0}" = 1 ] && echo -debug)"
}

kernel_dir_for() {
	echo "$CMADEBUG_CACHE/kernels/$(kernel_flavour "$1")-$(kernel_build_hash "$1")"
}

require_cmd() {
	local cmd=$1 pkg=$2
	command -v "$cmd" >/dev/null 2>&1 ||
		die "missing '$cmd' (Debian package $pkg): run 'make deps'"
}

# The QEMU boards (DESIGN.md).  arm: highmem=off keeps QEMU's own devices
# below 4 GiB for the non-LPAE guest (QEMU's "highmem" is not Linux's).
qemu_board() {
	case $1:${KERNEL_VARIANT:-} in
	# ARMv6 (configs/arm-v6.config): RealView EB with an ARM1176 core tile,
	# the one 6.12 device tree QEMU's ARM11 boards boot (board_kernel_dtb)
	arm:v6) echo qemu-system-arm -M realview-eb -cpu arm1176 -m 256 -smp 1 ;;
	arm:*) echo qemu-system-arm -M virt,highmem=off -cpu cortex-a15 -m 1024 -smp 1 ;;
	arm64:*) echo qemu-system-aarch64 -M virt -cpu cortex-a57 -m 1024 -smp 1 ;;
	esac
}

# board_kernel_dtb ARCH: the kernel's own device tree (a make target) the
# board boots over, for a QEMU board that makes none of its own (no
# -machine dumpdtb); nothing for the virt boards.  kernel-build.sh builds
# it into the kernel's directory; QEMU fills in memory and chosen.
board_kernel_dtb() {
	case $1:${KERNEL_VARIANT:-} in
	arm:v6) echo arm/arm-realview-eb.dtb ;;
	esac
}

# board_halts ARCH: 1 for a board whose guest cannot power it off.
# RealView's reboot driver writes the reset the real EB wants (0x08),
# which QEMU's model ignores (it resets on 0x100), and there is no
# power-off: the guest halts (tests/qemu/init, cmadebug.end=halt) and
# qemu-run.sh stops QEMU once the kernel says so.
board_halts() {
	case $1:${KERNEL_VARIANT:-} in
	arm:v6) echo 1 ;;
	*) echo 0 ;;
	esac
}

# The kernel command line every boot starts from; cma= sizes the default area.
BOARD_CMDLINE="console=ttyAMA0 cma=32M panic=-1"
# Debian's edk2 for QEMU's arm64 virt board (qemu-efi-aarch64)
UEFI_FIRMWARE=/usr/share/qemu-efi-aarch64/QEMU_EFI.fd

# Guest test suites: one boot each, the same kernel, a different command
# line.  'main' is the board as configured; the others set up what the
# linear-map tests (tests/qemu/linear-map.sh) need.
board_suites() {
	case $1 in
	arm) echo main lowmem-cma unsafe-sections keep-sections-fail no-default-cma forced-split forced-split-top forced-split-nomap inactive-pool ;;
	arm64) echo main rodata-full forced-split tlb-icount tlb-icount-split ;;
	esac
}

# suite_cmdline ARCH SUITE: what the suite appends to BOARD_CMDLINE.
suite_cmdline() {
	case $1:$2 in
	*:main) echo "" ;;
	# main's kernel-facing cases (tests/qemu/run-tests.sh): the arm debug board
	*:kernel) echo "" ;;
	# a distribution kernel (make distro-test): the board as configured
	*:stock) echo "" ;;
	arm:lowmem-cma) echo "cma=32M@0x50000000" ;;
	# with a range outside RAM too: rejected with a boot message
	arm:unsafe-sections) echo "dma_cma_keep_sections linear_map_split=16M@0x10000000" ;;
	arm:keep-sections-fail) echo "dma_cma_keep_sections=fail" ;;
	arm:no-default-cma) echo "cma=0" ;;
	# and a malformed dma_cma_keep_sections (it takes no value): refused
	arm:forced-split) echo "linear_map_split=16M@0x60000000 dma_cma_keep_sections=1" ;;
	# the last 16 MiB of lowmem: memblock's top-down allocator hands out
	# the rebuilt range's own PTE tables unless the range is held back
	arm:forced-split-top) echo "linear_map_split=16M@0x6f000000" ;;
	# over a no-map reserved-memory region (suite_dts): refused
	arm:forced-split-nomap) echo "linear_map_split=2M@0x60000000" ;;
	# the pool across the lowmem/highmem boundary (suite_dts): never activated
	arm:inactive-pool) echo "" ;;
	# the arm debug board's KFENCE off at boot, enabled by the suite
	arm:kfence-late) echo "kfence.sample_interval=0" ;;
	arm64:rodata-full) echo "rodata=full" ;;
	arm64:forced-split) echo "rodata=on linear_map_split=16M@0x48000000" ;;
	# the TLB A/B under -icount (suite_qemu_args): the walked range in blocks
	# (and the 16 MiB beside it split: the within-boot design's other arm),
	# then the walked range split
	arm64:tlb-icount) echo "rodata=on linear_map_split=16M@0x4a000000" ;;
	arm64:tlb-icount-split) echo "rodata=on linear_map_split=16M@0x48000000" ;;
	# make stress: the workload of tests/qemu/stress.sh for STRESS_SECONDS;
	# on arm64 with debug_pagealloc, which changes the linear map's
	# attributes on every page allocation and free (the series counts each)
	arm64:stress) echo "cmadebug.stress_seconds=${STRESS_SECONDS:-60} debug_pagealloc=on" ;;
	*:stress) echo "cmadebug.stress_seconds=${STRESS_SECONDS:-60}" ;;
	*) die "no suite '$2' on $1 (suites: $(board_suites "$1"))" ;;
	esac
}

# suite_dts ARCH SUITE: the kernel-patches/dts/<arch>-<VARIANT>.dtsi the
# suite boots with (scripts/board-dtb.sh BOARD_DTS), or nothing for <arch>.dtsi.
# The UEFI board has its firmware carve-outs in every suite.
suite_dts() {
	case $1:$2:${KERNEL_VARIANT:-} in
	arm64:*:uefi) echo uefi ;;
	arm:*:v6) echo v6 ;;
	arm:inactive-pool:*) echo inactive-pool ;;
	arm:forced-split-nomap:*) echo nomap ;;
	*) echo "" ;;
	esac
}

# What a kernel variant (KERNEL_VARIANT, config_fragments) needs of the
# board: 64 KiB pages make pageblocks, and so CMA's alignment, 512 MiB.
variant_qemu_args() {
	case $1:${KERNEL_VARIANT:-} in
	arm64:64k) echo "-m 2048" ;;
	# edk2 loads -kernel/-initrd/-dtb from fw_cfg and boots the EFI stub
	# acpi=off: edk2 then hands the kernel the device tree, not ACPI tables
	arm64:uefi) echo "-bios $UEFI_FIRMWARE -machine acpi=off" ;;
	# its AC97 codec: no sound on the host
	arm:v6) echo "-audiodev none,id=snd0" ;;
	*) echo "" ;;
	esac
}

variant_cmdline() {
	case $1:${KERNEL_VARIANT:-} in
	arm64:64k) echo "cma=512M" ;;
	# every page allocated and freed changes the (tagged) linear map
	arm64:kasan) echo "debug_pagealloc=on" ;;
	arm:v6) echo "cmadebug.end=halt" ;;
	*) echo "" ;;
	esac
}

# variant_suites ARCH VARIANT: the suites make variant-test boots (the ones
# that look at the linear map's shape; the 64k board's 16 MiB fimc-pool
# cannot be a CMA area, so not its main suite).
variant_suites() {
	case $1:$2 in
	arm:lpae) echo main lowmem-cma forced-split keep-sections-fail kfence-late ;;
	arm64:64k) echo rodata-full forced-split ;;
	# the locking and memory checkers: the whole main suite
	arm64:kasan) echo main ;;
	# generic KASAN, lockdep, KFENCE: slow under TCG, so main's kernel
	# cases only (make debug-test boots main)
	arm:debug) echo kernel kfence-late ;;
	# ARMv6: sections without TEX remap (layout's sizes held to ptdump,
	# alias_check's types to the boot's cache policy); main's kernel cases
	arm:v6) echo kernel ;;
	# the firmware's memory map: more memblock regions than split records;
	# the debug kernel (lockdep, RT, KFENCE), so main's kernel cases only
	arm64:uefi) echo kernel rodata-full ;;
	*) die "no kernel variant '$2' for $1" ;;
	esac
}

# tlb_ab_suites ARCH: the TLB A/B's two variants as VARIANT:SUITE, the
# walked range in blocks/sections, then in pages (tests/qemu/tlb.sh tells
# them apart by linear_map_split= on the command line).
tlb_ab_suites() {
	case $1 in
	arm) echo nosplit:main split:forced-split ;;
	arm64) echo nosplit:tlb-icount split:tlb-icount-split ;;
	esac
}

# kernel_worktree DIR: the cache tree prepared (the series applied) and a
# git worktree of it at DIR (made once, at base), for builds that check out
# other commits than the cache tree's (build-matrix.sh, kernel-lint.sh)
kernel_worktree() {
	"$TOP/scripts/kernel-tree.sh" prepare
	mkdir -p "$(dirname "$1")"
	if [ ! -d "$1" ]; then
		git -C "$KERNEL_SRC" worktree prune
		git -C "$KERNEL_SRC" worktree add -q --detach "$1" base
	fi
}

SERIES=$TOP/kernel-patches/series

# series_patches: the patch files kernel-patches/series applies, in order.
series_patches() {
	grep -v -e '^#' -e '^[[:space:]]*$' "$SERIES" || true
}

# ---- benchmarks (make bench) -----------------------------------------------

# bench_kernels ARCH: the patched kernel of ARCH (KERNEL_VARIANT as set) in
# $bench_patched, and in $bench_base the unpatched one, tag 'base' built
# with the same fragments (bench/base-kernel.sh, cached).
# shellcheck disable=SC2034 # both are for the caller
bench_kernels() {
	"$TOP/scripts/kernel-tree.sh" prepare
	bench_patched=$("$TOP/scripts/kernel-build.sh" "$1")
	bench_base=$("$TOP/bench/base-kernel.sh" "$1")
}

# bench_boot ARCH KERNEL_DIR [CMDLINE]: the guest's bench lines from one
# boot under QEMU -icount shift=0, where one virtual nanosecond is one
# guest instruction.
bench_boot() {
	KERNEL_DIR=$2 QEMU_EXTRA_ARGS="-icount shift=0" EXTRA_CMDLINE="loglevel=1${3:+ $3}" \
		"$TOP/scripts/qemu-run.sh" "$1" bench
}

# ---- LAVA (make lava-check, make lava-tlb) ----------------------------------

# lava_install: lava-run, and what its --validate checks a U-Boot worker
# has (tests/lava/boards/validate.sh): in.tftpd and /etc/default/tftpd-hpa,
# mkimage, telnet; installed without recommends (with them, an x86 kernel
# and two initramfs rebuilds: 15 minutes).  Root only, as lava-run is.
lava_install() {
	local missing=()
	[ "$(id -u)" = 0 ] || die "lava-run runs jobs as root only"
	command -v lava-run >/dev/null || missing+=(lava-dispatcher)
	{ command -v in.tftpd && [ -f /etc/default/tftpd-hpa ]; } >/dev/null || missing+=(tftpd-hpa)
	command -v mkimage >/dev/null || missing+=(u-boot-tools)
	command -v telnet >/dev/null || missing+=(telnet)
	[ ${#missing[@]} -gt 0 ] || return 0
	note "installing ${missing[*]} (no recommends)"
	apt_update apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
}

# lava_run JOB_DIR RUN_DIR: runs JOB_DIR/job.yaml on JOB_DIR/device.yaml
# with lava-run; the job log (its stderr) in RUN_DIR/log.yaml.  lava-run's
# exit status says little (0 for a job whose test failed): the log says
# everything (scripts/lava_results.py).  Job ids: unique per run (lava-run
# works in /var/lib/lava/dispatcher/tmp/ID), from LAVA_JOB_ID on.
LAVA_JOB_ID=$(($$ * 100))
lava_run() {
	LAVA_JOB_ID=$((LAVA_JOB_ID + 1))
	mkdir -p "$2"
	lava-run --job-id "$LAVA_JOB_ID" --output-dir "$2/out" --device "$1/device.yaml" \
		"$1/job.yaml" >"$2/lava-run.out" 2>"$2/log.yaml" || true
	rm -rf "/var/lib/lava/dispatcher/tmp/$LAVA_JOB_ID"
}

# lava_judge NAME DEFINITION RUN_DIR: judges RUN_DIR/log.yaml
# (scripts/lava_results.py; the test definition is 0_cmadebug-SUITE) into
# RUN_DIR/results.txt and prints all but its passing cases; fails with the job.
lava_judge() {
	local rc=0
	"${PYTHON:-python3}" "$TOP/scripts/lava_results.py" --name "$1" --definition "$2" \
		"$3/log.yaml" >"$3/results.txt" || rc=$?
	grep -v ': ok ' "$3/results.txt" || true
	return $rc
}

# suite_qemu_args ARCH SUITE: what the suite adds to QEMU's arguments.
# -icount shift=0: one guest instruction per virtual ns, and the arm64 PMU
# counts instructions (exactly).
suite_qemu_args() {
	case $1:$2 in
	arm64:tlb-icount | arm64:tlb-icount-split) echo "-icount shift=0" ;;
	# races need more than one CPU (the boards boot -smp 1)
	*:stress) echo "-smp 2" ;;
	*) echo "" ;;
	esac
}
