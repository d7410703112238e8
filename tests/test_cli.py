"""The CLI contract: formats, selection, exit codes, explain, schema drift; plus one real subprocess."""

from __future__ import annotations

import json
import os
import pty
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import crash
import pytest
from conftest import EXAMPLES, REPO, audit_json, run_cli
from jsonschema import Draft4Validator

from qbank import engine, reporters
from qbank.catalog import all_rules
from qbank.commands.audit import PROGRESS_MIN_FILES

TITLE_CASE = EXAMPLES / "invalid" / "title-case"
VALID = EXAMPLES / "valid" / "title-case"


def test_text_format_and_exit_code() -> None:
    result = run_cli("audit", str(TITLE_CASE))
    assert result.exit_code == 1
    first = result.stdout.splitlines()[0]
    assert first.startswith(
        "tests/examples/invalid/title-case/cloud/precision/cloud-202611-e000.yaml:11:8: QB111 title-case "
    )
    assert not first.endswith(" [qbank fix]")  # title case: fixed only where the spelling is certain
    assert result.stdout.splitlines()[-3:] == [
        "1 files, 1 questions: 1 errors, 0 warnings; math: 1 equations, 1 checked, 0 failed",
        "`qbank fix --check` shows what `qbank fix` would change: it fixes title case and marker"
        " spellings where the intended spelling is certain",
        "`qbank explain CODE` says what a rule asks for, with a failing and a passing example",
    ]
    ambiguous = run_cli("audit", str(EXAMPLES / "invalid" / "ambiguous-value")).stdout.splitlines()
    assert ambiguous[0].endswith(" [qbank fix]") and "it fixes the 1 marked [qbank fix], and" in ambiguous[-2]


def test_json_contract() -> None:
    code, report = audit_json(str(TITLE_CASE))
    assert code == 1
    assert report["version"] == 1
    assert {"files", "questions", "errors", "warnings"} <= set(report["summary"])
    (finding,) = report["findings"]
    assert set(finding) == {"path", "line", "column", "code", "name", "severity", "message", "question_id"}
    assert finding["question_id"] == "cloud-202611-e000" and finding["severity"] == "error"


def test_github_annotations_escape_properties() -> None:
    result = run_cli("audit", "--format", "github", str(TITLE_CASE))
    line = result.stdout.splitlines()[0]
    assert line.startswith(
        "::error file=tests/examples/invalid/title-case/cloud/precision/cloud-202611-e000.yaml,line=11,col=8,"
    )
    assert "title=QB111 title-case::" in line


def test_sarif_names_every_rule() -> None:
    result = run_cli("audit", "--format", "sarif", str(TITLE_CASE))
    sarif = json.loads(result.stdout)
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    assert [r["id"] for r in run["tool"]["driver"]["rules"]] == [r.code for r in all_rules()]
    (result_,) = run["results"]
    assert result_["ruleId"] == "QB111"
    assert result_["locations"][0]["physicalLocation"]["region"] == {"startLine": 11, "startColumn": 8}


def test_select_and_ignore_by_name_code_and_prefix() -> None:
    assert audit_json("--ignore", "title-case", str(TITLE_CASE)) == (
        0,
        audit_json("--ignore", "title-case", str(TITLE_CASE))[1],
    )
    assert audit_json("--ignore", "QB111", str(TITLE_CASE))[0] == 0
    assert audit_json("--ignore", "QB1", str(TITLE_CASE))[0] == 0
    assert audit_json("--select", "schema,placeholder", str(TITLE_CASE))[0] == 0
    assert audit_json("--select", "QB11", str(TITLE_CASE))[0] == 1


def test_unknown_rule_is_a_usage_error() -> None:
    result = run_cli("audit", "--select", "no-such-rule", str(TITLE_CASE))
    assert result.exit_code == 2 and "unknown rule" in result.output


def test_missing_path_is_a_usage_error() -> None:
    assert run_cli("audit", "does/not/exist").exit_code == 2


def test_default_target_is_the_banks_questions() -> None:
    code, report = audit_json(cwd=REPO / "qbank")  # any folder inside the bank
    assert report["summary"]["files"] == len(list((REPO / "questions").rglob("*.yaml")))
    assert code == 0


def test_no_bank_without_paths_is_a_usage_error(tmp_path: Path) -> None:
    assert run_cli("audit", cwd=tmp_path).exit_code == 2


def test_outside_a_bank_uses_builtin_taxonomy_and_says_so(tmp_path: Path) -> None:
    shutil.copytree(VALID, tmp_path / "loose")
    result = run_cli("audit", "--format", "json", "loose", cwd=tmp_path)
    assert result.exit_code == 0
    assert json.loads(result.stdout)["summary"]["schema"] == "builtin"
    assert "using the taxonomy shipped with qbank" in result.stderr


def test_fail_on_warning_is_stricter() -> None:
    assert run_cli("audit", "--fail-on", "warning", str(VALID)).exit_code == 0
    assert run_cli("audit", "--fail-on", "warning", str(TITLE_CASE)).exit_code == 1


@pytest.mark.parametrize("key", ["QB111", "title-case", "qb111"])
def test_explain_prints_the_docstring_with_examples(key: str) -> None:
    result = run_cli("explain", key)
    assert result.exit_code == 0
    assert result.stdout.startswith("QB111 title-case (error)")
    assert "Fails:" in result.stdout and "Passes:" in result.stdout


def test_every_rule_documents_a_failing_and_a_passing_example() -> None:
    for rule in all_rules():
        assert "Fails:" in rule.doc and "Passes:" in rule.doc, rule.name


def test_explain_unknown_and_list() -> None:
    assert run_cli("explain", "nope").exit_code == 2
    listing = run_cli("explain", "--list").stdout
    assert all(r.code in listing for r in all_rules())


def test_rules_have_unique_stable_codes_and_kebab_names() -> None:
    required = {
        "yaml-syntax",
        "duplicate-key",
        "schema",
        "unknown-key",
        "title-case",
        "question-length",
        "scenario-length",
        "napkin-math-markers",
        "common-mistake-markers",
        "options",
        "duplicate-id",
        "path-mismatch",
        "unknown-topic",
        "placeholder",
    }
    names = {r.name for r in all_rules()}
    assert required <= names
    for r in all_rules():
        assert r.code[:2] == "QB" and r.code[2:].isdigit()
        assert r.name == r.name.lower() and " " not in r.name and "_" not in r.name


@pytest.mark.parametrize("name", ["question.schema.json", "release.schema.json"])
def test_schema_check_detects_drift(tmp_path: Path, name: str) -> None:
    bank = tmp_path / "bank"
    (bank / "questions").mkdir(parents=True)
    shutil.copytree(REPO / "schema", bank / "schema")
    assert run_cli("schema", "--check", cwd=bank).exit_code == 0
    target = bank / "schema" / name
    target.write_text(target.read_text().replace('"title"', '"titel"', 1))
    assert run_cli("schema", "--check", cwd=bank).exit_code == 1
    assert run_cli("schema", cwd=bank).exit_code == 0
    assert run_cli("schema", "--check", cwd=bank).exit_code == 0


def _schema_bank(tmp_path: Path) -> Path:
    bank = tmp_path / "bank"
    (bank / "questions").mkdir(parents=True)
    shutil.copytree(REPO / "schema", bank / "schema")
    return bank


def test_schema_a_second_run_writes_nothing(tmp_path: Path) -> None:
    bank = _schema_bank(tmp_path)
    target = bank / "schema" / "question.schema.json"
    target.write_text("{}\n", encoding="utf-8")
    target.chmod(0o640)
    first = run_cli("schema", cwd=bank)
    assert first.exit_code == 0 and first.stdout == f"wrote {target}\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # the replaced file's permission bits are kept
    before = _identities(bank / "schema")
    second = run_cli("schema", cwd=bank)
    assert second.exit_code == 0 and second.stdout == ""
    assert _identities(bank / "schema") == before  # no file replaced, touched or left behind


def _identities(folder: Path) -> list[tuple[str, int, int]]:
    return [(p.name, p.stat().st_ino, p.stat().st_mtime_ns) for p in sorted(folder.iterdir())]


@pytest.mark.parametrize("point", crash.POINTS)
def test_schema_a_kill_at_any_point_leaves_the_old_file_or_the_new_one(tmp_path: Path, point: str) -> None:
    bank = _schema_bank(tmp_path)
    target = bank / "schema" / "question.schema.json"
    stale = target.read_bytes().replace(b'"title"', b'"titel"', 1)
    target.write_bytes(stale)
    crash.kill_at(point, ["schema"], cwd=bank)
    fresh = (REPO / "schema" / "question.schema.json").read_bytes()
    assert target.read_bytes() == (fresh if point == "committed" else stale)
    left = crash.leftovers(target.parent, *(p.name for p in (REPO / "schema").iterdir()))
    assert len(left) == (point != "committed") and all(crash.hidden_temporary(name) for name in left)
    assert audit_json(cwd=bank)[0] == 0  # the bank's schema still loads
    assert run_cli("schema", cwd=bank).exit_code == 0
    assert run_cli("schema", "--check", cwd=bank).exit_code == 0 and target.read_bytes() == fresh


def test_schema_never_writes_through_a_link(tmp_path: Path) -> None:
    bank = _schema_bank(tmp_path)
    outside = tmp_path / "outside.json"
    outside.write_text("{}\n", encoding="utf-8")
    target = bank / "schema" / "question.schema.json"
    target.write_text("{}\n", encoding="utf-8")
    # A link at the fixed name the old writer gave its temporary file: it wrote through it.
    planted = bank / "schema" / "question.schema.json.tmp"
    planted.symlink_to(outside)
    assert run_cli("schema", cwd=bank).exit_code == 0
    assert target.read_bytes() == (REPO / "schema" / "question.schema.json").read_bytes()
    assert outside.read_text(encoding="utf-8") == "{}\n" and planted.is_symlink()
    # A link at the schema file itself is neither followed nor silently replaced by a file.
    target.unlink()
    target.symlink_to(outside)
    result = run_cli("schema", cwd=bank)
    assert result.exit_code == 2 and f"{target}: a symbolic link: not followed" in result.stderr
    assert outside.read_text(encoding="utf-8") == "{}\n" and target.is_symlink()


def test_schema_never_writes_into_a_linked_schema_folder(tmp_path: Path) -> None:
    bank = _schema_bank(tmp_path)
    outside = tmp_path / "shared-schema"
    (bank / "schema").rename(outside)
    (bank / "schema").symlink_to(outside, target_is_directory=True)
    stale = b"{}\n"
    (outside / "question.schema.json").write_bytes(stale)
    result = run_cli("schema", cwd=bank)
    assert result.exit_code == 2 and "folder schema is a symbolic link" in result.stderr
    assert (outside / "question.schema.json").read_bytes() == stale
    assert sorted(p.name for p in outside.iterdir()) == sorted(p.name for p in (REPO / "schema").iterdir())


def test_python_dash_m_smoke() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "qbank", "audit", str(TITLE_CASE)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert "QB111 title-case" in done.stdout and "Traceback" not in done.stderr


def _audit_with_a_terminal_on_stderr(folder: Path, *args: str) -> tuple[str, str]:
    """Run `python -m qbank audit` with stderr on a pseudo-terminal; return (stdout, terminal).
    stdout goes to a file: a pipe nobody reads while the terminal is read could fill and block."""
    controller, terminal = pty.openpty()
    with tempfile.TemporaryFile("w+", encoding="utf-8") as stdout:
        process = subprocess.Popen(
            [sys.executable, "-m", "qbank", "audit", *args, str(folder)],
            cwd=REPO,
            stdout=stdout,
            stderr=terminal,
        )
        os.close(terminal)
        shown = b""
        while chunk := _read(controller):
            shown += chunk
        process.wait(timeout=120)
        os.close(controller)
        stdout.seek(0)
        return stdout.read(), shown.decode("utf-8", "replace")


def _read(controller: int) -> bytes:
    try:
        return os.read(controller, 65536)
    except OSError:  # EIO: the process has closed the terminal
        return b""


@pytest.fixture
def many_files(tmp_path: Path) -> Path:
    for index in range(PROGRESS_MIN_FILES):
        (tmp_path / f"q{index:04d}.yaml").write_text("- not a mapping\n", encoding="utf-8")
    return tmp_path


def test_progress_bar_only_on_a_terminal_and_only_for_text(many_files: Path) -> None:
    stdout, terminal = _audit_with_a_terminal_on_stderr(many_files)
    assert "auditing" in terminal and f"{PROGRESS_MIN_FILES}/{PROGRESS_MIN_FILES}" in terminal
    assert f"auditing 0/{PROGRESS_MIN_FILES}" in terminal  # drawn at once, before any result
    assert "auditing" not in stdout and stdout.count("not-mapping") == PROGRESS_MIN_FILES
    for fmt in ("json", "github", "sarif"):
        stdout, terminal = _audit_with_a_terminal_on_stderr(many_files, "--format", fmt)
        assert "auditing" not in terminal + stdout, fmt
    piped = subprocess.run(
        [sys.executable, "-m", "qbank", "audit", str(many_files)], capture_output=True, text=True, cwd=REPO
    )
    assert "auditing" not in piped.stderr + piped.stdout and piped.returncode == 1


def test_github_format_caps_annotations_with_a_notice_and_writes_every_finding_to_the_job_summary(
    many_files: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    result = run_cli("audit", "--format", "github", str(many_files))
    assert result.exit_code == 1
    notice = [line for line in result.stdout.splitlines() if line.startswith("::notice")]
    assert len(notice) == 1 and f"{PROGRESS_MIN_FILES} errors" in notice[0]
    table = [line for line in summary.read_text(encoding="utf-8").splitlines() if "QB005 not-mapping" in line]
    assert len(table) == PROGRESS_MIN_FILES


def test_job_summary_cells_escape_markup() -> None:
    assert reporters._cell("a|b *x* <script> [l](u)\nnext") == r"a\|b \*x\* &lt;script&gt; \[l\](u) next"


SARIF_SCHEMA = json.loads((REPO / "tests" / "data" / "sarif-2.1.0-rtm.5.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("target", [TITLE_CASE, EXAMPLES / "invalid"], ids=["one", "every-rule"])
def test_sarif_output_is_valid_sarif_2_1_0(target: Path) -> None:
    """Checked against the OASIS schema, so code scanning's upload does not reject it."""
    result = run_cli("audit", "--format", "sarif", str(target))
    sarif = json.loads(result.stdout)
    errors = [f"{list(e.path)}: {e.message}" for e in Draft4Validator(SARIF_SCHEMA).iter_errors(sarif)]
    assert errors == [] and sarif["runs"][0]["results"], errors


def test_job_summary_stays_under_githubs_limit(many_files: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reporters, "SUMMARY_ROWS", 50)
    report = engine.audit(engine.Settings((many_files,)), REPO)
    table = reporters.github_step_summary(report)
    assert table.count("QB005 not-mapping") == 50
    assert f"… and {PROGRESS_MIN_FILES - 50} more findings" in table


@pytest.mark.parametrize(
    ("kind", "out"), [("json", "r.json"), ("sqlite", "r.sqlite"), ("anki", "r.apkg"), ("site", "site")]
)
def test_export_says_what_it_released_and_withheld(tmp_path: Path, kind: str, out: str) -> None:
    from tests.export.conftest import write_bank

    bank = write_bank(tmp_path / "bank")
    result = run_cli("export", kind, "--out", str(tmp_path / out), cwd=bank)
    assert result.exit_code == 0, result.output
    assert (
        "released 5 questions (withheld: 1 does not validate, 1 has errors, 1 status draft)" in result.output
    )
    assert (tmp_path / out).exists()


def test_export_needs_a_bank(tmp_path: Path) -> None:
    result = run_cli("export", "json", "--out", str(tmp_path / "r.json"), cwd=tmp_path)
    assert result.exit_code == 2 and "no bank here" in result.output
    assert not (tmp_path / "r.json").exists()


def test_export_to_an_unwritable_place_is_a_usage_error(tmp_path: Path) -> None:
    from tests.export.conftest import write_bank

    bank = write_bank(tmp_path / "bank")
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = run_cli("export", "json", "--out", str(blocker / "r.json"), cwd=bank)
    assert result.exit_code == 2 and "cannot write" in result.output and "internal error" not in result.output


def test_the_progress_line_says_the_time_left_from_the_rate_so_far() -> None:
    """Issue 29: the bar showed nothing for 12 s, then 08:22:03 left for a 36 s run."""
    from qbank.commands.audit import progress_line

    assert progress_line(0, 3932, 0.0) == "auditing 0/3932   0%  0 s"
    assert progress_line(1200, 3932, 12.0) == "auditing 1200/3932  30%  12 s, about 27 s left"
    assert progress_line(3932, 3932, 36.4) == "auditing 3932/3932 100%  36 s"


def test_export_without_the_export_extra_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hook and CI environments install qbank without Jinja2, markdown-it and genanki (issue 29):
    `qbank export` says how to get them instead of failing on an import."""
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "genanki" else real(name, *a)
    )
    result = run_cli("export", "json", "--out", "x.json")
    assert result.exit_code == 2 and "pip install 'qbank[export]'" in result.output
