"""Benchmark: the exports of an N-question bank, each step timed in one run (run by hand).

`.venv/bin/python benchmarks/export_site.py [N]` builds an N-question bank with make_bank.py in a
temporary folder, then times: the audit that selects the release, the site build (issue 6 target:
<= 15 s for 10,000 questions), and the JSON, SQLite and Anki exports of the same release.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from make_bank import load_bank, variants, write_bank

from qbank import engine
from qbank.export import anki, release, site, sqlite
from qbank.finding import Finding
from qbank.model.taxonomy import load_bank_tables


def timed(label: str, step, *args):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = step(*args)
    print(f"{label:<28} {time.perf_counter() - start:7.2f} s")
    return result


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    with tempfile.TemporaryDirectory() as tmp:
        bank, out = Path(tmp) / "bank", Path(tmp) / "out"
        write_bank(variants(load_bank(), n), bank)
        schema = load_bank_tables(bank / "schema")
        assert not isinstance(schema, Finding)
        report = timed(f"audit ({n} questions)", engine.audit, engine.Settings(records=True), bank)
        chosen = timed("select the release", release.select, report, bank, schema.topic_groups)
        print(f"released {len(chosen.entries)}")
        built = timed("site build", site.build, chosen, out / "site")
        size = sum(f.stat().st_size for f in (out / "site").rglob("*") if f.is_file())
        print(f"  {built.pages} pages, {built.files} files, {size / 1e6:.1f} MB")
        timed("site rebuild (same folder)", site.build, chosen, out / "site")
        site.PARALLEL_FROM = n + 1
        timed("site build, one process", site.build, chosen, out / "serial")
        timed("json", release.write_json, chosen, out / "release.json")
        timed("sqlite", sqlite.write, chosen, out / "release.sqlite")
        timed("anki", anki.write, chosen, out / "release.apkg")


if __name__ == "__main__":
    main()
