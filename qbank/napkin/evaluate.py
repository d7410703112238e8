"""A safe evaluator for napkin-math expressions: a small parser over qbank's own tokens, exact
`Fraction` arithmetic with units, and hard limits. Nothing is ever passed to `eval`, and no string to
sympy (qbank/napkin/symbolic.py hands it trees built from this parser).

Grammar (precedence low → high):
    sum     := product (('+' | '-') product)*
    product := unary (('*' | '/' | 'x' | juxtaposition) unary)*
    unary   := ('-' | '+') unary | postfix
    postfix := power (unit | '/' unit | 'per' unit | '%' | 'x' | restatement)*
    power   := primary ('^' exponent)?                right-associative: 10^10^10 = 10^(10^10)
    exponent:= ('-' | '+') exponent | power           `10^9 Ops` is (10^9) Ops
    primary := number | '$' number | '(' sum ')' | func '(' sum (',' sum)* ')' | '√' primary | 'e' | unit
             | name                                  only the names in NAMES: see symbolic.py

`sqrt`, `ln`, `log2`, `log10`, `exp` and non-integer powers are computed to 40 digits and marked
inexact; everything else is exact. Limits (research P14): integer exponents up to 4096, results up
to 20,000 bits (every result: sums and differences too), 300 tokens, 40 levels of parentheses. Each
operation is charged to the work meter (qbank/napkin/meter.py), which bounds the total.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import Context, Decimal
from fractions import Fraction
from typing import Any, NamedTuple

from qbank import memo
from qbank.napkin import units
from qbank.napkin.lexer import MAX_EXPONENT, LimitError, NapkinError, Token
from qbank.napkin.meter import OPERATION, charge, spend
from qbank.napkin.units import Dims, Mode

# Words read as names (`N`, `U`, `t_active`) rather than notes: empty, except while
# qbank/napkin/symbolic.py re-reads a line that uses them.
NAMES: ContextVar[frozenset[str]] = ContextVar("napkin_names", default=frozenset())
MAX_TOKENS = 300
MAX_DEPTH = 40
MAX_BITS = 20_000
_PRECISION = Context(prec=40)
_FLOAT_MAX = Fraction(sys.float_info.max)
FUNCTIONS = frozenset(
    {"sqrt", "ln", "log", "log2", "log10", "exp", "min", "max", "Max", "Min", "ceil", "floor"}
)
_ORDINALS = frozenset({"st", "nd", "rd", "th"})
SUFFIX = {"k": 10**3, "K": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "B": 10**9}  # `7B`: billions


class Quantity(NamedTuple):  # a tuple: one is made per operation
    value: Fraction
    dims: Dims = units.NONE
    inexact: bool = False  # computed by an irrational function to 40 digits

    def __str__(self) -> str:
        return f"{format_number(self.value)} {units.describe(self.dims)}".removesuffix(" 1")


Node = tuple[Any, ...]


@dataclass
class Parse:
    """The syntax tree of one term, and what the evaluator learned while building it."""

    node: Node
    unknown_words: tuple[str, ...]  # annotation words that are neither units nor counts
    numbers: tuple[Node, ...]  # the node of each number token, in order: see `replaced`


def _duration(word: str) -> Fraction | None:
    """Seconds in one of this time unit (`h`, `min`, `ms`), or None for any other word."""
    unit = units.UNITS.get(word)
    return unit.factor if unit is not None and unit.dims == units.SECOND else None


def duration_goes_on(word: str, number: Token | None, unit: Token | None) -> bool:
    """Whether `number` and `unit`, after a number and the time unit `word`, go on that duration: a
    number apart and a smaller time unit (`1 h` then `30 min`)."""
    larger = _duration(word)
    smaller = _duration(unit.text) if unit is not None and unit.kind == "word" else None
    return (
        larger is not None
        and smaller is not None
        and smaller < larger
        and number is not None
        and number.kind == "num"
        and number.spaced
    )


def of_joins(tokens: Sequence[Token], i: int) -> bool:
    """Whether the `of` at tokens[i] joins things counted (a word, not a unit, after a number) to a
    number with a unit: `1000 steps of 3 s`."""
    if not 2 <= i < len(tokens):
        return False
    before, after = tokens[i - 2 : i], tokens[i + 1 : i + 3]
    return (
        tokens[i].kind == "word"
        and tokens[i].text == "of"
        and len(before) == 2
        and before[0].kind == "num"
        and before[1].kind == "word"
        and not is_unit(before[1].text)
        and len(after) == 2
        and after[0].kind == "num"
        and after[1].kind == "word"
        and is_unit(after[1].text)
    )


class _Parser:
    def __init__(self, tokens: Sequence[Token]) -> None:
        if len(tokens) > MAX_TOKENS:
            raise LimitError(f"expression of {len(tokens)} tokens is over the limit of {MAX_TOKENS}")
        self.tokens = tokens
        self.i = 0
        self.depth = 0
        self.unknown: list[str] = []
        self.numbers: list[Node] = []
        self.names = NAMES.get()  # words read as names, on the lines that use them

    def peek(self, offset: int = 0) -> Token | None:
        j = self.i + offset
        return self.tokens[j] if j < len(self.tokens) else None

    def take(self) -> Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def at(self, kind: str, text: str | None = None) -> bool:
        if self.i >= len(self.tokens):
            return False
        token = self.tokens[self.i]
        return token.kind == kind and (text is None or token.text == text)

    def at_op(self, *texts: str) -> bool:
        """Whether the next token is one of these operators (one test where `at` would take two)."""
        if self.i >= len(self.tokens):
            return False
        token = self.tokens[self.i]
        return token.kind == "op" and token.text in texts

    def parse(self) -> Parse:
        if not self.tokens:
            raise NapkinError("empty expression")
        node = self.sum()
        if self.i != len(self.tokens):
            raise NapkinError(f"cannot read {self.tokens[self.i].text!r} here")
        return Parse(node, tuple(self.unknown), tuple(self.numbers))

    def sum(self) -> Node:
        node = self.product()
        while self.at_op("+", "-"):
            op = self.take().text
            node = ("bin", op, node, self.product())
        return node

    def product(self) -> Node:
        node = self.unary()
        while True:
            if (
                self.at_op("*", "/")
                or self._times_between()
                or self._per_number()
                or self._at_number()
                or self._of_quantity()
            ):
                text = self.take().text
                op = "/" if text in ("/", "per") else "@" if text == "at" else "*"
                node = ("bin", op, node, self.unary())
            elif self._juxtaposed():  # `2(8-1)`, `2 (K,V) * …` is handled by the extractor
                node = ("bin", "*", node, self.unary())
            else:
                return node

    def _times_between(self) -> bool:
        return (
            self.at("times")
            and (nxt := self.peek(1)) is not None
            and nxt.kind in ("num", "lparen", "dollar", "op")
        )

    def _per_number(self) -> bool:
        """`25 tokens per 20 ms`: `per` before a number divides by it."""
        return self.at("word", "per") and (nxt := self.peek(1)) is not None and nxt.kind in ("num", "lparen")

    def _at_number(self) -> bool:
        """`15 ms at 3 mW`, `200 MB at 5 MB/s`: `at` before a number joins two quantities, as `@` (a
        product as written; equations reads it as a quotient too: readings.at_divides)."""
        return (
            self.at("word", "at")
            and (nxt := self.peek(1)) is not None
            and nxt.kind in ("num", "lparen", "dollar")
        )

    def _of_quantity(self) -> bool:
        """`1000 steps of 3 s`, `8 shards of 10 GB`: `of` after things counted and before a number
        with its unit is a product (issue 31). Not after a unit (`10 GB of 80 GB` is a share), nor
        before a bare number (`2 layers of 32`)."""
        return of_joins(self.tokens, self.i)

    def _juxtaposed(self) -> bool:
        token = self.peek()
        return token is not None and token.kind in ("lparen", "num") and not token.spaced

    def unary(self) -> Node:
        return self._signed(self.postfix)

    def power(self) -> Node:
        base = self.primary()
        if self.at("op", "^"):
            self.take()
            return ("pow", base, self.exponent())
        return base

    def exponent(self) -> Node:
        """`10^9 Ops` is (10^9) Ops: an exponent is a signed number or group, never a unit."""
        return self._signed(self.power)

    def _signed(self, operand: Callable[[], Node]) -> Node:
        negative = False
        while self.at_op("-", "+"):
            negative ^= self.take().text == "-"
        node = operand()
        return ("neg", node) if negative else node

    def postfix(self) -> Node:
        node = self.power()
        while True:
            token = self.peek()
            if token is None:
                return node
            if token.kind == "word" and token.text in self.names:
                self.take()  # `1.3N`, `2 N`: times a name (qbank/napkin/symbolic.py)
                node = ("bin", "*", node, ("sym", token.text))
            elif (
                token.kind == "word"
                and not self._is_call(token, operand=False)
                and token.text != "per"
                and not self._at_number()
                and not self._of_quantity()
            ):
                self.take()
                if node[0] == "num" and not token.spaced and not is_known(token.text):
                    self._glued_name(token.text)
                if not self._note(node, token.text):
                    node = self._times_unit(node, token.text, "*")
                    node = self._compound(node, token.text)
            elif (
                token.kind == "word"
                and token.text == "per"
                and self._word_after()
                or token.kind == "op"
                and token.text == "/"
                and self._word_after()
            ):
                self.take()
                node = self._times_unit(node, self.take().text, "/")
            elif token.kind == "percent":
                self.take()
                node = ("bin", "*", node, ("num", Fraction(1, 100), "", -1))
            elif token.kind == "times" and not self._times_between():
                self.take()  # `3.3x`: says "a factor of", changes nothing
            elif (
                token.kind == "lparen" and token.spaced and node[0] in ("num", "bin") and self._restates(node)
            ):
                self._group()  # `0.1 s (100 ms)`: a restatement inside an expression, a note
            else:
                return node

    @staticmethod
    def _restates(node: Node) -> bool:
        """A number with units only: `0.1 s`, `$3/hour` (not `2 * 3`)."""
        while node[0] == "bin" and node[3][0] == "unit":
            node = node[2]
        return bool(node[0] == "num")

    def _is_call(self, token: Token, operand: bool = True) -> bool:
        return is_call(token, self.peek(1), operand)

    def _word_after(self) -> bool:
        nxt = self.peek(1)
        return (
            nxt is not None
            and nxt.kind == "word"
            and nxt.text not in FUNCTIONS
            and nxt.text not in self.names
        )

    @staticmethod
    def _glued_name(word: str) -> None:
        """`2CM`, `4N`: a name written against a number is a product with a name that has no value
        (`sqrt(2CM)`), not a note like `8 heads`; `2nd`, `3rd` are ordinals."""
        if word not in _ORDINALS:
            raise NapkinError(f"{word!r} is a name with no value here")

    def _note(self, node: Node, word: str) -> bool:
        """`40s stall / 3600`: a word that is no unit, after a value whose unit is written and before
        an operator, names what the value is; it cannot be a second unit (issue 25)."""
        if is_known(word) or node[0] != "bin" or node[3][0] != "unit" or not is_unit(node[3][1]):
            return False
        after = self.peek()
        return after is not None and (after.kind == "op" and after.text in "*/+-" or after.kind == "rparen")

    def _compound(self, node: Node, word: str) -> Node:
        """`1 h 30 min`, `2 min 5 s`: a duration written as a sum of smaller and smaller time units,
        read as that sum (issue 31: `1 h 30 min = 90 min` was not read). Only right after a number
        and its unit, and only down the scale, so `100 ms 20 ms` stays unread."""
        while node[0] == "bin" and duration_goes_on(word, self.peek(), self.peek(1)):
            number = self.primary()
            word = self.take().text
            node = ("bin", "+", node, ("bin", "*", number, ("unit", word)))
        return node

    def _times_unit(self, node: Node, word: str, op: str) -> Node:
        if not is_known(word):
            self.unknown.append(word)
        return ("bin", op, node, ("unit", word))

    def primary(self) -> Node:
        token = self.peek()
        if token is None:
            raise NapkinError("expression ends too early")
        if token.kind == "num":
            self.take()
            node = ("num", token.value, token.suffix, token.start)  # the start: see qbank/napkin/readings.py
            self.numbers.append(node)
            return node
        if token.kind == "dollar":
            self.take()
            return ("bin", "*", self.primary(), ("unit", "$"))
        if token.kind == "lparen":
            return self._group()
        if token.kind == "op" and token.text == "√":
            self.take()
            return ("func", "sqrt", (self.postfix(),))
        if token.kind == "word" and self._is_call(token):
            self.take()
            return ("func", token.text.lower(), self._arguments())
        if token.kind == "word" and token.text in self.names:
            self.take()
            return ("sym", token.text)
        if token.kind == "word" and token.text == "e" and self.at_next("op", "^"):
            self.take()
            return ("e",)
        if token.kind == "word" and is_unit(token.text):
            self.take()  # `1 / 400 µs` reads the unit alone as one of it; `FLOP/Byte` likewise
            return ("unit", token.text)
        if token.kind == "ambiguous":
            raise NapkinError(f"{token.text!r} is ambiguous: a decimal comma or a thousands separator?")
        raise NapkinError(f"cannot read {token.text!r}")

    def at_next(self, kind: str, text: str) -> bool:
        nxt = self.peek(1)
        return nxt is not None and nxt.kind == kind and nxt.text == text

    def _group(self) -> Node:
        arguments = self._arguments()
        if len(arguments) != 1:
            raise NapkinError("a comma inside parentheses that are not a function call")
        return arguments[0]

    def _arguments(self) -> tuple[Node, ...]:
        """`(a)` or `(a, b, …)`, counting the nesting depth against MAX_DEPTH."""
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise LimitError(f"more than {MAX_DEPTH} levels of parentheses")
        self.take()
        arguments = [self.sum()]
        while self.at("comma"):
            self.take()
            arguments.append(self.sum())
        if not self.at("rparen"):
            raise NapkinError("unbalanced parenthesis")
        self.take()
        self.depth -= 1
        return tuple(arguments)


def is_call(word: Token, after: Token | None, operand: bool = True) -> bool:
    """`sqrt(2400)`, `min(a, b)`: a function word before a parenthesis. After a value (`operand`
    false) a word that is also a unit is one unless the parenthesis touches it: `30 min (1800 s)` is
    thirty minutes and a restatement, not min(1800 s)."""
    return (
        word.kind == "word"
        and word.text in FUNCTIONS
        and after is not None
        and after.kind == "lparen"
        and (operand or not after.spaced or not is_unit(word.text))
    )


def _compound_known(word: str) -> bool:
    """`GPU-hours`, `CPU-seconds`, `GPU-days`: a count joined to a unit."""
    parts = word.split("-")
    return len(parts) > 1 and all(p in units.UNITS or p in units.COUNTS or p.isupper() for p in parts)


@memo.cached("napkin.evaluate.is_unit")
def is_unit(word: str) -> bool:
    """A unit, alone or joined to a count: `GB`, `GPU-hours`."""
    return word in units.UNITS or _compound_known(word)


@memo.cached("napkin.evaluate.is_known")
def is_known(word: str) -> bool:
    """A unit or a count word (`tokens`): not a note whose meaning qbank has to guess."""
    return is_unit(word) or units.counts_things(word)


def parse(tokens: Sequence[Token]) -> Parse:
    return _Parser(tokens).parse()


def replaced(node: Node, old: Node, new: Node) -> Node:
    """The tree with one subtree (`old`, that very object, as in `Parse.numbers`) replaced by `new`:
    a term re-read with one number changed, without parsing it again."""
    if node is old:
        return new
    kind = node[0]
    if kind == "bin":
        return ("bin", node[1], replaced(node[2], old, new), replaced(node[3], old, new))
    if kind == "neg":
        return ("neg", replaced(node[1], old, new))
    if kind == "pow":
        return ("pow", replaced(node[1], old, new), replaced(node[2], old, new))
    if kind == "func":
        return ("func", node[1], tuple(replaced(a, old, new) for a in node[2]))
    return node  # a leaf: num, unit, e


def evaluate(node: Node, mode: Mode = units.MODES[0]) -> Quantity:
    kind = node[0]
    if kind == "bin":  # the kinds in order of how often they occur
        left, right = evaluate(node[2], mode), node[3]
        if right[0] == "unit":  # `80 GB`: the most common node, evaluated here rather than by a call
            if right[1] not in units.UNITS and "-" not in right[1]:
                return left  # a count or a note: `8 heads`, `tokens` (in every mode: see units.lookup)
            return _binary(node[1], left, unit_of(right[1], mode))
        return _binary(node[1], left, evaluate(right, mode))
    if kind == "num":
        return number_quantity(node[1], node[2], mode)
    if kind == "unit":
        return unit_of(node[1], mode)
    if kind == "neg":
        inner = evaluate(node[1], mode)
        return Quantity(-inner.value, inner.dims, inner.inexact)
    if kind == "pow":
        return _power(evaluate(node[1], mode), evaluate(node[2], mode))
    if kind == "func":
        return _call(node[1], [evaluate(a, mode) for a in node[2]])
    if kind == "e":
        return Quantity(Fraction(Decimal(1).exp(_PRECISION)), inexact=True)
    if kind == "sym":
        raise NapkinError(f"{node[1]!r} is a name with no value here")
    raise AssertionError(kind)


def number_quantity(value: Fraction, suffix: str, mode: Mode) -> Quantity:
    if not suffix:
        return Quantity(value)
    if suffix == "B" and not mode.suffix_b_is_billion:
        return Quantity(value, units.BYTE)
    return Quantity(value * SUFFIX.get(suffix, 1))


@memo.cached("napkin.evaluate.unit_of")
def unit_of(word: str, mode: Mode) -> Quantity:
    """One of the unit a word names; 1 for a count or a note, `hr` for `GPU-hr`."""
    factor, dims = Fraction(1), units.NONE
    for part in word.split("-") if word not in units.UNITS else (word,):
        unit = units.lookup(part, mode)
        if unit is not None:
            factor, dims = factor * unit.factor, units.mul(dims, unit.dims)
    return Quantity(factor, dims)


@memo.cached("napkin.evaluate.mode_dependent")
def mode_dependent(word: str) -> bool:
    """Whether a word names a different unit in some mode (`KB`, `GPU-MB`): see `units.Mode`."""
    first = unit_of(word, units.MODES[0])
    return any(unit_of(word, mode) != first for mode in units.MODES[1:])


def _binary(op: str, a: Quantity, b: Quantity) -> Quantity:
    charge(a.value, b.value)
    inexact = a.inexact or b.inexact
    if op == "*" and b.dims is units.NONE and b.value == 1:
        return a
    if op in ("*", "@"):
        return _checked(Quantity(a.value * b.value, units.mul(a.dims, b.dims), inexact))
    if op == "/":
        if b.value == 0:
            raise NapkinError("division by zero")
        return _checked(Quantity(a.value / b.value, units.div(a.dims, b.dims), inexact))
    if a.dims != b.dims and a.value != 0 and b.value != 0:
        raise UnitError(a, b, op)
    dims = a.dims if a.value != 0 else b.dims
    # A sum is bounded like a product: 49 terms `1/p^4000`, each inside the limit, summed to ~900,000
    # bits, and a line of them took 7 s (issue 30). 1/11^4000 + 1/13^4000 already needs 28,000.
    return _checked(Quantity(a.value + b.value if op == "+" else a.value - b.value, dims, inexact))


class UnitError(NapkinError):
    """Adding or subtracting quantities of different dimensions (a `unit-mismatch`)."""

    def __init__(self, a: Quantity, b: Quantity, op: str) -> None:
        super().__init__(f"{a} {op} {b}: cannot add {units.describe(a.dims)} and {units.describe(b.dims)}")


def _checked(q: Quantity) -> Quantity:
    if q.value.numerator.bit_length() + q.value.denominator.bit_length() > MAX_BITS:
        raise LimitError(f"a value needs more than {MAX_BITS} bits")
    return q


def _power(base: Quantity, exponent: Quantity) -> Quantity:
    if exponent.dims != units.NONE:
        raise NapkinError("an exponent must be a pure number")
    k = exponent.value
    if abs(k) > MAX_EXPONENT:
        raise LimitError(f"exponent {format_number(k)} is over the limit of {MAX_EXPONENT}")
    if k.denominator == 1:
        bits = (base.value.numerator.bit_length() + base.value.denominator.bit_length()) * abs(int(k))
        if bits > MAX_BITS:
            raise LimitError(f"a power needs more than {MAX_BITS} bits")
        spend(OPERATION + bits)  # repeated squaring: the last products are about the size of the result
        if base.value == 0 and k < 0:
            raise NapkinError("division by zero")  # 0^-1 is 1/0
        return Quantity(base.value ** int(k), units.power(base.dims, int(k)), base.inexact)
    if base.dims != units.NONE or base.value <= 0:
        raise NapkinError("a fractional power needs a positive pure number")
    if abs(float(k) * _log10(base.value)) > 1000:
        raise LimitError("a power that large is refused")
    charge(base.value, k)
    result = _decimal(base.value).ln(_PRECISION) * _decimal(k)
    return Quantity(Fraction(result.exp(_PRECISION)), inexact=True)


def _log10(x: Fraction) -> float:
    """log10 of a positive value, to within a bit: float(x) overflows past 1.8e308 (`1e400`) and is
    0 below 5e-324 (`1e-400`), where math.log10 fails."""
    return (x.numerator.bit_length() - x.denominator.bit_length()) * math.log10(2)


def _decimal(x: Fraction) -> Decimal:
    return _PRECISION.divide(Decimal(x.numerator), Decimal(x.denominator))


def _call(name: str, args: list[Quantity]) -> Quantity:
    charge(*(a.value for a in args))
    if name in ("min", "max"):
        if len({a.dims for a in args}) > 1:
            raise NapkinError(f"{name}() of different units")
        pick = min if name == "min" else max
        return pick(args, key=lambda a: a.value)
    if len(args) != 1:
        raise NapkinError(f"{name}() takes one argument")
    (x,) = args
    if x.dims != units.NONE and name != "sqrt":
        raise NapkinError(f"{name}() of a quantity with units")
    if name in ("ceil", "floor"):
        return Quantity(Fraction(math.ceil(x.value) if name == "ceil" else math.floor(x.value)))
    return _irrational(name, x)


_IRRATIONAL: dict[str, Callable[[Decimal], Decimal]] = {
    "sqrt": lambda d: d.sqrt(_PRECISION),
    "ln": lambda d: d.ln(_PRECISION),
    "log": lambda d: d.ln(_PRECISION),
    "log10": lambda d: d.log10(_PRECISION),
    "log2": lambda d: _PRECISION.divide(d.ln(_PRECISION), Decimal(2).ln(_PRECISION)),
    "exp": lambda d: d.exp(_PRECISION),
}


def _irrational(name: str, x: Quantity) -> Quantity:
    if name == "exp" and abs(x.value) > 2000:
        raise LimitError("exp() of a number that large is refused")
    if name != "exp" and x.value <= 0:
        raise NapkinError(f"{name}() of a number that is not positive")
    if name == "log2" and x.value.numerator & (x.value.numerator - 1) == 0 and x.value.denominator == 1:
        return Quantity(Fraction(x.value.numerator.bit_length() - 1))  # log2 of a power of two is exact
    if name == "sqrt":
        exact = _exact_sqrt(x.value)
        dims = tuple(p // 2 for p in x.dims)
        if any(p % 2 for p in x.dims):
            raise NapkinError("sqrt() of a unit with an odd power")
        if exact is not None:
            return Quantity(exact, dims)
        return Quantity(Fraction(_IRRATIONAL[name](_decimal(x.value))), dims, inexact=True)
    return Quantity(Fraction(_IRRATIONAL[name](_decimal(x.value))), inexact=True)


def _exact_sqrt(x: Fraction) -> Fraction | None:
    n, d = math.isqrt(x.numerator), math.isqrt(x.denominator)
    return Fraction(n, d) if n * n == x.numerator and d * d == x.denominator else None


def format_number(x: Fraction) -> str:
    """A value as an author would read it: up to 6 significant digits, exact when short."""
    charge(x)  # beyond a float, a conversion to Decimal, charged like any operation
    if x.denominator == 1 and abs(x.numerator) < 10**15:
        return f"{x.numerator:,}"
    value = float(x) if -_FLOAT_MAX < x < _FLOAT_MAX else math.inf
    if (value == 0 and x != 0) or math.isinf(value):  # beyond a float: 1e-400, 1e400
        return f"{_decimal(x).normalize():.6g}"
    if value != 0 and (abs(value) >= 1e15 or abs(value) < 1e-4):
        return f"{value:.6g}"
    return f"{value:,.6g}" if abs(value) >= 1000 else f"{value:.6g}"
