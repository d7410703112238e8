"""Near-duplicates: masked numbers, the pairwise and the MinHash/LSH paths agreeing, and no numpy for small batches."""

from __future__ import annotations

import random
import subprocess
import sys
from itertools import combinations

from qbank.checks import similar

SCENARIO = (
    "A 7B model serves chat traffic on one A100 40GB with a batch of 16 and 2,048-token contexts; "
    "p99 latency doubled after the context limit was raised to 8,192 tokens."
)


def test_only_the_numbers_changed_is_a_near_duplicate() -> None:
    other = SCENARIO.replace("7B", "13B").replace("16", "32").replace("8,192", "4,096")
    assert similar.jaccard(similar.shingles(SCENARIO), similar.shingles(other)) == 1.0


def test_a_different_situation_is_not() -> None:
    other = "A keyword-spotting model on a Cortex-M4 misses wake words when the fan of the enclosure runs."
    assert similar.jaccard(similar.shingles(SCENARIO), similar.shingles(other)) < 0.1


def test_shingles_are_stable_across_processes() -> None:
    code = "from qbank.checks.similar import shingles; print(sorted(shingles('a b c d e 1 2')))"
    runs = {
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
        ).stdout
        for env in ({"PYTHONHASHSEED": "1"}, {"PYTHONHASHSEED": "2"})
    }
    assert len(runs) == 1


def _texts(n: int, copies: int) -> list[str]:
    rng = random.Random(5)
    words = [f"w{i}" for i in range(2000)]
    texts = [" ".join(rng.choice(words) for _ in range(60)) for _ in range(n)]
    for k in range(copies):  # edited copies, from barely touched to mostly rewritten
        tokens = texts[k].split()
        for _ in range(k % 30):
            tokens[rng.randrange(len(tokens))] = rng.choice(words)
        texts.append(" ".join(tokens))
    return texts


def test_lsh_finds_what_comparing_every_pair_finds() -> None:
    sets = [similar.shingles(t) for t in _texts(400, 60)]
    assert len(sets) > similar.PAIRWISE_LIMIT  # so the MinHash/LSH path runs
    exact = [
        (i, j)
        for i, j in combinations(range(len(sets)), 2)
        if similar.jaccard(sets[i], sets[j]) >= similar.THRESHOLD
    ]
    found = [(i, j) for i, j, _ in similar.similar_pairs(sets)]
    assert exact and found == exact


def test_the_incremental_index_flags_what_comparing_every_pair_flags() -> None:
    sets = [similar.shingles(t) for t in _texts(400, 60)]
    index, flagged = similar.Index(), []
    for member in sets:
        flagged.append(index.close_to(member))
        index.add(member)
    exact = [
        any(similar.jaccard(sets[k], sets[i]) >= similar.THRESHOLD for i in range(k))
        for k in range(len(sets))
    ]
    assert any(exact) and flagged == exact


def test_small_batches_do_not_import_numpy() -> None:
    code = (
        "import sys; from qbank.checks.similar import shingles, similar_pairs; "
        "similar_pairs([shingles('a b c d'), shingles('a b c d')]); print('numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
