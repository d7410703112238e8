from __future__ import annotations

import random
import re

import pytest

from qbank.finding import Finding
from qbank.model.fields import text
from qbank.model.taxonomy import load_bank_tables
from tests.conftest import REPO

LOWER = frozenset({"mmap", "torch.compile"})
SPELLINGS = {"gpu": "GPU", "fp16": "FP16", "pytorch": "PyTorch", "int8": "INT8"}


def case(title: str) -> str | None:
    problem = text.title_case(title, LOWER, SPELLINGS)
    return problem.message if problem else None


@pytest.mark.parametrize(
    "title",
    [
        "The FP16 Loss Scaling Dance",
        "KV Cache Sizing for a 70B Model on H100",
        "Serving with vLLM and cuBLAS on a V100",
        "mmap Page Faults Stall the UI Thread",
        "Why torch.compile Recompiles Every Step",
        "Multi-tenant LoRA Serving",  # later parts of a compound may be either case
        "Spot vs On-Demand for Long Runs",
        "A/B Rollout of an Edge Model",
        "The Transformer's Quadratic Curse",
        "Flash Budget: A Guide to MCU Partitions",  # capital after a colon
        "What to Fix First",  # small word last? "First" is major; "to" lower mid-title
        "Scaling Up",  # a small word at the end is capitalised
        "Data Flows from Host into Device",  # four-letter prepositions either way
        "Data Flows From Host Into Device",
        "4-Bit Weights, 16-Bit Activations",
    ],
)
def test_title_case_accepts(title: str) -> None:
    assert case(title) is None


@pytest.mark.parametrize(
    ("title", "fix"),
    [
        ("the fp16 loss scaling dance", "'the' -> 'The'"),
        ("The Cost Of Training", "'Of' -> 'of'"),
        ("Training on a Gpu", "'Gpu' -> 'GPU'"),
        ("Pytorch Memory Leaks", "'Pytorch' -> 'PyTorch'"),
        ("Implement depthwise Convolution", "'depthwise' -> 'Depthwise'"),
        ("Why Int8-only Kernels Win", "'Int8-only' -> 'INT8-only'"),
        ("Sizing the KV Cache for", "'for' -> 'For'"),
    ],
)
def test_title_case_rejects(title: str, fix: str) -> None:
    message = case(title)
    assert message is not None and fix in message


@pytest.mark.parametrize(
    "title",
    [
        "Cloud Gpu Virtualization L3 0",
        "Global New 0134",
        "Untitled",
        "TODO",
        "The Depthwise Dividend (tinyml-0290)",
        "<TODO: title>",
    ],
)
def test_placeholder_titles(title: str) -> None:
    assert text.placeholder_title(title) is not None


def test_real_titles_are_not_placeholders() -> None:
    assert text.placeholder_title("Edge Inference at 30 FPS on Jetson Orin") is None
    assert text.placeholder_title("The Cloud Bill for L3 Cache Misses") is None


@pytest.mark.parametrize(
    ("title", "part"),
    [
        ("A" * 121, "121 characters"),
        ("The Loss Scale Collapse.", "period"),
        ("The loss_scale Collapse", "underscore"),
        ("The **Loss** Scale", "markdown"),
        ("The `Scaler` Bug", "markdown"),
        ("Why $\\frac{1}{2}$ Matters", "LaTeX"),
        (" Leading Space", "spaces"),
        ("Double  Space", "spaces"),
    ],
)
def test_title_format(title: str, part: str) -> None:
    problem = text.title_format(title)
    assert problem is not None and part in problem.message


def test_title_format_accepts_money_and_ellipsis() -> None:
    assert text.title_format("A $4/hr GPU vs a $2/hr GPU") is None
    assert text.title_format("Wait For It...") is None


def test_lengths() -> None:
    assert text.question_length("x" * 200) is None
    assert text.question_length("x" * 201) is not None
    assert text.scenario_length("x" * 30) is None
    assert text.scenario_length("  " + "x" * 29 + "  ") is not None


@pytest.mark.parametrize(
    "value",
    [
        "a <script>alert(1)</script>",
        "see <b>this</b>",
        "<img src=x onerror=alert(1)>",
        "click javascript:alert(1)",
        "<iframe src",
        "x onload=go()",
        "see JAVASCRIPT:alert(1)",
        "data : Text/HTML,<b>",
        "javaſcript:alert(1)",  # re's IGNORECASE reads the long s as s
        "JAVASCRİPT:alert(1)",
    ],
)
def test_raw_html_rejected(value: str) -> None:
    assert text.raw_html(value) is not None


@pytest.mark.parametrize(
    "value", ["latency < 5 ms and > 2 ms", "use `<b>` in code spans", "AT&T and R&D", "a -> b <= c"]
)
def test_raw_html_accepts_plain_text(value: str) -> None:
    assert text.raw_html(value) is None


def test_script_url_prefilter_covers_every_case_insensitive_letter() -> None:
    """raw_html runs the `javascript:` pattern only where "script" or "text/html" is written; every
    character re.IGNORECASE matches to one of their letters must fold to it."""
    letters = "scriptexhml"
    every_character = "".join(map(chr, range(0x110000)))
    for found in re.finditer(f"[{letters}]", every_character, re.IGNORECASE):
        char = found.group()
        matched = {letter for letter in letters if re.fullmatch(letter, char, re.IGNORECASE)}
        assert matched == {char.translate(text._URL_LETTERS).lower()}, hex(ord(char))


def test_todo_anywhere_is_a_placeholder() -> None:
    assert text.placeholder("Step one.\n<TODO: fill in>") is not None
    assert text.placeholder("A finished answer.") is None


def test_event_handler_pattern_is_the_case_insensitive_one() -> None:
    """_HANDLER spells out `\\bon[a-z]+\\s*=` under re.IGNORECASE (so that re scans for [oO] first);
    it must find what that pattern finds, at the same places, on text made of the characters that
    matter (İ ı ſ K are the non-ASCII letters IGNORECASE's [a-z] matches)."""
    reference = re.compile(r"\bon[a-z]+\s*=", re.IGNORECASE)
    rng = random.Random(5)
    alphabet = "oOnNaz=  _1-\tx<\u0130\u0131\u017f\u212a\u00e9"
    for _ in range(100_000):
        sample = "".join(rng.choices(alphabet, k=rng.randint(1, 12)))
        want, got = reference.search(sample), text._HANDLER.search(sample)
        assert (want and want.span()) == (got and got.span()), repr(sample)


def test_title_case_follows_the_word_lists_it_is_given() -> None:
    """Judged words are remembered per word lists: other lists, even equal-looking new ones, are
    judged afresh."""
    assert text.title_case("Serving on the Npu", frozenset(), {"npu": "NPU"}) is not None
    assert text.title_case("Serving on the Npu", frozenset(), {}) is None
    assert text.title_case("Serving on the Npu", frozenset(), {"npu": "NPU"}) is not None
    assert text.title_case("Serving on the npu", frozenset({"npu"}), {}) is None
    assert text.title_case("Serving on the npu", frozenset(), {}) is not None


def test_title_case_fixes_agree_with_the_words_a_fix_rewrites() -> None:
    """The check judges whole title tokens, remembered; `qbank fix` finds each word's offset
    (_title_words). Both must flag the same words."""
    rng = random.Random(11)
    tokens = ["the", "The", "of", "a", "A", "gpu", "GPU", "Gpu", "fp16", "mmap", "vLLM", "serving",
              "Serving", "on-demand", "On-Demand", "a/b", "(the", "gpu)", "Cost:", "with", "—", "::",
              "'quoted'", "“npu”", "7B", "x86", "torch.compile", "over", "Memory-bound", "(", ")"]  # fmt: skip
    for _ in range(20_000):
        title = " ".join(rng.choices(tokens, k=rng.randint(1, 8)))
        reference = [(w, e) for _, w, e in text._title_words(title, LOWER, SPELLINGS) if e != w]
        assert text.title_case_fixes(title, LOWER, SPELLINGS) == reference, title


def test_nan_is_spelled_as_the_formats_spell_it() -> None:
    """`nan` in a title is NaN, not Nan (issue 29: `qbank fix` wrote "Nan"), with the bank's words."""
    tables = load_bank_tables(REPO / "schema")
    assert not isinstance(tables, Finding)
    problem = text.title_case("Why the Loss Goes nan in FP16", tables.lowercase_words, tables.spellings)
    assert problem is not None and "'nan' -> 'NaN'" in problem.message
    assert text.title_case("Why the Loss Goes NaN in FP16", tables.lowercase_words, tables.spellings) is None
