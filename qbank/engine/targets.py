"""Which files an audit reads: the bank, the targets, the files changed since a ref, in a stable order."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from qbank import load
from qbank.engine.changed import GitError, changed_files
from qbank.engine.settings import Settings, UsageError
from qbank.finding import Finding
from qbank.model.taxonomy import NO_BANK, find_bank_root


def link_roots(bank: Path | None, targets: list[Path]) -> tuple[str, ...]:
    """The folders a link in the audit may lead into: the bank, or outside one, what was asked for."""
    return tuple(os.path.realpath(folder) for folder in ([bank] if bank else targets))


def find_targets(settings: Settings, cwd: Path) -> tuple[Path | None, list[Path]]:
    """The bank the run belongs to, and the files and folders it was asked to check."""
    targets = [questions_of(p if p.is_absolute() else cwd / p) for p in settings.paths]
    for target in targets:
        if not target.exists() and not target.is_symlink():
            raise UsageError(f"no such file or folder: {target}")
    bank = find_bank_root(targets[0] if targets else cwd)
    if bank is None and partial(settings):
        raise UsageError(f"--changed-since and --bank-only need a bank. {NO_BANK}")
    if targets:
        return bank, targets
    if bank is None:
        raise UsageError(NO_BANK)
    return bank, [bank / "questions"]


def chosen_files(settings: Settings, bank: Path | None, targets: list[Path]) -> list[Path]:
    """The files that get the per-file checks."""
    if settings.bank_only:
        return []
    if settings.changed_since is None:
        return sort_files(_yaml_files(targets))
    assert bank is not None  # find_targets refuses --changed-since outside a bank
    try:
        changed = changed_files(bank, settings.changed_since)
    except GitError as exc:
        raise UsageError(str(exc)) from None
    return [f for f in changed if f.suffix in load.YAML_SUFFIXES and any(_within(f, t) for t in targets)]


def bank_wide_files(settings: Settings, bank: Path | None, checked: list[Path]) -> list[Path]:
    """Files read only so that the repo-wide rules see the whole bank."""
    if bank is None or not partial(settings):
        return []
    done = set(checked)
    return [f for f in sort_files(load.iter_yaml_files(bank / "questions")) if f not in done]


def sort_files(files: Iterable[Path]) -> list[Path]:
    """Each file once, in the order of their parts (the order of Path objects on POSIX), by their text
    with the separator made the lowest character (`a/b` before `a-b`, as ("a", "b") before ("a-b",)).
    Hashing and comparing Path objects was a visible share of a warm audit (benchmarks/README.md,
    paths); the text is made once and kept by the Path, which display_path and the reads use."""
    unique = {str(file): file for file in files}
    return [unique[text] for text in sorted(unique, key=lambda text: text.replace(os.sep, "\0"))]


def _within(file: Path, target: Path) -> bool:
    return file == target or file.is_relative_to(target)


def questions_of(target: Path) -> Path:
    """A bank's root folder stands for its questions/ (its schema/ holds no questions)."""
    if (target / "questions").is_dir() and (target / "schema").is_dir():
        return target / "questions"
    return target


def _yaml_files(targets: Iterable[Path]) -> Iterator[Path]:
    for target in targets:
        if target.is_dir():
            yield from load.iter_yaml_files(target)
        else:
            yield target


def display_path(file: Path, cwd: Path) -> str:
    """A path as findings show it: relative to the working directory when inside it."""
    text, inside = str(file), str(cwd).rstrip("/") + "/"
    if os.sep == "/" and text.startswith(inside):  # what relative_to gives, without its parsing
        return text[len(inside) :]
    try:
        return file.relative_to(cwd).as_posix()
    except ValueError:
        return file.as_posix()


def partial(settings: Settings) -> bool:
    """Whether the per-file checks skip some files of the targets (--changed-since, --bank-only)."""
    return bool(settings.changed_since or settings.bank_only)


Where = tuple[Path, tuple[str, ...]]  # the working directory findings are shown from; link roots


def examine(
    files: list[Path], shown: list[str], roots: tuple[str, ...]
) -> list[os.stat_result | Finding | None]:
    """Each file's status, or why it must not be read (see _stat)."""
    return [_stat(file, path, roots) for file, path in zip(files, shown, strict=True)]


def _stat(file: Path, shown: str, roots: tuple[str, ...]) -> os.stat_result | Finding | None:
    """A regular file's status; a Finding for what must not be read: a folder, FIFO, socket or device
    named *.yaml (opening a FIFO blocks until someone writes to it), or a link leading out of
    `roots` (a pull request's link to ~/.ssh/id_rsa would show its text in the findings). None: it
    cannot be examined, and reading it will say why."""
    try:
        status = os.lstat(file)
        linked = stat.S_ISLNK(status.st_mode)
        if linked:
            target = os.path.realpath(file)
            if not any(target == root or target.startswith(root + os.sep) for root in roots):
                return load.rules.unreadable_file(shown, f"a link to {target}, outside the bank: not read")
            status = os.stat(file)
    except OSError:
        return None
    if stat.S_ISDIR(status.st_mode):
        return load.rules.unreadable_file(shown, _folder(file, linked))
    if not stat.S_ISREG(status.st_mode):
        return load.rules.unreadable_file(shown, "not a regular file (a FIFO, socket or device): not read")
    return status


def _folder(folder: Path, linked: bool) -> str:
    """Why a folder among the files is reported (load.iter_yaml_files lists such folders)."""
    if linked:
        return "a link to a folder: links to folders are not followed, so its files are not audited"
    if not os.access(folder, os.R_OK | os.X_OK):
        return "a folder that cannot be listed: its files are not audited"
    return "a folder named like a question file: not read"
