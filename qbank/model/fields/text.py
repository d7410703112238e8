"""Rules on the prose fields: titles, question and scenario length, placeholders, raw HTML.

Each rule is a plain function from a value to a Problem (or None); the model attaches them to its
fields (qbank/model/question.py), so they run inside pydantic validation and can be tested alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterator, Mapping
from functools import partial

from qbank import memo
from qbank.rules import Problem, rule

TITLE_MAX = 120
QUESTION_MAX = 200
SCENARIO_MIN = 30

_TRACK = r"(?:cloud|edge|mobile|tinyml|global)"
_PLACEHOLDER_TITLES = (
    re.compile(rf"(?i){_TRACK}\b.*\bL[1-6]\+?\s+\d+"),  # "Cloud Gpu Virtualization L3 0"
    re.compile(rf"(?i){_TRACK}\s+new\s+\d+"),  # "Global New 0134"
    re.compile(r"(?i)(?:todo|tbd|untitled|placeholder|new question|title|question \d+)"),
)
_ID_IN_TEXT = re.compile(rf"(?i)\b{_TRACK}-(?:[a-z0-9]+-)*\d{{3,}}\b")  # "(tinyml-0290)"
_TODO = re.compile(r"<\s*TODO", re.IGNORECASE)  # searched only when the text has a "<"


@rule("QB110", "placeholder")
def placeholder(text: str) -> Problem | None:
    """Text must not be a placeholder: no `<TODO` left from a template, no machine-made title.

    The reference bank shipped 223 titles such as "Cloud Gpu Virtualization L3 0" and
    "Global New 0134" (research/anchor-vault.md §7.1), and its template's `<TODO: …>` text passed
    its own marker check. Here any field containing `<TODO`, and any title made of a track name
    and a number, a bare "Untitled"/"TODO", or a question id, is an error.

    Fails:
        title: Cloud Gpu Virtualization L3 0
    Passes:
        title: Sharing One A100 Between Three Inference Services with MIG
    """
    match = _TODO.search(text) if "<" in text else None
    if match:
        return Problem("unfilled template text `<TODO`", text[match.start() : match.start() + 40])
    return None


def placeholder_title(title: str) -> Problem | None:
    """The title half of the placeholder rule (see `placeholder`)."""
    for pattern in _PLACEHOLDER_TITLES:
        if pattern.fullmatch(title.strip()):
            return Problem(f"placeholder title {title!r}: write a concrete, searchable title")
    match = _ID_IN_TEXT.search(title)
    if match:
        return Problem(f"title contains the question id {match.group(0)!r}: titles describe the problem")
    return placeholder(title)


_MARKDOWN = re.compile(r"\*\*|__|`|\[[^\]]*\]\([^)]*\)|^#|(?<![\w*])\*\S[^*]*\*(?![\w*])")
_LATEX = re.compile(r"\\[A-Za-z]+|\$[^$]*[\\^_{}][^$]*\$|\$\$")


@rule("QB112", "title-format")
def title_format(title: str) -> Problem | None:
    """Titles are plain text: at most 120 characters, no trailing period, no underscores, no
    markdown, no LaTeX, no leading, trailing or doubled spaces.

    The title is shown as a heading and in search results, where markup shows as raw characters.

    Fails:
        title: The `loss_scale` Collapse.
    Passes:
        title: The Loss Scale Collapse
    """
    problems = []
    if len(title) > TITLE_MAX:
        problems.append(f"{len(title)} characters (at most {TITLE_MAX})")
    if title.rstrip().endswith(".") and not title.rstrip().endswith(".."):
        problems.append("ends with a period")
    if "_" in title:
        problems.append("contains an underscore (write words, not identifiers)")
    if _MARKDOWN.search(title):
        problems.append("contains markdown")
    if _LATEX.search(title):
        problems.append("contains LaTeX")
    if title != title.strip() or "  " in title:
        problems.append("has leading, trailing or repeated spaces")
    return Problem("title " + "; ".join(problems)) if problems else None


# Chicago-style: articles, coordinating conjunctions and short prepositions stay lower case.
# Four-letter prepositions (from, into, over, with) are accepted either way: style guides differ.
SMALL_WORDS = frozenset("a an the and but or nor as at by for in of on to vs vs. via per".split())  # noqa: SIM905
EITHER_CASE = frozenset("from into onto over with than upon like near past down off out up".split())  # noqa: SIM905
_EDGE_PUNCTUATION = "\"'“”‘’()[]{},;!?"
_WORD = re.compile(r"\S+")  # \s is exactly str.isspace(), so these are the words of str.split()
_COMPOUND = re.compile(r"([-/])")
_IDENTIFIER_MARK = re.compile(r"[._(]")


@rule("QB111", "title-case")
def title_case(
    title: str, lowercase: Collection[str] = (), spellings: Mapping[str, str] = {}
) -> Problem | None:
    """Titles use Title Case.

    Major words start with a capital. The short words a, an, the, and, but, or, nor, as, at, by,
    for, in, of, on, to, vs, via, per are lower case unless first, last or right after a colon;
    longer prepositions and particles (from, into, over, with, up, off ...) may go either way.
    Acronyms and identifiers are kept as written (FP16, V100, KV, vLLM, cuBLAS, PyTorch): any word
    with a capital after its first letter, or starting with a digit or symbol, is accepted. Known
    acronyms must use their canonical spelling ("Gpu" is "GPU"), and lower-case technical tokens
    such as `mmap` are accepted when listed in `schema/title-words.yaml`. In hyphenated and
    slashed compounds only the first part is checked for case ("Memory-bound" and "Memory-Bound"
    both pass); acronym spellings are checked in every part.

    Fails:
        title: the fp16 loss scaling dance
    Passes:
        title: The FP16 Loss Scaling Dance
    """
    fixes = title_case_fixes(title, lowercase, spellings)
    if fixes:
        return Problem("title is not in Title Case: " + ", ".join(f"{w!r} -> {e!r}" for w, e in fixes))
    return None


def title_problems(
    title: str, lowercase: Collection[str] = (), spellings: Mapping[str, str] = {}
) -> Iterator[tuple[Callable[..., Problem | None], Problem]]:
    """Each title rule that `title` breaks, as (rule function, problem), in the order they are
    reported: placeholder, raw HTML, then format, then case. Lazy, so callers that stop at the first
    problem do not pay for the others."""
    for check, judge in (
        (placeholder, partial(placeholder_title, title)),
        (raw_html, partial(raw_html, title)),  # a title is shown too: in <h1>, <title> and search
        (title_format, partial(title_format, title)),
        (title_case, partial(title_case, title, lowercase, spellings)),
    ):
        problem = judge()
        if problem:
            yield check, problem


def title_case_fixes(
    title: str, lowercase: Collection[str] = (), spellings: Mapping[str, str] = {}
) -> list[tuple[str, str]]:
    """Each title word the title-case rule flags, as (word, expected spelling), in title order."""
    judged = _judgements(lowercase, spellings)
    raws = title.split()  # as _title_words splits, without the offsets only a fix needs
    fixes = []
    for index, raw in enumerate(raws):
        edge = _at_edge(raws, index)
        found = judged.get((raw, edge))
        if found is None:
            word = _word_of(raw)
            found = judged[raw, edge] = (
                word,
                _expected_word(word, edge, lowercase, spellings) if word else word,
            )
        if found[0] != found[1]:
            fixes.append(found)
    return fixes


def fix_title_case(title: str, lowercase: Collection[str] = (), spellings: Mapping[str, str] = {}) -> str:
    """The title with every flagged word that `is_safe_case_fix` allows replaced; the rest as written.

    Words are replaced at their own offsets (a word may occur twice with different expectations,
    "the" first and mid-title), so spacing and punctuation stay exactly as written.
    """
    for offset, word, expected in reversed(list(_title_words(title, lowercase, spellings))):
        if expected != word and is_safe_case_fix(word, expected, spellings):
            title = title[:offset] + expected + title[offset + len(word) :]
    return title


def is_safe_case_fix(word: str, expected: str, spellings: Mapping[str, str]) -> bool:
    """Whether `qbank fix` may write `expected` for `word` without asking a person.

    Only a change of letter case, and only where the intended spelling is known: each part of the
    word (split at `-` and `/`) that changes is a listed spelling or is made only of letters.
    "fp16" -> "Fp16" is refused: the author more likely meant the acronym FP16.
    """
    if expected == word or expected.lower() != word.lower():
        return False
    parts = zip(re.split(r"[-/]", word), re.split(r"[-/]", expected), strict=True)
    return all(old == new or old.lower() in spellings or old.isalpha() for old, new in parts)


def _title_words(
    title: str, lowercase: Collection[str], spellings: Mapping[str, str]
) -> Iterator[tuple[int, str, str]]:
    """(offset in the title, word, expected spelling) for each word, punctuation at its edges removed."""
    matches = list(_WORD.finditer(title))  # the same words as title.split(), with their offsets
    raws = [match.group(0) for match in matches]
    for index, (match, raw) in enumerate(zip(matches, raws, strict=True)):
        word = _word_of(raw)
        if not word:
            continue
        offset = match.start() + len(raw) - len(raw.lstrip(_EDGE_PUNCTUATION))
        yield offset, word, _expected_word(word, _at_edge(raws, index), lowercase, spellings)


def _word_of(raw: str) -> str:
    """A title token without the punctuation at its edges (empty for a token that is only that)."""
    return raw.strip(_EDGE_PUNCTUATION).rstrip(":")


def _at_edge(raws: list[str], index: int) -> bool:
    """Whether the token at `index` is first, last or right after a colon: where small words capitalise."""
    return index == 0 or index == len(raws) - 1 or raws[index - 1].endswith(":")


_JUDGED = memo.Table("model.fields.text.judged")  # (token, edge) -> (word, expected spelling)
_JUDGED_FOR: list[object] = [None, None]  # the word lists _JUDGED was made with (held: ids stay theirs)


def _judgements(
    lowercase: Collection[str], spellings: Mapping[str, str]
) -> dict[tuple[str, bool], tuple[str, str]]:
    """What title_case_fixes found for each (title token, edge): the word without its edge
    punctuation, and its expected spelling. Kept for the word lists last asked with (a bank's, for
    a whole audit): title words recur across a bank, and judging each one again was most of the
    title rules' time."""
    if _JUDGED_FOR[0] is not lowercase or _JUDGED_FOR[1] is not spellings:
        _JUDGED.clear()
        _JUDGED_FOR[:] = [lowercase, spellings]
    _JUDGED.make_room()
    return _JUDGED


def _expected_word(word: str, edge: bool, lowercase: Collection[str], spellings: Mapping[str, str]) -> str:
    if word in lowercase:
        return word
    parts = _COMPOUND.split(word) if "-" in word or "/" in word else [word]
    if len(parts) > 1:
        rest = "".join(spellings.get(p.lower(), p) for p in parts[1:])
        if not parts[0] or parts[0].lower() in SMALL_WORDS:  # "On-Demand", "A/B": a compound, not an article
            return parts[0] + rest
        return _expected_word(parts[0], edge, lowercase, spellings) + rest
    lower = word.lower()
    if lower in spellings:
        return spellings[lower]
    if not word[0].isalpha() or any(map(str.isupper, word[1:])) or _IDENTIFIER_MARK.search(word):
        return word  # starts with a digit or symbol, or an identifier such as vLLM, torch.compile
    if lower in SMALL_WORDS:
        return word[0].upper() + word[1:] if edge else lower
    if lower in EITHER_CASE and not edge:
        return word
    return word[0].upper() + word[1:]


@rule("QB120", "question-length")
def question_length(question: str) -> Problem | None:
    """`question` is one focused interrogative of at most 200 characters.

    The scenario carries the context; a question that needs more than 200 characters is usually
    two questions.

    Fails:
        question: (a 260-character question that restates the scenario before asking)
    Passes:
        question: What happened to the gradients, and what mechanism should have prevented it?
    """
    if len(question) > QUESTION_MAX:
        return Problem(f"question is {len(question)} characters (at most {QUESTION_MAX})")
    return None


@rule("QB121", "scenario-length")
def scenario_length(scenario: str) -> Problem | None:
    """`scenario` sets up a concrete situation in at least 30 characters.

    Fails:
        scenario: Training is slow.
    Passes:
        scenario: A 7B model trains at 40% MFU on 8 H100s while the data loader is at 100% CPU.
    """
    if len(scenario.strip()) < SCENARIO_MIN:
        return Problem(f"scenario is {len(scenario.strip())} characters (at least {SCENARIO_MIN})")
    return None


_CODE_SPAN = re.compile(r"`[^`\n]*`")
_TAG = re.compile(
    r"</?[A-Za-z][\w:-]*(?:\s[^<>]*)?/?>"  # a tag
    r"|<\s*(?:script|iframe|object|embed|svg|img|style|link|meta|base|form)\b",  # an opening, unclosed
    re.IGNORECASE,
)
_SCRIPT_URL = re.compile(r"(?:javascript|vbscript)\s*:|data\s*:\s*text/html", re.IGNORECASE)
_URL_LETTERS = str.maketrans("ıİſ", "iis")
_URL_ODD = re.compile("[ıİſ]")
# An event-handler attribute (onerror=, onload=): `\bon[a-z]+\s*=` with re.IGNORECASE, spelt out
# (IGNORECASE's [a-z] also matches İ ı ſ K) with the boundary checked after the first letter, so that re
# scans for [oO] first: a third of the time over napkin math, which is full of `=`.
_HANDLER = re.compile(r"[oO](?<!\w.)[nN][a-zA-Z\u0130\u0131\u017f\u212a]+\s*=")


@rule("QB122", "raw-html")
def raw_html(text: str) -> Problem | None:
    """Prose fields are plain text: no HTML tags, `<script`, `javascript:` URLs or `onerror=`
    style attributes (code spans in backticks are exempt).

    Questions are rendered on a study site; markup in a question is either a bug or an attack.

    Fails:
        scenario: Your dashboard shows <b>OOM</b> errors <script>alert(1)</script> on every node.
    Passes:
        scenario: Your dashboard shows OOM errors on every node after the batch size doubles.
    """
    if "`" in text:
        text = _CODE_SPAN.sub(lambda m: " " * len(m.group(0)), text)
    # Cheap membership tests first: almost all prose has none of these, and `_SCRIPT_URL` is costly
    # (benchmarks/README.md, script URLs), so it runs only where "script" or "text/html" is
    # written in any case (re's IGNORECASE also matches ı and İ to i, ſ to s: _URL_LETTERS).
    folded = text.lower() if ":" in text else ""
    if folded and not text.isascii() and _URL_ODD.search(text):  # rare: translate() with a table is slow
        folded = text.translate(_URL_LETTERS).lower()
    url_possible = "script" in folded or "text/html" in folded
    for needed, pattern in ((("<" in text), _TAG), (url_possible, _SCRIPT_URL), (("=" in text), _HANDLER)):
        match = pattern.search(text) if needed else None
        if match:
            return Problem(f"raw HTML or script {match.group(0)[:40]!r}: write plain text", match.group(0))
    return None
