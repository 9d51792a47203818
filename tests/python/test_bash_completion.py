"""The bash completion (cmadebug/bash-completion/cmadebug), driven as bash does.

Each case sets COMP_WORDS/COMP_CWORD for a command line, calls _cmadebug
with Debian's bash-completion framework loaded (scripts/deps.sh installs
it) and compares COMPREPLY.
"""
import pathlib
import subprocess

import pytest

COMPLETION = pathlib.Path(__file__).resolve().parents[2] / "cmadebug" / "bash-completion" / "cmadebug"
FRAMEWORK = pathlib.Path("/usr/share/bash-completion/bash_completion")


def complete(line):
    """COMPREPLY for LINE, the cursor at its end (a trailing space: a new word)."""
    script = f"""
source {FRAMEWORK}
source {COMPLETION}
line={line!r}
read -ra COMP_WORDS <<<"$line"
[[ $line == *' ' ]] && COMP_WORDS+=('')
COMP_CWORD=$((${{#COMP_WORDS[@]}} - 1))
COMP_LINE=$line
COMP_POINT=${{#line}}
_cmadebug cmadebug "${{COMP_WORDS[COMP_CWORD]}}" "${{COMP_WORDS[COMP_CWORD-1]}}"
printf '%s\\n' "${{COMPREPLY[@]}}"
"""
    p = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return sorted(w for w in p.stdout.splitlines() if w)


def test_completion_parses():
    p = subprocess.run(["bash", "-n", str(COMPLETION)], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr


def test_framework_present():
    assert FRAMEWORK.is_file(), "bash-completion is not installed (scripts/deps.sh installs it)"


@pytest.mark.parametrize("line, expected", [
    ("cmadebug tr", ["trace"]),
    ("cmadebug a", ["alias", "areas"]),
    ("cmadebug --js", ["--json"]),
    ("cmadebug --pr", ["--pretty"]),
    ("cmadebug areas --c", ["--columns"]),
    ("cmadebug areas -o name,us", ["name,used"]),
    ("cmadebug areas -o dev", ["devices"]),
    ("cmadebug trace ", ["--help", "record", "report"]),
    ("cmadebug trace record -", ["--", "--duration", "--help", "--max-size", "--output", "-d", "-m", "-o"]),
    ("cmadebug tlb --ru", ["--runs"]),
    ("cmadebug tlb --events l2", ["l2d_tlb_refill", "l2i_tlb_refill"]),
    ("cmadebug tlb --events inst_retired,dtlb", ["inst_retired,dtlb_walk"]),
    ("cmadebug tlb ev", ["events"]),
    ("cmadebug tlb events --", ["--cpu", "--events", "--help", "--pmu"]),
    ("cmadebug tlb walk --st", ["--start"]),
    ("cmadebug snapshot --o", ["--output"]),
    ("cmadebug splits --k", ["--kcore"]),
    ("cmadebug alias -", ["--help", "--kcore", "--pid"]),
    ("cmadebug alias --p", ["--pid"]),
    ("cmadebug splits -", ["--help", "--kcore"]),
    ("cmadebug failures --s", ["--since"]),
    ("cmadebug --root /tmp trace rec", ["record"]),
    ("cmadebug he", ["help"]),
    ("cmadebug help sn", ["snapshot"]),
])
def test_completes(line, expected):
    assert complete(line) == expected


def test_alias_pid_completes_process_ids():
    """After --pid: the running processes' ids (bash-completion's _pids)."""
    pids = complete("cmadebug alias --pid ")
    assert pids and all(p.isdigit() for p in pids) and "1" in pids
