#!/usr/bin/env bash
# Check the U-Boot board examples without a LAVA server or a board: render
# each job template here (placeholders -> file:// URLs of small dummy
# files in a temp dir, or of the real artifacts when given), check it and
# its device file against lava_common's schemas (what lava-server checks
# on submission), check its kernel command line, and run
#   lava-run --validate --job-id N --output-dir TMP --device DEVICE JOB
# (the dispatcher builds and validates the whole pipeline; nothing is
# downloaded, powered or booted).  One line per job; a failure says why
# and makes the exit status non-zero.  Needs no network (unless you give
# http URLs), root (lava-run insists) and what a LAVA worker has installed:
# lava-dispatcher, tftpd-hpa (in.tftpd, /etc/default/tftpd-hpa), u-boot-tools
# (mkimage) and telnet (the devices' connect command).
#
# Environment (all optional):
#   SUITE           the suite on the command line (default main)
#   EXTRA_CMDLINE   more kernel arguments (default none)
#   RPI4_KERNEL RPI4_DTB RPI4_RAMDISK
#   BBB_KERNEL BBB_DTB BBB_RAMDISK BBB_NFSROOT
#                   real artifacts: a path (made a file:// URL) or a URL
#   OUT             keep the rendered jobs in this directory (to submit
#                   them: lavacli -i LAB jobs submit OUT/rpi4-arm64.job.yaml)
# shellcheck disable=SC2016 # need's tests are eval'd, quoted on purpose
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
me=validate.sh
SUITE=${SUITE:-main}
EXTRA_CMDLINE=${EXTRA_CMDLINE:-}

# NAME DEVICE-FILE JOB-TEMPLATE
jobs=(
	"rpi4-arm64 rpi4-arm64.device.yaml rpi4-arm64.job.yaml"
	"bbb-arm bbb-arm.device.yaml bbb-arm.job.yaml"
	"bbb-arm-nfs bbb-arm.device.yaml bbb-arm-nfs.job.yaml"
)

# What lava-run --validate itself needs (it checks for them, as on a worker).
missing=0
need() { # need TEST WHAT
	if ! eval "$1" >/dev/null 2>&1; then
		echo "$me: FAIL prerequisite: $2"
		missing=1
	fi
}
need '[ "$(id -u)" = 0 ]' "run as root (lava-run runs as root only)"
need 'command -v lava-run' "no lava-run (apt-get install lava-dispatcher)"
need 'command -v in.tftpd' "no in.tftpd (apt-get install tftpd-hpa)"
need '[ -f /etc/default/tftpd-hpa ]' "no /etc/default/tftpd-hpa (apt-get install tftpd-hpa)"
need 'command -v mkimage' "no mkimage (apt-get install u-boot-tools)"
need 'command -v telnet' "no telnet (apt-get install telnet)"
[ $missing = 0 ] || exit 1
# lava-run's own interpreter (a python3 earlier on PATH, pyenv's say, lacks
# lava_common)
py=$(sed -n '1s/^#! *//p' "$(command -v lava-run)")
need '$py -c "import lava_common.schemas, yaml"' "no lava_common for $py (apt-get install lava-dispatcher)"
[ $missing = 0 ] || exit 1

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${OUT:-$tmp/jobs}
mkdir -p "$out"

# The artifacts: the real ones when given, else small dummy files (the
# validation checks that a file:// URL exists, not what is in it).
url() { # url VALUE DUMMY-NAME
	local v=$1
	if [ -z "$v" ]; then
		v=$tmp/dummy/$2
		mkdir -p "$tmp/dummy"
		printf 'cmadebug dummy %s\n' "$2" >"$v"
	fi
	case $v in
	*://*) printf '%s\n' "$v" ;;
	/*) printf 'file://%s\n' "$v" ;;
	*) printf 'file://%s/%s\n' "$PWD" "$v" ;;
	esac
}
declare -A urls=(
	[rpi4-arm64:KERNEL_URL]=$(url "${RPI4_KERNEL:-}" rpi4-Image)
	[rpi4-arm64:DTB_URL]=$(url "${RPI4_DTB:-}" bcm2711-rpi-4-b.dtb)
	[rpi4-arm64:RAMDISK_URL]=$(url "${RPI4_RAMDISK:-}" rpi4-initramfs.cpio)
	[bbb-arm:KERNEL_URL]=$(url "${BBB_KERNEL:-}" bbb-zImage)
	[bbb-arm:DTB_URL]=$(url "${BBB_DTB:-}" am335x-boneblack.dtb)
	[bbb-arm:RAMDISK_URL]=$(url "${BBB_RAMDISK:-}" bbb-initramfs.cpio)
	[bbb-arm-nfs:KERNEL_URL]=$(url "${BBB_KERNEL:-}" bbb-zImage)
	[bbb-arm-nfs:DTB_URL]=$(url "${BBB_DTB:-}" am335x-boneblack.dtb)
	[bbb-arm-nfs:NFSROOT_URL]=$(url "${BBB_NFSROOT:-}" bbb-nfsroot.tar.gz)
)

# render TEMPLATE OUTPUT NAME: substitute the placeholders, then check the
# job and device as lava-server would and the kernel command line as we
# want it.  Prints the reason and fails on a problem.
render() {
	local name=$3
	SUBST_KERNEL_URL=${urls[$name:KERNEL_URL]:-} SUBST_DTB_URL=${urls[$name:DTB_URL]:-} \
	SUBST_RAMDISK_URL=${urls[$name:RAMDISK_URL]:-} SUBST_NFSROOT_URL=${urls[$name:NFSROOT_URL]:-} \
	SUBST_SUITE=$SUITE SUBST_EXTRA_CMDLINE=$EXTRA_CMDLINE \
	$py - "$1" "$2" "$4" <<'EOF'
import os, re, sys
import voluptuous, yaml
from lava_common.schemas import validate as validate_job
from lava_common.schemas.device import validate as validate_device

template, output, device = sys.argv[1:4]
text = open(template, encoding="utf-8").read()
for key in ("KERNEL_URL", "DTB_URL", "RAMDISK_URL", "NFSROOT_URL", "SUITE", "EXTRA_CMDLINE"):
    value = os.environ["SUBST_" + key]
    if value or key == "EXTRA_CMDLINE":
        text = text.replace("@%s@" % key, value)
left = sorted(set(re.findall(r"@[A-Z_]+@", text)))
if left:
    sys.exit("placeholders left: " + " ".join(left))
# "'... @EXTRA_CMDLINE@'" with nothing to add: no trailing blank
text = text.replace(" '\"\n", "'\"\n")
with open(output, "w", encoding="utf-8") as f:
    f.write(text)

try:
    job = yaml.safe_load(text)
    validate_job(job, strict=True)
except (yaml.YAMLError, voluptuous.Invalid) as e:
    sys.exit("job schema: %s" % e)
try:
    validate_device(yaml.safe_load(open(device, encoding="utf-8")))
except (yaml.YAMLError, voluptuous.Invalid) as e:
    sys.exit("device schema (%s): %s" % (os.path.basename(device), e))

# One source of truth: the inline definition is tests/lava/cmadebug-suite.yaml.
suite_yaml = os.path.join(os.path.dirname(os.path.abspath(template)), "..", "cmadebug-suite.yaml")
shared = yaml.safe_load(open(suite_yaml, encoding="utf-8"))
tests = [d for a in job["actions"] if "test" in a for d in a["test"]["definitions"]]
if not tests or any(d.get("from") != "inline" or d.get("repository") != shared for d in tests):
    sys.exit("the inline test definition differs from tests/lava/cmadebug-suite.yaml")

# The kernel command line: the job's own U-Boot commands set it.
boots = [a["boot"] for a in job["actions"] if "boot" in a]
cmds = [c for b in boots if isinstance(b.get("commands"), list) for c in b["commands"]]
bootargs = [c for c in cmds if c.startswith("setenv bootargs ")]
if len(bootargs) != 1:
    sys.exit("expected one 'setenv bootargs' in the boot commands, found %d" % len(bootargs))
args = bootargs[0][len("setenv bootargs "):].strip("'").split()
suite = os.environ["SUBST_SUITE"]
problems = []
for want in ("cmadebug.mode=lava", "cmadebug.suite=" + suite, "cma=32M"):
    if want not in args:
        problems.append("no " + want)
if not any(a.startswith("console=") for a in args):
    problems.append("no console=")
if any(a.startswith("panic=-1") for a in args):
    problems.append("panic=-1 (a panic would reboot into U-Boot, unseen)")
if problems:
    sys.exit("kernel command line: " + ", ".join(problems) + ": " + " ".join(args))
EOF
}

# shellcheck disable=SC1091 # the worker's file, shell assignments
tftp_root=$(. /etc/default/tftpd-hpa && printf '%s' "${TFTP_DIRECTORY:-}")
job_id=$(($$ * 10))
rc=0
for entry in "${jobs[@]}"; do
	read -r name device template <<<"$entry"
	job=$out/$template
	if ! reason=$(render "$here/$template" "$job" "$name" "$here/$device" 2>&1); then
		echo "$me: FAIL $name: ${reason##*$'\n'}"
		rc=1
		continue
	fi
	# a job id of our own: lava-run makes TFTP_DIRECTORY/ID and its tmp/ID
	job_id=$((job_id + 1))
	while [ -e "$tftp_root/$job_id" ] || [ -e "/var/lib/lava/dispatcher/tmp/$job_id" ]; do
		job_id=$((job_id + 1))
	done
	log=$tmp/$name.log
	lava-run --validate --job-id "$job_id" --output-dir "$tmp/$name.out" \
		--device "$here/$device" "$job" >"$log" 2>&1
	status=$?
	[ -n "$tftp_root" ] && rm -rf "${tftp_root:?}/$job_id"
	rm -rf "/var/lib/lava/dispatcher/tmp/$job_id"
	if [ $status = 0 ] && grep -q '"case": "validate", "definition": "lava", "result": "pass"' "$log"; then
		echo "$me: ok   $name ($template on $device, suite $SUITE)"
	else
		# the dispatcher's own reason: the error_msg of its job result (the
		# log is one JSON object a line), or the log's last line
		why=$($py -c '
import json, sys
why = ""
for line in open(sys.argv[1], encoding="utf-8", errors="replace"):
    try:
        msg = json.loads(line).get("msg")
    except ValueError:
        continue
    if isinstance(msg, dict) and msg.get("error_msg"):
        why = " ".join(str(msg["error_msg"]).split())
print(why)' "$log")
		[ -n "$why" ] || why=$(tail -n 1 "$log")
		echo "$me: FAIL $name: lava-run --validate (exit $status): $why"
		rc=1
	fi
done
[ -z "${OUT:-}" ] || echo "$me: rendered jobs in $OUT"
exit $rc
