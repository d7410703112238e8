"""MinHash signatures and banded LSH over packed shingle sets, in numpy: the near-duplicate search
of a large bank (see qbank/similarity/__init__.py for the scheme and its error rates). Imported only
when a bank is large enough to need it: a pre-commit run on a few files imports no numpy."""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

import numpy as np

from qbank import memo
from qbank.similarity import BAND_ROWS, BANDS, ESTIMATE_MARGIN, HASHES, Pair, Split

# One band's BAND_ROWS signature values become one key: the audit and Index must use the same.
_BAND_WEIGHTS = (0x9E3779B97F4A7C15, 0xC2B2AE3D27D4EB4F, 0x165667B19E3779F9)
_SIGNATURE_DTYPE = "<u4"  # signature values are 32-bit (see _Tokens.signatures)
# Candidates before a second process confirms half of them (a 10,000-question bank has 389,000).
SPLIT_MIN = 50_000


def search(
    packed: Sequence[bytes],
    known: Sequence[bytes | None],
    new: Sequence[bool] | None,
    threshold: float,
    split: Split | None = None,
) -> list[Pair]:
    """similarity.search, in numpy."""
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
    n = len(keys)
    a, b = _equal_keys(keys, fresh)
    keep = (a != b) & (~fresh[b] | (a < b))
    a, b = a[keep], b[keep]
    return np.minimum(a, b) * n + np.maximum(a, b)


def _equal_keys(keys: Any, fresh: Any) -> tuple[Any, Any]:
    """Index pairs (f, j) with `fresh[f]` and keys[f] == keys[j], j == f included."""
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
    return np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes)


class _Tokens:
    """Packed shingle sets end to end, each value with its rank among the distinct values: what
    signatures and exact similarities of many sets are computed from, in numpy."""

    def __init__(self, packed: Sequence[bytes]) -> None:
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
    return [row.tobytes() for row in _Tokens(packed).signatures()]


def keys_of(packed: bytes) -> list[tuple[int, int]]:
    """A packed set's (band, key) pairs, as the audit's bands put sets together (for Index)."""
    return list(enumerate(_band_keys(_Tokens([packed]).signatures())[0].tolist()))


def _band_keys(signatures: Any) -> Any:
    """One key per set and band: the band's BAND_ROWS values weighted and summed (wrapping mod 2^64)."""
    rows = signatures.astype(np.uint64).reshape(len(signatures), BANDS, BAND_ROWS)
    return rows @ np.array(_BAND_WEIGHTS, np.uint64)


@memo.cached("similarity.minhash.hash_family")
def _hash_family() -> tuple[Any, Any]:
    rng = np.random.default_rng(20261122)  # fixed: the same bank gives the same candidates
    a = rng.integers(0, 1 << 63, HASHES, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    b = rng.integers(0, 1 << 63, HASHES, dtype=np.uint64)
    return a, b
