"""Text to a Document: every hostile-input rule on the fast path (qbank/load/walker.py)."""

from __future__ import annotations

import random
import time

import pytest

from qbank import load
from qbank.load import walker
from tests.load import loaded, problem


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
    assert loaded(text).data["b"] == [[1, [2]]]


def test_the_nesting_pre_check_bounds_as_the_longest_line_prefix_does() -> None:
    """_prefix_over looks only at lines that start with enough prefix characters; it must agree with
    measuring every line's prefix, on text made of what prefixes and brackets are made of."""
    rng = random.Random(11)
    for _ in range(20000):
        text = "".join(rng.choice(" \t-?[{\nx:") for _ in range(rng.randint(0, 90)))
        limit = rng.randint(-2, 12)
        longest = max(map(len, walker._LINE_PREFIX.findall(text)), default=0)
        assert walker._prefix_over(text, limit) == (limit < 0 or longest > limit), (text, limit)


@pytest.mark.parametrize(
    ("text", "place"),
    [('a: "x', (1, 6)), ("title: x\nb: [1", (2, 6)), ("a:\n  - [b", (2, 7)), ('a: "x\n', (2, 1))],
)
def test_an_error_at_the_end_of_the_file_is_placed_inside_it(text: str, place: tuple[int, int]) -> None:
    """libyaml marks the end of a file without a final line break on the line after it."""
    finding = problem(text)
    assert (finding.name, (finding.line, finding.column)) == ("yaml-syntax", place)


def test_a_plain_key_yaml_reads_as_a_number_or_boolean_must_be_quoted() -> None:
    """qbank reads every key as text; PyYAML and editors read `3:` as the number 3 (issue 29)."""
    finding = problem('expect_scale: {3: "8192"}\n')
    assert (finding.name, finding.line, finding.column) == ("ambiguous-value", 1, 16)
    assert finding.message.startswith("key `3` is a number to YAML readers")
    assert problem("true: 1\n").message.startswith("key `true` is a boolean")
    assert loaded("expect_scale: {'3': '8192'}\nn: 4\ny: 5\nsteps: 2\n").data["expect_scale"] == {"3": "8192"}
    ambiguous: list[load.Loc] = []
    document = load.parse('expect_scale: {3: "8192"}\n', "q.yaml", ambiguous)
    assert isinstance(document, load.Document) and document.data == {"expect_scale": {"3": "8192"}}
    assert ambiguous == [("expect_scale", "3")] and isinstance(ambiguous[0], load.KeyLoc)
