"""`qbank fix` against files whose content a careless writer would lose.

Attacks: trailing spaces that are part of a block scalar's value (a Markdown hard break, a tab, a
whitespace-only line of a literal block) stripped as if they were litter; a file whose lines end in
CR or NEL given an LF at the end (mixed line endings); a read-only file replaced; a hard link split
(the other name keeps the old text).
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

import pytest

from qbank import fix, load
from tests.conftest import REPO

PRECISION = Path("questions/cloud/precision")
NAME = "cloud-202611-5e7a.yaml"
ORIGINAL = (REPO / PRECISION / NAME).read_text(encoding="utf-8")
HARD_BREAK = "    **Assumptions & Constraints:**\n"


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "schema", tmp_path / "schema")
    (tmp_path / PRECISION).mkdir(parents=True)
    return tmp_path


def _put(bank: Path, text: str) -> Path:
    path = bank / PRECISION / NAME
    path.write_bytes(text.encode("utf-8"))
    return path


def _fix(bank: Path) -> fix.FileFix:
    (result,) = fix.fix_paths([bank / PRECISION], bank, check=False)
    return result


def test_trailing_spaces_inside_a_block_scalar_are_kept(bank: Path) -> None:
    assert ORIGINAL.count(HARD_BREAK) == 1
    content = ORIGINAL.replace(HARD_BREAK, "    **Assumptions & Constraints:**  \n    \t\n      \n")
    content = content.replace("phase: training\n", "phase: training   \n")  # litter: to be fixed
    path = _put(bank, content)
    before = load.from_bytes(path.read_bytes(), NAME)
    result = _fix(bank)
    assert result.written and result.changes == ("trailing whitespace on 1 line",)
    assert any("kept on 3 lines inside block scalars" in note for note in result.notes)
    after = load.from_bytes(path.read_bytes(), NAME)
    assert isinstance(before, load.Document) and isinstance(after, load.Document)
    assert after.data == before.data  # the hard break, the tab and the blank line survive
    assert path.read_text(encoding="utf-8") == content.replace("phase: training   \n", "phase: training\n")


@pytest.mark.parametrize("ending", ["\r", "\x85", "\r\n"])
def test_the_file_keeps_its_line_endings(bank: Path, ending: str) -> None:
    lines = ORIGINAL.replace("phase: training\n", "phase: training  \n").rstrip("\n").split("\n")
    path = _put(bank, ending.join(lines))  # and no final line break
    result = _fix(bank)
    assert "missing newline at end of file added" in result.changes and result.written
    written = path.read_bytes().decode("utf-8")  # read_text would translate CR to LF
    assert written == ending.join(lines).replace("phase: training  ", "phase: training") + ending
    assert written.count(ending) == len(lines)  # one convention: no LF added beside CR or NEL


def test_a_read_only_file_is_left_alone(bank: Path) -> None:
    path = _put(bank, ORIGINAL.replace("phase: training\n", "phase: training  \n"))
    path.chmod(0o444)
    result = _fix(bank)
    assert not result.written and result.skipped and "read-only" in result.skipped
    assert path.read_text(encoding="utf-8").count("phase: training  \n") == 1
    assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_hard_link_is_not_split(bank: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    path = _put(bank, ORIGINAL.replace("phase: training\n", "phase: training  \n"))
    other = tmp_path_factory.mktemp("elsewhere") / "kept.yaml"
    os.link(path, other)
    result = _fix(bank)
    assert not result.written and result.skipped and "hard links" in result.skipped
    assert os.path.samefile(path, other)  # still one file under two names
