"""A small bank whose questions carry page facts: a numeric answer, equations in the answer,
format and device claims, and the repository's GPU evidence beside them (tests/export/conftest.py's
bank has none of these, and other tests count its questions)."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import REPO
from tests.export.conftest import PLAIN, question_text, write_bank

ANSWERED = "cloud-202611-f100"
NO_EVIDENCE = "cloud-202611-f101"

NAPKIN = """\
  napkin_math: |
    **Assumptions:** an 80 GB checkpoint read at 2 TB/s.
    **Calculations:**
    - 80 GB / 2 TB/s = 40 ms
    - 40 ms * 25 = 1 s
    **Conclusion:** one load takes 40 ms, so 25 take a second.
"""
CLAIMS = """\
verify:
  - {kind: format_constant, claim: "FP16's smallest normal is 2^-14", dtype: float16, field: smallest_normal, expect: "2^-14"}
  - {kind: device_ftz, claim: "H100 fp16 tensor cores keep subnormal inputs and outputs", dtype: float16, op: matmul, op_path: tensor_core, device_scope: H100, expect: preserve}
"""
UNVERIFIED = """\
verify:
  - {kind: device_ftz, claim: "older V100 FP16 kernel paths may flush FP16 subnormals", dtype: float16, op: add, op_path: ptx, device_scope: V100, modality: may, expect: flush}
"""


def _with_napkin(text: str) -> str:
    start = text.index("  napkin_math: |")
    end = text.index("verify:") if "verify:" in text else text.index("status:")
    return text[:start] + NAPKIN + text[end:]


def write_facts_bank(root: Path) -> Path:
    write_bank(root)
    shutil.copytree(REPO / "evidence", root / "evidence")
    folder = root / "questions" / "cloud" / "precision"
    answered = PLAIN | {
        "title": "Checkpoint Load Time From Bandwidth",
        "question": "How long does one load of the 80 GB checkpoint take at 2 TB/s?",
        "solution": "'At 2 TB/s, 80 GB / 2 TB/s = 40 ms per load.'",
        "extra": CLAIMS,
    }
    (folder / f"{ANSWERED}.yaml").write_text(
        _with_napkin(question_text(ANSWERED, **answered)), encoding="utf-8"
    )
    unverified = PLAIN | {
        "title": "Subnormal Flushing on an Older Accelerator",
        "scenario": "A team audits whether FP16 add kernels on an older accelerator flush tiny values to zero before porting a sensor model.",
        "question": "Could the old kernel path lose subnormal FP16 sums, and how would you find out?",
        "extra": UNVERIFIED,
    }
    (folder / f"{NO_EVIDENCE}.yaml").write_text(question_text(NO_EVIDENCE, **unverified), encoding="utf-8")
    return root
