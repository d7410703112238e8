"""Where a cold audit's CPU time goes, stage by stage, in one process (run by hand).

    .venv/bin/python benchmarks/stages.py [BANK]

BANK (default: this repository) is a folder with questions/ and schema/, such as one that
benchmarks/audit.py built under /tmp. Each file goes through the same steps as engine.per_file.check_file
(read, parse and walk, validate, each record check, the near-duplicate entry), each timed with
perf_counter, and then the MinHash signatures of all entries in one batch, as a worker signs them.
One process and no cache: these are per-file costs, which two workers share in a real audit; the
serial parts (start-up, listing, the near-duplicate search) are not timed here. The collector is
paused, as in an audit (engine.runner.collector_paused). Napkin math remembers lines, so its figure
depends on how often a bank repeats them.
"""

from __future__ import annotations

import collections
import sys
import time
from pathlib import Path

from qbank import engine, load, similarity
from qbank.checks import RECORD_CHECKS
from qbank.checks.api import Context
from qbank.checks.bank import entry_of
from qbank.engine.runner import collector_paused
from qbank.finding import Finding
from qbank.model.records import validate
from qbank.model.taxonomy import load_bank_tables

ROOT = Path(__file__).resolve().parents[1]


def stages(bank: Path) -> tuple[int, collections.Counter[str]]:
    files = engine.targets.sort_files(load.iter_yaml_files(bank / "questions"))
    schema = load_bank_tables(bank / "schema")
    context = Context(schema, bank / "questions")
    spent: collections.Counter[str] = collections.Counter()
    clock = time.perf_counter
    entries = []
    for file in files:
        shown = str(file)
        start = clock()
        data = load.read(file, shown)
        read = clock()
        document = load.from_read(data, shown)
        loaded = clock()
        spent["read"] += read - start
        spent["parse and walk"] += loaded - read
        if isinstance(document, Finding):
            continue
        record, _ = validate(file, document, schema)
        spent["validate (model and content rules)"] += clock() - loaded
        for check in RECORD_CHECKS:
            start = clock()
            list(check(record, context))
            spent[check.__name__] += clock() - start
        start = clock()
        entries.append(entry_of(document))
        spent["entry_of (shingles)"] += clock() - start
    start = clock()
    similarity.signatures([e.shingles for e in entries])
    spent["MinHash signatures"] += clock() - start
    return len(files), spent


def main() -> None:
    bank = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT
    with collector_paused():
        count, spent = stages(bank)
    total = sum(spent.values())
    print(f"{count} files under {bank / 'questions'}, one process")
    for name, seconds in spent.most_common():
        print(f"  {name:36} {seconds:7.3f} s  {seconds / total:6.1%}  {seconds / count * 1e6:6.0f} µs a file")
    print(f"  {'total':36} {total:7.3f} s")


if __name__ == "__main__":
    main()
