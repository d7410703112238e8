"""`qbank export` pointed at a place that holds someone's files, and links that leave the study site.

Attacks, one test each:
- a forged `.qbank-site` in the bank root names NOTES.md, a question and schema/taxonomy.yaml with
  their real SHA-256, then `qbank export site --out .`: the manifest "proves" them stale;
- an empty manifest beside the user's own index.html makes the folder look like a site;
- a manifest line naming a file outside the site's layout (NOTES.md inside a real site folder);
- an `--out` that is a bank, above the bank, or a git repository, with an empty manifest in it;
- a page of an earlier export that the user has since changed, and that this export writes again;
- `qbank export json|sqlite|anki --out README.md` replaces a plain file that is not an export;
- `[share](//evil.example/share)` in a question: a page opened from file:// resolves it to a
  network path (an SMB share on Windows), as it would `javascript:` to a script.
Every refusal comes before the audit (a preflight), so it is fast and nothing is half-written.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from qbank import engine
from tests.conftest import run_cli
from tests.export.conftest import write_bank

MANIFEST = ".qbank-site"
QUESTION = "questions/cloud/precision/cloud-202611-e000.yaml"
KINDS = ("json", "sqlite", "anki")


@pytest.fixture
def bank(tmp_path: Path) -> Path:
    return write_bank(tmp_path / "bank")


def _forge(folder: Path, names: list[str], root: Path | None = None) -> None:
    """Manifest lines naming `names` (relative to `folder`), each with the real SHA-256 of the file."""
    lines = [f"{hashlib.sha256(((root or folder) / n).read_bytes()).hexdigest()}  {n}\n" for n in names]
    with (folder / MANIFEST).open("a", encoding="utf-8") as manifest:
        manifest.writelines(lines)


def _no_audit(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Record whether the audit ran: a refusal must come before it."""
    ran: list[str] = []

    def audit(*args: object, **kwargs: object) -> engine.Report:
        ran.append("audit")
        raise AssertionError("the audit ran before the output was checked")

    monkeypatch.setattr(engine, "audit", audit)
    return ran


def test_a_forged_manifest_in_the_bank_root_deletes_nothing(bank: Path) -> None:
    (bank / "NOTES.md").write_text("my notes\n", encoding="utf-8")
    victims = ["NOTES.md", QUESTION, "schema/taxonomy.yaml"]
    before = {name: (bank / name).read_bytes() for name in victims}
    _forge(bank, victims)
    result = run_cli("export", "site", "--out", ".", cwd=bank)
    assert {name: (bank / name).read_bytes() for name in victims} == before
    assert result.exit_code == 2 and "the bank being exported" in result.output, result.output
    assert not (bank / "index.html").exists() and not (bank / "q").exists()


def test_an_empty_manifest_does_not_make_the_users_index_ours(tmp_path: Path, bank: Path) -> None:
    out = tmp_path / "docs"
    out.mkdir()
    (out / MANIFEST).write_text("", encoding="utf-8")
    (out / "index.html").write_text("<h1>my own page</h1>\n", encoding="utf-8")
    result = run_cli("export", "site", "--out", str(out), cwd=bank)
    assert (out / "index.html").read_text(encoding="utf-8") == "<h1>my own page</h1>\n"
    assert result.exit_code == 2 and "index.html" in result.output and "not written by qbank" in result.output
    assert sorted(p.name for p in out.iterdir()) == [MANIFEST, "index.html"]


def test_a_manifest_line_outside_the_layout_is_ignored_and_reported(tmp_path: Path, bank: Path) -> None:
    out = tmp_path / "site"
    assert run_cli("export", "site", "--out", str(out), cwd=bank).exit_code == 0
    (out / "NOTES.md").write_text("my notes\n", encoding="utf-8")
    (out / "q" / "notes.txt").write_text("more notes\n", encoding="utf-8")
    (out / "assets" / "run.sh").write_text("echo mine\n", encoding="utf-8")
    _forge(out, ["NOTES.md", "q/notes.txt", "assets/run.sh"])
    result = run_cli("export", "site", "--out", str(out), cwd=bank)
    assert result.exit_code == 0, result.output
    assert (out / "NOTES.md").read_text(encoding="utf-8") == "my notes\n"
    assert (out / "q" / "notes.txt").exists() and (out / "assets" / "run.sh").exists()
    for name in ("NOTES.md", "q/notes.txt", "assets/run.sh"):
        assert f"{MANIFEST} names {name}" in result.stderr and "ignored" in result.stderr
    assert "NOTES.md" not in (out / MANIFEST).read_text(encoding="utf-8")


@pytest.mark.parametrize("where", ["the bank", "above the bank", "a git repository", "a bank's questions"])
def test_an_out_that_is_or_holds_a_bank_or_repository_is_refused(
    tmp_path: Path, bank: Path, where: str
) -> None:
    out = {
        "the bank": bank,
        "above the bank": tmp_path,
        "a git repository": tmp_path / "repo",
        "a bank's questions": bank / "questions",
    }[where]
    (out / ".git").mkdir(parents=True, exist_ok=where == "a git repository")
    if where != "a git repository":
        (out / ".git").rmdir()
    (out / MANIFEST).write_text("", encoding="utf-8")  # looks like an empty site
    result = run_cli("export", "site", "--out", str(out), cwd=bank)
    assert not (out / "index.html").exists() and not (out / "assets").exists()
    assert result.exit_code == 2 and "refused" in result.output, result.output


@pytest.mark.parametrize("case", ["forged manifest in the bank", "the user's index.html", "README.md"])
def test_every_refusal_comes_before_the_audit(
    tmp_path: Path, bank: Path, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if case == "forged manifest in the bank":
        _forge(bank, [QUESTION])
        args = ["site", "--out", "."]
    elif case == "the user's index.html":
        (tmp_path / "docs").mkdir()
        (tmp_path / "docs" / MANIFEST).write_text("", encoding="utf-8")
        (tmp_path / "docs" / "index.html").write_text("mine", encoding="utf-8")
        args = ["site", "--out", str(tmp_path / "docs")]
    else:
        (bank / "README.md").write_text("mine", encoding="utf-8")
        args = ["json", "--out", "README.md"]
    ran = _no_audit(monkeypatch)
    result = run_cli("export", *args, cwd=bank)
    assert result.exit_code == 2 and not ran and "internal error" not in result.output, result.output


def test_a_page_the_user_changed_stops_the_export_before_anything_is_written(
    tmp_path: Path, bank: Path
) -> None:
    out = tmp_path / "site"
    assert run_cli("export", "site", "--out", str(out), cwd=bank).exit_code == 0
    page = out / "q" / "cloud-202611-e000.html"
    page.write_text("my annotated copy\n", encoding="utf-8")
    before = {p: p.stat().st_ino for p in out.rglob("*") if p.is_file()}
    result = run_cli("export", "site", "--out", str(out), cwd=bank)
    assert result.exit_code == 2 and "q/cloud-202611-e000.html" in result.output, result.output
    assert page.read_text(encoding="utf-8") == "my annotated copy\n"
    assert {p: p.stat().st_ino for p in out.rglob("*") if p.is_file()} == before  # nothing replaced


@pytest.mark.parametrize("kind", KINDS)
def test_an_export_never_replaces_a_file_it_did_not_write(bank: Path, kind: str) -> None:
    readme = bank / "README.md"
    readme.write_text("# my bank\n", encoding="utf-8")
    result = run_cli("export", kind, "--out", "README.md", cwd=bank)
    assert readme.read_bytes() == b"# my bank\n"
    assert result.exit_code == 2 and "README.md" in result.output and "--force" in result.output


@pytest.mark.parametrize("kind", KINDS)
def test_an_export_of_another_kind_is_not_replaced_either(tmp_path: Path, bank: Path, kind: str) -> None:
    other = {"json": "sqlite", "sqlite": "anki", "anki": "json"}[kind]
    out = tmp_path / "release.out"
    assert run_cli("export", other, "--out", str(out), cwd=bank).exit_code == 0
    before = out.read_bytes()
    result = run_cli("export", kind, "--out", str(out), cwd=bank)
    assert result.exit_code == 2 and "--force" in result.output
    assert out.read_bytes() == before


@pytest.mark.parametrize("kind", KINDS)
def test_a_previous_export_is_replaced_and_force_replaces_any_plain_file(bank: Path, kind: str) -> None:
    readme = bank / "README.md"
    readme.write_text("# my bank\n", encoding="utf-8")
    result = run_cli("export", kind, "--out", "README.md", "--force", cwd=bank)
    assert result.exit_code == 0, result.output
    assert run_cli("export", kind, "--out", "README.md", cwd=bank).exit_code == 0  # now it is ours
    data = readme.read_bytes()
    if kind == "json":
        assert json.loads(data)["format"] == "qbank-release"
    elif kind == "sqlite":
        db = sqlite3.connect(readme)
        assert dict(db.execute("SELECT key, value FROM meta"))["format"] == "qbank-release"
        db.close()
    else:
        assert data.startswith(b"PK\x03\x04")


@pytest.mark.parametrize("kind", KINDS)
def test_force_never_writes_through_a_link(tmp_path: Path, bank: Path, kind: str) -> None:
    victim, out = tmp_path / "victim.txt", tmp_path / "release.out"
    victim.write_text("not ours", encoding="utf-8")
    out.symlink_to(victim)
    result = run_cli("export", kind, "--out", str(out), "--force", cwd=bank)
    assert result.exit_code == 2 and "not a plain file" in result.output
    assert victim.read_text(encoding="utf-8") == "not ours" and out.is_symlink()


@pytest.mark.parametrize(
    "link", ["//evil.example/share", "<  //evil.example/share>", "smb://evil.example/share"]
)
def test_a_link_that_leaves_the_site_is_inert(tmp_path: Path, bank: Path, link: str) -> None:
    question = bank / QUESTION
    text = question.read_text(encoding="utf-8")
    question.write_text(
        text.replace("A BF16 training run", f"A BF16 run ([notes]({link}))"), encoding="utf-8"
    )
    out = tmp_path / "site"
    result = run_cli("export", "site", "--out", str(out), cwd=bank)
    assert result.exit_code == 0 and "released 5 questions" in result.output, result.output
    page = (out / "q" / "cloud-202611-e000.html").read_text(encoding="utf-8")
    assert "evil.example/share" in page  # shown as text ...
    scenario = page.split('<section class="scenario"')[1].split("</section>")[0]
    assert "<a " not in scenario  # ... not a link
    assert 'href="//' not in page and 'href="smb:' not in page


def test_a_site_folder_inside_the_bank_is_still_fine(bank: Path) -> None:
    """What the README shows: `qbank export site --out site/` from the bank's root, twice."""
    for _ in range(2):
        result = run_cli("export", "site", "--out", "site", cwd=bank)
        assert result.exit_code == 0, result.output
    assert (bank / "site" / "index.html").is_file()
