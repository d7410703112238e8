"""The static study site: works from its folder (file://) with no server and no network.

Layout of the folder:
  index.html      search and filters over assets/index.js (all questions, in one script file)
  coverage.html   track x level heat map, and competency area x track, each cell written / generated
  q/<id>.html     one page per question: answer, common mistake and napkin math behind <details>
  assets/         site.css, progress.js, search.js, question.js, katex/ (vendored, used by pages with math)

Text is escaped twice over: Jinja2 autoescapes every field, and prose goes through CommonMark with
raw HTML off (qbank.export.markdown); the scripts put text in the page with textContent only; and
each page's Content-Security-Policy allows scripts from the site's own files only, so even a
markup slip could not run an inline script. Design notes: research/ecosystem.md §6.

The layout above is the whole of what a build may replace or remove (`in_layout`, derived from the
names the build writes): a `.qbank-site` manifest line naming anything else is ignored, and a file
at one of those names is replaced only when the manifest proves it is the last build's
(qbank.export.files). `preflight` runs before the audit, so a refused `--out` costs no audit.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import typing
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from qbank import __version__, memo
from qbank.export import files, markdown, pagefacts
from qbank.export.release import Entry, Release, Texts, envelope, with_texts
from qbank.model import public, vocabulary
from qbank.model.public import PUBLIC_FIELDS

ASSETS = ("site.css", "progress.js", "search.js", "question.js", "facts.css", "answer.js")
INDEX, COVERAGE, INDEX_SCRIPT = "index.html", "coverage.html", "assets/index.js"
TEXTS = ("listing", "facets")  # what a build reads of every view (records and facts of its renders later)
PARALLEL_FROM = 2000  # questions: below this, starting worker processes costs more than it saves
_ID = re.compile(vocabulary.ID_PATTERN)
_PAGE = re.compile(f"q/{vocabulary.ID_PATTERN.removeprefix('^').removesuffix('$')}\\.html")  # page_name's


@dataclass(frozen=True)
class Built:
    pages: int
    files: int
    rendered: int  # pages rendered by this build; the others were the last build's, unchanged


def build(
    release: Release,
    out: Path,
    name: str = "qbank study site",
    previous: files.Previous | None = None,
    secret: bytes | None = None,
    memory: Texts | None = None,
) -> Built:
    """Write the site for `release` into `out` (new, empty, or a site qbank wrote before).

    `previous` is what `preflight` found (the CLI runs it before the audit); checked here if not given.
    Every file this build writes is checked before the first is written: all or nothing refused.
    `memory`: where the records of the pages to render are read, if the audit left them unread
    (release.with_texts)."""
    if previous is None:
        previous = preflight(out, secret=secret)
    planned = [*static_names(), *_page_names(release)]
    proven = files.refuse_unproven(out, planned, previous, _key_in)
    out.mkdir(parents=True, exist_ok=True)
    try:
        written, keys, rendered = _write_all(release, out, name, previous, proven.marks, memory)
    except BaseException:
        files.record_interrupted(out, planned, previous)
        raise
    files.finish(out, written, previous, files.Proven(keys, proven.vouched), secret)
    return Built(len(release.entries), len(written), rendered)


def preflight(out: Path, bank: Path | None = None, secret: bytes | None = None) -> files.Previous:
    """What may refuse `out`, checked before any work: a bank or repository there (files.refuse_roots),
    a folder that is not a site, and a file at a fixed name of the layout (index.html, assets/...)
    that qbank did not write. Pages of questions are checked by `build`, once the release is known.
    With `secret`, the last build's proofs are read (files.PROOFS), so `build` need not read the
    files they vouch for."""
    files.refuse_roots(out, bank, _folders())
    previous = files.previous_files(out, in_layout, secret)
    files.refuse_unproven(out, static_names(), previous)
    return previous


def _write_all(
    release: Release,
    out: Path,
    name: str,
    previous: files.Previous,
    marks: dict[str, str],
    memory: Texts | None,
) -> tuple[dict[str, str], dict[str, str], int]:
    """Every file of the site: name -> SHA-256 of each, the marks (the page keys and the units
    script's), how many pages were rendered.
    A fixed file (an asset, the index, the coverage page) whose bytes are those of the file there,
    proven the last build's, is left as it is: unchanged, it settles, and the next build proves it
    by its proof rather than reading it (files.PROOFS)."""
    site = _site_facts(release, name)
    pages, keys, rendered = _write_pages(release, out, site, previous, marks, memory)
    env, facets = _environment(), _facets(release)
    fixed = [(asset, source.read_bytes()) for asset, source in _assets()]
    fixed += [
        (INDEX_SCRIPT, _index_script(release).encode()),
        (INDEX, env.get_template(INDEX).render(_index(release, site, facets)).encode()),
        (COVERAGE, env.get_template(COVERAGE).render(_coverage(site, facets)).encode()),
    ]
    # The units script is made again only when what makes it changed (its key, kept as its mark,
    # as a page's is): compiling the grader's table took 15 to 25 ms of every warm build.
    keys[pagefacts.UNITS_SCRIPT] = units = _units_key()
    written = {}
    if marks.get(pagefacts.UNITS_SCRIPT) == units:
        written[pagefacts.UNITS_SCRIPT] = previous.recorded[pagefacts.UNITS_SCRIPT]
    else:
        fixed.append((pagefacts.UNITS_SCRIPT, pagefacts.units_script().encode()))
    for page, data in fixed:
        digest = hashlib.sha256(data).hexdigest()
        if page not in marks or previous.recorded.get(page) != digest:
            _write(out, page, data)
        written[page] = digest
    return written | pages, keys, rendered


def _units_key() -> str:
    """A digest of what makes the units script: qbank's version and the source of the napkin-math
    package (the grader's table is compiled from it, qbank.napkin.answer), of pagefacts and of
    public.script_json."""
    digest = hashlib.sha256(__version__.encode())
    napkin = resources.files("qbank.napkin")
    sources = sorted((item for item in napkin.iterdir() if item.name.endswith(".py")), key=lambda p: p.name)
    for item in (
        *sources,
        resources.files("qbank.export") / "pagefacts.py",
        resources.files("qbank.model") / "public.py",
    ):
        digest.update(item.name.encode() + b"\0" + item.read_bytes())
    return digest.hexdigest()


# --- the layout: the names a build writes, and nothing else is ever replaced or removed -------------


def page_name(question_id: str) -> str:
    return f"q/{question_id}.html"


def _page_names(release: Release) -> list[str]:
    for entry in release.entries:
        if not _ID.fullmatch(entry.id):  # the model guarantees it; a file name must never escape q/
            raise ValueError(f"question id {entry.id!r} cannot name a page")
    return [page_name(entry.id) for entry in release.entries]


@memo.cached("export.site.static_names")
def static_names() -> tuple[str, ...]:
    """The files every build writes, whatever the release: the assets, the index and coverage pages."""
    return (*(name for name, _ in _assets()), INDEX_SCRIPT, pagefacts.UNITS_SCRIPT, INDEX, COVERAGE)


def in_layout(name: str) -> bool:
    """Whether this writer makes a file called `name` (a manifest line naming anything else is ignored)."""
    return _PAGE.fullmatch(name) is not None or name in static_names()


def _folders() -> tuple[str, ...]:
    """The folders of the layout (q/, assets/, assets/katex/ ...)."""
    parents = {name.rpartition("/")[0] for name in static_names()} | {page_name("x").rpartition("/")[0]}
    return tuple(sorted(parents - {""}))


def _site_facts(release: Release, name: str) -> dict[str, Any]:
    doc = envelope(release)
    keys = ("count", "policy", "release_hash", "generator")
    return {"name": name} | {key: doc[key] for key in keys}


def _environment() -> Environment:
    return Environment(
        loader=PackageLoader("qbank.export", "templates"),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )


def _write(out: Path, name: str, text: str | bytes) -> tuple[str, str]:
    """Write one file of the site; its name and the SHA-256 of what was written (for the manifest)."""
    target = out / name
    files.real_folder(target.parent, out)
    data = text.encode() if isinstance(text, str) else text
    files.write_atomic(target, data)
    return name, hashlib.sha256(data).hexdigest()


def _assets() -> Iterator[tuple[str, Traversable]]:
    """Each shipped asset: its name in the site and the package file it is copied from."""
    assets = resources.files("qbank.export") / "assets"
    for asset in ASSETS:
        yield f"assets/{asset}", assets / asset
    katex = assets / "katex"
    for item in sorted(katex.iterdir(), key=lambda p: p.name):
        if item.name.endswith((".js", ".css", "LICENSE")):
            yield f"assets/katex/{item.name}", item
    for font in sorted((katex / "fonts").iterdir(), key=lambda p: p.name):
        yield f"assets/katex/fonts/{font.name}", font


# --- question pages -----------------------------------------------------------------------------


def _write_pages(
    release: Release,
    out: Path,
    site: dict[str, Any],
    previous: files.Previous,
    marks: dict[str, str],
    memory: Texts | None,
) -> tuple[dict[str, str], dict[str, str], int]:
    """One page per question, rendered only where it would differ from the page the last build
    wrote there: `marks` holds the key of each page there, all proven the last build's
    (files.refuse_unproven). Across processes for many (rendering markdown dominates). Returns
    name -> SHA-256 of every page, name -> its key, and how many pages were rendered."""
    ids = [e.id for e in release.entries]  # each a valid id: build checked them (_page_names)
    files.real_folder(out / "q", out)
    pages: dict[str, str] = {}
    keys: dict[str, str] = {}
    jobs = []
    key_of = _page_keys(site)
    before, after = [None, *ids][: len(ids)], [*ids[1:], None][: len(ids)]  # each page's neighbours
    for entry, prev, next_ in zip(release.entries, before, after, strict=True):
        name = page_name(entry.id)
        keys[name] = key = key_of(entry, prev, next_)
        if marks.get(name) == key:
            pages[name] = previous.recorded[name]  # proven: the last build's bytes
        else:
            jobs.append((entry, prev, next_, key))
    read = with_texts([job[0] for job in jobs], memory, facts=True)
    jobs = [(entry, *job[1:]) for entry, job in zip(read, jobs, strict=True)]
    workers = min(os.cpu_count() or 1, 8) if len(jobs) >= PARALLEL_FROM else 1
    if workers == 1:
        return pages | _render_chunk(out, site, jobs), keys, len(jobs)
    from concurrent.futures import ProcessPoolExecutor  # (10 ms to import: a warm build renders few)

    chunks = [jobs[i::workers] for i in range(workers)]
    with ProcessPoolExecutor(workers) as pool:
        for done in pool.map(_render_chunk, [out] * workers, [site] * workers, chunks):
            pages |= done
    return pages, keys, len(jobs)


Job = tuple[Entry, str | None, str | None, str]  # a question, its neighbours, its page key


def _page_keys(site: dict[str, Any]) -> Callable[[Entry, str | None, str | None], str]:
    """What a question's page is made from, as a digest: the renderer itself (qbank's version, the
    templates and the libraries that render), the site's name and policy, then the question (its
    content hash), what the audit found in it, and its neighbours. Equal keys make equal pages."""
    shared = hashlib.sha256(_renderer().encode())
    shared.update(json.dumps({k: site[k] for k in PAGE_FACTS}, sort_keys=True).encode())

    def key(entry: Entry, prev: str | None, next_: str | None) -> str:
        digest = shared.copy()
        digest.update("\0".join((entry.content_hash, entry.facts_hash, prev or "", next_ or "")).encode())
        return digest.hexdigest()

    return key


PAGE_FACTS = ("name", "policy", "generator")  # of the site facts, those a question page shows
_KEY = re.compile(rb'<meta name="qbank-page" content="([0-9a-f]{64})">')


def _key_in(head: bytes) -> str:
    """The key a page was built with, from its first bytes ("" for a file that holds none)."""
    found = _KEY.search(head)
    return found.group(1).decode() if found else ""


@memo.cached("export.site.renderer")
def _renderer() -> str:
    """A digest of what renders pages besides the question: a change to any of it renders every page."""
    from importlib import metadata

    digest = hashlib.sha256(__version__.encode())
    for package in ("jinja2", "markdown-it-py", "markupsafe"):
        digest.update(f"{package} {metadata.version(package)}".encode())
    source = resources.files("qbank.export")
    for item in ("site.py", "markdown.py", "pagefacts.py", *(f"templates/{t}" for t in TEMPLATES)):
        digest.update((source / item).read_bytes())
    return digest.hexdigest()


TEMPLATES = ("base.html", "question.html", "_check.html", "_claims.html")  # a question page's templates


def _render_chunk(out: Path, site: dict[str, Any], jobs: list[Job]) -> dict[str, str]:
    template = _environment().get_template("question.html")
    render = markdown.renderer()
    marked = markdown.marking_renderer()
    pages: dict[str, str] = {}
    for entry, prev, next_, key in jobs:
        question: dict[str, Any] = dict.fromkeys(PUBLIC_FIELDS) | entry.data  # (the record leaves out None)
        details, facts = question["details"], entry.facts
        html = _prose(question, render, functools.partial(_marked, marked, facts))
        page = template.render(
            site=site,
            root="../",
            page="question",
            page_key=key,
            q=question,
            html=html,
            correct=details.get("correct_index") if details.get("options") else None,
            has_math='class="math"' in " ".join(str(v) for v in html.values()),
            prev=prev,
            next=next_,
            facts=pagefacts.view(facts),
        )
        pages.update([_write(out, page_name(entry.id), page)])
    return pages


def _prose(
    question: dict[str, Any], render: markdown.Render, checked: Callable[[str, str], str] | None = None
) -> dict[str, Any]:
    """Each prose field of a released record as safe HTML (Markup, so the template does not escape it
    twice); the answer and the napkin math through `checked` (text, field), which marks the lines
    the audit re-executed."""
    details = question["details"]

    def html(text: str | None, field: str = "") -> Markup | None:
        if not text:
            return None
        shown = checked(text, field) if checked and field else render(text)
        return Markup(shown)  # noqa: S704 - markdown-it output, raw HTML off

    return {
        "scenario": html(question["scenario"]),
        "question": html(question.get("question")),
        "options": [html(option) for option in details["options"]] if details.get("options") else None,
        "solution": html(details["realistic_solution"], "realistic_solution"),
        "mistake": html(details.get("common_mistake"), "common_mistake"),
        "napkin": html(details.get("napkin_math"), "napkin_math"),
    }


def _marked(marked: markdown.Marked, facts: dict[str, Any], text: str, field: str) -> str:
    """A field rendered with the lines the audit re-executed in it marked (page facts)."""
    return marked(text, pagefacts.marks(facts.get("checked", {}).get(field, ())))


# --- index and coverage -------------------------------------------------------------------------

FACETS = (
    ("track", "Track", "track"),
    ("level", "Level", "level"),
    ("zone", "Zone", "zone"),
    ("area", "Competency area", "competency_area"),
    ("topic", "Topic", "topic"),
    ("provenance", "Written by", "provenance"),  # a person, an LLM draft, a generated drill, ...
)


def _index_script(release: Release) -> str:
    """window.QBANK: each question's listing (qbank.model.public.LISTING), in the bank's order, copied
    as the audit wrote it:

      [id, title, track, level, zone, area, topic, body, provenance, generated]

    The search (assets/search.js) matches every word of a query in the title or the body, lower-cased
    in the browser, ranks a title match above a body match, and shows a stretch of the body around
    the first word found there. Each listing is script JSON (qbank.model.public.script_json), so the
    file can hold it as it is."""
    return 'window.QBANK = {"questions":[' + ",".join(e.listing_text for e in release.entries) + "]};\n"


def _facets(release: Release) -> dict[str, tuple[Any, ...]]:
    """Each counted value of the listings (qbank.model.public.FACETS), as a column: attribute -> the
    value of each question, in the release's order. Decoded as one document (5 ms, where one
    json.loads each took 16 ms), whose shape is then checked: an entry's facets are one JSON array."""
    rows = json.loads("[" + ",".join(entry.facets for entry in release.entries) + "]")
    if len(rows) != len(release.entries) or any(len(row) != len(public.FACETS) for row in rows):
        raise ValueError("release entries whose facets are not one array each")
    columns = list(zip(*rows, strict=True)) or [()] * len(public.FACETS)
    return dict(zip(public.FACETS, columns, strict=True))


def _index(release: Release, site: dict[str, Any], columns: dict[str, tuple[Any, ...]]) -> dict[str, Any]:
    facets = []
    for key, label, attribute in FACETS:
        counts = Counter(columns[attribute])
        if key == "topic":
            groups = [
                (group, [(t, counts[t]) for t in sorted(slugs) if counts[t]])
                for group, slugs in release.topic_groups.items()
            ]
            groups = [(group, options) for group, options in groups if options]
        else:
            groups = [("", [(v, counts[v]) for v in _order(attribute) if counts[v]])]
        facets.append({"key": key, "label": label, "groups": groups})
    return {"site": site, "root": "", "page": "index", "facets": facets}


def _order(attribute: str) -> tuple[str, ...]:
    """The model's own order for an enum field (tracks, levels L1..L6+, zones, areas, provenance)."""
    return typing.get_args(_ENUMS[attribute])


_ENUMS = {
    "track": vocabulary.Track,
    "level": vocabulary.Level,
    "zone": vocabulary.Zone,
    "competency_area": vocabulary.CompetencyArea,
    "provenance": vocabulary.Provenance,
}


def _coverage(site: dict[str, Any], columns: dict[str, tuple[Any, ...]]) -> dict[str, Any]:
    tables = [
        _table(columns, "track-level", "Questions by track and level", "track", "level"),
        _table(columns, "area-track", "Questions by competency area and track", "competency_area", "track"),
    ]
    return {"site": site, "root": "", "page": "coverage", "tables": tables}


def _table(
    facets: dict[str, tuple[Any, ...]], table_id: str, caption: str, rows: str, columns: str
) -> dict[str, Any]:
    pairs = list(zip(facets[rows], facets[columns], strict=True))
    counts = Counter(pairs)
    drills = Counter(pair for pair, made in zip(pairs, facets["generated"], strict=True) if made)
    biggest = max(counts.values(), default=0)
    key = {"competency_area": "area"}  # the index page's name for the facet
    body = []
    for row in _order(rows):
        numbers = {column: counts[row, column] for column in _order(columns)}
        cells = [
            {
                "count": n,
                "written": n - drills[row, column],
                "generated": drills[row, column],
                "heat": _heat(n, biggest),
                "link": urlencode({key.get(rows, rows): row, key.get(columns, columns): column}),
            }
            for column, n in numbers.items()
        ]
        generated = sum(drills[row, column] for column in numbers)
        total = sum(numbers.values())
        body.append(
            {
                "label": row,
                "cells": cells,
                "total": total,
                "written": total - generated,
                "generated": generated,
            }
        )
    corner = rows.replace("_", " ")
    return {"id": table_id, "caption": caption, "corner": corner, "columns": _order(columns), "rows": body}


def _heat(count: int, biggest: int) -> int:
    """0 for an empty cell, else 1..5 by its share of the largest cell."""
    return 0 if count == 0 else 1 + min(4, (5 * count - 1) // biggest)
