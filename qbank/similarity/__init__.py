"""Similarity of texts, a library with no rules: word shingles with numbers masked, Jaccard,
MinHash and banded LSH, and the masked question-and-answer key (rules near-duplicate and
duplicate-content, qbank/checks/similar.py, use it; so do `qbank generate` and `qbank stats`).

Near-duplicate questions: the same text with small edits, or with only its numbers changed.

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

Signatures are made in one batch, each distinct shingle hashed once, and kept in the audit cache.
Whether a pair is reported depends only on its two questions (the hash family is fixed), so an
audit of a large bank also keeps the pairs it found (a Memory), and the next audit searches only
the questions that are new or changed, against the whole bank, and recalls the pairs among the
others: the same pairs as a search from scratch (tests/similarity/test_similarity.py compares the two),
for the cost of the changed files.
"""

from __future__ import annotations

import hashlib
import re
import zlib
from array import array
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

from qbank import memo

THRESHOLD = 0.5  # unrelated questions score under 0.06 (StaffML sample and our bank); copies 1.0
SHINGLE_WORDS = 3
PAIRWISE_LIMIT = 100  # up to this many questions, compare every pair (4,950 set comparisons)
HASHES, BAND_ROWS = 192, 3
BANDS = HASHES // BAND_ROWS
ESTIMATE_MARGIN = 0.15  # 4.2 standard deviations of the MinHash estimate at 0.5
_WORD = re.compile(r"[a-z0-9]+(?:[.,'’][a-z0-9]+)*")
_TEXT_FIELDS = ("title", "scenario", "question")

Pair = tuple[int, int, float]  # indices i < j of two questions, and their similarity


def shingles(text: str) -> frozenset[int]:
    """The text's word 3-shingles, numbers masked, as integers that are the same in every run."""
    found = _WORD.findall(text.lower())
    words = list(map(_WORD_HASHES.get, found))  # known words looked up in C, the rest hashed below
    if None in words:
        words = [h if h is not None else _word_hash(w) for h, w in zip(words, found, strict=True)]
    words += [0] * (SHINGLE_WORDS - len(words))
    # hash() of a tuple of ints is not salted (only str and bytes are), so shingles are stable
    return frozenset(map(hash, zip(*(words[k:] for k in range(SHINGLE_WORDS)), strict=False)))


_WORD_HASHES = memo.Table("similarity.word_hashes")  # a plain dict: a cached call per word cost more


def _word_hash(word: str) -> int:
    """A word's stable hash; a number, or a word led by one (`7b`, `80gb`), hashes as `#`."""
    _WORD_HASHES.make_room()
    value = _WORD_HASHES[word] = zlib.crc32(b"#" if word[0].isdigit() else word.encode())
    return value


def jaccard(a: frozenset[int], b: frozenset[int]) -> float:
    if not (a or b):
        return 1.0
    common = len(a & b)  # |a | b| is |a| + |b| - |a & b|: no union set is built
    return common / (len(a) + len(b) - common)


def pack(members: frozenset[int]) -> bytes:
    """Shingles as sorted int64s: how the audit carries and caches them (no set to build or pickle)."""
    return array("q", sorted(members)).tobytes()


def unpack(packed: bytes) -> frozenset[int]:
    return frozenset(array("q", packed))


def similar_pairs(
    sets: Sequence[frozenset[int]],
    threshold: float = THRESHOLD,
    signatures: Sequence[bytes | None] = (),
) -> list[Pair]:
    """Index pairs (i < j) whose Jaccard similarity is at least `threshold`, with that similarity.
    `signatures` are the sets' MinHash signatures where known (from the cache); the rest are made."""
    if len(sets) <= PAIRWISE_LIMIT:
        return pairwise(sets, threshold)
    packed = [pack(s) for s in sets]
    return search(packed, list(signatures) or [None] * len(sets), None, threshold)


def pairwise(sets: Sequence[frozenset[int]], threshold: float) -> list[Pair]:
    """Every pair compared, in pure Python (few sets)."""
    found = []
    for i, j in combinations(range(len(sets)), 2):
        score = jaccard(sets[i], sets[j])
        if score >= threshold:
            found.append((i, j, score))
    return found


def search(
    packed: Sequence[bytes],
    known: Sequence[bytes | None],
    new: Sequence[bool] | None,
    threshold: float,
    split: Split | None = None,
) -> list[Pair]:
    """The pairs (i < j) at `threshold` or more among packed shingle sets, at least one of each pair
    `new` (None: all are): MinHash/LSH candidates, confirmed exactly. `split`, given by the caller
    that owns processes (the audit's runner), confirms minhash.SPLIT_MIN candidates or more in two halves."""
    from qbank.similarity import minhash  # only large banks pay for numpy

    return minhash.search(packed, known, new, threshold, split)


def signatures(packed: Sequence[bytes]) -> list[bytes]:
    """MinHash signatures of packed shingle sets, made in one batch, as the audit cache keeps them."""
    if not packed:
        return []
    from qbank.similarity import minhash  # only large banks pay for numpy

    return minhash.signatures(packed)


Confirm = Callable[[Any, Any], tuple[Any, Any, Any]]
Split = Callable[[Confirm, Any, Any], tuple[Any, Any, Any]]  # confirm(left, right) in halves, elsewhere


class Index:
    """Sets added one at a time, and whether a new one is a near-duplicate of any of them: the
    same bands as the audit, kept in dictionaries (for `qbank generate`, which asks once per draft)."""

    def __init__(self) -> None:
        self.sets: list[frozenset[int]] = []
        self._buckets: dict[tuple[int, int], list[int]] = {}

    def close_to(self, candidate: frozenset[int], threshold: float = THRESHOLD) -> bool:
        seen = {i for key in _keys_of(candidate) for i in self._buckets.get(key, ())}
        return any(jaccard(candidate, self.sets[i]) >= threshold for i in seen)

    def add(self, member: frozenset[int]) -> None:
        for key in _keys_of(member):
            self._buckets.setdefault(key, []).append(len(self.sets))
        self.sets.append(member)


def _keys_of(member: frozenset[int]) -> list[tuple[int, int]]:
    from qbank.similarity import minhash  # `qbank generate` only

    return minhash.keys_of(pack(member))


# The lowercase words of a text: a word holding a digit (`8b`, `x86`, `sm_90`) or starting with a
# capital (`H100`, `Orin`, `Yes`), and "a"/"an" before one, is what a drill template varies between
# copies. findall, not a masking sub(): the audit's hot path (benchmarks/README.md, copies).
_WORDS = re.compile(r"\b(?!an?\b)[a-z][a-z'\u2019-]*\b")


def masked(text: str) -> str:
    """The lowercase words of `text`, in order, one space apart: two renderings of one template
    read the same, whatever their numbers and names."""
    return " ".join(_WORDS.findall(text))


def content_key(data: dict[str, Any]) -> bytes:
    """A digest of what a question asks and answers: its question and realistic_solution with
    numbers and names masked (issue 26: 696 generated drills in 244 groups repeated another's
    question and answer apart from the scenario's opener, which the near-duplicate rule reads, and
    1,845 more differed only in their numbers and device names)."""
    details = data.get("details")
    answer = details.get("realistic_solution") if isinstance(details, dict) else None
    if not isinstance(data.get("question"), str) or not isinstance(answer, str):
        return b""
    text = masked(f"{data['question']}\n{answer}")
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).digest()


def text_of(data: dict[str, Any]) -> str:
    return "\n".join(v for v in (data.get(f) for f in _TEXT_FIELDS) if isinstance(v, str))
