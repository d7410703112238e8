"""Section markers in `napkin_math` and `common_mistake`.

The exact strings come from the reference system's validator (research/anchor-vault.md §1.4):
napkin math opens with `**Assumptions…**`, then exactly `**Calculations:**`, then
`**Conclusion…**`; a common mistake has `**The Pitfall:**`, `**The Rationale:**`,
`**The Consequence:**`. Here each section must also have content, and `<TODO` never passes
(the reference's own template passed its marker regex).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from qbank.rules import Problem, rule


@dataclass(frozen=True)
class Marker:
    label: str  # how a message names it
    pattern: re.Pattern[str]  # the accepted spellings
    near_miss: re.Pattern[str]  # what an author who meant this marker may have written
    canonical: str  # the spelling `qbank fix` writes in place of a single near miss


# A heading written without bold, at the start of a line or after a list number or bullet:
# `1. Assumptions & Constraints:`, `Calculation:` (issue 28: vaults write sections this way).
_LINE_START = r"(?:^|(?<=\d\. )|(?<=\d\) )|(?<=- )|(?<=\* ))"


def _marker(label: str, accepted: str, stem: str, canonical: str) -> Marker:
    bold = rf"\*\*\s*{stem}[^*\n]*\*\*:?"
    plain = rf"{_LINE_START}{stem}[a-z]*(?:[ \t]*&[ \t]*[a-z]+)?[ \t]*:(?!\*)"
    near = re.compile(rf"{bold}|{plain}", re.IGNORECASE | re.MULTILINE)
    return Marker(label, re.compile(accepted), near, canonical)


NAPKIN_MARKERS = (
    _marker("**Assumptions…**", r"\*\*Assumptions[^*\n]*\*\*", "assum", "**Assumptions:**"),
    _marker("**Calculations:**", r"\*\*Calculations:\*\*", "calculat", "**Calculations:**"),
    _marker("**Conclusion…**", r"\*\*Conclusion[^*\n]*\*\*", "conclu", "**Conclusion:**"),
)
MISTAKE_MARKERS = (
    _marker("**The Pitfall:**", r"\*\*The Pitfall:\*\*", r"(?:the\s+)?pitfall", "**The Pitfall:**"),
    _marker("**The Rationale:**", r"\*\*The Rationale:\*\*", r"(?:the\s+)?rationale", "**The Rationale:**"),
    _marker(
        "**The Consequence:**", r"\*\*The Consequence:\*\*", r"(?:the\s+)?consequence", "**The Consequence:**"
    ),
)
# A list number or bullet left alone on a line is not content ("2. " before the next marker).
_NOT_CONTENT = re.compile(r"(?m)^\s*(?:\d+[.)]|[-*+])?\s*$")
_ANY_WORD = re.compile(r"[^\s\d.)*+-]")  # a character no such line has: content, without the sub


def check_sections(text: str, markers: tuple[Marker, ...]) -> Problem | None:
    """Each marker once, in order, each section non-empty. Every missing or repeated marker is
    named in one problem (a wrong `**Pitfall:**` must not hide a missing `**The Consequence:**`
    until the next run); order and empty sections are checked once all are there."""
    found = []
    problems: list[Problem] = []
    for marker in markers:
        matches = list(marker.pattern.finditer(text))
        if not matches:
            near = marker.near_miss.search(text)
            hint = f" (found {near.group(0)!r}; write exactly {marker.label})" if near else ""
            problems.append(Problem(f"missing {marker.label}{hint}", near.group(0) if near else ""))
        elif len(matches) > 1:
            problems.append(Problem(f"{marker.label} appears {len(matches)} times", matches[1].group(0)))
        else:
            found.append((matches[0], marker))
    if len(problems) > 1 and all(p.message.startswith("missing ") and not p.snippet for p in problems):
        labels = [p.message.removeprefix("missing ") for p in problems]
        return Problem(f"missing {', '.join(labels[:-1])} and {labels[-1]}")
    if problems:
        return Problem("; ".join(p.message for p in problems), problems[0].snippet)
    for (before, first), (after, second) in zip(found, found[1:], strict=False):
        if after.start() < before.start():
            return Problem(f"{second.label} comes before {first.label}", after.group(0))
    bounds = [m.end() for m, _ in found], [m.start() for m, _ in found[1:]] + [len(text)]
    for (match, marker), start, end in zip(found, *bounds, strict=True):
        section = text[start:end]
        if not _ANY_WORD.search(section) and not _NOT_CONTENT.sub("", section).strip():
            return Problem(f"the section after {marker.label} is empty", match.group(0))
    return None


@rule("QB130", "napkin-math-markers")
def napkin_math_markers(text: str) -> Problem | None:
    """`napkin_math`, when present, has three sections in order, each with content:
    `**Assumptions…**` (any suffix, e.g. `**Assumptions & Constraints:**`), then exactly
    `**Calculations:**`, then `**Conclusion…**` (e.g. `**Conclusion & Interpretation:**`).

    Readers find the sections by these markers (the study site, `qbank fix`), so the Calculations
    marker has one spelling; `**Result:**` or `**Calculation:**` are reported with the exact marker
    to write. (The arithmetic checker reads every section, whatever its markers.)

    Fails:
        napkin_math: |
          **Assumptions:** 1e-7 gradient, scale 65,536.
          **Calculation:** 1e-7 * 65,536 = 0.0065536
          **Conclusion:** safely in FP16's normal range.
    Passes:
        napkin_math: |
          **Assumptions:** 1e-7 gradient, scale 65,536.
          **Calculations:** 1e-7 * 65,536 = 0.0065536
          **Conclusion:** safely in FP16's normal range.
    """
    return check_sections(text, NAPKIN_MARKERS)


@rule("QB131", "common-mistake-markers")
def common_mistake_markers(text: str) -> Problem | None:
    """`common_mistake`, when present, has `**The Pitfall:**`, `**The Rationale:**` and
    `**The Consequence:**`, in that order, each followed by text.

    Fails:
        common_mistake: Candidates assume the model converged.
    Passes:
        common_mistake: |
          **The Pitfall:** Assuming zero gradients mean the model converged.
          **The Rationale:** A flat loss looks like convergence on a dashboard.
          **The Consequence:** Days of compute are spent on a run that stopped learning.
    """
    return check_sections(text, MISTAKE_MARKERS)
