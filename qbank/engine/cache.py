"""The audit cache as the pipeline sees it, standing in front of reading:

    plan = cache.lookup(files)   each file with the result the cache knows, or the bytes to check
    cache.store(plan, results)   what was new, for the next audit

An audit without a cache plans with `unread(files)` and stores nothing. The database behind the
facade, and why it is safe to keep one, is qbank/engine/store.py.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from qbank import load
from qbank.checks.api import KeyPair
from qbank.engine.per_file import Result
from qbank.engine.runner import Job
from qbank.engine.store import Store, Unavailable
from qbank.engine.targets import Where, display_path, examine
from qbank.engine.views import View
from qbank.finding import Finding


@dataclass(slots=True)
class Planned:
    """One chosen file on its way through the audit."""

    path: Path
    shown: str  # as findings show it
    data: bytes | Finding | None  # bytes read here, why it must not be read, or None: read where checked
    key: bytes = b""  # the cache key of its bytes; empty without a cache, or when they cannot be read
    result: Result | None = None  # the cache's result for its bytes, or once checked, the checks'


class Plan(NamedTuple):
    files: list[Planned]
    statuses: list[tuple[bytes, bytes]]  # (status, key) of files read whose status the cache may keep

    def todo(self) -> list[int]:
        """The files the cache knows nothing of: these are checked."""
        return [i for i, planned in enumerate(self.files) if planned.result is None]

    def job(self, i: int) -> Job:
        planned = self.files[i]
        return planned.path, planned.shown, planned.data

    def results(self) -> list[Result]:
        """Every file's result, once the todo files are checked."""
        results = [planned.result for planned in self.files if planned.result is not None]
        assert len(results) == len(self.files), "a file left unchecked"
        return results


def unread(files: list[Path], where: Where) -> Plan:
    """The plan of an audit without a cache: nothing is read here but what must be refused (a file
    is read where it is checked, in a worker process for a large run)."""
    shown = [display_path(file, where[0]) for file in files]
    refused = [s if isinstance(s, Finding) else None for s in examine(files, shown, where[1])]
    return Plan([Planned(*job) for job in zip(files, shown, refused, strict=True)], [])


class Cache:
    """The audit cache of one bank for one run."""

    def __init__(self, bank: Path) -> None:
        self._store = Store(bank)

    @staticmethod
    def open(bank: Path | None, asked: bool, notes: list[str]) -> Cache | None:
        """The audit cache, or None: not asked for, outside a bank, or refused (a link or another
        user's folder on its way, see store.py), and then a note says why and the audit runs uncached."""
        if not asked or bank is None:
            return None
        try:
            return Cache(bank)
        except Unavailable as exc:
            notes.append(str(exc))
            return None

    def lookup(self, files: list[Path], where: Where) -> Plan:
        """A file whose status (see Store.status) the cache knows is not read unless the cache has
        lost the result of its key; every other file is read and its key made."""
        db = self._store
        shown = [display_path(file, where[0]) for file in files]
        settled = time.time_ns() - SETTLED_NS
        stats = examine(files, shown, where[1])  # before reading: a change after the stat changes it again
        statuses = [
            db.status(d, s) if isinstance(s, os.stat_result) else b""
            for d, s in zip(shown, stats, strict=True)
        ]
        keys_of = db.keys_of(statuses)
        keys = [keys_of.get(status, b"") for status in statuses]
        known = db.get([key for key in keys if key])
        plan = Plan([], [])
        for file, path, status, stat, key in zip(files, shown, statuses, stats, keys, strict=True):
            if key in known:
                plan.files.append(Planned(file, path, None, key, known[key]))
                continue
            data = stat if isinstance(stat, Finding) else load.read(file, path)
            key = db.key(path, data) if isinstance(data, bytes) else b""
            plan.files.append(Planned(file, path, data, key))
            if key and isinstance(stat, os.stat_result) and stat.st_mtime_ns < settled:
                plan.statuses.append((status, key))
        known = db.get([p.key for p in plan.files if p.key and p.result is None])
        for planned in plan.files:
            planned.result = planned.result or known.get(planned.key)
        return plan

    def views(self, plan: Plan, texts: tuple[str, ...]) -> dict[bytes, View]:
        """The release views the cache keeps for the plan's files, by key, with `texts` read (exports)."""
        return self._store.views([planned.key for planned in plan.files if planned.key], texts)

    def store(
        self,
        plan: Plan,
        results: list[Result],
        new: list[int],
        whole_bank: bool,
        views: Sequence[tuple[bytes, View]] = (),
    ) -> None:
        """Keep the results of files `new` (indices into the plan), the statuses read and new release
        views (key, view). Only a run over the whole bank knows which entries no file has any more,
        so only such a run prunes them (a pre-commit run on one file must not)."""
        keys = [planned.key for planned in plan.files]
        live = set(keys) if whole_bank else None
        self._store.put(((keys[i], results[i]) for i in new if keys[i]), live, plan.statuses, views)

    def recall(self) -> tuple[set[bytes], list[KeyPair]]:
        return self._store.recall()

    def remember(self, keys: list[bytes], pairs: list[KeyPair]) -> None:
        self._store.remember(keys, pairs)

    def close(self) -> None:
        self._store.close()


SETTLED_NS = 2_000_000_000
"""A file's status is kept only when it was last changed this long before the audit began: a
change within the same tick of a coarse file clock (2 s on FAT) can leave mtime as it was (the
"racy" case of git's index, Documentation/technical/racy-git.txt)."""
