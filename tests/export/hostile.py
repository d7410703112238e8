"""Hostile input for the study site: XSS payloads, questions that carry one in every field the site
shows, and a check that generated markup holds nothing the templates do not make.

Each payload goes into two questions:
  - validated (`cloud-202611-vNN`): written as YAML into a bank, audited and released as `qbank
    export` does. A field takes the payload as written where the model accepts it, else inside a
    code span (`...`, which the `raw-html` rule exempts), else a plain value; a field the audit's
    other rules find an error in (`deceptive-text`) gets the plain value too. `Hostile.how` says
    which, field by field (tests/export/test_site.py states what validation refuses).
  - constructed (`cloud-202611-cNN`): the payload as written in every field the site shows, enums
    and topic included, past the model's validators (model_construct), so the site must not
    depend on the model for its safety.

What a page may contain (`problems`): the templates' own tags and attributes, CommonMark's, and
inside KaTeX's output (`math`) whatever untrusted KaTeX makes, but no scripts, frames, links, ids
or event handlers; ids only the templates', once each (no DOM clobbering); links only relative,
http(s) or mailto; scripts, stylesheets and meta tags only those shipped. Text is compared after
`visible`."""

from __future__ import annotations

import hashlib
import re
import shutil
from dataclasses import dataclass, replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from qbank import engine
from qbank.export import release
from qbank.export.release import Entry, Release
from qbank.finding import Finding, Severity
from qbank.model.public import canonical
from qbank.model.question import Question
from qbank.model.taxonomy import load_bank_tables
from tests.conftest import REPO


@dataclass(frozen=True)
class Payload:
    text: str
    prose: str | None = None  # what CommonMark shows for it, where that differs (entities decoded)
    math: bool = False  # prose typesets it with KaTeX, so its text is not compared


# Each tries to run `window.__xss = 1`, `alert(1)` or to reach the page's markup.
PAYLOADS = (
    Payload("<script>window.__xss=1</script>"),
    Payload("<ScRiPt>alert(1)</sCrIpT>"),
    Payload('<img src=x onerror="window.__xss=1">'),
    Payload("<img src=x:alert(alt) onerror=eval(src) alt=0>"),
    Payload("<svg onload=alert(1)>"),
    Payload('<svg><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>'),
    Payload('"><script>window.__xss=1</script>'),
    Payload("'><img src=x onerror=alert(1)>"),
    Payload("' onmouseover='window.__xss=1"),
    Payload('" onfocus="window.__xss=1" autofocus="'),
    Payload("<p/onmouseover=alert(1)>hover</p>"),
    Payload('<details open ontoggle="window.__xss=1">'),
    Payload("[click](javascript:window.__xss=1)"),
    Payload("[click](JaVaScRiPt:alert(1))"),
    Payload("[click](&#106;avascript:alert(1))", prose="[click](javascript:alert(1))"),
    Payload("[click](javascript&colon;alert(1))", prose="[click](javascript:alert(1))"),
    Payload("[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)"),
    Payload('[click](https://example.invalid "t\\" onmouseover=\\"alert(1)")', prose="click"),
    Payload("<javascript:alert(1)>"),
    Payload('<a href="javascript:window.__xss=1">click</a>'),
    Payload('<iframe srcdoc="<script>parent.__xss=1</script>"></iframe>'),
    Payload('<object data="data:text/html,<script>alert(1)</script>"></object>'),
    Payload('<base href="javascript:alert(1)//">'),
    Payload('<meta http-equiv="refresh" content="0;url=javascript:alert(1)">'),
    Payload('<form action="javascript:alert(1)"><button>go</button></form>'),
    Payload("{{ 7*7 }} {{ config }} {% debug %} #{7}"),  # one `*`: two would be CommonMark emphasis
    Payload("</textarea><script>window.__xss=1</script>"),
    Payload("</script><script>window.__xss=1</script>"),
    Payload("</title><script>window.__xss=1</script>"),
    Payload("--><script>window.__xss=1</script><!--"),
    Payload('<style>body{background:url("javascript:alert(1)")}</style>'),
    Payload('<div style="width:expression(alert(1))">css</div>'),
    Payload("&lt;script&gt;window.__xss=1&lt;/script&gt;", prose="<script>window.__xss=1</script>"),
    Payload(
        "&amp;lt;script&amp;gt;alert(1)&amp;lt;/script&amp;gt;",
        prose="&lt;script&gt;alert(1)&lt;/script&gt;",
    ),
    Payload("&#60;img src=x onerror=alert(1)&#62;", prose="<img src=x onerror=alert(1)>"),
    Payload("\\u003cscript\\u003ealert(1)\\u003c/script\\u003e"),
    Payload("%3Cscript%3Ealert(1)%3C%2Fscript%3E"),
    Payload("＜script＞alert(1)＜/script＞"),  # fullwidth brackets
    Payload("<div>\n<script>window.__xss=1</script>\n</div>"),  # an HTML block
    Payload("<scr\0ipt>alert(1)</scr\0ipt> java\0script:alert(1)"),
    Payload("\u202eLTR\u202c override <script>alert(1)</script>"),
    Payload("line\u2028break\u2029 </script><script>alert(1)</script>"),  # JavaScript line breaks
    Payload("<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>"),  # mutation XSS
    Payload("$\\href{javascript:alert(1)}{click}$", math=True),
    Payload("$\\url{javascript:alert(1)}$ and $\\htmlClass{x}{y}$", math=True),
    Payload("\\(\\htmlId{main}{a}\\htmlStyle{color:red}{b}\\htmlData{x=y}{c}\\)", math=True),
    Payload("$$\\includegraphics{x.png} \\def\\a{\\a}\\a$$", math=True),  # and an endless macro
    Payload(
        '<https://example.invalid/"onmouseover="alert(1)>',
        prose='https://example.invalid/"onmouseover="alert(1)',
    ),
    Payload(
        '<mailto:a@example.invalid?subject="><script>alert(1)</script>>',
        prose='mailto:a@example.invalid?subject="<script>alert(1)</script>>',
    ),
    # From a file:// page, `//host/share` is file://host/share: Windows opens it over SMB.
    Payload("[share](//evil.example/share)"),
    Payload("[share](<  //evil.example/share>)"),
    Payload("[share](smb://evil.example/share) [run](ms-msdt:/id%20x)"),
)

PROSE = ("scenario", "question", "options", "realistic_solution", "common_mistake", "napkin_math")
ENUMS = ("track", "level", "zone", "competency_area", "topic")
DETAILS = ("options", "realistic_solution", "common_mistake", "napkin_math")
# Where each field shows on a question page (tags only in the index's search data).
SHOWN_IN = {
    "title": "h1",
    "scenario": ".scenario",
    "question": ".ask",
    "realistic_solution": "#answer",
    "common_mistake": "#mistake",
    "napkin_math": "#napkin",
    **dict.fromkeys(ENUMS, ".meta"),
}
BASE = {
    "schema_version": "1.0",
    "track": "cloud",
    "level": "L3",
    "zone": "diagnosis",
    "topic": "mixed-precision-training",
    "competency_area": "precision",
    "bloom_level": "analyze",
    "phase": "training",
    "status": "published",
    "provenance": "human",
}


def question_id(kind: str, n: int) -> str:
    """`v` for a validated question, `c` for a constructed one."""
    return f"cloud-202611-{kind}{n:02d}"


def page_names() -> list[str]:
    """Every page of the hostile site, known before it is built (for test ids)."""
    ids = sorted(question_id(kind, n) for kind in "cv" for n in range(len(PAYLOADS)))
    return ["index.html", "coverage.html", *(f"q/{i}.html" for i in ids)]


def visible(text: str) -> str:
    """Text as compared: whitespace runs as one space; NUL dropped (HTML drops it or makes it
    U+FFFD, CommonMark makes it U+FFFD)."""
    return " ".join(text.replace("\0", "").replace("\ufffd", "").split())


# --- the questions ------------------------------------------------------------------------------


def letters(n: int) -> str:
    """`n` spelled in letters (10 -> "ba"): duplicate-content masks numbers, so two questions that
    differ only in `n` would be copies."""
    return "".join(chr(ord("a") + int(d)) for d in str(n))


def fields(s: str, tag: str = "") -> dict[str, Any]:
    """Every field the site shows, each carrying `s` (in prose, inside what a valid question needs);
    `tag` keeps each question's question and answer its own."""
    return {
        "title": s,
        "scenario": f"A release pipeline copies text from an incident log into a question: {s}",
        "question": f"What does page {tag} show for {s}?",
        "options": [f"Option {k}: {s}" for k in "ABCD"],
        "realistic_solution": f"It shows as text: {s}",
        "common_mistake": (
            f"**The Pitfall:** Trusting {s}\n**The Rationale:** Markup looks harmless.\n"
            "**The Consequence:** A script runs in every reader's browser."
        ),
        "napkin_math": (
            f"**Assumptions:** one payload, {s}\n**Calculations:**\n- 2 + 2 = 4\n"
            "**Conclusion:** it stays text."
        ),
        "tags": [s],
        **dict.fromkeys(ENUMS, s),
    }


def plain(n: int) -> dict[str, Any]:
    """A field's value where the payload is refused."""
    return (
        fields(f"plain words, case {letters(n)}", letters(n))
        | {"title": f"Hostile Input {n} Shows as Text"}
        | {k: BASE[k] for k in ENUMS}
    )


@dataclass(frozen=True)
class Hostile:
    """A question carrying `payload`; `how` each field carries it: "raw" (as written), "code"
    (inside a code span) or "refused" (a plain value instead)."""

    id: str
    n: int
    payload: Payload
    how: dict[str, str]

    def values(self) -> dict[str, Any]:
        forms = {
            "raw": fields(self.payload.text, letters(self.n)),
            "code": fields(f"`{self.payload.text}`", letters(self.n)),
            "refused": plain(self.n),
        }
        return {field: forms[how][field] for field, how in self.how.items()}

    def title(self) -> str:
        return str(self.values()["title"])

    def tag(self) -> str:
        return str(self.values()["tags"][0])

    def data(self) -> dict[str, Any]:
        """As a question file holds it."""
        values = self.values()
        top = {key: value for key, value in values.items() if key not in DETAILS}
        details = {key: values[key] for key in DETAILS} | {"correct_index": 0}
        return BASE | {"id": self.id} | top | {"details": details}

    def refuse(self, refused: set[str]) -> Hostile:
        return replace(self, how=self.how | dict.fromkeys(refused, "refused"))

    def shown(self) -> dict[str, str]:
        """CSS selector -> the payload's text as a reader sees it there."""
        raw = self.payload.prose or self.payload.text
        found = {}
        for field, how in self.how.items():
            text = self.payload.text if how == "code" or field not in PROSE else raw
            if how == "refused" or (how == "raw" and field in PROSE and self.payload.math):
                continue
            if field == "options":
                found.update({f"#option-{k}": text for k in range(4)})
            elif field in SHOWN_IN:
                found[SHOWN_IN[field]] = text
        return found


def validated(payload: Payload, n: int, context: dict[str, Any]) -> Hostile:
    """The question the model accepts with `payload` in as many fields as it allows: as written,
    else in a code span (prose only), else refused."""
    question = Hostile(question_id("v", n), n, payload, dict.fromkeys(fields(""), "raw"))
    wrappable = "`" not in payload.text and "\n" not in payload.text  # a code span is one line
    for field in _refused(question.data(), context):
        how = "code" if field in PROSE and wrappable else "refused"
        question = replace(question, how=question.how | {field: how})
    question = question.refuse(_refused(question.data(), context))
    assert not _refused(question.data(), context), question.id
    return question


def _refused(data: dict[str, Any], context: dict[str, Any]) -> set[str]:
    """The fields the model rejects in `data`."""
    try:
        Question.model_validate(data, context=context)
    except ValidationError as exc:
        return {_field(error["loc"]) for error in exc.errors()}
    return set()


def _field(location: tuple[str | int, ...]) -> str:
    """`title` for ("title",), `options` for ("details", "options", 2)."""
    inner = location[1:2] if location[:1] == ("details",) else location[:1]
    assert inner, f"an error on the whole question: {location}"
    return str(inner[0])


def validation_context() -> dict[str, Any]:
    schema = load_bank_tables(REPO / "schema")
    assert not isinstance(schema, Finding), schema
    return {"tombstone": False, "schema": schema}


def release_bank(root: Path, questions: list[Hostile]) -> tuple[Release, list[Hostile]]:
    """Write the questions into a bank at `root`, audit it and release it as `qbank export` does.
    A field with an error from a rule beyond the model (`deceptive-text`) is refused and the bank
    written again, so every question is released and says what the whole pipeline refused."""
    for _ in range(2):
        lines = write_bank(root, questions)
        report = engine.audit(engine.Settings(views=True), root)
        errors = [f for f in report.findings if f.severity is Severity.ERROR]
        if not errors:
            break
        refused = {(f.question_id, lines[f.question_id or ""][f.line]) for f in errors}
        questions = [q.refuse({field for name, field in refused if name == q.id}) for q in questions]
    schema = load_bank_tables(root / "schema")
    assert not isinstance(schema, Finding), schema
    chosen = release.select(report, schema.topic_groups)
    assert [e.id for e in chosen.entries] == [q.id for q in questions], errors
    return chosen, questions


def write_bank(root: Path, questions: list[Hostile]) -> dict[str, dict[int, str]]:
    """The bank's files; for each question, the field on each line (a finding's line -> field)."""
    if not (root / "schema").exists():
        shutil.copytree(REPO / "schema", root / "schema")
    folder = root / "questions" / "cloud" / "precision"
    folder.mkdir(parents=True, exist_ok=True)
    lines = {}
    for question in questions:
        pairs = _yaml(question.data())
        (folder / f"{question.id}.yaml").write_text("".join(line for _, line in pairs), encoding="utf-8")
        lines[question.id] = {number: field for number, (field, _) in enumerate(pairs, start=1)}
    return lines


def _yaml(data: dict[str, Any], indent: str = "") -> list[tuple[str, str]]:
    """(field, line) for each line of `data` as YAML; a list's items and a mapping's keys are the
    field above them (`options`, `tags`), a nested key its own (`realistic_solution`)."""
    pairs = []
    for key, value in data.items():
        if isinstance(value, dict):
            pairs += [(key, f"{indent}{key}:\n"), *_yaml(value, indent + "  ")]
        elif isinstance(value, list):
            pairs += [(key, f"{indent}{key}:\n"), *((key, f"{indent}  - {_quoted(v)}\n") for v in value)]
        else:
            pairs.append((key, f"{indent}{key}: {_quoted(value)}\n"))
    return pairs


def _quoted(value: object) -> str:
    """A YAML double-quoted scalar that reads back exactly: all but printable ASCII escaped, so no
    line break, NUL or bidi control is left to the YAML reader's judgement."""
    if isinstance(value, int):
        return str(value)
    escaped = "".join(
        char if " " <= char <= "~" and char not in '"\\' else f"\\U{ord(char):08x}" for char in str(value)
    )
    return f'"{escaped}"'


def constructed(payload: Payload, n: int, base: dict[str, Any]) -> tuple[Hostile, Entry]:
    """A released record (`base`, another question's) with `payload` as written in every field the
    site shows: past the validators, as if the model had let it through."""
    hostile = Hostile(question_id("c", n), n, payload, dict.fromkeys(fields(""), "raw"))
    values = hostile.values()
    details = base["details"] | {key: values[key] for key in DETAILS} | {"correct_index": 0}
    top = {key: value for key, value in values.items() if key not in DETAILS}
    data = base | {"id": hostile.id, "path": f"questions/{hostile.id}.yaml"} | top | {"details": details}
    data.pop("content_hash")
    return hostile, Entry.of(data | {"content_hash": hashlib.sha256(canonical(data)).hexdigest()})


def with_constructed(chosen: Release, payloads: tuple[Payload, ...]) -> tuple[Release, list[Hostile]]:
    """`chosen` plus a constructed question for each payload."""
    made = [constructed(payload, n, chosen.entries[0].data) for n, payload in enumerate(payloads)]
    entries = sorted([*chosen.entries, *(entry for _, entry in made)], key=lambda e: e.id)
    return replace(chosen, entries=tuple(entries)), [hostile for hostile, _ in made]


# --- what a page may contain --------------------------------------------------------------------


@dataclass(frozen=True)
class Element:
    tag: str
    attributes: tuple[tuple[str, str], ...]
    math: bool = False  # inside KaTeX's output (its spans, MathML and SVG)
    text: str = ""  # a script's inline code


# The templates' tags and attributes, and CommonMark's (an `a` title, an `ol` start, a fence's class).
ATTRIBUTES = {
    "html": {"lang"},
    "meta": {"charset", "name", "content", "http-equiv"},
    "link": {"rel", "href"},
    "script": {"src"},
    "a": {"href", "class", "id", "rel", "aria-current", "title"},
    "article": {"class", "data-id"},
    "button": {"type", "id", "data-mark", "aria-pressed", "hidden"},
    "code": {"class"},
    "details": {"id", "open"},
    "div": {"class", "role", "aria-label"},
    "form": {"id", "role", "action"},
    "h2": {"id"},
    "header": {"class"},
    "input": {"id", "type", "autocomplete", "spellcheck", "placeholder", "aria-describedby", "accept"},
    "label": {"for"},
    "li": {"id", "class", "title"},  # title: a line the audit re-executed (page facts)
    "main": {"id", "tabindex"},
    "nav": {"class", "aria-label"},
    "ol": {"class", "id", "type", "start"},
    "optgroup": {"label"},
    "option": {"value"},
    "p": {"class", "id", "aria-live", "title"},
    "section": {"class", "aria-label", "id", "data-answer"},  # data-answer: the audit's answer, JSON
    "select": {"id", "data-facet"},
    "span": {"class", "id", "hidden", "aria-live", "data-display"},
    "table": {"class", "aria-describedby"},
    "td": {"class"},
    "ul": {"class"},  # the claims list (page facts)
    "th": {"scope"},
}
BARE = {"head", "title", "body", "footer", "h1", "h3", "h4", "h5", "h6", "strong", "em", "kbd", "summary"}
BARE |= {"mark"}  # the index's search highlights matched words
BARE |= {"noscript", "thead", "tbody", "tr", "ul", "pre", "blockquote", "hr", "br"}
NEVER_IN_MATH = {"script", "style", "iframe", "frame", "object", "embed", "img", "image", "a", "form"}
NEVER_IN_MATH |= {"input", "button", "textarea", "link", "meta", "base", "foreignobject", "use"}
NEVER_IN_MATH |= {"animate", "set"}  # SVG animation can set an href
URL_ATTRIBUTES = {"href", "src", "action", "formaction", "xlink:href", "data", "poster", "background"}
SCHEMES = {"", "http", "https", "mailto"}
IDS = re.compile(
    r"main|search|q|count|results|clear|f-[a-z]+|answer|mistake|napkin|mark|status|got-it|review"
    r"|prev|next|option-[0-3]|track-level|area-track|more|random|review-due|filters|backup|export|import"
    r"|import-status|check|typed|check-answer|verdict|tolerance|reveal|claims"
)
SCRIPTS = {"assets/index.js", "assets/progress.js", "assets/search.js", "../assets/progress.js"}
SCRIPTS |= {"../assets/question.js", "../assets/katex/katex.min.js"}
SCRIPTS |= {"../assets/units.js", "../assets/answer.js"}  # the answer check (page facts)
STYLESHEETS = {
    "assets/site.css",
    "../assets/site.css",
    "../assets/katex/katex.min.css",
    "../assets/facts.css",
}
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; font-src 'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'"
)
METAS = {
    (("charset", "utf-8"),),
    (("name", "viewport"), ("content", "width=device-width, initial-scale=1")),
    (("http-equiv", "Content-Security-Policy"), ("content", CSP)),
    (("name", "referrer"), ("content", "no-referrer")),
}


def _page_key(attributes: tuple[tuple[str, str], ...]) -> bool:
    """A question page's key (site._page_key): a name and 64 hex digits, nothing else."""
    return (
        len(attributes) == 2
        and attributes[0] == ("name", "qbank-page")
        and attributes[1][0] == "content"
        and re.fullmatch("[0-9a-f]{64}", attributes[1][1]) is not None
    )


def problems(elements: list[Element]) -> list[str]:
    """Everything in a page's elements that the templates, CommonMark or KaTeX would not make."""
    found = [f"<{e.tag} {dict(e.attributes)}>: {p}" for e in elements for p in _element(e)]
    metas = [e.attributes for e in elements if e.tag == "meta" and not _page_key(e.attributes)]
    if sorted(metas) != sorted(METAS) or sum(_page_key(e.attributes) for e in elements) > 1:
        found.append(f"meta tags {metas}")
    ids = [value for e in elements for name, value in e.attributes if name == "id"]
    found += [f"id {i!r} twice (DOM clobbering)" for i in sorted(set(ids)) if ids.count(i) > 1]
    return found


def _element(e: Element) -> list[str]:
    found = []
    if e.math and e.tag in NEVER_IN_MATH:
        found.append("not made by KaTeX")
    if not e.math and e.tag not in ATTRIBUTES and e.tag not in BARE:
        found.append("an element the templates do not make")
    for name, value in e.attributes:
        if name.startswith("on") or name == "srcdoc":
            found.append(f"{name}: runs script")
        elif e.math and (name == "id" or name.startswith("data-")):
            found.append(f"{name}: KaTeX makes it only when trusted (\\htmlId, \\htmlData)")
        elif not e.math and name not in ATTRIBUTES.get(e.tag, ()):
            found.append(f"{name}: an attribute the templates do not make")
        if name == "id" and not IDS.fullmatch(value):
            found.append(f"id {value!r}: not the templates' (DOM clobbering)")
        if name in URL_ATTRIBUTES and (e.math or scheme(value) not in SCHEMES or network_path(value)):
            found.append(f"{name}={value!r}: a link to run or load")
    attributes = dict(e.attributes)
    if e.tag == "script" and (attributes.get("src") not in SCRIPTS or e.text.strip()):
        found.append("a script the site does not ship")
    if e.tag == "link" and (
        attributes.get("href") not in STYLESHEETS or attributes.get("rel") != "stylesheet"
    ):
        found.append("a stylesheet the site does not ship")
    return found


def scheme(url: str) -> str:
    """The scheme a browser reads from `url` ("" for a relative link): it skips leading C0 controls
    and spaces and drops tabs and newlines anywhere (WHATWG URL standard, basic URL parser)."""
    cleaned = re.sub(r"[\t\n\r]", "", url).lstrip("".join(map(chr, range(0x21))))
    match = re.match(r"([A-Za-z][A-Za-z0-9+.-]*):", cleaned)
    return match.group(1).lower() if match else ""


def network_path(url: str) -> bool:
    """`//host/...` (or with backslashes, which a browser reads as slashes in a file: or http URL):
    relative to a file:// page, a path on another machine (WHATWG URL standard, "special authority
    slashes" state)."""
    cleaned = re.sub(r"[\t\n\r]", "", url).lstrip("".join(map(chr, range(0x21))))
    return re.match(r"[/\\]{2}", cleaned) is not None


# --- a page without a browser -------------------------------------------------------------------


@dataclass
class Page:
    elements: list[Element]
    title: str
    text: str  # the body's text, as a reader would see it before KaTeX typesets math


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self.title: list[str] = []
        self.text: list[str] = []
        self.inside = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append(Element(tag, tuple((name, value or "") for name, value in attrs)))
        self.inside = tag

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag: str) -> None:
        self.inside = ""

    def handle_data(self, data: str) -> None:
        if self.inside == "script":
            self.elements[-1] = replace(self.elements[-1], text=self.elements[-1].text + data)
        elif self.inside == "title":
            self.title.append(data)
        else:
            self.text.append(data)


def read(html: str) -> Page:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return Page(reader.elements, "".join(reader.title), "".join(reader.text))
