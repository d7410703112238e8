"""Cost bombs (issue 30, item 3): how long each hostile file takes beyond its parse (run by hand).

    .venv/bin/python benchmarks/cost_bombs.py [NAME…]   each bomb (or those whose name has NAME)
                                                        beside a plain file of its size
    .venv/bin/python benchmarks/cost_bombs.py --bank    the work the bank's own napkin math and claims need
    .venv/bin/python benchmarks/cost_bombs.py --rate    nanoseconds per unit of work, by shape

Each file goes through the per-file audit as the engine runs it (engine.per_file.check_file: parse, model,
every record check), in this process, with no audit cache and the napkin memories emptied first, so
every run is cold. `parse` is load.from_read alone; `beyond` is the rest. The plain file beside
each bomb has the same number of bytes, of ordinary napkin math (`80 GB / 2 TB/s = 40 ms`, with
numbers that change so no line repeats). Target: no file under the 256 KiB cap takes more than 1 s
beyond its parse. Times are the best of --repeat runs (default 3).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # tests.bombs: the bombs as the tests build them

from qbank import engine, load, memo  # noqa: E402
from qbank.checks import numeric_claims  # noqa: E402
from qbank.checks.api import Context  # noqa: E402
from qbank.finding import Finding  # noqa: E402
from qbank.model.taxonomy import load_bank_tables  # noqa: E402
from qbank.napkin import equations  # noqa: E402
from qbank.napkin.meter import metered  # noqa: E402
from tests.bombs import fraction_sum, question  # noqa: E402

FILE = ROOT / "questions/cloud/precision/cloud-202611-h054.yaml"  # where the bombs claim to live
CAP = load.MAX_BYTES - 512


def _sum_line(first: int, terms: int = 49) -> str:
    return fraction_sum(terms, first) + " = 1"


def _costly_line(seed: int) -> str:
    """Equations each inside every limit, that do not hold (so each also formats its message)."""
    chains, i = [], 0
    while sum(len(c) + 2 for c in chains) < 9_800:
        chains.append(f"1/3^{3000 - seed % 500 - i % 50} + 1/5^{2500 - seed // 500 - i // 50} = 1")
        i += 1
    return ", ".join(chains)


def _fill(make: Callable[[int], str], build: Callable[[list[str]], str], size: int = CAP) -> str:
    """As many items make(0), make(1), … as keep build(items) within `size` bytes."""
    items: list[str] = []
    while len(build([*items, make(len(items))]).encode()) <= size:
        items.append(make(len(items)))
    return build(items)


def _cast(value: str, i: int) -> str:
    return f'  - {{kind: cast, claim: "c{i}", dtype: bfloat16, value: "{value}", expect: "0"}}\n'


def _plain(size: int) -> str:
    return _fill(lambda i: f"{80 + i} GB / 2 TB/s = {40 + i / 2:g} ms", lambda items: question(items), size)


BOMBS: dict[str, Callable[[], str]] = {
    "one sum line (49 terms)": lambda: question([_sum_line(0)]),
    "ten sum lines (7 KB)": lambda: question([_sum_line(i) for i in range(10)]),
    "sum lines to the cap": lambda: _fill(lambda i: _sum_line(i % 200), lambda items: question(items)),
    "costly lines to the cap": lambda: _fill(_costly_line, lambda items: question(items)),
    "one costly line repeated": lambda: _fill(lambda i: _costly_line(0), lambda items: question(items)),
    "100 sum claims": lambda: question(claims=[_cast(fraction_sum(16, i % 10), i) for i in range(100)]),
    "costly claims to the cap": lambda: _fill(
        lambda i: _cast(f"1/3^{3000 - i % 900} + 1/5^{2500 - i // 900} + 1/7^{2000 - i % 7}", i),
        lambda items: question(claims=items),
    ),
    "11,038 unknown keys": lambda: question(extra="".join(f"ttl_{i}: x\n" for i in range(11_038))),
    "unknown keys to the cap": lambda: _fill(
        lambda i: f"ttl_{i}: x\n", lambda items: question(extra="".join(items))
    ),
}


def _cold() -> None:
    memo.clear()


def _timed(data: bytes, context: Context, repeat: int) -> tuple[float, float, int]:
    """(parse, whole per-file audit, findings), the best of `repeat` cold runs."""
    parse = total = float("inf")
    findings = 0
    for _ in range(repeat):
        _cold()
        start = time.perf_counter()
        load.from_read(data, "q.yaml")
        parse = min(parse, time.perf_counter() - start)
        _cold()
        start = time.perf_counter()
        result, _ = engine.per_file.check_file(FILE, "q.yaml", data, context)
        total = min(total, time.perf_counter() - start)
        findings = len(result.findings)
    return parse, total, findings


def bombs(repeat: int, names: list[str]) -> None:
    schema = load_bank_tables(ROOT / "schema")
    assert not isinstance(schema, Finding)
    context = Context(schema, ROOT / "questions")
    print(
        f"{'file':28} {'bytes':>8} {'parse s':>8} {'beyond s':>9} {'findings':>8}   plain: parse s, beyond s"
    )
    for name, make in BOMBS.items():
        if names and not any(part in name for part in names):
            continue
        data = make().encode()
        parse, total, findings = _timed(data, context, repeat)
        plain, plain_total, _ = _timed(_plain(len(data)).encode(), context, repeat)
        print(
            f"{name:28} {len(data):8,} {parse:8.3f} {total - parse:9.3f} {findings:8,}"
            f"   {plain:.3f}, {plain_total - plain:.3f}"
        )


def bank() -> None:
    """The largest work one line, one file's napkin math and one file's claims of the bank need."""
    from qbank.model.records import validate
    from qbank.numerics import verify

    unlimited = 10**15
    lines, files, claims = (0, ""), (0, ""), (0, "")
    for file in sorted((ROOT / "questions").rglob("*.yaml")):
        document = load.from_path(file, str(file))
        if isinstance(document, Finding):
            continue
        _cold()
        budget = equations.Budget(left=unlimited)
        details = document.data.get("details")
        for field in ("napkin_math", "realistic_solution"):
            text = details.get(field) if isinstance(details, dict) else None
            if isinstance(text, str):
                equations.check_text(text, budget)
                lines = max(
                    [lines, *((equations._line_outcomes(ln)[1], ln.strip()[:50]) for ln in text.splitlines())]
                )
        files = max(files, (unlimited - budget.left, file.name))
        question = validate(file, document, None)[0].question
        verifiable = [c for c in (question.verify if question else None) or [] if c.kind in verify._CHECKS]
        claims = max(claims, (sum(numeric_claims._refuted(c, verify)[1] for c in verifiable), file.name))
    for name, (units, where), limit in (
        ("line", lines, equations.LINE_WORK),
        ("file's napkin math", files, equations.FILE_WORK),
        ("file's claims", claims, numeric_claims.WORK),
    ):
        print(f"costliest {name:20} {units:>10,} units, {units / limit:6.2%} of its budget  ({where})")


def rate() -> None:
    """Time per unit of work for shapes from the smallest operations to the largest values."""
    shapes = {
        "plain lines": "\n".join(f"- {80 + i} GB / 2 TB/s = {40 + i / 2:g} ms" for i in range(2000)),
        "small products": "- " + ", ".join(f"{i} * 3 = {3 * i}" for i in range(1, 600)),
        "small sums of fractions": "- " + ", ".join(f"1/{i} + 1/{i + 1} = 1" for i in range(2, 450)),
        "1,000-bit sums": "- " + ", ".join(f"1/3^{300 + i} + 1/5^{200 + i} = 1" for i in range(240)),
        "16,000-bit sums": "- " + ", ".join(f"1/3^{3000 - i} + 1/5^{2500 - i} = 1" for i in range(190)),
        "19,000-bit quotients": "- " + ", ".join(f"9^{3000 - i} / 7^{3400 - i} = 1" for i in range(190)),
        "literals 1e4000": "- " + ", ".join(f"1e{4000 - i} / 1e{3999 - i} = 1" for i in range(250)),
    }
    for name, line in shapes.items():
        _cold()
        start = time.perf_counter()
        assert max(map(len, line.split("\n"))) <= equations.MAX_LINE, name
        with metered(10**15) as meter:
            for part in line.split("\n"):
                equations._equations(part)
        elapsed = time.perf_counter() - start
        worst = elapsed / meter.spent * (equations.FILE_WORK + equations.LINE_WORK)
        print(
            f"{name:26} {meter.spent:>12,} units {elapsed:7.3f} s  {elapsed / meter.spent * 1e9:6.1f} ns/unit"
            f"  (FILE_WORK + LINE_WORK at this rate: {worst:.2f} s)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--bank", action="store_true")
    parser.add_argument("--rate", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("names", nargs="*", help="run only the bombs whose name contains one of these")
    options = parser.parse_args()
    if options.bank:
        bank()
    elif options.rate:
        rate()
    else:
        bombs(options.repeat, options.names)


if __name__ == "__main__":
    main()
