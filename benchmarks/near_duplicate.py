"""Benchmark: the near-duplicate rule on 10,000 questions, against comparing every pair.

Run by hand (not a test): `.venv/bin/python benchmarks/near_duplicate.py [N]`. The texts are the
bank's own titles, scenarios and questions; past the bank's size, each extra text joins the title,
scenario and question of three different questions, so vocabulary and length stay realistic and
the extras are not copies (drill parts from one template family still make some extras read alike,
which the pair count shows; the bank itself has none). Reports, in one run: shingling, the MinHash/LSH pass the audit uses
(`similar_pairs`), and exact all-pairs Jaccard on a subset, extrapolated to N by the pair count.
Target (issue 5): fast on 10k questions.
"""

from __future__ import annotations

import random
import sys
import time
from itertools import combinations
from pathlib import Path

import yaml

from qbank.similarity import THRESHOLD, jaccard, shingles, similar_pairs

ROOT = Path(__file__).resolve().parents[1]
SUBSET = 2000  # all-pairs on this many: 2.0M comparisons


def bank_texts() -> list[tuple[str, str, str]]:
    texts = []
    for file in sorted((ROOT / "questions").rglob("*.yaml")):
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
        texts.append((str(data["title"]), str(data["scenario"]), str(data["question"])))
    return texts


def corpus(n: int) -> list[str]:
    bank = bank_texts()
    rng = random.Random(1)
    texts = ["\n".join(t) for t in bank[:n]]
    while len(texts) < n:
        a, b, c = rng.sample(bank, 3)
        texts.append("\n".join((c[0], a[1], b[2])))
    return texts


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    texts = corpus(n)
    start = time.perf_counter()
    sets = [shingles(t) for t in texts]
    t_shingle = time.perf_counter() - start
    start = time.perf_counter()
    pairs = similar_pairs(sets)
    t_lsh = time.perf_counter() - start

    subset = sets[:SUBSET]
    start = time.perf_counter()
    exact = sum(1 for a, b in combinations(subset, 2) if jaccard(a, b) >= THRESHOLD)
    t_all = time.perf_counter() - start
    t_all_n = t_all * (n * (n - 1)) / (SUBSET * (SUBSET - 1))
    lsh_subset = similar_pairs(subset)

    print(f"{n} questions ({len(bank_texts())} from the bank)")
    print(f"shingling            {t_shingle:7.2f} s")
    print(f"MinHash/LSH pairs    {t_lsh:7.2f} s  ({len(pairs)} pairs at Jaccard >= {THRESHOLD})")
    print(
        f"all pairs, {SUBSET}     {t_all:7.2f} s  ({exact} pairs; LSH finds {len(lsh_subset)} on the same subset)"
    )
    print(f"all pairs, {n} (extrapolated) {t_all_n:7.1f} s, {t_all_n / t_lsh:.0f}x the LSH pass")


if __name__ == "__main__":
    main()
