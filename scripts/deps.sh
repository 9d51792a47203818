#!/usr/bin/env bash
# Install what the suite needs from Debian, and fetch the guest-arch packages
# (static busybox, libtracefs/libtraceevent static libraries; for arm64 also
# Debian's perf and the libraries it loads) into the cache without adding
# foreign architectures to dpkg.
#
#   deps.sh          install whatever is missing
#   deps.sh --check  exit 1 (naming what is missing) instead of installing
set -euo pipefail
. "$(dirname "$0")/lib.sh"

HOST_PACKAGES=(
	linux-source-6.12
	gcc make libc6-dev pkg-config
	gcc-aarch64-linux-gnu gcc-arm-linux-gnueabihf
	libc6-dev-arm64-cross libc6-dev-armhf-cross
	gcc-arm-linux-gnueabi libc6-dev-armel-cross # the ARMv6 board's armel userland
	qemu-system-arm device-tree-compiler
	qemu-efi-aarch64 # the arm64 UEFI board (KERNEL_VARIANT=uefi): edk2
	flex bison bc cpio kmod xz-utils libelf-dev libssl-dev perl git
	libtracefs-dev libtraceevent-dev libtracecmd-dev
	trace-cmd # tests/python/test_trace_report.py: version 7 files
	bash-completion # tests/python/test_bash_completion.py drives ours
	groff-base # tests/python/test_man_page.py renders the man page
	python3 python3-pytest python3-matplotlib valgrind
	python3-yaml # scripts/lava_job.py, lava_results.py (lava-dispatcher needs it too)
	linux-perf # perf script -s perf-scripts/cmadebug-events.py over the guests' perf.data
	clang libclang-rt-14-dev
	lld llvm # make build-matrix: the LLVM=1 (clang) variant
	sparse # make kernel-lint (C=2)
	chromium # headless, for tests/python/test_report_browser.py
)
GUEST_PACKAGES=(busybox-static libtracefs-dev libtraceevent-dev)
# armel: the ARMv6 board's (KERNEL_VARIANT=v6; armhf needs ARMv7)
GUEST_ARCHES=(armhf armel arm64)
# Debian's perf for the arm64 guest (tests/qemu/tlb.sh, perf-record.sh run
# the real one) and the packages holding the shared libraries it loads:
# scripts/initramfs.sh copies just those (the closure of its DT_NEEDED),
# and fails naming any it cannot find.
GUEST_PERF_PACKAGES=(linux-perf libc6 libopencsd1 libstdc++6 libgcc-s1 libelf1 libdw1 libbz2-1.0
	libunwind8 libslang2 libperl5.36 libcrypt1 libpython3.11 libexpat1 zlib1g liblzma5 libzstd1
	libcap2 libnuma1 libbabeltrace1 libglib2.0-0 libuuid1 libpcre2-8-0)
GUEST_PERF_ARCHES=(arm64)

missing_host_packages() {
	local pkg status
	for pkg in "${HOST_PACKAGES[@]}"; do
		status=$(dpkg-query -W -f='${db:Status-Status}' "$pkg" 2>/dev/null || true)
		[ "$status" = installed ] || echo "$pkg"
	done
}

# guest_dir KIND ARCH: where the KIND (sysroot, perf) packages for ARCH go
guest_dir() {
	echo "$CMADEBUG_CACHE/$1/$2"
}

as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		die "need root to run: $*"
	fi
}

# fetch_guest DIR ARCH PACKAGE...: download the .debs for one Debian arch
# and unpack them into DIR, atomically (temp dir, then rename).
fetch_guest() {
	local dir=$1 a=$2 tmp
	shift 2
	mkdir -p "$(dirname "$dir")"
	tmp=$(mktemp -d "$(dirname "$dir")/.$a.XXXXXX")
	chmod 755 "$tmp" # apt's _apt user must be able to write here
	note "fetching $* for $a"
	(cd "$tmp" && apt-get download -q -oAPT::Architecture="$a" "$@" >/dev/null 2>"$tmp/.apt-errors") ||
		{
			cat "$tmp/.apt-errors" >&2
			rm -rf "$tmp"
			die "could not download the $a guest packages ($*)"
		}
	mkdir "$tmp/root"
	for deb in "$tmp"/*.deb; do
		dpkg-deb -x "$deb" "$tmp/root"
	done
	mkdir "$tmp/debs" && mv "$tmp"/*.deb "$tmp/debs/"
	touch "$tmp/.complete"
	rm -rf "$dir"
	mv "$tmp" "$dir"
}

main() {
	local check_only=0 missing need_guest=() need_perf=() a
	[ "${1:-}" = --check ] && check_only=1

	mapfile -t missing < <(missing_host_packages)
	for a in "${GUEST_ARCHES[@]}"; do
		[ -f "$(guest_dir sysroot "$a")/.complete" ] || need_guest+=("$a")
	done
	for a in "${GUEST_PERF_ARCHES[@]}"; do
		[ -f "$(guest_dir perf "$a")/.complete" ] || need_perf+=("$a")
	done
	need_guest+=("${need_perf[@]/#/perf:}")

	if [ ${#missing[@]} = 0 ] && [ ${#need_guest[@]} = 0 ]; then
		return 0
	fi
	if [ $check_only = 1 ]; then
		[ ${#missing[@]} = 0 ] || echo "cmadebug: missing Debian packages: ${missing[*]} (run 'make deps')" >&2
		[ ${#need_guest[@]} = 0 ] || echo "cmadebug: guest packages not fetched for: ${need_guest[*]} (run 'make deps')" >&2
		exit 1
	fi

	if [ ${#missing[@]} != 0 ]; then
		note "installing ${missing[*]}"
		apt_update as_root apt-get update -q >/dev/null
		as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
			die "apt-get install failed for: ${missing[*]}"
	fi
	if [ ${#need_guest[@]} != 0 ]; then
		# Package lists for the guest architectures, for apt-get download only;
		# dpkg's own architecture list is left as it is.
		opts=(-oAPT::Architectures::="$(dpkg --print-architecture)")
		for a in "${GUEST_ARCHES[@]}"; do opts+=(-oAPT::Architectures::="$a"); done
		apt_update as_root apt-get update -q "${opts[@]}" >/dev/null
		for a in "${need_guest[@]}"; do
			case $a in
			perf:*) fetch_guest "$(guest_dir perf "${a#perf:}")" "${a#perf:}" "${GUEST_PERF_PACKAGES[@]}" ;;
			*) fetch_guest "$(guest_dir sysroot "$a")" "$a" "${GUEST_PACKAGES[@]}" ;;
			esac
		done
	fi
}

main "$@"
