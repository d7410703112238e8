"""What the commands share: printing inert lines, the bank and its tables, the collector policy,
usage and internal errors."""

from __future__ import annotations

import os
import sys
import traceback
import typing
from pathlib import Path

import click

from qbank.finding import Finding

if typing.TYPE_CHECKING:  # the schema/ files load only for commands that need a bank
    from qbank.model.taxonomy import BankTables

USAGE_ERROR = 2


def split(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


def inert(message: str) -> str:
    """A message as one line that no terminal or GitHub runner acts on (reporters.inert)."""
    from qbank.reporters import inert

    return inert(message)


def say(message: str, err: bool = False) -> None:
    click.echo(inert(message), err=err)


def choices(literal: object) -> click.Choice[str]:
    return click.Choice(typing.get_args(literal))


def bank_and_tables() -> tuple[Path, BankTables]:
    """The bank above the working directory and its usable schema/ files, or a usage error."""
    from qbank.model.taxonomy import NO_BANK, find_bank_root, load_bank_tables

    bank = find_bank_root(Path.cwd())
    if bank is None:
        raise click.UsageError(NO_BANK)
    tables = load_bank_tables(bank / "schema")
    if isinstance(tables, Finding):
        raise click.UsageError(f"{tables.path}:{tables.line}: {tables.message}")
    return bank, tables


def internal_error() -> None:
    say(f"qbank: internal error: {sys.exc_info()[1]!r}", err=True)
    if os.environ.get("QBANK_DEBUG"):
        traceback.print_exc()
    else:
        click.echo("qbank: this is a bug in qbank; rerun with QBANK_DEBUG=1 for the traceback", err=True)
    sys.exit(USAGE_ERROR)
