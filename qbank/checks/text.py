"""The record rule on every string of a question file: text shows what it holds (deceptive-text)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import TYPE_CHECKING

from qbank.characters import HIDDEN
from qbank.checks.api import Context
from qbank.finding import Finding
from qbank.load import Loc
from qbank.rules import rule, rule_of

if TYPE_CHECKING:  # the model (pydantic) loads only when a file is not in the audit cache
    from qbank.model.records import Record

# Cyrillic letters, and the Greek capitals and small letters that look Latin (Unicode TR39's
# confusables: Α Β Ε Ζ Η Ι Κ Μ Ν Ο Ρ Τ Υ Χ ο ν), in a title word that also has Latin letters.
# Greek letters used as symbols (`β2`, `μs`) stay allowed.
_LOOKALIKE = re.compile(
    "[\u0400-\u04ff\u0391\u0392\u0395\u0396\u0397\u0399\u039a\u039c\u039d\u039f\u03a1\u03a4\u03a5\u03a7\u03bf\u03bd]"
)
_LATIN = re.compile("[A-Za-z]")
_WORDS = re.compile(r"\w+")


@rule("QB113", "deceptive-text")
def check_deceptive_text(record: Record, context: Context) -> Iterator[Finding]:
    r"""Text shows what it holds: no control characters (other than tab and line feed), no
    bidirectional controls and no invisible characters in any value, and no title word that mixes
    Latin letters with look-alike Cyrillic or Greek ones.

    A bidirectional override makes a reviewer read a different sentence from the one learners get
    (Trojan Source, CVE-2021-42574); a zero-width space or a Cyrillic `а` makes two titles that look
    the same differ, and a terminal escape in a title rewrites the screen of whoever reads the audit.
    A raw NEL, line separator or paragraph separator anywhere in the file, a comment included, is a
    line break to YAML but not to diffs and editors: `# note<NEL>status: deleted` hides a key.

    Fails:
        title: "The FP16 Gr\u0430dient Underflow"
    Passes:
        title: The FP16 Gradient Underflow
    """
    document = record.document
    raw = document.positions.text
    # Most files are ASCII with no escapes and no controls: then no value holds a hidden character
    # (only a double-quoted escape could make one), and only the title's words remain to be read.
    plain = raw.isascii() and "\\" not in raw and _printable(raw)
    hidden_break = None if raw.isascii() else _RAW_BREAK.search(raw)
    if hidden_break:
        line, column = document.positions.at(hidden_break.start())
        message = f"the file holds a raw {_named(hidden_break.group(0))}: {_RAW_BREAK_WHY}"
        yield rule_of(check_deceptive_text).finding(document.path, line, column, message, record.question_id)
    title = document.data.get("title")
    values = [(("title",), title)] if isinstance(title, str) else []
    for loc, value in values if plain else strings(document.data, ()):
        deceit = _deceit(loc, value)
        if deceit:
            line, column = document.positions.in_value(loc, deceit[0])
            yield rule_of(check_deceptive_text).finding(
                document.path, line, column, deceit[1], record.question_id
            )


# libyaml breaks lines at NEL, LS and PS (YAML 1.1 §5.4; PyYAML's reader) as at a line feed, while
# grep, diff and most editors do not: `# note<NEL>title: x` is a comment on screen and a key to the
# loader. Anywhere in the file, even in a comment, such a character hides structure.
_RAW_BREAK = re.compile("[\x85\u2028\u2029]")
_RAW_BREAK_WHY = "YAML breaks the line there but diffs and editors do not, so what follows can hide a key"


def _deceit(loc: Loc, value: str) -> tuple[str, str] | None:
    """What in `value` deceives (the text to point at), and the message; None when nothing does."""
    match = None if value.isascii() and _printable(value) else HIDDEN.search(value)
    if match:
        hidden = match.group(0)
        return hidden, f"{_field(loc)} holds {_named(hidden)} at character {match.start() + 1}: remove it"
    word = _mixed_word(value) if loc == ("title",) else None
    if word:
        return word, f"title word {word!r} mixes Latin letters with look-alike Cyrillic or Greek ones"
    return None


def strings(value: object, loc: Loc) -> Iterator[tuple[Loc, str]]:
    """Every string value under `value`, with its place (`loc` is where `value` is)."""
    if isinstance(value, str):
        yield loc, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield from strings(item, (*loc, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from strings(item, (*loc, index))


def _printable(ascii_text: str) -> bool:
    """No control character but tab and line feed in ASCII text: the part of HIDDEN that ASCII can
    hold. Deleting the printable bytes leaves nothing, several times faster than a regex
    character class or str.isprintable (benchmarks/README.md, printable)."""
    return not ascii_text.encode("ascii").translate(None, _PRINTABLE)


_PRINTABLE = bytes(range(0x20, 0x7F)) + b"\t\n"


def _mixed_word(title: str) -> str | None:
    """The first word with both Latin and look-alike letters (word by word: a regex for the whole
    word backtracks quadratically on a long one)."""
    if not _LOOKALIKE.search(title):
        return None
    return next((w for w in _WORDS.findall(title) if _LATIN.search(w) and _LOOKALIKE.search(w)), None)


def _field(loc: Loc) -> str:
    return ".".join(map(str, loc)) or "the document"


def _named(char: str) -> str:
    """`U+202E (RIGHT-TO-LEFT OVERRIDE)`: the code point, never the character itself."""
    name = unicodedata.name(char, "")
    return f"U+{ord(char):04X}" + (f" ({name})" if name else "")
