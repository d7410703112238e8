"""Facts about number formats stated in prose ("FP16's max is 65,504", "BF16 has 7 mantissa bits"),
found and compared with the formats' exact values (issue 31: such facts were checked only as
`verify:` claims, so "FP16 max is 65,536" in an answer passed).

A fact is a format's name, then in the same clause one of its constants and a number:
  FP16's max is 65,504 · FP16 max 65504 · the largest FP16 value is 65,504 · max of FP16: 65,504
  the smallest FP16 subnormal is 2^-24 · BF16 has 8 exponent bits and 7 mantissa bits
  FP16 (1 sign, 5 exponent, 10 mantissa bits) · a 10-bit mantissa · FP16 epsilon 2^-10
Formats: FP16 (half precision), BF16, FP32 (single precision), FP8 E4M3 and E5M2 (plain "FP8"
names neither). A number must end its phrase (`FP16 max 989 TFLOPS` is a rate, not a constant).

Read leniently where usage differs, strictly elsewhere. A mantissa (or significand, or precision)
may count the implicit bit or not (FP16: 10 or 11); epsilon may be the gap after 1 or half of it
(FP16: 2^-10 or 2^-11). Values take the `=` tolerance of napkin math (the exact value rounded or
truncated to the digits stated, at most 5% off: `65K` holds, `65,536` and `64K` do not), or the
`≈` one after `~`, `≈`, `about`, `roughly` or `approximately`. "Smallest" alone (neither normal nor
subnormal) is left alone, as is any clause that negates or reports a belief (`not`, `assume`,
`instead of`, ...): "FP16's max is not 65,536" and "candidates assume BF16 has 10 mantissa bits" are
right to write.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from fractions import Fraction

from qbank.napkin import equations
from qbank.napkin.equations import LINE_WORK
from qbank.napkin.evaluate import format_number
from qbank.napkin.lexer import NapkinError
from qbank.napkin.meter import metered
from qbank.numerics.formats import FORMATS

_NAMES = {  # a name as written (lower case, spaces and dashes dropped) -> the format
    "fp16": "float16",
    "float16": "float16",
    "halfprecision": "float16",
    "binary16": "float16",
    "bf16": "bfloat16",
    "bfloat16": "bfloat16",
    "fp32": "float32",
    "float32": "float32",
    "singleprecision": "float32",
    "binary32": "float32",
    "fp8e4m3": "float8_e4m3fn",
    "e4m3": "float8_e4m3fn",
    "e4m3fn": "float8_e4m3fn",
    "fp8e5m2": "float8_e5m2",
    "e5m2": "float8_e5m2",
}
_SHOWN = {
    "float16": "FP16",
    "bfloat16": "BF16",
    "float32": "FP32",
    "float8_e4m3fn": "FP8 E4M3",
    "float8_e5m2": "FP8 E5M2",
}
_FORMAT = re.compile(
    r"(?<![\w.])(?:fp8[\s_-]?e4m3(?:fn)?|fp8[\s_-]?e5m2|e4m3(?:fn)?|e5m2|fp16|float16|binary16|half[\s-]precision"
    r"|bf16|bfloat16|fp32|float32|binary32|single[\s-]precision"
    # formats whose facts are not read here: named, they end the previous format's stretch ("TF32
    # keeps FP32's 8-bit exponent but only 10 mantissa bits" says nothing of FP32's mantissa)
    r"|tf32|fp64|float64|double[\s-]precision|fp8|int8|int4|fp6|fp4|nf4|mxfp\d|e8m0|e[23]m[123])(?![\w])",
    re.IGNORECASE,
)
_NUMBER = (
    r"(?P<number>2\s*(?:\^|\*\*)\s*\(?\s*[-−–]?\s*\d{1,4}\s*\)?"  # 2^-14, 2**(-14)
    r"|2[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]{1,4}"  # 2⁻¹⁴
    r"|1\s*/\s*\d[\d,]{0,12}"  # 1/1024
    r"|\d{1,40}(?:,\d{3}){0,13}(?:\.\d{1,20})?"  # 65,504 · 6.1 (not the comma after `1,`)
    r"(?:\s*(?:[eE][-+−]?\d{1,3}|[×x·*]\s*10\s*(?:\^|\*\*)?\s*\(?[-−⁻]?[\d⁰¹²³⁴⁵⁶⁷⁸⁹]{1,3}\)?))?"
    r"(?:\s?[kKM](?![\w]))?)"  # 65K
)
_HEDGE = r"(?P<hedge>~|≈|about|roughly|approximately|around|nearly)"
# Each step of a link holds a sign or a word, so a run of spaces or signs can be matched one way
# only: with overlapping steps (`\s` or `\s*:\s*`), 20 colons took a minute to fail (backtracking).
_LINK = (
    r"(?:['’]s)?(?:\s*(?:[:=(,]|(?<![\w-])(?:is|of|at|equals|sits\s+at|tops\s+out\s+at|only|just|a)(?![\w-]))){0,6}"
    rf"\s*(?:{_HEDGE}\s*)?"
)
_KINDS = (
    (
        "max",
        r"(?:max(?:imum)?|largest)(?:\s+(?:positive|finite|representable))?(?:\s+(?:value|number|magnitude))?",
    ),
    (
        "smallest_subnormal",
        r"(?:smallest|min(?:imum)?)\s+(?:positive\s+)?(?:subnormal|denormal(?:i[sz]ed)?)(?:\s+(?:value|number))?"
        r"|smallest\s+positive\s+(?:representable\s+)?(?:value|number)",
    ),
    (
        "smallest_normal",
        r"(?:smallest|min(?:imum)?)\s+(?:positive\s+)?normal(?:i[sz]ed)?(?:\s+(?:value|number))?",
    ),
    ("eps", r"(?:machine\s+)?epsilon|\beps\b"),
)
_VALUE = re.compile(
    "|".join(
        rf"(?<![\w-])(?P<{kind}>{words}){_LINK}{_NUMBER.replace('?P<number>', f'?P<n_{kind}>')}".replace(
            "?P<hedge>", f"?P<h_{kind}>"
        )
        for kind, words in _KINDS
    ),
    re.IGNORECASE,
)
# The constant named before the format: "the largest FP16 value is", "the smallest normal of BF16:".
_LEAD = re.compile(
    r"(?<![\w-])(?P<phrase>(?:max(?:imum)?|largest|smallest|min(?:imum)?)"
    r"(?:\s+(?:positive|finite|representable|normal|normali[sz]ed|subnormal|denormal(?:i[sz]ed)?))*)"
    rf"\s+(?:(?:of|in|for)\s+(?:the\s+)?)?(?P<format>{_FORMAT.pattern})(?:['’]s)?(?:\s+(?:format|range))?"
    r"(?:\s+(?P<tail>normal|subnormal|denormal))?(?:\s+(?:value|number|magnitude))?"
    rf"{_LINK}{_NUMBER}",
    re.IGNORECASE,
)
_BITS = re.compile(
    r"(?<![\w.^])(?P<count>\d{1,2})\s*(?:-\s*)?(?:bits?\s+(?:of\s+)?)?(?:(?:explicit|stored)\s+)?(?P<part>exponent|mantissa|fraction|significand|precision)\b"
    r"|(?P<part2>exponent|mantissa|fraction|significand)\s+bits?\s*(?::|=|is|of)?\s*(?P<count2>\d{1,2})(?![\w.])",
    re.IGNORECASE,
)
# A phrase must end after its number: at the end, a sign, or one of these words (`FP16 max 989
# TFLOPS` is a rate; `FP16 max 65,504 before scaling` is the constant).
_ENDS = frozenset(
    re.findall(
        r"\S+",
        """and or but in for with while whereas vs versus which so before after when where to on then
        than because since is are was were the a an as by if""",
    )
)
_AFTER = re.compile(r"[^\S\n]*(?P<word>[^\W\d_]+)?")
# A clause that negates or reports what someone believes states no fact of its own.
_REPORTED = re.compile(
    r"\b(?:not|never|no\s+longer|instead|rather\s+than|mistak\w*|wrong\w*|incorrect\w*|assum\w*|belie\w*"
    r"|think\w*|thought|myth\w*|misconcep\w*|confus\w*|pretend\w*|suppos\w*|expect\w*|claim\w*|would|if)\b|n['’]t\b",
    re.IGNORECASE,
)
# A constant scaled before it is named: "half the smallest FP16 subnormal (2^-25)".
_SCALED = re.compile(
    r"(?:half|twice|double|quarter|third|\d\s*[x×]|times|multiple|fraction|%)\s+(?:of\s+)?(?:the\s+|its\s+)?$",
    re.IGNORECASE,
)
# A format named as what another is compared with is not the subject of what follows: "FP16 has a
# smaller range than BF16: the smallest normal value is ~6e-5" (the seed question) speaks of FP16.
_COMPARED = re.compile(
    r"\b(?:than|vs\.?|versus|as|like|unlike|from|to|over|compared\s+(?:to|with))\s+(?:the\s+)?$",
    re.IGNORECASE,
)
_POSSESSIVE = re.compile(r"['’]s\b")
_PHRASE_END = re.compile(r",\s(?![~≈]?\s*\d)|;|\s(?:but|and|while|whereas)\s")  # ", 2^-24," is apposition
_CLAUSES = re.compile(r"(?<=[.!?;])\s+|\n")


def problems(text: str) -> Iterator[tuple[str, str]]:
    """(the clause, what is wrong with it) for each format fact in `text` that does not hold."""
    if not _names_one(text):
        return
    for clause in _CLAUSES.split(text):
        if _names_one(clause) and not _REPORTED.search(clause):
            for problem in _clause_problems(clause):
                yield clause.strip(), problem


def _names_one(text: str) -> bool:
    """Whether `text` may name a format whose facts are read: a substring test first, since most
    text names none and the regular expressions cost a tenth of a cold audit's CPU time."""
    lower = text.lower()
    return any(stem in lower for stem in _STEMS)


_STEMS = ("fp16", "fp32", "bf16", "float16", "float32", "precision", "binary16", "binary32", "e4m3", "e5m2")


# How far before or after a match the words that change its meaning are looked for: a window, so that
# a clause of thousands of facts is read in linear time (a whole prefix per match took 14 s for 64 KB).
_NEAR = 60


def _before(text: str, start: int) -> str:
    return text[max(0, start - _NEAR) : start]


def _clause_problems(clause: str) -> Iterator[str]:
    """Each fact stated after a format's name and before the next one's."""
    yield from _lead_problems(clause)
    mentions = list(_FORMAT.finditer(clause))
    for index, mention in enumerate(mentions):
        end = mentions[index + 1].start() if index + 1 < len(mentions) else len(clause)
        name = _format_named(mention.group(0))
        stretch = clause[mention.end() : end]
        if _POSSESSIVE.match(stretch):  # "TF32 keeps FP32's 8-bit exponent but ...": FP32's phrase ends
            stretch = _PHRASE_END.split(stretch, maxsplit=1)[0]
        if name is None or _COMPARED.search(_before(clause, mention.start())):
            continue
        yield from _value_problems(name, stretch)
        yield from _bit_problems(name, stretch)


def _format_named(written: str) -> str | None:
    """The format a name as written stands for (`FP8-E4M3`: float8_e4m3fn); None for one not read."""
    return _NAMES.get(re.sub(r"[\s_-]", "", written.lower()))


def _lead_problems(clause: str) -> Iterator[str]:
    for match in _LEAD.finditer(clause):
        words = f"{match.group('phrase')} {match.group('tail') or ''}".lower()
        if "max" in words or "largest" in words:
            kind = "max"
        elif "subnormal" in words or "denormal" in words or ("positive" in words and "normal" not in words):
            kind = "smallest_subnormal"
        elif "normal" in words:
            kind = "smallest_normal"
        else:
            continue  # "smallest" alone: normal or subnormal, the writer does not say
        name = _format_named(match.group("format"))
        if name is not None and not _SCALED.search(_before(clause, match.start())):
            rest = clause[match.end() : match.end() + _NEAR]
            yield from _compared(name, kind, match.group("number"), match.group("hedge"), rest)


def _value_problems(name: str, stretch: str) -> Iterator[str]:
    for match in _VALUE.finditer(stretch):
        kind = next(k for k, _ in _KINDS if match.group(k))
        number, hedge = match.group(f"n_{kind}"), match.group(f"h_{kind}")
        if not _SCALED.search(_before(stretch, match.start())):
            yield from _compared(name, kind, number, hedge, stretch[match.end() : match.end() + _NEAR])


def _compared(name: str, kind: str, number: str, hedge: str | None, rest: str) -> Iterator[str]:
    """What is wrong with `number` as the format's constant `kind`, if the phrase ends after it."""
    if not _ends_phrase(rest):
        return
    exact = FORMATS[name].constant(kind)
    accepted = (exact, exact / 2) if kind == "eps" else (exact,)
    try:
        with metered(LINE_WORK):
            if any(equations.agrees(value, number, approx=bool(hedge)) for value in accepted):
                return
    except (NapkinError, ValueError, ZeroDivisionError):
        return  # not a number we can read: no claim
    yield f"{_SHOWN[name]}'s {_WORDS[kind]} is {_exactly(exact)}, not {number.strip()}"


_WORDS = {
    "max": "largest finite value",
    "smallest_normal": "smallest normal value",
    "smallest_subnormal": "smallest subnormal value",
    "eps": "epsilon (the gap after 1)",
}


def _bit_problems(name: str, stretch: str) -> Iterator[str]:
    fmt = FORMATS[name]
    for match in _BITS.finditer(stretch):
        count = int(match.group("count") or match.group("count2"))
        part = (match.group("part") or match.group("part2")).lower()
        if part == "exponent":
            if count != fmt.exponent_bits:
                yield f"{_SHOWN[name]} has {fmt.exponent_bits} exponent bits, not {count}"
        elif count not in (fmt.mantissa_bits, fmt.mantissa_bits + 1):
            yield (
                f"{_SHOWN[name]} has {fmt.mantissa_bits} stored mantissa bits ({fmt.mantissa_bits + 1} "
                f"with the implicit bit), not {count}"
            )


def _ends_phrase(rest: str) -> bool:
    """Whether the number's phrase ends here: not a percentage, a product, a rate, a unit."""
    if rest.lstrip().startswith(("%", "/", "×", "*", "^", "$", "€", "°")):
        return False
    after = _AFTER.match(rest)
    word = after.group("word") if after else None
    return word is None or word.lower() in _ENDS


def _exactly(value: Fraction) -> str:
    """The exact value, as 2^k too where it is a power of two."""
    shown = format_number(value)
    if value.numerator == 1 and value.denominator & (value.denominator - 1) == 0 and value.denominator > 1:
        return f"2^-{value.denominator.bit_length() - 1} = {shown}"
    return shown
