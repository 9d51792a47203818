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


# scripts/lib.sh's distro_image_package: which versioned kernel package a
# metapackage's candidate names.  The archive lists more than one version
# (bookworm and bookworm-security); a parser that stopped reading at the
# first match left apt-cache writing into a closed pipe, and distro-kernel.sh
# (pipefail) died of SIGPIPE, exit 141, with no message (CI, stop 24).

def image_package(stanzas, trailer_bytes=0):
    """Runs distro_image_package under pipefail with a stand-in apt-cache
    that prints STANZAS, then TRAILER_BYTES more (a long description), as
    apt-cache does when every version is listed."""
    script = f"""
        set -euo pipefail
        . scripts/lib.sh
        apt-cache() {{
            [ "$1" = -q ] && [ "$2" = show ] && [ "$3" = --no-all-versions ] || exit 9
            printf '%s' "$STANZAS"
            head -c {trailer_bytes} /dev/zero | tr '\\0' x
            echo
        }}
        out=$(distro_image_package linux-image-arm64 -q)
        echo "[$out]"
    """
    return subprocess.run(["bash", "-c", script], cwd=TOP, capture_output=True, text=True, timeout=30,
                          env={"PATH": "/usr/bin:/bin", "STANZAS": stanzas})


CANDIDATE = ("Package: linux-image-arm64\nVersion: 6.1.192-3\n"
             "Depends: linux-image-6.1.0-57-arm64 (= 6.1.192-3)\nDescription: Linux for 64-bit ARMv8 machines\n\n")


def test_the_candidate_names_the_versioned_image():
    res = image_package(CANDIDATE)
    assert res.returncode == 0, res.stderr
    assert res.stdout == "[linux-image-6.1.0-57-arm64 6.1.192-3]\n"


def test_a_long_listing_does_not_kill_the_caller():
    # 1 MiB after the match: far more than a pipe holds, so a reader that
    # exits early makes the writer die of SIGPIPE
    res = image_package(CANDIDATE, trailer_bytes=1 << 20)
    assert res.returncode == 0, (res.returncode, res.stderr)
    assert res.stdout == "[linux-image-6.1.0-57-arm64 6.1.192-3]\n"


def test_a_metapackage_without_a_versioned_dependency_names_nothing():
    res = image_package("Package: linux-image-arm64\nDepends: linux-image-6.1.0-57-arm64\n\n")
    assert res.returncode == 0 and res.stdout == "[]\n"
    res = image_package("")
    assert res.returncode == 0 and res.stdout == "[]\n"
