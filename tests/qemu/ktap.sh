# KTAP helpers for the guest tests (sourced).  Each test is a shell function;
# run_ktap runs them in order and prints the plan first.
ktap_n=0

# t_fail MESSAGE: fail the current test with what was expected and what came.
t_fail() {
	echo "# $ktap_current: $*"
	return 1
}

# user_taint: 1 if the kernel is tainted TAINT_USER (bit 6, 'U'), else 0.
# The series' injection knobs set it on first use.
user_taint() {
	echo $((($(cat /proc/sys/kernel/tainted) >> 6) & 1))
}

# t_eq WHAT EXPECTED ACTUAL
t_eq() {
	[ "$2" = "$3" ] && return 0
	t_fail "$1: expected '$2', got '$3'"
}

# json_value FILE KEY: the first "KEY": value (one word) of a --pretty document.
json_value() {
	awk -v key="\"$2\":" '$1 == key { gsub(/[",]/, "", $2); print $2; exit }' "$1"
}

# cmadebug.fail_case on the command line: one more test, which fails
# (make lava-check proves with it that a failed case makes it red).
test_deliberate_failure() {
	t_fail "cmadebug.fail_case is on the kernel command line"
}

# cmadebug.hang_case: one more test, which never returns (a hung case must
# be reported as one, with the cases before it kept).
test_deliberate_hang() {
	while :; do sleep 3600; done
}

run_ktap() {
	case " $(cat /proc/cmdline) " in
	*" cmadebug.fail_case "*) set -- "$@" test_deliberate_failure ;;
	esac
	case " $(cat /proc/cmdline) " in
	*" cmadebug.hang_case "*) set -- "$@" test_deliberate_hang ;;
	esac
	echo "TAP version 13"
	echo "1..$#"
	for t in "$@"; do
		ktap_n=$((ktap_n + 1))
		ktap_current=$t
		if out=$($t 2>&1); then
			[ -n "$out" ] && echo "$out"
			echo "ok $ktap_n $t"
		else
			[ -n "$out" ] && echo "$out"
			echo "not ok $ktap_n $t"
		fi
	done
}
