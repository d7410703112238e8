"""The audit cache: what the per-file checks found in a file, kept in `.qbank-cache/` at the bank's
root, so that a second audit only re-checks the files that changed.

A file's entry is keyed by its bytes, its path as findings show it, and a digest of everything
else its result depends on: qbank's own code and data, the versions of the libraries that compute
results, and the bank's schema/ and evidence/ folders. Any change there misses every entry.

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
import sqlite3
import sys
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import astuple, dataclass
from importlib import metadata
from pathlib import Path

from qbank.checks.bank import BankEntry
from qbank.finding import Finding, Severity

FOLDER = ".qbank-cache"
FORMAT = 1  # bump when what an entry holds changes
_LIBRARIES = ("pydantic", "pydantic-core", "PyYAML", "numpy", "ml_dtypes")


class Unavailable(Exception):
    """No cache this run (the reason is shown as a note); the audit runs without one."""


@dataclass(frozen=True, slots=True)
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
        digest = hashlib.blake2b(key=self._salt, digest_size=20)
        digest.update(display.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(data)
        return digest.digest()

    def get(self, keys: list[bytes]) -> dict[bytes, Result]:
        found: dict[bytes, Result] = {}
        with contextlib.suppress(sqlite3.Error):  # unreadable: every file is a miss
            for first in range(0, len(keys), 900):  # SQLite's bound-parameter limit
                chunk = keys[first : first + 900]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT key, entry, shingles FROM files WHERE key IN ({marks})", chunk
                )
                for key, text, shingles in rows:
                    result = _decode(text, shingles)
                    if result is not None:
                        found[key] = result
        return found

    def put(self, results: Iterable[tuple[bytes, Result]], keep: set[bytes]) -> None:
        """Store new results; drop entries no file has any more once they outnumber the live ones."""
        with contextlib.suppress(sqlite3.Error), self._db:
            rows = [(key, *_encode(result)) for key, result in results]
            self._db.executemany("INSERT OR REPLACE INTO files VALUES (?, ?, ?)", rows)
            (count,) = self._db.execute("SELECT count(*) FROM files").fetchone()
            if count > 2 * len(keep) + 1000:
                stale = [key for (key,) in self._db.execute("SELECT key FROM files") if key not in keep]
                self._db.executemany("DELETE FROM files WHERE key = ?", [(k,) for k in stale])

    def close(self) -> None:
        self._db.close()


def _open(path: Path) -> sqlite3.Connection:
    """The cache database; a damaged one is started afresh (it only ever holds derived data)."""
    for attempt in (1, 2):
        db = sqlite3.connect(path, timeout=10)
        try:
            db.execute("CREATE TABLE IF NOT EXISTS files (key BLOB PRIMARY KEY, entry TEXT, shingles BLOB)")
            return db
        except sqlite3.DatabaseError:
            db.close()
            if attempt == 2:
                raise
            path.unlink()
    raise AssertionError("unreachable")


def _encode(result: Result) -> tuple[str, bytes]:
    entry = result.entry
    head = (
        None if entry is None else [*astuple(entry)[:5], entry.signature.hex() if entry.signature else None]
    )
    findings = [astuple(f) for f in result.findings]
    shingles = array("q", sorted(entry.shingles)).tobytes() if entry else b""
    return json.dumps([FORMAT, findings, head, result.tally]), shingles


def _decode(text: str, shingles: bytes) -> Result | None:
    """An entry, or None for one this version cannot read (a miss, never an error)."""
    try:
        version, findings, head, tally = json.loads(text)
        if version != FORMAT:
            return None
        entry = None
        if head is not None:
            path, question_id, tombstone, id_at, scenario_at, signature = head
            members = frozenset(array("q", shingles))
            raw = bytes.fromhex(signature) if signature else None
            entry = BankEntry(path, question_id, tombstone, tuple(id_at), tuple(scenario_at), members, raw)
        found = [
            Finding(p, line, col, code, name, Severity(sev), msg, qid)
            for p, line, col, code, name, sev, msg, qid in findings
        ]
        equations, checked, failed = tally
        return Result(found, entry, (equations, checked, failed))
    except (ValueError, TypeError):
        return None


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
    digest.update(f"{FORMAT} {sys.version} {bank.resolve()} ftz={_flushes_subnormals()}".encode())
    for name in _LIBRARIES:
        with contextlib.suppress(metadata.PackageNotFoundError):
            digest.update(f" {name}={metadata.version(name)}".encode())
    package = Path(__file__).parent
    for base, files in ((package, _files(package, {".py", ".yaml"})), (bank, _bank_config(bank))):
        for file in files:
            digest.update(file.relative_to(base).as_posix().encode() + b"\0" + file.read_bytes())
    return digest.digest()


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
