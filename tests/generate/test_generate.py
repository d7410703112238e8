"""`qbank generate`: every family renders questions that pass the bank's own audit, reproducibly,
without near-duplicates, and never over an existing file."""

from __future__ import annotations

import dataclasses
import random
import shutil
from datetime import date
from pathlib import Path

import pytest

from qbank import generate as generator
from qbank import similarity
from qbank.generate import Family, Run
from qbank.generate.draft import Draft
from qbank.generate.families import FAMILIES
from qbank.generate.tables import Tables, load_models
from qbank.model.taxonomy import load_bank_tables
from tests.conftest import REPO, audit_json, run_cli

TODAY = date(2026, 11, 22)


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    """An empty bank with the repository's schema files."""
    shutil.copytree(REPO / "schema", tmp_path / "schema")
    (tmp_path / "questions").mkdir()
    return tmp_path


def _run(bank: Path) -> Run:
    schema = load_bank_tables(bank / "schema")
    tables = Tables(schema.hardware, load_models(bank / "schema"))
    return Run(bank, schema, tables, TODAY, set(), similarity.Index())


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_every_family_renders_checked_questions_in_every_cell_it_claims(bank: Path, family: Family) -> None:
    for track, level in sorted(family.cells):
        # fill() runs each draft through the audit's per-file rules and raises TemplateError on a finding.
        # One distinct drill is all some cells can hold (duplicate-content masks numbers and names).
        assert generator.fill(_run(bank), family, track, level, 1, seed=7, dry_run=True) == 1, (track, level)


def test_generated_bank_audits_clean_and_records_its_provenance(bank: Path) -> None:
    result = run_cli("generate", "--per-cell", "2", cwd=bank)
    assert result.exit_code == 0, result.output
    files = sorted((bank / "questions").rglob("*.yaml"))
    assert len(files) >= 15  # every track x level cell from L1 to L3 has at least one family
    code, report = audit_json(str(bank / "questions"), cwd=bank)
    assert report["findings"] == [] and code == 0
    levels = {
        line
        for f in files
        for line in f.read_text(encoding="utf-8").splitlines()
        if line.startswith("level:")
    }
    assert levels == {"level: L1", "level: L2", "level: L3"}
    text = files[0].read_text(encoding="utf-8")
    assert "provenance: generated" in text and "generator:\n  family: " in text


def test_generation_is_reproducible_and_tops_up_instead_of_repeating(bank: Path, tmp_path: Path) -> None:
    other = tmp_path / "other"
    shutil.copytree(bank, other)
    for root in (bank, other):
        assert run_cli("generate", "mcu-latency", "--per-cell", "3", cwd=root).exit_code == 0
    first = {p.relative_to(bank): p.read_bytes() for p in (bank / "questions").rglob("*.yaml")}
    second = {p.relative_to(other): p.read_bytes() for p in (other / "questions").rglob("*.yaml")}
    assert first == second and len(first) == 3 * 2

    again = run_cli("generate", "mcu-latency", "--per-cell", "3", cwd=bank)
    assert "wrote 0 questions" in again.output
    more = run_cli("generate", "mcu-latency", "--per-cell", "4", cwd=bank)
    assert "wrote 2 questions" in more.output
    assert all(
        p.read_bytes() == first[p.relative_to(bank)]
        for p in (bank / "questions").rglob("*.yaml")
        if p.relative_to(bank) in first
    )


def test_a_draft_that_reads_like_a_bank_question_is_dropped(bank: Path) -> None:
    family = next(f for f in FAMILIES if f.name == "carbon")
    run = _run(bank)
    generator.fill(run, family, "global", "L2", 1, seed=3, dry_run=True)
    repeat = _run(bank)
    repeat.seen = run.seen  # the same draft is now "in the bank"
    generator.fill(repeat, family, "global", "L2", 1, seed=3, dry_run=True)
    assert repeat.dropped >= 1


def test_a_draft_that_asks_and_answers_like_a_bank_question_is_dropped(bank: Path) -> None:
    """Issue 26: 452 drills repeated another's question and answer under a different opener, which
    the near-duplicate test (title, scenario, question) let through."""
    family = next(f for f in FAMILIES if f.name == "carbon")
    run = _run(bank)
    generator.fill(run, family, "global", "L2", 1, seed=3, dry_run=True)
    repeat = _run(bank)
    repeat.contents = run.contents  # the same question and answer are now "in the bank"
    generator.fill(repeat, family, "global", "L2", 1, seed=3, dry_run=True)
    assert run.contents and repeat.dropped >= 1


def test_a_template_with_wrong_arithmetic_stops_the_run(bank: Path) -> None:
    good = next(f for f in FAMILIES if f.name == "carbon")

    def broken(rng: random.Random, tables: Tables, track: str, level: str) -> Draft | None:
        draft = good.make(rng, tables, track, level)
        assert draft is not None
        return dataclasses.replace(draft, calculations=["2 * 3 kWh = 7 kWh"])

    family = dataclasses.replace(good, make=broken)
    with pytest.raises(generator.TemplateError, match="arithmetic"):
        generator.fill(_run(bank), family, "global", "L2", 1, seed=1, dry_run=True)
    assert not list((bank / "questions").rglob("*.yaml"))


def test_a_missing_model_table_is_an_error_not_an_empty_run(bank: Path) -> None:
    (bank / "schema" / "models.yaml").unlink()
    result = run_cli("generate", "--per-cell", "1", cwd=bank)
    assert result.exit_code == 1 and "models.yaml" in result.output
    assert not list((bank / "questions").rglob("*.yaml"))


def test_unknown_family_is_a_usage_error(bank: Path) -> None:
    result = run_cli("generate", "no-such-family", cwd=bank)
    assert result.exit_code == 2 and "unknown family 'no-such-family'" in result.output


def test_list_names_every_family() -> None:
    result = run_cli("generate", "--list")
    assert [line.split()[0] for line in result.output.splitlines()] == [f.name for f in FAMILIES]


def test_a_family_that_runs_dry_leaves_its_share_to_the_others(bank: Path) -> None:
    latency = next(f for f in FAMILIES if f.name == "mcu-latency")
    dry = dataclasses.replace(latency, name="dry", make=lambda rng, tables, track, level: None)
    for order in ([latency, dry], [dry, latency]):  # the share moves on within a round and to the next round
        shutil.rmtree(bank / "questions")
        (bank / "questions").mkdir()
        schema = load_bank_tables(bank / "schema")
        run = generator.generate(bank, schema, order, per_cell=4, seed=1, today=TODAY, dry_run=True)
        assert len(run.written) == 4 * len(latency.cells), [f.name for f in order]


def test_no_family_passes_its_cap_in_a_cell_counting_what_the_bank_holds(bank: Path) -> None:
    """Issue 26: a cell of 95 drills held 61 of one template."""
    assert run_cli("generate", "mcu-latency", "--per-cell", "9", "--cap", "2", cwd=bank).exit_code == 0
    assert len(list((bank / "questions").rglob("*.yaml"))) == 2 * 2
    again = run_cli("generate", "mcu-latency", "--per-cell", "9", "--cap", "3", cwd=bank)
    assert "wrote 2 questions" in again.output  # one more in each of its two cells


def test_tombstones_hold_their_ids_and_nothing_else(bank: Path) -> None:
    """A deleted drill's question neither counts toward its cell nor blocks a new drill like it."""
    assert run_cli("generate", "mcu-latency", "--per-cell", "1", cwd=bank).exit_code == 0
    for path in (bank / "questions").rglob("*.yaml"):
        path.write_text(path.read_text(encoding="utf-8").replace("status: published", "status: deleted"))
    assert "wrote 2 questions" in run_cli("generate", "mcu-latency", "--per-cell", "1", cwd=bank).output


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_every_rendered_paragraph_starts_a_sentence(bank: Path, family: Family) -> None:
    tables = _run(bank).tables
    rng = random.Random(5)
    for track, level in sorted(family.cells):
        for _ in range(20):
            draft = family.make(rng, tables, track, level)
            if draft is None:
                continue
            for text in (draft.title, draft.scenario, draft.question, draft.solution, *draft.mistake):
                assert not text[0].islower() or text.startswith(("nRF", "mmap")), (family.name, text)
