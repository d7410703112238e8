"""Page facts on the study site, in real headless Chromium (file://): the typed-answer check before
the reveal, graded by assets/answer.js exactly as qbank/napkin/answer.py grades (the audit's reader
and tolerance); the marks on the lines the audit re-executed; the claims with their GPU evidence."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from qbank.export import site
from qbank.napkin import answer, units
from tests.export.conftest import release_of
from tests.export.facts_bank import ANSWERED, NO_EVIDENCE, write_facts_bank
from tests.export.test_site_browser import Watched, _problems, watched  # noqa: F401 (a fixture)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = write_facts_bank(tmp_path_factory.mktemp("facts-bank"))
    out = tmp_path_factory.mktemp("facts-site") / "site"
    site.build(release_of(root), out)
    return out


def _answer(
    value: Fraction, dims: units.Dims, text: str, modes: tuple[units.Mode, ...] = units.MODES
) -> dict[str, Any]:
    fields = {"value": answer.rational(value), "dims": list(dims)}
    return {"text": text, "modes": [answer.mode_fields(m) | fields for m in modes]}


ANSWERS = [
    _answer(Fraction(1, 25), units.SECOND, "40 ms"),
    _answer(Fraction(54 * 10**8), units.BYTE, "5.4 GB"),
    _answer(Fraction(7 * 10**9), units.NONE, "7B"),
    _answer(Fraction(49152), units.BYTE, "48 KB", tuple(m for m in units.MODES if m.binary_kb)),
    _answer(Fraction(40, 3600), units.div(units.dims(usd=1), units.SECOND), "$40/hr"),
    _answer(Fraction(77612, 10000), units.NONE, "7.76"),
    _answer(Fraction(3, 2 * 10**7), units.NONE, "1.5e-7"),
    _answer(Fraction(10**15, 3), units.mul(units.OP, units.PER_SECOND), "333 TFLOPS"),
    _answer(Fraction(205, 2), units.NONE, "102.5"),  # a tie: 102 and 103 both round it
    _answer(Fraction(0), units.NONE, "0"),
]
INPUTS = [
    # right, in other units and spellings
    "40 ms",
    "0.04 s",
    "~40 ms",
    "40ms",
    "4e-2 s",
    "4E-2 s",
    "4 x 10^-2 s",
    "4×10^-2 s",
    "4 * 10^-2 s",
    "40,000 us",
    "40,000 µs",
    "40000000 ns",
    ".04 s",
    "0.0400 s",
    "  40 ms  ",
    "\t40 ms",
    "5.4 GB",
    "5.4GB",
    "5,400 MB",
    "5.4e9 B",
    "5.4e9 bytes",
    "43.2 Gb",
    "5 GB",
    "5.40 GB",
    "5.03 GiB",
    "7B",
    "7 billion",
    "7000M",
    "7B params",
    "7e9",
    "7,000,000,000",
    "7.0B",
    "48 KB",
    "48 KiB",
    "49 kB",
    "49,152 B",
    "0.046875 MiB",
    "$40/hr",
    "$960/day",
    "$0.0111/s",
    "40 USD/hr",
    "$40 /hr",
    "$40",
    "7.76",
    "7.7",
    "7.8",
    "8",
    "7.75",
    "7.77",
    "9",
    "776%",
    "102",
    "103",
    "102.5",
    "100",
    "97",
    "98",
    "0",
    "0.0",
    "0 ms",
    "1.5e-7",
    "1.5 x 10^-7",
    "0.00000015",
    "1.4e-7",
    "2e-7",
    "333 TFLOPS",
    "333.3 TFLOPS",
    "0.33 PFLOPS",
    "333 TOPS",
    "333e12 FLOP/s",
    "333 TFLOP/s",
    # wrong kinds
    "40 GB",
    "40",
    "40 W",
    "40 J",
    "40 tokens/s",
    "40 m",
    "40 kg",
    "40 °C",
    "40 mA",
    "40 GB/s",
    # hostile and odd
    "",
    " ",
    "forty ms",
    "40 ms ms",
    "1,5 s",
    "<script>alert(1)</script>",
    "40 furlongs",
    "4O ms",
    "5. s",
    "--40 ms",
    "-40 ms",
    "40 ms;",
    "40 ms\n",
    "４０ ms",
    "٤٠ ms",
    "40\u00a0ms",
    "40 ms\u2028",
    "1e99999 s",
    "1e999 s",
    "1" * 79,
    "1" * 81,
    "9" * 60 + "e-999 s",
    "10^10^10",
    "0x10 s",
    "1/2 s",
    "(40) ms",
    "40 (ms)",
    "40 ms/",
    "40 /",
    "40 %",
    "40%",
    "$",
    "~",
    "~~40 ms",
    "40 ms ~",
    "40 constructor",
    "40 __proto__",
    "40 toString",
    "40 hasOwnProperty",
    "7Bs",
    "7B/s",
    "7KB",
    "7 K",
    "7k",
    "7kk",
    "1.5e3k ops",
    "40 e",
    "40 x",
    "40 min",
    "0.5 h",
    "1 day",
    "40 GPU-hours",
    "40 s/s",
    "40 s/ms",
]
GRADE = "(cases) => cases.map(([text, answer]) => { const v = window.qbankGrade(text, answer); return [v.status, v.message]; })"


def test_the_page_grader_agrees_with_the_python_grader(watched: Watched, built: Path) -> None:  # noqa: F811
    """Every input against every answer, and `1.5 <word>` for each word of the unit table: the same
    verdict and the same message from assets/answer.js and qbank/napkin/answer.py."""
    assert len(INPUTS) >= 60
    words = [f"1.5 {word}" for word in answer.VOCABULARY] + [f"2 {word}/s" for word in answer.VOCABULARY]
    cases = [(text, a) for a in ANSWERS for text in INPUTS] + [
        (text, a) for a in ANSWERS[:3] for text in words
    ]
    page = watched.open(built / "q" / f"{ANSWERED}.html")
    seen = page.evaluate(GRADE, [list(case) for case in cases])
    expected = [list(answer.grade(text, a).__dict__.values()) for text, a in cases]
    differ = [
        (text, a["text"], s, e) for (text, a), s, e in zip(cases, seen, expected, strict=True) if s != e
    ]
    assert differ == []
    statuses = {status for status, _ in expected}
    assert statuses == {"right", "wrong", "wrong-unit", "unreadable"}  # the table reaches every verdict


def test_typing_an_answer_grades_it_before_the_reveal(watched: Watched, built: Path, tmp_path: Path) -> None:  # noqa: F811
    page = watched.open(built / "q" / f"{ANSWERED}.html")
    assert not page.evaluate("document.getElementById('answer').open")
    assert "at most 5% off" in page.inner_text("#tolerance")
    assert page.locator("#reveal").is_hidden()
    for typed, status, said in [
        ("0.04 s", "right", "Right: the worked answer says 40 ms."),
        ("41 ms", "wrong", "Not right: too high"),
        ("40 GB", "wrong-unit", "That is a size; the answer is a time."),
        ("forty", "unreadable", "Cannot read that."),
    ]:
        page.fill("#typed", typed)
        page.click("#check-answer")
        assert page.inner_text("#verdict").startswith(said), typed
        assert page.get_attribute("#verdict", "class") == f"verdict {status}"
    page.fill("#typed", "40ms")
    page.press("#typed", "Enter")  # and typing `a`, `n` in the box does not toggle the answer
    assert page.inner_text("#verdict").startswith("Right")
    assert not page.evaluate("document.getElementById('answer').open")
    page.click("#reveal")
    assert page.evaluate("document.getElementById('answer').open")
    page.screenshot(path=str(tmp_path / "check.png"), full_page=True)


def test_lines_the_audit_re_executed_are_marked(watched: Watched, built: Path) -> None:  # noqa: F811
    page = watched.open(built / "q" / f"{ANSWERED}.html")
    page.evaluate("() => document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    marked = page.locator("#napkin li.checked")
    assert marked.count() == 2
    assert marked.first.inner_text().startswith("✓") and "40 ms" in marked.first.inner_text()
    assert marked.first.get_attribute("title") == "re-executed by the audit: it holds"
    assert page.inner_text("#napkin .checked-summary") == "2 equations re-executed by the audit, all hold"
    assert page.locator("#answer p.checked").count() == 1
    assert page.locator("#napkin p.checked, #napkin li:not(.checked)").count() == 0  # prose is not marked
    assert _problems(page) == []


def test_claims_show_the_verdict_and_the_gpu_evidence(watched: Watched, built: Path) -> None:  # noqa: F811
    page = watched.open(built / "q" / f"{ANSWERED}.html")
    page.click("#claims summary")
    fp16, device = page.locator("#claims li").all_inner_texts()
    assert fp16.startswith("Holds: re-computed exactly on the CPU") and "2^-14" in fp16
    assert device.startswith("Confirmed on a GPU (scope H100)")
    assert (
        "GPU evidence: NVIDIA H100" in device and "driver 580.159.04" in device and "torch 2.11.0" in device
    )
    other = watched.open(built / "q" / f"{NO_EVIDENCE}.html")
    assert other.locator("#check").count() == 0  # no answer the audit found: no check
    other.click("#claims summary")
    (claim,) = other.locator("#claims li").all_inner_texts()
    assert claim.startswith("Not yet confirmed on a GPU") and "not yet confirmed on a GPU" in claim
    assert "GPU evidence:" not in claim
    assert _problems(other) == []
