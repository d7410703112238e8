"""tools/bank_stats.py: copies and template stems in the bank (issue 26, item 4)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from qbank.checks import similar
from tests.conftest import REPO


def _tool() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bank_stats", REPO / "tools" / "bank_stats.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _row(qid: str, question: str, answer: str) -> dict[str, object]:
    return {"id": qid, "question": question, "details": {"realistic_solution": answer}}


def test_names_come_from_the_hardware_and_model_tables() -> None:
    names = _tool().names()
    assert "V100 SXM2" in names and "Llama 2 7B" in names
    assert names.index("V100 SXM2") < names.index("V100")  # the longer alias is masked first


def test_masking_makes_two_drills_of_one_template_read_the_same() -> None:
    tool = _tool()
    names = tool.names()
    a = tool.mask("Does Llama 2 7B fit in 16 GB on a V100 at 2 bytes a parameter?", names)
    b = tool.mask("Does Llama 2 13B fit in 32 GB on a H100 at 1 bytes a parameter?", names)
    assert a == b == "Does @ fit in # GB on a @ at # bytes a parameter?"


def test_copies_groups_same_question_and_answer_and_nothing_else() -> None:
    tool = _tool()
    rows = [
        _row("cloud-1", "What ridge point?", "The ridge point is about 203 FLOP per byte."),
        _row("cloud-2", "What ridge point?", "The ridge point is about 203 FLOP per byte."),
        _row("cloud-3", "What ridge point?", "The ridge point is about 591 FLOP per byte."),
        _row("cloud-4", "Which link?", "NVLink."),
    ]
    assert tool.copies(rows, similar.content_key) == [["cloud-1", "cloud-2"]]
    masked = tool.copies(rows, lambda q: tool.mask(tool._answer(q), tool.names()))
    assert masked == [["cloud-1", "cloud-2", "cloud-3"]]


def test_device_claims_are_counted_by_how_the_evidence_resolves_them() -> None:
    claim = {
        "kind": "device_ftz",
        "claim": "On an H100, torch.compile flushes the fp32 subnormals that exp2 produces.",
        "dtype": "float32",
        "op": "exp2",
        "op_path": "torch_compile",
        "device_scope": "H100",
        "expect": "flush",
    }
    wrong = {**claim, "claim": "On an H100, torch.compile keeps them.", "expect": "preserve"}
    v100 = {**claim, "claim": "A V100 flushes them.", "device_scope": "V100"}
    rows = [{"verify": [claim, wrong]}, {"verify": [v100, {"kind": "cast"}]}]
    found = _tool().device_claims(rows, REPO / "evidence")
    assert found == {"confirmed": 1, "refuted": 1, "unverified": 1}
