from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest

from qbank.export import files
from tests.conftest import run_cli


def _any(name: str) -> bool:
    """A layout that owns every name, so that these tests see only the path and digest rules
    (the site's own layout: tests/test_hostile_site.py)."""
    return True


def test_a_new_or_empty_folder_has_no_previous_files(tmp_path: Path) -> None:
    assert files.previous_files(tmp_path / "new", _any) == files.Previous({})
    (tmp_path / "empty").mkdir()
    assert files.previous_files(tmp_path / "empty", _any) == files.Previous({})


@pytest.mark.parametrize("content", ["a file", "a folder with someone's files", "a link", "a dangling link"])
def test_anything_else_is_refused(tmp_path: Path, content: str) -> None:
    out = tmp_path / "out"
    if content == "a file":
        out.write_text("x")
    elif content == "a folder with someone's files":
        out.mkdir()
        (out / "keep.txt").write_text("x")
    else:
        (tmp_path / "empty").mkdir()
        out.symlink_to(tmp_path / ("empty" if content == "a link" else "missing"))
    with pytest.raises(files.OutputError):
        files.previous_files(out, _any)


def test_a_manifest_that_is_not_text_is_refused(tmp_path: Path) -> None:
    (tmp_path / files.MANIFEST).write_bytes(b"\xff\xfe not utf-8")
    with pytest.raises(files.OutputError, match="not a manifest qbank wrote"):
        files.previous_files(tmp_path, _any)


def _export(out: Path, pages: dict[str, str]) -> None:
    """What site.build does with the files it writes."""
    previous = files.previous_files(out, _any)
    for name, text in pages.items():
        files.write_atomic(files.real_folder((out / name).parent, out) / Path(name).name, text.encode())
    files.finish(
        out, {name: hashlib.sha256(text.encode()).hexdigest() for name, text in pages.items()}, previous
    )


def _forge(out: Path, names: list[str], target: Path) -> None:
    """Manifest lines naming `names`, each with the right digest of `target`'s bytes, so that only
    the path rules keep them."""
    digest = hashlib.sha256(target.read_bytes()).hexdigest()
    with (out / files.MANIFEST).open("a", encoding="utf-8") as manifest:
        manifest.writelines(f"{digest}  {name}\n" for name in names)


def test_a_new_export_removes_only_the_stale_files_it_wrote(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _export(out, {"old.html": "old", "q/gone.html": "gone", "new.html": "new"})
    assert files.previous_files(out, _any).recorded.keys() == {"old.html", "q/gone.html", "new.html"}
    (out / "notes.txt").write_text("mine")  # added after the export
    _export(out, {"new.html": "newer"})
    assert sorted(p.name for p in out.rglob("*") if p.is_file()) == [files.MANIFEST, "new.html", "notes.txt"]
    assert files.previous_files(out, _any).recorded.keys() == {"new.html"}


def test_a_stale_file_someone_changed_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _export(out, {"old.html": "old", "new.html": "new"})
    (out / "old.html").write_text("my own notes now")
    _export(out, {"new.html": "new"})
    assert (out / "old.html").read_text() == "my own notes now"


def test_a_manifest_cannot_name_a_file_outside_or_through_a_link(tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    elsewhere.mkdir()
    victim = elsewhere / "victim.txt"
    victim.write_text("not ours")
    _export(out, {"index.html": "index"})
    (out / "linked").symlink_to(elsewhere)
    (out / "page.html").symlink_to(victim)
    names = [
        "../elsewhere/victim.txt",
        str(victim),
        "linked/victim.txt",
        "page.html",
        "q/../../elsewhere/victim.txt",
    ]
    names.append("nul\0.html")  # cannot name a file; must not stop the export
    _forge(out, names, victim)
    _export(out, {"index.html": "index"})
    assert victim.read_text() == "not ours" and (out / "page.html").is_symlink()


def test_a_manifest_naming_itself_keeps_the_new_manifest(tmp_path: Path) -> None:
    out = tmp_path / "out"
    _export(out, {"index.html": "index"})
    _forge(out, [files.MANIFEST, f"./{files.MANIFEST}"], out / files.MANIFEST)
    _export(out, {"index.html": "index"})
    assert files.previous_files(out, _any).recorded.keys() == {"index.html"}


def test_a_folder_below_a_linked_folder_is_refused(tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    (elsewhere / "katex").mkdir(parents=True)
    out.mkdir()
    (out / "assets").symlink_to(elsewhere)  # a link on the way, not at the folder itself
    with pytest.raises(files.OutputError, match="not a plain folder"):
        files.real_folder(out / "assets" / "katex" / "fonts", out)
    (out / "inside").mkdir()
    (out / "alias").symlink_to(out / "inside")  # even one that stays inside the output
    with pytest.raises(files.OutputError, match="not a plain folder"):
        files.real_folder(out / "alias" / "q", out)
    assert list(elsewhere.rglob("*")) == [elsewhere / "katex"] and list((out / "inside").iterdir()) == []


@pytest.mark.parametrize("kind", ["a link to a file", "a dangling link", "a folder"])
def test_write_atomic_replaces_only_a_plain_file(tmp_path: Path, kind: str) -> None:
    target, victim = tmp_path / "release.json", tmp_path / "victim.txt"
    victim.write_text("not ours")
    if kind == "a folder":
        target.mkdir()
    else:
        target.symlink_to(victim if kind == "a link to a file" else tmp_path / "missing")
    with pytest.raises(files.OutputError, match="not a plain file"):
        files.write_atomic(target, b"{}")
    assert victim.read_text() == "not ours" and not (tmp_path / "missing").exists()
    assert target.is_dir() if kind == "a folder" else target.is_symlink()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["release.json", "victim.txt"]  # no temporary left


def test_write_atomic_replaces_a_plain_file(tmp_path: Path) -> None:
    target = tmp_path / "release.json"
    target.write_text("old")
    files.write_atomic(target, b"new")
    assert target.read_bytes() == b"new"


@pytest.mark.parametrize("kind", ["json", "sqlite", "anki"])
def test_export_cli_refuses_to_write_through_a_link(tmp_path: Path, bank: Path, kind: str) -> None:
    victim, out = tmp_path / "victim.txt", tmp_path / "release.out"
    victim.write_text("not ours")
    out.symlink_to(victim)
    result = run_cli("export", kind, "--out", str(out), cwd=bank)
    assert result.exit_code == 2 and "not a plain file" in result.output
    assert victim.read_text() == "not ours" and out.is_symlink()


def test_write_atomic_leaves_the_old_file_when_it_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "page.html"
    files.write_atomic(target, b"old")
    assert stat.S_IMODE(target.stat().st_mode) == 0o644

    def broken(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        files.write_atomic(target, b"new")
    assert target.read_bytes() == b"old" and [p.name for p in tmp_path.iterdir()] == ["page.html"]


@pytest.mark.parametrize("marker", files.ROOT_MARKERS)
@pytest.mark.parametrize("folder", [".", "q", "assets/katex"])
def test_a_root_marker_in_the_output_or_a_folder_of_it_is_refused(
    tmp_path: Path, marker: str, folder: str
) -> None:
    """A site folder with a repository or a bank in it, or in a folder the site writes into."""
    (tmp_path / folder / marker).mkdir(parents=True)
    with pytest.raises(files.OutputError, match=f"holds {marker}"):
        files.refuse_roots(tmp_path, None, ["q", "assets", "assets/katex"])
    (tmp_path / "fresh").mkdir()
    files.refuse_roots(tmp_path / "fresh", None, ["q"])  # a folder of its own is fine


def test_a_file_larger_than_is_held_in_memory_is_proven_as_a_stream(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _export(tmp_path / "out", {"index.html": "x" * 100})
    previous = files.previous_files(tmp_path / "out", _any)
    monkeypatch.setattr(files, "HELD", 7)
    files.refuse_unproven(tmp_path / "out", ["index.html"], previous)  # proven: no error
    (tmp_path / "out" / "index.html").write_text("y" * 100)
    with pytest.raises(files.OutputError, match="changed since qbank wrote it"):
        files.refuse_unproven(tmp_path / "out", ["index.html"], previous)


def test_export_all_writes_the_four_from_one_audit(
    bank: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 29: four exports were four serial audits; `export all` audits once, and checks every
    output before it starts."""
    from qbank import engine

    audits = []
    real = engine.audit
    monkeypatch.setattr(engine, "audit", lambda *args: audits.append(args) or real(*args))
    out = tmp_path / "release"
    result = run_cli("export", "all", "--out", str(out), cwd=bank)
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["qbank.apkg", "release.json", "release.sqlite", "site"]
    assert (out / "site" / "index.html").is_file() and len(audits) == 1
    (out / "release.json").write_text("{}", encoding="utf-8")  # not an export qbank wrote
    again = run_cli("export", "all", "--out", str(out), cwd=bank)
    assert again.exit_code == 2 and "release.json" in again.output and len(audits) == 1  # refused first


@pytest.mark.parametrize(
    ("name", "safe"),
    [
        ("q/cloud-202611-0001.html", True),
        ("assets/katex/fonts/KaTeX_Main-Regular.woff2", True),
        (".hidden", True),
        ("q/..html", True),
        ("a//b", True),
        ("a/./b", True),
        ("../x", False),
        ("a/../b", False),
        ("a/..", False),
        ("/etc/passwd", False),
        ("x\0y", False),
        (files.MANIFEST, False),
        (f"./{files.MANIFEST}", False),
        (f"//{files.PROOFS}", False),
        (files.PROOFS, False),
    ],
)
def test_a_safe_name_is_relative_below_the_folder_and_not_the_manifest(name: str, safe: bool) -> None:
    assert files._safe_name(name) is safe
