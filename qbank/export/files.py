"""Writing exports safely: atomic files, and an output folder qbank only ever cleans up after itself.

A site folder holds a manifest (`.qbank-site`) of the files the last export wrote, each with the
SHA-256 of the bytes it wrote (`sha256sum` format, so `sha256sum -c .qbank-site` checks a copy). A
new export into it removes a file named there only when this export no longer writes it and the
file still holds those bytes: a file someone added or changed is left alone. A folder that is
neither empty nor a qbank site is refused, so a mistyped `--out` cannot bury or delete someone's
files. Nothing is written or removed through a symbolic link: a link where a file or folder would
go is refused, as it could lead anywhere.
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path, PurePosixPath

MANIFEST = ".qbank-site"
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


def previous_files(out: Path) -> dict[str, str]:
    """The files an earlier export wrote into `out` (relative path -> SHA-256 of what it wrote);
    {} for a new or empty folder.

    Raises OutputError for anything else: a link, a file, or a folder with content qbank did not make.
    """
    if not out.exists() and not out.is_symlink():
        return {}
    if out.is_symlink() or not out.is_dir():
        raise OutputError(f"{out}: not a folder")
    manifest = out / MANIFEST
    if manifest.is_file() and not manifest.is_symlink():
        return _read_manifest(manifest)
    if any(out.iterdir()):
        raise OutputError(f"{out}: not empty, and not a site qbank exported; give an empty or new folder")
    return {}


def _read_manifest(manifest: Path) -> dict[str, str]:
    """`sha256  name` lines; any other line (an older manifest's bare name) names nothing to remove."""
    try:
        text = manifest.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise OutputError(f"{manifest}: not a manifest qbank wrote; give an empty or new folder") from None
    recorded = {}
    for line in text.splitlines():
        digest, _, name = line.partition("  ")
        if _DIGEST.fullmatch(digest) and name:
            recorded[name] = digest
    return recorded


def finish(out: Path, written: list[str], previous: dict[str, str]) -> None:
    """Record what this export wrote, then remove what the previous one wrote and this one did not,
    where the file still holds the bytes the previous export wrote."""
    lines = "".join(f"{_sha256(out / name)}  {name}\n" for name in sorted(written))
    write_atomic(out / MANIFEST, lines.encode())
    keep = set(written)
    for name, digest in previous.items():
        stale = _own_file(out, name) if name not in keep else None
        if stale is not None and _sha256(stale) == digest:
            stale.unlink()


def _sha256(path: Path) -> str:
    with path.open("rb") as file:
        return hashlib.file_digest(file, "sha256").hexdigest()


def _own_file(out: Path, name: str) -> Path | None:
    """`out/name`, if a manifest line could have named it: a plain file below `out`, reached without
    `..` or a link (never `../x`, `/etc/x`, a file through a linked folder, nor the manifest)."""
    relative = PurePosixPath(name)
    if relative.is_absolute() or ".." in relative.parts or "\0" in name or str(relative) == MANIFEST:
        return None
    path = out / relative
    return path if _plain_below(path, out) and path.is_file() else None


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
