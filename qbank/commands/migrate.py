"""`qbank migrate`: a StaffML-style vault made into a bank, by edits a machine can make alone."""

from __future__ import annotations

import difflib
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from qbank.commands.common import say

if TYPE_CHECKING:  # the migration (ruamel.yaml, the model) loads only when the command runs
    from qbank.migrate import FilePlan


@click.command()
@click.argument("path", type=click.Path(path_type=Path), default=Path("."))
@click.option("--write", is_flag=True, help="Make the changes (the default is a dry run).")
@click.option("--diff", "show_diff", is_flag=True, help="Show each change as a unified diff.")
def migrate(path: Path, write: bool, show_diff: bool) -> None:
    """Turn a StaffML-style vault at PATH into a bank qbank audits: files moved to
    questions/<track>/<competency_area>/<id>.yaml, schema/ set up, `provenance: imported` added
    where missing, ambiguous plain values quoted, near-miss markers fixed. What needs a person
    (placeholder titles, missing markers, deletion reasons, unknown keys) is listed, never filled.
    A dry run unless --write; run it again after writing and it changes nothing.
    """
    from qbank import migrate as migration

    try:
        planned = migration.plan(path)
    except migration.MigrateError as exc:
        raise click.UsageError(str(exc)) from None
    for file in planned.files:
        _report(file, planned.root, show_diff)
    for name in planned.schema:
        say(f"schema/{name}: {'made' if write else 'would make'} (qbank's, for a vault without one)")
    problems = migration.apply(planned) if write else []
    for problem in problems:
        say(f"not written: {problem}", err=True)
    counts = ", ".join(f"{name} {count}" for name, count in planned.counts().items())
    done = f"{'changed' if write else 'would change'}: {counts}" if counts else "nothing to change"
    left = sum(len(file.left) for file in planned.files)
    click.echo(f"{len(planned.files)} files: {done}; {left} left for a person")
    sys.exit(1 if problems else 0)


def _report(file: FilePlan, root: Path, show_diff: bool) -> None:
    if file.changes:
        place = (
            f" (to {file.target.relative_to(root).as_posix()})"
            if file.target and file.target != file.source
            else ""
        )
        writer = f" [{file.writer}{': ' + file.why_splice if file.why_splice else ''}]" if file.writer else ""
        say(f"{file.shown}: {', '.join(file.changes)}{place}{writer}")
    for note in file.left:
        say(f"{file.shown}: left for you: {note}")
    if show_diff and file.new != file.old:
        old, new = file.old.splitlines(keepends=True), file.new.splitlines(keepends=True)
        after = (file.target or file.source).relative_to(root).as_posix()
        click.echo("".join(difflib.unified_diff(old, new, f"a/{file.shown}", f"b/{after}")), nl=False)
