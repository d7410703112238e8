"""`qbank migrate`: a StaffML vault becomes a bank by the edits a machine can make alone; each file
changes only on the lines those edits name, a second run changes nothing, and what needs a person
is listed."""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from qbank import load
from tests.conftest import SHARED, git, run_cli

CORPORA = [SHARED / "corpus" / "staffml-sample", SHARED / "corpus" / "staffml-dev"]

VAULT_FILE = """\
# kept: a comment at the top
schema_version: '1.0'
id: cloud-0001
track: cloud
level: L3
zone: analyze
topic: roofline-analysis
competency_area: compute
bloom_level: analyze
title: The Roofline Ridge Point  # kept: a comment after a value
scenario: An H100 SXM reaches 989 TFLOPS of dense FP16 and 3.35 TB/s of HBM3 bandwidth on its datasheet.
question: How many FLOPs per byte must a kernel do to be compute-bound?
details:
  realistic_solution: About 295 FLOPs per byte, the ridge point.
status: published
validation_date: 2026-04-01
"""


def _tree(folder: Path) -> dict[str, str]:
    """Every file below `folder` and the SHA-256 of its bytes (links by their target)."""
    found = {}
    for path in sorted(folder.rglob("*")):
        key = path.relative_to(folder).as_posix()
        if path.is_symlink():
            found[key] = "link to " + os.readlink(path)
        elif path.is_file():
            found[key] = hashlib.sha256(path.read_bytes()).hexdigest()
    return found


def _vault(tmp_path: Path, files: dict[str, str]) -> Path:
    vault = tmp_path / "vault"
    for name, text in files.items():
        (vault / name).parent.mkdir(parents=True, exist_ok=True)
        (vault / name).write_text(text, encoding="utf-8")
    return vault


def _migrate(vault: Path, *args: str) -> tuple[int, str]:
    result = run_cli("migrate", str(vault), *args)
    return result.exit_code, result.output


def _findings(bank: Path) -> list[dict[str, str]]:
    result = run_cli("audit", "--no-cache", "--format", "json", cwd=bank)
    return list(json.loads(result.stdout)["findings"])


# --- the StaffML corpora -----------------------------------------------------------------------


@pytest.fixture
def corpora(tmp_path: Path) -> Path:
    """Both shared StaffML corpora in one writable vault (their files are read-only in ../shared)."""
    if not all(corpus.is_dir() for corpus in CORPORA):
        pytest.skip(f"../shared is absent ({CORPORA[0]} not found): the migration tests need it")
    vault = tmp_path / "vault"
    for corpus in CORPORA:
        shutil.copytree(corpus, vault, dirs_exist_ok=True)
    for path in vault.rglob("*"):
        path.chmod(path.stat().st_mode | 0o200)
    return vault


@pytest.mark.shared
def test_the_staffml_corpora_become_a_bank_with_nothing_mechanical_left(
    corpora: Path, tmp_path: Path
) -> None:
    before = {p.name: p.read_text(encoding="utf-8") for p in corpora.rglob("*.yaml")}
    tree = _tree(corpora)
    code, dry = _migrate(corpora)
    assert code == 0 and _tree(corpora) == tree, dry  # a dry run writes nothing
    code, output = _migrate(corpora, "--write")
    assert code == 0, output
    moved = {p.name: p for p in (corpora / "questions").rglob("*.yaml")}
    assert set(moved) == set(before) == {p.name for p in corpora.rglob("*.yaml") if "schema" not in p.parts}
    assert all(p.relative_to(corpora / "questions").parts[:2] == _place(p) for p in moved.values())
    names = [f["name"] for f in _findings(corpora)]
    assert names.count("schema") == names.count("ambiguous-value") == 0
    assert names.count("common-mistake-markers") + names.count("napkin-math-markers") == 42  # no near miss
    fixable = run_cli("fix", "--check", cwd=corpora).output
    assert "marker" not in fixable and "quoted" not in fixable, fixable
    _only_intended_lines(before, moved)
    code, again = _migrate(corpora)
    assert code == 0 and "nothing to change" in again.splitlines()[-1], again


def _place(path: Path) -> tuple[str, str]:
    document = load.from_path(path)
    assert isinstance(document, load.Document), document
    return document.data["track"], document.data["competency_area"]


def _only_intended_lines(before: dict[str, str], moved: dict[str, Path]) -> None:
    """Untouched files are byte-identical; a file that gained provenance has exactly that line more
    and no other change (the corpora need no other edit)."""
    counts = {"identical": 0, "provenance": 0}
    for name, old in before.items():
        new = moved[name].read_text(encoding="utf-8")
        if new == old:
            counts["identical"] += 1
            continue
        diff = [d for d in difflib.ndiff(old.splitlines(), new.splitlines()) if d[:2] in ("- ", "+ ")]
        assert diff == ["+ provenance: imported"], (name, diff)
        counts["provenance"] += 1
    assert counts == {"identical": 283, "provenance": 27}


# --- hostile and odd vaults -------------------------------------------------------------------


def test_a_file_keeps_its_comments_and_gains_only_the_intended_lines(tmp_path: Path) -> None:
    vault = _vault(tmp_path, {"cloud/compute/cloud-0001.yaml": VAULT_FILE})
    code, output = _migrate(vault, "--write", "--diff")
    assert code == 0, output
    assert "+provenance: imported" in output and "+validation_date: '2026-04-01'" in output
    new = (vault / "questions/cloud/compute/cloud-0001.yaml").read_text(encoding="utf-8")
    diff = [d for d in difflib.ndiff(VAULT_FILE.splitlines(), new.splitlines()) if d[:2] in ("- ", "+ ")]
    assert sorted(diff) == [
        "+ provenance: imported",
        "+ validation_date: '2026-04-01'",
        "- validation_date: 2026-04-01",
    ]
    assert "# kept: a comment at the top" in new and "# kept: a comment after a value" in new
    assert not (vault / "cloud").exists() or not any((vault / "cloud").rglob("*.yaml"))
    assert _findings(vault) == []
    assert "nothing to change" in _migrate(vault)[1]


def test_links_are_never_followed_nor_written_through(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "cloud-0002.yaml").write_text(VAULT_FILE.replace("cloud-0001", "cloud-0002"), encoding="utf-8")
    vault = _vault(tmp_path, {"cloud/compute/cloud-0001.yaml": VAULT_FILE})
    (vault / "linked.yaml").symlink_to(outside / "cloud-0002.yaml")
    (vault / "edge").symlink_to(outside, target_is_directory=True)
    kept = _tree(outside)
    code, output = _migrate(vault, "--write")
    assert code == 0, output
    assert "linked.yaml: left for you: not migrated: linked.yaml is a symbolic link" in output
    assert "edge: left for you: not migrated: edge is a symbolic link" in output
    assert _tree(outside) == kept and (vault / "linked.yaml").is_symlink()


def test_what_it_cannot_decide_is_listed_and_left(tmp_path: Path) -> None:
    vault = _vault(
        tmp_path,
        {
            "cloud/compute/cloud-0001.yaml": VAULT_FILE,
            "elsewhere/cloud-0001.yaml": VAULT_FILE,  # the same id: its place is taken
            "cloud/compute/broken.yaml": "title: [unclosed\n",
            "cloud/compute/cloud-0003.yaml": VAULT_FILE.replace("cloud-0001", "cloud-0003").replace(
                "The Roofline Ridge Point", "Cloud New 0003"
            ),
            "cloud/compute/cloud-0004.yaml": VAULT_FILE.replace("cloud-0001", "cloud-0004").replace(
                "status: published", "status: deleted"
            ),
        },
    )
    broken = (vault / "cloud/compute/broken.yaml").read_bytes()
    code, output = _migrate(vault, "--write")
    assert code == 0, output
    assert (
        "elsewhere/cloud-0001.yaml: left for you: not moved: cloud/compute/cloud-0001.yaml has the same"
        in output
    )
    assert "broken.yaml: left for you: not migrated: yaml-syntax" in output
    assert "placeholder" in output and "deletion-reason" in output
    assert (vault / "cloud/compute/broken.yaml").read_bytes() == broken
    assert "deletion_reason" not in (vault / "questions/cloud/compute/cloud-0003.yaml").read_text(
        encoding="utf-8"
    )


def test_inside_a_git_work_tree_files_move_with_git_mv(tmp_path: Path) -> None:
    """The vault a folder of the repository, migrated by a relative path from inside it."""
    vault = _vault(
        tmp_path, {"cloud/compute/cloud-0001.yaml": VAULT_FILE.replace("validation_date: 2026-04-01\n", "")}
    )
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "vault")
    result = run_cli("migrate", ".", "--write", cwd=vault)
    assert result.exit_code == 0, result.output
    status = subprocess.run(
        ["git", "-C", str(tmp_path), "status", "--porcelain"], capture_output=True, text=True
    ).stdout
    renamed = "vault/cloud/compute/cloud-0001.yaml -> vault/questions/cloud/compute/cloud-0001.yaml"
    assert any(line.startswith("R") and line.endswith(renamed) for line in status.splitlines()), status


def test_the_vaults_own_topics_join_the_taxonomy_and_its_own_schema_is_kept(tmp_path: Path) -> None:
    own = VAULT_FILE.replace("topic: roofline-analysis", "topic: vault-only-topic")
    vault = _vault(tmp_path, {"cloud/compute/cloud-0001.yaml": own})
    code, output = _migrate(vault, "--write")
    assert code == 0, output
    taxonomy = (vault / "schema/taxonomy.yaml").read_text(encoding="utf-8")
    assert taxonomy.endswith(
        "  imported:  # topics the vault used that qbank's list lacks\n    - vault-only-topic\n"
    )
    assert _findings(vault) == []
    kept = _vault(
        tmp_path / "second", {"cloud/compute/cloud-0001.yaml": VAULT_FILE, "schema/taxonomy.yaml": "x: 1\n"}
    )
    code, output = _migrate(kept, "--write")
    assert (kept / "schema/taxonomy.yaml").read_text(encoding="utf-8") == "x: 1\n"
    assert "QB300 taxonomy at line 1: bank schema unusable" in output  # reported, not replaced


def test_numbered_and_unbolded_section_headings_become_markers(tmp_path: Path) -> None:
    """`1. Assumptions & Constraints:` and `**Calculation:**`: what was meant is clear when fixing
    them completes the sections; the author's own words are kept where the rule accepts them."""
    napkin = (
        "  napkin_math: |\n    1. Assumptions & Constraints:\n    - 989 TFLOPS, 3.35 TB/s.\n"
        "    2. **Calculation:**\n    - 989e12 / 3.35e12 = 295\n"
        "    3. **Conclusion & Interpretation:**\n    - About 295 FLOPs per byte.\n"
    )
    text = VAULT_FILE.replace(
        "  realistic_solution: About 295 FLOPs per byte, the ridge point.\n",
        "  realistic_solution: About 295 FLOPs per byte, the ridge point.\n" + napkin,
    )
    vault = _vault(tmp_path, {"cloud/compute/cloud-0001.yaml": text})
    code, output = _migrate(vault, "--write")
    assert code == 0 and "marker-fixed 2" in output, output
    new = (vault / "questions/cloud/compute/cloud-0001.yaml").read_text(encoding="utf-8")
    assert "1. **Assumptions & Constraints:**\n" in new and "2. **Calculations:**\n" in new
    assert _findings(vault) == []
