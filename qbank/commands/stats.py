"""`qbank stats`: the bank's composition."""

from __future__ import annotations

from pathlib import Path

import click


@click.command()
@click.argument(
    "questions", type=click.Path(path_type=Path, exists=True, file_okay=False), default=Path("questions")
)
def stats(questions: Path) -> None:
    """The composition of the bank's QUESTIONS folder: written and generated questions per track and
    level, zones, areas, provenance, generator families, copies, device claims, napkin-math
    coverage and the audit's summary (README's counts come from here)."""
    from qbank.stats import composition

    click.echo(composition(questions), nl=False)
