"""A typed answer graded as the audit reads numbers: the study site's "Check" before the reveal.

The grammar is one small regular expression (GRAMMAR), the same text in Python and in the page's
script (the site writes it into assets/units.js): an optional `~`, an optional `$`, a number
(`12`, `65,536`, `3.2`, `.5`, `1.5e-7`), an optional magnitude letter against it (`7B`, `50M`), an
optional `× 10^n` (`x`, `*` or `×`), and an optional unit: `%`, a word, or `word/word`, each word one
of VOCABULARY (qbank/napkin/units.py's units and count words). Anything else is unreadable, and the
message says what is accepted.

Reading: the input is rewritten in the napkin math's own spelling (`$` as `USD`, `× 10^n` as
`* 10^n`) and read by the audit's reader (lexer, `equations.read_term`, `equations.value_of`): its exact
value, and one unit in its last typed digit, in each reading mode (units.MODES: `7B` as billions or
bytes, `KB` as 1000 or 1024 bytes). Grading: right when, in some mode the answer lists, the
dimensions match and the audit's `=` tolerance accepts the typed value for the exact answer
(`equations.within_tolerance(exact, typed, quantum, approx=False)`: the exact value rounded or truncated to
the typed digits, and at most 5% off; a typed zero means zero, as `equations.agrees` has it). A `~`
is accepted and changes nothing. The page's script (qbank/export/assets/answer.js) does the same in
exact rationals, with the table `units_table()` compiles; tests/export/test_site_facts_browser.py
holds the two to the same verdicts.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from qbank.napkin import units
from qbank.napkin.equations import LINE_WORK, read_term, value_of, within_tolerance
from qbank.napkin.evaluate import SUFFIX, number_quantity, unit_of
from qbank.napkin.lexer import NapkinError, normalise, tokenize
from qbank.napkin.meter import metered
from qbank.napkin.units import Dims, Mode

# The lexer's word (qbank/napkin/lexer.py), less its hyphenated compounds.
WORD = r"°C|[A-Za-zµμ°Ω][A-Za-z0-9µμ°Ω₂_']*"
NUMBER = r"[0-9]{1,3}(?:,[0-9]{3})+(?:\.[0-9]+)?|(?:[0-9]+(?:\.[0-9]+)?|\.[0-9]+)(?:[eE][+-]?[0-9]{1,3})?"
# One pattern for Python and JavaScript alike: ASCII classes only (Python's \d and \s take other
# scripts' digits and spaces, JavaScript's do not), no named groups, matched whole (fullmatch in
# Python, ^(?:…)$ in the page). Groups: 1 `~`, 2 `$`, 3 number, 4 magnitude letter, 5 power of
# ten, 6 unit (`%`, `word`, `word/word`, or `/word` as in `$40/hr`).
GRAMMAR = (
    r"[ \t]*(~)?[ \t]*(\$)?[ \t]*("
    + NUMBER
    + r")(?:([kKMGT]|B(?!/))(?![A-Za-z0-9]))?(?:[ \t]*[×x*][ \t]*10\^(-?[0-9]{1,3}))?[ \t]*(%|(?:"
    + WORD
    + r")(?:/(?:"
    + WORD
    + r"))?|/(?:"
    + WORD
    + r"))?[ \t]*"
)
MAX_INPUT = 80  # characters: an answer, not a paragraph
ACCEPTS = "a number and a unit, such as 12 GB, 3.2 ms, 1.5e-7, 4 x 10^9 FLOPs, $40/hr, 19%"
TOLERANCE = (
    "Graded as the audit checks an equation: right when the exact answer, rounded or truncated to the "
    "digits you typed, is your value, and your value is at most 5% off; units are converted."
)

# What a quantity is, for "that is a time; the answer is a size".
KINDS: dict[Dims, str] = {
    units.NONE: "a plain number",
    units.BYTE: "a size",
    units.SECOND: "a time",
    units.mul(units.BYTE, units.PER_SECOND): "a bandwidth",
    units.OP: "an operation count",
    units.mul(units.OP, units.PER_SECOND): "a compute rate",
    units.JOULE: "an energy",
    units.mul(units.JOULE, units.PER_SECOND): "a power",
    units.dims(usd=1): "an amount of money",
    units.div(units.dims(usd=1), units.SECOND): "a cost per time",
    units.PER_SECOND: "a rate per second",
    units.dims(m=1): "a length",
    units.dims(g=1): "a mass",
    units.dims(K=1): "a temperature",
    units.dims(A=1): "a current",
}


def kind(dims: Dims) -> str:
    return KINDS.get(dims, f"a quantity in {units.describe(dims)}")


def _vocabulary() -> tuple[str, ...]:
    """The unit and count words the grammar reads: every one the audit knows that is one lexer word."""
    word = re.compile(WORD)
    known = {*units.UNITS, *units.COUNTS} - {"$"}
    return tuple(sorted(w for w in known if word.fullmatch(w)))


VOCABULARY = _vocabulary()
_KNOWN = frozenset(VOCABULARY)


@dataclass(frozen=True)
class Reading:
    """A typed value in one mode: exact, with one unit in its last typed digit, and its dimensions."""

    value: Fraction
    quantum: Fraction
    dims: Dims


@dataclass(frozen=True)
class Verdict:
    status: str  # right, wrong, wrong-unit, unreadable
    message: str


def read(text: str, modes: tuple[Mode, ...] = units.MODES) -> dict[Mode, Reading] | str:
    """The typed value in each mode, or why it cannot be read (a message)."""
    match = re.fullmatch(GRAMMAR, text)
    if match is None:
        return f"Cannot read that. Type {ACCEPTS}."
    if len(text) > MAX_INPUT:  # after the grammar, which takes only characters of one UTF-16 unit
        return f"That is too long to be an answer. Type {ACCEPTS}."
    _, dollar, number, letter, power, unit = match.groups()
    for word in (unit or "").split("/"):
        if word and word != "%" and word not in _KNOWN:
            return f'Unknown unit "{word}". Type {ACCEPTS}.'
    napkin = number + (letter or "") + (f" * 10^{power}" if power else "") + (" USD" if dollar else "")
    napkin += f" {unit}" if unit else ""
    try:
        with metered(LINE_WORK):
            normal = normalise(napkin)
            value = value_of(read_term(tokenize(normal), normal), modes)
    except NapkinError as exc:  # not expected for what the grammar takes: said, not raised
        return f"Cannot read that ({exc}). Type {ACCEPTS}."
    if value.stated is None or value.unknown:
        return f"Cannot read that. Type {ACCEPTS}."
    return {m: Reading(q.value, value.stated[m], q.dims) for m, q in value.by_mode.items()}


def agrees(exact: Fraction, typed: Reading) -> bool:
    """The audit's `=` tolerance (equations.within_tolerance); a typed zero means zero (equations.agrees)."""
    if typed.quantum == 0 or typed.value == 0:
        return typed.value == exact
    return within_tolerance(exact, typed.value, typed.quantum, approx=False)


def grade(text: str, answer: dict[str, Any]) -> Verdict:
    """A typed answer against a page fact's answer (checks/facts.py: `modes`, each with `b_billions`,
    `binary_kb`, `value` as "num/den" and `dims`; `text`)."""
    modes = [
        (Mode(m["b_billions"], m["binary_kb"]), _fraction(m["value"]), tuple(m["dims"]))
        for m in answer["modes"]
    ]
    readings = read(text, tuple(m for m, _, _ in modes))
    if isinstance(readings, str):
        return Verdict("unreadable", readings)
    same = [(exact, readings[m]) for m, exact, dims in modes if readings[m].dims == dims]
    if any(agrees(exact, typed) for exact, typed in same):
        return Verdict("right", f"Right: the worked answer says {answer['text']}.")
    if same:
        exact, typed = same[0]
        side = "high" if typed.value > exact else "low"
        return Verdict("wrong", f"Not right: too {side}, past the tolerance. Try again, or show the answer.")
    typed_dims, answer_dims = readings[modes[0][0]].dims, modes[0][2]
    return Verdict("wrong-unit", f"That is {kind(typed_dims)}; the answer is {kind(answer_dims)}.")


def _fraction(text: str) -> Fraction:
    numerator, _, denominator = text.partition("/")
    return Fraction(int(numerator), int(denominator or 1))


def rational(value: Fraction) -> str:
    """A Fraction as page facts carry it: "num/den", exact."""
    return f"{value.numerator}/{value.denominator}"


def mode_fields(mode: Mode) -> dict[str, bool]:
    return {"b_billions": mode.suffix_b_is_billion, "binary_kb": mode.binary_kb}


def units_table() -> dict[str, Any]:
    """What the page's grader needs, compiled from qbank.napkin.units: the grammar, each word's
    scale (a rational) and dimensions in each mode, the magnitude letters, and the kinds' names."""
    words = {
        word: [[rational(q.value), list(q.dims)] for q in (unit_of(word, m) for m in units.MODES)]
        for word in VOCABULARY
    }
    letters = {
        letter: [
            [rational(q.value), list(q.dims)]
            for q in (number_quantity(Fraction(1), letter, m) for m in units.MODES)
        ]
        for letter in SUFFIX
    }
    return {
        "grammar": GRAMMAR,
        "max_input": MAX_INPUT,
        "accepts": ACCEPTS,
        "modes": [mode_fields(m) for m in units.MODES],
        "words": words,
        "letters": letters,
        "percent": "1/100",
        "usd": list(units.dims(usd=1)),
        "base": list(units.BASE),
        "kinds": [[list(d), name] for d, name in KINDS.items()],
    }
