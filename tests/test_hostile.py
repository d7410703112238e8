"""Hostile and broken input: every class gives its error finding, and the rest of the bank is audited.

tests/examples/hostile/<class>/ holds one file a pull request could contain (see its README.md), and
expect.txt the findings it must give: `CODE@LINE:COL name`. The classes that git cannot hold (a 12 MB
scalar, a FIFO, links out of the bank, an unreadable file, a file deleted during the run) are made
here, in DYNAMIC. Each class is audited in a bank of its own beside a canary: a file with a known
error, which must still be reported. Then the whole corpus goes through the real CLI in a fresh
process: exit 1, no traceback, no terminal escapes or bidirectional controls in its output.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from qbank import engine
from tests.conftest import EXAMPLES, REPO

pytestmark = pytest.mark.usefixtures("hang_guard")

HOSTILE = EXAMPLES / "hostile"
CLASSES = sorted(p.name for p in HOSTILE.iterdir() if p.is_dir())
FOLDER = Path("questions/cloud/precision")
CANARY = FOLDER / "cloud-202611-c000.yaml"
PWNED = Path("/tmp/qbank-pwned")  # what the python-tag and code-injection classes try to create
Expected = set[tuple[str, str, int, int]]  # (path in the bank, code, line, column)


def _bank(tmp: Path) -> Path:
    """This repository's schema, and the canary: a good question with a lower-case title."""
    shutil.copytree(REPO / "schema", tmp / "schema")
    (tmp / FOLDER).mkdir(parents=True)
    good = (EXAMPLES / "valid/title-case/cloud/precision/cloud-202611-e000.yaml").read_text(encoding="utf-8")
    words = {  # other words than the classes' files, which would otherwise read as its near-duplicates
        "id: cloud-202611-e000": f"id: {CANARY.stem}",
        "title: The FP16 Gradient Underflow on a V100 with vLLM and PyTorch": "title: the Canary of INT8 Kernels",
        "scenario: A BF16": "scenario: Nobody changed the model, yet an INT8 server on A100 cards returns noise. A BF16",
        "question: Why": "question: Which quick check finds the broken kernel first, and why",
    }
    canary = good
    for old, new in words.items():
        canary = canary.replace(old, new)
    (tmp / CANARY).write_text(canary, encoding="utf-8")
    return tmp


CANARY_FINDING = (CANARY.as_posix(), "QB111", 10, 8)  # title-case, at the title's value


def _expected(folder: Path, prefix: str) -> Expected:
    """A class's expect.txt, its paths as the bank shows them."""
    (file,) = [p for p in folder.rglob("*") if p.is_file() and p.name != "expect.txt"]
    where = f"{prefix}{file.relative_to(folder / 'cloud' / 'precision').as_posix()}"
    lines = (folder / "expect.txt").read_text(encoding="utf-8").split("\n")
    found = set()
    for line in filter(None, lines):
        code, _, place = line.split()[0].partition("@")
        row, column = place.split(":")
        found.add((where, code, int(row), int(column)))
    return found


def _audit(bank: Path) -> tuple[engine.Report, Expected]:
    report = engine.audit(engine.Settings(cache=False), bank)
    return report, {(f.path, f.code, f.line, f.column) for f in report.findings}


@pytest.fixture(autouse=True)
def _nothing_runs() -> Iterator[None]:
    PWNED.unlink(missing_ok=True)
    yield
    assert not PWNED.exists(), "a question file ran a command"


@pytest.mark.parametrize("name", CLASSES)
def test_each_class_gives_its_finding_and_the_rest_is_audited(name: str, tmp_path: Path) -> None:
    bank = _bank(tmp_path)
    folder = HOSTILE / name
    for file in (folder / "cloud" / "precision").iterdir():
        shutil.copyfile(file, bank / FOLDER / file.name)
    expected = _expected(folder, f"{FOLDER.as_posix()}/")
    report, found = _audit(bank)
    assert found - {CANARY_FINDING} == expected
    assert CANARY_FINDING in found
    assert report.summary.errors >= 2  # the class's error and the canary's


def test_every_class_expects_an_error_with_a_position() -> None:
    """No class passes by expecting nothing, and each expectation names an error rule."""
    from qbank.catalog import all_rules

    errors = {r.code for r in all_rules() if r.severity.value == "error"}
    for name in CLASSES:
        expected = _expected(HOSTILE / name, "")
        assert expected, name
        assert {code for _, code, _, _ in expected} & errors, name
        assert all(line >= 1 and column >= 1 for _, _, line, column in expected)
    assert len(CLASSES) + len(DYNAMIC) >= 30


# --- classes made at run time ------------------------------------------------------------------

Maker = Callable[[Path, pytest.MonkeyPatch], tuple[str, str]]  # -> (file as the bank shows it, code)
SECRET = "qbank-secret-3f1e"  # in a file outside the bank: it must never reach the output


def _huge_scalar(bank: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    target = bank / FOLDER / "cloud-202611-d001.yaml"
    target.write_bytes(b"title: " + b"x" * (12 * 1024 * 1024) + b"\n")
    return target.relative_to(bank).as_posix(), "QB009"


def _fifo(bank: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    target = bank / FOLDER / "cloud-202611-d002.yaml"
    os.mkfifo(target)  # opening it for reading would wait for a writer forever
    return target.relative_to(bank).as_posix(), "QB010"


def _socket(bank: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    target = bank / FOLDER / "cloud-202611-d003.yaml"
    server, here = socket.socket(socket.AF_UNIX), os.getcwd()
    os.chdir(target.parent)  # bound by name: a socket's path is limited to 108 bytes
    try:
        server.bind(target.name)  # open() fails on it, even for root
    finally:
        os.chdir(here)
        server.close()
    return target.relative_to(bank).as_posix(), "QB010"


def _link_outside(bank: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    outside = bank.parent / f"{bank.name}-outside.yaml"
    outside.write_text(f"{SECRET}: x\n", encoding="utf-8")  # read, it would show in an unknown-key message
    target = bank / FOLDER / "cloud-202611-d004.yaml"
    target.symlink_to(outside)
    return target.relative_to(bank).as_posix(), "QB010"


def _link_loop(bank: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    first, second = bank / FOLDER / "cloud-202611-d005.yaml", bank / FOLDER / "loop.txt"
    first.symlink_to(second)
    second.symlink_to(first)
    return first.relative_to(bank).as_posix(), "QB010"


def _link_to_folder(bank: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    target = bank / "questions" / "cloud" / "linked"
    target.symlink_to(bank / FOLDER)  # not followed: its files would be audited twice, or escape
    return target.relative_to(bank).as_posix(), "QB010"


def _folder_named_yaml(bank: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    target = bank / FOLDER / "cloud-202611-d006.yaml"
    target.mkdir()
    return target.relative_to(bank).as_posix(), "QB010"


def _unreadable(bank: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """Mode 000. Root reads any file whatever its mode, so as root the open is made to fail as it
    would for anyone else (EACCES), which is what the audit must then report."""
    target = bank / FOLDER / "cloud-202611-d007.yaml"
    shutil.copyfile(bank / CANARY, target)
    target.chmod(0)
    if os.geteuid() == 0:
        real = os.open

        def denied(path: object, *args: object, **kwargs: object) -> int:
            if os.fspath(path) == str(target):  # type: ignore[arg-type]
                raise PermissionError(13, "Permission denied", str(target))
            return real(path, *args, **kwargs)  # type: ignore[arg-type]

        monkeypatch.setattr(os, "open", denied)
    return target.relative_to(bank).as_posix(), "QB010"


def _deleted_during_the_run(bank: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """Listed, then removed before it is read (another process, a branch switch)."""
    target = bank / FOLDER / "cloud-202611-d008.yaml"
    shutil.copyfile(bank / CANARY, target)
    listed = engine.targets.sort_files

    def list_then_delete(files: Iterator[Path]) -> list[Path]:
        chosen = listed(files)
        target.unlink(missing_ok=True)
        return chosen

    monkeypatch.setattr(engine.targets, "sort_files", list_then_delete)
    return target.relative_to(bank).as_posix(), "QB010"


DYNAMIC: dict[str, Maker] = {
    "12-mb-scalar": _huge_scalar,
    "fifo-named-yaml": _fifo,
    "socket-named-yaml": _socket,
    "link-outside-the-bank": _link_outside,
    "link-loop": _link_loop,
    "link-to-a-folder": _link_to_folder,
    "folder-named-yaml": _folder_named_yaml,
    "unreadable-file": _unreadable,
    "deleted-during-the-run": _deleted_during_the_run,
}


@pytest.mark.parametrize("name", DYNAMIC)
@pytest.mark.parametrize("cache", [False, True])
def test_each_run_time_class_gives_its_finding(
    name: str, cache: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With and without the cache: the two read files by different paths (engine.pipeline._read)."""
    bank = _bank(tmp_path / "bank")
    where, code = DYNAMIC[name](bank, monkeypatch)
    report = engine.audit(engine.Settings(cache=cache), bank)
    found = {(f.path, f.code, f.line, f.column) for f in report.findings}
    assert (where, code, 1, 1) in found
    assert CANARY_FINDING in found
    assert found <= {(where, code, 1, 1), CANARY_FINDING}
    assert SECRET not in repr(report.findings)


def test_links_inside_the_bank_are_followed(tmp_path: Path) -> None:
    bank = _bank(tmp_path)
    (bank / FOLDER / "cloud-202611-c001.yaml").symlink_to(bank / CANARY)
    found = {(f.path, f.code) for f in engine.audit(engine.Settings(cache=False), bank).findings}
    assert (f"{FOLDER.as_posix()}/cloud-202611-c001.yaml", "QB201") in found  # read: its id differs


# --- the whole corpus through the real CLI ------------------------------------------------------


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every static class in one bank, plus the run-time classes that need no patching."""
    bank = _bank(tmp_path_factory.mktemp("corpus"))
    for name in CLASSES:
        for file in (HOSTILE / name / "cloud" / "precision").iterdir():
            shutil.copyfile(file, bank / FOLDER / file.name)
    with pytest.MonkeyPatch.context() as patch:
        for name in (
            "12-mb-scalar",
            "fifo-named-yaml",
            "link-outside-the-bank",
            "link-loop",
            "folder-named-yaml",
        ):
            DYNAMIC[name](bank, patch)
    return bank


@pytest.mark.parametrize("output", ["json", "text", "github", "sarif"])
def test_the_cli_exits_1_without_a_traceback(corpus: Path, output: str) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "qbank", "audit", "--format", output],
        cwd=corpus,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    for hidden in ("\x1b", "\u202e", "\u2067", "\x00"):  # a finding quotes the text, never these
        assert hidden not in done.stdout
    assert SECRET not in done.stdout
    if output == "json":
        report = json.loads(done.stdout)
        paths = {f["path"] for f in report["findings"] if f["severity"] == "error"}
        assert len(paths) >= len(CLASSES) + 5  # each class's file and the canary
        assert all(f["line"] >= 1 and f["column"] >= 1 for f in report["findings"])


def test_a_fifo_in_place_of_the_taxonomy_is_a_finding_not_a_hang(tmp_path: Path) -> None:
    bank = _bank(tmp_path)
    (bank / "schema" / "taxonomy.yaml").unlink()
    os.mkfifo(bank / "schema" / "taxonomy.yaml")  # reading it would wait for a writer forever
    report, found = _audit(bank)
    assert ("schema/taxonomy.yaml", "QB300", 1, 1) in found, report.findings
    # the hang guard's TimeoutError is an OSError too: the finding must say why, not that it hung
    assert any("not a regular file" in f.message for f in report.findings if f.code == "QB300")
