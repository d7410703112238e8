"""Shared test helpers: the real CLI in-process, and the ../shared data when it is there."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from qbank.cli import main

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "tests" / "examples"
SHARED = REPO.parent / "shared"
STAFFML_SAMPLE = SHARED / "corpus" / "staffml-sample"


@pytest.fixture(autouse=True)
def _own_audit_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test gets its own cache secret, so no test sees what another cached (a test that
    patches qbank's behaviour would otherwise read results made without the patch)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


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
