"""Near-duplicates: masked numbers, the pairwise and the MinHash/LSH paths agreeing, a search that
reuses the last one agreeing with one from scratch, and no numpy for small batches."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import random
import subprocess
import sys
from collections.abc import Callable
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from qbank import similarity
from qbank.checks import similar
from qbank.checks.api import BankEntry, KeyPair
from qbank.engine import runner
from qbank.similarity import minhash

SCENARIO = (
    "A 7B model serves chat traffic on one A100 40GB with a batch of 16 and 2,048-token contexts; "
    "p99 latency doubled after the context limit was raised to 8,192 tokens."
)


def test_only_the_numbers_changed_is_a_near_duplicate() -> None:
    other = SCENARIO.replace("7B", "13B").replace("16", "32").replace("8,192", "4,096")
    assert similarity.jaccard(similarity.shingles(SCENARIO), similarity.shingles(other)) == 1.0


def test_a_different_situation_is_not() -> None:
    other = "A keyword-spotting model on a Cortex-M4 misses wake words when the fan of the enclosure runs."
    assert similarity.jaccard(similarity.shingles(SCENARIO), similarity.shingles(other)) < 0.1


def test_shingles_are_stable_across_processes() -> None:
    code = "from qbank.similarity import shingles; print(sorted(shingles('a b c d e 1 2')))"
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
    sets = [similarity.shingles(t) for t in _texts(400, 60)]
    assert len(sets) > similarity.PAIRWISE_LIMIT  # so the MinHash/LSH path runs
    exact = [
        (i, j)
        for i, j in combinations(range(len(sets)), 2)
        if similarity.jaccard(sets[i], sets[j]) >= similarity.THRESHOLD
    ]
    found = [(i, j) for i, j, _ in similarity.similar_pairs(sets)]
    assert exact and found == exact


def test_confirming_in_two_processes_finds_what_one_process_finds(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    entries = _entries({f"q{k:03}": text for k, text in enumerate(_texts(400, 60))})
    alone = similar.near_duplicates(entries)
    confirmed = minhash._confirmed

    def spy(*args: Any) -> Any:
        (tmp_path / str(os.getpid())).touch()  # each process that confirms candidates leaves its pid
        return confirmed(*args)

    monkeypatch.setattr(minhash, "_confirmed", spy)
    monkeypatch.setattr(minhash, "SPLIT_MIN", 1)
    assert similar.near_duplicates(entries, split=None) == alone
    assert len(list(tmp_path.iterdir())) == 1
    both = similar.near_duplicates(entries, split=runner.in_two_processes)
    assert len(alone) > 10 and both == alone
    forks = "fork" in multiprocessing.get_all_start_methods()
    assert len(list(tmp_path.iterdir())) == (2 if forks else 1)


def test_the_incremental_index_flags_what_comparing_every_pair_flags() -> None:
    sets = [similarity.shingles(t) for t in _texts(400, 60)]
    index, flagged = similarity.Index(), []
    for member in sets:
        flagged.append(index.close_to(member))
        index.add(member)
    exact = [
        any(similarity.jaccard(sets[k], sets[i]) >= similarity.THRESHOLD for i in range(k))
        for k in range(len(sets))
    ]
    assert any(exact) and flagged == exact


def test_small_batches_do_not_import_numpy() -> None:
    code = (
        "import sys; from qbank.similarity import shingles, similar_pairs; "
        "similar_pairs([shingles('a b c d'), shingles('a b c d')]); print('numpy' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_one_batch_of_signatures_equals_one_set_at_a_time() -> None:
    sets = [similarity.shingles(t) for t in _texts(30, 5)] + [frozenset()]
    packed = [similarity.pack(s) for s in sets]
    assert similarity.signatures(packed) == [similarity.signatures([p])[0] for p in packed]
    assert similarity.signatures(packed)[-1] == b"\xff" * similarity.HASHES * 4  # an empty set: all-max


def test_exact_similarities_in_numpy_equal_jaccard() -> None:
    sets = [similarity.shingles(t) for t in _texts(40, 20)] + [frozenset(), frozenset()]
    tokens = minhash._Tokens([similarity.pack(s) for s in sets])
    pairs = list(combinations(range(len(sets)), 2))
    left, right = (np.array(side) for side in zip(*pairs, strict=True))
    assert tokens.jaccards(left, right).tolist() == [similarity.jaccard(sets[i], sets[j]) for i, j in pairs]


class _Memory:
    """checks.api.Memory in two attributes (the audit cache keeps the same in SQLite)."""

    def __init__(self) -> None:
        self.keys: list[bytes] = []
        self.pairs: list[KeyPair] = []

    def recall(self) -> tuple[set[bytes], list[KeyPair]]:
        return set(self.keys), list(self.pairs)

    def remember(self, keys: list[bytes], pairs: list[KeyPair]) -> None:
        self.keys, self.pairs = keys, pairs


def _entries(texts: dict[str, str]) -> list[BankEntry]:
    """One entry per file name, keyed (like the cache) by name and text: an edit changes the key."""
    return [
        BankEntry(
            name,
            None,
            False,
            (1, 1),
            (1, 1),
            similarity.pack(similarity.shingles(text)),
            None,
            _key(name, text),
        )
        for name, text in sorted(texts.items())
    ]


def _key(name: str, text: str) -> bytes:
    return hashlib.blake2b(f"{name}\0{text}".encode(), digest_size=20).digest()


def _named(entries: list[BankEntry], pairs: list[similarity.Pair]) -> list[tuple[str, str, float]]:
    return [(entries[i].path, entries[j].path, score) for i, j, score in pairs]


def test_a_search_that_reuses_the_last_one_finds_what_a_search_from_scratch_finds() -> None:
    """Edits that make and break near-duplicates, deleted and added files, one file and many at a
    time: after each, the search with a memory equals one from scratch (no memory)."""
    rng = random.Random(7)
    pool = _texts(500, 80)
    texts = {f"q{k:03}": pool[k] for k in range(300)} | {f"c{k:03}": pool[500 + k] for k in range(40)}
    memory = _Memory()
    edits: list[Callable[[dict[str, str]], None]] = [
        lambda t: t.update(c000=pool[450]),  # a copy rewritten: one pair gone
        lambda t: t.update(n001=pool[5]),  # a new file copying another: one pair more
        lambda t: t.update(q010=pool[11]),  # an old file edited into a copy of another
        lambda t: t.pop("q001"),  # a deleted file: its pair goes with it
        lambda t: t.update({f"c{k:03}": pool[400 + k] for k in range(1, 30)}),  # many at once
        lambda t: t.update({f"m{k:03}": pool[k] for k in range(60, 80)}),  # many copies added
        lambda t: t.update({name: t[name] + " w1 w2 w3" for name in rng.sample(sorted(t), 5)}),
        lambda t: None,  # nothing changed
    ]
    for edit in [lambda t: None, *edits]:
        edit(texts)
        entries = _entries(texts)
        scratch = similar.near_duplicates(entries)
        assert scratch == similarity.similar_pairs([similarity.unpack(e.shingles) for e in entries])
        assert _named(entries, similar.near_duplicates(entries, memory)) == _named(entries, scratch)
        assert sorted(memory.keys) == sorted(e.key for e in entries)
    assert len(scratch) > 10


def test_pairs_among_unchanged_files_are_recalled_not_searched() -> None:
    """What makes a warm audit fast: a pair the memory holds between two unchanged files is taken
    as it is (here one that is not even true), and only a changed file is compared afresh."""
    pool = _texts(200, 0)
    texts = {f"q{k:03}": pool[k] for k in range(150)}
    entries, memory = _entries(texts), _Memory()
    assert similar.near_duplicates(entries, memory) == []
    memory.pairs = [(entries[3].key, entries[4].key, 0.75)]
    texts["q100"] = pool[7]  # now a copy of q007
    entries = _entries(texts)
    assert _named(entries, similar.near_duplicates(entries, memory)) == [
        ("q003", "q004", 0.75),
        ("q007", "q100", 1.0),
    ]


def test_masking_makes_two_drills_of_one_template_read_the_same() -> None:
    """duplicate-content compares question and answer with numbers and names masked (issue 26)."""
    a = similarity.masked("Does Llama 2 7B fit in 16 GB on a V100 at 2 bytes a parameter?")
    b = similarity.masked("Does Mistral 13B fit  in 32 GB on an H100 at 1 byte a parameter?")
    assert a == similarity.masked("Does Llama 2 7B fit in 16 GB on a V100 at 2 bytes a parameter?")
    assert a != b  # "bytes" and "byte": the words a template keeps are compared
    assert similarity.masked("on a V100 at 2 bytes") == similarity.masked("on an H100 at 4 bytes")
    assert similarity.masked("the ridge is 203 FLOP/byte") == similarity.masked("the ridge is 591 FLOP/byte")
    assert similarity.masked("the weights fit") != similarity.masked("the weights do not fit")
