from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from qbank.export import files


def test_a_new_or_empty_folder_has_no_previous_files(tmp_path: Path) -> None:
    assert files.previous_files(tmp_path / "new") == []
    (tmp_path / "empty").mkdir()
    assert files.previous_files(tmp_path / "empty") == []


@pytest.mark.parametrize("content", ["a file", "a folder with someone's files"])
def test_anything_else_is_refused(tmp_path: Path, content: str) -> None:
    out = tmp_path / "out"
    if content == "a file":
        out.write_text("x")
    else:
        out.mkdir()
        (out / "keep.txt").write_text("x")
    with pytest.raises(files.OutputError):
        files.previous_files(out)


def test_finish_removes_only_stale_files_inside_the_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    for name in ("old.html", "new.html"):
        (out / name).write_text(name)
    (tmp_path / "outside.txt").write_text("not ours")
    previous = ["old.html", "new.html", "../outside.txt", str(tmp_path / "outside.txt")]
    files.finish(out, ["new.html"], previous)
    assert sorted(p.name for p in out.iterdir()) == [files.MANIFEST, "new.html"]
    assert (tmp_path / "outside.txt").read_text() == "not ours"
    assert files.previous_files(out) == ["new.html"]


def test_write_atomic_leaves_the_old_file_when_it_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "page.html"
    files.write_atomic(target, b"old")
    assert stat.S_IMODE(target.stat().st_mode) == 0o644

    def broken(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        files.write_atomic(target, b"new")
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["page.html"]
