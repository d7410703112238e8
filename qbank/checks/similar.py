"""Near-duplicate questions: the same text with small edits, or with only its numbers changed.

What is compared is what a learner reads first: title, scenario and question. Text becomes a set
of word 3-shingles with every number (and number-led word: `7b`, `80gb`) replaced by `#`, so a question re-added with new numbers is
caught. Two questions are near-duplicates when the Jaccard similarity of those sets is at least
THRESHOLD, always confirmed exactly.

Few questions are compared pair by pair in pure Python (a pre-commit batch imports no numpy). A
large bank uses MinHash with banded LSH to find candidate pairs in near-linear time, then confirms
each candidate exactly. The reference used 5-character shingles, 64 MinHash values and 16 bands of
4 rows, documented as 128 values (research/anchor-vault.md §2); here 192 values in 64 bands of 3
rows find a pair at similarity 0.5 with probability 1 - (1 - 0.5^3)^64 > 0.9998, and at 0.6 with
probability > 0.9999999, while an unrelated pair (similarity 0.05) is a candidate 0.8% of the time.
"""

from __future__ import annotations

import functools
import re
import zlib
from collections.abc import Iterable, Iterator, Sequence
from itertools import combinations
from typing import TYPE_CHECKING, Any

from qbank.finding import Finding, Severity
from qbank.rules import of, rule

if TYPE_CHECKING:
    from qbank.checks.bank import BankEntry

THRESHOLD = 0.5  # unrelated questions score under 0.06 (StaffML sample and our bank); copies 1.0
SHINGLE_WORDS = 3
PAIRWISE_LIMIT = 100  # up to this many questions, compare every pair (4,950 set comparisons)
HASHES, BAND_ROWS = 192, 3
# One band's BAND_ROWS signature values become one key: the audit and Index must use the same.
_BAND_WEIGHTS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9)
ESTIMATE_MARGIN = 0.15  # 4.2 standard deviations of the MinHash estimate at 0.5
_WORD = re.compile(r"[a-z0-9]+(?:[.,'’][a-z0-9]+)*")
_TEXT_FIELDS = ("title", "scenario", "question")


def shingles(text: str) -> frozenset[int]:
    """The text's word 3-shingles, numbers masked, as integers that are the same in every run."""
    words = [_word_hash("#" if w[0].isdigit() else w) for w in _WORD.findall(text.lower())]
    words += [0] * (SHINGLE_WORDS - len(words))
    # hash() of a tuple of ints is not salted (only str and bytes are), so shingles are stable
    return frozenset(hash(tuple(words[i : i + SHINGLE_WORDS])) for i in range(len(words) - SHINGLE_WORDS + 1))


@functools.lru_cache(maxsize=65536)
def _word_hash(word: str) -> int:
    return zlib.crc32(word.encode())


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def similar_pairs(
    sets: Sequence[frozenset[int]],
    threshold: float = THRESHOLD,
    signatures: Sequence[bytes | None] = (),
) -> list[tuple[int, int, float]]:
    """Index pairs (i < j) whose Jaccard similarity is at least `threshold`, with that similarity.
    `signatures` are the sets' MinHash signatures where known (from the cache); the rest are made."""
    if len(sets) <= PAIRWISE_LIMIT:
        candidates: Iterable[tuple[int, int]] = combinations(range(len(sets)), 2)
    else:
        candidates = _lsh_candidates(sets, signatures, threshold)
    found = []
    for i, j in candidates:
        score = jaccard(sets[i], sets[j])
        if score >= threshold:
            found.append((i, j, score))
    return sorted(found)


def _lsh_candidates(
    sets: Sequence[frozenset[int]], known: Sequence[bytes | None], threshold: float
) -> list[tuple[int, int]]:
    """Pairs that share at least one band of their MinHash signatures and whose MinHash estimate of
    the similarity is within ESTIMATE_MARGIN of `threshold`.

    Question templates (drill families) share enough text for one band in three: in a 10,000
    question bank, 389,000 pairs. The estimate (the share of equal signature values) drops most of
    them before the exact comparison; its standard deviation at 0.5 is sqrt(0.25/192) = 0.036, so a
    pair at the threshold is dropped with probability 1.3e-5, and one at 0.55 with 1e-8.
    """
    import numpy as np  # only large banks pay for numpy

    signatures = _signature_matrix(sets, known)
    weights = np.array(_BAND_WEIGHTS, np.uint64)
    found = []
    for band in range(0, HASHES, BAND_ROWS):
        keys = signatures[:, band : band + BAND_ROWS] @ weights  # wraps mod 2^64
        order = np.argsort(keys)
        ranked = keys[order]
        # Equal keys sit side by side once sorted: the pairs of a band are the positions d apart
        # with equal keys, for d = 1, 2, ... until no group is that large.
        for d in range(1, len(sets)):
            at = np.flatnonzero(ranked[d:] == ranked[:-d])
            if not len(at):
                break
            found.append(_pair_codes(order[at], order[at + d], len(sets)))
    if not found:
        return []
    pairs = np.unique(np.concatenate(found))
    left, right = pairs // len(sets), pairs % len(sets)
    narrow = signatures.astype(np.uint32)  # the values are 32-bit (see _signatures): half the memory
    keep = np.zeros(len(pairs), dtype=bool)
    for first in range(0, len(pairs), 16384):  # bounded memory: 16,384 x 192 comparisons at a time
        part = slice(first, first + 16384)
        agree = np.count_nonzero(narrow[left[part]] == narrow[right[part]], axis=1) / HASHES
        keep[part] = agree >= threshold - ESTIMATE_MARGIN
    return list(zip(left[keep].tolist(), right[keep].tolist(), strict=True))


def _pair_codes(a: Any, b: Any, n: int) -> Any:
    """Pairs (i < j) as single integers i * n + j."""
    import numpy as np

    return np.minimum(a, b) * n + np.maximum(a, b)


def _signature_matrix(sets: Sequence[frozenset[int]], known: Sequence[bytes | None]) -> Any:
    import numpy as np

    known = known or [None] * len(sets)
    missing = [i for i, s in enumerate(known) if s is None]
    signatures = np.empty((len(sets), HASHES), np.uint64)
    if missing:
        signatures[missing] = _signatures([sets[i] for i in missing])
    for i, s in enumerate(known):
        if s is not None:
            signatures[i] = np.frombuffer(s, np.uint64)
    return signatures


class Index:
    """Sets added one at a time, and whether a new one is a near-duplicate of any of them: the
    same bands as the audit, kept in dictionaries (for `qbank generate`, which asks once per draft)."""

    def __init__(self) -> None:
        self.sets: list[frozenset[int]] = []
        self._buckets: dict[tuple[int, int], list[int]] = {}

    def close_to(self, candidate: frozenset[int], threshold: float = THRESHOLD) -> bool:
        seen = {i for key in _band_keys(candidate) for i in self._buckets.get(key, ())}
        return any(jaccard(candidate, self.sets[i]) >= threshold for i in seen)

    def add(self, member: frozenset[int]) -> None:
        for key in _band_keys(member):
            self._buckets.setdefault(key, []).append(len(self.sets))
        self.sets.append(member)


def _band_keys(member: frozenset[int]) -> list[tuple[int, int]]:
    import numpy as np

    weights = np.array(_BAND_WEIGHTS, np.uint64)
    keys = _signatures([member])[0].reshape(-1, BAND_ROWS) @ weights
    return list(enumerate(keys.tolist()))


def _signatures(sets: Sequence[frozenset[int]]) -> Any:
    """One row of HASHES minimum hash values per set (an empty set keeps all-max, matching nothing).

    The hash family is multiply-shift, ((a*x + b) mod 2^64) >> 32 with odd a (Dietzfelbinger et
    al. 1997): numpy's uint64 arithmetic wraps, so no modulo is needed.
    """
    import numpy as np

    a, b = _hash_family()
    out = np.full((len(sets), HASHES), np.iinfo(np.uint64).max, dtype=np.uint64)
    for first in range(0, len(sets), 256):  # 256 questions at a time bounds the memory
        group = sets[first : first + 256]
        sizes = [len(s) for s in group]
        filled = [k for k, n in enumerate(sizes) if n]
        if not filled:
            continue
        values = np.fromiter((x & 0xFFFFFFFFFFFFFFFF for s in group for x in s), np.uint64, sum(sizes))
        hashed = (values[:, None] * a + b) >> np.uint64(32)
        starts = np.cumsum([0, *sizes[:-1]])[filled]
        out[[first + k for k in filled]] = np.minimum.reduceat(hashed, starts, axis=0)
    return out


def signature(member: frozenset[int]) -> bytes:
    """One set's MinHash signature as bytes (kept in the audit cache)."""
    return bytes(_signatures([member])[0].tobytes())


def text_of(data: dict[str, Any]) -> str:
    return "\n".join(v for v in (data.get(f) for f in _TEXT_FIELDS) if isinstance(v, str))


@rule("QB202", "near-duplicate", Severity.WARNING)
def check_near_duplicates(entries: Sequence[BankEntry]) -> Iterator[Finding]:
    """Two questions must not read almost the same: title, scenario and question are compared as
    word 3-shingles with numbers masked, and a Jaccard similarity of 0.5 or more is reported on
    both files, naming the other.

    Changing only the numbers does not make a new question: a drill family varies the situation,
    not just its parameters. Deleted questions (tombstones) are not compared.

    Fails:
        scenario: An H100 serves a 70B model in FP16 ... (and a second file with 13B and an A100)
    Passes:
        (two questions about different situations)
    """
    live = [e for e in entries if not e.tombstone]
    pairs = similar_pairs([e.shingles for e in live], signatures=[e.signature for e in live])
    for i, j, score in pairs:
        for here, there in ((live[i], live[j]), (live[j], live[i])):
            message = f"reads like {there.path} (similarity {score:.2f} of title, scenario and question)"
            yield of(check_near_duplicates).finding(here.path, *here.scenario_at, message, here.question_id)


@functools.cache
def _hash_family() -> tuple[Any, Any]:
    import numpy as np

    rng = np.random.default_rng(20261122)  # fixed: the same bank gives the same candidates
    a = rng.integers(0, 1 << 63, HASHES, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    b = rng.integers(0, 1 << 63, HASHES, dtype=np.uint64)
    return a, b
