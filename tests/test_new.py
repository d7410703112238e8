"""`qbank new`: a skeleton in the right folder, a fresh id, placeholders the audit rejects."""

from __future__ import annotations

import os
import re
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import crash
import pytest
from conftest import REPO, audit_json, run_cli

from qbank import atomic, new

ARGS = (
    "new",
    "--track", "cloud",
    "--area", "precision",
    "--level", "L3",
    "--zone", "diagnosis",
    "--topic", "mixed-precision-training",
    "--title", "Why the Loss Goes NaN: FP16 Overflow in Attention Logits",
)  # fmt: skip
FILLED = {
    "the situation": "A 7B model trained in FP16 on eight V100s shows NaN loss after 2,000 steps.",
    "one focused question": "Which tensor overflows first, and what change keeps it in range?",
    "the answer a strong candidate gives": "The attention logits exceed 65,504 before the softmax; compute it in FP32.",
    "what candidates get wrong": "Lowering the learning rate.",
    "why the wrong answer is tempting": "NaNs often come from divergence.",
    "what it costs in production": "Days of slower training that still overflow.",
    "each input number, with its source": "FP16 max is 65,504 (IEEE 754 binary16).",
    "what the numbers say about the question": "Logits above the FP16 maximum become inf.",
}


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    shutil.copytree(REPO / "schema", tmp_path / "schema")
    (tmp_path / "questions").mkdir()
    return tmp_path


def _create(bank: Path, *args: str) -> Path:
    result = run_cli(*(args or ARGS), cwd=bank)
    assert result.exit_code == 0, result.output
    return bank / result.stdout.strip()


def test_skeleton_lands_in_its_folder_with_a_fresh_id(bank: Path) -> None:
    path = _create(bank)
    assert path.parent == bank / "questions" / "cloud" / "precision"
    assert re.fullmatch(r"cloud-\d{6}-[0-9a-f]{4}", path.stem)
    assert f"id: {path.stem}\n" in path.read_text(encoding="utf-8")
    assert _create(bank).stem != path.stem


def test_every_placeholder_is_reported_until_filled(bank: Path) -> None:
    path = _create(bank)
    code, report = audit_json(cwd=bank)
    assert code == 1
    assert {f["name"] for f in report["findings"]} == {"placeholder"}
    assert len(report["findings"]) == 5  # scenario, question, solution, common mistake, napkin math

    text = path.read_text(encoding="utf-8")
    for hint, content in FILLED.items():
        text = re.sub(rf"<TODO: {re.escape(hint)}[^>]*>", content, text)
    text = re.sub(r"- <TODO: one equation[^>]*>", "- 70,000 / 65,504 = 1.07", text)
    path.write_text(text, encoding="utf-8")
    code, report = audit_json(cwd=bank)
    assert (code, report["findings"]) == (0, [])


def test_a_new_file_gets_the_usual_permissions_not_mkstemps_0600(bank: Path) -> None:
    path = _create(bank)
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask


def test_modeline_points_at_the_banks_schema(bank: Path) -> None:
    path = _create(bank)
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=../../../schema/question.schema.json"
    (bank / "schema" / "question.schema.json").write_text("{}", encoding="utf-8")
    assert (path.parent / first.split("=", 1)[1]).resolve() == (bank / "schema" / "question.schema.json")


def test_an_id_already_in_the_bank_is_never_reused(bank: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _create(bank)
    suffixes = iter([first.stem.rsplit("-", 1)[1], "beef"])
    monkeypatch.setattr(new.secrets, "token_hex", lambda _: next(suffixes))
    second = _create(bank)
    assert second.stem.endswith("-beef") and first.read_text(encoding="utf-8").count("<TODO") == 9


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        (
            "--topic",
            "mixed-precision",
            "unknown topic 'mixed-precision' (did you mean mixed-precision-training?)",
        ),
        ("--title", "the loss scaling dance", "'the' -> 'The'"),
        ("--title", "Cloud New 0134", "placeholder title"),
        ("--title", "The Loss Scale Collapse.", "ends with a period"),
        ("--zone", "nowhere", "Invalid value for '--zone'"),
    ],
)
def test_bad_input_is_a_usage_error_and_writes_nothing(
    bank: Path, option: str, value: str, message: str
) -> None:
    args = list(ARGS)
    args[args.index(option) + 1] = value
    result = run_cli(*args, cwd=bank)
    assert result.exit_code == 2 and message in result.stderr
    assert list((bank / "questions").rglob("*")) == []


@pytest.mark.parametrize(
    "title", ["Why the Loss Goes NaN: FP16 Overflow", "The #1 Cause of OOM", "What 'Fits' in 80 GB", "A - B"]
)
def test_titles_that_need_quoting_read_back_unchanged(bank: Path, title: str) -> None:
    args = list(ARGS)
    args[args.index("--title") + 1] = title
    path = _create(bank, *args)
    code, report = audit_json(str(path), cwd=bank)
    assert all(f["name"] == "placeholder" for f in report["findings"])
    assert re.search(r"^title: (.*)$", path.read_text(encoding="utf-8"), re.M) is not None


def test_outside_a_bank_is_a_usage_error(tmp_path: Path) -> None:
    result = run_cli(*ARGS, cwd=tmp_path)
    assert result.exit_code == 2


def _skeleton_size() -> int:
    """The length of the file ARGS make: every id has the same length, so it does not depend on the draw."""
    skeleton = new.Skeleton("cloud", "precision", "L3", "diagnosis", "mixed-precision-training", ARGS[-1])
    return len(new.render(skeleton, "cloud-000000-0000", "../../../schema/question.schema.json").encode())


@pytest.mark.parametrize("point", crash.POINTS)
def test_a_kill_at_any_point_leaves_no_question_or_a_whole_one(bank: Path, point: str) -> None:
    folder = bank / "questions" / "cloud" / "precision"
    crash.kill_at(point, ARGS, cwd=bank)
    questions = sorted(folder.glob("*.yaml"))
    # One temporary file at every point: the kill always comes before `new` unlinks it.
    (temp,) = crash.leftovers(folder, *(q.name for q in questions))
    assert crash.hidden_temporary(temp)
    size = _skeleton_size()
    written = (folder / temp).read_bytes()
    assert len(written) == {"created": 0, "half-written": size // 2}.get(point, size)
    if point == "committed":  # linked under its name: whole
        assert [q.read_bytes() for q in questions] == [written]
    else:
        assert questions == []
    _, report = audit_json(cwd=bank)
    assert report["summary"]["files"] == len(questions)  # the leftover is not read as a question
    assert {f["name"] for f in report["findings"]} <= {"placeholder"}
    path = _create(bank)
    assert sorted(folder.glob("*.yaml")) == sorted([*questions, path])


def test_a_linked_folder_on_the_way_is_refused_and_nothing_is_written_outside(
    bank: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside")
    (bank / "questions" / "cloud").symlink_to(outside, target_is_directory=True)
    result = run_cli(*ARGS, cwd=bank)
    assert result.exit_code == 2
    assert "folder questions/cloud is a symbolic link: qbank never writes through one" in result.stderr
    assert list(outside.rglob("*")) == []


def test_write_new_never_replaces_a_file_or_a_link(
    bank: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    outside = tmp_path_factory.mktemp("outside") / "target.yaml"
    folder = bank / "questions" / "cloud" / "precision"
    folder.mkdir(parents=True)
    (folder / "taken.yaml").write_text("old\n", encoding="utf-8")
    (folder / "link.yaml").symlink_to(outside)  # dangling: os.link must not create its target
    assert not new.write_new(folder / "taken.yaml", "new\n")
    with pytest.raises(atomic.WriteError, match="a symbolic link: not followed"):
        new.write_new(folder / "link.yaml", "new\n")
    assert (folder / "taken.yaml").read_text(encoding="utf-8") == "old\n" and not outside.exists()
    assert crash.leftovers(folder, "taken.yaml", "link.yaml") == []


def test_a_file_where_a_folder_should_be_is_a_usage_error(bank: Path) -> None:
    (bank / "questions" / "cloud").write_text("not a folder\n", encoding="utf-8")
    result = run_cli(*ARGS, cwd=bank)
    assert result.exit_code == 2 and "cannot write the question: [Errno " in result.stderr


def test_init_starts_a_bank_that_new_and_audit_work_in(tmp_path: Path) -> None:
    result = run_cli("init", str(tmp_path / "bank"))
    assert result.exit_code == 0, result.output
    bank = tmp_path / "bank"
    assert sorted(p.name for p in (bank / "schema").iterdir()) == [
        "hardware.yaml",
        "taxonomy.yaml",
        "title-words.yaml",
    ]
    made = run_cli(
        "new",
        "--track",
        "cloud",
        "--area",
        "precision",
        "--level",
        "L2",
        "--zone",
        "recall",
        "--topic",
        "mixed-precision-training",
        "--title",
        "What FP16 Holds",
        cwd=bank,
    )
    assert made.exit_code == 0, made.output
    names = {f["name"] for f in audit_json(cwd=bank)[1]["findings"]}
    assert names == {"placeholder"}  # the skeleton's <TODO> fields, and nothing about the bank
    again = run_cli("init", str(bank))
    assert again.exit_code == 2 and "is a bank already" in again.output


def test_shell_completion_is_clicks_own() -> None:
    """README's completion line: click prints the script for bash, zsh and fish."""
    for shell in ("bash", "zsh", "fish"):
        done = subprocess.run(
            [str(Path(sys.executable).parent / "qbank")],  # the console script: its name picks the variable
            env={**os.environ, "_QBANK_COMPLETE": f"{shell}_source"},
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0 and "_QBANK_COMPLETE" in done.stdout, (shell, done.stderr)
