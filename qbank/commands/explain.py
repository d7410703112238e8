"""`qbank explain`: a rule's documentation, its docstring."""

from __future__ import annotations

import click


@click.command()
@click.argument("rule", required=False)
@click.option("--list", "list_all", is_flag=True, help="List every rule.")
def explain(rule: str | None, list_all: bool) -> None:
    """Print a rule's documentation, with a failing and a passing example."""
    from qbank import catalog

    if list_all or rule is None:
        for r in catalog.all_rules():
            click.echo(f"{r.code}  {r.name:<24} {r.severity.value:<8} {r.summary}")
        return
    try:
        found = catalog.get(rule)
    except KeyError:
        raise click.UsageError(f"unknown rule {rule!r} (see `qbank explain --list`)") from None
    click.echo(f"{found.code} {found.name} ({found.severity.value})\n\n{found.doc}")
