"""Writing into the user's repository: atomically, and never through a symbolic link.

Every command that changes a file the user keeps writes through here: `fix`, `new` and `generate`
(questions), `schema` (schema/*.json) and `gpu probe` (evidence/). Exports go where `--out` says
and have their own rules (qbank/export/files.py).

Atomic: the bytes go to a temporary file in the same folder (a rename is atomic only within one
file system) and are fsynced; then the temporary file is renamed over the name (`os.replace`) or,
for a file that must not exist yet, hard-linked to it (`os.link` fails rather than overwrite), and
the folder is fsynced so that the new name survives a power cut. A process killed at any moment
leaves the old file or the new one, never a mix (tests/crash.py kills writers with SIGKILL to check
it). A leftover temporary file is named `.NAME.XXXXXXXX.tmp`: hidden, and not `*.yaml` or
`*.jsonl`, so nothing reads it as a question or as evidence.

Never through a link: a write is refused when the file, or a folder between the bank root and it,
is a symbolic link. A link committed to a repository can point anywhere (`questions/cloud ->
~/.ssh`), and a write through it would land there. A rename does not follow a link at the name
itself, but would silently turn it into a plain file, so that is refused too. The bank root is
found from the path as written, without resolving it: resolving first would step through the very
link to be refused. Outside a bank (a file fixed by an explicit path, evidence sent to `--out
/tmp/ev`) only the file itself is checked: its folders are the ones the user named.
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path


class WriteError(Exception):
    """Why a file was not written; the message names the file and is meant for the user."""


class Changed(WriteError):
    """The file changed on disk after it was read: the other edit wins, nothing is written."""


def refusal(path: Path) -> str | None:
    """Why `path` may not be written (a link on the way or at the name, not a regular file, read-only,
    one of several hard links); None if it may."""
    absolute = os.path.abspath(path)  # absolute but unresolved: the links must stay visible
    link = _link_below_root(os.path.dirname(absolute))
    if link is not None:
        return f"folder {link} is a symbolic link: qbank never writes through one"
    try:
        info = os.lstat(absolute)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return "a symbolic link: not followed (change the file it points to)"
    if not stat.S_ISREG(info.st_mode):
        return "not a regular file"
    return _kept_as_is(absolute, info)


def _kept_as_is(path: str, info: os.stat_result) -> str | None:
    """Why a regular file must be left as it is. A rename replaces the name, not the file: it would
    write over a file its owner made read-only (the mode bits are the owner's word, even to root, who
    may write anything), and would split a hard link, the other names keeping the old text."""
    if not info.st_mode & 0o222 or not os.access(path, os.W_OK):
        return "read-only: left as it is (make it writable to change it)"
    if info.st_nlink > 1:
        return (
            f"one of {info.st_nlink} hard links to one file: replacing it would split them; change it by hand"
        )
    return None


def make_folder(folder: Path) -> None:
    """Create `folder` and its missing parents, refusing when one below the bank root is a link
    (`mkdir` would otherwise create the rest wherever the link points)."""
    link = _link_below_root(os.path.abspath(folder))
    if link is not None:
        raise WriteError(f"{folder}: folder {link} is a symbolic link: qbank never writes through one")
    folder.mkdir(parents=True, exist_ok=True)


def replace(path: Path, data: bytes, expect: os.stat_result | None = None) -> None:
    """Make `path` hold exactly `data`, atomically, keeping the permission bits of the file it replaces.

    `expect` is the stat of `path` when the caller read it: if the file is no longer that one (an
    editor saved it meanwhile), Changed is raised and nothing is written.
    """
    _refuse(path)
    current = expect or _stat(path)
    temp = _temporary(path, data, stat.S_IMODE(current.st_mode) if current else _usual_mode())
    try:
        if expect is not None and _changed_since(path, expect):
            raise Changed(f"{path}: changed while qbank was writing it; left as it is")
        os.replace(temp, path)
    except BaseException:
        _remove(temp)
        raise
    _sync_folder(path.parent)


def create(path: Path, data: bytes) -> bool:
    """Make a new file `path` holding `data`, atomically; False, writing nothing, if it exists."""
    _refuse(path)
    temp = _temporary(path, data, _usual_mode())
    try:
        os.link(temp, path)  # unlike a rename, never replaces an existing file
    except FileExistsError:
        return False
    finally:
        _remove(temp)
    _sync_folder(path.parent)
    return True


def read(path: Path) -> tuple[bytes, os.stat_result | None]:
    """The bytes and stat of `path`, read without following a link; (b"", None) when it does not exist."""
    _refuse(path)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return b"", None
    with os.fdopen(fd, "rb") as handle:
        return handle.read(), os.fstat(handle.fileno())


def _sync_folder(folder: Path) -> None:
    """Make a rename durable; not every platform lets a folder be opened, hence best effort."""
    with contextlib.suppress(OSError):
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _link_below_root(folder: str) -> str | None:
    """The outermost of `folder` and its parents below the bank root that is a symbolic link,
    relative to the root; None when there is none, or no bank. Plain os.path rather than pathlib:
    this runs for every file `fix` reads, and pathlib made it cost more than reading the file
    (benchmarks/README.md, links)."""
    link = None
    here = folder
    while not _is_bank(here):
        if os.path.islink(here):
            link = here
        parent = os.path.dirname(here)
        if parent == here:
            return None  # no bank: the folders are the ones the user named
        here = parent
    return Path(os.path.relpath(link, here)).as_posix() if link else None


def _is_bank(folder: str) -> bool:
    return os.path.isdir(os.path.join(folder, "questions")) and os.path.isdir(os.path.join(folder, "schema"))


def _refuse(path: Path) -> None:
    reason = refusal(path)
    if reason is not None:
        raise WriteError(f"{path}: {reason}")


def _temporary(path: Path, data: bytes, mode: int) -> str:
    """A new file beside `path` holding `data`, fsynced, with permission bits `mode`. mkstemp opens
    it with O_EXCL, so a link planted at its name is never followed."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)  # mkstemp creates it 0600
        _write_all(fd, data)
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        _remove(temp)
        raise
    os.close(fd)
    return temp


def _write_all(fd: int, data: bytes) -> None:
    """os.write may write fewer bytes than asked (a signal, a full disk): repeat until all are out."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _stat(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None


def _changed_since(path: Path, before: os.stat_result) -> bool:
    now = _stat(path)
    return now is None or (now.st_ino, now.st_size, now.st_mtime_ns) != (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )


def _usual_mode() -> int:
    """The mode `open()` would give a new file: 0666 less the umask."""
    mask = os.umask(0)  # the only portable way to read the umask is to set it and put it back
    os.umask(mask)
    return 0o666 & ~mask


def _remove(temp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(temp)
