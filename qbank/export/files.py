"""Writing exports safely: atomic files, and an output folder qbank only ever cleans up after itself.

A site folder holds a manifest (`.qbank-site`) of the files the last export wrote. A new export
into it removes only files named there that it no longer writes; any other file is left alone. A
folder that is neither empty nor a qbank site is refused, so a mistyped `--out` cannot bury or
delete someone's files.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

MANIFEST = ".qbank-site"


class OutputError(Exception):
    """The output cannot be written where it was asked (a usage error, exit 2)."""


@contextmanager
def atomic(path: Path) -> Iterator[Path]:
    """A temporary file beside `path` to write; renamed onto `path` when the block succeeds, removed
    when it fails. A reader never sees half a file, and a failed export leaves the old one."""
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


def write_atomic(path: Path, data: bytes) -> None:
    with atomic(path) as temporary:
        temporary.write_bytes(data)


def previous_files(out: Path) -> list[str]:
    """The files an earlier export wrote into `out` (relative paths); [] for a new or empty folder.

    Raises OutputError for anything else: a file, or a folder with content qbank did not make.
    """
    if not out.exists() and not out.is_symlink():
        return []
    if out.is_symlink() or not out.is_dir():
        raise OutputError(f"{out}: not a folder")
    manifest = out / MANIFEST
    if manifest.is_file() and not manifest.is_symlink():
        return [line for line in manifest.read_text(encoding="utf-8").splitlines() if line]
    if any(out.iterdir()):
        raise OutputError(f"{out}: not empty, and not a site qbank exported; give an empty or new folder")
    return []


def finish(out: Path, written: list[str], previous: list[str]) -> None:
    """Record what this export wrote, then remove what the previous one wrote and this one did not."""
    write_atomic(out / MANIFEST, "".join(f"{name}\n" for name in sorted(written)).encode())
    keep = set(written)
    for name in previous:
        stale = out / name
        if name not in keep and _inside(stale, out) and stale.is_file() and not stale.is_symlink():
            stale.unlink()


def _inside(path: Path, folder: Path) -> bool:
    """A manifest line cannot name a file outside the folder (`../x`, `/etc/x`, a linked folder)."""
    return path.resolve().is_relative_to(folder.resolve())


def real_folder(folder: Path, out: Path) -> Path:
    """`folder` (under `out`) made if missing; refused when it is a link or a file, so that nothing
    is written through it to somewhere else."""
    if folder.is_symlink() or (folder.exists() and not folder.is_dir()) or not _inside(folder, out):
        raise OutputError(f"{folder}: not a plain folder inside {out}")
    folder.mkdir(parents=True, exist_ok=True)
    return folder
