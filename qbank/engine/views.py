"""What an export needs of each file, made by the audit: its release view.

A view is JSON (the audit cache keeps it beside the file's findings, so a warm export reads no file
and validates nothing): `{"status": ...}` with the question's status, null when the file did not
validate; for a published question also `record`, its public record (qbank.model.public), and
`facts`, what the audit found in it for the study site. Whether it is released also depends on the
error findings of the whole run (a duplicate id), which qbank.export.release decides.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from qbank.checks.api import Context

if TYPE_CHECKING:  # the model (pydantic) is imported only when some file is not in the cache
    from qbank.model.records import Record


def release_view(record: Record | None, shown: str, context: Context) -> str:
    question = record.question if record is not None else None
    view: dict[str, Any] = {"status": question.status if question is not None else None}
    if question is not None and question.status == "published":
        from qbank.model.public import public_record  # with the model, already imported

        view |= {"record": public_record(question, shown), "facts": {}}
    return json.dumps(view, ensure_ascii=False, separators=(",", ":"))
