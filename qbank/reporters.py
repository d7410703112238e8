"""Output formats. Reporters only format: severity, filtering and exit codes are decided elsewhere."""

from __future__ import annotations

import html
import json
import re
import urllib.parse
from collections.abc import Callable
from dataclasses import asdict

from qbank import __version__, rules
from qbank.characters import HIDDEN
from qbank.engine import Report
from qbank.finding import Finding

JSON_VERSION = 1


def text(report: Report) -> str:
    """`path:line:col: CODE name message`, one per line (`[qbank fix]` after a finding `qbank fix`
    fixes), then a summary line (ruff/flake8 style), then where to go next when there are findings."""
    lines = [
        f"{f.path}:{f.line}:{f.column}: {f.code} {f.name} {f.message}{FIX_MARK if f.code in rules.FIXABLE else ''}"
        for f in report.findings
    ]
    s = report.summary
    math = f"; math: {s.math.equations} equations, {s.math.checked} checked, {s.math.failed} failed"
    confirmed = f"; device claims confirmed: {s.math.device_claims_confirmed}"
    lines.append(
        _counts(report)
        + (math if s.files or not s.bank_files else "")  # --bank-only checks no napkin math
        + (confirmed if s.math.device_claims_confirmed else "")
    )
    if report.findings:
        fixable = sum(f.code in rules.FIXABLE for f in report.findings)
        marked = f"it fixes the {fixable} marked{FIX_MARK}, and " if fixable else "it fixes "
        lines.append(
            f"`qbank fix --check` shows what `qbank fix` would change: {marked}title case and marker"
            " spellings where the intended spelling is certain"
        )
        lines.append("`qbank explain CODE` says what a rule asks for, with a failing and a passing example")
    return "".join(inert(line) + "\n" for line in lines)


FIX_MARK = " [qbank fix]"  # a finding of a rule `qbank fix` fixes where the fix is certain


def _counts(report: Report) -> str:
    s = report.summary
    verdict = f"{s.errors} errors, {s.warnings} warnings"
    if not s.files and s.bank_files:  # --bank-only: no file had the per-file checks
        return f"{s.bank_files} files read for the repo-wide rules only: {verdict}"
    deleted = f", {s.deleted} deleted" if s.deleted else ""
    rest = f" (+{s.bank_files} files read for repo-wide rules)" if s.bank_files else ""
    return f"{s.files} files{rest}, {s.questions} questions{deleted}: {verdict}"


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
        lines.append(f"::{f.severity.value} {props}::{_data(f.message)}")  # _data makes it inert
    s = report.summary
    if max(s.errors, s.warnings) > ANNOTATIONS_SHOWN:
        lines.append(
            f"::notice title=qbank::{s.errors} errors and {s.warnings} warnings: GitHub shows only "
            f"{ANNOTATIONS_SHOWN} of each per step; every finding is in the job summary and the SARIF upload"
        )
    lines.append(f"qbank: {_counts(report)}")
    return "".join(_visible(line) + "\n" for line in lines)


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
    return "".join(inert(line) + "\n" for line in lines) + "\n"


def _cell(text: str) -> str:
    """A table cell: one line, markdown punctuation escaped, no HTML (messages quote question text)."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\g<0>", html.escape(" ".join(text.splitlines()), quote=False))


_MARKDOWN_PUNCTUATION = re.compile(r"[\\`*_\[\]|#~]")


def _data(value: str) -> str:
    """A workflow command's data: one line, and no `##[` to start a second, legacy command in it."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace("##[", "#%23[")


def _prop(value: str) -> str:
    return _data(value).replace(":", "%3A").replace(",", "%2C")


def sarif(report: Report) -> str:
    """SARIF 2.1.0 with every rule described, for GitHub code scanning."""
    from qbank import catalog  # the model and every rule module, for SARIF only

    every = catalog.all_rules()
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
                    "artifactLocation": _artifact(f.path),
                    "region": {"startLine": f.line, "startColumn": f.column},
                }
            }
        ],
    }


def _artifact(path: str) -> dict[str, str]:
    """A finding's file as a SARIF artifactLocation: a URI reference, percent-encoded (SARIF 2.1.0
    §3.10.2, RFC 3986), relative to the source root, or a `file://` URI for a path outside it. A
    name that is not UTF-8 keeps its bytes (surrogateescape, PEP 383) as %XX escapes."""
    quoted = urllib.parse.quote(path.encode("utf-8", "surrogateescape"), safe="/")
    if path.startswith("/"):
        return {"uri": f"file://{quoted}"}
    return {"uri": quoted, "uriBaseId": "%SRCROOT%"}


def inert(line: str) -> str:
    r"""One line of human-readable output that shows what it holds and commands nothing.

    Control, bidirectional and invisible characters (a file name or value may hold them) and line
    breaks become escapes such as `\u202e` and `\n`, so a finding can neither rewrite the terminal
    it is read in (rule deceptive-text) nor start a line of its own. A file name that is not UTF-8
    shows its bytes as `\xff`. On a GitHub runner a line that starts with `::` (after spaces) is a
    workflow command, and `##[` anywhere starts a legacy one (actions/runner ActionCommand.TryParse,
    TryParseV2): both are broken with an escape.
    """
    line = _visible(line)
    if line.lstrip().startswith("::"):
        line = line.replace(":", "\\x3a", 1)
    return line.replace("##[", "#\\x23[")


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if "\udc80" <= char <= "\udcff":  # a byte that is not UTF-8, as os.fsdecode carries it
        return f"\\x{ord(char) - 0xDC00:02x}"
    return ascii(char)[1:-1]


# HIDDEN and lone surrogates (only a file name that is not UTF-8 holds one), and for lines, line feeds.
_UNSEEN_IN_JSON = re.compile(f"{HIDDEN.pattern}|[\ud800-\udfff]")
_UNSEEN = re.compile(f"{_UNSEEN_IN_JSON.pattern}|\n")


def _visible(line: str) -> str:
    """HIDDEN characters as escapes, for a line that is a workflow command on purpose (github)."""
    return _UNSEEN.sub(_escape, line)


def _json_escaped(output: str) -> str:
    r"""The same characters as JSON escapes (a surrogate pair past U+FFFF, a lone surrogate as
    itself): the same data, read back; `##[` as `#\u0023[`, which no runner reads as a command."""
    escaped = _UNSEEN_IN_JSON.sub(lambda m: json.dumps(m.group(0)).strip('"'), output)
    return escaped.replace("##[", "#\\u0023[")


FORMATS: dict[str, Callable[[Report], str]] = {
    "text": text,
    "json": as_json,
    "github": github,
    "sarif": sarif,
}
