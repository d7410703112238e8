"""What an export needs of each file, made by the audit: its release view.

A view is text (the audit cache keeps it beside the file's findings, so a warm export reads no file
and validates nothing). Its first line is JSON: `{"status": ...}`, the question's status, null when
the file did not validate; for a published question also its `id` and `content_hash`. A published
question's view has three more lines: its public record (qbank.model.public) as JSON, exactly as
the JSON export writes it, so that an export copies it rather than decoding and encoding it again;
its summary (the record less its long fields, which the site's index decodes); and its page facts
(qbank/checks/facts.py: what the audit re-executed in it, for the study site) as JSON with sorted
keys, which the site's page key reads as text. Whether it is released also depends on the error
findings of the whole run (a duplicate id), which qbank.export.release decides.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from qbank.checks.api import Context
from qbank.checks.facts import page_facts

if TYPE_CHECKING:  # the model (pydantic) is imported only when some file is not in the cache
    from qbank.model.records import Record


def release_view(record: Record | None, shown: str, context: Context) -> str:
    question = record.question if record is not None else None
    head: dict[str, Any] = {"status": question.status if question is not None else None}
    if record is None or question is None or question.status != "published":
        return json.dumps(head)
    from qbank.model.public import public_record, summary  # with the model, already imported

    data = public_record(question, shown)
    head |= {"id": data["id"], "content_hash": data["content_hash"]}
    facts = json.dumps(page_facts(record, context), ensure_ascii=False, sort_keys=True)
    lines = (head, data, summary(data))
    return "\n".join([*(json.dumps(line, ensure_ascii=False) for line in lines), facts])


def read(view: str) -> tuple[dict[str, Any], str, str, str]:
    """A view's first line, decoded, and its public record, summary and facts as JSON text ("" when
    it has none): an export decodes them only where it needs their fields."""
    head, record, brief, facts = (view.split("\n") + ["", "", ""])[:4]
    return json.loads(head), record, brief, facts


def well_formed(view: str) -> bool:
    """Shaped as release_view writes a view: a status line, then for a published question its
    record, summary and facts, each a JSON object (the cache uses no other row: store.Store.views)."""
    lines = view.split("\n")
    return view.startswith('{"status": ') and (
        len(lines) == 1 or len(lines) == 4 and all(line[:1] == "{" and line[-1:] == "}" for line in lines)
    )
