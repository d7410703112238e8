"""The published pre-commit hooks, run by the real `pre-commit` tool, and the repo's own config.

`pre-commit try-repo` builds a fresh virtualenv for the hook repo on every call (it pip-installs
qbank and its dependencies from the package index), so these tests take a few seconds each.
research/ecosystem.md §2.5: try-repo sees only files git tracks, so the hook repo is a copy of
the package committed to a temporary git repository.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from conftest import REPO, git

GOOD = REPO / "questions" / "cloud" / "compute" / "cloud-202611-1c4d.yaml"  # no verify: block
MANIFEST = yaml.safe_load((REPO / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
CONFIG = yaml.safe_load((REPO / ".pre-commit-config.yaml").read_text(encoding="utf-8"))

PRE_COMMIT = [sys.executable, "-m", "pre_commit"]  # a dev dependency; the venv's bin/ may not be on PATH


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository holding the package as it is in this checkout, committed."""
    root = tmp_path_factory.mktemp("hookrepo")
    shutil.copytree(REPO / "qbank", root / "qbank", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml"):
        shutil.copy2(REPO / name, root / name)
    git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "qbank")
    return root


@pytest.fixture
def consumer(tmp_path: Path) -> Path:
    """Another team's bank: its own schema/ and one good question, in git."""
    root = tmp_path / "bank"
    shutil.copytree(REPO / "schema", root / "schema")
    target = root / GOOD.relative_to(REPO)
    target.parent.mkdir(parents=True)
    shutil.copy2(GOOD, target)
    (root / "README.md").write_text("not a question\n", encoding="utf-8")
    git(root, "init", "-q")
    git(root, "add", "-A")
    return root


def _try_repo(hook_repo: Path, consumer: Path, hook: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PRE_COMMIT_HOME": str(consumer.parent / "pre-commit-home")}
    env.pop("VIRTUAL_ENV", None)
    return subprocess.run(
        [*PRE_COMMIT, "try-repo", str(hook_repo), hook, *args],
        cwd=consumer,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_qbank_audit_hook_fails_on_a_broken_question_and_passes_a_good_one(
    hook_repo: Path, consumer: Path
) -> None:
    good = GOOD.relative_to(REPO).as_posix()
    bad = "questions/cloud/precision/cloud-202611-e000.yaml"  # a different question, so no near-duplicate
    text = (REPO / "tests/examples/valid/generated" / bad.removeprefix("questions/")).read_text(
        encoding="utf-8"
    )
    (consumer / bad).parent.mkdir(parents=True, exist_ok=True)
    (consumer / bad).write_text(text.replace("level: L", "level: L9 # was L", 1), encoding="utf-8")
    git(consumer, "add", "-A")

    passed = _try_repo(hook_repo, consumer, "qbank-audit", "--files", good)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "qbank audit (staged question files)" in passed.stdout and "Passed" in passed.stdout

    failed = _try_repo(hook_repo, consumer, "qbank-audit", "--all-files")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "Failed" in failed.stdout
    level_line = next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("level:"))
    assert f"{bad}:{level_line}:8: QB100 schema" in failed.stdout
    assert good + ":" not in failed.stdout and "README.md" not in failed.stdout


def test_qbank_audit_bank_hook_finds_duplicate_ids_across_files(hook_repo: Path, consumer: Path) -> None:
    copy = consumer / "questions" / "cloud" / "memory" / GOOD.name
    copy.parent.mkdir(parents=True)
    shutil.copy2(GOOD, copy)
    git(consumer, "add", "-A")
    failed = _try_repo(hook_repo, consumer, "qbank-audit-bank", "--all-files")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "QB200 duplicate-id" in failed.stdout


def test_qbank_audit_bank_hook_runs_when_only_evidence_changes(hook_repo: Path, consumer: Path) -> None:
    """A forged evidence record alone in a commit (issue 30): the bank hook must run and report it."""
    forged = Path("evidence/gpu/sm_90/ftz.float16.add.ptx.jsonl")
    (consumer / forged).parent.mkdir(parents=True)
    shutil.copy2(REPO / "tests/examples/invalid/evidence-record" / forged, consumer / forged)
    git(consumer, "add", "-A")
    failed = _try_repo(hook_repo, consumer, "qbank-audit-bank", "--files", forged.as_posix())
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "QB413 evidence-record" in failed.stdout


def test_the_repos_own_hooks_mirror_the_published_ones() -> None:
    """.pre-commit-config.yaml runs the published hooks from this checkout (`repo: local`), so
    they must not drift from .pre-commit-hooks.yaml or from the package's dependencies."""
    local = {
        hook["id"]: hook for repo in CONFIG["repos"] if repo["repo"] == "local" for hook in repo["hooks"]
    }
    dependencies = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "dependencies"
    ]
    for published in MANIFEST:
        mine = local[published["id"]]
        assert mine["entry"] == f"python -m {published['entry']}"
        assert mine["additional_dependencies"] == dependencies
        for key in ("name", "language", "files", "types", "pass_filenames", "require_serial"):
            assert mine.get(key) == published.get(key), key


@pytest.mark.parametrize("command", [["validate-manifest", ".pre-commit-hooks.yaml"], ["validate-config"]])
def test_pre_commit_accepts_the_manifest_and_config(command: list[str]) -> None:
    done = subprocess.run([*PRE_COMMIT, *command], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_readmes_pre_commit_config_runs_as_written(hook_repo: Path, consumer: Path) -> None:
    """README's `.pre-commit-config.yaml` snippet (issue 29, docs that run): pinned to a full commit
    SHA, naming the hooks this repository publishes, and run by the real pre-commit with only its
    placeholders filled in (the repository and the commit)."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.search(r"```yaml\n(repos:\n.*?)```", text, re.S)
    assert found is not None, "README has no pre-commit config"
    config = yaml.safe_load(found.group(1))
    (repo,) = config["repos"]
    assert re.fullmatch("[0-9a-f]{40}", repo["rev"])
    assert [hook["id"] for hook in repo["hooks"]] == [hook["id"] for hook in MANIFEST]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=hook_repo, capture_output=True, text=True)
    repo |= {"repo": str(hook_repo), "rev": head.stdout.strip()}
    (consumer / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    git(consumer, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": str(consumer.parent / "pre-commit-home")}
    env.pop("VIRTUAL_ENV", None)
    ran = subprocess.run(
        [*PRE_COMMIT, "run", "--all-files"],
        cwd=consumer,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert ran.stdout.count("Passed") == len(MANIFEST)
