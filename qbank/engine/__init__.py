"""The audit engine: targets -> per-file checks (in the runner's worker processes for large runs) ->
bank-wide checks -> select -> a Report. Nothing here prints or exits; the commands format the
Report and turn it into an exit code.

    settings.py   Settings, UsageError
    targets.py    which files, in which order, shown how; what must not be read (examine)
    changed.py    the files git says changed since a ref (--changed-since)
    cache.py      the audit cache as a facade: plan = cache.lookup(files), cache.store(...)
    store.py      the cache's database, outside the bank, trusting nothing in it
    per_file.py   check_document: the one per-file pipeline, and a file's Result
    runner.py     worker processes and the garbage collector (the only place either is set)
    select.py     --select / --ignore
    views.py      what an export needs of each file (its release view), made by the audit
    pipeline.py   audit(): targets, the cache's plan, the checks, the bank checks, the Report
"""

from __future__ import annotations

from qbank.engine.per_file import check_document
from qbank.engine.pipeline import Report, Summary, audit
from qbank.engine.settings import Settings, UsageError
from qbank.engine.targets import display_path, questions_of

__all__ = [
    "Report",
    "Settings",
    "Summary",
    "UsageError",
    "audit",
    "check_document",
    "display_path",
    "questions_of",
]
