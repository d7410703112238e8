"""The rules on copies: duplicate-content (question and answer the same, numbers and names aside)
and near-duplicate (title, scenario and question read almost the same). The measures are in
qbank/similarity/."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from qbank import similarity
from qbank.checks.api import BankEntry, Context, Memory
from qbank.finding import Finding, Severity
from qbank.rules import rule, rule_of


def near_duplicates(
    live: Sequence[BankEntry], memory: Memory | None = None, split: similarity.Split | None = None
) -> list[similarity.Pair]:
    """similar_pairs over the questions' shingles. A large bank with a memory searches only the pairs
    with a question the last search did not cover (a new or changed file, or one without a cache
    key), recalls the pairs among the others, and leaves this search in the memory in its place.
    With `split` (the runner's) a large search confirms its candidates in two processes."""
    if len(live) <= similarity.PAIRWISE_LIMIT:
        return similarity.pairwise([similarity.unpack(e.shingles) for e in live], similarity.THRESHOLD)
    covered, known = memory.recall() if memory else (set(), [])
    at = {e.key: i for i, e in enumerate(live) if e.key}
    # an edit changes a file's key, so a recalled pair is one of two unchanged files
    recalled = [(at[a], at[b], score) for a, b, score in known if a in at and b in at]
    new = [e.key not in covered for e in live]
    found = similarity.search(
        [e.shingles for e in live], [e.signature for e in live], new, similarity.THRESHOLD, split
    )
    pairs = sorted(recalled + found)
    if memory is not None and at:  # a --bank-only audit keys nothing: keep the last memory
        keyed = [(live[i].key, live[j].key, score) for i, j, score in pairs if live[i].key and live[j].key]
        memory.remember(list(at), keyed)
    return pairs


@rule("QB203", "duplicate-content")
def check_duplicate_content(entries: Sequence[BankEntry], context: Context) -> Iterator[Finding]:
    """Two questions must not ask and answer the same thing in the same words: the question and the
    realistic_solution are compared by their lowercase words (a word holding a digit or starting with
    a capital, a number or a name, is left out, and so are "a" and "an"), whatever the title and
    scenario say. Each copy is reported at its id,
    naming the others; keep one. A drill family that renders one stem with other numbers or another
    device makes copies: it must vary what is asked.

    Fails:
        two files that ask "What arithmetic intensity separates memory-bound from compute-bound
        kernels on an A100?" and "... on an H100?", and answer "The ridge point is about 203 FLOP
        per byte." and "... about 295 FLOP per byte." in otherwise the same words
    Passes:
        (each question and answer written once)
    """
    groups: dict[bytes, list[BankEntry]] = {}
    for entry in entries:
        if entry.content and not entry.tombstone:
            groups.setdefault(entry.content, []).append(entry)
    for group in groups.values():
        for entry in group if len(group) > 1 else ():
            others = [e.path for e in group if e is not entry]
            shown = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
            message = f"asks and answers the same as {shown}, numbers and names aside"
            yield rule_of(check_duplicate_content).finding(
                entry.path, *entry.id_at, message, entry.question_id
            )


@rule("QB202", "near-duplicate", Severity.WARNING)
def check_near_duplicates(entries: Sequence[BankEntry], context: Context) -> Iterator[Finding]:
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
    for i, j, score in near_duplicates(live, context.memory, context.split):
        for here, there in ((live[i], live[j]), (live[j], live[i])):
            message = f"reads like {there.path} (similarity {score:.2f} of title, scenario and question)"
            yield rule_of(check_near_duplicates).finding(
                here.path, *here.scenario_at, message, here.question_id
            )
