#!/usr/bin/env python3
"""Render one LAVA device file and job for a QEMU board and suite.

scripts/qemu-run.sh ARCH lava-job SUITE DIR prepares the kernel, device
tree and initramfs exactly as for its own boots and calls this with them;
the board's QEMU command, the suite's command line and its timeout come
from the same tables (scripts/lib.sh).  Written as JSON, which is YAML.

The job deploys to tmpfs (the ramdisk gets LAVA's test overlay), boots with
method qemu to the guest's shell (cmadebug.mode=lava: prompt
'cmadebug-lava:/# ') and runs tests/lava/cmadebug-suite.yaml inline.  The
device file is written by hand, the constants a lava-server device-type
template would give (lava-run needs no server).
"""
import argparse
import json
import os
import shlex
import sys

PROMPT = "cmadebug-lava:/# "
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFINITION = os.path.join(TOP, "tests", "lava", "cmadebug-suite.yaml")


def load_definition(path=DEFINITION):
    """The test definition as data (it is plain YAML: mappings and lists)."""
    try:
        import yaml  # lava-dispatcher depends on python3-yaml
    except ImportError:
        sys.exit("lava_job.py: python3-yaml is missing (make lava-check installs lava-dispatcher)")
    with open(path, encoding="utf-8") as f:
        return yaml.safe_load(f)


def device(arch, qemu, timeout_s):
    command, *options = shlex.split(qemu)
    return {
        "constants": {
            "posix": {
                "lava_test_sh_cmd": "/bin/sh",
                "lava_test_results_dir": "/lava-%s",
                "lava_test_shell_file": "~/.profile",
            },
            "kernel-start-message": "Linux version [0-9]",
            "default-shell-prompt": PROMPT,
            "shutdown-message": "reboot: Power down",
            "spawn_maxread": "4092",
            # a failed boot is a result, not something to retry
            "boot_retry": 0,
            "failure_retry": 1,
        },
        "available_architectures": [arch],
        "timeouts": {
            "actions": {"apply-overlay-image": {"minutes": 2}},
        },
        "actions": {
            "deploy": {
                "methods": {
                    "tmpfs": None,
                    "image": {"parameters": {"guest": {"size": 64, "interface": "virtio", "driveid": "lavatest"}}},
                },
            },
            "boot": {
                "connections": {"serial": None},
                "methods": {"qemu": {"parameters": {"command": command, "options": options}}},
            },
        },
    }


def job(arch, suite, kernel, dtb, initrd, cmdline, timeout_s):
    minutes = max(1, -(-timeout_s // 60))
    name = f"cmadebug-{suite}"
    return {
        "device_type": "qemu",
        "job_name": f"cmadebug {arch} {suite}",
        "timeouts": {
            "job": {"minutes": minutes + 5},
            "action": {"minutes": minutes},
            "connection": {"minutes": 2},
        },
        "priority": "medium",
        "visibility": "public",
        "context": {"arch": arch},
        "actions": [
            {"deploy": {
                "timeout": {"minutes": 3},
                "to": "tmpfs",
                "images": {
                    "kernel": {"image_arg": f"-kernel {{kernel}} -append {shlex.quote(cmdline)}",
                               "url": "file://" + os.path.abspath(kernel)},
                    "dtb": {"image_arg": "-dtb {dtb}", "url": "file://" + os.path.abspath(dtb)},
                    "ramdisk": {"image_arg": "-initrd {ramdisk}", "url": "file://" + os.path.abspath(initrd),
                                "format": "cpio.newc", "overlays": {"lava": True}},
                },
            }},
            {"boot": {
                "timeout": {"minutes": 2},
                "method": "qemu",
                "media": "tmpfs",
                "prompts": [PROMPT],
            }},
            {"test": {
                "timeout": {"minutes": minutes},
                "definitions": [{
                    "from": "inline",
                    "name": name,
                    "path": f"inline/{name}.yaml",
                    "repository": load_definition(),
                }],
            }},
        ],
    }


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--arch", required=True, choices=["arm", "arm64"])
    ap.add_argument("--suite", required=True)
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--dtb", required=True)
    ap.add_argument("--initrd", required=True)
    ap.add_argument("--cmdline", required=True)
    ap.add_argument("--qemu", required=True, help="the QEMU command and options, one string")
    ap.add_argument("--timeout", type=int, default=300, help="seconds for the suite")
    ap.add_argument("--out", required=True, help="directory for device.yaml and job.yaml")
    a = ap.parse_args(argv)
    os.makedirs(a.out, exist_ok=True)
    for name, doc in (("device.yaml", device(a.arch, a.qemu, a.timeout)),
                      ("job.yaml", job(a.arch, a.suite, a.kernel, a.dtb, a.initrd, a.cmdline, a.timeout))):
        with open(os.path.join(a.out, name), "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
