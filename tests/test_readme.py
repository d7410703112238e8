"""README.md's commands run (issue 29, "docs that run"): every line of each fenced block marked
`<!-- runnable -->` is run as a user would type it, in a small bank (a copy of this repository's
questions/cloud/precision, in a git repository with an `origin/main`) and beside a one-file vault.
A command that is a usage or internal error (exit 2), or that is not found, fails the test; exit 1
is findings, which a bank with drafts and skeletons has."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, git

BLOCK = re.compile(r"<!-- runnable[^>]*-->\n```sh\n(.*?)```", re.S)


def _blocks() -> list[str]:
    return BLOCK.findall((REPO / "README.md").read_text(encoding="utf-8"))


def _commands(block: str) -> list[str]:
    """The block's lines as commands: comments dropped, backslash continuations joined."""
    joined = re.sub(r"\\\n\s*", "", block)
    commands = []
    for line in joined.splitlines():
        command = re.sub(r"\s+#.*$", "", line).strip()
        if command and not command.startswith("#"):
            commands.append(command)
    return commands


@pytest.fixture
def place(tmp_path: Path) -> Path:
    """A bank (my-bank's parent is it, so `qbank init my-bank` makes a second one) and a vault."""
    bank = tmp_path / "bank"
    shutil.copytree(REPO / "schema", bank / "schema")
    shutil.copytree(REPO / "questions" / "cloud" / "precision", bank / "questions" / "cloud" / "precision")
    git(bank, "init", "-q")
    git(bank, "add", ".")
    git(bank, "commit", "-qm", "bank")
    git(bank, "update-ref", "refs/remotes/origin/main", "HEAD")
    vault = bank / "my-vault" / "cloud" / "precision"
    vault.mkdir(parents=True)
    question = (REPO / "questions/cloud/precision/cloud-202611-5e7a.yaml").read_text(encoding="utf-8")
    (vault / "cloud-0001.yaml").write_text(
        question.replace("cloud-202611-5e7a", "cloud-0001").replace("provenance: llm-draft\n", ""),
        encoding="utf-8",
    )
    return bank


def test_there_are_runnable_blocks() -> None:
    blocks = _blocks()
    assert len(blocks) == 5 and sum(len(_commands(b)) for b in blocks) >= 25


@pytest.mark.parametrize("index", range(5))
def test_each_runnable_block_runs(index: int, place: Path) -> None:
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    here = place
    for command in _commands(_blocks()[index]):
        if command.startswith("cd "):
            here = here / command[3:]
            assert here.is_dir(), command
            continue
        done = subprocess.run(
            command, shell=True, cwd=here, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode in (0, 1), f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
        assert "Traceback" not in done.stderr, command


CLAIMS = re.compile(r"```yaml\n(verify:\n.*?)```", re.S)
WITH_CLAIMS = REPO / "tests/examples/valid/numeric-claim/cloud/precision/cloud-202611-e000.yaml"


@pytest.mark.parametrize("index", range(2))
def test_each_claim_example_is_read_and_checked_as_written(index: int, tmp_path: Path) -> None:
    """README's `verify:` examples, put into a valid question of a copy of this bank (its evidence/
    included) in place of its own claims: the model reads them, and the audit finds them true."""
    blocks = CLAIMS.findall((REPO / "README.md").read_text(encoding="utf-8"))
    assert len(blocks) == 2
    bank = tmp_path / "bank"
    for folder in ("schema", "evidence"):
        shutil.copytree(REPO / folder, bank / folder)
    question = WITH_CLAIMS.read_text(encoding="utf-8")
    ours = re.search(r"^verify:\n(?:  .*\n)+", question, re.M)
    assert ours is not None
    target = bank / "questions" / "cloud" / "precision" / WITH_CLAIMS.name
    target.parent.mkdir(parents=True)
    target.write_text(question.replace(ours.group(0), blocks[index]), encoding="utf-8")
    audited = subprocess.run(
        [sys.executable, "-m", "qbank", "audit", "--format", "json", "--no-cache"],
        cwd=bank,
        capture_output=True,
        text=True,
    )
    findings = json.loads(audited.stdout)["findings"]
    assert audited.returncode == 0 and findings == [], findings
