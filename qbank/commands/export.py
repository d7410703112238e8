"""`qbank export`: json, sqlite, site, anki, from the released questions."""

from __future__ import annotations

import importlib.util
import typing
from collections.abc import Callable
from pathlib import Path

import click

from qbank.commands.audit import progress_bar
from qbank.commands.common import bank_and_tables, internal_error, say

if typing.TYPE_CHECKING:  # exports load the model and Jinja only when they run
    from qbank.export import files
    from qbank.export.release import Release


@click.group()
def export() -> None:
    """Export the released questions: JSON, SQLite, a static study site, an Anki deck.

    Released: status published, the file validates, and the audit finds no error in it. Needs the
    export extra: pip install 'qbank[export]'.
    """
    missing = [name for name in _EXPORT_LIBRARIES if importlib.util.find_spec(name) is None]
    if missing:
        raise click.UsageError(
            f"qbank export needs {', '.join(missing)}: pip install 'qbank[export]' (the audit does not)"
        )


_EXPORT_LIBRARIES = ("jinja2", "markdown_it", "genanki")  # pyproject.toml's export extra


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

    _file_export(out, force, "JSON", release.is_export, _without_bank(release.write_json), ("record",))


@export.command("sqlite")
@_out_option("FILE")
@_force_option("SQLite")
def export_sqlite(out: Path, force: bool) -> None:
    """A SQLite file: questions, tags, taxonomy, and an FTS5 index (questions_fts)."""
    from qbank.export import sqlite

    _file_export(out, force, "SQLite", sqlite.is_export, _write_sqlite, ())


@export.command("site")
@_out_option("DIR")
def export_site(out: Path) -> None:
    """A static study site that works offline from its folder: open DIR/index.html.

    DIR must be new, empty, or a site qbank exported; only files qbank can prove it wrote there
    (listed in DIR/.qbank-site with their SHA-256) are replaced or removed."""
    from qbank.export import site

    _export(
        lambda bank: _site_preflight(out, bank),
        lambda chosen, plan: _write_site(chosen, out, plan),
        out / "index.html",
        site.TEXTS,
    )


@export.command("all")
@_out_option("DIR")
@_force_option("JSON, SQLite or Anki")
def export_all(out: Path, force: bool) -> None:
    """All four from one audit: DIR/release.json, DIR/release.sqlite, DIR/site/ and DIR/qbank.apkg.
    Each output is checked, as its own command checks it, before the audit starts."""
    from qbank.export import anki, release, sqlite
    from qbank.export import files as outputs

    singles: tuple[tuple[str, str, Callable[[Path], bool], _Writer], ...] = (
        ("release.json", "JSON", release.is_export, _without_bank(release.write_json)),
        ("release.sqlite", "SQLite", sqlite.is_export, _write_sqlite),
        ("qbank.apkg", "Anki", anki.is_export, _write_anki),
    )

    def preflight(bank: Path) -> _SitePlan:
        if out.exists() and not out.is_dir() or out.is_symlink():
            raise outputs.OutputError(f"{out} is not a folder")
        for name, kind, is_export, _ in singles:
            outputs.refuse_foreign(out / name, is_export, kind, force)
        return _site_preflight(out / "site", bank)

    def write(chosen: Release, plan: _SitePlan) -> None:
        out.mkdir(parents=True, exist_ok=True)
        for name, _, _, writer in singles:
            writer(chosen, out / name, plan.bank)
        _write_site(chosen, out / "site", plan)

    _export(preflight, write, out)


class _SitePlan(typing.NamedTuple):
    previous: files.Previous  # what site.preflight found in the output folder
    bank: Path
    secret: bytes | None  # the secret beside qbank's caches (store.secret): the site's proofs


def _site_preflight(out: Path, bank: Path) -> _SitePlan:
    from qbank.engine import store
    from qbank.export import files, site

    secret = store.secret()
    previous = site.preflight(out, bank, secret)
    for name in previous.ignored:
        say(
            f"note: {out / files.MANIFEST} names {name}, which is not a file of the site: ignored, never removed",
            err=True,
        )
    return _SitePlan(previous, bank, secret)


def _write_site(chosen: Release, out: Path, plan: _SitePlan) -> None:
    """The site, with the bank's cache for the records and facts of the pages it renders."""
    from qbank.engine import store
    from qbank.export import site

    with store.memory(plan.bank) as memory:
        site.build(chosen, out, previous=plan.previous, secret=plan.secret, memory=memory)


@export.command("anki")
@_out_option("FILE.apkg")
@_force_option("Anki")
def export_anki(out: Path, force: bool) -> None:
    """An Anki deck for spaced repetition; re-importing a newer deck updates the notes."""
    from qbank.export import anki

    _file_export(out, force, "Anki", anki.is_export, _write_anki, ())


_Writer = Callable[["Release", Path, Path], object]  # the release, the output and the bank's root


def _without_bank(write: Callable[[Release, Path], object]) -> _Writer:
    """A writer that needs only the release and the output (JSON, SQLite), as a _Writer."""
    return lambda chosen, out, _: write(chosen, out)


def _write_sqlite(chosen: Release, out: Path, bank: Path) -> None:
    """The database; updated in place when the bank's cache says it is the file the last export
    wrote (qbank.engine.store, Store.exported)."""
    from qbank.engine import store
    from qbank.export import sqlite

    with store.memory(bank) as memory:
        sqlite.write(chosen, out, ledger=memory)


def _write_anki(chosen: Release, out: Path, bank: Path) -> None:
    """The deck; notes an earlier export rendered are kept in the bank's cache (qbank.engine.store)."""
    from qbank.engine import store
    from qbank.export import anki

    with store.memory(bank) as memory:
        anki.write(chosen, out, memory=memory)


def _file_export(
    out: Path,
    force: bool,
    kind: str,
    is_export: Callable[[Path], bool],
    write: _Writer,
    texts: tuple[str, ...],
) -> None:
    """A single-file export: `out` is refused unless new, an earlier export of this kind, or --force.
    `write` is given the release, `out` and the bank's root; `texts`: what it reads of each view."""
    from qbank.export import files

    def preflight(bank: Path) -> Path:
        files.refuse_foreign(out, is_export, kind, force)
        return bank

    _export(preflight, lambda chosen, bank: write(chosen, out, bank), out, texts)


_Plan = typing.TypeVar("_Plan")


def _export(
    preflight: Callable[[Path], _Plan],
    write: Callable[[Release, _Plan], object],
    shown: Path,
    texts: tuple[str, ...] | None = None,
) -> None:
    """Check the output, audit the bank, select the release, write it; say what was released and
    what withheld. The output is checked first (`preflight`, given the bank's root), so a refusal
    is fast and comes before anything is written. `texts`: what the writer reads of each file's
    release view (engine.Settings.texts; the records it then needs are read by content hash);
    None: all of it."""
    from qbank import engine
    from qbank.engine.runner import collector_paused
    from qbank.engine.views import TEXTS
    from qbank.export import files, release

    bank, tables = bank_and_tables()
    try:
        # The collector stays off for the writing too: after the audit, each burst of objects an
        # export makes (10,000 entries, their facets) started collections that walked every live
        # object, 30 to 70 ms of a warm site export (benchmarks/export_site.py).
        with collector_paused():
            plan = preflight(bank)
            settings = engine.Settings(cache=True, views=True, texts=TEXTS if texts is None else texts)
            report = engine.audit(settings, bank, progress_bar("text"))
            chosen = release.select(report, tables.topic_groups)
            write(chosen, plan)
    except (engine.UsageError, files.OutputError) as exc:
        raise click.UsageError(str(exc)) from None
    except release.Unread as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:  # a folder that cannot be written, a full disk: the output's fault
        raise click.UsageError(f"cannot write {exc.filename or shown}: {exc.strerror or exc}") from None
    except Exception:
        internal_error()
    withheld = ", ".join(f"{count} {reason}" for reason, count in chosen.withheld.items()) or "none"
    say(f"released {len(chosen.entries)} questions (withheld: {withheld}) -> {shown}")
