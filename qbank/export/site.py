"""The static study site: works from its folder (file://) with no server and no network.

Layout of the folder:
  index.html      search and filters over assets/index.js (all questions, in one script file)
  coverage.html   track x level heat map, and competency area x track
  q/<id>.html     one page per question: answer, common mistake and napkin math behind <details>
  assets/         site.css, search.js, question.js, katex/ (vendored, used by pages with math)

Text is escaped twice over: Jinja2 autoescapes every field, and prose goes through CommonMark with
raw HTML off (qbank.export.markdown); the scripts put text in the page with textContent only; and
each page's Content-Security-Policy allows scripts from the site's own files only, so even a
markup slip could not run an inline script. Design notes: research/ecosystem.md §6.
"""

from __future__ import annotations

import json
import os
import re
import typing
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from jinja2 import Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from qbank import vocabulary
from qbank.export import files, markdown
from qbank.export.release import Release, document
from qbank.model import Question

ASSETS = ("site.css", "search.js", "question.js")
PARALLEL_FROM = 2000  # questions: below this, starting worker processes costs more than it saves
_ID = re.compile(vocabulary.ID_PATTERN)


@dataclass(frozen=True)
class Built:
    pages: int
    files: int


def build(release: Release, out: Path, name: str = "qbank study site") -> Built:
    """Write the site for `release` into `out` (new, empty, or a site qbank wrote before)."""
    previous = files.previous_files(out)
    out.mkdir(parents=True, exist_ok=True)
    site = _site_facts(release, name)
    written = [*_copy_assets(out), *_write_pages(release, out, site)]
    env = _environment()
    written.append(_write(out, "assets/index.js", _index_script(release)))
    written.append(_write(out, "index.html", env.get_template("index.html").render(_index(release, site))))
    coverage = env.get_template("coverage.html").render(_coverage(release, site))
    written.append(_write(out, "coverage.html", coverage))
    files.finish(out, written, previous)
    return Built(len(release.entries), len(written))


def _site_facts(release: Release, name: str) -> dict[str, Any]:
    doc = document(release)
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


def _write(out: Path, name: str, text: str | bytes) -> str:
    target = out / name
    files.real_folder(target.parent, out)
    files.write_atomic(target, text.encode() if isinstance(text, str) else text)
    return name


def _copy_assets(out: Path) -> Iterator[str]:
    assets = resources.files("qbank.export") / "assets"
    for asset in ASSETS:
        yield _write(out, f"assets/{asset}", (assets / asset).read_bytes())
    katex = assets / "katex"
    for item in sorted(katex.iterdir(), key=lambda p: p.name):
        if item.name.endswith((".js", ".css", "LICENSE")):
            yield _write(out, f"assets/katex/{item.name}", item.read_bytes())
    for font in sorted((katex / "fonts").iterdir(), key=lambda p: p.name):
        yield _write(out, f"assets/katex/fonts/{font.name}", font.read_bytes())


# --- question pages -----------------------------------------------------------------------------


def _write_pages(release: Release, out: Path, site: dict[str, Any]) -> list[str]:
    """One page per question; across processes for a large bank (rendering markdown dominates)."""
    ids = [e.id for e in release.entries]
    for question_id in ids:
        if not _ID.fullmatch(question_id):  # the model guarantees it; a file name must never escape q/
            raise ValueError(f"question id {question_id!r} cannot name a page")
    files.real_folder(out / "q", out)
    jobs = [
        (e.question, _neighbour(ids, i, -1), _neighbour(ids, i, 1)) for i, e in enumerate(release.entries)
    ]
    workers = min(os.cpu_count() or 1, 8) if len(jobs) >= PARALLEL_FROM else 1
    if workers == 1:
        return _render_chunk(out, site, jobs)
    chunks = [jobs[i::workers] for i in range(workers)]
    with ProcessPoolExecutor(workers) as pool:
        done = pool.map(_render_chunk, [out] * workers, [site] * workers, chunks)
        return [name for names in done for name in names]


def _neighbour(ids: list[str], index: int, step: int) -> str | None:
    other = index + step
    return ids[other] if 0 <= other < len(ids) else None


def _render_chunk(
    out: Path, site: dict[str, Any], jobs: list[tuple[Question, str | None, str | None]]
) -> list[str]:
    template = _environment().get_template("question.html")
    render = markdown.renderer()
    names = []
    for question, prev, next_ in jobs:
        html = _prose(question, render)
        page = template.render(
            site=site,
            root="../",
            page="question",
            q=question,
            html=html,
            correct=question.details.correct_index if question.details.options else None,
            has_math='class="math"' in " ".join(str(v) for v in html.values()),
            prev=prev,
            next=next_,
        )
        names.append(_write(out, f"q/{question.id}.html", page))
    return names


def _prose(question: Question, render: markdown.Render) -> dict[str, Any]:
    """Each prose field as safe HTML (Markup, so the template does not escape it twice)."""
    details = question.details

    def html(text: str | None) -> Markup | None:
        return Markup(render(text)) if text else None  # noqa: S704 - markdown-it output, raw HTML off

    return {
        "scenario": html(question.scenario),
        "question": html(question.question),
        "options": [html(option) for option in details.options] if details.options else None,
        "solution": html(details.realistic_solution),
        "mistake": html(details.common_mistake),
        "napkin": html(details.napkin_math),
    }


# --- index and coverage -------------------------------------------------------------------------

FACETS = (
    ("track", "Track", "track"),
    ("level", "Level", "level"),
    ("zone", "Zone", "zone"),
    ("area", "Competency area", "competency_area"),
    ("topic", "Topic", "topic"),
)


def _index_script(release: Release) -> str:
    """window.QBANK: one row per question, [id, title, track, level, zone, area, topic, search text]."""
    rows = [
        [
            q.id,
            q.title,
            q.track,
            q.level,
            q.zone,
            q.competency_area,
            q.topic,
            " ".join([q.title, q.scenario, q.question or "", q.topic, *(q.tags or ())]).lower(),
        ]
        for q in (e.question for e in release.entries)
    ]
    data = json.dumps({"questions": rows}, ensure_ascii=False, separators=(",", ":"))
    # `<` escaped: the data stays inert even if this file were ever inlined into a <script> element;
    # U+2028/2029 are line breaks to older JavaScript parsers.
    for char, escaped in (("<", "\\u003c"), ("\u2028", "\\u2028"), ("\u2029", "\\u2029")):
        data = data.replace(char, escaped)
    return f"window.QBANK = {data};\n"


def _index(release: Release, site: dict[str, Any]) -> dict[str, Any]:
    questions = [e.question for e in release.entries]
    facets = []
    for key, label, attribute in FACETS:
        counts = Counter(getattr(q, attribute) for q in questions)
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
    """The model's own order for an enum field (tracks, levels L1..L6+, zones, areas)."""
    annotation = Question.model_fields[attribute].annotation
    return typing.get_args(annotation)


def _coverage(release: Release, site: dict[str, Any]) -> dict[str, Any]:
    questions = [e.question for e in release.entries]
    tables = [
        _table(questions, "track-level", "Questions by track and level", "track", "level"),
        _table(questions, "area-track", "Questions by competency area and track", "competency_area", "track"),
    ]
    return {"site": site, "root": "", "page": "coverage", "tables": tables}


def _table(questions: list[Question], table_id: str, caption: str, rows: str, columns: str) -> dict[str, Any]:
    counts = Counter((getattr(q, rows), getattr(q, columns)) for q in questions)
    biggest = max(counts.values(), default=0)
    key = {"competency_area": "area"}  # the index page's name for the facet
    body = []
    for row in _order(rows):
        numbers = {column: counts[row, column] for column in _order(columns)}
        cells = [
            {
                "count": n,
                "heat": _heat(n, biggest),
                "link": urlencode({key.get(rows, rows): row, key.get(columns, columns): column}),
            }
            for column, n in numbers.items()
        ]
        body.append({"label": row, "cells": cells, "total": sum(numbers.values())})
    corner = rows.replace("_", " ")
    return {"id": table_id, "caption": caption, "corner": corner, "columns": _order(columns), "rows": body}


def _heat(count: int, biggest: int) -> int:
    """0 for an empty cell, else 1..5 by its share of the largest cell."""
    return 0 if count == 0 else 1 + min(4, (5 * count - 1) // biggest)
