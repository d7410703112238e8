"""The evidence writer (qbank/gpu/evidence.py `append`): atomic, and never through a symbolic link."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from qbank import atomic
from qbank.gpu import evidence
from tests import crash
from tests.conftest import REPO, run_cli

PROBE = "ftz.float16.add.ptx"
PROBE_ARGS = ("gpu", "probe", "--backend", "cpu", "--out", "evidence/gpu", PROBE)


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    """A bank with one recorded run of PROBE on the CPU reference."""
    (tmp_path / "questions").mkdir()
    shutil.copytree(REPO / "schema", tmp_path / "schema")
    assert run_cli(*PROBE_ARGS, cwd=tmp_path).exit_code == 0
    return tmp_path


def records(bank: Path) -> int:
    found, problems = evidence.read(bank / "evidence" / "gpu")
    assert problems == []
    return len(found)


@pytest.mark.parametrize("point", crash.POINTS)
def test_a_kill_at_any_point_leaves_the_old_records_or_one_more(bank: Path, point: str) -> None:
    target = evidence.path_for(bank / "evidence" / "gpu", "cpu", PROBE)
    old = target.read_bytes()
    crash.kill_at(point, PROBE_ARGS, cwd=bank)
    now = target.read_bytes()
    if point == "committed":  # the old lines, then one whole new record
        assert now.startswith(old) and json.loads(now[len(old) :])["probe_id"] == PROBE
    else:
        assert now == old
    left = crash.leftovers(target.parent, target.name)
    assert len(left) == (point != "committed") and all(crash.hidden_temporary(name) for name in left)
    assert records(bank) == 1 + (point == "committed")  # a leftover is not read as evidence
    assert run_cli(*PROBE_ARGS, cwd=bank).exit_code == 0
    assert records(bank) == 2 + (point == "committed")


def test_a_last_line_without_its_line_break_is_ended_before_the_new_record(bank: Path) -> None:
    target = evidence.path_for(bank / "evidence" / "gpu", "cpu", PROBE)
    whole = target.read_bytes()
    target.write_bytes(whole + whole[:40])  # what an append killed mid-line used to leave
    assert run_cli(*PROBE_ARGS, cwd=bank).exit_code == 0
    found, problems = evidence.read(bank / "evidence" / "gpu")
    (problem,) = problems  # the broken line is reported, and the new record on line 3 is whole
    assert len(found) == 2 and (problem.path, problem.line) == (target, 2)
    assert problem.message.startswith("not JSON") and problem.unreadable


@pytest.mark.parametrize("link", ["evidence", "evidence/gpu/cpu"])
def test_a_linked_folder_in_the_bank_is_refused(
    bank: Path, tmp_path_factory: pytest.TempPathFactory, link: str
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    shutil.rmtree(bank / "evidence")
    (bank / link).parent.mkdir(parents=True, exist_ok=True)
    (bank / link).symlink_to(outside, target_is_directory=True)
    result = run_cli(*PROBE_ARGS, cwd=bank)
    assert result.exit_code == 2 and f"folder {link} is a symbolic link" in result.stderr
    assert list(outside.rglob("*")) == []


def test_a_linked_evidence_file_is_refused(bank: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    outside = tmp_path_factory.mktemp("outside") / "elsewhere.jsonl"
    target = evidence.path_for(bank / "evidence" / "gpu", "cpu", PROBE)
    target.rename(outside)
    target.symlink_to(outside)
    before = outside.read_bytes()
    result = run_cli(*PROBE_ARGS, cwd=bank)
    assert result.exit_code == 2 and "a symbolic link: not followed" in result.stderr
    assert outside.read_bytes() == before and target.is_symlink()


def test_outside_a_bank_the_named_folders_are_used_as_they_are(tmp_path: Path) -> None:
    """`--out` outside any bank is the user's own choice of place, links and all."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "via").symlink_to(real, target_is_directory=True)
    rec = json.loads(evidence.path_for(REPO / "evidence" / "gpu", "sm_90", PROBE).read_text().splitlines()[0])
    written = evidence.append(tmp_path / "via" / "gpu", rec)
    assert (real / "gpu" / "sm_90" / f"{PROBE}.jsonl").read_bytes() == written.read_bytes()
    written.rename(tmp_path / "moved.jsonl")
    written.symlink_to(tmp_path / "moved.jsonl")
    with pytest.raises(atomic.WriteError, match="a symbolic link: not followed"):  # the file itself still is
        evidence.append(tmp_path / "via" / "gpu", rec)


def test_only_line_feeds_end_a_record(bank: Path) -> None:
    """JSON Lines ends records at \\n; U+2028 and U+0085 are legal raw inside a JSON string, and
    str.splitlines() (which this reader once used) would have cut the record there."""
    target = evidence.path_for(bank / "evidence" / "gpu", "cpu", PROBE)
    rec = json.loads(target.read_text(encoding="utf-8").splitlines()[0])
    rec["device"]["name"] = "CPU\u2028reference\x85"
    target.write_text(json.dumps(rec, ensure_ascii=False) + "\r\n", encoding="utf-8")
    found, problems = evidence.read(bank / "evidence" / "gpu")
    assert problems == [] and [entry.record for entry in found] == [rec]
