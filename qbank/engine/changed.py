"""Which question files changed since a git ref, for `qbank audit --changed-since REF`.

"Changed" is what a pull request would show: files that differ between the merge base of REF and
HEAD and the working tree (committed, staged or not), plus untracked files git does not ignore.
Deleted files are gone, so they are not audited; the repo-wide rules still see the whole bank.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_TIMEOUT_S = 60


class GitError(Exception):
    """git is missing, the folder is not a repository, or the ref does not name a commit."""


def changed_files(bank: Path, ref: str) -> list[Path]:
    if not ref or ref.startswith("-"):  # never let a ref be read as a git option
        raise GitError(f"not a git ref: {ref!r}")
    _git(bank, "rev-parse", "--is-inside-work-tree", what=f"not inside a git work tree: {bank}")
    _git(bank, "rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", what=f"unknown git ref {ref!r}")
    base = (
        _git(bank, "merge-base", ref, "HEAD", what=f"no common history between {ref!r} and HEAD")
        .strip()
        .decode()
    )
    diff = _git(bank, "diff", "--name-only", "-z", "--relative", "--no-renames", "--diff-filter=d", base)
    untracked = _git(bank, "ls-files", "-z", "--others", "--exclude-standard")
    names = {name for name in (diff + untracked).split(b"\0") if name}
    return sorted(bank / os.fsdecode(name) for name in names)


def _git(cwd: Path, *args: str, what: str = "") -> bytes:
    """git's output as bytes: a file name is bytes to git, and need not be UTF-8 (os.fsdecode keeps
    such a name as the file system shows it, PEP 383)."""
    try:
        done = subprocess.run(
            ["git", *args], cwd=cwd, capture_output=True, timeout=GIT_TIMEOUT_S, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise GitError(f"could not run git: {exc}") from None
    if done.returncode != 0:
        raise GitError(what or f"git {args[0]} failed: {os.fsdecode(done.stderr.strip())}")
    return done.stdout
