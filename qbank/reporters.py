"""Output formats. Reporters only format: severity, filtering and exit codes are decided elsewhere."""

from __future__ import annotations

import html
import json
import re
from collections.abc import Callable
from dataclasses import asdict

from qbank import __version__, rules
from qbank.checks.text import HIDDEN
from qbank.engine import Report
from qbank.finding import Finding

JSON_VERSION = 1


def text(report: Report) -> str:
    """`path:line:col: CODE name message`, one per line, then a summary line (ruff/flake8 style)."""
    lines = [f"{f.path}:{f.line}:{f.column}: {f.code} {f.name} {f.message}" for f in report.findings]
    s = report.summary
    lines.append(
        f"{_counts(report)}"
        f"; math: {s.math.equations} equations, {s.math.checked} checked, {s.math.failed} failed"
    )
    return _visible("\n".join(lines) + "\n")


def _counts(report: Report) -> str:
    s = report.summary
    deleted = f", {s.deleted} deleted" if s.deleted else ""
    rest = f" (+{s.bank_files} files read for repo-wide rules)" if s.bank_files else ""
    return (
        f"{s.files} files{rest}, {s.questions} questions{deleted}: {s.errors} errors, {s.warnings} warnings"
    )


def as_json(report: Report) -> str:
    """The JSON contract other commands reuse: {"version", "summary", "findings"}."""
    document = {
        "version": JSON_VERSION,
        "summary": asdict(report.summary),
        "findings": [asdict(f) for f in report.findings],  # severity is a StrEnum: "error"
    }
    return _json_escaped(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def github(report: Report) -> str:
    """GitHub Actions workflow commands: each finding becomes an annotation on its line.

    Escaping follows @actions/core: data escapes % CR LF; properties also escape : and ,.
    """
    lines = []
    for f in report.findings:
        props = f"file={_prop(f.path)},line={f.line},col={f.column},title={_prop(f'{f.code} {f.name}')}"
        lines.append(f"::{f.severity.value} {props}::{_data(f.message)}")
    s = report.summary
    if max(s.errors, s.warnings) > ANNOTATIONS_SHOWN:
        lines.append(
            f"::notice title=qbank::{s.errors} errors and {s.warnings} warnings: GitHub shows only "
            f"{ANNOTATIONS_SHOWN} of each per step; every finding is in the job summary and the SARIF upload"
        )
    lines.append(f"qbank: {_counts(report)}")
    return _visible("\n".join(lines) + "\n")


# GitHub shows at most 10 error and 10 warning annotations per step (actions/toolkit
# docs/problem-matchers.md; yamllint#573), so the job summary lists them all.
ANNOTATIONS_SHOWN = 10


# A step summary holds at most 1 MiB (docs.github.com, "Adding a job summary"); 2,000 rows of
# about 200 bytes stay well inside it, and the SARIF upload has the rest.
SUMMARY_ROWS = 2000


def github_step_summary(report: Report) -> str:
    """Markdown for $GITHUB_STEP_SUMMARY: the counts and a table of the findings."""
    lines = ["### qbank audit", "", _counts(report), ""]
    if report.findings:
        lines += ["| file | line | rule | message |", "|---|---|---|---|"]
        lines += [
            f"| {_cell(f.path)} | {f.line}:{f.column} | {f.code} {f.name} | {_cell(f.message[:300])} |"
            for f in report.findings[:SUMMARY_ROWS]
        ]
    if len(report.findings) > SUMMARY_ROWS:
        lines += ["", f"… and {len(report.findings) - SUMMARY_ROWS} more findings, in the SARIF upload."]
    return _visible("\n".join(lines) + "\n\n")


def _cell(text: str) -> str:
    """A table cell: one line, markdown punctuation escaped, no HTML (messages quote question text)."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\g<0>", html.escape(" ".join(text.splitlines()), quote=False))


_MARKDOWN_PUNCTUATION = re.compile(r"[\\`*_\[\]|#~]")


def _data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(value: str) -> str:
    return _data(value).replace(":", "%3A").replace(",", "%2C")


def sarif(report: Report) -> str:
    """SARIF 2.1.0 with every rule described, for GitHub code scanning."""
    every = rules.all_rules()
    index = {r.code: i for i, r in enumerate(every)}
    run = {
        "tool": {
            "driver": {
                "name": "qbank",
                "version": __version__,
                "informationUri": "https://github.com/qbank/qbank",
                "rules": [_sarif_rule(r) for r in every],
            }
        },
        "originalUriBaseIds": {"%SRCROOT%": {"uri": "./"}},
        "results": [_sarif_result(f, index[f.code]) for f in report.findings],
    }
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [run],
    }
    return _json_escaped(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def _sarif_rule(r: rules.Rule) -> dict[str, object]:
    return {
        "id": r.code,
        "name": r.name,
        "shortDescription": {"text": r.summary},
        "fullDescription": {"text": r.doc},
        "help": {"text": f"Run `qbank explain {r.code}`.\n\n{r.doc}"},
        "defaultConfiguration": {"level": r.severity.value},
    }


def _sarif_result(f: Finding, rule_index: int) -> dict[str, object]:
    return {
        "ruleId": f.code,
        "ruleIndex": rule_index,
        "level": f.severity.value,
        "message": {"text": f.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": f.path, "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": f.line, "startColumn": f.column},
                }
            }
        ],
    }


def _visible(output: str) -> str:
    """Control, bidirectional and invisible characters (a file name or value may hold them) as
    `\u202e`: a finding must not rewrite the terminal or the log it is read in (rule deceptive-text)."""
    return HIDDEN.sub(lambda m: ascii(m.group(0))[1:-1], output)


def _json_escaped(output: str) -> str:
    """The same characters as JSON escapes (a surrogate pair past U+FFFF): the same data, read back."""
    return HIDDEN.sub(lambda m: json.dumps(m.group(0)).strip('"'), output)


FORMATS: dict[str, Callable[[Report], str]] = {
    "text": text,
    "json": as_json,
    "github": github,
    "sarif": sarif,
}
