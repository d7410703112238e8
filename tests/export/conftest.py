"""A small bank for the export tests: released questions, withheld ones, a hostile one, math."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from qbank import engine
from qbank.export import release, site
from qbank.export.release import Release
from qbank.finding import Finding
from qbank.model.taxonomy import load_bank_tables
from tests.conftest import REPO
from tests.export import hostile

BASE = """\
schema_version: '1.0'
id: {id}
track: {track}
level: L3
zone: diagnosis
topic: mixed-precision-training
competency_area: precision
bloom_level: analyze
phase: training
title: {title}
scenario: {scenario}
question: {question}
details:
  realistic_solution: {solution}
  common_mistake: |
    **The Pitfall:** Reading zero gradients as convergence.
    **The Rationale:** A flat loss curve looks like a finished run.
    **The Consequence:** Compute is burned on a run that stopped learning.
  napkin_math: |
    **Assumptions:** a late-training gradient of 1e-8; loss scale 2^16.
    **Calculations:**
    - 1e-8 * 65,536 = 0.00065536
    **Conclusion:** scaled, the gradient is a normal FP16 number.
{extra}status: {status}
provenance: human
"""

PLAIN = {
    "track": "cloud",
    "title": "Loss Scaling Keeps FP16 Gradients Representable",
    "scenario": "A BF16 training run is ported to FP16 on V100 GPUs and the loss stops moving after a few thousand steps.",
    "question": "Why did the loss stop moving, and what should have prevented it?",
    "solution": "Small gradients fell below FP16's smallest subnormal and became zero; dynamic loss scaling keeps them representable.",
    "extra": "",
    "status": "published",
}

# Valid, so released: markup that the model allows (inside code spans, and bare comparisons) must
# still reach the page as text.
HOSTILE_SCENARIO = (
    "'A dashboard template printed `<script>window.__xss = 1</script>` and "
    '`<img src=x onerror="window.__xss = 2">` into its log when p99 < 5 ms & p50 > 2 ms, '
    "and a reviewer asked whether `<b>bold</b>` would render.'"
)

QUESTIONS = {
    "cloud-202611-e000": PLAIN,
    "edge-202611-e001": PLAIN
    | {
        "track": "edge",
        "title": "Zeppelin Telemetry Gradients Vanish in FP16",
        "scenario": "A zeppelin fleet retrains its anomaly model on a Jetson in FP16 and every gradient norm reads zero.",
        "question": "Why does every gradient norm read zero, and what keeps the small gradients?",
    },
    "cloud-202611-e002": PLAIN
    | {
        "title": "Dashboard Markup Shows as Text",
        "scenario": HOSTILE_SCENARIO,
        "question": "'Which of `<script>`, `<img onerror>` and `<b>` can run or render here?'",
    },
    "cloud-202611-e003": PLAIN
    | {
        "title": "Subnormal Spacing Written as Math",
        "scenario": "'FP16 subnormals are spaced \\(2^{-24}\\) apart, and a gradient of $10^{-8}$ sits below half a step, at $2/GPU-hour.'",
        "solution": "'$$2^{-24} \\approx 5.96 \\times 10^{-8}$$ so the gradient rounds to zero.'",
    },
    "cloud-202611-e004": PLAIN
    | {
        "title": "Pick the Loss Scale That Keeps Gradients",
        "question": "Which loss scale keeps a 1e-8 gradient in FP16's normal range?",
        "extra": "",
    },
    "cloud-202611-e005": PLAIN
    | {
        "title": "A Draft That Is Not Released",
        "status": "draft",
        "question": "What stops the loss from moving in this draft?",
    },
    "cloud-202611-e006": PLAIN
    | {"title": "An Error That Withholds the Question", "solution": "'2 * 3 = 7, so it is wrong.'"},
}
OPTIONS = """\
  options:
    - '2^4'
    - '2^16'
    - '2^40'
    - '1'
  correct_index: 1
"""
RELEASED = [
    "cloud-202611-e000",
    "cloud-202611-e002",
    "cloud-202611-e003",
    "cloud-202611-e004",
    "edge-202611-e001",
]


def question_text(question_id: str, **fields: str) -> str:
    text = BASE.format(id=question_id, **fields)
    if question_id == "cloud-202611-e004":  # multiple choice: options go inside details
        text = text.replace("  common_mistake:", OPTIONS + "  common_mistake:", 1)
    return text


def write_bank(root: Path) -> Path:
    shutil.copytree(REPO / "schema", root / "schema")
    for question_id, fields in QUESTIONS.items():
        folder = root / "questions" / fields["track"] / "precision"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{question_id}.yaml").write_text(question_text(question_id, **fields), encoding="utf-8")
    broken = root / "questions" / "cloud" / "precision" / "cloud-202611-e007.yaml"
    broken.write_text(
        question_text(
            "cloud-202611-e007", **PLAIN | {"question": "What went wrong in this broken file?"}
        ).replace("phase:", "phaze:"),
        encoding="utf-8",
    )
    return root


def edited_bank(bank: Path, root: Path) -> Path:
    """A copy of the bank at `root` with one question edited (zeppelin to blimp) and one removed."""
    shutil.copytree(bank, root)
    question = root / "questions" / "edge" / "precision" / "edge-202611-e001.yaml"
    question.write_text(question.read_text().replace("A zeppelin fleet", "A blimp fleet"))
    (root / "questions" / "cloud" / "precision" / "cloud-202611-e000.yaml").unlink()
    return root


@pytest.fixture(scope="session")
def bank(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The small bank; shared by the tests, which must not change it."""
    return write_bank(tmp_path_factory.mktemp("bank"))


# --- headless Chromium ------------------------------------------------------------------------

CHROMIUM = Path(os.environ.get("QBANK_CHROMIUM") or "/usr/bin/chromium")  # Debian's package
# research/ecosystem.md §7: Debian's Chromium, no Playwright browser download; without the
# background-networking flags Chromium tries to reach Google's hosts at every start.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _missing_browser() -> str | None:
    if not CHROMIUM.exists():
        return f"{CHROMIUM} not found (Debian package chromium, or set QBANK_CHROMIUM; .ci/run does)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    return None


@pytest.fixture(scope="session")
def browser():  # type: ignore[no-untyped-def]
    missing = _missing_browser()
    if missing:
        if os.environ.get("QBANK_REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser tests required (QBANK_REQUIRE_BROWSER=1) but {missing}")
        pytest.skip(missing)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield chromium
        chromium.close()


def release_of(root: Path) -> Release:
    """What `qbank export` would release from the bank at `root`."""
    schema = load_bank_tables(root / "schema")
    assert not isinstance(schema, Finding), schema
    report = engine.audit(engine.Settings(views=True), root)
    return release.select(report, schema.topic_groups)


# --- hostile input (tests/export/hostile.py) ------------------------------------------------------


@pytest.fixture(scope="session")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[hostile.Hostile]]:
    """A site whose questions carry XSS payloads: validated ones released by the real audit, and
    constructed ones past the model."""
    context = hostile.validation_context()
    valid = [hostile.validated(p, n, context) for n, p in enumerate(hostile.PAYLOADS)]
    released, valid = hostile.release_bank(tmp_path_factory.mktemp("hostile-bank"), valid)
    chosen, made = hostile.with_constructed(released, hostile.PAYLOADS)
    out = tmp_path_factory.mktemp("hostile-site") / "site"
    site.build(chosen, out)
    return out, [*valid, *made]
