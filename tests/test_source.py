"""The loader: data, positions, and every hostile-input rule on the fast path."""

from __future__ import annotations

import os
import random
import stat
import time
from pathlib import Path

import pytest

from qbank import source
from qbank.finding import Finding


def load(text: str) -> source.Document:
    document = source.load_text(text, "q.yaml")
    assert isinstance(document, source.Document), document
    return document


def problem(text: str | bytes) -> Finding:
    result = source.load_bytes(text if isinstance(text, bytes) else text.encode(), "q.yaml")
    assert isinstance(result, Finding), result
    return result


def test_yaml_1_2_scalars_not_1_1() -> None:
    data = load("d: 012\nf: 0x1F\ng: 1e3\nh: ~\ni: true\nj: '7'\nk: 'no'\nl: '2026-01-01'\n").data
    assert data == {
        "d": 12,
        "f": 31,
        "g": 1000.0,
        "h": None,
        "i": True,
        "j": "7",
        "k": "no",
        "l": "2026-01-01",
    }


@pytest.mark.parametrize(
    ("plain", "kind"),
    [("no", "boolean"), ("on", "boolean"), ("Y", "boolean"), ("OFF", "boolean"), ("1:30", "number")]
    + [("0b11", "number"), ("1_000", "number"), ("2026-01-01", "date"), ("2026-01-01 10:00:00", "date")],
)
def test_plain_values_yaml_1_1_reads_otherwise_must_be_quoted(plain: str, kind: str) -> None:
    """1.2 reads these as strings; PyYAML's 1.1 reads `no` as False, `1:30` as 90, and so on
    (ecosystem.md §4.8): the file would mean two things, so the loader refuses it."""
    assert source.scalar_value(plain, None) == plain
    finding = problem(f"title: x\na: [{plain}]\n")
    assert (finding.name, finding.line, finding.column) == ("ambiguous-value", 2, 5)
    assert kind in finding.message
    assert load(f"a: '{plain}'\n").data == {"a": plain}


def test_words_that_only_start_like_yaml_1_1_values_are_plain_strings() -> None:
    assert load("a: nope\nb: online\nc: yesterday\nd: 1:30 pm\n").data["a"] == "nope"


def test_a_huge_integer_is_refused_not_converted() -> None:
    """int() refuses over 4,300 digits (CVE-2020-10735); the value is an error, not silently text."""
    assert source.scalar_value("9" * 5000, None) == "9" * 5000
    finding = problem("n: " + "9" * 5000 + "\n")
    assert (finding.name, finding.line, finding.column) == ("ambiguous-value", 1, 4)
    assert "5000 characters" in finding.message and len(finding.message) < 120


def test_positions_of_keys_values_and_items() -> None:
    document = load("id: x\ndetails:\n  options:\n  - a\n  - b\n")
    positions = document.positions
    assert positions.key(("details",)) == (2, 1)
    assert positions.key(("details", "options")) == (3, 3)
    assert positions.value(("details", "options", 1)) == (5, 5)
    assert positions.value(("details", "missing")) == (2, 1)  # a missing key: its parent
    assert positions.value(()) == (1, 1)


def test_position_inside_block_scalar() -> None:
    document = load("a: 1\nnapkin: |\n  **Assumptions:** x\n  **Calculation:** y\n")
    assert document.positions.in_value(("napkin",), "**Calculation:**") == (4, 3)


@pytest.mark.parametrize(
    ("text", "name", "line"),
    [
        ("a: 1\na: 2\n", "duplicate-key", 2),
        ("a:\n  b: 1\n  b: 2\n", "duplicate-key", 3),
        ("a: &x 1\n", "yaml-alias", 1),
        ("a: [1]\nb: *x\n", "yaml-syntax", 2),  # an undefined alias
        ("a: !!python/object/apply:os.system ['true']\n", "yaml-tag", 1),
        ("a: !custom 1\n", "yaml-tag", 1),
        ("<<: {a: 1}\n", "merge-key", 1),
        ("", "empty-file", 1),
        ("# only a comment\n", "empty-file", 1),
        ("- 1\n", "not-mapping", 1),
        ("just text\n", "not-mapping", 1),
        ("a: 1\n---\nb: 2\n", "yaml-syntax", 2),
        ("a: b\x00c\n", "yaml-syntax", 1),
        ("a: [1, 2\n", "yaml-syntax", 2),
        ("? [a]\n: 1\n", "yaml-syntax", 1),
    ],
)
def test_problems_are_findings(text: str, name: str, line: int) -> None:
    finding = problem(text)
    assert (finding.name, finding.line) == (name, line)


def test_bad_bytes() -> None:
    assert problem(b"a: 1\nb: caf\xe9\n").name == "encoding"
    assert (problem(b"a: 1\nb: caf\xe9\n").line, problem(b"a: 1\nb: caf\xe9\n").column) == (2, 7)
    assert problem(b"\xef\xbb\xbfa: 1\n").name == "encoding"
    assert problem("a: 1\n".encode("utf-16")).name == "encoding"


def test_alias_bomb_is_refused_quickly() -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 12)]
    started = time.perf_counter()
    assert problem("\n".join(lines) + "\n").name == "yaml-alias"
    assert time.perf_counter() - started < 5  # 10**12 items if expanded


@pytest.mark.parametrize("text", ["- " * 100_000 + "x\n", "a: " + "[" * 100_000 + "]" * 100_000 + "\n"])
def test_deep_nesting_is_refused_without_crashing(text: str) -> None:
    # libyaml's C composer recurses per level and segfaulted at 100,000 levels when measured here.
    assert problem(text).name == "nesting-too-deep"


def test_moderate_nesting_and_many_brackets_still_load() -> None:
    text = "a: '" + "[" * 200 + "'\nb: [[1, [2]]]\n"
    assert load(text).data["b"] == [[1, [2]]]


def test_file_too_large_is_not_read_whole(tmp_path) -> None:  # type: ignore[no-untyped-def]
    big = tmp_path / "big.yaml"
    big.write_bytes(b"a: '" + b"x" * (source.MAX_BYTES + 10) + b"'\n")
    assert source.load(big).name == "file-too-large"  # type: ignore[union-attr]


def test_unreadable_and_missing_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert source.load(tmp_path / "gone.yaml").name == "unreadable-file"  # type: ignore[union-attr]
    assert source.load(tmp_path).name == "unreadable-file"  # type: ignore[union-attr]  # a directory


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
    found = sorted(p.relative_to(tmp_path).as_posix() for p in source.iter_yaml_files(tmp_path))
    assert found == ["a.yaml", "b.yml", "dir.yaml", "dir.yaml/inner.yaml", "linked", "other/c.yaml"]


def test_the_nesting_pre_check_bounds_as_the_longest_line_prefix_does() -> None:
    """_prefix_over looks only at lines that start with enough prefix characters; it must agree with
    measuring every line's prefix, on text made of what prefixes and brackets are made of."""
    rng = random.Random(11)
    for _ in range(20000):
        text = "".join(rng.choice(" \t-?[{\nx:") for _ in range(rng.randint(0, 90)))
        limit = rng.randint(-2, 12)
        longest = max(map(len, source._LINE_PREFIX.findall(text)), default=0)
        assert source._prefix_over(text, limit) == (limit < 0 or longest > limit), (text, limit)


def test_plain_scalars_with_a_word_start_are_strings_under_every_core_schema_rule() -> None:
    """scalar_value returns a plain scalar that starts with one of _STRING_STARTS as it is, without
    trying the rules; no rule may read such a scalar as anything but a string."""
    tails = [
        "",
        "ull",
        "ULL",
        "rue",
        "RUE",
        "alse",
        "ALSE",
        "1",
        "0",
        ".5",
        "e3",
        "x1f",
        "o7",
        "nf",
        "aN",
        "AN",
    ]
    for start in source._STRING_STARTS:
        for text in (start + tail for tail in tails):
            assert not any(rule.fullmatch(text) for rule in (source._NULL, source._INT, source._FLOAT)), text
            assert text not in source._BOOL and text not in source._SPECIAL_FLOAT, text
    assert {"n", "N", "t", "T", "f", "F"}.isdisjoint(source._STRING_STARTS)
    assert source.scalar_value("null", None) is None and source.scalar_value("False", None) is False


def test_a_hex_number_too_long_to_print_is_refused_like_a_decimal_one() -> None:
    # Found by fuzzing: int() reads any number of hex digits, and 3,600 of them made an int that
    # raised ValueError when the schema finding showed it (past 4,300 decimal digits).
    assert source.scalar_value("0x" + "9" * 3600, None) == "0x" + "9" * 3600
    finding = problem("schema_version: 0x" + "9" * 3600 + "\n")
    assert (finding.name, finding.line, finding.column) == ("ambiguous-value", 1, 17)
    assert source.scalar_value("0x1F", None) == 31 and source.scalar_value("0o17", None) == 15


@pytest.mark.parametrize(
    ("text", "place"),
    [('a: "x', (1, 6)), ("title: x\nb: [1", (2, 6)), ("a:\n  - [b", (2, 7)), ('a: "x\n', (2, 1))],
)
def test_an_error_at_the_end_of_the_file_is_placed_inside_it(text: str, place: tuple[int, int]) -> None:
    """libyaml marks the end of a file without a final line break on the line after it."""
    finding = problem(text)
    assert (finding.name, (finding.line, finding.column)) == ("yaml-syntax", place)


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

    monkeypatch.setattr(source.os, "fstat", fstat)
    assert source.read(tmp_path / "q.yaml", "q.yaml") == body
    assert source.read(tmp_path / "q.yaml", "q.yaml") == body  # a second time: nothing kept


def test_positions_of_keys_items_and_the_whole_file() -> None:
    document = load("a: 1\nlist:\n  - x\n  - {k: v}\n")
    positions = document.positions
    assert positions.key(("list",)) == (2, 1)
    assert positions.value(("list", 1)) == (4, 5)
    assert positions.value(("list", 1, "k")) == (4, 9)
    assert positions.key(("list", 1, "missing")) == (4, 5)
    assert positions.span(()) == (0, len(positions.text))
    assert positions.span(("a",)) == (3, 4)
    assert positions.span(("nothing",)) is None
