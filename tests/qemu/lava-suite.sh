# The step of the LAVA test definitions (tests/lava/): this boot's suite
# (cmadebug.suite= on the command line, as under qemu-run.sh) through
# run-tests.sh, the same tests; each KTAP result becomes a LAVA test case
# (lava-test-case, on PATH in a LAVA test shell) as it comes, so the cases
# before one that hangs are kept; a measured figure becomes a case with
# --measurement and --units.  The plan and kernel splats are checked
# on the host from the job's log (scripts/lava_results.py, with
# ktap_check.py's rules), where a case that never reported is seen too.

# "ok 3 test_name", "not ok 3 test_name", "ok 3 test_name # SKIP why"
# (LAVA_SUITE_RUN: what runs the suite, for the host's tests of this file)
${LAVA_SUITE_RUN:-sh /tests/run-tests.sh} 2>&1 | while IFS= read -r line || [ -n "$line" ]; do
	printf '%s\n' "$line"
	case $line in
	# a figure a test measured (tests/qemu/tlb.sh tlb_measurements):
	# "# measurement NAME VALUE UNITS"
	"# measurement "*)
		set -f # the three words, split on purpose, never globbed
		# shellcheck disable=SC2086
		set -- ${line#\# measurement }
		set +f
		case $#:$2 in
		3:*[!0-9.]* | 3:) ;; # LAVA takes numbers only
		3:*) lava-test-case "$1" --result pass --measurement "$2" --units "$3" ;;
		esac
		continue
		;;
	"not ok "[0-9]*) result=fail rest=${line#not ok } ;;
	"ok "[0-9]*) result=pass rest=${line#ok } ;;
	*) continue ;;
	esac
	rest=${rest#* } # the number
	case $rest in *"# SKIP"*) result=skip ;; esac
	lava-test-case "${rest%% *}" --result "$result"
done
