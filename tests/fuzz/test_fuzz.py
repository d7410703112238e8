"""Fuzzing the loader, the model and the napkin-math parser with hypothesis.

A question file must never crash qbank, never hang it, and nothing in it is ever executed: hostile
input gives findings. Each test feeds one target of tests/fuzz/targets.py inputs from
tests/fuzz/strategies.py, under a hang guard (a 5 s hypothesis deadline for slow inputs, and a
SIGALRM limit of HANG_SECONDS for inputs that would never finish).

The default run is short and reproducible (derandomized, a fixed number of examples per test, no
example database). The long run sets how many examples each test draws, at random:

    QBANK_FUZZ_EXAMPLES=14300 .venv/bin/python -m pytest tests/fuzz -p no:cacheprovider \\
        --hypothesis-show-statistics

(7 tests, so 100,100 examples: about 25 minutes of CPU on the 2-core development machine; split
the tests between two processes with -k to use both cores. README, Fuzzing, has the last run.)

A failure prints the smallest input found and a `@reproduce_failure` line that replays it.
tools/fuzz_atheris.py runs the same targets under atheris, coverage-guided.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qbank import load, reporters
from qbank.engine import store as audit_cache
from qbank.finding import Finding
from qbank.gpu import recheck
from tests.fuzz import strategies, targets

HANG_SECONDS = 20.0
DEFAULT_EXAMPLES = 50  # per test: the whole module stays a few seconds in the normal suite

_COMMON: dict[str, Any] = {
    "deadline": 5000,  # ms: a file takes about 2 ms, and the slowest legal one (claims at their budget) 1 s
    "database": None,  # no example database (.hypothesis/ keeps only caches); a failure prints its replay
    "print_blob": True,
    # Real files and grammar documents are large inputs on purpose.
    "suppress_health_check": [
        HealthCheck.too_slow,
        HealthCheck.data_too_large,
        HealthCheck.large_base_example,
    ],
}
_LONG = os.environ.get("QBANK_FUZZ_EXAMPLES")
settings.register_profile("qbank-ci", max_examples=DEFAULT_EXAMPLES, derandomize=True, **_COMMON)
settings.register_profile("qbank-long", max_examples=int(_LONG or DEFAULT_EXAMPLES), **_COMMON)
FUZZ = settings.get_profile("qbank-long" if _LONG else "qbank-ci")


def run(target: Any, *args: Any) -> Any:
    with targets.time_limit(HANG_SECONDS):
        return target(*args)


# --- the loader ---------------------------------------------------------------------------------


@FUZZ
@given(strategies.file_bytes())
def test_loader_gives_a_document_or_one_finding(data: bytes) -> None:
    run(targets.load, data)


_JSON_TEXT = st.text(
    st.characters(
        exclude_categories=["Cs"],  # lone surrogates cannot be written as UTF-8
        # YAML's reader refuses these raw (C1 controls, non-characters); libyaml folds the line
        # separators in a quoted scalar to a space, as the YAML spec says.
        exclude_characters=[chr(c) for c in range(0x7F, 0xA0)]
        + ["\u2028", "\u2029", "\ufeff", "\ufffe", "\uffff"],
    ),
    max_size=30,
)
_JSON_DATA = st.dictionaries(
    _JSON_TEXT,
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers(-(10**40), 10**40)
        | st.floats(allow_nan=False, allow_infinity=False)
        | _JSON_TEXT,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_JSON_TEXT, inner, max_size=4),
        max_leaves=15,
    ),
    max_size=6,
)


@FUZZ
@given(_JSON_DATA)
def test_loader_reads_json_as_the_data_it_holds(data: dict[str, Any]) -> None:
    # JSON is YAML 1.2 in flow style: the loader's typed scalars must give back exactly the data.
    text = json.dumps(data, ensure_ascii=False)
    document = run(targets.load, text.encode())
    assert isinstance(document, load.Document), document
    assert document.data == data


# --- the model and every per-file rule ----------------------------------------------------------


@FUZZ
@given(strategies.mutated_files())
def test_audit_of_a_mutated_real_file_gives_findings(seed: tuple[Path, bytes]) -> None:
    file, data = seed
    run(targets.check_file, data, file)


@FUZZ
@given(strategies.question_texts())
def test_audit_of_question_shaped_data_gives_findings(text: str) -> None:
    run(targets.check_file, text.encode("utf-8", "surrogatepass"))


@FUZZ
@given(strategies.yaml_text())
def test_audit_of_grammar_yaml_gives_findings(text: str) -> None:
    run(targets.check_file, text.encode("utf-8", "surrogatepass"))


def test_the_valid_seeds_pass_so_mutations_start_deep() -> None:
    # If the untouched seeds had findings, a mutation would rarely get past the first rule.
    valid = [
        p
        for p in targets.seed_files()
        if p.is_relative_to(targets.EXAMPLES / "valid") or "questions" in p.parts
    ]
    assert len(valid) > 100
    for path in valid:
        assert run(targets.check_file, path.read_bytes(), targets.placed(path)) == [], path


def test_a_broken_file_is_a_finding_at_its_line() -> None:
    # The target itself must notice trouble: a bad file gives a finding, and its checks hold.
    findings = targets.check_file(b"id: x\ntitle: [unclosed\n")
    assert [f.name for f in findings] == ["yaml-syntax"]
    with pytest.raises(AssertionError):
        targets.check_finding(findings[0], "elsewhere.yaml", "one line")


# --- what qbank prints -------------------------------------------------------------------------


@FUZZ
@given(strategies.file_names(), strategies.file_names())
def test_no_output_line_commands_the_runner(path: str, message: str) -> None:
    run(targets.check_output, path, message)


def test_the_output_target_catches_an_injection(monkeypatch: pytest.MonkeyPatch) -> None:
    targets.check_output("x\n::error::pwned.yaml", "m")
    raw = lambda report: "".join(f"{f.path}: {f.message}\n" for f in report.findings)  # noqa: E731
    monkeypatch.setitem(reporters.FORMATS, "text", raw)  # a reporter that prints names as they are
    with pytest.raises(AssertionError):
        targets.check_output("x\n::error::pwned.yaml", "m")


# --- napkin math --------------------------------------------------------------------------------


@FUZZ
@given(strategies.math_text())
def test_napkin_math_gives_outcomes(text: str) -> None:
    run(targets.check_math, text)


@FUZZ
@given(strategies.expressions())
def test_expression_gives_a_value_or_napkin_error(text: str) -> None:
    run(targets.check_expression, text)
    run(targets.check_stated, text)


@FUZZ
@given(strategies.fraction_sum_lines())
def test_sums_of_huge_fractions_stay_within_the_work_budget(text: str) -> None:
    run(targets.check_math_cost, text)


@FUZZ
@given(strategies.fraction_sums(max_size=200))
def test_a_claim_value_that_sums_huge_fractions_is_metered(text: str) -> None:
    run(targets.check_stated_cost, text)
    run(targets.check_stated, text)


@FUZZ
@given(strategies.fraction_sum_claims(), st.lists(strategies.fraction_sum_lines(), max_size=30))
def test_a_file_of_huge_fraction_sums_gives_findings(claims: str, lines: list[str]) -> None:
    """The whole per-file audit on a question with these lines in its Calculations and these claims."""
    template = (targets.EXAMPLES / "valid/title-case/cloud/precision/cloud-202611-e000.yaml").read_text(
        encoding="utf-8"
    )
    math = "    **Calculations:**\n" + "".join(f"    {line}\n" for line in lines) + "    "
    text = template.replace("    **Calculations:** ", math, 1).replace("\nstatus:", f"\n{claims}status:", 1)
    assert text.count("**Calculations:**") == 1 and claims in text
    run(targets.check_file, text.encode("utf-8"), targets.DEFAULT_FILE)


@FUZZ
@given(strategies.running_chains())
def test_a_running_chain_is_checked_link_by_link(case: tuple[str, bool]) -> None:
    run(targets.check_running_chain, *case)


@FUZZ
@given(st.sampled_from(["N", "P", "K"]), st.sampled_from(["-", "+", "*", "/"]), st.integers(1, 99))
def test_a_name_with_no_value_is_never_ok(name: str, op: str, k: int) -> None:
    assert "ok" not in [o.status for o in run(targets.check_math, f"- {name} {op} {k} = {k}")]


@FUZZ
@given(strategies.product_lines())
def test_spelled_out_units_and_words_after_a_result(case: tuple[str, bool, bool]) -> None:
    run(targets.check_units_and_prose, *case)


@FUZZ
@given(strategies.readable_lines())
def test_a_line_agrees_under_a_reading_or_is_an_error(case: tuple[str, bool]) -> None:
    run(targets.check_readings, *case)


def test_hang_guard_stops_a_loop() -> None:
    with pytest.raises(targets.Hang), targets.time_limit(0.05):
        while True:
            pass


def test_a_refused_bomb_is_a_limit_not_a_value() -> None:
    assert targets.check_expression("10^10^10") is None
    outcomes = targets.check_math("- 10^10^10 = 1")
    assert [o.status for o in outcomes] == ["limit"]
    assert isinstance(targets.load(b"a: &x [1]\nb: *x\n"), Finding)


# --- forged audit caches and evidence -----------------------------------------------------------


@FUZZ
@given(strategies.forged_caches())
def test_a_forged_cache_changes_no_finding(forgery: dict[str, Any]) -> None:
    run(targets.check_forged_cache, forgery)


def test_the_cache_target_catches_a_cache_that_trusts_its_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    """With the schema check made to accept anything, an AFTER INSERT trigger that empties the
    findings hides the broken file's error, and the target says so."""
    trigger = "CREATE TRIGGER t AFTER INSERT ON files BEGIN UPDATE files SET findings = '[]' WHERE key = new.key; END;"
    monkeypatch.setattr(audit_cache, "_prepared", lambda db: True)
    with pytest.raises(AssertionError):
        targets.check_forged_cache({"kind": "schema", "base": "ours", "script": [trigger]})


@FUZZ
@given(strategies.forged_evidence())
def test_forged_evidence_never_crashes_and_is_never_used(forged: tuple[str, bytes]) -> None:
    run(targets.read_evidence, *forged)


def test_the_evidence_target_catches_a_forged_verdict_that_is_used(monkeypatch: pytest.MonkeyPatch) -> None:
    where, line = strategies.committed_records()[0]
    record = json.loads(line)
    record["verdict"] = "flush" if record["verdict"] == "preserve" else "preserve"
    forged = json.dumps(record).encode()
    targets.read_evidence(where, forged)  # reported and left out: the target passes
    monkeypatch.setattr(recheck, "contradiction", lambda record: None)  # a loader that trusts verdicts
    with pytest.raises(AssertionError):
        targets.read_evidence(where, forged)
