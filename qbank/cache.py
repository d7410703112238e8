"""The audit cache: what the per-file checks found in a file, kept in `.qbank-cache/` at the bank's
root, so that a second audit only re-checks the files that changed.

A file's entry is keyed by its bytes, its path as findings show it, and a digest of everything
else its result depends on: qbank's own code and data, the versions of the libraries that compute
results, and the bank's schema/ and evidence/ folders. Any change there misses every entry.

It also keeps the last near-duplicate search of a large bank (the similar.Memory): the keys of the
questions it covered and the pairs it found among them, so that the next audit searches only the
files that changed.

The cache is safe to delete and is never committed (a `.gitignore` inside it says so). It is also
never trusted: keys are keyed BLAKE2b hashes with a secret kept outside the repository
(`$XDG_CACHE_HOME/qbank/secret`), so an entry planted in a pull request can never match a file,
and entries are JSON and bytes in SQLite, never pickles, so reading one executes nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
import struct
import sys
from collections.abc import Iterable, Iterator
from dataclasses import astuple, dataclass
from pathlib import Path
from typing import Any

from qbank.checks.bank import BankEntry
from qbank.checks.similar import HASHES, KeyPair
from qbank.finding import Finding, Severity

FOLDER = ".qbank-cache"
FORMAT = 3  # bump when what the database holds changes: a database of another format is started afresh
_KEY_BYTES = 20
# A file's row: its findings (JSON), napkin-math counts and BankEntry (path NULL: none), in plain
# columns: decoding one JSON document per file took a third of a warm audit's reading of the cache.
# `search` holds one row, the Memory. `stats` maps a file's path and status (a digest of them) to the
# key of its bytes, so that a warm audit need not read a file its status says is unchanged.
_TABLES = """
    CREATE TABLE files (key BLOB PRIMARY KEY, findings TEXT, equations INTEGER, checked INTEGER,
        failed INTEGER, path TEXT, question_id TEXT, tombstone INTEGER, id_line INTEGER,
        id_column INTEGER, scenario_line INTEGER, scenario_column INTEGER, shingles BLOB, signature BLOB);
    CREATE TABLE search (id INTEGER PRIMARY KEY CHECK (id = 0), keys BLOB, pairs TEXT);
    CREATE TABLE stats (status BLOB PRIMARY KEY, key BLOB);
"""
_COLUMNS = 14  # of files
_STATUS = struct.Struct("5Q")  # device, inode, size, mtime and ctime in ns
_WORD = 2**64 - 1  # each taken modulo 2**64: a time before 1970 or after 2262 (touch -d) still packs
_LIBRARIES = ("pydantic", "pydantic-core", "PyYAML", "numpy", "ml_dtypes")


PRUNE_SLACK = 1000  # stale entries kept beyond the live ones before a whole-bank run drops them


class Unavailable(Exception):
    """No cache this run (the reason is shown as a note); the audit runs without one."""


@dataclass(frozen=True)  # no slots: a slotted dataclass pickles through Python-level get/setstate
class Result:
    """What one file gave: its findings, its entry for the repo-wide rules (None when it could not be
    loaded) and its napkin-math counts (equations, checked, failed)."""

    findings: list[Finding]
    entry: BankEntry | None
    tally: tuple[int, int, int]


class Cache:
    def __init__(self, bank: Path) -> None:
        self.folder = bank / FOLDER
        try:
            self.folder.mkdir(exist_ok=True)
            ignore = self.folder / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# made by qbank: the audit cache, safe to delete\n*\n", encoding="utf-8")
            self._db = _open(self.folder / "audit.sqlite3")
        except (OSError, sqlite3.Error) as exc:
            raise Unavailable(f"audit cache off: {exc}") from None
        self._salt = hashlib.blake2b(_secret() + _config(bank), digest_size=32).digest()

    def key(self, display: str, data: bytes) -> bytes:
        digest = hashlib.blake2b(key=self._salt, digest_size=_KEY_BYTES)
        digest.update(display.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(data)
        return digest.digest()

    def status(self, display: str, stat: os.stat_result) -> bytes:
        """A digest of a file's path and status: device, inode, size, and the times of its last change
        of content (mtime) and of its inode (ctime, which no program can set back), as git's index
        compares them to skip unchanged files (git's Documentation/technical/racy-git.txt)."""
        digest = hashlib.blake2b(key=self._salt, digest_size=_KEY_BYTES)
        digest.update(display.encode("utf-8", "surrogateescape") + b"\0")
        fields = (stat.st_dev, stat.st_ino, stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns)
        digest.update(_STATUS.pack(*[field & _WORD for field in fields]))
        return digest.digest()

    def keys_of(self, statuses: list[bytes]) -> dict[bytes, bytes]:
        """The keys of the file bytes last seen with these statuses."""
        found: dict[bytes, bytes] = {}
        wanted = set(statuses)
        with contextlib.suppress(sqlite3.Error):  # unreadable: every file is read
            found = {s: k for s, k in self._select("status, key", "stats", "status", statuses) if s in wanted}
        return found

    def get(self, keys: list[bytes]) -> dict[bytes, Result]:
        found: dict[bytes, Result] = {}
        if not keys:
            return found
        wanted = set(keys)
        with contextlib.suppress(sqlite3.Error):  # unreadable: every file is a miss
            for row in self._select("*", "files", "key", keys):
                result = _decode(row) if row[0] in wanted else None
                if result is not None:
                    found[row[0]] = result
        return found

    def _select(self, columns: str, table: str, column: str, values: list[bytes]) -> Any:
        """A cursor over the rows of `table` whose `column` is among `values`, and for many values
        over all its rows (the caller keeps the ones it wants): one scan of the table (at most
        2x + 1,000 rows, see put) is faster than looking up thousands of keys, and a one-file hook
        run must not scan 10,000 rows to look up one."""
        if len(values) > 900:
            return self._db.execute(f"SELECT {columns} FROM {table}")
        marks = ",".join("?" * len(values))  # 900: under SQLite's bound-parameter limit
        return self._db.execute(f"SELECT {columns} FROM {table} WHERE {column} IN ({marks})", values)

    def put(
        self,
        results: Iterable[tuple[bytes, Result]],
        keep: set[bytes] | None,
        statuses: Iterable[tuple[bytes, bytes]] = (),
    ) -> None:
        """Store new results, and the (status, key) pairs of files read. `keep`: the keys of every
        file of the bank, from a run over all of them; entries no file has any more are dropped once
        they outnumber the live ones. None: the run saw only some files, and drops nothing."""
        with contextlib.suppress(sqlite3.Error), self._db:
            rows = [(key, *_encode(result)) for key, result in results]
            marks = ",".join("?" * _COLUMNS)
            self._db.executemany(f"INSERT OR REPLACE INTO files VALUES ({marks})", rows)
            self._db.executemany("INSERT OR REPLACE INTO stats VALUES (?, ?)", statuses)
            if keep is not None:
                self._prune("files", "key", keep)
                self._prune("stats", "status", keep)

    def _prune(self, table: str, column: str, keep: set[bytes]) -> None:
        """Drop a table's rows of keys no file has any more, once they outnumber the live ones."""
        (count,) = self._db.execute(f"SELECT count(*) FROM {table}").fetchone()
        if count > 2 * len(keep) + PRUNE_SLACK:
            stale = [
                (row,)
                for row, key in self._db.execute(f"SELECT {column}, key FROM {table}")
                if key not in keep
            ]
            self._db.executemany(f"DELETE FROM {table} WHERE {column} = ?", stale)

    def recall(self) -> tuple[set[bytes], list[KeyPair]]:
        """The last near-duplicate search: the keys it covered and the pairs among them (none when
        there is none or it cannot be read; the search then starts from scratch)."""
        with contextlib.suppress(sqlite3.Error, ValueError, TypeError, IndexError):
            row = self._db.execute("SELECT keys, pairs FROM search").fetchone()
            if row is not None:
                blob, text = row
                keys = [blob[i : i + _KEY_BYTES] for i in range(0, len(blob), _KEY_BYTES)]
                pairs = [(keys[i], keys[j], float(score)) for i, j, score in json.loads(text)]
                return set(keys), pairs
        return set(), []

    def remember(self, keys: list[bytes], pairs: list[KeyPair]) -> None:
        """Keep a near-duplicate search: the keys it covered and the pairs it found among them."""
        position = {key: i for i, key in enumerate(keys)}
        text = json.dumps([[position[a], position[b], score] for a, b, score in pairs])
        with contextlib.suppress(sqlite3.Error), self._db:
            self._db.execute("INSERT OR REPLACE INTO search VALUES (0, ?, ?)", (b"".join(keys), text))

    def close(self) -> None:
        self._db.close()


def _open(path: Path) -> sqlite3.Connection:
    """The cache database; a damaged one, or one of another FORMAT, is started afresh (it only ever
    holds derived data)."""
    for attempt in (1, 2):
        db = sqlite3.connect(path, timeout=10)
        try:
            (version,) = db.execute("PRAGMA user_version").fetchone()
            if version != FORMAT:
                drop = "DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS search; DROP TABLE IF EXISTS stats;"
                db.executescript(f"BEGIN IMMEDIATE; {drop} {_TABLES} PRAGMA user_version = {FORMAT}; COMMIT;")
            return db
        except sqlite3.DatabaseError:
            db.close()
            if attempt == 2:
                raise
            path.unlink()
    raise AssertionError("unreachable")


def _encode(result: Result) -> tuple[object, ...]:
    findings = json.dumps([astuple(f) for f in result.findings])
    entry = result.entry
    if entry is None:  # a file that could not be loaded: the entry's nine columns are NULL
        return (findings, *result.tally, *[None] * 9)
    return (
        findings,
        *result.tally,
        entry.path,
        entry.question_id,
        entry.tombstone,
        *entry.id_at,
        *entry.scenario_at,
        entry.shingles,
        entry.signature,
    )


def _decode(row: Any) -> Result | None:
    """A row's result, or None for one this version cannot read (a miss, never an error)."""
    key, findings, equations, checked, failed, path, question_id, tombstone, *at, shingles, signature = row
    try:
        found = [
            Finding(p, line, col, code, name, Severity(sev), msg, qid)
            for p, line, col, code, name, sev, msg, qid in ([] if findings == "[]" else json.loads(findings))
        ]
    except (ValueError, TypeError):
        return None
    entry = None
    if path is not None:
        if not (isinstance(shingles, bytes) and len(shingles) % 8 == 0):
            return None
        if not (signature is None or isinstance(signature, bytes) and len(signature) == HASHES * 4):
            return None
        id_line, id_column, scenario_line, scenario_column = at
        entry = BankEntry(
            path,
            question_id,
            bool(tombstone),
            (id_line, id_column),
            (scenario_line, scenario_column),
            shingles,
            signature,
            key,
        )
    return Result(found, entry, (equations, checked, failed))


def _secret() -> bytes:
    """32 random bytes kept outside every repository, made once per user."""
    home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    path = Path(home) / "qbank" / "secret"
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise Unavailable(f"audit cache off: cannot read {path}: {exc}") from None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(os.urandom(32))
    except FileExistsError:
        pass  # another run made it first
    except OSError as exc:
        raise Unavailable(f"audit cache off: cannot write {path}: {exc}") from None
    return path.read_bytes()


def _config(bank: Path) -> bytes:
    """A digest of everything besides the file that a file's result depends on."""
    digest = hashlib.blake2b(digest_size=32)
    # byte order too: shingles and signatures are kept as machine integers
    digest.update(
        f"{FORMAT} {sys.version} {sys.byteorder} {bank.resolve()} ftz={_flushes_subnormals()}".encode()
    )
    digest.update(" ".join(_installed(_LIBRARIES)).encode())
    package = Path(__file__).parent
    for base, files in ((package, _files(package, {".py", ".yaml"})), (bank, _bank_config(bank))):
        for file in files:
            digest.update(file.relative_to(base).as_posix().encode() + b"\0" + file.read_bytes())
    return digest.digest()


def _installed(projects: tuple[str, ...]) -> list[str]:
    """The `.dist-info` (or `.egg-info`) names, project and version, of these projects on sys.path: what
    importlib.metadata.version reads, without importing it and its email parser (about 70 ms of a
    warm audit). Names are compared normalised (PEP 503: `PyYAML`, `pyyaml`, `pydantic_core`)."""
    wanted = {_normal(p) for p in projects}
    found = []
    for folder in sys.path:
        with contextlib.suppress(OSError):
            found += [
                name
                for name in os.listdir(folder or ".")
                if name.endswith((".dist-info", ".egg-info")) and _normal(name.split("-")[0]) in wanted
            ]
    return sorted(found)


def _normal(project: str) -> str:
    return re.sub(r"[-_.]+", "-", project).lower()


def _flushes_subnormals() -> bool:
    """Whether this process runs with FTZ/DAZ set (the numeric check then refuses to run, research
    P13). Python floats use the same unit; values come from strings so nothing is folded at compile
    time, and numpy is not imported for it."""
    tiny, smallest_normal = float("5e-324"), float("2.2250738585072014e-308")
    return tiny * 1.0 == 0 or smallest_normal / 2 == 0


def _bank_config(bank: Path) -> Iterator[Path]:
    for folder in ("schema", "evidence"):
        yield from _files(bank / folder, None)


def _files(folder: Path, suffixes: set[str] | None) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and (suffixes is None or p.suffix in suffixes))
