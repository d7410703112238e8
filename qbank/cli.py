"""The command line: each command parses options into settings, calls one function, and exits."""

from __future__ import annotations

import contextlib
import datetime
import gc
import os
import sys
import traceback
import typing
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import click

from qbank import __version__, vocabulary
from qbank.finding import Finding, Severity, exit_code

if typing.TYPE_CHECKING:
    from qbank.export import files
    from qbank.export.release import Release
    from qbank.taxonomy import BankSchema

USAGE_ERROR = 2


def _split(values: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(part.strip() for value in values for part in value.split(",") if part.strip())


class _Group(click.Group):
    """Click's group, whose usage errors are printed inert: they can quote a path or a file's text."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.ClickException as exc:
            setattr(exc, "message", _inert(exc.message))  # noqa: B010 - click types it Final
            raise


def _inert(message: str) -> str:
    """A message as one line that no terminal or GitHub runner acts on (reporters.inert)."""
    from qbank.reporters import inert

    return inert(message)


def _say(message: str, err: bool = False) -> None:
    click.echo(_inert(message), err=err)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="qbank")
def main() -> None:
    """qbank: audit, explain and export an ML-systems interview question bank."""


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector off for an audit (the one place qbank sets it). An audit builds tens of thousands of
    small acyclic objects (paths, results, entries), and each burst of them started collections
    that walked every live object: a fifth of a warm audit of 10,000 files. An audit makes next
    to no cycles (469 unreachable objects after checking 1,000 files in one process), and the
    gc documentation allows turning the collector off "if you are sure your program does not
    create reference cycles"; reference counting still frees everything else."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def run() -> None:
    """The `qbank` program (`python -m qbank`, the console script): main, whose exit then skips the
    collector's final pass over every object left (gc.freeze). That pass is a measurable share of a large
    audit's exit (benchmarks/README.md, gc); atexit handlers and flushing still run. Tests call `main`, which never freezes."""
    try:
        main()
    finally:
        gc.freeze()


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

    if changed_since is not None and bank_only:
        raise click.UsageError("--changed-since and --bank-only do not go together")
    settings = engine.Settings(
        paths,
        _split(select),
        _split(ignore),
        Severity(fail_on),
        changed_since,
        bank_only,
        cache=not no_cache,
        jobs=jobs,
    )
    try:
        with collector_paused():
            report = engine.audit(settings, Path.cwd(), _progress(fmt))
    except engine.UsageError as exc:
        raise click.UsageError(str(exc)) from None
    except Exception:  # a bug in qbank, never a question's fault: say so plainly, exit 2
        _internal_error()
    for note in report.notes:
        _say(f"note: {note}", err=True)
    click.echo(reporters.FORMATS[fmt](report), nl=False)
    summary_file = os.environ.get("GITHUB_STEP_SUMMARY")
    if fmt == "github" and summary_file:  # every finding, where the 10-per-step annotation cap cannot hide it
        with open(summary_file, "a", encoding="utf-8") as handle:
            handle.write(reporters.github_step_summary(report))
    sys.exit(exit_code(report.findings, settings.fail_on))


PROGRESS_MIN_FILES = 200  # below this an audit takes well under a second: a bar would only flicker


def _progress(fmt: str) -> Callable[[Sequence[Path]], Iterable[Path]]:
    """A progress bar on stderr for long text-format runs on a terminal; nothing otherwise, so
    machine-readable output and logs stay clean."""
    if fmt != "text" or not sys.stderr.isatty():
        return iter

    def bar(files: Sequence[Path]) -> Iterator[Path]:
        if len(files) < PROGRESS_MIN_FILES:
            yield from files
            return
        with click.progressbar(files, label="auditing", file=sys.stderr, show_pos=True) as shown:
            yield from shown

    return bar


@main.command()
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


@main.command()
@click.option("--check", is_flag=True, help="Exit 1 if a schema file is not up to date.")
def schema(check: bool) -> None:
    """Write schema/question.schema.json (the editor schema, from the question model) and
    schema/release.schema.json (the document `qbank export json` writes)."""
    from qbank import atomic
    from qbank.export.release import schema_text
    from qbank.model import json_schema_text

    bank, taxonomy = _bank_and_schema()
    wanted = {
        bank / "schema" / "question.schema.json": json_schema_text(taxonomy.topics),
        bank / "schema" / "release.schema.json": schema_text(),
    }
    stale = False
    for target, text in wanted.items():
        current = target.read_text(encoding="utf-8") if target.is_file() else None
        if check:
            stale |= current != text
            _say(f"{target}: {'up to date' if current == text else 'out of date; run `qbank schema`'}")
        elif current != text:  # an up-to-date file is not rewritten: a second run writes nothing
            try:
                atomic.replace(target, text.encode("utf-8"))
            except atomic.WriteError as exc:
                raise click.UsageError(str(exc)) from None
            except OSError as exc:
                raise click.UsageError(f"cannot write {target}: {exc.strerror or exc}") from None
            _say(f"wrote {target}")
    sys.exit(1 if stale else 0)


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--check", is_flag=True, help="Only report what would change; exit 1 if anything would.")
def fix(paths: tuple[Path, ...], check: bool) -> None:
    """Apply safe mechanical fixes: trailing whitespace, marker spelling, unambiguous title case.

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
            _say(f"{result.path}: {verb}: {'; '.join(result.changes)}")
        for note in result.notes:
            _say(f"{result.path}: left for you: {note}")
        if result.skipped:
            _say(f"{result.path}: skipped: {result.skipped}", err=True)
    changed = sum(bool(r.changes) for r in results)
    skipped = sum(bool(r.skipped) for r in results)
    click.echo(f"{len(results)} files: {changed} {verb}, {skipped} skipped")
    sys.exit(1 if skipped or (check and changed) else 0)


def _choices(literal: object) -> click.Choice[str]:
    return click.Choice(typing.get_args(literal))


@main.command()
@click.option("--track", required=True, type=_choices(vocabulary.Track))
@click.option("--area", "competency_area", required=True, type=_choices(vocabulary.CompetencyArea))
@click.option("--level", required=True, type=_choices(vocabulary.Level))
@click.option("--zone", required=True, type=_choices(vocabulary.Zone))
@click.option("--topic", required=True, help="A topic slug from schema/taxonomy.yaml.")
@click.option("--title", required=True, help="A concrete, searchable title in Title Case.")
def new(track: str, competency_area: str, level: str, zone: str, topic: str, title: str) -> None:
    """Write a skeleton question with a fresh id; the audit reports its placeholders until filled."""
    from qbank import atomic
    from qbank import new as authoring
    from qbank.engine import display_path

    bank, schema = _bank_and_schema()
    skeleton = authoring.Skeleton(track, competency_area, level, zone, topic, title)
    try:
        path = authoring.create(bank, schema, skeleton, datetime.date.today())
    except (authoring.NewError, atomic.WriteError) as exc:
        raise click.UsageError(str(exc)) from None
    except OSError as exc:  # a file where a folder should be, a read-only bank: not a bug in qbank
        raise click.UsageError(f"cannot write the question: {exc}") from None
    _say(display_path(path, Path.cwd()))


@main.command()
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
    bank, schema = _bank_and_schema()
    chosen = [BY_NAME[f] for f in families] if families else list(FAMILIES)
    try:
        run = generator.generate(bank, schema, chosen, per_cell, seed, datetime.date.today(), dry_run, cap)
    except (generator.TemplateError, ValueError, atomic.WriteError) as exc:
        raise click.ClickException(str(exc)) from None
    verb = "would write" if dry_run else "wrote"
    click.echo(
        f"{verb} {len(run.written)} questions; dropped {run.dropped} drafts that read like another question"
    )


@main.group()
def export() -> None:
    """Export the released questions: JSON, SQLite, a static study site, an Anki deck.

    Released: status published, the file validates, and the audit finds no error in it.
    """


def _out_option(metavar: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return click.option(
        "--out", required=True, metavar=metavar, type=click.Path(path_type=Path), help="Where to write."
    )


def _force_option(kind: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    return click.option(
        "--force",
        is_flag=True,
        help=f"Replace FILE even when it is not an earlier qbank {kind} export (without it, such a file "
        "is refused). A link, a folder or a device is refused even so.",
    )


@export.command("json")
@_out_option("FILE")
@_force_option("JSON")
def export_json(out: Path, force: bool) -> None:
    """One JSON document (schema/release.schema.json), sorted by id, with content hashes."""
    from qbank.export import release

    _file_export(out, force, "JSON", release.is_export, release.write_json)


@export.command("sqlite")
@_out_option("FILE")
@_force_option("SQLite")
def export_sqlite(out: Path, force: bool) -> None:
    """A SQLite file: questions, tags, taxonomy, and an FTS5 index (questions_fts)."""
    from qbank.export import sqlite

    _file_export(out, force, "SQLite", sqlite.is_export, sqlite.write)


@export.command("site")
@_out_option("DIR")
def export_site(out: Path) -> None:
    """A static study site that works offline from its folder: open DIR/index.html.

    DIR must be new, empty, or a site qbank exported; only files qbank can prove it wrote there
    (listed in DIR/.qbank-site with their SHA-256) are replaced or removed."""
    from qbank.export import site

    _export(
        lambda bank: _site_preflight(out, bank),
        lambda r, previous: site.build(r, out, previous=previous),
        out / "index.html",
    )


def _site_preflight(out: Path, bank: Path) -> files.Previous:
    from qbank.export import files, site

    previous = site.preflight(out, bank)
    for name in previous.ignored:
        _say(
            f"note: {out / files.MANIFEST} names {name}, which is not a file of the site: ignored, never removed",
            err=True,
        )
    return previous


@export.command("anki")
@_out_option("FILE.apkg")
@_force_option("Anki")
def export_anki(out: Path, force: bool) -> None:
    """An Anki deck for spaced repetition; re-importing a newer deck updates the notes."""
    from qbank.export import anki

    _file_export(out, force, "Anki", anki.is_export, anki.write)


def _file_export(
    out: Path,
    force: bool,
    kind: str,
    is_export: Callable[[Path], bool],
    write: Callable[[Release, Path], object],
) -> None:
    """A single-file export: `out` is refused unless new, an earlier export of this kind, or --force."""
    from qbank.export import files

    _export(lambda bank: files.refuse_foreign(out, is_export, kind, force), lambda r, _: write(r, out), out)


_Plan = typing.TypeVar("_Plan")


def _export(
    preflight: Callable[[Path], _Plan], write: Callable[[Release, _Plan], object], shown: Path
) -> None:
    """Check the output, audit the bank, select the release, write it; say what was released and
    what withheld. The output is checked first (`preflight`, given the bank's root), so a refusal
    is fast and comes before anything is written."""
    from qbank import engine
    from qbank.export import files, release

    bank, schema = _bank_and_schema()
    try:
        plan = preflight(bank)
        with collector_paused():
            report = engine.audit(engine.Settings(records=True), bank, _progress("text"))
        chosen = release.select(report, bank, schema.topic_groups)
        write(chosen, plan)
    except (engine.UsageError, files.OutputError) as exc:
        raise click.UsageError(str(exc)) from None
    except OSError as exc:  # a folder that cannot be written, a full disk: the output's fault
        raise click.UsageError(f"cannot write {exc.filename or shown}: {exc.strerror or exc}") from None
    except Exception:
        _internal_error()
    withheld = ", ".join(f"{count} {reason}" for reason, count in chosen.withheld.items()) or "none"
    _say(f"released {len(chosen.entries)} questions (withheld: {withheld}) -> {shown}")


@main.group()
def gpu() -> None:
    """Probe GPU numerics and record the evidence that device claims are audited against."""


@gpu.command("list")
def gpu_list() -> None:
    """List the probes."""
    from qbank.gpu.probes import REGISTRY

    for p in REGISTRY.values():
        click.echo(f"{p.id:40} {p.kind:24} {p.doc}")


@gpu.command("probe")
@click.argument("probe_ids", nargs=-1)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=Path("evidence/gpu"),
    show_default=True,
    help="Evidence folder: records go to OUT/<device_class>/<probe_id>.jsonl.",
)
@click.option(
    "--backend",
    type=click.Choice(["auto", "cuda", "cpu", "torch-cpu"]),
    default="auto",
    show_default=True,
    help="cuda needs a GPU with cupy and torch; cpu is the numpy reference; torch-cpu runs the torch "
    "probes with torch on the CPU (both device class `cpu`); auto is cuda, else cpu.",
)
def gpu_probe(probe_ids: tuple[str, ...], out: Path, backend: str) -> None:
    """Run probes (default: all) and append one evidence record per run."""
    from qbank import atomic
    from qbank.gpu import evidence, probes
    from qbank.gpu.backends import CpuBackend, Unavailable

    unknown = [p for p in probe_ids if p not in probes.REGISTRY]
    if unknown:
        raise click.UsageError(f"unknown probe {unknown[0]!r}; see qbank gpu list")
    try:
        runner = _gpu_backend(backend)
    except Unavailable as exc:
        raise click.UsageError(str(exc)) from None
    info = runner.info()
    _say(f"backend {runner.name}: {info['device']['name']} ({info['device']['device_class']})")
    now = datetime.datetime.now(datetime.UTC)
    chosen = [probes.REGISTRY[p] for p in probe_ids] if probe_ids else list(probes.REGISTRY.values())
    skipped = 0
    for p in chosen:
        try:
            result = probes.run(runner, p)
        except Unavailable as exc:
            _say(f"{p.id:40} not run: {exc}")
            skipped += 1
            continue
        try:
            written = evidence.append(out, evidence.record(p, info, result, now))
        except atomic.WriteError as exc:
            raise click.UsageError(str(exc)) from None
        controls = " ".join(f"{k}={v}" for k, v in result["controls"].items())
        _say(f"{p.id:40} {result['verdict']:12} {controls}  -> {written}")
    if isinstance(runner, CpuBackend) and backend == "auto":
        click.echo("note: no usable GPU; the numpy reference ran instead (device class cpu)", err=True)
    sys.exit(1 if skipped and backend == "cuda" else 0)  # elsewhere some probes cannot run by design


def _gpu_backend(name: str) -> Any:
    from qbank.gpu.backends import CpuBackend, Unavailable

    if name == "cpu":
        return CpuBackend()
    if name == "torch-cpu":
        from qbank.gpu.torch_ops import TorchCpuBackend

        return TorchCpuBackend()
    from qbank.gpu.cuda import CudaBackend

    try:
        return CudaBackend()
    except Unavailable:
        if name == "cuda":
            raise
        return CpuBackend()


def _bank_and_schema() -> tuple[Path, BankSchema]:
    """The bank above the working directory and its usable schema files, or a usage error."""
    from qbank.taxonomy import NO_BANK, find_bank_root, load_bank_schema

    bank = find_bank_root(Path.cwd())
    if bank is None:
        raise click.UsageError(NO_BANK)
    schema = load_bank_schema(bank / "schema")
    if isinstance(schema, Finding):
        raise click.UsageError(f"{schema.path}:{schema.line}: {schema.message}")
    return bank, schema


def _internal_error() -> None:
    _say(f"qbank: internal error: {sys.exc_info()[1]!r}", err=True)
    if os.environ.get("QBANK_DEBUG"):
        traceback.print_exc()
    else:
        click.echo("qbank: this is a bug in qbank; rerun with QBANK_DEBUG=1 for the traceback", err=True)
    sys.exit(USAGE_ERROR)
