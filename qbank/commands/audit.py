"""`qbank audit`: options -> engine.Settings -> engine.audit -> a report and an exit code."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path

import click

from qbank.commands.common import internal_error, say, split
from qbank.finding import Severity, exit_code


@click.command()
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
@click.option(
    "--changed-since",
    metavar="REF",
    help="Per-file checks only on files changed since this git ref (and not committed, and untracked); "
    "repo-wide checks over the whole bank.",
)
@click.option(
    "--bank-only", is_flag=True, help="Only the repo-wide checks (duplicate ids), over the whole bank."
)
@click.option(
    "--no-cache",
    is_flag=True,
    help="Check every file afresh, and neither read nor write the audit cache "
    "($XDG_CACHE_HOME/qbank/banks/, safe to delete).",
)
@click.option(
    "--jobs",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Worker processes for the per-file checks; 0: one per CPU when over 300 files need checking. "
    "1 keeps the whole audit in one process (a large near-duplicate search uses two otherwise).",
)
def audit(
    paths: tuple[Path, ...],
    fmt: str,
    select: tuple[str, ...],
    ignore: tuple[str, ...],
    fail_on: str,
    changed_since: str | None,
    bank_only: bool,
    no_cache: bool,
    jobs: int,
) -> None:
    """Check question files (default: the bank's questions/)."""
    from qbank import engine, reporters
    from qbank.engine.runner import collector_paused

    if changed_since is not None and bank_only:
        raise click.UsageError("--changed-since and --bank-only do not go together")
    settings = engine.Settings(
        paths,
        split(select),
        split(ignore),
        Severity(fail_on),
        changed_since,
        bank_only,
        cache=not no_cache,
        jobs=jobs,
    )
    try:
        with collector_paused():
            report = engine.audit(settings, Path.cwd(), progress_bar(fmt))
    except engine.UsageError as exc:
        raise click.UsageError(str(exc)) from None
    except Exception:  # a bug in qbank, never a question's fault: say so plainly, exit 2
        internal_error()
    for note in report.notes:
        say(f"note: {note}", err=True)
    click.echo(reporters.FORMATS[fmt](report), nl=False)
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if fmt == "github" and summary_file:  # every finding, where the 10-per-step annotation cap cannot hide it
        with open(summary_file, "a", encoding="utf-8") as handle:
            handle.write(reporters.github_step_summary(report))
    sys.exit(exit_code(report.findings, settings.fail_on))


PROGRESS_MIN_FILES = 200  # below this an audit takes well under a second: a bar would only flicker


def progress_bar(fmt: str) -> Callable[[Sequence[Path]], Iterable[Path]]:
    """A progress bar on stderr for long text-format runs on a terminal; nothing otherwise, so
    machine-readable output and logs stay clean."""
    if fmt != "text" or not sys.stderr.isatty():
        return iter

    def bar(files: Sequence[Path]) -> Iterator[Path]:
        if len(files) < PROGRESS_MIN_FILES:
            yield from files
            return
        start = shown = time.monotonic()
        _show(progress_line(0, len(files), 0.0))  # at once: the first results can take seconds
        for done, file in enumerate(files):
            yield file  # asked for the next file: the one before it is done
            now = time.monotonic()
            if now - shown >= 0.1:
                _show(progress_line(done, len(files), now - start))
                shown = now
        _show(progress_line(len(files), len(files), time.monotonic() - start) + "\n")

    return bar


def progress_line(done: int, total: int, elapsed: float) -> str:
    """`auditing 1200/3932  30%  9 s, about 21 s left`: the time left from the rate so far (click's
    bar took it from the last few files: the first chunk of results, after 12 s, said 08:22:03)."""
    line = f"auditing {done}/{total} {done * 100 // total:3d}%  {elapsed:.0f} s"
    if 0 < done < total and elapsed >= 1:
        line += f", about {elapsed / done * (total - done):.0f} s left"
    return line


def _show(line: str) -> None:
    sys.stderr.write(f"\r{line:<60}" if not line.endswith("\n") else f"\r{line}")
    sys.stderr.flush()
