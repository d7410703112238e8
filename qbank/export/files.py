"""Writing exports safely: atomic files, and an output folder qbank only ever cleans up after itself.

A site folder holds a manifest (`.qbank-site`) of the files the last export wrote, each with the
SHA-256 of the bytes it wrote (`sha256sum` format, so `sha256sum -c .qbank-site` checks a copy). The
manifest is only a claim: anyone can write one (a pull request can commit one to a bank's root), so
a file counts as ours only when all of these hold: its name is one the site writer makes (its
layout, given by the writer as `owned`), it is a plain file below `--out` reached without `..` or a
link, and the manifest lists it with the SHA-256 it holds now. Only such a file is replaced, or
removed when this export no longer writes it; a manifest line outside the layout is ignored and
reported. A file at a name the export writes that is not proven ours stops the export before
anything is written (a user's own index.html, a page they edited).

Refused outright, before the audit starts: an `--out` that is, or holds, the bank being exported,
one inside its questions/ or schema/, or a folder (or one of the site's folders in it) holding
`.git`, `questions` or `schema`, which marks a repository or a bank root; a folder that is neither
empty nor a qbank site; and a link where a file or folder would go, as it could lead anywhere. A
single-file export (JSON, SQLite, Anki) replaces only a file that is an earlier export of the same
kind, or any plain file with `--force`; never a link, a folder or a device.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from qbank import load

MANIFEST = ".qbank-site"
# A page's manifest line is 91 bytes (64 hex digits, two spaces, q/<id>.html): 10,000 questions, 0.9 MB.
MAX_MANIFEST = 64 * 1024 * 1024
HELD = 16 * 1024 * 1024  # bytes: a file up to this size is read whole to hash it, a larger one streamed
ROOT_MARKERS = (".git", "questions", "schema")  # a repository's root, or a bank's (taxonomy.find_bank_root)
_DIGEST = re.compile("[0-9a-f]{64}")


class OutputError(Exception):
    """The output cannot be written where it was asked (a usage error, exit 2)."""


@contextmanager
def atomic(path: Path) -> Iterator[Path]:
    """A temporary file beside `path` to write; renamed onto `path` when the block succeeds, removed
    when it fails. A reader never sees half a file, and a failed export leaves the old one."""
    _replaceable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, name = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    temporary = Path(name)
    try:
        yield temporary
        os.chmod(temporary, 0o644)  # mkstemp creates 0600; exports are meant to be read
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


def _replaceable(path: Path) -> None:
    """Refuse a link (renaming onto it would replace someone's link, which may point anywhere) and
    anything but a plain file (a folder, a device)."""
    if path.is_symlink() or (path.exists() and not path.is_file()):
        raise OutputError(f"{path}: a link or not a plain file; qbank replaces only plain files")


def write_atomic(path: Path, data: bytes) -> None:
    with atomic(path) as temporary:
        temporary.write_bytes(data)


@dataclass(frozen=True)
class Previous:
    """What the manifest in an output folder claims an earlier export wrote."""

    recorded: dict[str, str]  # relative path -> SHA-256 of what it wrote; names in the layout only
    ignored: tuple[str, ...] = ()  # names outside the layout: never replaced nor removed (reported)
    proofs: dict[str, Proof] = field(default_factory=dict)  # name -> its proof, the seal checked: PROOFS


def previous_files(out: Path, owned: Callable[[str], bool], secret: bytes | None = None) -> Previous:
    """The manifest's claims for `out`, split by `owned` (is this a name the writer makes?), and the
    last export's proofs where their seal holds with `secret`; nothing recorded for a new or empty
    folder.

    Raises OutputError for anything else: a link, a file, or a folder with content qbank did not make.
    """
    if not out.exists() and not out.is_symlink():
        return Previous({})
    if out.is_symlink() or not out.is_dir():
        raise OutputError(f"{out}: not a folder")
    manifest = out / MANIFEST
    if manifest.is_file() and not manifest.is_symlink():
        claimed = _read_manifest(manifest)
        mine = {name: digest for name, digest in claimed.items() if owned(name)}
        ignored = tuple(name for name in claimed if name not in mine)
        proofs = _read_proofs(out / PROOFS, secret) if secret is not None else {}
        return Previous(mine, ignored, proofs)
    if any(out.iterdir()):
        raise OutputError(f"{out}: not empty, and not a site qbank exported; give an empty or new folder")
    return Previous({})


def refuse_roots(out: Path, bank: Path | None, folders: Iterable[str]) -> None:
    """Refuse an `--out` whose files are the user's work rather than a place for an export: the bank
    (or a folder above it), its questions/ or schema/, or a folder that holds a repository's or a
    bank's root marker, itself or in one of the site's own `folders` (a forged manifest there would
    otherwise let the export replace files of the tree)."""
    where = out.resolve()
    if bank is not None:
        home = bank.resolve()
        if home.is_relative_to(where):
            raise OutputError(f"{out}: refused: it is, or holds, the bank being exported ({home})")
        for part in ("questions", "schema"):
            if where.is_relative_to(home / part):
                raise OutputError(f"{out}: refused: inside the bank's {part}/ folder")
    for folder in (".", *folders):
        for marker in ROOT_MARKERS:
            if os.path.lexists(out / folder / marker):
                raise OutputError(
                    f"{out / folder}: refused: it holds {marker}, the mark of a repository or a bank; "
                    "give a folder of the site's own"
                )


@dataclass(frozen=True)
class Proven:
    marks: dict[str, str]  # name -> mark of each file there, all proven ours
    vouched: frozenset[str]  # of those, the files proven by their proofs, without reading them


def refuse_unproven(
    out: Path,
    names: Iterable[str],
    previous: Previous,
    mark_of: Callable[[bytes], str] = lambda head: "",
) -> Proven:
    """Refuse when a file already at one of `names` (those this export writes) is not proven ours:
    not in the manifest, or holding other bytes than the manifest says (changed since). Each folder
    is checked for links once, not once a file, with bare reads rather than pathlib's resolve()
    for each file (benchmarks/README.md, site manifest). A file whose status the last export
    vouched for (previous.proofs) is not read. Returns the mark of each file there, all proven
    ours: the one the last export recorded with its proof, else `mark_of` its first HEAD bytes (the
    site's page key)."""
    plain: dict[str, bool] = {}  # folder name -> a plain folder below `out`
    marks: dict[str, str] = {}
    vouched = set()
    prefix = os.path.join(out, "")  # a str: os.path.join for each of 10,000 names took a tenth of this
    for name in names:
        path = prefix + name
        found = _proven(path, name, previous)
        if found is not None:
            vouched.add(name)
        else:
            read = _digest_of(path)
            if read is None:
                continue
            found = read[0], mark_of(read[1])
        digest, marks[name] = found
        folder = name.rpartition("/")[0]
        if folder not in plain:
            plain[folder] = _plain_below(out / folder, out)
        if previous.recorded.get(name) is None or not _safe_name(name) or not plain[folder]:
            reason = f"not written by qbank (no line for it in {MANIFEST})"
        elif digest != previous.recorded[name]:
            reason = f"changed since qbank wrote it (its SHA-256 is not the one in {MANIFEST})"
        else:
            continue
        raise OutputError(f"{out / name}: {reason}; not replaced: move it away, or give another --out")
    return Proven(marks, frozenset(vouched))


# --- proofs: a file's status, vouched for by the last export -------------------------------------
#
# Proving 10,000 pages ours by their SHA-256 reads them all: most of a warm site export
# (benchmarks/export_site.py). So an export also writes PROOFS: for each file it wrote, its name,
# its SHA-256, a mark (the site's page key) and its status: device, inode, size, mtime and ctime,
# as git's index keeps them (Documentation/technical/racy-git.txt); and, on the first line, a seal:
# a MAC of all the lines (BLAKE2b keyed with the secret beside qbank's caches, never in a
# repository). A file whose status is still the one its line gives holds the bytes that line says,
# unless someone changed it and put all five back, which ctime forbids (no program sets it). A
# line is written only for a file last changed SETTLED_NS before, so that an edit in the same tick
# of a coarse clock cannot keep its status. Without the secret nobody can write a seal that holds:
# a forged or edited PROOFS file proves nothing, and a missing or stale line only means reading the
# file, as before. One seal rather than a MAC for each file: checking 10,000 MACs took 0.1 s of a
# warm export, the seal 4 ms.

PROOFS = ".qbank-site-proofs"
SETTLED_NS = 2_000_000_000
_SEAL = re.compile(rb"qbank site proofs, sealed ([0-9a-f]{64})\n")


class Proof(NamedTuple):  # (a tuple: 10,000 dataclasses took 15 ms to make)
    digest: str  # SHA-256 of the file
    mark: str  # the site's page key, or "-"
    status: str  # status_of the file


def status_of(info: os.stat_result) -> str:
    """A file's status as git's index compares it (device, inode, size, mtime, ctime): any write
    changes it (Documentation/technical/racy-git.txt)."""
    return f"{info.st_dev} {info.st_ino} {info.st_size} {info.st_mtime_ns} {info.st_ctime_ns}"


def _seal(secret: bytes, body: bytes) -> str:
    return hashlib.blake2b(body, key=secret[:64], digest_size=32).hexdigest()


def _proven(path: str, name: str, previous: Previous) -> tuple[str, str] | None:
    """(SHA-256, mark) of the file at `path` if its proof holds, without reading it; else None."""
    proof = previous.proofs.get(name)
    if proof is None or proof.digest != previous.recorded.get(name):
        return None
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode) or status_of(info) != proof.status:
        return None
    return proof.digest, "" if proof.mark == "-" else proof.mark


def _read_proofs(path: Path, secret: bytes) -> dict[str, Proof]:
    """The proofs at `path`, if their seal holds with `secret`; else none."""
    try:
        data, _ = load.read_regular(path, MAX_MANIFEST, getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return {}
    head = _SEAL.match(data)
    if head is None:
        return {}
    body = data[head.end() :]
    if not hmac.compare_digest(head[1].decode(), _seal(secret, body)):
        return {}
    # Lines as _write_proofs writes them (the seal says it wrote these): split, not matched (a
    # regular expression took twice as long).
    lines = (line.split("  ", 3) for line in body.decode("utf-8", "surrogateescape").splitlines())
    return {fields[3]: Proof(*fields[:3]) for fields in lines if len(fields) == 4}


def _write_proofs(
    out: Path, written: dict[str, str], previous: Previous, proven: Proven, secret: bytes
) -> None:
    """A proof for each settled file written or kept (a kept file whose proof held keeps it: its
    status is the one the proof was made from), under their seal."""
    settled = time.time_ns() - SETTLED_NS
    lines = []
    marks = proven.marks
    prefix = os.path.join(out, "")
    for name in sorted(written):
        digest, mark, status = written[name], marks.get(name, ""), None
        old = previous.proofs.get(name)
        if name in proven.vouched and old and (digest, mark or "-") == (old.digest, old.mark):
            status = old.status
        else:
            with contextlib.suppress(OSError):
                info = os.lstat(prefix + name)
                if stat.S_ISREG(info.st_mode) and max(info.st_mtime_ns, info.st_ctime_ns) < settled:
                    status = status_of(info)
        if status is not None:
            lines.append(f"{digest}  {mark or '-'}  {status}  {name}\n")
    body = "".join(lines).encode("utf-8", "surrogateescape")
    write_atomic(out / PROOFS, b"qbank site proofs, sealed %s\n" % _seal(secret, body).encode() + body)


HEAD = 1024  # bytes of a file refuse_unproven returns


def _digest_of(path: str) -> tuple[str, bytes] | None:
    """The SHA-256 of the plain file at `path` and its first HEAD bytes; None when there is none.
    Read without following a link or waiting on a FIFO (load.read_regular); a link or anything
    else there is refused."""
    try:
        data, status = load.read_regular(path, HELD, getattr(os, "O_NOFOLLOW", 0))
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError:  # ELOOP (a link, dangling or not), or not a regular file
        _replaceable(Path(path))
        raise
    if len(data) < status.st_size:  # a large file: hashed as a stream rather than held in memory
        return _sha256(Path(path)), data[:HEAD]
    return hashlib.sha256(data).hexdigest(), data[:HEAD]


def refuse_foreign(out: Path, is_export: Callable[[Path], bool], kind: str, force: bool) -> None:
    """Refuse to replace `out` unless it is new, an earlier export of this `kind`, or `force` is given;
    a link or anything but a plain file is refused even then."""
    _replaceable(out)
    if force or not os.path.lexists(out) or is_export(out):
        return
    raise OutputError(
        f"{out}: refused: it exists and is not a qbank {kind} export; give another --out, "
        "or --force to replace it"
    )


def _read_manifest(manifest: Path) -> dict[str, str]:
    """`sha256  name` lines; any other line (an older manifest's bare name) names nothing to remove."""
    try:
        data, _ = load.read_regular(manifest, MAX_MANIFEST + 1, getattr(os, "O_NOFOLLOW", 0))
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        raise OutputError(f"{manifest}: not a manifest qbank wrote; give an empty or new folder") from None
    if len(data) > MAX_MANIFEST:
        raise OutputError(f"{manifest}: over {MAX_MANIFEST} bytes, not a manifest qbank wrote")
    recorded = {}
    for line in text.splitlines():
        digest, _, name = line.partition("  ")
        if _DIGEST.fullmatch(digest) and name:
            recorded[name] = digest
    return recorded


def finish(
    out: Path,
    written: dict[str, str],
    previous: Previous,
    proven: Proven | None = None,
    secret: bytes | None = None,
) -> None:
    """Record what this export wrote (name -> SHA-256 of the bytes written) and, with `secret`, the
    proofs of those files (with their marks: `proven`, the marks of this export's files), then remove
    what the previous one wrote and this one did not, where the file still holds the bytes the
    previous export wrote."""
    _record(out, written)
    if secret is not None:
        _write_proofs(out, written, previous, proven or Proven({}, frozenset()), secret)
    keep = set(written)
    for name, digest in previous.recorded.items():
        stale = _own_file(out, name) if name not in keep else None
        if stale is not None and _sha256(stale) == digest:
            stale.unlink()


def record_interrupted(out: Path, planned: list[str], previous: Previous) -> None:
    """After an export failed part way (Ctrl-C, a full disk): record what it may have written, so the
    next export can prove those files ours. Sound because refuse_unproven let it start only when each
    planned file was absent or proven ours: whatever is at a planned name now is the export's.
    Best effort: the error that stopped the export is the one to report."""
    recorded = dict(previous.recorded)
    for name in planned:
        if _own_file(out, name) is not None:
            recorded[name] = _sha256(out / name)
    with contextlib.suppress(OSError, OutputError):
        _record(out, recorded)


def _record(out: Path, digests: dict[str, str]) -> None:
    lines = "".join(f"{digests[name]}  {name}\n" for name in sorted(digests))
    write_atomic(out / MANIFEST, lines.encode())


def _sha256(path: Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def _own_file(out: Path, name: str) -> Path | None:
    """`out/name`, if a manifest line could have named it: a plain file below `out`, reached without
    `..` or a link (never `../x`, `/etc/x`, a file through a linked folder, nor the manifest)."""
    path = out / name
    return path if _safe_name(name) and _plain_below(path, out) and path.is_file() else None


def _safe_name(name: str) -> bool:
    """Relative, with no `..` and no NUL, and not the manifest: by string operations, as
    PurePosixPath would read the name (it took a tenth of a warm site export, once per page). A
    name with no empty part, none that starts with a dot and no NUL is its own parts (every name
    of a site's layout): only its being the manifest is left to ask."""
    if not (name.startswith((".", "/")) or "/." in name or "//" in name or "\0" in name):
        return name not in (MANIFEST, PROOFS)
    parts = [part for part in name.split("/") if part not in ("", ".")]
    return not (
        name.startswith("/") or ".." in parts or "\0" in name or "/".join(parts) in (MANIFEST, PROOFS)
    )


def _plain_below(path: Path, out: Path) -> bool:
    """`path` is `out` or below it with no link on the way, so it is where its name says."""
    return path.resolve() == out.resolve() / path.relative_to(out)


def real_folder(folder: Path, out: Path) -> Path:
    """`folder` (under `out`) made if missing; refused when it, or a folder on the way to it, is a
    link, or when it is a file, so that nothing is written through it to somewhere else."""
    if (folder.exists() and not folder.is_dir()) or not _plain_below(folder, out):
        raise OutputError(f"{folder}: not a plain folder inside {out}")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
