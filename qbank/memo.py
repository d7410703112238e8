"""Every memory qbank keeps between calls, listed here with its bound: the one room for memo caches.

Most remember a pure function of text (a napkin-math line, a number, a unit word): the answer is the
same in any audit, so they live as long as the process, bounded so that a long one (a fuzzer, a test
run) cannot grow without end. Those marked "run" remember what files said (the GPU evidence), and
the audit empties them when it starts (engine.pipeline), so a run never sees an earlier run's files.
Why each one pays, with figures: benchmarks/README.md.

A function is memoised with `@memo.cached("name")`; a memory that must be a plain dict (looked up in
C by `map(table.get, words)`, where a call per word cost more) is a `memo.Table("name")`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Literal, NamedTuple, TypeVar


class Bound(NamedTuple):
    entries: int
    scope: Literal["text", "run"]
    why: str


BOUNDS: dict[str, Bound] = {
    "load.walker.long_runs": Bound(
        64, "text", "one pattern per line-prefix length the depth bound asks about"
    ),
    "model.hardware.quantity": Bound(
        4096, "text", "the table's values repeat (`80 GB`), each read both ways"
    ),
    "model.fields.text.judged": Bound(
        65536, "text", "title words recur across a bank (a plain dict, see Table)"
    ),
    "napkin.lexer.literal": Bound(4096, "text", "the same few numbers recur all through a bank"),
    "napkin.evaluate.is_unit": Bound(4096, "text", "asked of every word, many times, while finding terms"),
    "napkin.evaluate.is_known": Bound(4096, "text", "as is_unit"),
    "napkin.evaluate.unit_of": Bound(16384, "text", "the same words, read in every mode of every equation"),
    "napkin.evaluate.mode_dependent": Bound(4096, "text", "as unit_of"),
    "napkin.equations.line_outcomes": Bound(
        16384, "text", "napkin lines recur (restated steps, shared setups)"
    ),
    "napkin.equations.stated": Bound(4096, "text", "claims state the same few numbers (65,536, 2^-24)"),
    "checks.hardware_constants.line_problems": Bound(8192, "text", "napkin lines recur across a bank"),
    "checks.numeric_claims.problems": Bound(
        4096, "text", "the claims a bank repeats (a plain dict: the meter)"
    ),
    "similarity.word_hashes": Bound(65536, "text", "a bank's vocabulary (a plain dict, see Table)"),
    "similarity.minhash.hash_family": Bound(1, "text", "the MinHash coefficients, made once"),
    "engine.store.ours": Bound(1, "text", "the cache's own schema, as SQLite stores it, made once"),
    "export.site.static_names": Bound(1, "text", "the site's fixed file names, from the packaged assets"),
    "export.site.renderer": Bound(1, "text", "a digest of the page templates and renderer, read once"),
    "export.anki.renderer": Bound(1, "text", "a digest of the note renderer's code, read once"),
    "export.anki.schema": Bound(
        1, "text", "the schema of a collection qbank makes, to compare a kept one with"
    ),
    "gpu.resolve.load": Bound(4, "run", "the evidence of a bank, read once per audit, not once per claim"),
}

F = TypeVar("F", bound=Callable[..., Any])
_MADE: dict[str, Any] = {}  # name -> the cached function or Table, to empty them


def cached(name: str) -> Callable[[F], F]:
    """functools.lru_cache with the bound BOUNDS gives `name` (a KeyError for a memory not listed)."""
    bound = BOUNDS[name]

    def decorate(function: F) -> F:
        made = functools.lru_cache(maxsize=bound.entries)(function)
        _MADE[name] = made
        return made  # type: ignore[return-value]

    return decorate


class Table(dict[Any, Any]):
    """A plain dict memory with a bound: `make_room()` before adding empties it when full."""

    def __init__(self, name: str) -> None:
        super().__init__()
        self.bound = BOUNDS[name].entries
        _MADE[name] = self

    def make_room(self) -> None:
        if len(self) >= self.bound:
            self.clear()


def clear(scope: str | None = None) -> None:
    """Empty the memories of `scope` ("run": what files said), or all of them (cold benchmark runs)."""
    for name, made in _MADE.items():
        if scope is None or BOUNDS[name].scope == scope:
            made.cache_clear() if hasattr(made, "cache_clear") else made.clear()


def made() -> dict[str, Any]:
    """The memories made so far, by name (tests compare them with BOUNDS)."""
    return dict(_MADE)
