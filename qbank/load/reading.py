"""Safe file reading: a regular file's bytes with bare system calls, never waiting on a FIFO, and
the YAML files of a folder, in a stable order, with every folder the walk cannot enter said aloud."""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from qbank.finding import Finding
from qbank.load.rules import MAX_BYTES, file_too_large, unreadable_file


def read(path: str | os.PathLike[str], shown: str) -> bytes | Finding:
    """A file's bytes, or why they cannot be had (unreadable, too large)."""
    try:
        data, _ = read_regular(path, MAX_BYTES + 1)
    except OSError as exc:
        return unreadable_file(shown, exc)
    return file_too_large(shown) if len(data) > MAX_BYTES else data


class NotRegular(OSError):
    """What read_regular raises for a FIFO, socket, device or folder."""


def read_regular(path: str | os.PathLike[str], limit: int, flags: int = 0) -> tuple[bytes, os.stat_result]:
    """Up to `limit` bytes of a regular file and its status, with bare system calls: half the time of
    `open()` and its buffered reader (benchmarks/README.md, reads). `flags`
    adds to the open flags (`qbank fix` adds O_NOFOLLOW)."""
    # O_NONBLOCK: opening a FIFO does not wait for a writer (it has no effect on regular files)
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0) | flags)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise NotRegular(errno.EINVAL, "not a regular file")
        chunks: list[bytes] = []
        size = 0
        while size < limit:
            # Ask for what fstat counted and one byte more: os.read allocates all it is asked for,
            # and asking for 256 KiB each time took three times as long. A file that grew is read
            # on, 64 KiB at a time.
            want = min(limit - size, status.st_size + 1 - size if size < status.st_size else 65536)
            chunk = os.read(fd, want)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size == status.st_size and len(chunk) < want:
                break  # the byte more is not there: the end, without one more read() to say so
        return b"".join(chunks), status
    finally:
        os.close(fd)


YAML_SUFFIXES = (".yaml", ".yml")


def iter_yaml_files(root: Path) -> Iterator[Path]:
    """Every *.yaml / *.yml file under `root`, in a stable order; and, so that nothing is skipped
    unsaid, every folder the walk cannot list, does not enter (a link to a folder) or that is named
    like a question file. The engine reports those instead of reading them."""
    unlisted: list[OSError] = []
    for dirpath, dirnames, filenames in os.walk(root, onerror=unlisted.append):
        dirnames.sort()
        folder = Path(dirpath)  # once per folder: making a Path costs more than reading a small file
        for name in sorted(filenames):
            if name.endswith(YAML_SUFFIXES):
                yield folder / name
        for name in dirnames:
            if name.endswith(YAML_SUFFIXES) or os.path.islink(os.path.join(dirpath, name)):
                yield folder / name
        for error in unlisted:
            yield Path(error.filename)
        unlisted.clear()
