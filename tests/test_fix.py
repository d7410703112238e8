"""`qbank fix` (qbank/fix.py): splice-and-verify fixes that change only the bytes they fix."""

from __future__ import annotations

import ast
import os
import re
import shutil
import stat
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import crash
import pytest
from conftest import REPO, audit_json, run_cli

from qbank import engine, fix, load, rules
from qbank.engine import UsageError
from qbank.model.fields import text

PRECISION = Path("questions") / "cloud" / "precision"
NAME = "cloud-202611-5e7a.yaml"
OTHER = "cloud-202611-028e.yaml"
ORIGINAL = (REPO / PRECISION / NAME).read_text(encoding="utf-8")
TITLE = "FP16 Gradient Underflow After Porting a BF16 Recipe to V100"


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    """An empty bank: questions/cloud/precision/ and a copy of the repo's schema files."""
    (tmp_path / PRECISION).mkdir(parents=True)
    (tmp_path / "schema").mkdir()
    for file in (REPO / "schema").glob("*.yaml"):
        shutil.copy(file, tmp_path / "schema" / file.name)
    return tmp_path


def put(bank: Path, content: str, name: str = NAME) -> Path:
    path = bank / PRECISION / name
    path.write_bytes(content.encode("utf-8"))  # bytes: keep `\r\n` exactly as given
    return path


def damaged(*pairs: tuple[str, str]) -> str:
    return _replaced_once(ORIGINAL, pairs)


def _replaced_once(content: str, pairs: tuple[tuple[str, str], ...]) -> str:
    """`content` with each `old` (which must occur exactly once) replaced by `new`."""
    for old, new in pairs:
        assert content.count(old) == 1, old
        content = content.replace(old, new)
    return content


def run(bank: Path, *paths: Path, check: bool = False) -> list[fix.FileFix]:
    return fix.fix_paths(list(paths), bank, check)


def only(results: list[fix.FileFix]) -> fix.FileFix:
    (result,) = results
    return result


def rule_names(bank: Path, path: Path) -> list[str]:
    report = engine.audit(engine.Settings(paths=(path,)), bank)
    return [finding.name for finding in report.findings]


def folder_listing(path: Path) -> list[str]:
    return sorted(os.listdir(path.parent))


# --- each fix ---------------------------------------------------------------------------------


def test_a_clean_copy_needs_nothing(bank: Path) -> None:
    path = put(bank, ORIGINAL)
    assert rule_names(bank, path) == []
    assert run(bank, path) == [fix.FileFix(f"{PRECISION.as_posix()}/{NAME}", ())]


def test_marker_near_misses_are_fixed(bank: Path) -> None:
    path = put(
        bank,
        damaged(
            ("**Calculations:**", "**Calculation:**"),
            ("**The Pitfall:**", "**the pitfall**:"),
        ),
    )
    assert set(rule_names(bank, path)) == {"napkin-math-markers", "common-mistake-markers"}
    result = only(run(bank, path))
    assert result.written and result.skipped is None
    assert result.changes == (
        "marker '**Calculation:**' -> '**Calculations:**' in details.napkin_math",
        "marker '**the pitfall**:' -> '**The Pitfall:**' in details.common_mistake",
    )
    assert path.read_text(encoding="utf-8") == ORIGINAL
    assert rule_names(bank, path) == []


def test_title_case_is_fixed(bank: Path) -> None:
    bad = "fp16 gradient Underflow after Porting A BF16 Recipe To v100 from Scratch"
    path = put(bank, damaged((f"title: {TITLE}", f"title: {bad}")))
    assert "title-case" in rule_names(bank, path)
    result = only(run(bank, path))
    # "from" is either case mid-title; "v100" has a digit and is not a listed spelling: both stay.
    fixed = "FP16 Gradient Underflow After Porting a BF16 Recipe to v100 from Scratch"
    assert result.changes == (f"title {bad!r} -> {fixed!r}",)
    assert any("'v100'" in note for note in result.notes)
    assert f"title: {fixed}\n" in path.read_text(encoding="utf-8")
    assert rule_names(bank, path) == ["title-case"]  # only v100 -> V100 is left for a person


def test_trailing_whitespace_is_removed_outside_block_scalars(bank: Path) -> None:
    inside = (
        ("- Loss scale: 2^16 = 65536.\n", "- Loss scale: 2^16 = 65536.   \n"),  # inside a `|` block
        ("    **Calculations:**\n", "    **Calculations:**\t\n"),
    )
    path = put(
        bank, damaged(("level: L3\n", "level: L3 \t \n"), ("  date: null\n", "  date: null  \n"), *inside)
    )
    result = only(run(bank, path))
    assert result.changes == ("trailing whitespace on 2 lines",)
    assert result.notes == (
        "trailing whitespace kept on 2 lines inside block scalars (`|`, `>`), where it can be part of the value",
    )
    assert path.read_text(encoding="utf-8") == damaged(*inside)  # a block scalar's spaces are its value


def test_final_newline_is_added_and_extra_blank_lines_removed(bank: Path) -> None:
    path = put(bank, ORIGINAL.rstrip("\n"))
    assert only(run(bank, path)).changes == ("missing newline at end of file added",)
    assert path.read_text(encoding="utf-8") == ORIGINAL
    put(bank, ORIGINAL + "\n  \n\n")
    assert only(run(bank, path)).changes == (
        "trailing whitespace on 1 line",
        "3 blank lines at end of file removed",
    )
    assert path.read_text(encoding="utf-8") == ORIGINAL


def test_crlf_line_endings_are_kept(bank: Path) -> None:
    crlf = ORIGINAL.replace("\n", "\r\n")
    path = put(bank, damaged(("level: L3\n", "level: L3  \n")).replace("\n", "\r\n").removesuffix("\r\n"))
    result = only(run(bank, path))
    assert result.changes == ("trailing whitespace on 1 line", "missing newline at end of file added")
    assert path.read_bytes() == crlf.encode("utf-8")


def test_tombstones_get_only_the_whitespace_fix(bank: Path) -> None:
    path = put(
        bank,
        damaged(
            ("status: published\n", "status: deleted  \n"),
            (f"title: {TITLE}", "title: the fp16 gradient"),
            ("**Calculations:**", "**Calculation:**"),
        ),
    )
    result = only(run(bank, path))
    assert result.changes == ("trailing whitespace on 1 line",)
    content = path.read_text(encoding="utf-8")
    assert "title: the fp16 gradient\n" in content and "**Calculation:**" in content


def test_unusable_schema_skips_only_the_title(bank: Path) -> None:
    (bank / "schema" / "title-words.yaml").unlink()
    path = put(
        bank, damaged((f"title: {TITLE}", "title: the FP16 Gradient"), ("level: L3\n", "level: L3 \n"))
    )
    result = only(run(bank, path))
    assert result.changes == ("trailing whitespace on 1 line",)
    assert len(result.notes) == 1 and result.notes[0].startswith("title case not fixed: bank schema unusable")
    assert "title: the FP16 Gradient\n" in path.read_text(encoding="utf-8")


# --- bytes that are not fixed stay as written -------------------------------------------------

STYLED = """\
# A question kept by hand: these comments must survive a fix.
schema_version: '1.0'
id: cloud-202611-5e7a  # inline comment after a value
track: "cloud"
level: L3
zone: diagnosis
topic: mixed-precision-training
competency_area: precision
bloom_level: analyze
phase: training
title: 'The FP16 Gradient Dance'
scenario: >-
  A fine-tuning recipe for a 1.3B-parameter transformer was developed with BF16 autocast on A100s
  and moved to V100s.
question: "Why did the loss stall after the BF16-to-FP16 switch?"
details:
  # a comment inside a mapping
  realistic_solution: >-
    The gradients underflowed; add dynamic loss scaling.
  common_mistake: |
    **The Pitfall:** Reading zero gradients as convergence.
    **The Rationale:** The same recipe trained fine in BF16.
    **The Consequence:** Days of sweeps.
  napkin_math: |
    **Assumptions:**
    - Typical gradient 2e-8; smallest FP16 subnormal 5.96e-8.
    **Calculations:**
    - 2e-8 * 65536 = 1.31072e-3
    **Conclusion:**
    - Scaled, it is a normal number.
status: published
provenance: human
requires_explanation: false
expected_time_minutes: 6
human_reviewed:
  status: not-reviewed
  by: null
  date:
  notes: ~
# a comment at the end
"""


def styled(*pairs: tuple[str, str]) -> str:
    return _replaced_once(STYLED, pairs)


def test_only_the_fixed_spans_change(bank: Path) -> None:
    path = put(
        bank,
        styled(
            ("'The FP16 Gradient Dance'", "'the fp16 gradient Dance'"),
            ("    **Calculations:**", "    **calculations:**"),
            ("to V100s.\n", "to V100s.  \n"),  # in a folded scalar
            ("5.96e-8.\n", "5.96e-8.\t\n"),  # in a literal block
            ("  # a comment inside a mapping\n", "  # a comment inside a mapping \n"),
            ("# a comment at the end\n", "# a comment at the end"),
        ),
    )
    result = only(run(bank, path))
    assert result.written
    assert result.notes == (
        "trailing whitespace kept on 2 lines inside block scalars (`|`, `>`), where it can be part of the value",
    )
    assert path.read_text(encoding="utf-8") == styled(
        ("to V100s.\n", "to V100s.  \n"), ("5.96e-8.\n", "5.96e-8.\t\n")
    )
    assert result.changes == (
        "marker '**calculations:**' -> '**Calculations:**' in details.napkin_math",
        "title 'the fp16 gradient Dance' -> 'The FP16 Gradient Dance'",
        "trailing whitespace on 1 line",
        "missing newline at end of file added",
    )


COMMENTED = """\
# yaml-language-server: $schema=../../../schema/question.schema.json
# A comment at the top, then a blank line.

schema_version: '1.0'  # after a quoted value
id: cloud-202611-5e7a
# between two keys
track: cloud
level: L3 # after a plain value, one space
zone: diagnosis
topic: mixed-precision-training
competency_area: precision
bloom_level: analyze
phase: training
title: The FP16 Gradient Dance  # after the title that is fixed
scenario: >-  # after a folded indicator
  A fine-tuning recipe for a 1.3B-parameter transformer was developed with BF16 autocast on A100s
  and moved to V100s. # not a comment: inside the folded text
question: "Why did the loss stall after the BF16-to-FP16 switch?"
#  before a mapping, with two spaces
details:
  # first in a mapping
  realistic_solution: >-
    The gradients underflowed; add dynamic loss scaling.
  # between two block scalars
  common_mistake: |  # after a literal indicator
    **The Pitfall:** Reading zero gradients as convergence.
    **The Rationale:** The same recipe trained fine in BF16.
    **The Consequence:** Days of sweeps.
    # not a comment: a line of the literal block
  # right after a block scalar
  napkin_math: |
    **Assumptions:**
    - Typical gradient 2e-8; smallest FP16 subnormal 5.96e-8.
    **Calculations:**
    - 2e-8 * 65536 = 1.31072e-3
    **Conclusion:**
    - Scaled, it is a normal number.

  # after a blank line that ends a block scalar
status: published
provenance: human
tags:
  # inside a list
  - fp16  # after a list item
  - loss-scaling
requires_explanation: false
expected_time_minutes: 6
human_reviewed:
  status: not-reviewed  # inside a nested mapping
  by: null
  # before an empty value
  date:
  notes: ~  # after a tilde
#no space after the hash
# a comment at the end
"""


def test_comments_everywhere_are_kept_byte_for_byte(bank: Path) -> None:
    path = put(
        bank,
        _replaced_once(
            COMMENTED,
            (
                ("title: The FP16 Gradient Dance ", "title: the fp16 gradient Dance "),
                ("    **Calculations:**", "    **Calculation:**"),
                ("**The Pitfall:**", "**the pitfall**:"),
                ("# between two keys\n", "# between two keys \t\n"),
                ("  # first in a mapping\n", "  # first in a mapping  \n"),
                ("  - fp16  # after a list item\n", "  - fp16  # after a list item \n"),
                ("# a comment at the end\n", "# a comment at the end\n\n\n"),
            ),
        ),
    )
    result = only(run(bank, path))
    assert result.written and result.notes == ()
    assert len(result.changes) == 5  # title, two markers, trailing whitespace, blank lines at the end
    assert path.read_text(encoding="utf-8") == COMMENTED
    again = only(run(bank, path))
    assert again.changes == () and not again.written


def test_a_title_not_written_verbatim_needs_a_hand_edit(bank: Path) -> None:
    content = styled(("'The FP16 Gradient Dance'", "'the FP16 Gradient ''Underflow'' Dance'"))
    path = put(bank, content)
    result = only(run(bank, path))
    assert result.changes == () and not result.written
    assert result.notes == (
        "title \"the FP16 Gradient 'Underflow' Dance\" -> \"The FP16 Gradient 'Underflow' Dance\": "
        "needs a hand edit (not written verbatim once in title)",
    )
    assert path.read_text(encoding="utf-8") == content


# --- repeated runs, --check, writing ----------------------------------------------------------


def test_a_second_run_changes_nothing(bank: Path) -> None:
    path = put(
        bank, damaged(("**Calculations:**", "**Calculation:**"), ("level: L3\n", "level: L3 \n")) + "\n\n"
    )
    assert only(run(bank, path)).written
    fixed = path.read_bytes()
    again = only(run(bank, path))
    assert again.changes == () and not again.written and again.skipped is None
    assert path.read_bytes() == fixed


def test_check_writes_nothing_but_reports_the_same_changes(bank: Path) -> None:
    content = damaged(
        ("**Calculations:**", "**Calculation:**"), (f"title: {TITLE}", "title: the FP16 Gradient")
    )
    path = put(bank, content + "\n")
    mtime = path.stat().st_mtime_ns
    checked = only(run(bank, path, check=True))
    assert not checked.written and checked.skipped is None
    assert path.read_bytes() == (content + "\n").encode("utf-8") and path.stat().st_mtime_ns == mtime
    assert folder_listing(path) == [NAME]
    applied = only(run(bank, path))
    assert applied.written and applied.changes == checked.changes and len(checked.changes) == 3


@pytest.mark.parametrize("error", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_failed_replace_leaves_the_original_and_no_temp_file(
    bank: Path, monkeypatch: pytest.MonkeyPatch, error: BaseException
) -> None:
    content = damaged(("level: L3\n", "level: L3 \n"))
    path = put(bank, content)

    def boom(*args: object) -> None:
        raise error

    monkeypatch.setattr(fix.os, "replace", boom)
    if isinstance(error, OSError):
        result = only(run(bank, path))
        assert result.skipped == "cannot write: No space left on device" and not result.written
    else:
        with pytest.raises(KeyboardInterrupt):
            run(bank, path)
    assert path.read_bytes() == content.encode("utf-8")
    assert folder_listing(path) == [NAME]


@pytest.mark.parametrize("mode", [0o640, 0o755, 0o600])
def test_permission_bits_are_kept(bank: Path, mode: int) -> None:
    path = put(bank, damaged(("level: L3\n", "level: L3 \n")))
    path.chmod(mode)
    assert only(run(bank, path)).written
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert folder_listing(path) == [NAME]


# What a killed `qbank fix` leaves: the temporary file at each point, or None for none.
AT_KILL = {
    "created": lambda new: b"",
    "half-written": lambda new: new[: len(new) // 2],
    "synced": lambda new: new,
    "committed": lambda new: None,
}


@pytest.mark.parametrize("point", crash.POINTS)
def test_a_kill_at_any_point_leaves_the_old_file_or_the_new_one(bank: Path, point: str) -> None:
    content = damaged(("**Calculations:**", "**Calculation:**"), ("level: L3\n", "level: L3 \n"))
    path = put(bank, content)
    fixed = ORIGINAL.encode("utf-8")
    crash.kill_at(point, ["fix"], cwd=bank)
    # Whole old bytes before the rename, whole new bytes after it: never a mix.
    assert path.read_bytes() == (fixed if point == "committed" else content.encode("utf-8"))
    left = crash.leftovers(path.parent, NAME)
    temp = AT_KILL[point](fixed)
    assert len(left) == (temp is not None) and all(crash.hidden_temporary(name) for name in left)
    if temp is not None:  # the kill landed where it was meant to
        assert (path.parent / left[0]).read_bytes() == temp
    _, report = audit_json(cwd=bank)
    assert report["summary"]["files"] == 1  # the leftover is not read as a question
    again = run_cli("fix", cwd=bank)
    assert again.exit_code == 0, again.output
    assert path.read_bytes() == fixed


# --- what is left alone -----------------------------------------------------------------------


def test_two_near_misses_are_ambiguous(bank: Path) -> None:
    content = damaged(
        ("**Calculations:**", "**Calculation:**"),
        (
            "- 2e-8 * 65536 = 1.31072e-3 after scaling\n",
            "**calculations**\n    - 2e-8 * 65536 = 1.31072e-3 after scaling\n",
        ),
    )
    path = put(bank, content)
    result = only(run(bank, path))
    assert result.changes == () and not result.written and result.skipped is None
    assert result.notes == (
        "details.napkin_math: 2 near misses of **Calculations:** ('**Calculation:**', '**calculations**'); fix by hand",
    )
    assert path.read_text(encoding="utf-8") == content


def test_a_word_with_digits_and_no_spelling_is_left_alone(bank: Path) -> None:
    words = bank / "schema" / "title-words.yaml"
    words.write_text(words.read_text(encoding="utf-8").replace("  - FP16\n", ""), encoding="utf-8")
    path = put(bank, damaged((f"title: {TITLE}", "title: the fp16 dance")))
    result = only(run(bank, path))
    assert result.changes == ("title 'the fp16 dance' -> 'The fp16 Dance'",)
    assert result.notes == (
        "title word 'fp16' left as written: 'Fp16' is not certain "
        "(list its spelling in schema/title-words.yaml, or fix it by hand)",
    )
    assert "title: The fp16 Dance\n" in path.read_text(encoding="utf-8")


def test_a_placeholder_title_is_not_recased(bank: Path) -> None:
    content = damaged((f"title: {TITLE}", "title: the gradient Dividend (cloud-0290)"))
    path = put(bank, content)
    result = only(run(bank, path))
    assert result.changes == ()
    assert result.notes == (
        "title case not fixed: title contains the question id 'cloud-0290': titles describe the problem",
    )
    assert path.read_text(encoding="utf-8") == content


def test_a_broken_file_is_skipped_and_the_others_are_fixed(bank: Path) -> None:
    broken = put(bank, 'title: "an unterminated string\n', name="broken.yaml")
    good = put(bank, damaged(("level: L3\n", "level: L3 \n")))
    first, second = run(bank, bank / "questions")
    assert first.path.endswith("broken.yaml") and not first.written
    assert first.skipped is not None and first.skipped.startswith("QB001 yaml-syntax at line ")
    assert second.written and good.read_text(encoding="utf-8") == ORIGINAL
    assert broken.read_text(encoding="utf-8") == 'title: "an unterminated string\n'


def test_symlinks_are_refused_and_their_targets_untouched(bank: Path) -> None:
    content = damaged(("level: L3\n", "level: L3 \n"))
    target = bank / "elsewhere.yaml"
    target.write_text(content, encoding="utf-8")
    link = bank / PRECISION / NAME
    link.symlink_to(target)
    for results in (run(bank, bank / "questions"), run(bank, link), run(bank, link, check=True)):
        result = only(results)
        assert result.skipped is not None and "symbolic link" in result.skipped and not result.written
    assert target.read_text(encoding="utf-8") == content and link.is_symlink()


@pytest.mark.parametrize("link", ["questions", "questions/cloud", "questions/cloud/precision"])
def test_a_linked_folder_between_the_bank_root_and_the_file_is_refused(
    bank: Path, tmp_path_factory: pytest.TempPathFactory, link: str
) -> None:
    content = damaged(("level: L3\n", "level: L3 \n"))
    put(bank, content)
    outside = tmp_path_factory.mktemp("outside") / "moved"
    shutil.move(bank / link, outside)
    (bank / link).symlink_to(outside, target_is_directory=True)
    moved = outside / PRECISION.relative_to(link) / NAME
    for check in (True, False):
        result = only(run(bank, bank / PRECISION / NAME, check=check))
        assert result.skipped == f"folder {link} is a symbolic link: qbank never writes through one"
        assert not result.written and result.changes == ()
    # With no paths the walk does not enter a linked folder below questions/, and refuses one at it.
    assert not any(result.written for result in fix.fix_paths([], bank, check=False))
    assert moved.read_text(encoding="utf-8") == content and folder_listing(moved) == [NAME]


def test_a_fifo_is_not_a_regular_file(bank: Path) -> None:
    fifo = bank / PRECISION / "pipe.yaml"
    os.mkfifo(fifo)
    assert only(run(bank, fifo)).skipped == "not a regular file"


# --- the verification guard -------------------------------------------------------------------

Splice = Callable[[str, list[tuple[int, object]]], str]


def wrong_place(original: Splice) -> Splice:
    """A splice that puts each replacement one character too late."""
    return lambda content, placed: original(content, [(start + 1, edit) for start, edit in placed])


def also_elsewhere(original: Splice) -> Splice:
    """A splice that makes its edits and also changes a value nobody asked to change."""
    return lambda content, placed: original(content, placed).replace("level: L3", "level: L4")


@pytest.mark.parametrize(
    ("broken_splice", "reason"),
    [
        (wrong_place, "(the fixed text would not load: QB001"),
        (also_elsewhere, "(the value of level would change)"),
    ],
)
def test_an_unprovable_fix_is_not_written(
    bank: Path, monkeypatch: pytest.MonkeyPatch, broken_splice: Callable[[Splice], Splice], reason: str
) -> None:
    content = damaged((f"title: {TITLE}", "title: the FP16 Gradient"))
    path = put(bank, content)
    monkeypatch.setattr(fix, "_splice", broken_splice(fix._splice))
    for check in (True, False):
        result = only(run(bank, path, check=check))
        assert result.changes == () and not result.written
        assert result.skipped is not None
        assert result.skipped.startswith("fix could not be proven safe " + reason), result.skipped
        assert result.skipped.endswith("; file left unchanged")
    assert path.read_text(encoding="utf-8") == content
    assert folder_listing(path) == [NAME]


def test_a_keep_chomped_scalar_at_the_end_is_not_collapsed(bank: Path) -> None:
    # Removing the blank lines would change the value of a `|+` scalar: the guard refuses it.
    content = ORIGINAL + "extra: |+\n  kept\n\n\n"
    path = put(bank, content)
    result = only(run(bank, path))
    assert (
        result.skipped
        == "fix could not be proven safe (the value of extra would change); file left unchanged"
    )
    assert path.read_text(encoding="utf-8") == content


# --- which files ------------------------------------------------------------------------------


def test_no_paths_means_the_banks_questions(bank: Path) -> None:
    path = put(bank, damaged(("level: L3\n", "level: L3 \n")))
    (bank / "schema" / "stray.yaml").write_text("a: 1 \n", encoding="utf-8")
    result = only(fix.fix_paths([], bank / "schema", check=False))  # the bank is found above cwd
    assert result.written and path.read_text(encoding="utf-8") == ORIGINAL
    assert only(run(bank, bank)).changes == ()  # the bank root stands for questions/, not schema/
    assert (bank / "schema" / "stray.yaml").read_text(encoding="utf-8") == "a: 1 \n"


def test_usage_errors(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no bank here"):
        fix.fix_paths([], tmp_path, check=True)
    with pytest.raises(UsageError, match="no such file or folder"):
        fix.fix_paths([Path("missing.yaml")], tmp_path, check=True)


# --- the shared title-case logic --------------------------------------------------------------

SPELLINGS = {"gpu": "GPU", "int8": "INT8", "pytorch": "PyTorch"}


@pytest.mark.parametrize(
    ("title", "fixed"),
    [
        ("the cost Of training", "The Cost of Training"),
        ("Training on a Gpu", "Training on a GPU"),
        ("Why Int8-only Kernels Win", "Why INT8-only Kernels Win"),
        ("the  (transformer's) the", "The  (transformer's) The"),  # "transformer's": not only letters
        ("fp16 Loss Scaling", "fp16 Loss Scaling"),  # could be FP16
        ("fp16-gpu Kernels", "fp16-gpu Kernels"),  # one word, and its first part could be FP16
        ("Flash budget: a guide", "Flash Budget: A Guide"),
    ],
)
def test_fix_title_case(title: str, fixed: str) -> None:
    assert text.fix_title_case(title, (), SPELLINGS) == fixed


def test_title_case_fixes_list_every_flagged_word() -> None:
    assert text.title_case_fixes("the fp16 Gpu", (), SPELLINGS) == [
        ("the", "The"),
        ("fp16", "Fp16"),
        ("Gpu", "GPU"),
    ]
    assert text.is_safe_case_fix("Gpu", "GPU", SPELLINGS) and not text.is_safe_case_fix(
        "fp16", "Fp16", SPELLINGS
    )


# --- the StaffML sample -----------------------------------------------------------------------


@pytest.mark.shared
def test_staffml_sample_fixes_keep_every_other_line(staffml_sample: Path, tmp_path: Path) -> None:
    copy = tmp_path / "sample"
    shutil.copytree(staffml_sample, copy)
    for file in load.iter_yaml_files(copy):  # the shared corpus is read-only, which fix refuses
        file.chmod(0o644)
    before = {path: path.read_text(encoding="utf-8") for path in load.iter_yaml_files(copy)}
    found_before = audited(copy, tmp_path)
    results = fix.fix_paths([copy], tmp_path, check=False)
    assert len(results) == len(before)
    written = [r for r in results if r.written]
    assert written, "the sample has fixable files"
    for result in written:
        path = tmp_path / result.path
        old = before[path].rstrip(" \t\r\n").splitlines()  # blank lines at the end are removed
        new = path.read_text(encoding="utf-8").splitlines()
        assert len(old) == len(new), result  # no fix adds or removes a line elsewhere
        olds = _old_texts(result)
        for old_line, new_line in zip(old, new, strict=True):
            if old_line.rstrip(" \t") != new_line:
                assert any(text in old_line for text in olds), (result, old_line, new_line)
        comments = [line.rstrip(" \t") for line in old if line.lstrip().startswith("#")]
        assert comments == [line for line in new if line.lstrip().startswith("#")]
    again = fix.fix_paths([copy], tmp_path, check=False)
    assert [r.changes for r in again] == [()] * len(again) and not any(r.written for r in again)
    found_after = audited(copy, tmp_path)
    assert found_after < found_before  # some findings fixed (title case), none introduced


def audited(folder: Path, cwd: Path) -> Counter[tuple[str, str]]:
    return Counter((f.path, f.code) for f in engine.audit(engine.Settings(paths=(folder,)), cwd).findings)


def _old_texts(result: fix.FileFix) -> list[str]:
    """The old text of each marker or title change of `result` (the repr before the arrow)."""
    found = (
        re.match(r"(?:marker|title) ('(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\") -> ", c) for c in result.changes
    )
    return [ast.literal_eval(match.group(1)) for match in found if match]


def test_cli_check_exits_1_until_fixed(bank: Path) -> None:
    put(bank, damaged(("**Calculations:**", "**Calculation:**")) + "\n\n")
    checked = run_cli("fix", "--check", cwd=bank)
    assert checked.exit_code == 1
    assert "would fix: marker '**Calculation:**' -> '**Calculations:**'" in checked.stdout
    assert checked.stdout.endswith("1 files: 1 would fix, 0 skipped\n")
    assert run_cli("fix", cwd=bank).exit_code == 0
    assert run_cli("fix", "--check", cwd=bank).exit_code == 0
    code, report = audit_json(cwd=bank)
    assert (code, report["findings"]) == (0, [])


def test_cli_reports_a_skipped_file_and_exits_1(bank: Path) -> None:
    put(bank, "title: [unclosed\n")
    result = run_cli("fix", cwd=bank)
    assert result.exit_code == 1 and "skipped: QB001 yaml-syntax" in result.stderr


def test_plain_values_yaml_1_1_reads_otherwise_are_quoted(bank: Path) -> None:
    """QB012 is a structural fix made by qbank/rewrite.py, the writer migrate uses: the value keeps
    the meaning qbank gives it, the line keeps its comment, no other line changes."""
    path = put(bank, ORIGINAL + "created_at: 2026-11-27  # the day it was written\n")
    assert rule_names(bank, path) == ["ambiguous-value"]
    result = only(run(bank, path))
    assert result.written and result.changes == ("value at created_at quoted",)
    fixed = path.read_text(encoding="utf-8")
    assert fixed == ORIGINAL + "created_at: '2026-11-27' # the day it was written\n"
    assert rule_names(bank, path) == []


def test_a_near_miss_that_would_not_complete_the_sections_is_a_heading(bank: Path) -> None:
    """`**Calculate total fleet hours:**` in a block with no other marker is a step's heading (StaffML
    cloud-0340): renaming it `**Calculations:**` would leave the rule failing and the text wrong."""
    text = damaged(("**Assumptions", "**Premises"), ("**Calculations:**", "**Calculate fleet hours:**"))
    path = put(bank, text)
    result = only(run(bank, path))
    assert result.changes == () and not result.written
    assert any("near misses not fixed: the sections would still be incomplete" in n for n in result.notes)
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("code", sorted(rules.FIXABLE))
def test_each_rule_the_report_marks_fixable_is_fixed_on_its_example(code: str, tmp_path: Path) -> None:
    """The text report marks findings of rules.FIXABLE with `[qbank fix]`: each such rule's failing
    example must be one `qbank fix` fixes, so the mark never promises what fix does not do."""
    from qbank.catalog import get

    example = REPO / "tests" / "examples" / "invalid" / get(code).name
    bank = tmp_path / "bank"
    shutil.copytree(example, bank / "questions")
    shutil.copytree(REPO / "schema", bank / "schema")
    assert code in {f["code"] for f in audit_json(cwd=bank)[1]["findings"]}
    assert run_cli("fix", cwd=bank).exit_code == 0
    assert code not in {f["code"] for f in audit_json(cwd=bank)[1]["findings"]}
