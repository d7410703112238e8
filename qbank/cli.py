"""The command line: each command parses options into settings, calls one function, and exits."""

from __future__ import annotations

import os
import sys
import traceback
from pathlib import Path

import click

from qbank import __version__
from qbank.finding import Severity, exit_code

USAGE_ERROR = 2


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="qbank")
def main() -> None:
    """qbank: audit, explain and export an ML-systems interview question bank."""


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json", "github", "sarif"]),
    default="text",
    show_default=True,
    help="Output format.",
)
@click.option(
    "--select",
    multiple=True,
    metavar="RULES",
    help="Only these rules (names, codes or code prefixes; comma-separated).",
)
@click.option("--ignore", multiple=True, metavar="RULES", help="Skip these rules.")
@click.option(
    "--fail-on",
    type=click.Choice(["error", "warning"]),
    default="error",
    show_default=True,
    help="Lowest severity that makes the exit code 1.",
)
def audit(
    paths: tuple[Path, ...], fmt: str, select: tuple[str, ...], ignore: tuple[str, ...], fail_on: str
) -> None:
    """Check question files (default: the bank's questions/)."""
    from qbank import engine, reporters

    settings = engine.Settings(paths, _split(select), _split(ignore), Severity(fail_on))
    try:
        report = engine.audit(settings, Path.cwd())
    except engine.UsageError as exc:
        raise click.UsageError(str(exc)) from None
    except Exception:  # a bug in qbank, never a question's fault: say so plainly, exit 2
        _internal_error()
    for note in report.notes:
        click.echo(f"note: {note}", err=True)
    click.echo(reporters.FORMATS[fmt](report), nl=False)
    sys.exit(exit_code(report.findings, settings.fail_on))


@main.command()
@click.argument("rule", required=False)
@click.option("--list", "list_all", is_flag=True, help="List every rule.")
def explain(rule: str | None, list_all: bool) -> None:
    """Print a rule's documentation, with a failing and a passing example."""
    from qbank import rules

    if list_all or rule is None:
        for r in rules.all_rules():
            click.echo(f"{r.code}  {r.name:<24} {r.severity.value:<8} {r.summary}")
        return
    rules.all_rules()
    try:
        found = rules.get(rule)
    except KeyError:
        raise click.UsageError(f"unknown rule {rule!r} (see `qbank explain --list`)") from None
    click.echo(f"{found.code} {found.name} ({found.severity.value})\n\n{found.doc}")


@main.command()
@click.option("--check", is_flag=True, help="Exit 1 if schema/question.schema.json is not up to date.")
def schema(check: bool) -> None:
    """Write schema/question.schema.json, generated from the question model."""
    from qbank.model import json_schema_text
    from qbank.taxonomy import NO_BANK, find_bank_root

    bank = find_bank_root(Path.cwd())
    if bank is None:
        raise click.UsageError(NO_BANK)
    target = bank / "schema" / "question.schema.json"
    wanted = json_schema_text()
    current = target.read_text(encoding="utf-8") if target.is_file() else None
    if check:
        if current != wanted:
            click.echo(f"{target}: out of date; run `qbank schema`", err=True)
            sys.exit(1)
        click.echo(f"{target}: up to date")
        return
    if current != wanted:
        tmp = target.with_suffix(".json.tmp")
        tmp.write_text(wanted, encoding="utf-8")
        os.replace(tmp, target)  # atomic: a reader never sees half a file
    click.echo(f"wrote {target}")


def _internal_error() -> None:
    click.echo(f"qbank: internal error: {sys.exc_info()[1]!r}", err=True)
    if os.environ.get("QBANK_DEBUG"):
        traceback.print_exc()
    else:
        click.echo("qbank: this is a bug in qbank; rerun with QBANK_DEBUG=1 for the traceback", err=True)
    sys.exit(USAGE_ERROR)
