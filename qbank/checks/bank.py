"""Rules that look past one field: a file's place in the bank, its topic, and ids across the bank.

The repo-wide rules read a BankEntry per file, not the file: the little they need, which the audit
cache keeps, so that a warm run re-reads no unchanged question. Like the record checks, they are
given the Context (the near-duplicate rule finds the audit cache's memory there).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from qbank import similarity
from qbank.checks.api import BankEntry, Context
from qbank.finding import Finding
from qbank.load import Document
from qbank.model.fields.classification import unknown_topic
from qbank.rules import rule, rule_of

if TYPE_CHECKING:  # the model (pydantic) loads only when a file is not in the audit cache
    from qbank.model.records import Record


def entry_of(document: Document) -> BankEntry:
    data = document.data
    question_id = data.get("id")
    return BankEntry(
        document.path,
        question_id if isinstance(question_id, str) else None,
        data.get("status") == "deleted",
        document.positions.value(("id",)),
        document.positions.value(("scenario",)),
        similarity.pack(similarity.shingles(similarity.text_of(data))),
        content=similarity.content_key(data),
    )


def check_topic(record: Record, context: Context) -> Iterator[Finding]:
    topic = record.document.data.get("topic")
    if record.tombstone or not isinstance(topic, str) or context.tables is None:
        # Tombstones skip content rules (rule deletion-reason); a non-string topic is a schema
        # finding; an unusable taxonomy is itself an error finding (rule taxonomy).
        return
    problem = unknown_topic(topic, context.tables.topics)
    if problem:
        yield _at(record, unknown_topic, "topic", problem.message)


@rule("QB201", "path-mismatch")
def check_path(record: Record, context: Context) -> Iterator[Finding]:
    """A question lives at `questions/<track>/<competency_area>/<id>.yaml`: the folders equal
    the `track` and `competency_area` fields and the file name equals the `id`.

    The body is authoritative; the path mirrors it so that a file can be found from its id.
    Outside a bank, the last two folders and the file name are compared.

    Fails:
        questions/cloud/memory/cloud-202611-0a1c.yaml  holding  competency_area: precision
    Passes:
        questions/cloud/precision/cloud-202611-0a1c.yaml  holding  competency_area: precision
    """
    data, file = record.document.data, record.file
    depth = _depth_under(file, context.questions_root)
    if depth is not None and depth != 3:
        yield _at(record, check_path, "id", "file must be at questions/<track>/<competency_area>/<id>.yaml")
        return
    if depth == 3:  # Path.parts is kept by the Path; each .parent makes a new one
        track, area = file.parts[-3:-1]
    else:  # outside a bank
        track, area = file.parent.parent.name, file.parent.name
    placed = {"track": track, "competency_area": area, "id": file.stem}
    for field, actual in placed.items():
        value = data.get(field)
        if isinstance(value, str) and value != actual:
            where = "file name" if field == "id" else "folder"
            yield _at(record, check_path, field, f"{where} is {actual!r} but {field} is {value!r}")
    if file.suffix != ".yaml":
        yield _at(record, check_path, "id", f"file extension is {file.suffix!r}; use .yaml")


def _depth_under(file: Path, root: Path | None) -> int | None:
    """How many parts `file` has below `root`; None outside it. (Path.parts is computed once per
    path, where relative_to makes a new Path: this runs once per file of the audit.)"""
    if root is None or file.parts[: len(root.parts)] != root.parts:
        return None
    return len(file.parts) - len(root.parts)


@rule("QB200", "duplicate-id")
def check_duplicate_ids(entries: Sequence[BankEntry], context: Context) -> Iterator[Finding]:
    """Every question id is unique across the bank, tombstones included (an id is never reused).

    Each copy is reported, naming the other files.

    Fails:
        questions/cloud/precision/cloud-202611-0a1c.yaml  and  questions/cloud/memory/cloud-202611-0a1c.yaml
    Passes:
        (one file per id)
    """
    by_id: dict[str, list[BankEntry]] = defaultdict(list)
    for entry in entries:
        if entry.question_id is not None:
            by_id[entry.question_id].append(entry)
    for question_id, group in sorted(by_id.items()):
        if len(group) < 2:
            continue
        for entry in group:
            others = [e.path for e in group if e is not entry]
            shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
            message = f"id {question_id!r} is also used by {shown}"
            yield rule_of(check_duplicate_ids).finding(entry.path, *entry.id_at, message, question_id)


def _at(record: Record, check: object, field: str, message: str) -> Finding:
    line, column = record.document.positions.value((field,))
    return rule_of(check).finding(record.document.path, line, column, message, record.question_id)  # type: ignore[arg-type]
