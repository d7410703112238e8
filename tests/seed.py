"""Recover the YAML of a StaffML seed page (../shared/seeds/*.txt).

The seed is a saved web view of a question file: a header, then the file's lines with their
indentation stripped and `|` table borders between them. The file format fixes the indentation
(research/anchor-vault.md §1.3), so it can be put back exactly: keys of `details` and
`human_reviewed` at two spaces, the lines of a block scalar at four.
"""

from __future__ import annotations

import re

TOP_KEY = re.compile(r"^[a-z_]+:")
CHILD_KEYS = {
    "details": (
        "realistic_solution",
        "common_mistake",
        "napkin_math",
        "options",
        "correct_index",
        "resources",
    ),
    "human_reviewed": ("status", "by", "date", "notes"),
}
TOP_LEVEL = {
    "schema_version",
    "id",
    "track",
    "level",
    "zone",
    "topic",
    "competency_area",
    "bloom_level",
    "phase",
    "title",
    "scenario",
    "question",
    "details",
    "status",
    "provenance",
    "requires_explanation",
    "expected_time_minutes",
    "validated",
    "validation_status",
    "validation_date",
    "validation_model",
    "math_verified",
    "math_status",
    "math_date",
    "math_model",
    "human_reviewed",
    "chains",
    "tags",
}


def seed_yaml(page: str) -> str:
    lines = page.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("schema_version:"))
    out: list[str] = []
    parent = None
    in_block = False
    for line in lines[start:]:
        if re.fullmatch(r"\|+", line):
            continue
        key = line.split(":", 1)[0] if TOP_KEY.match(line) else None
        if key in TOP_LEVEL and not (parent and key in CHILD_KEYS[parent]):
            parent = key if key in CHILD_KEYS else None
            in_block = False
            out.append(line)
        elif parent and key in CHILD_KEYS[parent]:
            in_block = line.rstrip().endswith("|")
            out.append("  " + line)
        else:
            out.append(("    " if in_block else "  ") + line)
    return "\n".join(out) + "\n"
