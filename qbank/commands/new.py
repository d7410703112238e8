"""`qbank new`: a skeleton question with a fresh id."""

from __future__ import annotations

import datetime
from pathlib import Path

import click

from qbank.commands.common import bank_and_tables, choices, say
from qbank.model import vocabulary


@click.command()
@click.option("--track", required=True, type=choices(vocabulary.Track))
@click.option("--area", "competency_area", required=True, type=choices(vocabulary.CompetencyArea))
@click.option("--level", required=True, type=choices(vocabulary.Level))
@click.option("--zone", required=True, type=choices(vocabulary.Zone))
@click.option("--topic", required=True, help="A topic slug from schema/taxonomy.yaml.")
@click.option("--title", required=True, help="A concrete, searchable title in Title Case.")
def new(track: str, competency_area: str, level: str, zone: str, topic: str, title: str) -> None:
    """Write a skeleton question with a fresh id; the audit reports its placeholders until filled."""
    from qbank import atomic
    from qbank import new as authoring
    from qbank.engine import display_path

    bank, tables = bank_and_tables()
    skeleton = authoring.Skeleton(track, competency_area, level, zone, topic, title)
    try:
        path = authoring.create(bank, tables, skeleton, datetime.date.today())
    except (authoring.NewError, atomic.WriteError) as exc:
        raise click.UsageError(str(exc)) from None
    except OSError as exc:  # a file where a folder should be, a read-only bank: not a bug in qbank
        raise click.UsageError(f"cannot write the question: {exc}") from None
    say(display_path(path, Path.cwd()))


@click.command()
@click.argument("path", type=click.Path(path_type=Path, file_okay=False), default=Path("."))
def init(path: Path) -> None:
    """Start a bank at PATH: questions/ and schema/ with qbank's taxonomy, title words and hardware
    table. Then `qbank new` writes its first question, and `qbank audit` checks it."""
    from qbank import new as authoring

    try:
        made = authoring.init(path)
    except authoring.NewError as exc:
        raise click.UsageError(str(exc)) from None
    for made_path in made:
        say(f"made {made_path}")
