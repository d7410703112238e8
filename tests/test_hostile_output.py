"""Hostile file names and text against what qbank prints: no output line may command the terminal or
the CI runner it is read on.

Attacks: a committed file whose name holds a line feed and a GitHub workflow command (`::error …`,
`::add-mask::`) or a legacy one (`##[…]`), in every output format and in `qbank fix --check` and a
usage error; terminal escapes and bidirectional controls in a name shown by `qbank fix --check`; a
name that is not UTF-8 given to `--changed-since` (git's output was decoded as UTF-8: a crash); SARIF
URIs that were not percent-encoded.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, REPO, git

pytestmark = pytest.mark.usefixtures("hang_guard")

FOLDER = Path("questions/cloud/precision")
QUESTION = (
    EXAMPLES / "hostile/custom-tag/cloud/precision/cloud-202611-h018.yaml"
).read_bytes()  # one yaml-tag
INJECTION = "x\n::error file=README.md,line=1::pwned\n::add-mask::secret ##[add-mask]y\n.yaml"
WORKFLOW_COMMAND = re.compile(rb"^\s*::|##\[", re.MULTILINE)


def _bank(tmp: Path, *names: str | bytes) -> Path:
    shutil.copytree(REPO / "schema", tmp / "schema")
    (tmp / FOLDER).mkdir(parents=True)
    for name in names:
        folder = os.fsencode(tmp / FOLDER)
        Path(os.fsdecode(folder + b"/" + (name if isinstance(name, bytes) else name.encode()))).write_bytes(
            QUESTION
        )
    return tmp


def _qbank(cwd: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    """The real program in a fresh process: its output as the runner's log receives it, in bytes."""
    return subprocess.run(
        [sys.executable, "-m", "qbank", *args], cwd=cwd, capture_output=True, timeout=120, check=False
    )


@pytest.mark.parametrize("fmt", ["text", "json", "sarif"])
def test_a_file_name_cannot_start_a_workflow_command(tmp_path: Path, fmt: str) -> None:
    done = _qbank(_bank(tmp_path, INJECTION), "audit", "--no-cache", "--format", fmt)
    assert done.returncode == 1, done.stderr
    assert b"yaml-tag" in done.stdout  # the file was audited, and its finding shown
    assert WORKFLOW_COMMAND.search(done.stdout + done.stderr) is None


def test_github_format_annotates_but_injects_nothing(tmp_path: Path) -> None:
    done = _qbank(_bank(tmp_path, INJECTION), "audit", "--no-cache", "--format", "github")
    commands = [line for line in done.stdout.splitlines() if line.lstrip().startswith(b"::")]
    assert len(commands) == 1 and commands[0].startswith(
        b"::error file=questions/cloud/precision/x%0A%3A%3Aerror"
    )
    assert b"##[" not in done.stdout + done.stderr


def test_fix_check_prints_no_workflow_command(tmp_path: Path) -> None:
    done = _qbank(_bank(tmp_path, INJECTION), "fix", "--check")
    assert b"skipped" in done.stderr + done.stdout
    assert WORKFLOW_COMMAND.search(done.stdout + done.stderr) is None


def test_a_usage_error_prints_no_workflow_command(tmp_path: Path) -> None:
    done = _qbank(_bank(tmp_path), "audit", "missing\n::error::pwned")
    assert done.returncode == 2 and b"no such file" in done.stderr
    assert WORKFLOW_COMMAND.search(done.stdout + done.stderr) is None


def test_fix_check_escapes_terminal_controls_in_names(tmp_path: Path) -> None:
    name = "t\x1b]0;owned\x07\x1b[2J\u202egnp.yaml"
    done = _qbank(_bank(tmp_path, name), "fix", "--check")
    output = (done.stdout + done.stderr).decode("utf-8")
    assert "\\x1b]0;owned\\x07\\x1b[2J\\u202egnp.yaml" in output
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e]", output)


def test_changed_since_reads_a_name_that_is_not_utf8(tmp_path: Path) -> None:
    bank = _bank(tmp_path)
    git(bank, "init", "-q")
    git(bank, "add", ".")
    git(bank, "commit", "-q", "-m", "start")
    _bank_file = bank / FOLDER / os.fsdecode(b"caf\xe9.yaml")
    _bank_file.write_bytes(QUESTION)
    git(bank, "add", ".")
    git(bank, "commit", "-q", "-m", "a Latin-1 name")
    done = _qbank(bank, "audit", "--no-cache", "--changed-since", "HEAD~1")
    assert done.returncode == 1, done.stderr  # a finding, not a crash (exit 2)
    assert b"questions/cloud/precision/caf\\xe9.yaml:9:8: QB007 yaml-tag" in done.stdout
    as_json = _qbank(bank, "audit", "--no-cache", "--changed-since", "HEAD~1", "--format", "json")
    (finding,) = json.loads(as_json.stdout)["findings"]  # valid UTF-8 JSON: the byte as an escape
    assert os.fsencode(finding["path"]) == b"questions/cloud/precision/caf\xe9.yaml"


def test_sarif_uris_are_percent_encoded(tmp_path: Path) -> None:
    name = "a b#c%d?.yaml"
    done = _qbank(_bank(tmp_path, name), "audit", "--no-cache", "--format", "sarif")
    (result,) = json.loads(done.stdout)["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "questions/cloud/precision/a%20b%23c%25d%3F.yaml"
    assert urllib.parse.unquote(uri) == f"{FOLDER.as_posix()}/{name}"


def test_sarif_uri_outside_the_working_folder_is_a_file_uri(tmp_path: Path) -> None:
    bank = _bank(tmp_path / "bank", "a b.yaml")
    (tmp_path / "elsewhere").mkdir()
    done = _qbank(tmp_path / "elsewhere", "audit", "--no-cache", "--format", "sarif", str(bank / "questions"))
    (result,) = json.loads(done.stdout)["runs"][0]["results"]
    location = result["locations"][0]["physicalLocation"]["artifactLocation"]
    assert location == {
        "uri": urllib.parse.quote(f"file://{bank}/questions/cloud/precision/a b.yaml", safe="/:")
    }
