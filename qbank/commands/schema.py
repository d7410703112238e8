"""`qbank schema`: the editor schema and the release schema, written or checked."""

from __future__ import annotations

import sys

import click

from qbank.commands.common import bank_and_tables, say


@click.command()
@click.option("--check", is_flag=True, help="Exit 1 if a schema file is not up to date.")
def schema(check: bool) -> None:
    """Write schema/question.schema.json (the editor schema, from the question model) and
    schema/release.schema.json (the document `qbank export json` writes)."""
    from qbank import atomic
    from qbank.export.release_schema import schema_text
    from qbank.model.question import json_schema_text

    bank, tables = bank_and_tables()
    wanted = {
        bank / "schema" / "question.schema.json": json_schema_text(tables.topics),
        bank / "schema" / "release.schema.json": schema_text(),
    }
    stale = False
    for target, text in wanted.items():
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if check:
            stale |= current != text
            say(f"{target}: {'up to date' if current == text else 'out of date; run `qbank schema`'}")
        elif current != text:  # an up-to-date file is not rewritten: a second run writes nothing
            try:
                atomic.replace(target, text.encode("utf-8"))
            except atomic.WriteError as exc:
                raise click.UsageError(str(exc)) from None
            except OSError as exc:
                raise click.UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
            say(f"wrote {target}")
    sys.exit(1 if stale else 0)
