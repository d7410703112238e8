"""What every drill family must respect, over many draws of every cell it serves (issue 26): drills
live at L1 to L3, pair only things that exist together, round capacities down from unrounded
figures, and teach the mistake their own numbers punish."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from fractions import Fraction

import pytest

from qbank.generate import LEVELS, Family
from qbank.generate.draft import Draft
from qbank.generate.families import BY_NAME, FAMILIES, llm, tiny
from qbank.generate.families.common import MOBILE_USES
from qbank.generate.tables import Tables, load_models
from qbank.model.taxonomy import load_bank_tables
from tests.conftest import REPO

DRAWS = 60


@pytest.fixture(scope="module")
def tables() -> Tables:
    schema = load_bank_tables(REPO / "schema")
    return Tables(schema.hardware, load_models(REPO / "schema"))


def drafts(family: Family, tables: Tables) -> Iterator[Draft]:
    for track, level in sorted(family.cells):
        rng = random.Random(f"{family.name}:{track}:{level}")
        for _ in range(DRAWS):
            if (draft := family.make(rng, tables, track, level)) is not None:
                yield draft


def text(draft: Draft) -> str:
    return "\n".join([draft.title, draft.scenario, draft.question, draft.solution, *draft.mistake])


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_drills_live_at_l1_to_l3_and_in_their_cells(family: Family, tables: Tables) -> None:
    made = list(drafts(family, tables))
    assert made, "no draft in any cell"
    assert {d.level for d in made} <= set(LEVELS) == {"L1", "L2", "L3"}
    assert {(d.track, d.level) for d in made} <= family.cells


def test_a_family_above_l3_cannot_be_registered() -> None:
    with pytest.raises(ValueError, match="L4"):
        Family("design", 1, frozenset({("cloud", "L4")}), BY_NAME["carbon"].make, "")


@pytest.mark.parametrize("family", FAMILIES, ids=lambda f: f.name)
def test_phones_are_phones_and_never_split_a_model(family: Family, tables: Tables) -> None:
    for draft in drafts(family, tables):
        if draft.track != "mobile":
            continue
        assert "tensor parallel" not in text(draft).lower()
        device = draft.params.get("device")
        if isinstance(device, str) and device in tables.hardware.devices:
            assert device in llm.PHONES + ("apple-a17-pro", "snapdragon-8-gen-3"), device
            assert "M2" not in text(draft)


def test_text_only_models_are_cast_in_text_uses() -> None:
    assert not [u for u in MOBILE_USES if re.search(r"photo|image|camera|caption", u)]


def test_battery_drills_pair_a_product_with_a_cell_it_holds_and_a_part_with_its_sleep_current(
    tables: Tables,
) -> None:
    wearables = [p for p in tiny.POWERED_BY if re.search(r"ring|band|hearing|wearable", p)]
    assert len(wearables) == 4
    for product in wearables:
        assert not {"aa", "18650"} & set(tiny.POWERED_BY[product]), product
    products = {p for _, _, _, ps in tiny.TASKS for p in ps}
    assert products == set(tiny.POWERED_BY)  # every product has a power source, none is invented
    seen = 0
    for draft in drafts(BY_NAME["battery-life"], tables):
        product = next(p for p in products if p in draft.scenario or p[0].upper() + p[1:] in draft.scenario)
        cells = [tiny.BATTERIES[k] for k in tiny.POWERED_BY[product]]
        cell = next(c for c in cells if c.mah == draft.params["battery_mah"])
        assert int(draft.params["active_ma"]) <= cell.max_ma
        assert draft.params["sleep_ua"] in tiny.SLEEP_UA[str(draft.params["device"])]
        seen += 1
    assert seen > 50
    assert min(tiny.SLEEP_UA["rp2040"]) >= 180  # RP2040 DORMANT draws about 0.18 mA


def test_battery_mistake_is_the_one_its_own_numbers_punish(tables: Tables) -> None:
    for draft in drafts(BY_NAME["battery-life"], tables):
        bursts_dominate = "The bursts dominate" in draft.solution
        assert (
            "sleep current" in draft.mistake[0] and "Counting only the bursts" not in draft.mistake[0]
        ) == (bursts_dominate)


def test_kv_cache_counts_whole_sequences_from_unrounded_figures(tables: Tables) -> None:
    checked = 0
    for draft in drafts(BY_NAME["kv-cache"], tables):
        if draft.params["variant"] == "size":
            continue
        model = tables.models[str(draft.params["model"])]
        device = tables.hardware.devices[str(draft.params["device"])]
        memory = Fraction(device.spec("memory").low, 10**9)
        free = memory * (1 - Fraction(int(draft.params["reserve_pct"]), 100))
        free -= model.params * llm.BYTES[str(draft.params["precision"])]
        per_sequence = Fraction(
            2 * model.layers * model.kv_heads * model.head_dim * 2 * int(draft.params["context"]), 10**9
        )
        whole = int(free / per_sequence)
        assert f"at most {whole} fit" in draft.solution or f"{whole} whole sequences" in draft.solution
        checked += 1
    assert checked > 20


def test_scale_drill_mistake_does_not_contradict_its_result(tables: Tables) -> None:
    scales = [
        d
        for d in drafts(BY_NAME["format-range"], tables)
        if d.verify and d.verify[0]["kind"] == "scaled_product"
    ]
    kinds = set()
    for draft in scales:
        smallest = draft.verify[1]["expect"]  # type: ignore[index]
        kinds.add(smallest)
        says_no_scale_fits = "whatever the scale" in draft.mistake[2]
        assert says_no_scale_fits == (smallest != "normal"), draft.params
    assert kinds >= {"normal", "zero"}
