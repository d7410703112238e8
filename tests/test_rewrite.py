"""qbank/rewrite.py: structural edits that change only the lines they name, by ruamel.yaml where it
writes the file back as it was, else by a splice; each result proven by re-reading it."""

from __future__ import annotations

import difflib
import re

import pytest

from qbank import load, rewrite
from qbank.finding import Finding
from qbank.load import Document
from tests.conftest import REPO

PLAIN = """\
# a vault file, with a comment at the top
id: cloud-0001
title: The Thing  # a comment after a value
tags:
- fp16
- bf16
human_reviewed:
  status: not-reviewed
  by: null
status: published
validated: true
"""


def _document(text: str) -> tuple[Document, list[load.Loc]]:
    ambiguous: list[load.Loc] = []
    document = load.parse(text, "q.yaml", ambiguous)
    assert not isinstance(document, Finding), document
    return document, ambiguous


def _rewritten(text: str, edits: list[rewrite.Edit]) -> rewrite.Rewritten:
    document, _ = _document(text)
    done = rewrite.rewrite(text, document, edits)
    assert isinstance(done, rewrite.Rewritten), done
    return done


def _changed_lines(old: str, new: str) -> tuple[list[str], list[str]]:
    """Lines only in the old text, lines only in the new one."""
    diff = list(difflib.ndiff(old.splitlines(), new.splitlines()))
    return [d[2:] for d in diff if d.startswith("- ")], [d[2:] for d in diff if d.startswith("+ ")]


def test_an_added_key_is_one_new_line_and_every_comment_stays() -> None:
    done = _rewritten(PLAIN, [rewrite.Add("provenance", "imported", after=("status",))])
    assert done.writer == "ruamel.yaml"
    assert _changed_lines(PLAIN, done.text) == ([], ["provenance: imported"])
    assert done.text.index("provenance: imported") > done.text.index("status: published")
    assert (
        "# a vault file" in done.text and "# a comment after a value" in done.text and "by: null" in done.text
    )


def test_a_value_yaml_1_1_reads_otherwise_is_quoted_and_keeps_its_meaning() -> None:
    text = PLAIN + "validation_date: 2026-01-01\nanswer: no\n"
    document, ambiguous = _document(text)
    assert ambiguous == [("validation_date",), ("answer",)]
    done = rewrite.rewrite(text, document, [rewrite.Quote(loc) for loc in ambiguous])
    assert isinstance(done, rewrite.Rewritten)
    assert _changed_lines(text, done.text) == (
        ["validation_date: 2026-01-01", "answer: no"],
        ["validation_date: '2026-01-01'", "answer: 'no'"],
    )
    reread = load.parse(done.text, "q.yaml")  # strict: the ambiguous-value rule passes now
    assert isinstance(reread, Document) and reread.data == document.data


@pytest.mark.parametrize(
    ("text", "kept"),
    [
        (
            PLAIN.replace(
                "title: The Thing  # a comment after a value", "title: The Thing Folded\n  Over Two Lines"
            ),
            "folded",
        ),
        (PLAIN.replace("\n", "\r\n"), "line endings"),
        (PLAIN.rstrip("\n"), "line endings"),
    ],
)
def test_what_ruamel_yaml_cannot_keep_is_spliced_instead(text: str, kept: str) -> None:
    """A folded scalar, CRLF line breaks, no final line break: ruamel.yaml would rewrite them, so the
    splice makes the edit, and says why."""
    done = _rewritten(text, [rewrite.Add("provenance", "imported", after=("status",))])
    assert done.writer == "splice" and kept in done.why_splice
    old, new = _changed_lines(text, done.text)
    assert old == [] and new == ["provenance: imported"]
    assert ("\r\n" in done.text) == ("\r\n" in text)


@pytest.mark.parametrize("writer_fails", [False, True])
def test_drop_and_rename_touch_only_their_own_lines(
    monkeypatch: pytest.MonkeyPatch, writer_fails: bool
) -> None:
    if writer_fails:  # the splice alone
        monkeypatch.setattr(rewrite, "_by_ruamel", lambda *args: ("", "ruamel.yaml failed: test"))
    done = _rewritten(PLAIN, [rewrite.Drop("human_reviewed"), rewrite.Rename("validated", "checked")])
    assert done.writer == ("splice" if writer_fails else "ruamel.yaml")
    old, new = _changed_lines(PLAIN, done.text)
    assert old == ["human_reviewed:", "  status: not-reviewed", "  by: null", "validated: true"]
    assert new == ["checked: true"]


def test_a_stray_change_by_ruamel_yaml_is_refused_and_the_splice_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The proof: a line no edit names must not change, whoever wrote it."""
    stray = PLAIN.replace("- fp16", "- fp32") + "provenance: imported\n"
    monkeypatch.setattr(rewrite, "_by_ruamel", lambda *args: (stray, ""))
    done = _rewritten(PLAIN, [rewrite.Add("provenance", "imported")])
    assert done.writer == "splice" and "line 5 changed, which no edit names" in done.why_splice
    assert "- fp16" in done.text


def test_an_edit_that_cannot_be_proven_is_refused() -> None:
    document, _ = _document(PLAIN)
    assert rewrite.rewrite(PLAIN, document, [rewrite.Add("status", "draft")]) == "`status` is there already"
    assert "not a plain scalar" in str(rewrite.rewrite(PLAIN, document, [rewrite.Add("x", "[1, 2]")]))


def test_ruamel_yaml_is_imported_by_the_writer_alone() -> None:
    importers = sorted(
        path.relative_to(REPO).as_posix()
        for path in (REPO / "qbank").rglob("*.py")
        if re.search(r"^\s*(?:from|import) ruamel\b", path.read_text(encoding="utf-8"), re.M)
    )
    assert importers == ["qbank/rewrite.py"]


def test_a_key_yaml_reads_as_a_number_is_quoted_where_it_stands() -> None:
    text = 'verify:\n- kind: loss_scaler\n  expect_scale: {3: "8192", 10: "4"}  # two steps\n'
    document, ambiguous = _document(text)
    done = rewrite.rewrite(text, document, [rewrite.Quote(loc) for loc in ambiguous])
    assert isinstance(done, rewrite.Rewritten)
    (new,) = _changed_lines(text, done.text)[1]  # one line, and its comment stays
    assert new.startswith("  expect_scale: {'3': \"8192\", '10': \"4\"}") and new.endswith(" # two steps")
