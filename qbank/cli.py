"""The command line: the click group, and the commands added to it. Each command (qbank/commands/)
parses its options into settings, calls one function and exits."""

from __future__ import annotations

import gc
from typing import Any

import click

from qbank import __version__
from qbank.commands import audit, explain, export, fix, generate, gpu, migrate, new, schema, stats
from qbank.commands.common import inert


class _Group(click.Group):
    """Click's group, whose usage errors are printed inert: they can quote a path or a file's text."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:
            setattr(exc, "message", inert(exc.message))  # noqa: B010 - click types it Final
            raise


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="qbank")
def main() -> None:
    """qbank: audit, explain and export an ML-systems interview question bank."""


for _command in (
    audit.audit,
    explain.explain,
    schema.schema,
    fix.fix,
    migrate.migrate,
    stats.stats,
    new.new,
    new.init,
    generate.generate,
    export.export,
    gpu.gpu,
):
    main.add_command(_command)


def run() -> None:
    """The `qbank` program (`python -m qbank`, the console script): main, whose exit then skips the
    collector's final pass over every object left (gc.freeze), a measurable share of a large
    audit's exit (benchmarks/README.md, gc); atexit handlers and flushing still run. Tests call
    `main`, which never freezes. The collector's other setting is engine.runner.collector_paused."""
    try:
        main()
    finally:
        gc.freeze()
