"""--select and --ignore: which findings a run keeps."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from qbank.engine.settings import UsageError
from qbank.finding import Finding


def selector(select: Sequence[str], ignore: Sequence[str]) -> Callable[[Finding], bool]:
    """A predicate over findings from --select/--ignore; each entry is a rule name, a code, or a
    code prefix such as QB1 (all schema and content rules)."""
    chosen = [_matching(token) for token in select]
    dropped = [_matching(token) for token in ignore]

    def keep(finding: Finding) -> bool:
        if chosen and not any(finding.code in codes for codes in chosen):
            return False
        return not any(finding.code in codes for codes in dropped)

    return keep


def _matching(token: str) -> set[str]:
    from qbank import catalog  # the model and every rule module: only when --select or --ignore names one

    every = catalog.all_rules()
    codes = {r.code for r in every if r.name == token.lower() or r.code.startswith(token.upper())}
    if not codes:
        raise UsageError(f"unknown rule {token!r} (see `qbank explain --list`)")
    return codes
