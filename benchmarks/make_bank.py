"""Build an N-question bank of realistic shape from `questions/`, for benchmarks (run by hand).

`.venv/bin/python benchmarks/make_bank.py N DEST` writes DEST/schema (a copy of ours) and
DEST/questions with N files: the bank's own first, then variants. A variant is a copy of one
question (so its napkin math, options and `verify:` claims still hold) that takes its title from
another question of the same track, its scenario from the first half of one scenario and the second
half of another, and its question from a fourth, and gets a fresh id. Texts stay realistic in length
and vocabulary, and like a real bank (0 near-duplicates in our 3,264 questions) no two questions read
alike: a variant that qbank's near-duplicate index finds close to one already made is drawn again.
(Whole copied scenarios made every variant a near-duplicate of its source, and the near-duplicate
check then dominated the benchmark.) Deterministic for a given N and seed.
"""

from __future__ import annotations

import random
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import yaml

from qbank import similarity

ROOT = Path(__file__).resolve().parents[1]


def load_bank(root: Path = ROOT) -> list[dict[str, Any]]:
    files = sorted((root / "questions").rglob("*.yaml"))
    return [yaml.load(f.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader) for f in files]


def variants(
    bank: list[dict[str, Any]], n: int, seed: int = 1, released: bool = False
) -> list[dict[str, Any]]:
    """The bank's questions, then variants of them, n in all. `released`: the published questions
    only, and no variant that asks and answers what another does (a duplicate-content error), so
    that an export releases all n (benchmarks/export_site.py)."""
    rng = random.Random(seed)
    if released:
        bank = [q for q in bank if q.get("status") == "published"]
    by_track: dict[str, list[dict[str, Any]]] = {}
    for question in bank:
        by_track.setdefault(question["track"], []).append(question)
    out = list(bank[:n])
    index = similarity.Index()
    asked = {
        similarity.content_key(question) for question in out
    }  # question and answer, as duplicate-content reads them
    for question in out:
        index.add(_shingles(question))
    while len(out) < n:
        base = rng.choice(bank)
        title_from, first, second, question_from = rng.sample(by_track[base["track"]], 4)
        variant = {
            **base,
            "id": f"{base['id']}-v{len(out)}",
            "title": title_from["title"],
            "scenario": _half(first["scenario"], 0) + " " + _half(second["scenario"], 1),
            "question": question_from.get("question", base.get("question")),
        }
        shingles, content = _shingles(variant), similarity.content_key(variant)
        # drill families share templates: mixing two can read like either
        if not index.close_to(shingles) and not (released and content in asked):
            index.add(shingles)
            asked.add(content)
            out.append(variant)
    return out


def _shingles(question: dict[str, Any]) -> frozenset[int]:
    return similarity.shingles(similarity.text_of(question))


def _half(text: str, which: int) -> str:
    """The first (0) or second (1) half of a text's sentences (of its words, for one sentence)."""
    parts = re.split(r"(?<=[.!?])\s+", text.strip())
    if len(parts) < 2:
        parts = text.split()
    middle = len(parts) // 2
    return " ".join(parts[:middle] if which == 0 else parts[middle:])


class _Dumper(yaml.CSafeDumper):
    """Quotes strings that a YAML 1.2 loader would read as numbers (PyYAML's 1.1 rules leave
    `1e-07` bare)."""


_NUMBER = re.compile(r"[-+]?(\.\d+|\d+\.?\d*)([eE][-+]?\d+)?")
_Dumper.add_representer(
    str,
    lambda dumper, s: dumper.represent_scalar(
        "tag:yaml.org,2002:str", s, style="'" if _NUMBER.fullmatch(s) else None
    ),
)


def write_bank(questions: list[dict[str, Any]], dest: Path, root: Path = ROOT) -> None:
    shutil.copytree(root / "schema", dest / "schema", dirs_exist_ok=True)
    for question in questions:
        folder = dest / "questions" / question["track"] / question["competency_area"]
        folder.mkdir(parents=True, exist_ok=True)
        text = yaml.dump(question, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
        (folder / f"{question['id']}.yaml").write_text(text, encoding="utf-8")


def main() -> None:
    n, dest = int(sys.argv[1]), Path(sys.argv[2])
    write_bank(variants(load_bank(), n), dest)
    print(f"wrote {n} questions under {dest}")


if __name__ == "__main__":
    main()
