"""Find the equations in napkin-math prose and re-check each one exactly.

An equation is a chain of terms joined by relations: `a = b = c`, `≈`, `~`, `->`. A term is the
longest run of math around a relation: numbers, units, operators, functions, and words that follow
a number (`8 heads`, `tokens/s`). Parenthesised words are notes (`16 GB (weights)`); a parenthesised
number right after a stated value restates it (`0.0065536 (6.5 * 10^-3)`).

Tolerance (`qbank explain arithmetic`): each stated value is compared with the exact value of the
last computed expression before it in the chain. `=` accepts the exact value rounded or truncated
to the stated digits; `≈`, `~` and `= ~x` as within_tolerance says.
`->` is a step ("becomes"): it counts as an equation only when both sides agree.

Work is metered (qbank/napkin/meter.py): a line may do LINE_WORK, and the lines of one file
together FILE_WORK (a `Budget`); past that, the lines left are counted and reported, not checked.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from qbank import memo
from qbank.napkin import symbolic, units
from qbank.napkin.evaluate import (
    FUNCTIONS,
    NAMES,
    Node,
    Quantity,
    UnitError,
    duration_goes_on,
    evaluate,
    format_number,
    is_call,
    is_known,
    is_unit,
    mode_dependent,
    of_joins,
    parse,
    replaced,
    unit_of,
)
from qbank.napkin.lexer import MAX_TEXT, LimitError, NapkinError, Token, normalise, tokenize
from qbank.napkin.meter import WorkLimit, charge, metered, spend
from qbank.napkin.readings import (
    CARRIED,
    Rewrite,
    as_one,
    at_divides,
    b_mixes,
    conversions,
    corners,
    is_mac,
    labels,
    macs_as_two,
    percent_points,
)
from qbank.napkin.symbolic import cited
from qbank.napkin.units import Mode

# The tolerance policy (`qbank explain arithmetic`), from the stated values that pass in the two
# StaffML corpora, the anchor's recall set and the bank (issue 25, item 2; tools/napkin_corpus.py):
# no `≈` there needs more than one unit in its last digit or 1%, except two errors the anchor's own
# audit found (`≈ 32.7 TFLOPs` for 32.0, `≈ 21.1 GiB` for 20.6: 2.2% and 2.3% off), which the old
# 5% band let pass; and no `=` is more than 5% off, except `5 / 3 = 2x` kinds of overstatement.
APPROX_SHARE = Fraction(1, 100)
EQUAL_SHARE = Fraction(5, 100)
PROSE_SHARE = Fraction(5, 100)  # a result this far off is wrong even with unknown words after it
MAX_CONVERSIONS = (
    4  # conversion literals whose every subset is tried (15 readings); past that, each alone and all
)
_ZERO, _ONE = Fraction(0), Fraction(1)
_BULLET = re.compile(r"^\s*(?:[-*+•]|\d+[.)])\s+")
_RELATION = re.compile(
    r"[=≈~→<>≤≥⇒≃≅＝≒]|\\u(?:224[358]|2192|21[dD]2|226[45])"
)  # and `\u2248` written out (lexer); `＝` and `≒` as the lexer reads them (= and ≈)
_DIGIT = re.compile(r"\d")
MAX_LINE = MAX_TEXT
_APPROX_RELS = {"≈", "≃", "≅", "~"}
_STEP_RELS = {"->", "→", "=>", "⇒"}
_BELOW, _ABOVE = {"<": True, "<=": False, "≤": False}, {">": True, ">=": False, "≥": False}  # strict?
_STOPS = {".", ":", ";", "!", "?", "|", "&", "#", "=", "\\", '"'}
# Work, in the meter's units (qbank/napkin/meter.py): what a line and a file's napkin math may cost,
# far above what the bank's costliest line and file need (benchmarks/README.md, work meter).
LINE_WORK = 5_000_000
FILE_WORK = 20_000_000
# Finding, reading and comparing terms, besides their arithmetic, per token of a line with math
# (benchmarks/README.md, work meter).
TOKEN = 1_000


@dataclass
class Term:
    tokens: list[Token]
    text: str
    approx: bool = False  # written `~x`
    label: bool = False  # a bare number after words, as in `K=5 rounds = …`: maybe a name, not math
    unreadable: str = ""  # why this term cannot be evaluated, when the scan already knows
    lead: Term | None = None  # `2.76 MB` in `… = 2.76 MB * 60 = …`, a chain's middle term only: see _lead
    titled: bool = False  # a label with only words before it in its sentence: `Total 700 GB = …`
    low: Term | None = None  # a stated range's low end, in the high end's units: `10 GB` of `10-20 GB`


@dataclass(frozen=True, slots=True)
class Outcome:
    """One relation between two terms, checked or not."""

    status: str  # ok, arithmetic, unit-mismatch, unchecked, limit, skipped
    text: str  # the relation as written (normalised)
    message: str = ""
    line: str = ""  # the source line it was found on


@dataclass
class Budget:
    """The work the napkin math of one file may still do, shared by its fields. Once it is spent,
    the lines with math that are left are kept here, not checked."""

    left: int = FILE_WORK
    skipped: list[str] = field(default_factory=list)

    def outcome(self) -> Outcome | None:
        """The one outcome that says how many lines were not checked, at the first of them."""
        if not self.skipped:
            return None
        n = len(self.skipped)
        message = f"napkin math in this file exceeds the work budget; {n:,} line{'s' * (n > 1)} not checked"
        return Outcome("limit", self.skipped[0][:60], message, self.skipped[0])


def check_text(text: str, budget: Budget | None = None) -> list[Outcome]:
    """Every relation in a block of napkin-math prose, in order, with its verdict. Each line is
    charged to `budget` (none: no limit but each line's own)."""
    outcomes: list[Outcome] = []
    end = 0  # of the line in text
    for line in text.splitlines(keepends=True):
        start, end = end, end + len(line)
        line = _without_heading(line.rstrip("\r\n"))
        if budget is not None and budget.left <= 0:
            if _has_math(line):
                budget.skipped.append(line.strip())
        elif len(line) > MAX_LINE:  # checked before the memory below, which would keep such a line
            message = f"a line of {len(line)} characters is over the limit of {MAX_LINE}"
            outcomes.append(Outcome("limit", line.strip()[:60], message, line.strip()))
        else:
            found, cost = _line_outcomes(line)
            if any(o.status in ("arithmetic", "unchecked") for o in found):  # rare: the block is read
                found, cost = _in_block(line, found, cost, text[:start], set(_results(outcomes)))
            outcomes += found
            if budget is not None:
                budget.left -= cost
    return outcomes


# A line's leading bold heading, `**Conclusion:**`, `**The Pitfall:**`: never math, so a relation on
# its line is shown (and placed, by its text) from where the math starts, as in a section's body.
_HEADING = re.compile(r"^\s*\*\*[^*\n]{1,80}\*\*:?")


def _without_heading(line: str) -> str:
    """The line with its leading heading, if any, blanked out (its length kept)."""
    return _HEADING.sub(lambda m: " " * len(m.group()), line, count=1)


def shown_line(line: str) -> str:
    """A source line as its outcomes give it (Outcome.line): less a leading heading, stripped."""
    return _without_heading(line).strip()


# The value stated last in an equation: after its last `=`, `≈` or `~`, maybe with `$`.
_RESULT = re.compile(r"[=≈~]\s*~?\s*\$?(\d[\d,]*(?:\.\d+)?)[^=≈~]*$")


def _results(found: Sequence[Outcome]) -> Iterator[str]:
    """The numbers stated as the results of computed expressions (`… = 2.07 MB`), as written: a
    definition (`N = 2`) is no equation, so never one of them."""
    for o in found:
        match = _RESULT.search(o.text) if o.status in ("ok", "arithmetic") else None
        if match:
            yield match.group(1)


def _in_block(
    line: str, found: tuple[Outcome, ...], cost: int, before: str, results: set[str]
) -> tuple[tuple[Outcome, ...], int]:
    """A line that fails, read again with what the block says above it (`before`: the lines above,
    then this one up to the first name it uses), when that can change its verdict: the names its
    outcomes cite, as names (qbank/napkin/symbolic.py: a name bound above stands for its value, so a
    later `N=5B` of another N never changes `2N × 512 = 7.5T`), until no new name is cited, three
    rounds at most; and the numbers the equations above stated as results (readings.corners). Not
    kept in _line_outcomes' memory: this depends on the block."""
    carried = frozenset(c for c in results if re.search(rf"(?<![\d.,]){re.escape(c)}(?![\d]|[.,]\d)", line))
    names: frozenset[str] = frozenset()
    for _ in range(3):
        new = cited(o.message for o in found if o.status == "unchecked") - names
        if not (new or carried and not names):
            break
        names |= new
        found_above = symbolic.bindings(before + line[: symbolic.first_use(line, names)]) if names else {}
        bound = {name: value for name, value in found_above.items() if name in names}
        with symbolic.reading(names, bound, carried), metered(LINE_WORK) as meter:
            again = _equations(_BULLET.sub("", line))
        cost += meter.spent
        shown = line.strip()
        found = tuple(
            Outcome(o.status, o.text, _with_values(o, bound), shown) for o in again if o.status != "skipped"
        )
        if not names:
            break
    return found, cost


def _with_values(outcome: Outcome, bound: dict[str, tuple[str, Node]]) -> str:
    """A failed relation's message, with the values it used for names: `(with N = 3)`."""
    used = [
        f"{n} = {v}"
        for n, (v, _) in bound.items()
        if re.search(rf"(?<![A-Za-z_]){re.escape(n)}(?!\w)", outcome.text)
    ]
    if outcome.status not in ("arithmetic", "unit-mismatch", "labels") or not used:
        return outcome.message
    return f"{outcome.message} (with {', '.join(used)})"


def _has_math(line: str) -> bool:
    math = _BULLET.sub("", line)
    return bool(_RELATION.search(math) and _DIGIT.search(math))


# Lines recur: realistic_solution restates the napkin math, and questions share steps. A line's
# outcomes are computed once and then shared, which is safe because they are frozen; so is the work
# they cost, which each file that has the line is charged again, as if it had computed them itself.
@memo.cached("napkin.equations.line_outcomes")
def _line_outcomes(line: str) -> tuple[tuple[Outcome, ...], int]:
    """The outcomes of one source line, each knowing that line (skipped relations left out), and
    the work they cost."""
    if not _has_math(line):
        return (), 0
    shown = line.strip()
    with metered(LINE_WORK) as meter:
        found = _equations(_BULLET.sub("", line))
    outcomes = tuple(Outcome(o.status, o.text, o.message, shown) for o in found if o.status != "skipped")
    return outcomes, meter.spent


def _equations(line: str) -> list[Outcome]:
    try:
        text = normalise(line)
        tokens = tokenize(text)
    except LimitError as exc:
        return [Outcome("limit", line.strip()[:80], str(exc))]
    outcomes: list[Outcome] = []
    try:
        spend(TOKEN * len(tokens))
        for segment in _segments(tokens):
            for chain, relations in _chains(segment, text):
                outcomes += _check_chain(chain, relations)
    except WorkLimit:
        message = (
            f"napkin math on this line needs more than {LINE_WORK:,} units of work; the rest not checked"
        )
        outcomes.append(Outcome("limit", line.strip()[:80], message))
    return outcomes


def stated(text: str) -> tuple[Fraction, Fraction | None]:
    """A number written in a claim (`"1e-7"`, `"65,536"`, `"2^-24"`, `"19%"`): its exact value and,
    when it is a stated value rather than an expression, one unit in its last digit. The work it
    costs is charged to the current meter, from the memory below or not."""
    found, cost = _stated(text)
    spend(cost)
    if isinstance(found, NapkinError):
        raise found.with_traceback(None)  # the same object each time: its old traceback would grow
    return found


@memo.cached("napkin.equations.stated")
def _stated(text: str) -> tuple[tuple[Fraction, Fraction | None] | NapkinError, int]:
    """A stated number or why it is not one (both kept by the memory), and the work it cost."""
    with metered(LINE_WORK) as meter:
        try:
            return _read_stated(text), meter.spent
        except NapkinError as exc:
            return exc, meter.spent


def _read_stated(text: str) -> tuple[Fraction, Fraction | None]:
    normal = normalise(text)
    term = read_term(tokenize(normal), normal) if text.strip() else None
    if term is None or not term.tokens:
        raise NapkinError(f"{text!r} is not a number")
    value = value_of(term, units.MODES[:1])
    quantity = value.by_mode[units.MODES[0]]
    if quantity.dims != units.NONE or value.unknown:
        raise NapkinError(f"{text!r} is not a plain number")
    return quantity.value, value.stated[units.MODES[0]] if value.stated else None


def agrees(exact: Fraction, text: str, approx: bool = False) -> bool:
    """Whether a stated number matches an exact value under the tolerance of `qbank explain arithmetic`."""
    value, quantum = stated(text)
    # A claimed zero means zero, not "rounds to 0 digits"; a zero quantum (`ln(4)`: its digit's unit
    # gives ln(1) = 0) states no digits to round to.
    if not quantum or value == 0:
        return value == exact
    return within_tolerance(exact, value, quantum, approx)


def calculations(napkin_math: str) -> str:
    """The **Calculations:** section of a napkin_math block (up to the conclusion marker). Where the
    marker is written otherwise (`2. Calculations:`, `**Calculation:**`: the `napkin-math-markers`
    finding says so) the section under that heading, and with no heading at all the whole block:
    a missing marker never hides the arithmetic (issue 25; an equation planted in such a file gave
    0 equations)."""
    match = re.search(r"\*\*Calculations:?\*\*:?(.*?)(?=\n[^\n]*\*\*Conclusion|\Z)", napkin_math, re.S)
    if match:
        return match.group(1)
    loose = re.search(
        r"(?im)^[\s>*#\d.)-]*\**\s*calculations?\s*\**\s*:\s*\**(.*?)(?=^[\s>*#\d.)-]*\**\s*conclusion|\Z)",
        napkin_math,
        re.S,
    )
    return loose.group(1) if loose else napkin_math


# --- finding terms -------------------------------------------------------------------------------


def _segments(tokens: list[Token]) -> Iterator[list[Token]]:
    """Split at sentence punctuation, at commas outside parentheses, and at enumerators: `(7) 256
    requests x 4096 tokens = …` is item 7, not 7 times 256."""
    depth, start = 0, 0
    for i, token in enumerate(tokens):
        if token.kind == "lparen" and _enumerator(tokens, i):
            yield tokens[start:i]
            start = i + 3
        elif token.kind == "lparen":
            depth += 1
        elif token.kind == "rparen":
            depth = max(0, depth - 1)
        elif (token.kind == "other" and token.text in _STOPS) or (token.kind == "comma" and depth == 0):
            yield tokens[start:i]
            start = i + 1
    yield tokens[start:]


def _enumerator(tokens: list[Token], i: int) -> bool:
    """`(7)` or `(b)` at the start or after a space and a word (`sqrt(2)` is a call), before a space."""
    if i + 3 >= len(tokens) or tokens[i].kind != "lparen" or tokens[i + 2].kind != "rparen":
        return False
    item, after = tokens[i + 1], tokens[i + 3]
    is_item = item.kind == "num" and len(item.text) <= 2 or item.kind == "word" and len(item.text) == 1
    before = tokens[i - 1] if i else None
    return (
        is_item
        and after.spaced
        and (
            before is None
            or tokens[i].spaced
            and before.kind in ("word", "other")
            and before.text not in FUNCTIONS
        )
    )


def _chains(segment: list[Token], text: str) -> Iterator[tuple[list[Term], list[str]]]:
    """Chains of terms and the relations between them (relations[i] joins terms i and i+1)."""
    rels = [
        i
        for i, t in enumerate(segment)
        if t.kind == "rel" or t.kind == "tilde" and _tilde_relation(segment, i)
    ]
    rels = [r for r in rels if r + 1 not in rels]  # `= ≈ 33 GB`: the second relation says it
    terms: list[Term] = []
    relations: list[str] = []
    floor = 0
    for n, r in enumerate(rels):
        if not terms:
            lhs = _backward(segment, r, floor, text)
            terms, relations = ([lhs] if lhs else []), []
        end = rels[n + 1] if n + 1 < len(rels) else len(segment)
        rhs, stop = _forward(segment, r + 1, end, text)
        if not terms or rhs is None:
            if len(terms) > 1:
                yield terms, relations
            if rhs is not None and stop == end and _bare(rhs.tokens):
                rhs.label = True  # `K=5 rounds = …`: the value of a name the scan could not read
            terms, relations, floor = ([rhs] if rhs and stop == end else []), [], stop
            continue
        relations.append(segment[r].text)
        terms.append(rhs)
        if stop == end and n + 1 < len(rels):
            rhs.lead = _lead(rhs, text)
        _restatement(terms, relations, text)
        if stop < end:  # words between this term and the next relation: the chain ends here
            yield terms, relations
            terms, relations, floor = [], [], stop
    if len(terms) > 1:
        yield terms, relations


def _lead(term: Term, text: str) -> Term | None:
    """The value a chain's middle term states before it goes on with an operator: `2.76 MB` in
    `1280 x 720 x 3 = 2.76 MB * 60 = 166 MB/s` (a running calculation: see _goes_on)."""
    tokens = term.tokens
    for k in range(1, len(tokens) - 1):
        token = tokens[k]
        if (token.kind == "times" or token.kind == "op" and token.text in "*/+-") and tokens[
            k + 1
        ].kind in _OPERANDS:
            return read_term(tokens[:k], text, term.approx) if _bare(tokens[:k]) else None
    return None


def _tilde_relation(segment: list[Token], i: int) -> bool:
    """`a ~ b` relates; `= ~105 ms` and `~6e-5` only mark a value as approximate."""
    token = segment[i]
    if token.kind != "tilde" or i == 0:
        return False
    after = segment[i + 1] if i + 1 < len(segment) else None
    return (
        segment[i - 1].kind in ("num", "word", "rparen", "percent")
        and token.spaced
        and bool(after and after.spaced)
    )


def _math_word(word: str) -> bool:
    return is_known(word) or _joins(word) or word in NAMES.get()


def _match(segment: list[Token], i: int, step: int, lo: int, hi: int) -> int:
    """The index of the parenthesis matching segment[i] (scanning by `step`), or -1."""
    opening, closing = ("lparen", "rparen") if step > 0 else ("rparen", "lparen")
    depth = 0
    j = i
    while lo <= j < hi:
        kind = segment[j].kind
        depth += (kind == opening) - (kind == closing)
        if depth == 0:
            return j
        j += step
    return -1


def _group_kind(group: Sequence[Token], before: Token | None) -> str:
    """math (numbers and math only), note (no numbers: `(weights)`), or prose."""
    has_number = any(t.kind == "num" for t in group)
    symbolic = before is not None and (before.kind == "op" and before.text == "^" or before.text in FUNCTIONS)
    if not has_number:
        return "prose" if symbolic else "note"
    call = before is not None and before.text in FUNCTIONS
    for k, token in enumerate(group):
        if token.kind == "comma" and not call:
            return "prose"
        if token.kind == "word" and not _math_word(token.text) and not _follows_number(group, k):
            return "prose"
        if token.kind in ("other", "rel", "range", "ambiguous"):
            return "prose"
    return "math"


def _follows_number(tokens: Sequence[Token], k: int, floor: int = 0) -> bool:
    """A word right after a number (or after such words) annotates it: `8 heads`, `14 GB weights`;
    so does a word after a unit and `/`. Only tokens[floor:k] are looked at."""
    j = k - 1
    if (
        j - 1 >= floor
        and tokens[j].text == "/"
        and tokens[j - 1].kind == "word"
        and is_unit(tokens[j - 1].text)
    ):
        return True  # `4TB/aggregation`: per one of a thing, as `/GPU` is
    while j >= floor and tokens[j].kind == "word":
        if is_known(tokens[j].text):
            return True
        j -= 1
    return j >= floor and tokens[j].kind in ("num", "percent", "rparen")


def _backward(segment: list[Token], r: int, floor: int, text: str) -> Term | None:
    kept: list[Token] = []
    approx = False
    j = r - 1
    while j >= floor:
        token = segment[j]
        if token.kind == "rparen":
            k = _match(segment, j, -1, floor, r)
            kind = (
                _group_kind(segment[k + 1 : j], segment[k - 1] if k > floor else None) if k >= 0 else "prose"
            )
            if kind == "prose":
                break
            if kind == "math":
                kept[:0] = segment[k : j + 1]
            j = k - 1
            continue
        if token.kind == "tilde":
            approx, j = True, j - 1
            continue
        if (
            token.kind == "range"
            and kept
            and kept[0].kind == "num"
            and j > floor
            and segment[j - 1].kind == "num"
        ):
            kept.insert(0, token)  # `1-5 ms + 2-5 ms = …`: a computed range (_at_ends)
            j -= 1
            continue
        if not (of_joins(segment, j) and j - 2 >= floor) and (
            not _mathy(token, segment, j, floor)
            or (
                _annotation(token)
                and kept
                and kept[0].kind in _OPERANDS
                and not _at(token, segment, j, floor)
            )
        ):
            break
        kept.insert(0, token)
        j -= 1
    if j >= floor and segment[j].kind == "range":
        return None  # `1-5 ms`: a range, not a value
    name = _name_operand(segment[j] if j >= floor else None, kept[0] if kept else None)
    cut = False
    while kept and (kept[0].kind == "op" and kept[0].text in "*/+^" or kept[0].kind == "times"):
        kept.pop(0)
        cut = True
    while (
        kept
        and kept[0].kind == "word"
        and not (kept[0].text in FUNCTIONS or kept[0].text in ("e", *NAMES.get()))
    ):
        word = kept.pop(0)
        if kept and kept[0].kind == "op" and kept[0].text in "*/+-^" and not name:
            name = word.text  # `W - 1 = 3`: a word that is also a unit, as an operand (not dropped)
    if not any(t.kind == "num" for t in kept):
        return None
    after_words = j < floor and floor > 0 and segment[floor - 1].kind == "word"  # `… vs initial 1.0% = …`
    label = _bare(kept) and (j >= floor or after_words or any(_annotation(t) for t in kept))
    reason = _no_value(name) if name else "it is the end of a longer expression" if cut else ""
    term = read_term(kept, text, approx, label, reason)
    # `Total 700 GB = …`, not `Add peak activations (~800 MB) = 5.54 GB`: a note on a running sum
    words = all(t.kind == "word" for t in segment[floor : j + 1])
    term.titled = (
        label and j >= floor and words and kept[0].kind != "lparen" and not _quantified(segment, floor, j)
    )
    return term


# Words that make the value after them a part or a multiple of what is stated, not a title's measure:
# `half of the 80 GB = 40 GB` is right, and reads as no claim about 80 GB.
_QUANTIFIERS = frozenset(
    {"of", "half", "third", "quarter", "twice", "double", "triple", "each", "every", "per"}
)


def _quantified(segment: list[Token], floor: int, j: int) -> bool:
    """Whether the words before segment[j + 1] end with a quantifier (an article between allowed)."""
    while j >= floor and segment[j].kind == "word" and segment[j].text.lower() in ("the", "a", "an", "all"):
        j -= 1
    return j >= floor and segment[j].kind == "word" and segment[j].text.lower() in _QUANTIFIERS


def _at(token: Token, segment: list[Token], j: int, floor: int) -> bool:
    """`15 ms at 3 mW = 45 uJ`, `200 MB at 5 MB/s = 40 s`: `at` between a quantity and a number,
    on a computed side, joins them (evaluate.Parser._at_number); after a stated value (`= 19.9 ms
    per step at 95`) it starts a condition, and the scan forward stops there as ever."""
    return token.text == "at" and j > floor and segment[j - 1].kind in ("num", "word", "percent", "rparen")


def _has_at(tokens: Sequence[Token]) -> bool:
    return any(t.kind == "word" and t.text == "at" for t in tokens)


def _name_operand(word: Token | None, edge: Token | None, times: bool = True) -> str:
    """`N` in `N - 1`, `P * 2`, `2 * N`: a word that is not a unit, count or function, joined to the
    term by an operator, is an operand with no value, never a note to drop (`N - 1 = 2` was read as
    `- 1 = 2`). Its name, or "" when there is none. A trailing `x` (`times` false) says "a factor
    of", as in `= 12x the feature's use`: the words after it are prose."""
    if word is None or edge is None or not _annotation(word):
        return ""
    return word.text if edge.kind == "times" and times or edge.kind == "op" and edge.text in "*/+-^" else ""


def _no_value(name: str) -> str:
    return f"it uses {name!r}, a name with no value here"


_OPERANDS = ("num", "lparen", "dollar")


def _joins(word: str) -> bool:
    """Words after which a number or group continues the math: `ln(2)`, `per 20 ms`."""
    return word in FUNCTIONS or word in ("per", "e")


def _annotation(token: Token) -> bool:
    """A word that is neither a unit, a count nor a function: a note such as `weights`."""
    return token.kind == "word" and not _math_word(token.text)


def _mathy(token: Token, tokens: Sequence[Token], end: int, floor: int = 0) -> bool:
    """Whether a token belongs to a term, given the tokens before it, tokens[floor:end] (a word only
    after a number)."""
    if token.kind in ("num", "op", "times", "dollar", "percent"):
        return True
    if token.kind == "word":
        return _math_word(token.text) or _follows_number(tokens, end, floor)
    return False


def _forward(segment: list[Token], start: int, end: int, text: str) -> tuple[Term | None, int]:
    kept: list[Token] = []
    approx = False
    j = start
    while j < end:
        token = segment[j]
        if token.kind == "tilde":
            approx, j = True, j + 1
            continue
        if (
            kept
            and kept[-1].kind == "word"
            and not _joins(kept[-1].text)
            and (token.kind in ("num", "dollar") or (token.kind == "lparen" and _annotation(kept[-1])))
            and not _compound(kept, segment, j, end)
        ):
            break  # `18.5 ms at about 3 W`, `frames/s at batch 4`: a number after words starts new prose
        if token.kind == "lparen":
            k = _match(segment, j, 1, j, end)
            kind = (
                _group_kind(segment[j + 1 : k], segment[j - 1] if j > start else None) if k >= 0 else "prose"
            )
            if kind == "prose":
                break
            if kind == "math":
                kept += segment[j : k + 1]
            j = k + 1
            continue
        if token.kind == "rparen" or not _mathy(token, kept, len(kept)):
            break
        kept.append(token)
        j += 1
    if j < end and segment[j].kind == "range":
        return _range(kept, segment, j, end, text, approx)
    name = _name_operand(segment[j] if j < end else None, kept[-1] if kept else None, times=False)
    cut = False
    while kept and kept[-1].kind in ("op", "dollar", "times"):
        cut = cut or kept[-1].kind != "times"  # a trailing `x` in `3.3x` says "times", nothing is cut
        kept.pop()
    if not any(t.kind == "num" for t in kept):
        return None, j
    reason = _no_value(name) if name else "it is the start of a longer expression" if cut else ""
    return read_term(kept, text, approx, unreadable=reason), j


def _compound(kept: list[Token], segment: list[Token], j: int, end: int) -> bool:
    """Whether the number at `j` goes on a duration (`= 1 h 30 min`), as the parser reads it
    (evaluate.duration_goes_on)."""
    unit = segment[j + 1] if j + 1 < end else None
    return len(kept) > 1 and kept[-2].kind == "num" and duration_goes_on(kept[-1].text, segment[j], unit)


def _range(
    low: list[Token], segment: list[Token], j: int, end: int, text: str, approx: bool
) -> tuple[Term | None, int]:
    """`= 10-20 GB`, `= 700–800 GB`: a stated range claims the value lies in it (issue 31). The high
    end as the term, with the low end, in its units, beside it. Anything else before a dash (`2 ×
    3-4 GB`) is no term."""
    if len(low) != 1 or low[0].kind != "num" or low[0].suffix:
        return None, j
    high, stop = _forward(segment, j + 1, end, text)
    if high is None or high.low or high.unreadable or high.tokens[0].kind != "num" or not _bare(high.tokens):
        return None, stop
    high.low = read_term([low[0], *high.tokens[1:]], text)
    high.low.text = text[low[0].start : high.tokens[-1].start + len(high.tokens[-1].text)]  # as written
    high.approx = high.approx or approx
    return high, stop


def _bare(tokens: Sequence[Token]) -> bool:
    """A single number with its units and notes: `5 rounds`, `28GB`, `$3`, `(200 MB)`, `20x`; not a
    function of one (`sqrt(2400)`, `ceil(3.75)`), which is an expression."""
    return (
        sum(t.kind == "num" for t in tokens) == 1
        and all(
            t.kind in ("num", "word", "dollar", "percent", "times", "lparen", "rparen", "tilde")
            or (t.kind == "op" and t.text == "/")
            for t in tokens
        )
        and not any(is_call(t, tokens[k + 1], operand=False) for k, t in enumerate(tokens[:-1]))
    )


# read_term, value_of, evaluate_term, within_tolerance and Value are the audit's own reader and
# tolerance, public for what must read numbers exactly as it does: the typed-answer grader
# (napkin/answer.py) and the page facts (checks/facts.py).
def read_term(
    tokens: list[Token], text: str, approx: bool = False, label: bool = False, unreadable: str = ""
) -> Term:
    shown = text[tokens[0].start : tokens[-1].start + len(tokens[-1].text)]
    approx = approx or any(t.kind == "tilde" for t in tokens)
    return Term([t for t in tokens if t.kind != "tilde"], shown.strip(), approx, label, unreadable)


def _restatement(terms: list[Term], relations: list[str], text: str) -> None:
    """`0.0065536 (6.5 * 10^-3)`, `312.5 s (5.2 minutes) of audio`: a parenthesised number right
    after a stated value restates it; split it off as a term of its own."""
    last = terms[-1].tokens
    k = next((i for i, t in enumerate(last) if t.kind == "lparen"), -1)
    if k <= 0 or not _bare(last[:k]):
        return
    close = _match(last, k, 1, k, len(last))
    if close < 0 or any(t.kind != "word" for t in last[close + 1 :]):
        return
    inner = last[k + 1 : close]
    approx = bool(inner) and inner[0].kind == "tilde"
    inner = inner[1:] if approx else inner
    words_ok = all(t.kind != "word" or is_known(t.text) for t in inner)
    percent_ok = any(t.kind == "percent" for t in inner) <= any(t.kind == "percent" for t in last[:k])
    terms[-1] = read_term(last[:k], text, approx=terms[-1].approx)
    if words_ok and percent_ok and any(t.kind == "num" for t in inner):
        terms.append(read_term(inner, text, approx=approx))
        relations.append("(=)")


# --- checking ------------------------------------------------------------------------------------


@dataclass
class Value:
    by_mode: dict[Mode, Quantity]
    stated: dict[Mode, Fraction] | None  # one unit in the last stated digit, for a bare value
    unit: dict[Mode, Quantity] | None  # a bare value's written unit: `inferences/hour`
    unit_text: str  # and how it is written
    unknown: tuple[str, ...]
    tokens: list[Token]  # the term's tokens, for the two properties below: most values never need them

    @functools.cached_property
    def literal_share(self) -> Fraction:
        """Expressions: the rounding share carried by their decimal inputs (half a unit in the last
        digit of each decimal, a quantum below 1, relative to it)."""
        return sum(
            (
                _half_unit(t.value, t.quantum)
                for t in self.tokens
                if t.kind == "num" and t.value and t.quantum and t.quantum.denominator > 1
            ),
            _ZERO,
        )

    @functools.cached_property
    def has_units(self) -> bool:
        """Whether any unit word (or `$`, `%`) is written."""
        return any(
            t.kind in ("dollar", "percent") or t.kind == "word" and is_unit(t.text) for t in self.tokens
        )


def _check_chain(terms: list[Term], relations: list[str]) -> list[Outcome]:
    modes = _modes(terms)
    values = [
        _in_decibels(term, modes)
        if "dB" in term.text and _decibels(term.tokens)
        else _at_ends(term, modes, high=True)
        if _has_range(term)
        else evaluate_term(term, modes)
        for term in terms
    ]
    while len(values) > 2 and isinstance(values[0], Outcome) and _symbolic(terms[0]):
        values.pop(0)  # a symbolic left side, as in `Bubble = (p - 1)/(m + p - 1) = 7/23 = 0.304`
        terms, relations = terms[1:], relations[1:]
    units_written = _written_units(terms, values, modes)
    outcomes: list[Outcome] = []
    reference = 0
    for i in range(1, len(terms)):
        relation = relations[i - 1]
        shown = f"{terms[reference].text} {relation} {terms[i].text}"
        if relation == "(=)":
            shown = f"{terms[reference].text} = {terms[i].text}"
        a, b = values[reference], values[i]
        if _has_range(terms[reference]) and not isinstance(a, Outcome) and not isinstance(b, Outcome):
            stated_low = terms[i].low
            if stated_low is not None:
                shown = f"{terms[reference].text} {relation} {stated_low.text}"
            ends = (_at_ends(terms[reference], modes, high=False), a)
            outcomes.append(_ranges(ends, terms[i], b, _approx(relation, terms, reference, i), shown, modes))
            continue
        if isinstance(a, Outcome) or isinstance(b, Outcome):
            bad = a if isinstance(a, Outcome) else b
            assert isinstance(bad, Outcome)
            if bad is a and terms[0].label and not terms[0].unreadable and reference == 0:
                bad = Outcome("skipped", shown)  # `r6g.4xlarge cluster = ~$3,456/month`: a name (_excuse)
            if bad.status == "unit-mismatch":  # `$1.6M + $50K × 3 ops`: the sum's own units do not balance
                why = bad.message.rpartition(": ")[2]
                bad = _as_labels(
                    bad, terms[reference], terms[i], _approx(relation, terms, reference, i), shown, why
                )
            outcomes.append(Outcome(bad.status, shown, bad.message))
            reference = i  # `a = 1.2M FLOPs / (…) = c`: what c is compared with is unknown, not a
            continue
        approx = _approx(relation, terms, reference, i)
        inequality = relation in _BELOW or relation in _ABOVE
        free = _free_names(terms[reference], terms[i]) if NAMES.get() else ""
        if free:
            if not inequality:  # `t + f * 18 ms <= 33 ms` bounds f: a condition, not a claim
                message = f"{shown}: depends on {free}, which has no value here"
                outcomes.append(Outcome("unchecked", shown, message))
            reference = i
            continue
        if inequality:
            outcomes.append(_inequality(a, b, relation, shown, modes, terms[reference], reference))
            reference = i if b.stated is None else reference
            continue
        low = terms[i].low
        if low is not None:
            shown = f"{terms[reference].text} {relation} {low.text}"
            bounds = (evaluate_term(low, modes), b)
            outcomes.append(_in_range(a, bounds, relation, shown, modes, terms[reference], reference))
            continue
        outcome = _compare(a, b, approx, shown, units_written, modes)
        if outcome.status != "ok" and terms[i].lead is not None:
            outcome = _goes_on(
                outcome, terms[reference], terms[i], relation, (a, b), approx, units_written, modes
            )
        if outcome.status != "ok" and relation == "(=)" and i - 1 != reference:
            outcome = _restates(outcome, values[i - 1], b, shown, units_written, modes)
        if outcome.status in ("arithmetic", "unit-mismatch"):
            outcome = _reread(outcome, terms[reference], terms[i], (a, b), approx, units_written, modes)
        if relation in _STEP_RELS and (a.unknown or b.unknown):
            outcome = Outcome("skipped", shown)  # `-> 1 failure every 9.6 hours`: prose, not a value
        elif outcome.status not in ("ok", "skipped"):
            outcome = _excuse(outcome, relation, terms[reference], a, b, reference)
        outcomes.append(outcome)
        if b.stated is None or outcome.status == "skipped":
            reference = i  # a stated value never replaces a computed one as the reference
    return outcomes


def _has_range(term: Term) -> bool:
    return any(t.kind == "range" for t in term.tokens)


def _at_ends(term: Term, modes: tuple[Mode, ...], high: bool) -> Value | Outcome:
    """A computed range's value at the high ends of its ranges, or at the low ends: `1-5 ms + 2-5 ms`
    is 3 ms to 10 ms (issue 31). Only where the ends cannot swap: a range that is subtracted, divides
    or sits in a group is not read."""
    tokens = term.tokens
    if any(t.kind == "op" and t.text == "-" for t in tokens) or any(
        _turns(tokens, k) for k, t in enumerate(tokens) if t.kind == "range"
    ):
        return Outcome(
            "unchecked", term.text, f"cannot read {term.text!r}: a range there may turn its ends round"
        )
    kept: list[Token] = []
    k = 0
    while k < len(tokens):
        if k + 2 < len(tokens) and tokens[k + 1].kind == "range":
            kept.append(tokens[k + 2] if high else tokens[k])
            k += 3
        else:
            kept.append(tokens[k])
            k += 1
    return evaluate_term(Term(kept, term.text, term.approx), modes)


def _turns(tokens: list[Token], k: int) -> bool:
    """Whether the range at tokens[k] may be read the wrong way round: in a group (which may be
    divided by), or after an operator other than + and × (`10 GB / 2-5 GB/s`)."""
    depth = sum(t.kind == "lparen" for t in tokens[:k]) - sum(t.kind == "rparen" for t in tokens[:k])
    before = tokens[k - 2] if k >= 2 else None
    return depth > 0 or before is not None and before.kind == "op" and before.text not in ("+", "*")


def _ranges(
    ends: tuple[Value | Outcome, Value],
    stated: Term,
    b: Value,
    approx: bool,
    shown: str,
    modes: tuple[Mode, ...],
) -> Outcome:
    """A computed range against what is stated: a range, whose ends must each agree (`1-5 ms + 2-5 ms
    = 3-10 ms`); one value says nothing about the range's ends, and is not read."""
    low, high = ends
    if isinstance(low, Outcome):
        return Outcome(low.status, shown, low.message)
    if stated.low is None:
        return Outcome("unchecked", shown, f"{shown}: one value stated for a range computed")
    stated_low = evaluate_term(stated.low, modes)
    if isinstance(stated_low, Outcome):
        return Outcome(stated_low.status, shown, stated_low.message)
    written = _written_units([stated], [b], modes)
    verdicts = [_compare(x, y, approx, shown, written, modes) for x, y in ((low, stated_low), (high, b))]
    for verdict in verdicts:
        if verdict.status == "unit-mismatch":
            return verdict
    if all(verdict.status == "ok" for verdict in verdicts):
        return Outcome("ok", shown)
    said = f"{_shown(low.by_mode[modes[0]], b)} to {_shown(high.by_mode[modes[0]], b)}"
    return Outcome("arithmetic", shown, f"{shown}: the left side is {said}")


def _inequality(
    a: Value, b: Value, relation: str, shown: str, modes: tuple[Mode, ...], left: Term, reference: int
) -> Outcome:
    """An inequality's verdict: one that holds with words qbank does not know on either side (`3.2M
    budget while … > 90%`) is prose, not a claim it checked; one that fails is excused as ever."""
    outcome = _holds(a, b, relation, shown, modes)
    if outcome.status == "ok":
        return Outcome("skipped", shown) if a.unknown or b.unknown else outcome
    return _excuse(outcome, relation, left, a, b, reference)


def _in_range(
    a: Value,
    bounds: tuple[Value | Outcome, Value],
    relation: str,
    shown: str,
    modes: tuple[Mode, ...],
    left: Term,
    reference: int,
) -> Outcome:
    """`8 × 80 GB = 600-700 GB` holds: the value is at least the low end and at most the high end,
    each as an inequality reads a stated value (half a unit of its last digit either way)."""
    low, high = bounds
    if isinstance(low, Outcome):
        return Outcome(low.status, shown, low.message)
    for bound, relation in ((low, "≥"), (high, "≤")):
        outcome = _holds(a, bound, relation, shown, modes)
        if outcome.status == "arithmetic":
            exact = _shown(a.by_mode[modes[0]], high)
            outcome = Outcome("arithmetic", shown, f"{shown}: the left side is {exact}, outside the range")
        if outcome.status != "ok":
            return _excuse(outcome, relation, left, a, bound, reference)
    return Outcome("skipped", shown) if a.unknown or high.unknown else Outcome("ok", shown)


def _holds(a: Value, b: Value, relation: str, shown: str, modes: tuple[Mode, ...]) -> Outcome:
    """`2.5 W < 3 W`, `1024 ≥ 2^-14 / 1e-7`: an inequality holds in some reading whose units agree.
    A stated value may be half a unit of its last digit off either way (`≤ 3.2 W` for 3.24), but
    equal values never satisfy a strict one (`8 × 80 GB < 640 GB` fails)."""
    below = relation in _BELOW
    strict = _BELOW[relation] if below else _ABOVE[relation]
    same = [m for m in modes if a.by_mode[m].dims == b.by_mode[m].dims]
    for m in same:
        left, right = a.by_mode[m].value, b.by_mode[m].value
        half = max((v.stated[m] for v in (a, b) if v.stated), default=_ZERO) / 2
        room = (right - left if below else left - right) + half
        if room > 0 and not (strict and left == right) or room == 0 and not strict:
            return Outcome("ok", shown)
    x, y = a.by_mode[modes[0]], b.by_mode[modes[0]]
    if not same:
        return Outcome("unit-mismatch", shown, f"{shown}: {_sides(x.dims, y.dims)}")
    said = {"<": "below", "<=": "at most", "≤": "at most", ">": "above", ">=": "at least", "≥": "at least"}
    return Outcome("arithmetic", shown, f"{shown}: {_shown(x, b)} is not {said[relation]} {_shown(y, b)}")


def _shown(q: Quantity, b: Value) -> str:
    """A value in the unit b writes, where b is a stated value (`640 GB`); else in base units."""
    unit = b.unit[units.MODES[0]] if b.unit and units.MODES[0] in b.unit else None
    if unit is None or not unit.value or unit.dims != q.dims:
        return str(q)
    return _with_unit(format_number(q.value / unit.value), b.unit_text)


def _restates(
    failed: Outcome,
    before: Value | Outcome,
    value: Value,
    shown: str,
    written: dict[Mode, list[Quantity]],
    modes: tuple[Mode, ...],
) -> Outcome:
    """`50,000 h / 4,096 ≈ 12.2 hours (43,920 seconds)`: a parenthesised restatement restates the
    stated value before it (12.2 h is 43,920 s), which may itself be rounded from the expression."""
    if isinstance(before, Outcome) or before.stated is None:
        return failed
    outcome = _compare(before, value, False, shown, written, modes)
    return outcome if outcome.status == "ok" else failed


def _free_names(left: Term, right: Term) -> str:
    """The names with no value in the block that the relation between two terms depends on (sympy
    decides: `(4N)^2 / N^2 = 16x` does not depend on N), quoted; "" when there are none."""
    trees = parse(left.tokens).node, parse(right.tokens).node
    free = (symbolic.names_in(trees[0]) | symbolic.names_in(trees[1])) - symbolic.BOUND.get().keys()
    if not free or not symbolic.depends(*trees, free):
        return ""
    return ", ".join(repr(n) for n in sorted(free))


def _approx(relation: str, terms: list[Term], reference: int, i: int) -> bool:
    return relation in _APPROX_RELS | _STEP_RELS or terms[i].approx or terms[reference].approx


def _reread(
    failed: Outcome,
    left: Term,
    right: Term,
    sides: tuple[Value, Value],
    approx: bool,
    written: dict[Mode, list[Quantity]],
    modes: tuple[Mode, ...],
) -> Outcome:
    """A comparison that fails as written, tried under the other readings an author may mean
    (qbank/napkin/readings.py): rounded results carried forward as intervals, `%` as percentage
    points, `B` number by number, conversion literals as the change of unit they name, and, where
    the units cannot balance, units as labels. Two stated values of different things (`2.2M MACs =
    4.4M cycles`, `$40.96/request = $4,096/year`) are a conversion the line does not show, not an
    equation. When none agrees, the failure closest to agreeing, naming its reading."""
    if _different_things(*sides, modes):
        return Outcome("skipped", failed.text)
    tokens = left.tokens + right.tokens
    if CARRIED.get() and _between_corners(left, right, corners(tokens, CARRIED.get()), modes[0]):
        return Outcome("ok", failed.text)
    closest = (_gap(*sides, modes[0]), failed)
    operands = [t for term in (left, right) if not _bare(term.tokens) for t in term.tokens]
    for said, reading in _readings(tokens, operands, _points(left, right)):
        outcome, gap = _agrees_as(left, right, reading, approx, failed.text, written, modes)
        if outcome.status == "ok":
            return outcome
        if gap < closest[0] and outcome.status == "arithmetic":
            closest = (gap, Outcome(outcome.status, outcome.text, f"{outcome.message} (reading {said})"))
    x, y = (side.by_mode[modes[0]].dims for side in sides)
    if x != y:
        why = _sides(x, y)
        labelled = _as_labels(failed, left, right, approx, failed.text, why)
        if labelled is not failed:
            return labelled
    return closest[1]


def _between_corners(left: Term, right: Term, ends: list[Rewrite], mode: Mode) -> bool:
    """Whether the two sides can be equal for some values of the rounded numbers carried forward
    (readings.corners): their difference changes sign across the corners of the intervals, or comes
    within half a unit of the stated digit."""
    gaps: list[Fraction] = []
    half = _ZERO
    for end in ends:
        a, b = evaluate_term(left, (mode,), end), evaluate_term(right, (mode,), end)
        if isinstance(a, Outcome) or isinstance(b, Outcome) or a.by_mode[mode].dims != b.by_mode[mode].dims:
            return False
        gaps.append(a.by_mode[mode].value - b.by_mode[mode].value)
        stated = b.stated or a.stated
        half = max(half, stated[mode] / 2 if stated else _ZERO)
    return bool(gaps) and min(gaps) <= half and max(gaps) >= -half


def _points(left: Term, right: Term) -> bool:
    """One side is written in percent and the other, a computed one, in percentage points (`1.0% ×
    1.2^3 = 1.0 × 1.728`). Never a stated value: `20% of 10 = 200` is wrong."""
    percent = [any(t.kind == "percent" for t in term.tokens) for term in (left, right)]
    plain = right if percent[0] else left
    return percent[0] != percent[1] and not _bare(plain.tokens)


def _readings(tokens: list[Token], operands: list[Token], points: bool) -> Iterator[tuple[str, Rewrite]]:
    """The other readings of a line, each with how to say it: `%` as percentage points where one
    side is written so, `B` number by number, then the conversion literals among the operands of a
    computed side, each alone and then in every set of them (all of them at once past
    MAX_CONVERSIONS)."""
    if _has_at(tokens):
        yield "`at` as a quotient", at_divides
    if any(t.kind == "word" and is_mac(t.text) for t in tokens):
        yield "a MAC as two operations", macs_as_two
    if points:
        yield "% as percentage points", percent_points
    yield from b_mixes(tokens)
    literals = sorted(conversions(tokens, operands))
    texts = {t.start: t.text for t in tokens}
    sizes = range(1, len(literals) + 1) if len(literals) <= MAX_CONVERSIONS else (1, len(literals))
    for size in sizes:  # `24 days * 24 hours * 3600 seconds`: the second 24 and the 3600, not the first
        for some in itertools.combinations(literals, size):
            said = ", ".join(texts[s] for s in some)
            yield f"{'each of ' if size > 1 else ''}{said} as a change of unit", as_one(frozenset(some))


def _gap(a: Value, b: Value, mode: Mode) -> Fraction:
    """How far apart two sides are in one mode, as a factor (see _ratio); far when they are of
    different dimensions."""
    x, y = a.by_mode[mode], b.by_mode[mode]
    return _ratio(x.value, y.value) if x.dims == y.dims else Fraction(10**30)


def _as_labels(failed: Outcome, left: Term, right: Term, approx: bool, shown: str, why: str) -> Outcome:
    """Units that do not balance (`why`), with numbers that agree once every unit is read as its
    magnitude prefix alone: a `unit-labels` warning rather than an error (`10 GOPS * 60 FPS = 0.6
    TOPS`, GOPS meant per frame). `failed` itself when they do not."""
    modes = units.MODES[:2]
    written: dict[Mode, list[Quantity]] = {m: [] for m in modes}
    if _agrees_as(left, right, labels, approx, shown, written, modes)[0].status != "ok":
        return failed
    return Outcome("labels", shown, f"{shown}: {why}; the numbers agree with the units read as labels")


def _agrees_as(
    left: Term,
    right: Term,
    reading: Rewrite,
    approx: bool,
    shown: str,
    written: dict[Mode, list[Quantity]],
    modes: tuple[Mode, ...],
) -> tuple[Outcome, Fraction]:
    """The comparison under one reading, and how far apart the sides are in it."""
    a, b = evaluate_term(left, modes, reading), evaluate_term(right, modes, reading)
    if isinstance(a, Outcome) or isinstance(b, Outcome):
        return Outcome("unchecked", shown), Fraction(10**30)
    return _compare(a, b, approx, shown, written, modes), _gap(a, b, modes[0])


def _different_things(a: Value, b: Value, modes: tuple[Mode, ...]) -> bool:
    """Two stated values, each with its unit written, of different dimensions in every reading, or
    counting different things (`5 flaps/hr ≈ 40 lost steps per hour`)."""
    if a.unit is None or b.unit is None or a.stated is None or b.stated is None:
        return False
    return all(a.by_mode[m].dims != b.by_mode[m].dims for m in modes) or _things(a) != _things(b)


def _things(value: Value) -> frozenset[str]:
    """The words of a stated value that are no unit: what it counts (`flaps`, `lost steps`)."""
    return frozenset(t.text.lower() for t in value.tokens if t.kind == "word" and not is_unit(t.text))


def _goes_on(
    failed: Outcome,
    left: Term,
    term: Term,
    relation: str,
    sides: tuple[Value, Value],
    approx: bool,
    written: dict[Mode, list[Quantity]],
    modes: tuple[Mode, ...],
) -> Outcome:
    """`1280 x 720 x 3 = 2.76 MB * 60 = 166 MB/s` is a running calculation: the value stated before
    the operator (2.76 MB) is the left side's, and the whole middle term (2.76 MB * 60) is what the
    next link compares. Tried only when the whole middle term does not agree: either reading may
    hold, and the next link is checked the same under both. When neither does, the message is that
    of the reading whose value is nearer the left side's (in base units, in the first mode)."""
    assert term.lead is not None
    value = evaluate_term(term.lead, modes)
    if isinstance(value, Outcome):
        return failed
    outcome = _compare(sides[0], value, approx, f"{left.text} {relation} {term.lead.text}", written, modes)
    if outcome.status == "ok":
        return Outcome("ok", failed.text)
    if _different_things(sides[0], value, modes):
        return Outcome("skipped", failed.text)  # `2.2M MACs = 4.4M cycles / 128 MHz`: see _reread
    x, whole, lead = (v.by_mode[modes[0]].value for v in (sides[0], sides[1], value))
    return outcome if _ratio(x, lead) < _ratio(x, whole) else failed


def _ratio(x: Fraction, y: Fraction) -> Fraction:
    """How far apart two values are, as a factor of at least 1 (a zero is infinitely far)."""
    if x == 0 or y == 0:
        return Fraction(10**30)
    charge(x, y)
    r = abs(x / y)
    return r if r >= 1 else 1 / r


def _symbolic(term: Term) -> bool:
    return any(t.kind == "word" and not _math_word(t.text) for t in term.tokens) or bool(term.unreadable)


def _excuse(outcome: Outcome, relation: str, left: Term, a: Value, b: Value, reference: int) -> Outcome:
    """A failed comparison that may not be an equation after all."""
    if relation in _STEP_RELS:
        if outcome.status == "arithmetic" and not _bare(left.tokens):
            return outcome  # `2 × 3 -> 9`, `80 GB / 2 TB/s = 40 ms → 0.4 s`: a calculation's result
        return Outcome("skipped", outcome.text)  # `240 GB -> 60 GB` is a change, not an equality
    if relation == "(=)" and outcome.status == "unit-mismatch":
        return Outcome("skipped", outcome.text)  # `13.6 ms/token (3.3x speedup)`: another quantity
    if outcome.status == "unit-mismatch" and _has_at(a.tokens):
        return Outcome("skipped", outcome.text)  # `1M MACs at 2 MACs/cycle = 5.2 ms`: a step left out
    if (
        left.label
        and reference == 0
        and not (outcome.status == "arithmetic" and left.titled and _measured(a))
    ):
        return Outcome("skipped", outcome.text)  # `K=5 rounds = 5 * 9.8 + 137`: a name, not a value
    decibels = _decibels(a.tokens) or _decibels(b.tokens)
    if decibels and not (_decibels(a.tokens) and _decibels(b.tokens)):
        return Outcome("unchecked", outcome.text, f"{outcome.message}; {_DECIBEL_REASON}")
    unknown = [w for w in a.unknown + b.unknown if not (decibels and units.is_decibel(w))]
    if a.stated is None:  # `8 GPUs at 80 GB each`: on a computed side, `each` says what × says
        unknown = [w for w in unknown if w not in _EACH or w in b.unknown]
    if unknown and not _clear_despite_prose(outcome, a, b) and not _counted(outcome, a, b):
        words = ", ".join(dict.fromkeys(repr(w) for w in unknown))
        return Outcome("unchecked", outcome.text, f"{outcome.message}; not sure what {words} means here")
    return outcome


def _measured(value: Value) -> bool:
    """A stated value with a unit of measure (`700 GB`, `10.0 s`): after a title (`Total 700 GB = 8 ×
    80 GB`) it is what the line claims, not a name's number (`Step 2`, `ResNet 50`), issue 31. After
    words that follow other math (`… + Adam states (24GB) = 54 GB`) it is only the last part of a
    sum the scan could not read, and stays a label."""
    return value.stated is not None and any(q.dims != units.NONE for q in (value.unit or {}).values())


_EACH = frozenset({"each", "apiece"})
_DECIBEL_REASON = "decibels add on a log scale (two levels do not add as numbers), which is not checked"
# Words after a stated result that change what the number means: a share (`80 GB each`), a rate
# (`5 GB a day`), a difference (`4 GB more`), a bound (`40 GB at least`), what is left (`20 GB
# free`). After any of these the line stays unchecked, as it does after a word that may be a unit.
_REFRAMING = frozenset(
    [
        "each",
        "every",
        "apiece",
        "per",
        "a",
        "an",
        "daily",
        "weekly",
        "monthly",
        "yearly",
        "annually",
        "hourly",
        "nightly",
        "more",
        "less",
        "fewer",
        "extra",
        "additional",
        "saved",
        "saving",
        "savings",
        "increase",
        "decrease",
        "reduction",
        "gain",
        "loss",
        "higher",
        "lower",
        "larger",
        "smaller",
        "bigger",
        "faster",
        "slower",
        "cheaper",
        "over",
        "under",
        "above",
        "below",
        "beyond",
        "short",
        "shortfall",
        "deficit",
        "surplus",
        "excess",
        "margin",
        "difference",
        "delta",
        "headroom",
        "left",
        "remaining",
        "free",
        "spare",
        "unused",
        "available",
        "least",
        "most",
        "max",
        "maximum",
        "min",
        "minimum",
        "bound",
        "limit",
        "cap",
        "not",
    ]
)
# A phrase that ends in one of these was cut before a number or a note (`4 TB to 5 TB`, `2 GB and 8
# GPUs`): what follows may be part of the value, so the line stays unchecked.
_CONNECTORS = frozenset(
    [
        "to",
        "or",
        "and",
        "vs",
        "versus",
        "than",
        "of",
        "for",
        "in",
        "at",
        "from",
        "with",
        "by",
        "on",
        "into",
        "across",
        "about",
        "around",
        "nearly",
        "almost",
        "roughly",
        "approximately",
        "plus",
        "minus",
        "up",
        "down",
        "out",
        "off",
        "as",
        "is",
        "are",
        "was",
        "be",
    ]
)


def _decibels(tokens: Sequence[Token]) -> bool:
    return any(t.kind == "word" and units.is_decibel(t.text) for t in tokens)


def _in_decibels(term: Term, modes: tuple[Mode, ...]) -> Value | Outcome:
    """A term in decibels adds as numbers when it has gains (`dB`) and at most one level (`dBm`,
    `dBμV/m`), since a level plus or minus a gain is a level (`51.5 dBμV/m - 8 dB = 43.5 dBμV/m`):
    it is read with its units as labels (qbank/napkin/readings.py). Two levels do not add so
    (10 dBm + 10 dBm is 13 dBm), and the term stays unchecked."""
    levels = {t.text for t in term.tokens if t.kind == "word" and units.is_decibel(t.text) and t.text != "dB"}
    if sum(t.kind == "word" and t.text in levels for t in term.tokens) > 1:
        return Outcome("unchecked", term.text, f"cannot check {term.text!r}: {_DECIBEL_REASON}")
    return evaluate_term(term, modes, labels)


def _clear_despite_prose(outcome: Outcome, a: Value, b: Value) -> bool:
    """`5M × 200K × 4B = 400TB to sum` (4 TB): a stated number with its unit read, then plain words,
    that misses the computed value by more than PROSE_SHARE (and a unit in its last digit), in every
    reading whose units agree. Words
    on the left, or words that may be a unit or change the meaning, keep the line unchecked."""
    if outcome.status != "arithmetic" or a.unknown or b.stated is None or not _prose_after_unit(b):
        return False
    same = [m for m, q in a.by_mode.items() if q.dims == b.by_mode[m].dims]
    return bool(same) and not any(
        abs(a.by_mode[m].value - b.by_mode[m].value)
        <= max(b.stated[m], PROSE_SHARE * abs(a.by_mode[m].value))
        for m in same
    )


def _counted(outcome: Outcome, a: Value, b: Value) -> bool:
    """`33 concurrent * 640 MiB ≈ 21.1 GiB` (20.6): words that only follow a number in the
    expression name what it counts. Read as counts the units agree, and a word the stated side
    does not repeat cannot be a unit it carries, so the mismatch stands."""
    if outcome.status != "arithmetic" or b.unknown or a.stated is not None:
        return False
    after_number = {t.text for s, t in itertools.pairwise(a.tokens) if s.kind == "num" and t.kind == "word"}
    return all(w in after_number for w in a.unknown)


def _prose_after_unit(b: Value) -> bool:
    """The term is a number, a unit read (`$`, `TB`, `tokens`), then only plain words, the first of
    them the first word qbank does not know: `400TB to sum`, `42.9 GB total`."""
    tokens = b.tokens
    n = next(i for i, t in enumerate(tokens) if t.kind == "num")
    first = next((i for i, t in enumerate(tokens) if t.kind == "word" and t.text in b.unknown), -1)
    read = tokens[n + 1 : first]
    unit_read = any(t.kind == "dollar" for t in tokens[:n]) or bool(read) and read[0].kind == "word"
    if first <= n or not unit_read or not all(is_known(t.text) or t.text == "/" for t in read):
        return False
    prose = tokens[first:]
    return (
        all(t.kind == "word" and "-" not in t.text and not is_unit(t.text) for t in prose)
        and not any(t.text.lower() in _REFRAMING for t in prose)
        and prose[-1].text.lower() not in _CONNECTORS
    )


def evaluate_term(term: Term, modes: tuple[Mode, ...], reading: Rewrite | None = None) -> Value | Outcome:
    if term.unreadable:
        return Outcome("unchecked", term.text, f"cannot read {term.text!r}: {term.unreadable}")
    try:
        return value_of(term, modes, reading)
    except WorkLimit:
        raise  # the line's budget is spent: the line stops here (_equations)
    except UnitError as exc:
        if _decibels(term.tokens):  # `51.5 dBμV/m - 8 dB`: a level less a gain, not two quantities
            return Outcome("unchecked", term.text, f"cannot check {term.text!r}: {_DECIBEL_REASON}")
        return Outcome("unit-mismatch", term.text, str(exc))
    except LimitError as exc:
        return Outcome("limit", term.text, str(exc))
    except NapkinError as exc:
        return Outcome("unchecked", term.text, f"cannot read {term.text!r}: {exc}")


def _modes(terms: list[Term]) -> tuple[Mode, ...]:
    words = {t.text for term in terms for t in term.tokens if t.kind == "word"}
    iec = any("iB" in w or "ibit" in w for w in words)
    suffix_b = any(t.suffix == "B" for term in terms for t in term.tokens)
    modes = tuple(m for m in units.MODES if (suffix_b or m.suffix_b_is_billion) and not (iec and m.binary_kb))
    if not suffix_b and not any(mode_dependent(w) for w in words):
        return modes[:1]  # every mode reads this chain alike: one is enough
    return modes


def _moded(token: Token) -> bool:
    """Whether a token reads differently in some mode: `7B`, `KB`."""
    return token.suffix == "B" or token.kind == "word" and mode_dependent(token.text)


def value_of(term: Term, modes: tuple[Mode, ...], reading: Rewrite | None = None) -> Value:
    """The term's value in each mode; under another reading of its symbols when `reading` rewrites
    its tree (qbank/napkin/readings.py)."""
    parsed = parse(term.tokens)
    same = len(modes) == 1 or not any(_moded(t) for t in term.tokens)
    read = reading or _as_written
    if NAMES.get():  # `N - 1 = 2`: each name as its value in the block (qbank/napkin/symbolic.py)
        named, substitute = read, symbolic.substitute(symbolic.BOUND.get())
        read = lambda node: named(substitute(node))  # noqa: E731 (one use, here)
    by_mode = _in_modes(read(parsed.node), modes, same)
    stated = unit = None
    unit_text = ""
    bare = _bare(term.tokens)
    if bare or _scaled(term.tokens):
        # the term with its first number replaced (in the tree, not parsed again): by one unit in
        # its last digit, and by 1 for the unit alone
        digit, node = next(t for t in term.tokens if t.kind == "num"), parsed.numbers[0]
        unit_digit = ("num", _stated_quantum(digit), digit.suffix, digit.start)
        last_digit = read(replaced(parsed.node, node, unit_digit))
        stated = {m: abs(q.value) for m, q in _in_modes(last_digit, modes, same).items()}
        if bare:
            unit = _in_modes(read(replaced(parsed.node, node, ("num", _ONE, "", -1))), modes, same)
            after = term.text.partition(digit.text)[2].strip()
            unit_text = ("$" if any(t.kind == "dollar" for t in term.tokens) else "") + after
    return Value(by_mode, stated, unit, unit_text, parsed.unknown_words, term.tokens)


def _stated_quantum(token: Token) -> Fraction | None:
    """One unit in the last digit a stated number means. A whole number with two or more significant
    digits and two or more zeros after them (`3,700`, `1,685,000`) is rounded to its last significant
    digit: writers round results so, and `1234 × 3 = 3,700` is right (issue 31). One significant
    digit (`600`, `1,000`) stays exact: `8 × 80 GB = 600 GB` and `1 KiB = 1,000 B` are wrong. A
    rounding still takes at most EQUAL_SHARE of the value (_near)."""
    digits = token.text.replace(",", "").replace("_", "")
    significant = digits.rstrip("0")
    if (
        token.quantum != 1
        or not digits.isdigit()
        or len(significant) < 2
        or len(digits) - len(significant) < 2
    ):
        return token.quantum
    return Fraction(10 ** (len(digits) - len(significant)))


def _as_written(node: Node) -> Node:
    return node


def _half_unit(value: Fraction, quantum: Fraction) -> Fraction:
    """quantum / 2 / |value|, as one Fraction rather than three."""
    return Fraction(quantum.numerator * value.denominator, 2 * quantum.denominator * abs(value.numerator))


def _in_modes(node: Node, modes: tuple[Mode, ...], same: bool) -> dict[Mode, Quantity]:
    """The value of a tree in each mode; evaluated once when `same` (no token reads differently in
    another mode: no `7B`, no `KB`), as most terms are."""
    if same:
        return dict.fromkeys(modes, evaluate(node, modes[0]))
    return {m: evaluate(node, m) for m in modes}


def _scaled(tokens: Sequence[Token]) -> bool:
    """`6.5 * 10^-3`, `6.5 x 10^-3` (with units after it): a stated value written in scientific
    notation (a `times` token is `x` between numbers, as `×` is `*`)."""
    kinds = [
        ("op", "*") if t.kind == "times" else (t.kind, "n" if t.kind == "num" else t.text)
        for t in tokens
        if t.kind != "word"
    ]
    if kinds[:4] != [("num", "n"), ("op", "*"), ("num", "n"), ("op", "^")]:
        return False
    rest = kinds[4:]
    if rest[:1] in ([("op", "-")], [("op", "+")]):
        rest = rest[1:]
    ten = [t for t in tokens if t.kind == "num"][1]
    return (
        ten.value == 10
        and rest[:1] == [("num", "n")]
        and all(k in (("op", "/"), ("percent", "%")) for k in rest[1:])
    )


def _written_units(
    terms: list[Term], values: list[Value | Outcome], modes: tuple[Mode, ...]
) -> dict[Mode, list[Quantity]]:
    """Every unit the chain writes, alone or as a bare value's whole unit (`inferences/hour`)."""
    found: dict[Mode, list[Quantity]] = {m: [] for m in modes}
    for term, value in zip(terms, values, strict=True):
        for m in modes:
            if isinstance(value, Value) and value.unit is not None:
                found[m].append(value.unit[m])
            found[m] += [unit_of(t.text, m) for t in term.tokens if t.kind == "word"]
    return found


def _compare(
    a: Value,
    b: Value,
    approx: bool,
    shown: str,
    written: dict[Mode, list[Quantity]],
    modes: tuple[Mode, ...],
) -> Outcome:
    """Is b (stated or computed) the value of a (the reference) under some reading of the symbols?"""
    mismatched = 0
    closest: tuple[Fraction, Fraction] | None = None  # (relative gap, the left side in the right's unit)
    for mode in modes:
        x, y = a.by_mode[mode], b.by_mode[mode]
        scales = _scales(x.dims, y.dims, written[mode])
        if scales is None:
            mismatched += 1
            continue
        if x.dims == y.dims and b.unit and not a.has_units:  # `120 * 9.5 = 1140 ms of work per s`
            scales.append((_ONE, b.unit[mode].value or _ONE))
        for scale in scales:
            left, right = _over(x.value, scale[0]), _over(y.value, scale[1])
            charge(left, right)
            if _agrees(left, right, a, b, mode, scale, approx, x.inexact or y.inexact):
                return Outcome("ok", shown)
            unit = _over(b.unit[mode].value, scale[1]) if b.unit and b.unit[mode].value else _ONE
            gap = abs(left - right) / max(abs(left), abs(right))
            if closest is None or gap < closest[0]:
                closest = (gap, left / unit)
    first = modes[0]
    if closest is None:
        x, y = a.by_mode[first], b.by_mode[first]
        return Outcome(
            "unit-mismatch",
            shown,
            f"{shown}: {_sides(x.dims, y.dims)}",
        )
    if b.stated is None and a.stated is not None:  # `65,536 = 2^15`: show the computed side
        return Outcome("arithmetic", shown, f"{shown}: the right side is {b.by_mode[first]}")
    if not b.unit and a.by_mode[first].dims != units.NONE:  # `= 60 min + 20 min`: in base units, named
        return Outcome("arithmetic", shown, f"{shown}: the left side is {a.by_mode[first]}")
    value = format_number(closest[1])
    written_unit = b.unit_text if b.unit else ""
    return Outcome("arithmetic", shown, f"{shown}: the left side is {_with_unit(value, written_unit)}")


def _sides(left: units.Dims, right: units.Dims) -> str:
    """`s^2 on the left, 1/s on the right`: what a unit mismatch's message says."""
    return f"{units.describe(left)} on the left, {units.describe(right)} on the right"


def _with_unit(value: str, written_unit: str) -> str:
    """`$60/month`, `$60 in total`, `$0.0015 Million`, `60 GB`: a value in the unit the line wrote."""
    if not written_unit.startswith("$"):
        return f"{value} {written_unit}".strip()
    rest = written_unit[1:].strip()
    return f"${value}{rest}" if rest.startswith("/") or not rest else f"${value} {rest}"


def _scales(
    left: units.Dims, right: units.Dims, written: list[Quantity]
) -> list[tuple[Fraction, Fraction]] | None:
    """How to compare two sides: in base units when their dimensions agree; when one side wrote only
    part of the units (`30 * 100 B = 3 KB/s`, `7 * 2 = 14 GB`), in each written unit of what it left
    out; None when neither side's units are part of the other's (a `unit-mismatch`)."""
    if left == right:
        return [(_ONE, _ONE)]
    rich_left = _part_of(right, left)
    if not rich_left and not _part_of(left, right):
        return None
    missing = units.div(left, right) if rich_left else units.div(right, left)
    per_missing = units.power(missing, -1)
    factors = {_ONE}
    for q in written:
        if q.dims == missing:
            factors.add(q.value)
        elif q.dims == per_missing and q.value:
            factors.add(1 / q.value)
    return [((f, _ONE) if rich_left else (_ONE, f)) for f in sorted(factors)]


def _over(value: Fraction, scale: Fraction) -> Fraction:
    return value if scale == 1 else value / scale  # most scales are 1: skip the Fraction arithmetic


def _part_of(poor: units.Dims, rich: units.Dims) -> bool:
    return all(p == 0 or p == r for p, r in zip(poor, rich, strict=True))


def _agrees(
    exact: Fraction,
    stated: Fraction,
    a: Value,
    b: Value,
    mode: Mode,
    scale: tuple[Fraction, Fraction],
    approx: bool,
    inexact: bool,
) -> bool:
    if b.stated is None and a.stated is not None:  # a stated value on the left of an expression
        exact, stated, a, b, scale = stated, exact, b, a, (scale[1], scale[0])
    if b.stated is None:  # two expressions: equal, up to the rounding their decimal inputs carry
        share = max(a.literal_share, b.literal_share) + (APPROX_SHARE if approx else 0)
        return abs(exact - stated) <= share * abs(exact) + (Fraction(1, 10**30) if inexact else 0)
    quantum = _over(b.stated[mode], scale[1])
    if quantum == 0:
        return exact == stated
    return (
        within_tolerance(exact, stated, quantum, approx)
        or not approx
        and _rounded_up_count(exact, stated, b, mode)
    )


def within_tolerance(exact: Fraction, stated: Fraction, quantum: Fraction, approx: bool) -> bool:
    """The tolerance policy for a stated value with one unit `quantum` in its last digit. `≈`: the
    exact value rounded or truncated to the stated digits, or within 1%, or one unit of the last
    digit off where that digit is not the first (`10 / 3 ≈ 3.4`, `9.4 ≈ 10`). One unit of a single
    digit is 10% to 100% (`1 * 1 ≈ 2`, `2.4 ≈ 3`), which passed before (issue 31); on questions/ and
    both StaffML corpora the findings are the same as before."""
    if approx:
        off = abs(exact - stated)
        return (
            _rounded_or_truncated(exact, stated, quantum)
            or off <= APPROX_SHARE * abs(exact)
            or off <= quantum
            and 10 * quantum <= abs(stated)
        )
    return _rounded_or_truncated(exact, stated, quantum) and _near(exact, stated, quantum)


def _near(exact: Fraction, stated: Fraction, quantum: Fraction) -> bool:
    """Whether a stated value that rounds or truncates `exact` is within EQUAL_SHARE of it. In
    integers first, as most are: a unit of the last digit within the share settles it (the stated
    value is within a unit). `= 0` rounds a tiny value."""
    share = EQUAL_SHARE
    if (
        share.denominator * quantum.numerator * exact.denominator
        <= share.numerator * abs(exact.numerator) * quantum.denominator
    ):
        return True
    return stated == 0 or abs(exact - stated) <= share * abs(exact)


def _rounded_up_count(exact: Fraction, stated: Fraction, b: Value, mode: Mode) -> bool:
    """`1,000 / 2.39 = 419 GPUs`, `140 GB / 80 GB = 2 GPUs`: a whole number of things, rounded up
    because 418.41 GPUs cannot be bought. Only where the stated value counts things (`GPUs`,
    `B200s`, `nodes`)."""
    if (
        stated.denominator != 1
        or exact.denominator == 1
        or exact < 0
        or stated != -(-exact.numerator // exact.denominator)
    ):
        return False
    first = next((t for t in b.tokens if t.kind == "word"), None)
    return (
        b.unit is not None
        and b.unit[mode].dims == units.NONE
        and first is not None
        and units.counts_things(first.text)
    )


def _rounded_or_truncated(exact: Fraction, stated: Fraction, quantum: Fraction) -> bool:
    """Whether `stated` is `exact` rounded (a tie either way) or truncated to a multiple of `quantum`.
    In integers: the ratios exact / quantum and stated / quantum, as numerator and denominator."""
    k, off = divmod(stated.numerator * quantum.denominator, stated.denominator * quantum.numerator)
    if off:
        return False  # the stated value is not a whole number of quanta
    num, den = exact.numerator * quantum.denominator, exact.denominator * quantum.numerator
    if den < 0:
        num, den = -num, -den
    below, rest = divmod(num, den)  # exact / quantum = below + rest / den, with 0 <= rest < den
    truncated = below + 1 if below < 0 and rest else below  # toward zero
    if 2 * rest == den:
        return k in (below, below + 1)  # a tie rounds either way (and truncates to one of them)
    return k in (truncated, below + (2 * rest > den))
