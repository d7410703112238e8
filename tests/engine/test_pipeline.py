"""Audit scopes: a few files (pre-commit), --bank-only (repo-wide rules), --changed-since (PRs)."""

from __future__ import annotations

import multiprocessing
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REPO, audit_json, git, run_cli

from qbank import engine, load
from qbank.checks import similar

GOOD = REPO / "questions" / "cloud" / "compute" / "cloud-202611-1c4d.yaml"  # no verify: block
OTHER = REPO / "questions" / "edge" / "precision" / "edge-202611-480e.yaml"


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    """A bank with two good questions, a broken file and a copy of one id in another folder."""
    shutil.copytree(REPO / "schema", tmp_path / "schema")
    for question in (GOOD, OTHER):
        target = tmp_path / question.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(question, target)
    broken = tmp_path / "questions" / "cloud" / "compute" / "cloud-202611-0bad.yaml"
    broken.write_text("id: [unclosed\n", encoding="utf-8")
    twin = tmp_path / "questions" / "cloud" / "memory" / GOOD.name
    twin.parent.mkdir(parents=True)
    shutil.copy2(GOOD, twin)
    return tmp_path


def _loads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record every file read."""
    seen: list[str] = []
    real = load.read

    def counting(path: object, shown: str) -> object:
        seen.append(Path(str(path)).name)
        return real(path, shown)  # type: ignore[arg-type]

    monkeypatch.setattr(load, "read", counting)
    return seen


def test_auditing_one_file_reads_only_that_file(bank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _loads(monkeypatch)
    code, report = audit_json(str(GOOD.relative_to(REPO)), cwd=bank)
    assert seen == [GOOD.name]
    assert (code, report["findings"], report["summary"]["files"]) == (0, [], 1)


def test_bank_only_runs_just_the_repo_wide_rules_over_every_file(bank: Path) -> None:
    code, report = audit_json("--bank-only", cwd=bank)
    found = sorted((f["name"], f["path"]) for f in report["findings"])
    assert code == 1
    assert found == [
        ("duplicate-content", "questions/cloud/compute/cloud-202611-1c4d.yaml"),  # a copy asks the same
        ("duplicate-content", "questions/cloud/memory/cloud-202611-1c4d.yaml"),
        ("duplicate-id", "questions/cloud/compute/cloud-202611-1c4d.yaml"),
        ("duplicate-id", "questions/cloud/memory/cloud-202611-1c4d.yaml"),
        ("near-duplicate", "questions/cloud/compute/cloud-202611-1c4d.yaml"),  # a copy reads the same
        ("near-duplicate", "questions/cloud/memory/cloud-202611-1c4d.yaml"),
        ("yaml-syntax", "questions/cloud/compute/cloud-202611-0bad.yaml"),  # unreadable: fail closed
    ]
    summary = run_cli("audit", "--bank-only", cwd=bank).stdout.splitlines()[-3]
    files = report["summary"]["bank_files"]
    errors, warnings = report["summary"]["errors"], report["summary"]["warnings"]
    assert summary == f"{files} files read for the repo-wide rules only: {errors} errors, {warnings} warnings"
    assert report["summary"]["files"] == 0 and report["summary"]["bank_files"] == 4


def test_changed_since_checks_changed_files_and_the_whole_bank_for_repo_wide_rules(bank: Path) -> None:
    git(bank, "init", "-q")
    git(bank, "add", "-A")
    git(bank, "commit", "-qm", "base")
    git(bank, "branch", "base")
    edited = bank / OTHER.relative_to(REPO)
    edited.write_text(
        edited.read_text(encoding="utf-8").replace("level: L", "level: L9 #", 1), encoding="utf-8"
    )
    new = bank / "questions" / "global" / "precision" / "global-202611-0001.yaml"
    new.parent.mkdir(parents=True)
    new.write_text("title: [\n", encoding="utf-8")  # untracked, never committed
    code, report = audit_json("--changed-since", "base", cwd=bank)
    found = sorted((f["name"], Path(f["path"]).name) for f in report["findings"])
    assert code == 1
    assert found == [
        ("duplicate-content", GOOD.name),  # repo-wide: both copies, though neither changed
        ("duplicate-content", GOOD.name),
        ("duplicate-id", GOOD.name),
        ("duplicate-id", GOOD.name),
        ("near-duplicate", GOOD.name),  # repo-wide too: a copy reads the same
        ("near-duplicate", GOOD.name),
        ("schema", OTHER.name),  # per-file: the edited file
        ("yaml-syntax", "cloud-202611-0bad.yaml"),  # unchanged but unreadable for repo-wide rules
        ("yaml-syntax", new.name),  # per-file: the untracked file
    ]
    assert report["summary"]["files"] == 2 and report["summary"]["bank_files"] == 3


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("--changed-since", "no-such-ref"), "unknown git ref 'no-such-ref'"),
        (("--changed-since", "--help"), "not a git ref"),
        (("--changed-since", "HEAD", "--bank-only"), "do not go together"),
    ],
)
def test_changed_since_refuses_bad_refs_with_a_usage_error(
    bank: Path, args: tuple[str, ...], message: str
) -> None:
    git(bank, "init", "-q")
    git(bank, "add", "-A")
    git(bank, "commit", "-qm", "base")
    result = run_cli("audit", *args, cwd=bank)
    assert result.exit_code == 2
    assert message in result.stderr


def test_changed_since_outside_git_is_a_usage_error(bank: Path) -> None:
    result = run_cli("audit", "--changed-since", "HEAD", cwd=bank)
    assert result.exit_code == 2 and "not inside a git work tree" in result.stderr


def test_one_file_audit_imports_no_heavy_optional_parts(bank: Path) -> None:
    """A pre-commit run on one question without verify: claims never imports numpy, ml_dtypes
    or ruamel.yaml (a numpy import alone costs more than the whole audit), nor the exports'
    Jinja2, markdown-it and genanki."""
    script = (
        "import sys; from qbank.cli import main\n"
        "try: main(['audit', sys.argv[1]])\n"
        "except SystemExit as e: code = e.code\n"
        "optional = ('numpy', 'ml_dtypes', 'ruamel', 'sympy', 'jinja2', 'markdown_it', 'genanki', 'qbank.export')\n"
        "heavy = sorted(m for m in optional if m in sys.modules)\n"
        "print('HEAVY', heavy, code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, str(GOOD.relative_to(REPO))], cwd=bank, capture_output=True, text=True
    )
    assert done.stdout.splitlines()[-1] == "HEAVY [] 0", done.stdout + done.stderr


def test_files_are_listed_once_in_the_order_of_their_parts() -> None:
    """engine.targets.sort_files orders by text with the separator lowest; it must agree with Path's own order
    (by parts) on names made of what sorts around "/": `-`, `.`, spaces, capitals, accents."""
    rng = random.Random(3)
    pieces = ["a", "b", "-", ".", "_", "a-b", "z", "A", "é", "0", " "]
    for _ in range(2000):
        paths = [
            Path(
                "/r/"
                + "/".join(
                    "".join(rng.choices(pieces, k=rng.randint(1, 3))) for _ in range(rng.randint(1, 3))
                )
            )
            for _ in range(8)
        ]
        assert engine.targets.sort_files(paths + paths[:2]) == sorted(set(paths), key=lambda f: f.parts)


@pytest.mark.parametrize(
    ("jobs", "workers"), [(0, 2), (1, 2), (15, 2), (16, 2), (10_000, 2), (10_000, 16), (333, 3)]
)
def test_chunks_cover_every_job_once_in_order_and_shrink(jobs: int, workers: int) -> None:
    chunks = engine.runner.chunks(jobs, workers)
    assert [i for chunk in chunks for i in chunk] == list(range(jobs))
    sizes = [len(chunk) for chunk in chunks]
    assert sizes == sorted(sizes, reverse=True)  # large first, small last: no long wait at the end
    assert all(size >= engine.runner.MIN_CHUNK for size in sizes[:-1])
    if jobs >= 10_000:
        assert sizes[-2] == engine.runner.MIN_CHUNK and sizes[0] == jobs // (workers * 4)


def test_workers_spawned_rather_than_forked_report_the_same(
    bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Where there is no fork (Windows, and macOS by default), workers are spawned and given the jobs
    by pickling: the same report as forked ones."""
    forked = engine.audit(engine.Settings(jobs=2), bank)
    monkeypatch.setattr("multiprocessing.get_all_start_methods", lambda: ["spawn"])
    methods = []
    real = multiprocessing.get_context
    monkeypatch.setattr("multiprocessing.get_context", lambda method: methods.append(method) or real(method))
    spawned = engine.audit(engine.Settings(jobs=2), bank)
    assert methods == ["spawn"]
    assert (spawned.findings, spawned.summary) == (forked.findings, forked.summary)
    assert forked.summary.files > 1


def test_jobs_one_keeps_the_near_duplicate_search_in_one_process(
    bank: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked = []
    search = similar.near_duplicates
    monkeypatch.setattr(similar, "near_duplicates", lambda *args: asked.append(args[2]) or search(*args))
    monkeypatch.setattr(engine.pipeline, "cpus", lambda: 2)
    for jobs in (1, 0, 3):
        engine.audit(engine.Settings(jobs=jobs), bank)
    two = engine.runner.in_two_processes
    assert asked == [None, two, two]  # --jobs 1 keeps one process; else --jobs, or one per CPU
