"""The audit engine: targets -> per-file checks (in the runner's worker processes for large runs) ->
bank-wide checks -> select -> a Report. Nothing here prints or exits; the commands format the
Report and turn it into an exit code.

    settings.py   Settings, UsageError
    targets.py    which files, in which order, shown how
    per_file.py   check_document: the one per-file pipeline
    runner.py     worker processes (the only place the audit starts any) and their chunks
    select.py     --select / --ignore
    pipeline.py   audit(): reading through the cache, the checks, the Report
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
