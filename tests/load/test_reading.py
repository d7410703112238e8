"""Safe file reading and the listing of a folder (qbank/load/reading.py)."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from qbank import load


def test_file_too_large_is_not_read_whole(tmp_path) -> None:  # type: ignore[no-untyped-def]
    big = tmp_path / "big.yaml"
    big.write_bytes(b"a: '" + b"x" * (load.MAX_BYTES + 10) + b"'\n")
    assert load.from_path(big).name == "file-too-large"  # type: ignore[union-attr]


def test_unreadable_and_missing_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert load.from_path(tmp_path / "gone.yaml").name == "unreadable-file"  # type: ignore[union-attr]
    assert load.from_path(tmp_path).name == "unreadable-file"  # type: ignore[union-attr]  # a directory


def test_iter_yaml_files_lists_what_it_does_not_enter(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Folders named *.yaml and links to folders are listed too (the engine reports them), and the
    files inside a folder named *.yaml are still found; nothing is passed over without a word."""
    (tmp_path / "dir.yaml").mkdir()
    (tmp_path / "dir.yaml" / "inner.yaml").write_text("a: 1\n")
    (tmp_path / "b.yml").write_text("a: 1\n")
    (tmp_path / "a.yaml").write_text("a: 1\n")
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "c.yaml").write_text("a: 1\n")
    (tmp_path / "linked").symlink_to(tmp_path / "other")
    found = sorted(p.relative_to(tmp_path).as_posix() for p in load.iter_yaml_files(tmp_path))
    assert found == ["a.yaml", "b.yml", "dir.yaml", "dir.yaml/inner.yaml", "linked", "other/c.yaml"]


@pytest.mark.parametrize("counted", [0, 5])
def test_a_file_longer_than_fstat_said_is_read_to_its_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, counted: int
) -> None:
    """The read asks for the size fstat gave and one byte more; a file that grew after the fstat
    (or one whose size the file system does not report) is read on to its end."""
    body = b"a: " + b"x" * 200_000 + b"\n"
    (tmp_path / "q.yaml").write_bytes(body)
    real = os.fstat

    def fstat(fd: int) -> os.stat_result:
        status = list(real(fd))
        status[stat.ST_SIZE] = counted
        return os.stat_result(status)

    monkeypatch.setattr(os, "fstat", fstat)
    assert load.read(tmp_path / "q.yaml", "q.yaml") == body
    assert load.read(tmp_path / "q.yaml", "q.yaml") == body  # a second time: nothing kept
