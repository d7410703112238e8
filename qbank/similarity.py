"""Similarity of texts, a library with no rules: word shingles with numbers masked, Jaccard,
MinHash and banded LSH, and the masked question-and-answer key (rules near-duplicate and
duplicate-content, qbank/checks/similar.py, use it; so do `qbank generate` and tools/bank_stats.py).

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
others: the same pairs as a search from scratch (tests/test_similarity.py compares the two),
for the cost of the changed files.
"""

from __future__ import annotations

import functools
import hashlib
import re
import zlib
from array import array
from collections.abc import Callable, Sequence
from itertools import combinations
from typing import Any

THRESHOLD = 0.5  # unrelated questions score under 0.06 (StaffML sample and our bank); copies 1.0
SHINGLE_WORDS = 3
PAIRWISE_LIMIT = 100  # up to this many questions, compare every pair (4,950 set comparisons)
HASHES, BAND_ROWS = 192, 3
BANDS = HASHES // BAND_ROWS
# One band's BAND_ROWS signature values become one key: the audit and Index must use the same.
_BAND_WEIGHTS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9)
ESTIMATE_MARGIN = 0.15  # 4.2 standard deviations of the MinHash estimate at 0.5
_SIGNATURE_DTYPE = "<u4"  # signature values are 32-bit (see _Tokens.signatures)
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


_WORD_HASHES: dict[str, int] = {}  # a plain dict: a cached function call per word cost more


def _word_hash(word: str) -> int:
    """A word's stable hash; a number, or a word led by one (`7b`, `80gb`), hashes as `#`."""
    if len(_WORD_HASHES) >= 65536:  # bounded, as a bank's vocabulary is
        _WORD_HASHES.clear()
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
    that owns processes (the audit's runner), confirms SPLIT_MIN candidates or more in two halves."""
    import numpy as np  # only large banks pay for numpy

    missing = np.array([i for i, s in enumerate(known) if s is None], dtype=np.intp)
    tokens = _Tokens([packed[i] for i in missing.tolist()])
    made = iter(tokens.signatures())
    rows = b"".join(s if s is not None else next(made).tobytes() for s in known)
    matrix = np.frombuffer(rows, _SIGNATURE_DTYPE).reshape(len(known), HASHES)
    confirm = functools.partial(_confirmed, matrix, packed, (missing, tokens), threshold)
    left, right = _lsh_candidates(matrix, new)
    if split is not None and len(left) >= SPLIT_MIN:
        left, right, scores = split(confirm, left, right)
    else:
        left, right, scores = confirm(left, right)
    hit = scores >= threshold
    return list(zip(left[hit].tolist(), right[hit].tolist(), scores[hit].tolist(), strict=True))


Confirm = Callable[[Any, Any], tuple[Any, Any, Any]]
Split = Callable[[Confirm, Any, Any], tuple[Any, Any, Any]]  # confirm(left, right) in halves, elsewhere
# Candidates before a second process confirms half of them (a 10,000-question bank has 389,000).
SPLIT_MIN = 50_000


def _confirmed(
    signatures: Any,
    packed: Sequence[bytes],
    made: tuple[Any, _Tokens],
    threshold: float,
    left: Any,
    right: Any,
) -> tuple[Any, Any, Any]:
    """The candidate pairs whose MinHash estimate of the similarity is within ESTIMATE_MARGIN of
    `threshold`, and the exact similarity of each. `made`: the sets whose signatures were made here,
    and their _Tokens, reused when they hold every set of the pairs (a cold search: one np.unique less).

    Question templates (drill families) share enough text for one band in three: in a 10,000
    question bank, 389,000 candidates. The estimate (the share of equal signature values) drops most
    of them before the exact comparison; its standard deviation at 0.5 is sqrt(0.25/192) = 0.036, so
    a pair at the threshold is dropped with probability 1.3e-5, and one at 0.55 with 1e-8.
    """
    import numpy as np

    keep = _estimate_reaches(signatures, left, right, threshold - ESTIMATE_MARGIN)
    left, right = left[keep], right[keep]
    members = np.unique(np.concatenate([left, right]))
    missing, tokens = made
    if not np.isin(members, missing).all():
        tokens = _Tokens([packed[i] for i in members.tolist()])
    else:
        members = missing
    return left, right, tokens.jaccards(np.searchsorted(members, left), np.searchsorted(members, right))


def _lsh_candidates(signatures: Any, new: Sequence[bool] | None) -> tuple[Any, Any]:
    """Pairs (i < j, as two arrays in order), at least one of them `new` (None: all are), that share at
    least one band of their MinHash signatures."""
    import numpy as np

    n = len(signatures)
    fresh = np.ones(n, dtype=bool) if new is None else np.array(new, dtype=bool)
    bands = _band_keys(signatures).T.copy()  # a row per band, for contiguous sorts
    codes = np.concatenate([_band_pairs(keys, fresh) for keys in bands])
    codes.sort()  # then drop repeats (a pair can share several bands): faster than np.unique's hashing
    codes = codes[np.diff(codes, prepend=-1) != 0]
    return codes // n, codes % n


def _band_pairs(keys: Any, fresh: Any) -> Any:
    """The pairs that one band's keys put together, as codes i * n + j (i < j): each fresh set with
    every other set of equal key, a pair of two fresh sets once."""
    import numpy as np

    n = len(keys)
    a, b = _equal_keys(keys, fresh)
    keep = (a != b) & (~fresh[b] | (a < b))
    a, b = a[keep], b[keep]
    return np.minimum(a, b) * n + np.maximum(a, b)


def _equal_keys(keys: Any, fresh: Any) -> tuple[Any, Any]:
    """Index pairs (f, j) with `fresh[f]` and keys[f] == keys[j], j == f included."""
    import numpy as np

    few = np.flatnonzero(fresh)
    if len(few) <= 16:  # a warm audit's few changed files: each compared with all costs less than a sort
        row, right = np.nonzero(keys[few, None] == keys)
        return few[row], right
    order = np.argsort(keys)  # equal keys sit in runs once sorted
    ranked = keys[order]
    starts = np.flatnonzero(np.r_[True, ranked[1:] != ranked[:-1]])
    sizes = np.diff(starts, append=len(keys))
    run = np.repeat(np.arange(len(starts)), sizes)  # the run of each sorted position
    here = np.flatnonzero(fresh[order] & (sizes[run] > 1))
    size = sizes[run[here]]
    right = np.repeat(starts[run[here]], size) + _counts(size)
    return order[np.repeat(here, size)], order[right]


def _estimate_reaches(signatures: Any, left: Any, right: Any, floor: float) -> Any:
    """Whether each pair's share of equal signature values is at least `floor`. Equal values have
    equal low bytes, so low bytes are compared first (a quarter of the memory traffic), and only the
    pairs they do not rule out compare whole values: the same answer in half the time
    (benchmarks/README.md, near-duplicates)."""
    import numpy as np

    low = signatures.astype(np.uint8)
    keep = np.zeros(len(left), dtype=bool)
    for first in range(0, len(left), 16384):  # bounded memory: 16,384 x 192 comparisons at a time
        a, b = left[first : first + 16384], right[first : first + 16384]
        maybe = np.flatnonzero(np.count_nonzero(low[a] == low[b], axis=1) / HASHES >= floor)
        agree = np.count_nonzero(signatures[a[maybe]] == signatures[b[maybe]], axis=1) / HASHES
        keep[first + maybe[agree >= floor]] = True
    return keep


def _counts(sizes: Any) -> Any:
    """0, 1, ..., size - 1 for each size, end to end."""
    import numpy as np

    return np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes)


class _Tokens:
    """Packed shingle sets end to end, each value with its rank among the distinct values: what
    signatures and exact similarities of many sets are computed from, in numpy."""

    def __init__(self, packed: Sequence[bytes]) -> None:
        import numpy as np

        self.sizes = np.fromiter(map(len, packed), np.intp, len(packed)) // 8
        self.starts = np.cumsum(self.sizes) - self.sizes
        values = np.frombuffer(b"".join(packed), np.int64)
        self.distinct, self.rank = np.unique(values, return_inverse=True)

    def signatures(self) -> Any:
        """One row of HASHES minimum hash values per set (an empty set keeps all-max values).

        The hash family is multiply-shift, ((a*x + b) mod 2^64) >> 32 with odd a (Dietzfelbinger
        et al. 1997): numpy's uint64 arithmetic wraps, so no modulo is needed. Each distinct value
        is hashed once (templates repeat shingles: a 10,000-question bank has 819,000 shingles,
        72,000 of them distinct), and a set's row is the minimum of its values' rows.
        """
        import numpy as np

        a, b = _hash_family()
        hashed = np.empty((len(self.distinct), HASHES), _SIGNATURE_DTYPE)
        for first in range(0, len(hashed), 4096):  # 4,096 values at a time: no 100 MB temporaries
            part = self.distinct[first : first + 4096, None].view(np.uint64) * a
            part += b
            part >>= np.uint64(32)
            hashed[first : first + 4096] = part
        out = np.full((len(self.sizes), HASHES), np.iinfo(np.uint32).max, _SIGNATURE_DTYPE)
        for i, (start, size) in enumerate(zip(self.starts.tolist(), self.sizes.tolist(), strict=True)):
            if size:  # one set at a time: measured faster than reduceat over many
                np.minimum.reduce(hashed[self.rank[start : start + size]], axis=0, out=out[i])
        return out

    def jaccards(self, left: Any, right: Any) -> Any:
        """The exact Jaccard similarity of each pair of sets (left[k], right[k]), as jaccard() gives it:
        the smaller set's values are looked up in the larger one, all pairs in one binary search."""
        import numpy as np

        n_values = len(self.distinct)
        owner = np.repeat(np.arange(len(self.sizes)), self.sizes)
        ordered = owner * n_values + self.rank  # sorted, as pack() sorts each set's values
        small = np.where(self.sizes[left] <= self.sizes[right], left, right)
        count = self.sizes[small]
        probe = np.repeat((left + right - small) * n_values, count)
        probe += self.rank[np.repeat(self.starts[small], count) + _counts(count)]
        found = np.searchsorted(ordered, probe).clip(max=len(ordered) - 1)
        pair = np.repeat(np.arange(len(left)), count)
        common = np.bincount(pair, weights=ordered[found] == probe, minlength=len(left))
        union = self.sizes[left] + self.sizes[right] - common
        return np.divide(common, union, out=np.ones(len(left)), where=union > 0)


def signatures(packed: Sequence[bytes]) -> list[bytes]:
    """MinHash signatures of packed shingle sets, made in one batch, as the audit cache keeps them."""
    if not packed:
        return []
    return [row.tobytes() for row in _Tokens(packed).signatures()]


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
    return list(enumerate(_band_keys(_Tokens([pack(member)]).signatures())[0].tolist()))


def _band_keys(signatures: Any) -> Any:
    """One key per set and band: the band's BAND_ROWS values weighted and summed (wrapping mod 2^64)."""
    import numpy as np

    rows = signatures.astype(np.uint64).reshape(len(signatures), BANDS, BAND_ROWS)
    return rows @ np.array(_BAND_WEIGHTS, np.uint64)


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


@functools.cache
def _hash_family() -> tuple[Any, Any]:
    import numpy as np

    rng = np.random.default_rng(20261122)  # fixed: the same bank gives the same candidates
    a = rng.integers(0, 1 << 63, HASHES, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    b = rng.integers(0, 1 << 63, HASHES, dtype=np.uint64)
    return a, b
