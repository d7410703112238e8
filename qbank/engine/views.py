"""What an export needs of each file, made by the audit: its release view.

A view is a row of text columns (the audit cache keeps it beside the file's findings, so a warm
export reads no file and validates nothing): the question's status (None when the file did not
validate) and, for a published question, its `id`, `content_hash`, its public record
(qbank.model.public) as JSON, exactly as the JSON export writes it, so that an export copies it
rather than decoding and encoding it again; its listing (the row a list of questions shows, which the
site's index copies as it is) and the listing's facets (the values the site counts, as compact JSON:
qbank.model.public.facets); and its page facts (qbank/checks/facts.py: what the audit re-executed
in it, for the study site) as JSON with sorted keys, with their SHA-256, by which the site keys its
pages. An export reads only the texts it needs of every view (TEXTS, engine.Settings.texts); the
record and the facts of the few questions it writes again are read later by their digests.
Whether it is released also depends on the error findings of the whole run (a duplicate id), which
qbank.export.release decides.

Columns, not one text: an export reads the status and id of 10,000 views with no JSON to decode,
and the cache checks each column's type rather than parsing lines (benchmarks/export_site.py).
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any, NamedTuple

from qbank.checks.api import Context
from qbank.checks.facts import page_facts
from qbank.model.public import facets, listing, public_record, script_json

if TYPE_CHECKING:  # the model (pydantic) is imported only when some file is not in the cache
    from qbank.model.records import Record


class View(NamedTuple):
    status: str | None
    id: str = ""
    content_hash: str = ""
    facts_hash: str = ""  # SHA-256 of `facts`: the site keys its pages by it
    record: str = ""  # the public record, as JSON
    listing: str = ""  # qbank.model.public.listing, as public.script_json (the site's index copies it)
    facts: str = ""  # the page facts, as JSON with sorted keys
    facets: str = ""  # qbank.model.public.facets of the listing, as compact JSON


def release_view(record: Record | None, shown: str, context: Context) -> View:
    question = record.question if record is not None else None
    if record is None or question is None:
        return View(None)
    if question.status != "published":
        return View(question.status)
    return published(public_record(question, shown), page_facts(record, context))


def published(data: dict[str, Any], facts: dict[str, Any]) -> View:
    """The view of a published question, from its public record and its page facts."""
    row = listing(data)
    facts_text = json.dumps(facts, ensure_ascii=False, sort_keys=True)
    return View(
        "published",
        data["id"],
        data["content_hash"],
        hashlib.sha256(facts_text.encode()).hexdigest(),
        json.dumps(data, ensure_ascii=False),
        script_json(row),
        facts_text,
        facets(row),
    )


TEXTS = ("record", "listing", "facts", "facets")
"""A view's texts, in its order: an export reads those it needs (Settings.texts), and a text it did
not read is "" (the record and the facts, later, by their digests: store.Store.texts)."""


def well_formed(row: tuple[Any, ...], texts: tuple[str, ...] = TEXTS) -> bool:
    """Shaped as release_view makes a view, with `texts` read and the others "": a status, and for a
    published question an id, two hashes, and the texts, each JSON of its kind; nothing else for
    any other (the cache uses no other row: store.Store.views). Once per view an export reads: a
    plain loop, where generators and a dict made per row took 26 ms of 10,000 rows, this 15 ms."""
    if len(row) != len(View._fields) or set(map(type, row[1:])) != {str}:
        return False
    status, question_id, content_hash, facts_hash, *values = row
    if status != "published":
        return (status is None or type(status) is str) and not "".join(row[1:])
    if not (question_id and content_hash and facts_hash):
        return False
    for name, text in zip(TEXTS, values, strict=True):
        if (text[:1] + text[-1:] != _KINDS[name]) if name in texts else text:
            return False
    return True


_KINDS = {"record": "{}", "listing": "[]", "facts": "{}", "facets": "[]"}  # each text's first and last
