"""The audit cache's database: what the per-file checks found in a file, kept outside the bank, so
that a second audit only re-checks the files that changed. The pipeline sees it through
qbank/engine/cache.py.

A file's entry is keyed by its bytes, its path as findings show it, and a digest of everything
else its result depends on: qbank's own code and data, the versions of the libraries that compute
results, and the bank's schema/ and evidence/ folders. Any change there misses every entry.

It also keeps the last near-duplicate search of a large bank (the similar.Memory): the keys of the
questions it covered and the pairs it found among them, so that the next audit searches only the
files that changed.

Where: `$XDG_CACHE_HOME/qbank/banks/<the first 32 hex digits of the SHA-256 of the bank's real
path>/audit.sqlite3` (`~/.cache` when XDG_CACHE_HOME is unset or not absolute, as the XDG Base
Directory Specification says), never inside the bank: a pull request can commit any file in the bank,
and a database there with a trigger rewrote the rows qbank wrote (issue 30), a folder there that was a
link made qbank write outside the bank. A `.qbank-cache/` in the bank (where qbank 0.1 kept it) is
never read nor written.

Never trusted, never followed: the folders are made mode 0700, and the cache is off for the run (a
note says why) when qbank's folder, a folder below it or the database is a symbolic link, not a
folder (or a regular file), or another user's. The database holds nothing but qbank's own tables:
it is opened with `PRAGMA trusted_schema = OFF`, and one whose schema holds anything else (a trigger,
a view, a virtual table, other columns) is thrown away and rebuilt before a row is read. Keys are
keyed BLAKE2b hashes with a secret beside the caches (`$XDG_CACHE_HOME/qbank/secret`, mode 0600), and
entries are JSON and bytes in SQLite, never pickles, so reading one executes nothing. The key reads
schema/ and evidence/ without following a link either: one there (or a FIFO) turns the cache off,
since a loader may read where it points and a key that skipped it would miss a change there.

The cache is safe to delete.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import hashlib
import json
import os
import re
import sqlite3
import stat
import struct
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import astuple
from pathlib import Path
from typing import Any

from qbank import load, memo
from qbank.checks.api import BankEntry, KeyPair
from qbank.engine import views
from qbank.engine.per_file import Result
from qbank.engine.views import View
from qbank.finding import Finding, Severity
from qbank.similarity import HASHES

FORMAT = 12  # bump when what the database holds changes: a database of another format is started afresh
_KEY_BYTES = 20
# A file's row: its findings (JSON), napkin-math counts and BankEntry (path NULL: none), in plain
# columns: decoding one JSON document per file took a third of a warm audit's reading of the cache.
# `search` holds one row, the Memory. `stats` maps a file's path and status (a digest of them) to the
# key of its bytes, so that a warm audit need not read a file its status says is unchanged. `views`
# holds the release view an export made of a file (qbank/engine/views.py), a column per field, used
# only when shaped as views.release_view makes them, and decoded only by the export. `rendered` keeps
# text an export rendered (Anki's notes), by a key of all it was made from (Store.rendered).
# `exported` holds, for a file an export wrote (SQLite, Anki), its status then and what it was made
# from (Store.exported), so the next export may update it in place; Anki's collection is kept beside
# the database (Store.kept_path), as SQLite would write a 42 MB row twice (journal and table).
# IF NOT EXISTS: two audits that find the same new, empty database both make the tables; SQLite keeps
# each statement without those words in sqlite_master (so _schema compares them as made).
_TABLES = """
    CREATE TABLE IF NOT EXISTS files (key BLOB PRIMARY KEY, findings TEXT, equations INTEGER,
        checked INTEGER, failed INTEGER, confirmed INTEGER, path TEXT, question_id TEXT, tombstone INTEGER, id_line INTEGER,
        id_column INTEGER, scenario_line INTEGER, scenario_column INTEGER, shingles BLOB, signature BLOB,
        content BLOB);
    CREATE TABLE IF NOT EXISTS search (id INTEGER PRIMARY KEY CHECK (id = 0), keys BLOB, pairs TEXT);
    CREATE TABLE IF NOT EXISTS stats (status BLOB PRIMARY KEY, key BLOB);
    CREATE TABLE IF NOT EXISTS views (key BLOB PRIMARY KEY, status TEXT, id TEXT, content_hash TEXT,
        facts_hash TEXT, record TEXT, listing TEXT, facts TEXT, facets TEXT);
    CREATE INDEX IF NOT EXISTS views_by_content_hash ON views (content_hash);
    CREATE INDEX IF NOT EXISTS views_by_facts_hash ON views (facts_hash);
    CREATE TABLE IF NOT EXISTS rendered (key BLOB PRIMARY KEY, text TEXT);
    CREATE TABLE IF NOT EXISTS exported (path TEXT PRIMARY KEY, status BLOB, made TEXT);
"""
_COLUMNS = 16  # of files
_INSERT_VIEW = f"INSERT OR REPLACE INTO views VALUES (?{', ?' * len(View._fields)})"
_STATUS = struct.Struct("5Q")  # device, inode, size, mtime and ctime in ns
_WORD = 2**64 - 1  # each taken modulo 2**64: a time before 1970 or after 2262 (touch -d) still packs
_LIBRARIES = ("pydantic", "pydantic-core", "PyYAML", "numpy", "ml_dtypes")
_NAME_DIGITS = 32  # hex digits of the SHA-256 of a bank's real path: 128 bits, no two banks share one
_CONFIG_LIMIT = 64 * 1024 * 1024  # bytes of one schema/ or evidence/ file the key reads; past it, no cache
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)  # POSIX; Windows has none (nor symbolic links a user can make)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)  # opening a FIFO does not wait for a writer (none on Windows)
_A_LINK = "is a symbolic link, and qbank never follows one there"


_FEW = 900  # values asked for in one statement (SQLite's bound-parameter limit); _select scans for more
PRUNE_SLACK = 1000  # stale entries kept beyond the live ones before a whole-bank run drops them


class Unavailable(Exception):
    """No cache this run (the reason is shown as a note); the audit runs without one."""


class Store:
    def __init__(self, bank: Path) -> None:
        self.folder = folder_of(bank)
        top = self.folder.parents[1]  # $XDG_CACHE_HOME/qbank: the secret, and banks/
        try:
            top.parent.mkdir(parents=True, exist_ok=True, mode=0o700)  # the XDG spec's mode for it
            for folder in (top, top / "banks", self.folder):
                _private_folder(folder)
            self._salt = hashlib.blake2b(_secret(top / "secret") + _config(bank), digest_size=32).digest()
            self._db = _open(self.folder / "audit.sqlite3")
        except (OSError, sqlite3.Error) as exc:
            raise Unavailable(f"audit cache off: {exc}") from None

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

    def views(self, keys: list[bytes], texts: tuple[str, ...] = views.TEXTS) -> dict[bytes, View]:
        """The release views kept for these keys (exports), with only `texts` of their texts read (the
        others ""): 10,000 views without their texts are read in a third of the time. A row not
        shaped as views.release_view makes them is a miss, as a malformed `files` row is."""
        found: dict[bytes, View] = {}
        columns = ", ".join(f"views.{name}" if name in texts else "''" for name in views.TEXTS)
        with contextlib.suppress(sqlite3.Error):  # unreadable: every file is checked again
            rows = self._rows_of("views", keys, f"views.key, status, id, content_hash, facts_hash, {columns}")
            found = {row[0]: View(*row[1:]) for row in rows if views.well_formed(row[1:], texts)}
        return found

    def texts(self, column: str, digests: list[str]) -> dict[str, str]:
        """A text of published views (`record` or `facts`) by the digest that names it (its content
        hash, a digest of the whole record, path included; its facts hash): any view with that
        digest holds the same text. What an export left unread (Store.views) and now needs, for the
        few questions it writes again."""
        digest = {"record": "content_hash", "facts": "facts_hash"}[column]
        found: dict[str, str] = {}
        with contextlib.suppress(sqlite3.Error):  # unreadable: the export says so
            for start in range(0, len(digests), _FEW):
                wanted = digests[start : start + _FEW]
                marks = ",".join("?" * len(wanted))
                query = f"SELECT {digest}, {column} FROM views WHERE status = 'published' AND {digest} IN ({marks})"
                found |= {
                    name: text
                    for name, text in self._db.execute(query, wanted)
                    if type(text) is str and text[:1] == "{"
                }
        return found

    def rendered(self, names: list[str]) -> dict[str, str]:
        """Text an export rendered before (Anki's notes), by name: a name holds everything the text
        was made from (a content hash and a digest of the renderer), so a name found is text that
        rendering again would give. A row whose text is not text is a miss."""
        keys = {self.key("rendered", name.encode()): name for name in names}
        found: dict[str, str] = {}
        with contextlib.suppress(sqlite3.Error):  # unreadable: everything is rendered again
            found = {
                keys[key]: text for key, text in self._rows_of("rendered", list(keys)) if type(text) is str
            }
        return found

    def keep_rendered(self, made: dict[str, str], live: list[str]) -> None:
        """Keep new rendered text by name; `live`: the names of everything the export used, all
        others dropped once they outnumber those (as put prunes)."""
        key = functools.partial(self.key, "rendered")
        with contextlib.suppress(sqlite3.Error), self._db:
            rows = [(key(name.encode()), text) for name, text in made.items()]
            self._db.executemany("INSERT OR REPLACE INTO rendered VALUES (?, ?)", rows)
            self._prune("rendered", "key", lambda: {key(name.encode()) for name in live}, len(live))

    def exported(self, out: Path) -> str | None:
        """What the file an export last wrote at `out` was made from (keep_exported), if `out` is still
        that file: the same path and status (device, inode, size, mtime, ctime; see status). A write
        by anyone else changes its mtime and ctime, and then the export builds the file anew."""
        path = os.path.realpath(out)
        with contextlib.suppress(OSError, sqlite3.Error):  # gone, unreadable: built anew
            status = self.status(path, os.stat(path, follow_symlinks=False))
            row = self._db.execute(
                "SELECT made FROM exported WHERE path = ? AND status = ?", (path, status)
            ).fetchone()
            return row[0] if row and type(row[0]) is str else None
        return None

    def keep_exported(self, out: Path, made: str) -> None:
        """Record the file an export just wrote at `out`, with what it was made from."""
        path = os.path.realpath(out)
        with contextlib.suppress(OSError, sqlite3.Error), self._db:
            status = self.status(path, os.stat(path, follow_symlinks=False))
            self._db.execute("INSERT OR REPLACE INTO exported VALUES (?, ?, ?)", (path, status, made))

    def kept_path(self, name: str) -> Path:
        """Where an export keeps a file of its own in the bank's cache folder (keep_file)."""
        return self.folder / name

    def keep_file(self, name: str, data: bytes) -> os.stat_result | None:
        """Keep `data` as `name` in the bank's cache folder: written beside it and renamed into place,
        with no wait for the disk (the cache is safe to lose: a torn file is only a miss). Returns
        the kept file's status, None where it could not be kept."""
        target = self.kept_path(name)
        with contextlib.suppress(OSError):
            temporary = target.with_name(f".{name}.{os.getpid()}.tmp")
            fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW, 0o600)
            try:
                with os.fdopen(fd, "wb") as file:
                    file.write(data)
                os.replace(temporary, target)
                return os.lstat(target)  # after the rename, which changes its ctime
            finally:
                temporary.unlink(missing_ok=True)
        return None

    def _rows_of(self, table: str, keys: list[bytes], columns: str = "") -> list[Any]:
        """The `columns` (default: all) of the rows of `table` (keyed by `key`) for these keys, looked
        up through a temporary table of them, not by a scan: a row here is kilobytes, and up to half
        the rows are stale (see put). (Walking the table instead, CROSS JOIN, was 15% faster with no
        stale rows and 10% slower with half of them, 10,000 views.)"""
        with self._db:
            self._db.execute("CREATE TEMP TABLE IF NOT EXISTS wanted (key BLOB PRIMARY KEY)")
            self._db.execute("DELETE FROM temp.wanted")
            self._db.executemany("INSERT OR IGNORE INTO temp.wanted VALUES (?)", [(key,) for key in keys])
            query = f"SELECT {columns or table + '.*'} FROM temp.wanted JOIN {table} USING (key)"
            rows = self._db.execute(query).fetchall()
            self._db.execute("DELETE FROM temp.wanted")
        return rows

    def _select(self, columns: str, table: str, column: str, values: list[bytes]) -> Any:
        """A cursor over the rows of `table` whose `column` is among `values`, and for many values
        over all its rows (the caller keeps the ones it wants): one scan of the table (at most
        2x + 1,000 rows, see put) is faster than looking up thousands of keys, and a one-file hook
        run must not scan 10,000 rows to look up one."""
        if len(values) > _FEW:
            return self._db.execute(f"SELECT {columns} FROM {table}")
        marks = ",".join("?" * len(values))  # 900: under SQLite's bound-parameter limit
        return self._db.execute(f"SELECT {columns} FROM {table} WHERE {column} IN ({marks})", values)

    def put(
        self,
        results: Iterable[tuple[bytes, Result]],
        keep: set[bytes] | None,
        statuses: Iterable[tuple[bytes, bytes]] = (),
        made: Iterable[tuple[bytes, View]] = (),
    ) -> None:
        """Store new results, the (status, key) pairs of files read, and new release views (`made`). `keep`:
        the keys of every file of the bank, from a run over all of them; entries no file has any
        more are dropped once they outnumber the live ones. None: the run saw only some files, and
        drops nothing."""
        with contextlib.suppress(sqlite3.Error), self._db:
            rows = [(key, *_encode(result)) for key, result in results]
            marks = ",".join("?" * _COLUMNS)
            self._db.executemany(f"INSERT OR REPLACE INTO files VALUES ({marks})", rows)
            self._db.executemany("INSERT OR REPLACE INTO stats VALUES (?, ?)", statuses)
            rows = [(key, *view) for key, view in made if key]
            self._db.executemany(_INSERT_VIEW, rows)
            if keep is not None:
                for table, column in (("files", "key"), ("stats", "status"), ("views", "key")):
                    self._prune(table, column, lambda: keep, len(keep))

    def _prune(self, table: str, column: str, keep: Callable[[], set[bytes]], live: int) -> None:
        """Drop a table's rows of keys no file has any more (`keep` makes the live keys, `live` of
        them), once they outnumber the live ones. The keys are made only then: 10,000 keyed digests
        took 20 ms of every warm Anki export."""
        (count,) = self._db.execute(f"SELECT count(*) FROM {table}").fetchone()
        if count > 2 * live + PRUNE_SLACK:
            wanted = keep()
            stale = [
                (row,)
                for row, key in self._db.execute(f"SELECT {column}, key FROM {table}")
                if key not in wanted
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


@contextlib.contextmanager
def memory(bank: Path) -> Iterator[Store | None]:
    """The bank's cache, for what an export keeps between runs (Store.rendered), or None when the
    cache cannot be used (then everything is made afresh)."""
    try:
        kept = Store(bank)
    except Unavailable:
        yield None
        return
    try:
        yield kept
    finally:
        kept.close()


def secret() -> bytes | None:
    """The secret beside the caches, for what an export vouches for in its own folder (the site's
    proofs, qbank/export/files.py); None when qbank's cache folder cannot be used (a link, another
    user's), and then nothing is vouched for."""
    top = _user_cache() / "qbank"
    try:
        top.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        _private_folder(top)
        return _secret(top / "secret")
    except (OSError, Unavailable):
        return None


def folder_of(bank: Path) -> Path:
    """Where the cache of `bank` lives: a folder named by its real path, so the same bank reached by
    a link or a relative path shares one, and a bank moved elsewhere starts a new one."""
    name = hashlib.sha256(os.fsencode(os.path.realpath(bank))).hexdigest()[:_NAME_DIGITS]
    return _user_cache() / "qbank" / "banks" / name


def _user_cache() -> Path:
    """$XDG_CACHE_HOME, or ~/.cache when it is unset, empty or relative: "If an implementation
    encounters a relative path in any of these variables it should consider the path invalid and
    ignore it" (XDG Base Directory Specification 0.8). It may be a link (a user's ~/.cache on another
    disk): the user set it; what qbank makes below it is checked."""
    home = os.environ.get("XDG_CACHE_HOME", "")
    return Path(home if os.path.isabs(home) else os.path.join(os.path.expanduser("~"), ".cache"))


def _private_folder(folder: Path) -> None:
    """Make `folder` with mode 0700 unless it is there; refuse one that is a link, or not a folder,
    or another user's (Unavailable). A folder of ours with mode 0700 is one nobody else can change
    between this check and the use of what is inside."""
    try:
        info = os.lstat(folder)
    except FileNotFoundError:
        with contextlib.suppress(FileExistsError):  # another run made it first
            os.mkdir(folder, 0o700)
        info = os.lstat(folder)
    _own(folder, info, stat.S_ISDIR, "a folder")


def _own(path: Path, info: os.stat_result, kind: Callable[[int], bool], named: str) -> None:
    if stat.S_ISLNK(info.st_mode):
        raise Unavailable(f"audit cache off: {path} {_A_LINK}")
    if not kind(info.st_mode):
        raise Unavailable(f"audit cache off: {path} is not {named}")
    if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
        raise Unavailable(f"audit cache off: {path} is owned by another user (uid {info.st_uid})")


def _open(path: Path) -> sqlite3.Connection:
    """The cache database. One damaged, of another FORMAT, or holding any schema object qbank did not
    make is thrown away and started afresh, never used (it only ever holds derived data)."""
    for attempt in (1, 2):
        _own_file(path)
        db = sqlite3.connect(path, timeout=10)
        try:
            if _prepared(db):
                return db
        except sqlite3.DatabaseError:
            pass
        db.close()
        if attempt == 2:
            break
        _throw_away(path)
    raise Unavailable(f"audit cache off: {path} could not be made afresh")


def _throw_away(path: Path) -> None:
    """The database and its journals: a journal left beside a new database would be played into it
    (a "hot journal", https://www.sqlite.org/fileformat2.html#hot_journals)."""
    for suffix in ("", "-journal", "-wal", "-shm"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")


def _own_file(path: Path) -> None:
    """Make the database file (mode 0600) unless it is there; refuse a link (O_NOFOLLOW: ELOOP), a
    FIFO or a device (O_NONBLOCK: opening one does not wait), or another user's file."""
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | _NONBLOCK | _NOFOLLOW, 0o600)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise Unavailable(f"audit cache off: {path} {_A_LINK}") from None
        raise
    try:
        _own(path, os.fstat(fd), stat.S_ISREG, "a regular file")
    finally:
        os.close(fd)


def _prepared(db: sqlite3.Connection) -> bool:
    """Whether the database holds exactly qbank's tables, as qbank makes them, making them in one
    that holds nothing. trusted_schema OFF first: no function or virtual table a schema names runs
    (https://www.sqlite.org/pragma.html#pragma_trusted_schema); reading sqlite_master runs none."""
    db.execute("PRAGMA trusted_schema = OFF")
    if not _schema(db):
        db.executescript(f"BEGIN IMMEDIATE; {_TABLES} PRAGMA user_version = {FORMAT}; COMMIT;")
    return _schema(db) == _ours()


def _schema(db: sqlite3.Connection) -> tuple[object, ...]:
    """The database's format and every schema object (type, name, table and SQL) in it; () for a
    new, empty database."""
    (version,) = db.execute("PRAGMA user_version").fetchone()
    rows = db.execute("SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name").fetchall()
    return (version, *rows) if version or rows else ()


@memo.cached("engine.store.ours")
def _ours() -> tuple[object, ...]:
    """The schema qbank makes, as SQLite stores it (made once a process, in memory)."""
    db = sqlite3.connect(":memory:")
    try:
        db.executescript(f"{_TABLES} PRAGMA user_version = {FORMAT};")
        return _schema(db)
    finally:
        db.close()


def _encode(result: Result) -> tuple[object, ...]:
    findings = json.dumps([astuple(f) for f in result.findings])
    entry = result.entry
    if entry is None:  # a file that could not be loaded: the entry's ten columns are NULL
        return (findings, *result.tally, *[None] * 10)
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
        entry.content,
    )


def _decode(row: Any) -> Result | None:
    """A row's result, or None for one this version cannot read (a miss, never an error)."""
    (
        key,
        findings,
        equations,
        checked,
        failed,
        confirmed,
        path,
        question_id,
        tombstone,
        *at,
        shingles,
        signature,
        content,
    ) = row
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
        if not isinstance(content, bytes):
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
            content,
        )
    return Result(found, entry, (equations, checked, failed, confirmed))


def _secret(path: Path) -> bytes:
    """32 random bytes kept outside every repository, made once per user (mode 0600), never read
    through a link."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
    except FileExistsError:
        pass  # made before, or by another run just now
    else:
        with os.fdopen(fd, "wb") as handle:
            handle.write(os.urandom(32))
    try:
        data, info = load.read_regular(path, 1024, _NOFOLLOW)
    except OSError as exc:
        raise Unavailable(f"audit cache off: cannot read {path}: {exc.strerror or exc}") from None
    _own(path, info, stat.S_ISREG, "a regular file")
    return data


def _config(bank: Path) -> bytes:
    """A digest of everything besides the file that a file's result depends on."""
    digest = hashlib.blake2b(digest_size=32)
    # byte order too: shingles and signatures are kept as machine integers
    digest.update(
        f"{FORMAT} {sys.version} {sys.byteorder} {bank.resolve()} ftz={_flushes_subnormals()}".encode()
    )
    digest.update(" ".join(_installed(_LIBRARIES)).encode())
    package = Path(__file__).parent
    for file in _files(package, {".py", ".yaml"}):
        digest.update(file.relative_to(package).as_posix().encode() + b"\0" + file.read_bytes())
    for name, data in _bank_config(bank):
        digest.update(name.encode("utf-8", "surrogateescape") + b"\0" + data)
    return digest.digest()


def _installed(projects: tuple[str, ...]) -> list[str]:
    """The `.dist-info` (or `.egg-info`) names, project and version, of these projects on sys.path: what
    importlib.metadata.version reads, without importing it and its email parser (benchmarks/README.md,
    start-up). Names are compared normalised (PEP 503: `PyYAML`, `pyyaml`, `pydantic_core`)."""
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


def _bank_config(bank: Path) -> Iterator[tuple[str, bytes]]:
    """The name and bytes of every file in the bank's schema/ and evidence/ folders."""
    for name in ("schema", "evidence"):
        try:
            info = os.lstat(bank / name)
        except FileNotFoundError:
            continue
        if not stat.S_ISDIR(info.st_mode):
            _refuse_to_key(name, info.st_mode)
        yield from _tree(bank / name, name)


def _tree(folder: Path, name: str) -> Iterator[tuple[str, bytes]]:
    """The files below `folder`, each folder's in order, read without following a link (os.scandir
    tells a link, a folder and a file apart without a stat call each). A list of folders to go, not
    recursion: a pull request can nest folders deeper than Python's recursion limit."""
    pending = [(folder, name)]
    while pending:
        here, shown_here = pending.pop()
        with os.scandir(here) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
        for entry in entries:
            shown = f"{shown_here}/{entry.name}"
            if entry.is_dir(follow_symlinks=False):
                pending.append((Path(entry.path), shown))
            elif entry.is_file(follow_symlinks=False):
                yield shown, _config_file(entry.path, shown)
            else:
                _refuse_to_key(shown, entry.stat(follow_symlinks=False).st_mode)


def _config_file(path: str, shown: str) -> bytes:
    data, _ = load.read_regular(path, _CONFIG_LIMIT + 1, _NOFOLLOW)
    if len(data) > _CONFIG_LIMIT:
        raise Unavailable(f"audit cache off: {shown} is over {_CONFIG_LIMIT >> 20} MiB")
    return data


def _refuse_to_key(shown: str, mode: int) -> None:
    """A link or a FIFO in schema/ or evidence/: the key cannot read it (a FIFO would wait, a link
    could lead anywhere), and a key without it would miss a change wherever the loaders read it."""
    what = "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
    raise Unavailable(f"audit cache off: {shown} is {what}, which the cache key never reads through")


def _files(folder: Path, suffixes: set[str]) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file() and p.suffix in suffixes)
