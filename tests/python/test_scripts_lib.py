"""scripts/lib.sh's apt_update: an apt-get update that fails (a Debian
mirror in mid-sync serves index files that do not match their Release file)
is tried again after 20, 40 and 80 s, then the caller goes on with the
lists it has.  Driven with a stand-in command and no-op sleeps."""
import subprocess

from conftest import TOP


def apt_update(fails):
    script = f"""
        set -euo pipefail
        . scripts/lib.sh
        sleep() {{ echo "slept $1" >&2; }}
        n=0
        update() {{ n=$((n + 1)); [ $n -gt {fails} ]; }}
        apt_update update
        echo "tries=$n"
    """
    return subprocess.run(["bash", "-c", script], cwd=TOP, capture_output=True, text=True, timeout=30)


def test_a_passing_update_runs_once():
    res = apt_update(0)
    assert res.returncode == 0 and res.stdout == "tries=1\n" and res.stderr == ""


def test_a_failing_update_is_tried_again():
    res = apt_update(2)
    assert res.returncode == 0 and res.stdout == "tries=3\n"
    assert [l for l in res.stderr.splitlines() if l.startswith("slept")] == ["slept 20", "slept 40"]


def test_a_broken_mirror_does_not_stop_the_caller():
    res = apt_update(10)
    assert res.returncode == 0 and res.stdout == "tries=4\n"
    assert "failed 4 times: going on with the package lists it fetched" in res.stderr
