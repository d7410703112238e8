"""Shared test helpers: the real CLI in-process, and the ../shared data when it is there."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from qbank.checks.api import Context
from qbank.cli import main
from qbank.engine.per_file import check_file
from qbank.finding import Finding
from qbank.model.taxonomy import load_bank_tables

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "tests" / "examples"
SHARED = REPO.parent / "shared"
STAFFML_SAMPLE = SHARED / "corpus" / "staffml-sample"


@pytest.fixture(autouse=True)
def _own_audit_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets its own cache secret, so no test sees what another cached (a test that
    patches qbank's behaviour would otherwise read results made without the patch)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


HANG_SECONDS = 60  # far past any audit of a test's bank: only a hang gets here


@pytest.fixture
def hang_guard() -> Iterator[None]:
    """Fail a test that hangs instead of stalling the suite: a FIFO opened for reading waits for a
    writer forever, and a cost bomb may run for minutes. A test module asks for it with
    `pytestmark = pytest.mark.usefixtures("hang_guard")`. Timing belongs in benchmarks/, not here."""

    def stalled(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {HANG_SECONDS} s: a hang on hostile input")

    old = signal.signal(signal.SIGALRM, stalled)
    signal.alarm(HANG_SECONDS)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, old)


def run_cli(*args: str, cwd: Path = REPO) -> Result:
    """Run `qbank ARGS` in-process from `cwd`, as a user would type it."""
    old = Path.cwd()
    os.chdir(cwd)
    try:
        return CliRunner().invoke(main, list(args), catch_exceptions=False)
    finally:
        os.chdir(old)


def git(cwd: Path, *args: str) -> None:
    """Run git in `cwd` with a fixed identity (a fresh machine has none configured)."""
    subprocess.run(
        ["git", "-c", "user.name=qbank", "-c", "user.email=qbank@example.invalid", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
    )


def findings(
    yaml_text: str, rule: str | None = None, path: str = "questions/cloud/precision/cloud-202611-e000.yaml"
) -> list[Finding]:
    """What the per-file audit finds in `yaml_text` (as if it were this repository's file `path`),
    only `rule`'s (name or code) when given: a rule's test then reads like its docstring's
    Fails/Passes examples."""
    tables = load_bank_tables(REPO / "schema")
    assert not isinstance(tables, Finding), tables
    context = Context(tables, REPO / "questions")
    result, _ = check_file(Path(path), path, yaml_text.encode("utf-8"), context)
    return [f for f in result.findings if rule is None or rule in (f.name, f.code)]


def audit_json(*args: str, cwd: Path = REPO) -> tuple[int, dict[str, Any]]:
    result = run_cli("audit", "--format", "json", *args, cwd=cwd)
    return result.exit_code, json.loads(result.stdout)


@pytest.fixture
def staffml_sample() -> Path:
    if not STAFFML_SAMPLE.is_dir():
        pytest.skip(f"../shared is absent ({STAFFML_SAMPLE} not found): StaffML sample tests need it")
    return STAFFML_SAMPLE


@pytest.fixture
def shared_seed() -> Path:
    seed = SHARED / "seeds" / "000_a09af25dc360d3ee.txt"
    if not seed.is_file():
        pytest.skip(f"../shared is absent ({seed} not found): the seed test needs it")
    return seed
