"""`qbank fix`: safe mechanical fixes, spliced into the text."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from qbank.commands.common import say


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--check", is_flag=True, help="Only report what would change; exit 1 if anything would.")
def fix(paths: tuple[Path, ...], check: bool) -> None:
    """Apply safe mechanical fixes: trailing whitespace, marker spelling, unambiguous title case,
    quotes around plain values YAML 1.1 reads otherwise (`no`, dates).

    Each fix is a splice into the original text, proven by re-reading the file before it is
    written atomically; comments, quoting and layout are kept byte for byte.
    """
    from qbank import engine
    from qbank import fix as fixer

    try:
        results = fixer.fix_paths(paths, Path.cwd(), check)
    except engine.UsageError as exc:
        raise click.UsageError(str(exc)) from None
    verb = "would fix" if check else "fixed"
    for result in results:
        if result.changes:
            say(f"{result.path}: {verb}: {'; '.join(result.changes)}")
        for note in result.notes:
            say(f"{result.path}: left for you: {note}")
        if result.skipped:
            say(f"{result.path}: skipped: {result.skipped}", err=True)
    changed = sum(bool(r.changes) for r in results)
    skipped = sum(bool(r.skipped) for r in results)
    click.echo(f"{len(results)} files: {changed} {verb}, {skipped} skipped")
    sys.exit(1 if skipped or (check and changed) else 0)
