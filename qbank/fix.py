"""`qbank fix`: safe mechanical fixes, written as minimal splices into the original file text.

Why not load, change and dump: ruamel.yaml's round-trip dump rewrote 144 of the 150 real StaffML
files even when nothing was changed (it drops `null`, re-indents), so every "fix" would have been a
diff of the whole file. Instead a fix is a splice. The loader's positions (`Positions.span`) give
the source text of the one value being fixed; the old substring (a marker, or the title) is
replaced there only if it is written there verbatim exactly once. Every other byte (comments,
quoting style, `null` spellings, indentation, line endings) stays as it was.

A splice is only as safe as its check, so nothing is written until the new text has been loaded
again and its data equals the old data with exactly the intended changes: the fixed values, and
trailing spaces and tabs gone from the ends of lines. Anything else (a trailing space that was
inside a quoted value, a `|+` scalar at the end of the file, an escape the splice did not expect)
leaves the file untouched, with the reason. A file is replaced atomically (a temporary file in the
same folder, fsync, `os.replace`) and never through a symbolic link, whether the link is the file
or a folder between the bank root and it (qbank/atomic.py).

The fixes:
  - trailing spaces and tabs at the end of every line, except inside a block scalar (`|`, `>`), where
    they are part of the value (a Markdown hard break, a whitespace-only line of a literal block);
    exactly one line break at the end of the file, in the file's own convention (the first line break
    in it: LF, CRLF, CR, or a Unicode one);
  - a section marker of `napkin_math` / `common_mistake` written with the canonical spelling, when
    the accepted spelling is absent and there is exactly one near miss (QB130, QB131);
  - title-case words whose intended spelling is unambiguous (QB111; see `is_safe_case_fix`);
  - plain values that YAML 1.1 reads as something else (`no`, `2026-01-01`) quoted (QB012): a
    structural edit, made by qbank/rewrite.py (ruamel.yaml, or a splice where it cannot keep the
    file), the writer `qbank migrate` uses.
Tombstones (`status: deleted`) get only the whitespace fix: their text is no longer shown.
"""

from __future__ import annotations

import copy
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from qbank import atomic, load, rewrite
from qbank.checks.text import strings
from qbank.engine import UsageError, display_path, questions_of
from qbank.finding import Finding
from qbank.load import Document, Loc, Positions
from qbank.model.fields import markers
from qbank.model.fields import text as text_rules
from qbank.model.taxonomy import NO_BANK, BankTables, find_bank_root, load_bank_tables


@dataclass(frozen=True)
class FileFix:
    """What `fix_paths` did (or, with check=True, would do) to one file."""

    path: str  # display path
    changes: tuple[str, ...]  # the fixes applied, or to apply with check=True; empty when skipped
    skipped: str | None = None  # why the whole file was left alone
    written: bool = False
    notes: tuple[str, ...] = ()  # problems seen but left for a person: ambiguous, needs a hand edit


@dataclass(frozen=True)
class _Edit:
    """One value change: `old`, at offset `at` of the string value at `loc`, becomes `new`."""

    loc: Loc
    at: int
    old: str
    new: str
    change: str  # how the report describes it


_FIELDS = (
    ("napkin_math", markers.NAPKIN_MARKERS, markers.napkin_math_markers),
    ("common_mistake", markers.MISTAKE_MARKERS, markers.common_mistake_markers),
)
# What libyaml reads as a line break (YAML 1.1 §5.4): `\r\n` first, so that it stays whole.
_BREAK = re.compile("\r\n|[\n\r\x85\u2028\u2029]")
_TRAILING = re.compile("[ \t]+(?=[\n\r\x85\u2028\u2029]|\\Z)")


def fix_paths(paths: Sequence[Path], cwd: Path, check: bool) -> list[FileFix]:
    """Fix every YAML file under `paths` (files or folders; the bank's questions/ when empty).

    With `check`, everything is computed and verified but nothing is written.
    Raises UsageError for a path that does not exist, or for no paths outside a bank.
    """
    schemas = _Schemas()
    return [fix_file(file, display_path(file, cwd), schemas.of(file), check) for file in _files(paths, cwd)]


def fix_file(file: Path, shown: str, tables: BankTables | Finding, check: bool) -> FileFix:
    """Fix one file; `tables` gives the title words, or is the finding that says it is unusable."""
    refused = atomic.refusal(file)  # before --check too: what would be refused is not reported as fixable
    if refused:
        return FileFix(shown, (), skipped=refused)
    read = _read_document(file, shown)
    if isinstance(read, str):
        return FileFix(shown, (), skipped=read)
    document, original, before, ambiguous = read
    quoted = _quoted(original, document, ambiguous)
    if isinstance(quoted, str):
        return FileFix(shown, (), skipped=quoted)
    document, text, quoting = quoted
    edits, notes = _value_edits(document.data, tables)
    placed, unplaced = _place(text, document.positions, edits)
    spliced = _splice(text, placed)
    fixed, whitespace, kept = _fix_whitespace(
        spliced, _block_scalars(spliced, document if not placed else None)
    )
    changes = tuple(quoting + [edit.change for _, edit in placed] + whitespace)
    result = FileFix(shown, changes, notes=tuple(notes + unplaced + kept))
    if fixed == original:
        return result
    problem = _verify(document, [edit for _, edit in placed], fixed)
    if problem:
        return replace(
            result, changes=(), skipped=f"fix could not be proven safe ({problem}); file left unchanged"
        )
    if check:
        return result
    error = write_file(file, fixed.encode("utf-8"), before)
    return replace(result, changes=(), skipped=error) if error else replace(result, written=True)


def marker_fixes(text: str, document: Document) -> tuple[str, list[str], list[str]]:
    """`text` with its napkin-math and common-mistake markers fixed as `qbank fix` fixes them (a
    missing marker with exactly one near miss): the new text, the changes and the notes. The text
    comes back unchanged, with the reason as a note, when the result cannot be proven safe."""
    edits: list[_Edit] = []
    notes: list[str] = []
    if document.data.get("status") != "deleted":
        _all_marker_edits(document.data, edits, notes)
    placed, unplaced = _place(text, document.positions, edits)
    fixed = _splice(text, placed)
    problem = _verify(document, [edit for _, edit in placed], fixed) if placed else None
    if problem:
        return text, [], [*notes, f"markers not fixed: {problem}"]
    return fixed, [edit.change for _, edit in placed], notes + unplaced


# --- which files ------------------------------------------------------------------------------


def _files(paths: Sequence[Path], cwd: Path) -> list[Path]:
    """The files to fix, sorted. Folders are walked; a symlink is kept so fix_file can refuse it."""
    if not paths:
        bank = find_bank_root(cwd)
        if bank is None:
            raise UsageError(NO_BANK)
        paths = [bank / "questions"]
    found: set[Path] = set()
    for given in paths:
        target = questions_of(given if given.is_absolute() else cwd / given)
        if not target.exists() and not target.is_symlink():
            raise UsageError(f"no such file or folder: {target}")
        if target.is_dir() and not target.is_symlink():
            found.update(load.iter_yaml_files(target))
        else:
            found.add(target)
    return sorted(found)


class _Schemas:
    """The title words of each bank a run touches, read once per bank."""

    def __init__(self) -> None:
        self._by_bank: dict[Path | None, BankTables | Finding] = {}

    def of(self, file: Path) -> BankTables | Finding:
        bank = find_bank_root(file.parent)
        if bank not in self._by_bank:
            self._by_bank[bank] = load_bank_tables(bank / "schema" if bank else None)
        return self._by_bank[bank]


def read_file(file: Path, shown: str) -> tuple[bytes, os.stat_result] | str:
    """The bytes and stat of a regular file, or why it is left alone. Symlinks are never followed:
    a fix written through one would land in a file outside the folder that was asked for."""
    try:
        info = os.lstat(file)
    except OSError as exc:
        return _describe(load.rules.unreadable_file(shown, exc))
    if stat.S_ISLNK(info.st_mode):
        return "a symbolic link: not followed (fix the file it points to)"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    try:  # O_NOFOLLOW, and read_regular's own checks: the path may have become a link or a FIFO
        data, info = load.read_regular(file, load.MAX_BYTES + 1, getattr(os, "O_NOFOLLOW", 0))
    except load.NotRegular:
        return "not a regular file"
    except OSError as exc:
        return _describe(load.rules.unreadable_file(shown, exc))
    if len(data) > load.MAX_BYTES:
        return _describe(load.rules.file_too_large(shown))
    return data, info


def _read_document(file: Path, shown: str) -> tuple[Document, str, os.stat_result, list[Loc]] | str:
    """The loaded document, its text, the file's stat, and the places of plain values that YAML 1.1
    reads otherwise (read as YAML 1.2 does, to be quoted); or why the file is left alone."""
    read = read_file(file, shown)
    if isinstance(read, str):
        return read
    data, before = read
    ambiguous: list[Loc] = []
    document = load.from_bytes(data, shown, ambiguous)
    if isinstance(document, Finding):  # broken files are the audit's business, not a fixer's
        return _describe(document)
    return document, data.decode("utf-8"), before, ambiguous  # from_bytes has just decoded it


def _quoted(text: str, document: Document, ambiguous: list[Loc]) -> tuple[Document, str, list[str]] | str:
    """The document and text with every ambiguous plain value quoted (qbank/rewrite.py, the
    writer `qbank migrate` uses), and a change for each; why not, when it cannot be done safely."""
    if not ambiguous:
        return document, text, []
    done = rewrite.rewrite(text, document, [rewrite.Quote(loc) for loc in ambiguous])
    if isinstance(done, str):
        return f"ambiguous values not quoted: {done}"
    quoted = load.parse(done.text, document.path)
    if isinstance(quoted, Finding):  # rewrite proved it loads; kept as a guard
        return _describe(quoted)
    return quoted, done.text, [f"{_kind_of(loc)} at {_dotted(loc)} quoted" for loc in ambiguous]


def _kind_of(loc: Loc) -> str:
    return "key" if isinstance(loc, load.KeyLoc) else "value"


def _describe(finding: Finding) -> str:
    return f"{finding.code} {finding.name} at line {finding.line}, column {finding.column}: {finding.message}"


# --- what to change ---------------------------------------------------------------------------


def _value_edits(data: dict[str, Any], tables: BankTables | Finding) -> tuple[list[_Edit], list[str]]:
    """The marker and title edits of a question, and notes on what was seen but not fixed."""
    if data.get("status") == "deleted":
        return [], []  # a tombstone's text is no longer shown: only whitespace is fixed
    edits: list[_Edit] = []
    notes: list[str] = []
    _all_marker_edits(data, edits, notes)
    title = data.get("title")
    if isinstance(title, str):
        if isinstance(tables, Finding):
            notes.append(f"title case not fixed: {tables.message}")
        else:
            _title_edits(title, tables, edits, notes)
    return edits, notes


def _all_marker_edits(data: dict[str, Any], edits: list[_Edit], notes: list[str]) -> None:
    """The marker edits of both fields. A field's near misses are what was meant only when fixing
    them completes its sections: `**Calculate total fleet hours:**` in a block with no other
    marker is a step's heading, not a misspelt `**Calculations:**` (StaffML cloud-0340)."""
    details = data.get("details")
    if not isinstance(details, dict):
        return
    for key, marker_set, rule in _FIELDS:
        value = details.get(key)
        if not isinstance(value, str):
            continue
        found: list[_Edit] = []
        _marker_edits(("details", key), value, marker_set, found, notes)
        fixed = value
        for edit in sorted(found, key=lambda e: e.at, reverse=True):
            fixed = fixed[: edit.at] + edit.new + fixed[edit.at + len(edit.old) :]
        if found and rule(fixed):
            notes.append(f"details.{key}: near misses not fixed: the sections would still be incomplete")
        else:
            edits += found


def _marker_edits(
    loc: Loc, value: str, marker_set: tuple[markers.Marker, ...], edits: list[_Edit], notes: list[str]
) -> None:
    """A marker missing from `value` is fixed when exactly one near miss shows what was meant."""
    where = _dotted(loc)
    for marker in marker_set:
        if marker.pattern.search(value):
            continue
        near = list(marker.near_miss.finditer(value))
        if len(near) == 1:
            old = near[0].group(0)
            bolded = old if old.startswith("**") else f"**{old}**"  # `Assumptions & Constraints:`
            new = bolded if marker.pattern.fullmatch(bolded) else marker.canonical  # the author's words
            change = f"marker {old!r} -> {new!r} in {where}"
            edits.append(_Edit(loc, near[0].start(), old, new, change))
        elif near:  # which one was meant is a judgement, so a person makes it
            found = ", ".join(repr(m.group(0)) for m in near)
            notes.append(f"{where}: {len(near)} near misses of {marker.label} ({found}); fix by hand")


def _title_edits(title: str, tables: BankTables, edits: list[_Edit], notes: list[str]) -> None:
    placeholder = text_rules.placeholder_title(title)
    if placeholder:  # a title to rewrite, not to recase: "(tinyml-0290)" must not become "(TinyML-0290)"
        notes.append(f"title case not fixed: {placeholder.message}")
        return
    words, spellings = tables.lowercase_words, tables.spellings
    for word, expected in text_rules.title_case_fixes(title, words, spellings):
        if not text_rules.is_safe_case_fix(word, expected, spellings):
            notes.append(
                f"title word {word!r} left as written: {expected!r} is not certain "
                "(list its spelling in schema/title-words.yaml, or fix it by hand)"
            )
    fixed = text_rules.fix_title_case(title, words, spellings)
    if fixed != title:
        edits.append(_Edit(("title",), 0, title, fixed, f"title {title!r} -> {fixed!r}"))


def _dotted(loc: Loc) -> str:
    return ".".join(str(part) for part in loc)


# --- splicing ---------------------------------------------------------------------------------


def _place(text: str, positions: Positions, edits: list[_Edit]) -> tuple[list[tuple[int, _Edit]], list[str]]:
    """The offset in the file of each edit's old text, searched only inside its own value and
    accepted only when written there verbatim exactly once; the others become notes."""
    placed: list[tuple[int, _Edit]] = []
    notes: list[str] = []
    for edit in edits:
        start = _find_once(text, positions.span(edit.loc), edit.old)
        if start is None or any(start < at + len(e.old) and at < start + len(edit.old) for at, e in placed):
            # Quoting, escapes or folding make the source differ from the value: a person edits it.
            notes.append(
                f"{edit.change}: needs a hand edit (not written verbatim once in {_dotted(edit.loc)})"
            )
        else:
            placed.append((start, edit))
    return placed, notes


def _find_once(text: str, span: tuple[int, int] | None, old: str) -> int | None:
    """The offset of `old` when it occurs exactly once within `span` of `text`."""
    if span is None:
        return None
    start, end = span
    return text.find(old, start, end) if text.count(old, start, end) == 1 else None


def _splice(text: str, placed: list[tuple[int, _Edit]]) -> str:
    """`text` with each placed edit applied; from the end, so earlier offsets stay valid."""
    for start, edit in sorted(placed, key=lambda item: item[0], reverse=True):
        text = text[:start] + edit.new + text[start + len(edit.old) :]
    return text


def _block_scalars(text: str, document: Document | None) -> list[tuple[int, int]]:
    """Where the text of each block scalar (`|`, `>`) lies in `text`, from the line after its
    indicator to its end: there trailing spaces are the value's own. `document` is `text` loaded,
    or None to load it (after a splice the old positions have moved)."""
    loaded = document or load.parse(text, "")
    if isinstance(loaded, Finding):
        return []  # the splice broke the file: _verify refuses it
    spans = []
    for loc, _ in strings(loaded.data, ()):
        span = loaded.positions.span(loc)
        if span and text.startswith(("|", ">"), span[0]):
            first_break = _BREAK.search(text, span[0], span[1])
            spans.append((first_break.start() if first_break else span[1], span[1]))
    return spans


def _fix_whitespace(text: str, kept: list[tuple[int, int]]) -> tuple[str, list[str], list[str]]:
    """`text` without trailing spaces/tabs outside the `kept` spans and with exactly one final line
    break in the file's own convention; the changes made, and a note when some were kept."""
    inside = 0

    def strip(match: re.Match[str]) -> str:
        nonlocal inside
        if any(start <= match.start() < end for start, end in kept):
            inside += 1
            return match.group(0)
        return ""

    stripped, lines = _TRAILING.subn(strip, text)
    lines -= inside
    body = stripped.rstrip("\r\n\x85\u2028\u2029")
    tail = stripped[len(body) :]
    first = _BREAK.search(text)
    ending = first.group(0) if first else "\n"
    changes = [f"trailing whitespace on {lines} line{'s' if lines != 1 else ''}"] if lines else []
    notes = (
        [
            f"trailing whitespace kept on {inside} line{'s' if inside != 1 else ''} inside block scalars "
            "(`|`, `>`), where it can be part of the value"
        ]
        if inside
        else []
    )
    if not tail:
        changes.append("missing newline at end of file added")
    elif tail != ending:
        blank = len(tail.splitlines()) - 1
        changes.append(f"{blank} blank line{'s' if blank != 1 else ''} at end of file removed")
    return body + ending, changes, notes


# --- verification -----------------------------------------------------------------------------


def _verify(document: Document, edits: list[_Edit], fixed: str) -> str | None:
    """Why the fixed text is not provably the old data plus the intended changes; None if it is."""
    reloaded = load.parse(fixed, document.path)
    if isinstance(reloaded, Finding):
        return f"the fixed text would not load: {reloaded.code} {reloaded.message}"
    where = _difference(_expected(document.data, edits), reloaded.data, ())
    if where is not None:
        return f"the value of {_dotted(where) or 'the document'} would change"
    return None


def _expected(data: dict[str, Any], edits: list[_Edit]) -> dict[str, Any]:
    """The original data with the edits applied to the values (not to the text)."""
    expected = copy.deepcopy(data)
    for edit in sorted(edits, key=lambda e: e.at, reverse=True):  # from the end, like _splice
        parent: Any = expected
        for key in edit.loc[:-1]:
            parent = parent[key]
        value = parent[edit.loc[-1]]
        parent[edit.loc[-1]] = value[: edit.at] + edit.new + value[edit.at + len(edit.old) :]
    return expected


def _difference(expected: Any, actual: Any, loc: Loc) -> Loc | None:
    """The first place where `actual` differs from `expected`, or None. Types are compared too
    (`1 == True` in Python). Strings must be equal: the whitespace fix never changes a value."""
    if type(expected) is not type(actual):
        return loc
    if isinstance(expected, dict):
        if list(expected) != list(actual):
            return loc
        return _first(_difference(value, actual[key], loc + (key,)) for key, value in expected.items())
    if isinstance(expected, list):
        if len(expected) != len(actual):
            return loc
        return _first(
            _difference(e, a, loc + (i,)) for i, (e, a) in enumerate(zip(expected, actual, strict=True))
        )
    if isinstance(expected, str):
        return None if actual == expected else loc
    if isinstance(expected, float):  # repr: nan equals nan, and -0.0 differs from 0.0
        return None if repr(expected) == repr(actual) else loc
    return None if expected == actual else loc


def _first(places: Iterator[Loc | None]) -> Loc | None:
    return next((place for place in places if place is not None), None)


# --- writing ----------------------------------------------------------------------------------


def write_file(file: Path, data: bytes, before: os.stat_result) -> str | None:
    """Replace `file` by `data`, keeping its permission bits; why not, or None when done.

    qbank/atomic.py makes it atomic (a kill at any point leaves the old file or the new one) and
    refuses links; `before` makes it give way to an editor that saved the file meanwhile.
    """
    try:
        atomic.replace(file, data, expect=before)
    except atomic.Changed:
        return "the file changed while it was being fixed; left as it is (run fix again)"
    except atomic.WriteError as exc:
        return str(exc)
    except OSError as exc:
        return f"cannot write: {exc.strerror or exc}"
    return None
