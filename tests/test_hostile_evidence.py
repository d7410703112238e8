"""Hostile evidence records (issue 30, items 5 and 6).

A pull request can add or edit the files under `evidence/gpu/` that the audit reads to resolve
device claims (README, GPU claims). Covered here, one test per attack:
  - a record that is not UTF-8, JSON nested 100,000 deep (RecursionError), a `device` that is a
    string (or another field of the wrong type), a 5,000-digit number (int() limit,
    CVE-2020-10735), a file over the size cap, an evidence file that is a link out of the bank:
    each is an `evidence-record` error on the evidence file's path and line, and the audit goes on
    (the file's other records, the other files and the questions are still used);
  - a forged record: a newer `verdict: flush` over cases that show preserved subnormals, or a case's
    `class`, `ref` or a control edited to agree with a forged verdict. The record's outputs are
    replayed through the probe, so such a record is reported and never used: a refuted claim stays
    refuted.
Each test builds a bank with this repository's schema and committed H100 evidence, and audits it
through the real CLI in-process (a crash is an exception here, exit 2 for a user).
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from qbank.gpu import resolve
from tests.conftest import EXAMPLES, REPO, run_cli

pytestmark = pytest.mark.usefixtures("hang_guard")

FOLDER = Path("questions/cloud/precision")
QUESTION = FOLDER / "cloud-202611-e000.yaml"
ADD = Path("evidence/gpu/sm_90/ftz.float16.add.ptx.jsonl")  # 3 committed records: every one `preserve`
EXP2 = Path("evidence/gpu/sm_90/ftz.float32.exp2.torch_compile.jsonl")  # 3 committed records: `flush`
CLAIM_LINE = (26, 5)  # where the question's verify claim starts


@pytest.fixture(autouse=True)
def _fresh_evidence() -> Iterator[None]:
    """resolve.load caches by folder."""
    resolve.load.cache_clear()
    yield
    resolve.load.cache_clear()


def _bank(tmp: Path, dtype: str = "float32", op: str = "exp2", op_path: str = "torch_compile") -> Path:
    """A bank with the committed evidence and one question claiming `preserve` where the H100 record
    says otherwise for exp2 under torch.compile (refuted), or `flush` for another probe."""
    shutil.copytree(REPO / "schema", tmp / "schema")
    shutil.copytree(REPO / "evidence", tmp / "evidence")
    example = EXAMPLES / "invalid/device-claim-refuted/cloud/precision/cloud-202611-e000.yaml"
    text = example.read_text(encoding="utf-8").split("\n", 1)[1]  # without its `# expect:` line
    if (dtype, op, op_path) != ("float32", "exp2", "torch_compile"):
        text = text.replace("dtype: float32", f"dtype: {dtype}").replace("op: exp2", f"op: {op}")
        text = text.replace("op_path: torch_compile", f"op_path: {op_path}")
        text = text.replace("expect: preserve", "expect: flush")
    (tmp / FOLDER).mkdir(parents=True)
    (tmp / QUESTION).write_text(text, encoding="utf-8")
    return tmp


def _committed(file: Path, index: int = -1) -> dict[str, Any]:
    record: dict[str, Any] = json.loads((REPO / file).read_text(encoding="utf-8").splitlines()[index])
    return record


def _append(bank: Path, file: Path, line: bytes) -> int:
    """Add one line to an evidence file; the line number it lands on."""
    old = (bank / file).read_bytes()
    (bank / file).write_bytes(old + line + b"\n")
    return old.count(b"\n") + 1


def _newer(record: dict[str, Any]) -> dict[str, Any]:
    return record | {"timestamp_utc": "2027-01-01T00:00:00Z"}


def _findings(bank: Path) -> tuple[int, set[tuple[str, str, int, int]], dict[str, Any]]:
    result = run_cli("audit", "--format", "json", cwd=bank)
    assert result.exit_code != 2, result.stderr[-300:]  # 2: qbank crashed
    code, report = result.exit_code, json.loads(result.stdout)
    found = {(f["path"], f["name"], f["line"], f["column"]) for f in report["findings"]}
    return code, found, report


def _claim(report: dict[str, Any]) -> dict[str, Any]:
    (finding,) = [f for f in report["findings"] if f["name"].startswith("device-claim")]
    return finding


REFUTED = (QUESTION.as_posix(), "device-claim-refuted", *CLAIM_LINE)


def test_a_record_that_is_not_utf8_is_a_finding_and_the_rest_is_used(tmp_path: Path) -> None:
    bank = _bank(tmp_path)
    line = _append(bank, ADD, b'{"probe_id": "ftz.float16.add.ptx", "x": "\xff\xfe"}')
    code, found, _ = _findings(bank)
    assert (ADD.as_posix(), "evidence-record", line, 43) in found  # the first byte that is not UTF-8
    assert REFUTED in found and code == 1  # the exp2 records still refute the question's claim


def test_json_nested_100000_deep_is_a_finding_not_a_recursion_error(tmp_path: Path) -> None:
    from qbank.gpu import evidence

    bank = _bank(tmp_path)
    line = _append(bank, ADD, b"[" * 100_000 + b"]" * 100_000)
    code, found, _ = _findings(bank)
    assert (ADD.as_posix(), "evidence-record", line, evidence.MAX_DEPTH + 1) in found
    assert REFUTED in found and code == 1


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("device",), "NVIDIA H100 80GB HBM3"),  # the attack the review found
        (("device", "device_class"), 90),
        (("device", "name"), ["H100"]),
        (("verdict",), 1),
        (("probe_id",), None),
        (("probe_version",), "1"),
        (("probe_version",), True),
        (("timestamp_utc",), 20270101),
        (("timestamp_utc",), "tomorrow"),
        (("cases",), "all preserved"),
        (("cases", 0), "ieee"),
        (("cases", 0, "out"), 2),
        (("controls",), ["pass"]),
        (("libs",), "torch"),
        (("libs", "torch"), 2.11),
        (("schema",), 2),
    ],
)
def test_a_field_of_the_wrong_type_is_a_finding(tmp_path: Path, path: tuple[Any, ...], value: Any) -> None:
    bank = _bank(tmp_path)
    record = _newer(_committed(ADD))
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    line = _append(bank, ADD, json.dumps(record).encode())
    code, found, _ = _findings(bank)
    assert (ADD.as_posix(), "evidence-record", line, 1) in found
    assert REFUTED in found and code == 1


def test_a_5000_digit_number_is_a_finding(tmp_path: Path) -> None:
    bank = _bank(tmp_path)
    record = json.dumps(_newer(_committed(ADD)))
    huge = record.replace('"sm_count": 132', '"sm_count": ' + "9" * 5000)
    assert huge != record
    line = _append(bank, ADD, huge.encode())
    code, found, _ = _findings(bank)
    assert (ADD.as_posix(), "evidence-record", line, huge.index("9" * 5000) + 1) in found
    assert REFUTED in found and code == 1


def test_an_unreadable_record_makes_its_probes_claims_inconclusive_never_confirmed(tmp_path: Path) -> None:
    """What an unreadable line said cannot be known: it may have been the newest run."""
    bank = _bank(tmp_path)
    line = _append(bank, EXP2, b"{not json")
    code, found, report = _findings(bank)
    assert (EXP2.as_posix(), "evidence-record", line, 2) in found
    claim = _claim(report)
    assert claim["name"] == "device-claim-unverified" and "is inconclusive" in claim["message"]
    assert f"{EXP2.name}:{line}" in claim["message"] and code == 1


def test_a_forged_verdict_never_confirms_a_refuted_claim(tmp_path: Path) -> None:
    """The review's attack: a newer record saying `flush` over cases that show preserved subnormals."""
    bank = _bank(tmp_path, "float16", "add", "ptx")  # claims fp16 PTX add flushes: the H100 preserves
    forged = _newer(_committed(ADD)) | {"verdict": "flush"}
    line = _append(bank, ADD, json.dumps(forged).encode())
    code, found, report = _findings(bank)
    assert (ADD.as_posix(), "evidence-record", line, 1) in found
    assert _claim(report)["name"] == "device-claim-refuted" and code == 1
    (message,) = [f["message"] for f in report["findings"] if f["name"] == "evidence-record"]
    assert '"flush"' in message and '"preserve"' in message


def _forge_cases(record: dict[str, Any], field: str) -> None:
    """Make the record's cases read as flushed by editing one kind of field (its `out` stays)."""
    for case in record["cases"]:
        if case["tests"] != "subnormal":
            continue
        if field == "class":
            case["class"] = "flushed"
        elif field == "ref_ftz":  # the .ftz reference moved onto the preserved output
            case["ref_ftz"], case["class"] = case["out"], "flushed"


@pytest.mark.parametrize("field", ["class", "ref_ftz"])
def test_a_forged_case_is_a_finding_and_not_used(tmp_path: Path, field: str) -> None:
    bank = _bank(tmp_path, "float16", "add", "ptx")
    forged = _newer(_committed(ADD)) | {"verdict": "flush"}
    _forge_cases(forged, field)
    line = _append(bank, ADD, json.dumps(forged).encode())
    code, found, report = _findings(bank)
    assert (ADD.as_posix(), "evidence-record", line, 1) in found
    assert _claim(report)["name"] == "device-claim-refuted" and code == 1


def test_a_forged_control_is_a_finding_and_not_used(tmp_path: Path) -> None:
    """A failed control makes a record `inconclusive`: turning a record inconclusive by hand is as
    much a forgery as flipping its verdict (its control cases still flush)."""
    bank = _bank(tmp_path)
    forged = _newer(_committed(EXP2))
    forged["controls"]["ftz_positive"], forged["verdict"] = "fail", "inconclusive"
    line = _append(bank, EXP2, json.dumps(forged).encode())
    code, found, report = _findings(bank)
    assert (EXP2.as_posix(), "evidence-record", line, 1) in found
    assert _claim(report)["name"] == "device-claim-refuted" and code == 1


def test_a_record_filed_under_another_probe_or_device_class_is_a_finding(tmp_path: Path) -> None:
    """A record copied into another probe's file (or another class's folder) would speak for it."""
    bank = _bank(tmp_path, "float16", "add", "ptx")
    elsewhere = _newer(_committed(EXP2))  # a real `flush` record, in the fp16 add file
    line = _append(bank, ADD, json.dumps(elsewhere).encode())
    code, found, report = _findings(bank)
    assert (ADD.as_posix(), "evidence-record", line, 1) in found
    assert _claim(report)["name"] == "device-claim-refuted" and code == 1


def test_an_evidence_file_over_the_size_cap_is_a_finding(tmp_path: Path) -> None:
    from qbank.gpu import evidence

    bank = _bank(tmp_path)
    big = Path("evidence/gpu/sm_90/ftz.float16.mul.ptx.jsonl")
    (bank / big).write_bytes(b" " * (evidence.MAX_FILE_BYTES + 1))
    code, found, _ = _findings(bank)
    assert (big.as_posix(), "evidence-record", 1, 1) in found
    assert REFUTED in found and code == 1


def test_an_evidence_file_that_links_out_of_the_bank_is_not_read(tmp_path: Path) -> None:
    """A link to ~/.ssh/id_rsa named like evidence would put its text in a JSON error message."""
    bank = _bank(tmp_path / "bank")
    secret = tmp_path / "secret"
    secret.write_text("qbank-secret-3f1e\n", encoding="utf-8")
    (bank / ADD).unlink()
    (bank / ADD).symlink_to(secret)
    code, found, report = _findings(bank)
    assert (ADD.as_posix(), "evidence-record", 1, 1) in found
    assert "qbank-secret-3f1e" not in json.dumps(report)
    assert REFUTED in found and code == 1
