"""Hypothesis strategies for the fuzz targets: inputs shaped like the real thing, then broken.

Random bytes rarely get past the YAML parser, so most inputs here are built to reach deep code:
real question files with a few mutations, YAML-ish text from a small grammar (anchors, tags, merge
keys, flow and block collections, odd scalars), question-shaped data generated from the model
itself, and napkin math from a grammar of the expressions authors write, with the bombs and code
an attacker would write mixed in. Hostile characters (NUL, bidi controls, confusables, line and
paragraph separators, bytes that are not UTF-8) are sprinkled into all of them.
"""

from __future__ import annotations

import json
import re
import types
import typing
from fractions import Fraction
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st
from pydantic import BaseModel

from qbank.model.question import Question
from qbank.model.taxonomy import BankTables, load_bank_tables
from qbank.napkin import units
from qbank.napkin.evaluate import FUNCTIONS, MAX_BITS
from qbank.napkin.lexer import MAX_EXPONENT
from tests.fuzz.targets import DEFAULT_FILE, EVIDENCE, REPO, placed, real_math_lines, seed_files

# --- the pieces ---------------------------------------------------------------------------------

# Scalars that YAML 1.1 and 1.2 read differently, or that are numbers too big or too odd to hold.
ODD_SCALARS = [
    *("no", "No", "off", "on", "yes", "y", "n", "~", "null", "NULL", "true", "False", "TRUE"),
    *("2026-01-01", "2026-01-01T00:00:00Z", "1:30", "012", "0o17", "0x1F", "0b101", "1_000"),
    *(".nan", ".NaN", ".inf", "-.inf", "+.INF", "1e999", "-1e999", "1e-999", "+12", "-0", "0.", ".5"),
    *("1e" + "9" * 30, "1.5e+308", "4.9e-324"),
    *("'quoted'", "''", '""', '"\\x00"', '"\\ud800"', '"\\U0010FFFF"', '"\\udfff\\ud800"', '"a\\'),
    *("!!python/object/apply:os.system ['true']", "!!str 5", "!custom x", "!<tag:x> y", "&a x", "*a"),
    *("<<", "? x", "-", "- x", "[", "]", "{", "}", "{a: 1, a: 2}", "[[[[", "@x", "`x", "|", ">-"),
    *("|2+", ">9", "%YAML 1.1", "---", "...", "#", "x #c", "'it''s'", "a: b: c", "[a, b", "{a"),
]
HOSTILE_CHARS = [
    *("\x00", "\x07", "\x1b", "\x7f", "\x85", "\u00a0", "\u200b", "\u200d", "\u200e", "\u202e"),
    *("\u2066", "\u2028", "\u2029", "\ufeff", "\ufffe", "\uffff", "\r", "\r\n", "\t", "\\"),
    *("а", "е", "о", "ο", "Ⅼ", "ﬁ", "𝟘", "\U0001f600", "e\u0308", "\U000e0041", "ǅ", "ß", "İ"),
]
# Byte sequences that are not UTF-8, or are UTF-8 that YAML refuses.
HOSTILE_BYTES = [
    *(b"\xef\xbb\xbf", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xc0\xaf", b"\xff", b"\xfe\xff"),
    *(b"\x80", b"\xf4\x90\x80\x80", b"\xe2\x80", b"\x00", b"\xff\xfe\x00\x00", b"\r", b"\x1a"),
]
YAML_TOKENS = [
    *(": ", ":", "- ", "? ", ", ", "[", "]", "{", "}", "&a ", "*a", "&b ", "*b", "!!str ", "!x "),
    *("<<: ", "|", "|-", ">", ">+", "|9", '"', "'", "#", "\n", "\n  ", "\n    ", "\n- ", "---\n"),
    *("...\n", "%YAML 1.2\n", "%TAG ! tag:x,2000:\n", "\t", " ", "\\", "%", "@", "`", "=", "~"),
]
CODE = [
    *("__import__('os').system('touch /tmp/qbank-pwned')", "eval('1+1')", "exec('x=1')", "lambda: 0"),
    *("().__class__.__bases__[0].__subclasses__()", "open('/etc/passwd').read()", "{{7*7}}", "${7*7}"),
    *("<script>alert(1)</script>", "$(rm -rf /)", "import os", "os.system", "sympify('x')"),
]
PROSE_WORDS = [
    *("the", "a", "of", "GPU", "memory", "bandwidth", "latency", "tokens", "at", "per", "is", "x"),
    *("**The Pitfall:**", "**The Rationale:**", "**The Consequence:**", "**Assumptions:**"),
    *("**Calculations:**", "**Calculation:**", "**Conclusion:**", "<TODO: fill in>", "<b>", "TODO"),
]


@cache
def _model_keys() -> list[str]:
    """Every field name the model knows, at any depth (legacy stamps and claim fields included)."""
    names: set[str] = set()
    for model in _models(Question):
        names.update(model.model_fields)
    return sorted(names)


def _models(model: type[BaseModel]) -> list[type[BaseModel]]:
    found = [model]
    for field in model.model_fields.values():
        for inner in _types_in(field.annotation):
            if isinstance(inner, type) and issubclass(inner, BaseModel) and inner not in found:
                found += _models(inner)
    return found


def _types_in(annotation: Any) -> list[Any]:
    return [annotation, *(t for arg in typing.get_args(annotation) for t in _types_in(arg))]


@cache
def _device_names() -> list[str]:
    """How authors name devices in schema/hardware.yaml, for the hardware-constant rule."""
    data = yaml.safe_load((REPO / "schema" / "hardware.yaml").read_text(encoding="utf-8"))
    devices = data.get("devices", data) if isinstance(data, dict) else {}
    names = [a for entry in devices.values() if isinstance(entry, dict) for a in entry.get("aliases", [])]
    return sorted(names) or ["H100", "A100"]


@cache
def hostile_text(max_size: int = 40) -> st.SearchStrategy[str]:
    """Short text of printable characters mixed with the hostile ones."""
    return st.lists(
        st.one_of(st.sampled_from(HOSTILE_CHARS), st.text(max_size=4), st.sampled_from(PROSE_WORDS)),
        max_size=max_size // 4,
    ).map("".join)


# --- napkin math --------------------------------------------------------------------------------

NUMBER_SAMPLES = [
    *("65,536", "1,5", "1,000,000", "1,000.5", "0x1F", "1e-7", "1e999", "1e4096", "1e4097", "6×10⁻⁵"),
    *("10⁻⁵", "2⁻¹⁴", "7B", "50M", "4.1G", "2T", "3k", ".5", "3.", "1 000", "1\u202f000", "0", "00"),
    *("9" * 400, "9" * 401, "1." + "0" * 399 + "1", "0.000", "1e+5", "1E-5", "1e99999", "2B/param"),
]
BOMBS = [
    *("10^10^10", "2**99999999", "9**9**9**9", "10^10^10^10", "2^4096", "2^4097", "(2^4096)^4096"),
    *("1e4096^4096", "exp(99999)", "exp(2000)", "e^10000", "ln(0)", "sqrt(-1)", "log2(0)", "0^-1"),
    *("0^0", "0/0", "1/0", "(-8)^(1/3)", "2^0.5^0.5", "10^(1/3)", "1e-400^0.5", "(1e400)^(1/4096)"),
    *("floor(1e400)", "ceil(-1e-400)", "min()", "max(1 GB, 1 s)", "sqrt(2 GB)", "log(2 GB)", "1e400"),
    *("1 GB / 0 s", "100%", "$3/hour * 720 hours", "(" * 41 + "1" + ")" * 41, "√" * 299 + "2"),
    *("2^" * 149 + "2", "-" * 299 + "1", "1" + "+1" * 160, "(1/3)" + "*(1/3)" * 70, "ln(ln(ln(1e-300)))"),
    *CODE,
]
RELATIONS = ["=", "≈", "~", "->", "→", "=>", "⇒", "==", "≃", "≅", "= ~", "\\approx", "\\to", "=="]
OPERATORS = ["+", "-", "*", "/", "^", "**", "×", "·", "÷", "−", "x", "–", "per", "\\times", "\\cdot"]


@cache
def numbers() -> st.SearchStrategy[str]:
    return st.one_of(
        st.integers(0, 10**6).map(str),
        st.sampled_from(NUMBER_SAMPLES),
        st.tuples(st.integers(1, 999), st.integers(0, 999)).map(lambda t: f"{t[0]},{t[1]:03}"),
        st.tuples(
            st.integers(0, 9999),
            st.integers(0, 9999),
            st.sampled_from(["", "", "e3", "e-7", "E+20", "e308", "e-324", "e4096", "e-4097"]),
            st.sampled_from(["", "", "", "k", "M", "B", "G", "T"]),
        ).map(lambda t: f"{t[0]}.{t[1]}{t[2]}{t[3]}"),
    )


@cache
def unit_words() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(sorted(units.UNITS)),
        st.sampled_from(sorted(units.COUNTS)),
        st.sampled_from(["GPU-hours", "CPU-s", "tokens/s", "e", "x", "per", *sorted(FUNCTIONS), "os"]),
        st.text("aBcGkMsxyzµ°Ω_'-0", min_size=1, max_size=6),
    )


@cache
def _leaf() -> st.SearchStrategy[str]:
    return st.one_of(
        numbers(),
        st.tuples(numbers(), unit_words()).map(" ".join),
        st.tuples(numbers(), unit_words()).map("".join),
        numbers().map(lambda n: "$" + n),
        numbers().map(lambda n: n + "%"),
        unit_words(),
        st.sampled_from(BOMBS),
    )


_FORMS = [  # how a sub-expression is used in a larger one: `{0}`, `{1}` are two sub-expressions
    *("{0} + {1}", "{0} - {1}", "{0} * {1}", "{0} / {1}", "{0}/{1}", "{0} × {1}", "{0}·{1}", "{0} x {1}"),
    *("{0}x{1}", "{0} ÷ {1}", "{0} − {1}", "{0} per {1}", "{0}-{1}", "{0} – {1}", "{0}^{1}", "{0}^({1})"),
    *("{0}**{1}", "{0} \\times {1}", "{0} \\cdot {1}", "({0})", "({0}, {1})", "√{0}", "-{0}", "{0}{1}"),
    *("\\frac{{{0}}}{{{1}}}", "\\sqrt{{{0}}}", "${0}$", "{0} (~{1})", "{0} ({1})", "{0}⁻¹", "{0}²"),
    *("{0}⁴⁰⁹⁶", "{0}⁻⁹⁹⁹⁹", "{0}⁺", "{0}%", "{0} {1}", "[{0}]", "{0})", "({0}"),
    *(f"{name}({{0}})" for name in sorted(FUNCTIONS)),
    *(f"{name}({{0}}, {{1}})" for name in ("min", "max", "log")),
]


@st.composite
def _expression(draw: st.DrawFn, depth: int = 0) -> str:
    """An expression from the forms above, at most four levels deep (the bombs go deeper)."""
    if depth >= 4 or draw(st.integers(0, 2)) == 0:
        return draw(_leaf())
    form = draw(st.sampled_from(_FORMS))
    first = draw(expressions(depth + 1))
    second = draw(expressions(depth + 1)) if "{1}" in form else ""
    return form.format(first, second)


@cache  # one strategy object per depth: hypothesis validates each new one, which is slow
def expressions(depth: int = 0) -> st.SearchStrategy[str]:
    """One napkin-math expression: numbers with units, operators, functions, powers, bombs."""
    return _expression(depth)


@st.composite
def math_lines(draw: st.DrawFn) -> str:
    """A line as authors write one: a bullet, maybe words, then a chain of relations."""
    parts = [draw(st.sampled_from(["", "- ", "* ", "1. ", "• ", "  - "]))]
    if draw(st.integers(0, 5)) == 0:  # `H100: 40 GB`, for the hardware-constant rule
        parts.append(draw(st.sampled_from(_device_names())) + ": ")
    if draw(st.booleans()):
        parts.append(draw(st.lists(st.sampled_from(PROSE_WORDS), max_size=4).map(" ".join)) + " ")
    parts.append(draw(expressions()))
    for _ in range(draw(st.integers(0, 4))):
        relation = draw(st.sampled_from(RELATIONS))
        parts.append(f" {relation} " if draw(st.booleans()) else relation)
        parts.append(draw(expressions()))
    parts.append(draw(st.sampled_from(["", ".", ",", ";", " of HBM", " (weights)", " -> 2 GPUs"])))
    if draw(st.integers(0, 9)) == 0:
        parts.insert(draw(st.integers(0, len(parts))), draw(hostile_text()))
    return "".join(parts)


@cache
def math_text() -> st.SearchStrategy[str]:
    """Napkin-math prose: lines from the grammar, real lines, and token soup."""
    soup = st.lists(
        st.one_of(st.sampled_from(OPERATORS + RELATIONS + ["(", ")", ",", " ", "$", "%"]), numbers()),
        max_size=30,
    ).map("".join)
    real = st.sampled_from(real_math_lines())
    one = st.one_of(math_lines(), soup, real, st.text(max_size=60))
    return st.lists(one, min_size=1, max_size=4).map("\n".join)


@cache
def napkin_block() -> st.SearchStrategy[str]:
    """A napkin_math field: the three markers around generated calculations."""
    return st.tuples(hostile_text(), st.lists(math_lines(), min_size=1, max_size=5), hostile_text()).map(
        lambda t: (
            f"**Assumptions:** {t[0]}\n**Calculations:**\n" + "\n".join(t[1]) + f"\n**Conclusion:** {t[2]}"
        )
    )


# --- YAML-ish text ------------------------------------------------------------------------------


@cache
def scalars() -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(ODD_SCALARS),
        # more digits than int() reads (CVE-2020-10735's limit of 4,300), or just many
        st.tuples(st.sampled_from(["9", "-1", "0x"]), st.integers(300, 5000)).map(
            lambda t: t[0] + "9" * t[1]
        ),
        st.sampled_from(_model_keys()),
        hostile_text(),
        math_lines(),
        st.sampled_from(CODE),
    )


@cache
def _keys() -> st.SearchStrategy[str]:
    return st.one_of(st.sampled_from(_model_keys()), st.sampled_from(ODD_SCALARS), hostile_text(12))


@st.composite
def _block(draw: st.DrawFn, indent: str = "", depth: int = 0) -> str:
    """A block mapping or sequence at `indent`, decorated now and then with what YAML allows and
    qbank refuses (anchors, aliases, tags, merge keys, complex keys)."""
    lines = []
    sequence = draw(st.integers(0, 4)) == 0
    for _ in range(draw(st.integers(1, 6))):
        head = f"{indent}- " if sequence else f"{indent}{draw(_keys())}:"
        decoration = draw(st.sampled_from(["", "", "", "", " &a", " *a", " !!str", " !t", " # c", " ?"]))
        kind = draw(st.integers(0, 9)) if depth < 4 else 0
        if kind <= 4:
            lines.append(f"{head}{decoration} {draw(scalars())}")
        elif kind <= 6:
            lines.append(f"{head}{decoration}\n{draw(_blocks(indent + '  ', depth + 1))}")
        elif kind == 7:
            text = draw(st.lists(scalars(), min_size=1, max_size=4))
            style = draw(st.sampled_from(["|", "|-", ">", ">-", "|+", "|2"]))
            lines.append(f"{head} {style}\n" + "\n".join(f"{indent}    {t}" for t in text))
        elif kind == 8:
            items = draw(st.lists(scalars(), max_size=4))
            lines.append(f"{head} [{', '.join(items)}]")
        else:
            lines.append(f"{indent}<<: *a" if not sequence else f"{indent}- {{{draw(_keys())}: x}}")
    return "\n".join(lines)


@cache
def yaml_text() -> st.SearchStrategy[str]:
    """A YAML-ish document from the grammar, or token soup, with the odd hostile prefix."""
    soup = st.lists(st.one_of(st.sampled_from(YAML_TOKENS), scalars()), max_size=40).map("".join)
    prefix = st.sampled_from(["", "", "", "---\n", "%YAML 1.1\n---\n", "# c\n", "\ufeff", "\n\n"])
    suffix = st.sampled_from(["", "\n", "\n...\n", "\n---\nb: 1\n", "\r\n", "\x00"])
    return st.tuples(prefix, st.one_of(_blocks(), soup), suffix).map("".join)


@cache
def _blocks(indent: str = "", depth: int = 0) -> st.SearchStrategy[str]:
    return _block(indent, depth)


# --- question-shaped data, from the model ---------------------------------------------------------


@cache
def _field_values() -> dict[str, st.SearchStrategy[Any]]:
    """Values for fields that a type alone describes badly: the right id keeps the path rule quiet,
    prose gets words and markers, napkin math gets equations."""
    prose = st.lists(st.one_of(st.sampled_from(PROSE_WORDS), hostile_text(8)), max_size=30).map(" ".join)
    schema = load_bank_tables(REPO / "schema")
    topics = sorted(schema.topics) if isinstance(schema, BankTables) else ["mixed-precision-training"]
    return {
        "id": st.one_of(st.just(DEFAULT_FILE.stem), st.text("abcz09-", min_size=1, max_size=12)),
        "title": st.one_of(st.just("Loss Scaling Keeps FP16 Gradients Representable"), hostile_text()),
        "topic": st.one_of(st.sampled_from(topics), hostile_text(12)),
        "scenario": prose,
        "question": prose,
        "napkin_math": st.one_of(napkin_block(), hostile_text()),
        "realistic_solution": math_text(),
        "common_mistake": prose,
    }


CLAIM_NUMBERS = st.one_of(numbers(), st.sampled_from(BOMBS), st.sampled_from(["inf", "-inf", "nan", "2^-24"]))
NUMBER_FIELDS = {"value", "expect", "scale", "expect_value", "addend", "abs_error", "rel_error"}


@cache
def _odd_values() -> st.SearchStrategy[Any]:
    """Values of the wrong type or shape for whatever field they land in."""
    return st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**30), 10**30),
        st.floats(allow_nan=False, allow_infinity=False),
        hostile_text(),
        st.sampled_from(ODD_SCALARS),
        st.lists(st.integers(), max_size=3),
        st.dictionaries(st.sampled_from(_model_keys()), st.text(max_size=5), max_size=3),
    )


def _for(annotation: Any, name: str) -> st.SearchStrategy[Any]:
    """Values for a field of type `annotation` (as pydantic keeps it), by the field's name first."""
    if name in _field_values():
        return _field_values()[name]
    typed = _typed(annotation, name)
    return st.one_of(CLAIM_NUMBERS, typed) if name in NUMBER_FIELDS else typed


def _typed(annotation: Any, name: str) -> st.SearchStrategy[Any]:
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if origin is typing.Annotated:
        return _typed(args[0], name)
    if origin in (typing.Union, types.UnionType):
        return st.one_of([_typed(a, name) for a in args])
    if origin is typing.Literal:
        return st.sampled_from(args)
    if origin is list:
        return st.lists(_typed(args[0], name), max_size=5)
    if origin is dict:  # generator params; loss-scaler steps, whose keys are numbers as text
        keys = st.one_of(st.integers(1, 10**7).map(str), st.text(max_size=8))
        return st.dictionaries(keys, _typed(args[1], name), max_size=3)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return model_data(annotation)
    simple = {type(None): st.none(), bool: st.booleans(), int: st.integers(-5, 10**6), str: hostile_text()}
    return simple.get(annotation, _odd_values())


@cache
def model_data(model: type[BaseModel] = Question) -> st.SearchStrategy[dict[str, Any]]:
    """A dict shaped like `model`: its required fields nearly always, a few optional ones, and now
    and then a value of the wrong type or a key the model does not know."""
    fields = model.model_fields
    required = [name for name, field in fields.items() if field.is_required()]
    optional = sorted(set(fields) - set(required))
    values = {name: _for(field.annotation, name) for name, field in fields.items()}  # made once

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        chosen = [name for name in required if draw(st.integers(0, 19))]
        chosen += draw(st.lists(st.sampled_from(optional), max_size=6, unique=True)) if optional else []
        data: dict[str, Any] = {}
        for name in chosen:
            odd = draw(st.integers(0, 19)) == 0
            data[name] = draw(_odd_values() if odd else values[name])
        if draw(st.integers(0, 19)) == 0:
            data[draw(_keys())] = draw(_odd_values())
        return data

    return build()


@st.composite
def question_texts(draw: st.DrawFn) -> str:
    """Question-shaped data as YAML text, in block style (as questions are written) or flow style
    (JSON), drawn as text so that a failure shows the file."""
    data = draw(model_data())
    if draw(st.booleans()):
        return json.dumps(data, ensure_ascii=False)
    width = draw(st.integers(20, 200))
    return yaml.dump(data, Dumper=yaml.CSafeDumper, allow_unicode=True, sort_keys=False, width=width)


# --- real files, mutated --------------------------------------------------------------------------


@cache
def seeds(every: int = 32) -> list[tuple[Path, bytes]]:
    return [(placed(path), path.read_bytes()) for path in seed_files(every)]


_VALUE = re.compile(rb"(?m)^[ \t]*(?:- )?[A-Za-z_]+: ?(.*)$")
_MATH_FIELD = re.compile(rb"(?m)^([ \t]*)(?:\*\*Calculations:?\*\*|realistic_solution: [|>][-+]?)")


@st.composite
def _mutation(draw: st.DrawFn, data: bytes) -> bytes:
    """One edit of a file's bytes."""
    at = draw(st.integers(0, len(data)))
    end = draw(st.integers(at, min(len(data), at + 200)))
    kind = draw(st.integers(0, 8))
    if kind == 0:  # a key's value replaced by an odd scalar
        values = list(_VALUE.finditer(data))
        if values:
            match = draw(st.sampled_from(values))
            new = draw(scalars()).encode("utf-8", "surrogatepass")
            return data[: match.start(1)] + new + data[match.end(1) :]
    if kind == 1:  # generated math where the napkin math or the solution starts
        fields = list(_MATH_FIELD.finditer(data))
        if fields:
            match = draw(st.sampled_from(fields))
            line = b"\n" + match.group(1) + b"  " + draw(math_lines()).encode()
            return data[: match.end()] + line + data[match.end() :]
    if kind == 2:
        return data[:at] + draw(st.sampled_from(HOSTILE_BYTES)) + data[at:]
    if kind == 3:
        return data[:at] + draw(st.sampled_from(HOSTILE_CHARS + YAML_TOKENS)).encode() + data[at:]
    if kind == 4:  # a slice repeated: duplicate keys, repeated lines
        return data[:end] + data[at:end] + data[end:]
    if kind == 5:
        return data[:at] + data[end:]
    if kind == 6:  # a line indented differently
        start = data.rfind(b"\n", 0, at) + 1
        return data[:start] + draw(st.sampled_from([b" ", b"  ", b"\t", b"- ", b"? "])) + data[start:]
    if kind == 7:
        return data[:at]
    return data[:at] + draw(yaml_text()).encode() + data[at:]


@st.composite
def mutated_files(draw: st.DrawFn) -> tuple[Path, bytes]:
    """A real question file (and where it lives), after one to four edits."""
    path, data = draw(st.sampled_from(seeds()))
    for _ in range(draw(st.integers(1, 4))):
        data = draw(_mutation(data))
    return path, data


@cache
def file_bytes() -> st.SearchStrategy[bytes]:
    """Bytes of a would-be question file: mutated real ones, grammar text, or anything."""
    return st.one_of(
        mutated_files().map(lambda pair: pair[1]),
        yaml_text().map(lambda text: text.encode("utf-8", "surrogatepass")),
        st.binary(max_size=200),
    )


# --- file names ---------------------------------------------------------------------------------

# What a committed file name can carry into a log: workflow commands of a GitHub runner (`::` at a
# line's start, legacy `##[` anywhere), line breaks to start such a line, terminal escapes.
NAME_PIECES = [
    *("::", "::error file=README.md,line=1::", "::add-mask::", "::stop-commands::x", "##[", "##[warning]"),
    *("\n", "\r", "\r\n", " ", "%", "%0A", ":", ",", "#", "?", "/", "\\", "\x1b]0;t\x07", "\x1b[2J"),
]


@cache
def file_names() -> st.SearchStrategy[str]:
    """A file name as os.fsdecode gives it: workflow-command pieces, hostile characters, and bytes
    that are not UTF-8 (as lone surrogates, PEP 383)."""
    undecodable = st.sampled_from([chr(0xDC00 + b) for b in (0x80, 0xC0, 0xE9, 0xFF)])
    pieces = st.one_of(
        st.sampled_from(NAME_PIECES), st.sampled_from(HOSTILE_CHARS), undecodable, st.text(max_size=5)
    )
    return st.lists(pieces, min_size=1, max_size=8).map(lambda parts: "".join(parts) + ".yaml")


# --- sums of huge fractions (napkin lines and claim values) ---------------------------------

# Odd bases: no power of two, so no term's denominator divides another's and every sum grows.
ODD_BASES = [3, 5, 7, 9, 11, 13, 15, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 97, 101, 127, 251, 1009]


@st.composite
def huge_fraction_terms(draw: st.DrawFn) -> str:
    """`1/p^k`, k within 3% of the most the size limit allows for p (and at most 4096)."""
    p = draw(st.sampled_from(ODD_BASES))
    most = min(MAX_EXPONENT, MAX_BITS // (p.bit_length() + 1))
    k = draw(st.integers(max(1, most - most // 32), most))
    return f"{draw(st.sampled_from(['1', '2', '7']))}/{p}^{k}"


@st.composite
def fraction_sums(draw: st.DrawFn, max_terms: int = 60, max_size: int | None = None) -> str:
    """2 to `max_terms` huge terms joined by + or - (a sum, not a product: sums were never bounded);
    cut to `max_size` characters at a term's end, for a claim's 200-character numbers."""
    terms = draw(st.lists(huge_fraction_terms(), min_size=2, max_size=max_terms))
    text = terms[0]
    for term in terms[1:]:
        joined = f"{text} {draw(st.sampled_from(['+', '-']))} {term}"
        if max_size is not None and len(joined) > max_size:
            break
        text = joined
    return text


@cache
def fraction_sum_lines() -> st.SearchStrategy[str]:
    """Napkin lines of such sums: one chain, or several (`, `) to fill a line, stated as 0, 1 or ~0."""
    chain = st.tuples(fraction_sums(), st.sampled_from(["= 1", "= 0", "≈ 0", "= 2^-4000"])).map(" ".join)
    return st.lists(chain, min_size=1, max_size=8).map(lambda chains: "- " + ", ".join(chains))


@cache
def fraction_sum_claims() -> st.SearchStrategy[str]:
    """A `verify:` block of 1 to 40 cast claims whose value (<= 200 characters) is such a sum."""
    claim = st.tuples(fraction_sums(max_size=200), st.sampled_from(["bfloat16", "float16", "float32"])).map(
        lambda t: f'  - {{kind: cast, claim: "c", dtype: {t[1]}, value: "{t[0]}", expect: "0"}}\n'
    )
    return st.lists(claim, min_size=1, max_size=40).map(lambda claims: "verify:\n" + "".join(claims))


# --- forged audit caches -----------------------------------------------------------------------

TABLES = ("files", "stats", "search")
COLUMNS = (
    "key",
    "findings",
    "equations",
    "checked",
    "failed",
    "path",
    "question_id",
    "tombstone",
    "id_line",
    "id_column",
    "scenario_line",
    "scenario_column",
    "shingles",
    "signature",
)
_NAMES = st.sampled_from([*TABLES, "kept", "notes", "sqlite_stat9", "x"])
_VALUES = st.sampled_from(
    ["'[]'", "NULL", "0", "-1", "x'00'", '\'[["a",1,1,"QB001","x","error","m",null]]\'']
)


@st.composite
def _trigger(draw: st.DrawFn) -> str:
    table = draw(st.sampled_from(TABLES))
    when = draw(st.sampled_from(["AFTER", "BEFORE"]))
    event = draw(st.sampled_from(["INSERT", "UPDATE", "DELETE"]))
    row = "new" if event != "DELETE" else "old"
    body = draw(
        st.sampled_from(
            [
                f"UPDATE files SET findings = {draw(_VALUES)} WHERE key = {row}.key;",
                f"DELETE FROM {draw(st.sampled_from(TABLES))};",
                f"UPDATE stats SET key = {draw(_VALUES)};",
                "SELECT RAISE(IGNORE);",
                "SELECT RAISE(ABORT, 'forged');",
            ]
        )
    )
    if table == "search" and "key =" in body:
        body = "DELETE FROM search;"
    return f"CREATE TRIGGER t{draw(st.integers(0, 99))} {when} {event} ON {table} BEGIN {body} END;"


@st.composite
def _view_in_a_tables_place(draw: st.DrawFn) -> str:
    """A view named like a table, over the real one renamed, with an INSTEAD OF trigger that keeps
    what qbank writes without its findings."""
    table = draw(st.sampled_from(TABLES))
    script = f"ALTER TABLE {table} RENAME TO kept; CREATE VIEW {table} AS SELECT * FROM kept;"
    if table == "files":
        values = ", ".join("'[]'" if c == "findings" else f"new.{c}" for c in COLUMNS)
        script += f"CREATE TRIGGER hide INSTEAD OF INSERT ON files BEGIN INSERT OR REPLACE INTO kept VALUES ({values}); END;"
    return script


@st.composite
def _other_columns(draw: st.DrawFn) -> str:
    table = draw(st.sampled_from(TABLES))
    columns = draw(
        st.lists(
            st.sampled_from([*COLUMNS, "status", "keys", "pairs", "id", "extra"]), min_size=1, unique=True
        )
    )
    kinds = [
        draw(st.sampled_from(["", " BLOB", " TEXT PRIMARY KEY", " INTEGER DEFAULT 0", " TEXT CHECK (0)"]))
        for _ in columns
    ]
    body = ", ".join(f"{c}{k}" for c, k in zip(columns, kinds, strict=True))
    return f"DROP TABLE {table}; CREATE TABLE {table} ({body});"


SCHEMA_OBJECTS = st.one_of(
    _trigger(),
    _view_in_a_tables_place(),
    _other_columns(),
    st.builds("CREATE TABLE {} (a, b);".format, _NAMES),
    st.builds("CREATE VIEW {} AS SELECT 1 AS key;".format, _NAMES),
    st.builds("CREATE VIRTUAL TABLE {} USING fts4(text);".format, _NAMES),
    st.builds("CREATE VIRTUAL TABLE {} USING rtree(id, a, b);".format, _NAMES),
    st.builds("CREATE INDEX i{} ON files (findings);".format, st.integers(0, 9)),
    st.builds("PRAGMA user_version = {};".format, st.integers(-(2**31), 2**31 - 1)),
    st.builds(
        "INSERT INTO files (key, findings) VALUES (x'{}', {});".format,
        st.binary(min_size=1, max_size=24).map(bytes.hex),
        _VALUES,
    ),
    st.just("INSERT INTO search VALUES (0, x'0102', 'not json');"),
)
LINK_PLACES = ("database", "folder", "banks", "qbank")


@st.composite
def forged_caches(draw: st.DrawFn) -> dict[str, Any]:
    """What sits where qbank keeps a bank's cache: a database (qbank's own, empty, or an old format)
    plus schema objects and rows, or bytes, or a link or a FIFO on the way to it."""
    kind = draw(st.sampled_from(["schema", "schema", "schema", "bytes", "link", "fifo"]))
    if kind == "bytes":
        header = draw(st.sampled_from([b"", b"SQLite format 3\x00"]))
        return {"kind": kind, "bytes": header + draw(st.binary(max_size=8192))}
    if kind == "link":
        return {"kind": kind, "place": draw(st.sampled_from(LINK_PLACES)), "dangling": draw(st.booleans())}
    if kind == "fifo":
        return {"kind": kind}
    base = draw(st.sampled_from(["ours", "ours", "empty", "format-1"]))
    return {"kind": kind, "base": base, "script": draw(st.lists(SCHEMA_OBJECTS, min_size=1, max_size=6))}


# --- forged evidence records --------------------------------------------------------------------


@cache
def committed_records() -> tuple[tuple[str, str], ...]:
    """(relative path, newest line) of every committed evidence file."""
    found = []
    for file in sorted(EVIDENCE.glob("*/*.jsonl")):
        line = file.read_text(encoding="utf-8").splitlines()[-1]
        found.append((file.relative_to(EVIDENCE).as_posix(), line))
    return tuple(found)


_WRONG_TYPES = st.sampled_from(
    [None, True, 0, -1, 2**64, 1.5, "", "x" * 300, "\u202e\x1b[2J", [], [1], {}, {"a": None}]
)
_FIELDS = [
    "schema",
    "probe_id",
    "probe_version",
    "verdict",
    "device",
    "timestamp_utc",
    "cases",
    "control_cases",
    "controls",
    "libs",
    "settings",
    "op_path",
    "backend",
    "kind",
]
_VERDICTS = ["preserve", "flush", "mixed", "inconclusive", "float32", "float16", "nan", "saturate"]


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into a JSON value (keys and list indices)."""
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for key, inner in value.items():
            found += _paths(inner, (*prefix, key))
    elif isinstance(value, list):
        for index, inner in enumerate(value):
            found += _paths(inner, (*prefix, index))
    return found


def _set(record: dict[str, Any], path: tuple[Any, ...], value: Any) -> None:
    target: Any = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


@st.composite
def _mutated_record(draw: st.DrawFn, record: dict[str, Any]) -> dict[str, Any]:
    """One edit a forger (or a broken tool) would make to a parsed record."""
    kind = draw(st.sampled_from(["type", "verdict", "field", "newer", "drop"]))
    if kind == "type":
        _set(record, draw(st.sampled_from(_paths(record))), draw(_WRONG_TYPES))
    elif kind == "verdict":
        record["verdict"] = draw(st.sampled_from(_VERDICTS))
    elif kind == "field":  # a derived or measured field of one case edited to another bit pattern
        cases = [p for p in _paths(record) if p[0] in ("cases", "control_cases") and len(p) == 3]
        if cases:
            path = draw(st.sampled_from(cases))
            _set(
                record, path, draw(st.sampled_from(["0x0000", "0x0001", "0x8000", "ieee", "flushed", "0x7f"]))
            )
    elif kind == "newer":
        record["timestamp_utc"] = "2099-01-01T00:00:00Z"
    else:
        record.pop(draw(st.sampled_from(_FIELDS)), None)
    return record


@st.composite
def _mutated_line(draw: st.DrawFn, line: bytes) -> bytes:
    """Byte-level damage: a bomb or broken bytes where JSON parsing used to crash."""
    depth = draw(st.sampled_from([17, 1000, 100_000]))
    kind = draw(st.sampled_from(["deep", "digits", "bytes", "cut", "nan", "none"]))
    if kind == "deep":
        at = draw(st.integers(0, len(line)))
        return line[:at] + b"[" * depth + b"]" * depth + line[at:]
    if kind == "digits":
        return line.replace(
            b'"sm_count": 132', b'"sm_count": ' + b"9" * draw(st.sampled_from([21, 4301, 5000]))
        )
    if kind == "bytes":
        at = draw(st.integers(0, len(line)))
        return (
            line[:at]
            + draw(st.sampled_from([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"\xe2\x80\xa8"]))
            + line[at:]
        )
    if kind == "cut":
        return line[: draw(st.integers(0, len(line)))]
    if kind == "nan":
        return line.replace(b'"sm_count": 132', b'"sm_count": NaN')
    return line


@st.composite
def forged_evidence(draw: st.DrawFn) -> tuple[str, bytes]:
    """(path under evidence/gpu, the line to append): a committed record, mutated."""
    where, text = draw(st.sampled_from(committed_records()))
    record = json.loads(text)
    for _ in range(draw(st.integers(1, 3))):
        record = draw(_mutated_record(record))
    line = json.dumps(record, sort_keys=True).encode()
    return where, draw(_mutated_line(line))


# --- napkin math as authors write it (issue 25) ---------------------------------------------------


@st.composite
def running_chains(draw: st.DrawFn) -> tuple[str, bool]:
    """`a x b x k = S MB * c = R MB`, S the product to 3 digits: (the line, whether R is wrong)."""
    a, b, c = (draw(st.integers(2, 999)) for _ in range(3))
    unit, scale = draw(st.sampled_from([("KB", 10**3), ("MB", 10**6)]))
    k = draw(st.sampled_from([10**3, 10**4]))
    stated = f"{a * b * k / scale:.3g}"
    right = float(stated) * c
    wrong = draw(st.booleans())
    result = right * draw(st.floats(1.1, 3)) if wrong else right
    return f"- {a} x {b} x {k} = {stated} {unit} * {c} = {result:.6g} {unit}", wrong


# (written unit, its factor in the base unit of its dimension), for units of one dimension
_POWER = [("W", 1), ("kW", 10**3), ("kilowatts", 10**3), ("Megawatts", 10**6), ("megawatt", 10**6)]
_MASS = [("kg", 10**3), ("t", 10**6), ("tonnes", 10**6), ("metric tons", 10**6), ("gCO2e", 1)]
_BITS = [("Mb", Fraction(10**6, 8)), ("Megabits", Fraction(10**6, 8)), ("MB", 10**6), ("Gigabytes", 10**9)]
PROSE_AFTER = ["total", "to sum", "in all", "of activation memory", "overall", ""]
REFRAMING_AFTER = ["each", "more", "a day", "at least", "to", "free", "per rack"]


@st.composite
def product_lines(draw: st.DrawFn) -> tuple[str, bool, bool]:
    """`- a * b U1 = c U2 words`: the line, whether c is right, whether the words reframe it."""
    family = draw(st.sampled_from([_POWER, _MASS, _BITS]))
    (u1, f1), (u2, f2) = draw(st.sampled_from(family)), draw(st.sampled_from(family))
    a, b = draw(st.integers(1, 999)), draw(st.integers(1, 999))
    exact = Fraction(a * b) * Fraction(f1) / Fraction(f2)
    right = draw(st.booleans())
    stated = exact if right else exact * draw(st.sampled_from([Fraction(2), Fraction(1, 3), Fraction(10)]))
    words = draw(st.sampled_from(PROSE_AFTER + REFRAMING_AFTER))
    text = f"{float(stated):.6g}".replace("e+", "e")
    return f"- {a} * {b} {u1} = {text} {u2} {words}".rstrip(), right, words in REFRAMING_AFTER


# Factors a wrong result is off by: none of them a conversion a reading could explain (8, 24, 60,
# 1000, 1024…), and each beyond both tolerances (5% for `=`, 1% for `≈`).
_WRONG_BY = [Fraction(3), Fraction(1, 3), Fraction(7, 5), Fraction(5, 7), Fraction(11, 10)]


@st.composite
def readable_lines(draw: st.DrawFn) -> tuple[str, bool]:
    """A line (or a small block) that agrees only under one of the readings of issue 25: `B` token
    by token, a conversion literal, a name bound above. (the text, whether its result is right)"""
    kind = draw(st.sampled_from(["b", "days", "per-minute", "name"]))
    right = draw(st.booleans())
    off = Fraction(1) if right else draw(st.sampled_from(_WRONG_BY))
    if kind == "b":
        n, b = draw(st.integers(1, 400)), draw(st.sampled_from(["0.5", "1", "2", "4"]))
        return f"- {n}B x {b}B = {_shown(n * Fraction(b) * off)} GB", right
    if kind == "days":
        d = draw(st.integers(1, 400))
        return f"- {d} days * 24 hours * 3600 seconds = {_shown(d * 86400 * off)} seconds", right
    if kind == "per-minute":
        rate, size = draw(st.integers(1, 900)), draw(st.integers(1, 64))
        per_day = Fraction(rate * 10**3 * 1440 * size, 10**9) * off  # GB
        return f"- {rate}K samples/min * 1440 * {size} bytes = {_shown(per_day)} GB/day", right
    name, k, m = (
        draw(st.sampled_from(["N", "P", "G", "R"])),
        draw(st.integers(2, 64)),
        draw(st.integers(2, 99)),
    )
    return f"- {name} = {k} nodes.\n- Total: {name} * {m} = {_shown(k * m * off)} nodes", right


def _shown(x: Fraction) -> str:
    """A value to 6 significant digits, as an author would round it."""
    return f"{float(x):.6g}".replace("e+", "e")
