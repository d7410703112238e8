"""Rules that look past one field: a file's place in the bank, its topic, and ids across the bank."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from qbank.checks.classification import unknown_topic
from qbank.finding import Finding
from qbank.rules import of, rule

if TYPE_CHECKING:  # imported for types only: qbank.validate imports the model, which imports checks
    from qbank.engine import Context
    from qbank.validate import Record


def check_topic(record: Record, context: Context) -> Iterator[Finding]:
    topic = record.document.data.get("topic")
    if record.tombstone or not isinstance(topic, str) or context.schema is None:
        # Tombstones skip content rules (rule deletion-reason); a non-string topic is a schema
        # finding; an unusable taxonomy is itself an error finding (rule taxonomy).
        return
    problem = unknown_topic(topic, context.schema.topics)
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
    root = context.questions_root
    if root is not None and file.is_relative_to(root) and len(file.relative_to(root).parts) != 3:
        yield _at(record, check_path, "id", "file must be at questions/<track>/<competency_area>/<id>.yaml")
        return
    placed = {"track": file.parent.parent.name, "competency_area": file.parent.name, "id": file.stem}
    for field, actual in placed.items():
        value = data.get(field)
        if isinstance(value, str) and value != actual:
            where = "file name" if field == "id" else "folder"
            yield _at(record, check_path, field, f"{where} is {actual!r} but {field} is {value!r}")
    if file.suffix != ".yaml":
        yield _at(record, check_path, "id", f"file extension is {file.suffix!r}; use .yaml")


@rule("QB200", "duplicate-id")
def check_duplicate_ids(records: Iterable[Record]) -> Iterator[Finding]:
    """Every question id is unique across the bank, tombstones included (an id is never reused).

    Each copy is reported, naming the other files.

    Fails:
        questions/cloud/precision/cloud-202611-0a1c.yaml  and  questions/cloud/memory/cloud-202611-0a1c.yaml
    Passes:
        (one file per id)
    """
    by_id: dict[str, list[Record]] = defaultdict(list)
    for record in records:
        if record.question_id is not None:
            by_id[record.question_id].append(record)
    for question_id, group in sorted(by_id.items()):
        if len(group) < 2:
            continue
        for record in group:
            others = [r.document.path for r in group if r is not record]
            shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
            yield _at(record, check_duplicate_ids, "id", f"id {question_id!r} is also used by {shown}")


def _at(record: Record, check: object, field: str, message: str) -> Finding:
    line, column = record.document.positions.value((field,))
    return of(check).finding(record.document.path, line, column, message, record.question_id)  # type: ignore[arg-type]
