"""`qbank generate`: drill families rendered into the bank."""

from __future__ import annotations

import datetime

import click

from qbank.commands.common import bank_and_tables


@click.command()
@click.argument("families", nargs=-1)
@click.option(
    "--per-cell",
    type=click.IntRange(1, 1000),
    default=40,
    show_default=True,
    help="Questions wanted in each track x level cell (L1 to L3), written ones included; drills fill the gap.",
)
@click.option(
    "--cap",
    type=click.IntRange(1, 1000),
    default=10,
    show_default=True,
    help="At most this many questions of one family in one cell.",
)
@click.option("--seed", type=int, default=1, show_default=True, help="Seed of the random draws.")
@click.option("--dry-run", is_flag=True, help="Render and check, write nothing.")
@click.option("--list", "list_", is_flag=True, help="List the families and exit.")
def generate(
    families: tuple[str, ...], per_cell: int, cap: int, seed: int, dry_run: bool, list_: bool
) -> None:
    """Render drill questions from schema/hardware.yaml and schema/models.yaml into the bank."""
    from qbank import atomic
    from qbank import generate as generator
    from qbank.generate.families import BY_NAME, FAMILIES

    if list_:
        for family in FAMILIES:
            cells = ", ".join(f"{t} {lv}" for t, lv in sorted(family.cells))
            click.echo(f"{family.name:18} v{family.version}  {family.doc}  [{cells}]")
        return
    unknown = [f for f in families if f not in BY_NAME]
    if unknown:
        raise click.UsageError(f"unknown family {unknown[0]!r}; see qbank generate --list")
    bank, tables = bank_and_tables()
    chosen = [BY_NAME[f] for f in families] if families else list(FAMILIES)
    try:
        run = generator.generate(bank, tables, chosen, per_cell, seed, datetime.date.today(), dry_run, cap)
    except (generator.TemplateError, ValueError, atomic.WriteError) as exc:
        raise click.ClickException(str(exc)) from None
    verb = "would write" if dry_run else "wrote"
    click.echo(
        f"{verb} {len(run.written)} questions; dropped {run.dropped} drafts that read like another question"
    )
