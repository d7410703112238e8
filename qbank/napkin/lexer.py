"""Napkin-math text → tokens, with every literal kept as exact text (never a float).

Normalisation handles what prose and LaTeX write (research/fp16-gpu.md §5.1): superscripts become
`^(…)` before anything else (NFKC would turn `10⁻⁵` into `10−5`), `× · ⋅` are `*`, `−` is `-`,
`\\times`, `\\text{}`, `$…$` are unwrapped, `**` between numbers is a power (sympy reads `2^16` as
XOR; here `^` is always a power), and `65,536` is one number while `1,5` is refused as ambiguous.
A math character written out as an escape (`\\u2248`) is read as the character.
"""

from __future__ import annotations

import re
from fractions import Fraction
from typing import NamedTuple

from qbank import memo

SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")
_SUPER_RUN = re.compile(r"[⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺]+")
_LATEX = [
    (re.compile(r"\\(?:text|mathrm|mathbf|textbf|operatorname)\s*\{([^{}]*)\}"), r"\1"),
    (re.compile(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}"), r"((\1)/(\2))"),
    (re.compile(r"\\sqrt\s*\{([^{}]*)\}"), r"√(\1)"),
    (re.compile(r"\\(?:times|cdot)"), "*"),
    (re.compile(r"\\(?:approx|sim)"), "≈"),
    (re.compile(r"\\(?:rightarrow|to|Rightarrow)"), "→"),
    (re.compile(r"\\(?:left|right)"), ""),
    (re.compile(r"\\[,;: !]"), " "),
    (re.compile(r"\\%"), "%"),
]
# `\u2248` written out as six characters, as text copied from JSON or a YAML double-quoted string
# shows it once its quotes are lost. Only the characters napkin math reads are decoded: a written-out
# `\u0000` or bidi control (CVE-2021-42574) stays as text.
_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")
_ESCAPED = frozenset("≈≃≅~→⇒×·⋅∗−÷–—µμΩ°√⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺\u00a0\u2009\u202f")
# `15% of $768/hour`: a share of a quantity is a product (issue 25), when a number follows `of`;
# `15% of the bill` names no quantity, and stays prose.
_PERCENT_OF = re.compile(r"(?<=%) of (?=[$(\d.])")
# `half of 80 GB`, `a third of 90 GB`, `twice 80 GB`: a share or a multiple of a quantity is a product
# by an exact fraction (issue 31: `half of 80 GB = 40 GB` was read as `80 GB = 40 GB`, an error). Not
# `double` or `triple`, which also name a type (`1B double 8-byte values`).
_SHARE = re.compile(
    r"\b(?:(?:a|one)\s+)?(half|third|quarter|fifth|tenth)\s+of\s+(?=[$(\d.])|\b(twice|thrice)\s+(?=[$(\d.])",
    re.IGNORECASE,
)
_SHARES = {"half": "(1/2)", "third": "(1/3)", "quarter": "(1/4)", "fifth": "(1/5)", "tenth": "(1/10)"}
_MULTIPLES = {"twice": "2", "thrice": "3"}
# `625 MB @ 64 GB/s`: `@` between a quantity and a number says "at" (evaluate.Parser._at_number).
_AT = re.compile(r"(?<=[\w%)])\s*@\s*(?=[$(\d.])")
_POWER = re.compile(r"(?<=[\d)])\s*\*\*\s*(?=[\d(+-])")
_THOUSANDS = re.compile(r"(?<=\d)[\u202f ](?=\d{3}(?!\d))")
_CHARS = str.maketrans(
    {"×": "*", "·": "*", "⋅": "*", "∗": "*", "−": "-", "÷": "/", "`": " ", "\u00a0": " ", "\u2009": " "}
    # bullet operator, multiplication X, division slash, fullwidth equals, "approximately equal or
    # the image of" (Japanese writing's ≈): each made `2 ∙ 3 = 7` and its kind silent (issue 31)
    | {"∙": "*", "✕": "*", "∕": "/", "＝": "=", "≒": "≈"}
)


MAX_TEXT = 10_000  # characters read at once (one line of napkin math)
MAX_DIGITS = 400  # in one literal
MAX_EXPONENT = 4096  # in `1e…` and `…^k`: research P14


class NapkinError(Exception):
    """Text that is not napkin math qbank can read (an `unchecked-equation`)."""


class LimitError(NapkinError):
    """Text that would cost too much to evaluate (an exponent or size bomb): refused, never run."""


class Token(NamedTuple):  # a tuple: thousands are made per bank, and tuples are cheap to build
    kind: str  # num, word, op, rel, lparen, rparen, comma, tilde, dollar, percent, range, other
    text: str
    start: int  # offset in the normalised text
    value: Fraction | None = None  # num: the exact value of the digits (suffixes come later)
    quantum: Fraction | None = None  # num: one unit in the last stated digit
    suffix: str = ""  # num: a magnitude letter written against it: k K M B G T
    spaced: bool = False  # a space came before this token


def normalise(text: str) -> str:
    if len(text) > MAX_TEXT:
        raise LimitError(f"text of {len(text):,} characters is over the limit of {MAX_TEXT:,}")
    if "\\u" in text:
        text = _ESCAPE.sub(_unescape, text)
    text = _SUPER_RUN.sub(lambda m: "^(" + m.group().translate(SUPERSCRIPTS) + ")", text)
    if "\\" in text:
        for pattern, replacement in _LATEX:
            text = pattern.sub(replacement, text)
        text = text.replace("$", " ").replace("{", "(").replace("}", ")")
    text = text.translate(_CHARS)
    text = _POWER.sub("^", text)  # a power, not markdown bold
    text = text.replace("**", " ")
    text = _THOUSANDS.sub(lambda m: "" if m.group() == "\u202f" else " ", text)
    if "% of" in text:
        text = _PERCENT_OF.sub(" * ", text)
    if "of " in text or "wice" in text or "hrice" in text:  # most lines have no share: skip the search
        text = _SHARE.sub(_share, text)
    if "@" in text:
        text = _AT.sub(" at ", text)
    return text


def _share(match: re.Match[str]) -> str:
    share, multiple = match.group(1), match.group(2)
    return f"{_SHARES[share.lower()]} * " if share else f"{_MULTIPLES[multiple.lower()]} * "


def _unescape(match: re.Match[str]) -> str:
    char = chr(int(match.group(1), 16))
    return char if char in _ESCAPED else match.group()


_TOKEN = re.compile(  # no two kinds start with the same character, except `other`, tried last
    r"""
    \s*+  # spaces before a token: not a token themselves, but `spaced` on the next one
    (?:
    (?P<word>°C|[A-Za-zµμ°Ω][A-Za-z0-9µμ°Ω₂_']*(?:-[A-Za-z][A-Za-z0-9µμ_']*|(?<=\w\w)-\d[A-Za-z0-9]*)*)
  | (?P<hex>0x[0-9a-fA-F]+\b)
  | (?P<grouped>\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d|,\d)|\d{1,3}(?:_\d{3})+(?:\.\d+)?(?![\d_]))
  | (?P<ambiguous>\d+,\d+)
  | (?P<num>(?:\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?)
  | (?P<rel>≈|=>|->|→|⇒|==|<=|>=|=|≃|≅|≤|≥|<|>)
  | (?P<tilde>~)
  | (?P<op>\^|\*|/|\+|-|√|–|—)
  | (?P<lparen>[(\[])
  | (?P<rparen>[)\]])
  | (?P<comma>,)
  | (?P<dollar>\$)
  | (?P<percent>%)
  | (?P<other>.)
    )
    """,
    re.VERBOSE,
)
_TIMES = re.compile(r"x(?:\d|$)")
_MAGNITUDE = re.compile(r"[kKMG]|T|B(?!/)")  # `0.5B/param` is bytes per parameter, not billions
_LETTERS = frozenset("kKMGTB")  # the first characters _MAGNITUDE matches: most numbers have none
_MAGNITUDE_END = re.compile(r"(?![A-Za-z0-9])")
_new = tuple.__new__  # _new(Token, fields) is Token(*fields) without NamedTuple's Python-level __new__


def tokenize(text: str) -> list[Token]:
    """Tokens of already-normalised text. `7B`, `50M`, `4.1G` keep their letter as a suffix."""
    if len(text) > MAX_TEXT:
        raise LimitError(f"text of {len(text):,} characters is over the limit of {MAX_TEXT:,}")
    tokens: list[Token] = []
    pos = 0
    carried = False  # the space before a skipped hyphen (`2048 -token`) counts for the next token
    while match := _TOKEN.match(text, pos):  # None once only spaces are left
        kind = match.lastgroup or "other"
        start, end = match.span(kind)  # each kind's group ends where the match ends
        raw = text[start:end]
        spaced = carried or start > pos
        pos, carried = end, False
        if kind in ("hex", "grouped", "num"):
            value, quantum = _literal(raw, kind)
            suffix = _MAGNITUDE.match(text, pos) if text[pos : pos + 1] in _LETTERS else None
            letter = ""
            if suffix and _MAGNITUDE_END.match(text, suffix.end()):
                letter, pos = suffix.group(), suffix.end()
            tokens.append(_new(Token, ("num", raw + letter, start, value, quantum, letter, spaced)))
        elif kind == "word" and raw[0] == "x" and _TIMES.match(raw):
            # `3x3`, `x 4`, `1.5x`: a factor sign, not a word
            tokens.append(_new(Token, ("times", "x", start, None, None, "", spaced)))
            pos = start + 1
        elif kind != "op":
            tokens.append(_new(Token, (kind, raw, start, None, None, "", spaced)))
        elif raw == "-" and tokens and tokens[-1].kind == "num" and text[pos : pos + 1].isalpha():
            carried = spaced  # `2048-token`: a compound adjective, read as `2048 token`
        elif raw in "–—" and _dash_minus(tokens, text, pos, spaced):
            tokens.append(_new(Token, (kind, "-", start, None, None, "", spaced)))
        elif raw in "–—" or _is_range(tokens, text, pos, spaced):
            tokens.append(_new(Token, ("range", raw, start, None, None, "", spaced)))
        else:
            tokens.append(_new(Token, (kind, raw, start, None, None, "", spaced)))
    return tokens


def _dash_minus(tokens: list[Token], text: str, pos: int, spaced: bool) -> bool:
    """An en or em dash with a space on each side between a quantity and a number, `100 GB – 20 GB`,
    `10 — 3`, is a minus (issue 31: always reading it as a range made such lines silent); `700–800`,
    a smaller number before a larger one (`700 – 800 GB`) and a dash before words stay as they were."""
    if not (
        spaced and text[pos : pos + 1] == " " and tokens and tokens[-1].kind in ("num", "word", "rparen")
    ):
        return False
    after = _TOKEN.match(text, pos)
    if after is None or after.lastgroup not in ("num", "grouped"):
        return False  # `30.6 GB — still fits`: a dash in prose
    if tokens[-1].kind != "num":
        return True
    left, right = tokens[-1].value, _literal(after.group(after.lastgroup), after.lastgroup)[0]
    return left is None or left >= right


def _is_range(tokens: list[Token], text: str, pos: int, spaced: bool) -> bool:
    """`1-5 ms` is a range, `2(8-1)` and `16 - 4` are subtractions: a hyphen with no spaces between
    a smaller and a larger number, not just inside an opening parenthesis."""
    if spaced or not tokens or tokens[-1].kind != "num" or text[pos - 1] != "-":
        return False
    after = _TOKEN.match(text, pos)
    if (
        after is None
        or after.lastgroup not in ("num", "grouped")
        or after.start() != after.start(after.lastgroup)
    ):
        return False  # no number right after the hyphen (a space is not a range: `16 - 4`)
    before = tokens[-2] if len(tokens) > 1 else None
    opened = before is not None and before.kind == "lparen" and not tokens[-1].spaced
    left, right = tokens[-1].value, _literal(after.group(), after.lastgroup)[0]
    return not opened and left is not None and left < right


@memo.cached("napkin.lexer.literal")
def _literal(raw: str, kind: str) -> tuple[Fraction, Fraction]:
    if kind == "hex":
        return Fraction(int(raw, 16)), Fraction(1)
    digits = raw.replace(",", "").replace("_", "")  # `1,000`, and `1_000` as Python writes it
    mantissa, _, exponent = digits.lower().partition("e")
    if len(mantissa) > MAX_DIGITS or len(exponent) > 5 or abs(int(exponent or 0)) > MAX_EXPONENT:
        raise LimitError(f"number {raw[:20]!r}… is too long or its exponent too large")
    whole, _, decimals = mantissa.partition(".")
    power = int(exponent or 0) - len(decimals)  # exact: the digits as an integer times 10^power
    digits_value = int(whole + decimals or "0")
    if power >= 0:
        return Fraction(digits_value * 10**power), Fraction(10**power)
    return Fraction(digits_value, 10**-power), Fraction(1, 10**-power)
